-- spec/helpers/synthprofile.lua: writes a synthetic executable + gmon.out pair
-- (helpers.elfwriter, helpers.gmonwriter) from a table of functions and arcs.
--
--   local synth = require "helpers.synthprofile"
--   local addr = synth.write(exe_path, gmon_path, {
--     hz = 100,                               -- optional, samples per second
--     functions = { { "main", 70 }, { "f", 30 } },  -- name, self samples
--     arcs = { { "main", "f", 3 } },          -- caller, callee, count
--   })                                        --> { main = 0x401000, f = 0x401010 }
--
-- Layout (x86-64, .text at 0x401000): every function is a global FUNC symbol
-- of 16 bytes, in the order given, followed by a NOTYPE "etext" closing the
-- text (gprof credits no samples to the last symbol of its table). One
-- histogram over the functions, one 16-byte bin per function, so a function's
-- self time is exactly samples / hz seconds. An arc goes from 8 bytes into the
-- caller to 4 bytes into the callee. Names are written as given (any bytes but
-- NUL: global symbols are not filtered by name, by gprof or lgprof).

local ew = require "helpers.elfwriter"
local gw = require "helpers.gmonwriter"

local M = {}

M.TEXT = 0x401000
M.FSIZE = 16

--- Writes the pair; returns the table of addresses by name.
function M.write(exe, gmon, spec)
  local fns = spec.functions
  local addr, syms = {}, {}
  for i, f in ipairs(fns) do
    local name = f[1]
    assert(addr[name] == nil, "synthprofile: function twice: " .. name)
    addr[name] = M.TEXT + M.FSIZE * (i - 1)
    syms[i] = { name = name, addr = addr[name], size = M.FSIZE }
  end
  local etext = M.TEXT + M.FSIZE * #fns
  syms[#syms + 1] = { name = "etext", addr = etext, type = "notype" }
  ew.write(exe, { text_addr = M.TEXT, text_size = etext - M.TEXT, symbols = syms })

  local h = { low = M.TEXT, high = etext, n_bins = #fns, rate = spec.hz or 100,
              dimen = "seconds", abbrev = "s", bins = {} }
  for i, f in ipairs(fns) do
    local n = f[2] or 0
    assert(math.type(n) == "integer" and n >= 0 and n <= 0xffff,
      "synthprofile: samples must fit a 16-bit bin: " .. f[1])
    assert(gw.bin_for(h, addr[f[1]]) == i)
    h.bins[i] = n
  end
  local arcs = {}
  for i, a in ipairs(spec.arcs or {}) do
    local from, to = assert(addr[a[1]], a[1]), assert(addr[a[2]], a[2])
    arcs[i] = { from = from + 8, to = to + 4, count = a[3] }
  end
  gw.write(gmon, { hist = { h }, arcs = arcs })
  return addr
end

return M
