-- Synthesized profiles: an x86-64 executable (helpers.elfwriter) and its
-- gmon.out (helpers.gmonwriter) from a list of functions with their samples
-- and a list of arcs, so that every number of the analysis is known exactly.
--
--   local synth = require "helpers.synth"
--   local exe, gmon, addr = synth.write(dir, "tag", {
--     funcs = { { "main", 7 }, { "a", 75 }, { "b", 0 } },   -- name, samples
--     arcs = { { "main", "a", 1 }, { "a", "b", 3 } },        -- caller, callee, count
--   })
--
-- Layout: .text at 0x401000 (opts.text), every function fsize (16) bytes in
-- the order given, then a global NOTYPE "etext" closing the text (gprof
-- credits no samples to the last symbol of its table). One histogram over
-- [first function, etext) at hz (100) samples a second with one fsize-byte
-- bin per function, so a function's bin holds exactly its samples. An arc's
-- call site is 8 bytes into the caller (10 for a second arc between the same
-- pair), its self_pc 4 bytes into the callee. Arcs are written in the order given.
local ew = require "helpers.elfwriter"
local gw = require "helpers.gmonwriter"

local M = {}

M.TEXT, M.FSIZE, M.HZ = 0x401000, 16, 100

--- Writes dir/<tag> and dir/<tag>.gmon; returns their paths and the table
-- key -> address. model.funcs: { {name, samples}, ... } (or { name =,
-- samples = }), where a function may also have a key (default its name:
-- what arcs and the returned table call it, for two functions of one
-- name), bind = "local" (a static) and file (a FILE symbol before it, as
-- a compiler writes one per source file);
-- model.arcs: { {caller, callee, count}, ... } by key; model.text, .fsize, .hz.
function M.write(dir, tag, model)
  local text, fsize = model.text or M.TEXT, model.fsize or M.FSIZE
  local syms, addr = {}, {}
  for i, f in ipairs(model.funcs) do
    local name = f.name or f[1]
    local key = f.key or name
    assert(not addr[key], "two functions keyed " .. key)
    addr[key] = text + fsize * (i - 1)
    if f.file then
      syms[#syms + 1] = { name = f.file, type = "file", bind = "local", section = "abs" }
    end
    syms[#syms + 1] = { name = name, addr = addr[key], size = fsize, bind = f.bind }
  end
  local etext = text + fsize * #model.funcs
  syms[#syms + 1] = { name = "etext", addr = etext, type = "notype" }
  local exe, gmon = dir .. "/" .. tag, dir .. "/" .. tag .. ".gmon"
  ew.write(exe, { text_addr = text, text_size = etext - text, symbols = syms })

  local h = { low = text, high = etext, n_bins = #model.funcs, rate = model.hz or M.HZ,
              dimen = "seconds", abbrev = "s", bins = {} }
  for _, f in ipairs(model.funcs) do
    local n = f.samples or f[2] or 0
    if n ~= 0 then h.bins[gw.bin_for(h, addr[f.key or f.name or f[1]] + 6)] = n end
  end
  -- seen[from][to]: the pairs met so far (tables rather than a string key
  -- per arc: a B3-sized profile has a million arcs)
  local arcs, seen = {}, {}
  for i, a in ipairs(model.arcs or {}) do
    local from, to = addr[a[1]] or error("synth: no function " .. tostring(a[1]), 2),
      addr[a[2]] or error("synth: no function " .. tostring(a[2]), 2)
    local row = seen[from]
    if not row then row = {}; seen[from] = row end
    arcs[i] = { from = from + (row[to] and 10 or 8), to = to + 4, count = a[3] }
    row[to] = true
  end
  gw.write(gmon, { hist = { h }, arcs = arcs })
  return exe, gmon, addr
end

return M
