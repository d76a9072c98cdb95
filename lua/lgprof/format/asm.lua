--- lgprof.format.asm (and so `lgprof --annotate-asm[=RE]`, lgprof.cmd.asm):
-- functions' instructions with their samples, under the source lines and
-- inlined functions they belong to, jump and call targets named, loops'
-- back edges marked, and the hottest instructions and lines at the end.
local args = require "lgprof.util.args"
local annotate = require "lgprof.format.annotate"

local asm = {}

local function basename(p) return (p:match("[^/]*$")) end

--- The listings of functions (a list of Functions of profile) and the
-- profile's totals (weight, samples), in the listings' units.
function asm.listings(profile, functions)
  args.check_profile(profile, 1, "asm.listings")
  args.check(type(functions) == "table", 2, "asm.listings",
    "table expected, got " .. type(functions))
  return profile:_asm(functions)
end

-- "in sq, inlined at hot.c:6" for each function of the chain, innermost first.
local function chain_text(ins)
  local parts = {}
  for _, x in ipairs(ins.inlined) do
    parts[#parts + 1] = ("in %s, inlined at %s:%s"):format(x.name,
      x.call_file and basename(x.call_file) or "?", x.call_line or "?")
  end
  return table.concat(parts, "; ")
end

-- The key of an instruction's place in the source: its line and inline chain.
local function place(ins)
  local k = { ins.file or "", ins.line or 0 }
  for _, x in ipairs(ins.inlined) do
    k[#k + 1] = x.name .. "@" .. tostring(x.call_line or 0)
  end
  return table.concat(k, "\0")
end

-- Source files read once each (nil when not found).
local function source_reader(dirs)
  local cache = {}
  return function(path)
    local c = cache[path]
    if c == nil then
      c = annotate.read_source(path, path, dirs) or false
      cache[path] = c
    end
    return c or nil
  end
end

-- What a jump or call goes to: "call parse", "-> loop at +0x15", "-> +0x20",
-- "-> other+0x4"; "" when no direct target.
local function target_text(fname, ins, l)
  if not ins.target and not ins.target_name then return "" end
  local name
  if not ins.target then
    name = ins.target_name -- through the GOT: no address
  elseif ins.target_name then
    name = ins.target_offset == 0 and ins.target_name
      or ("%s+0x%x"):format(ins.target_name, ins.target_offset)
  elseif ins.back_edge then
    name = ("loop at +0x%x"):format(ins.target_offset)
  elseif ins.target < l.start or ins.target >= l.start + l.size then
    name = ("0x%x"):format(ins.target) -- no symbol known there
  else
    name = ("%s+0x%x"):format(fname, ins.target_offset)
  end
  if ins.is_call then return "call " .. name end
  return "-> " .. name
end

asm.target_text = target_text -- (lgprof.format.html_asm's too)

local COUNTS = {
  histogram = "Counts: gmon.out's histogram, %s bytes a bin, spread over the instructions a bin"
    .. " covers by their bytes (gprof's rule); * marks a share of a bin with other code.",
  samples = "Counts: perf.data samples at their exact addresses; a sample lands on or after the"
    .. " instruction that caused it (skid).",
}

local HEADER = "   samples  %func %total    address    offset  instruction\n"

--- Writes the listings of functions (Functions of profile) to out (a Lua
-- file). options: directories (where to look for sources), top (rows of
-- the Top tables, default 10), names (a function: Function -> printed
-- name). Returns true, or nil and a message.
function asm.write(profile, out, functions, options)
  options = options or {}
  local lists, total = asm.listings(profile, functions)
  local read = source_reader(options.directories or {})
  local top = options.top or 10
  local hot, lines = {}, {}
  local said = {}
  for k, l in ipairs(lists) do
    local fn = functions[k]
    local fname = options.names and options.names(fn) or fn.name
    out:write(("=== %s @ 0x%x, %d bytes: %.2f%% of the total (%s %s)\n"):format(fname, l.start,
      l.size, total > 0 and 100 * l.weight / total or 0,
      l.counts == "histogram" and ("%.2f"):format(l.samples) or ("%d"):format(l.samples),
      l.counts == "histogram" and "ticks" or "samples"))
    if not said[l.counts] then
      out:write(COUNTS[l.counts]:format(l.scale and ("%g"):format(2 * l.scale) or "?"), "\n")
      said[l.counts] = true
    end
    if not l.decoded and not l.code_read then
      out:write("The code was not read (the kernel, JIT code or a binary not found): sampled"
        .. " addresses and counts only.\n")
    elseif not l.decoded then
      out:write(("Code for %s is not decoded: sampled addresses and counts only.\n"):format(
        l.arch))
    end
    out:write(HEADER)
    local last
    for _, ins in ipairs(l.instructions) do
      local here = place(ins)
      if here ~= last and ins.line then
        local text = ins.file and read(ins.file)
        local src = text and text[ins.line] and ("  " .. text[ins.line]:gsub("^%s+", "")) or ""
        local chain = #ins.inlined > 0 and ("  [" .. chain_text(ins) .. "]") or ""
        out:write(("%s%s:%d%s%s\n"):format((" "):rep(4 + 2 * #ins.inlined),
          basename(ins.file), ins.line, chain, src))
      end
      last = here
      if ins.line and ins.weight > 0 then
        local key = ins.file .. ":" .. ins.line
        local r = lines[key] or { name = basename(ins.file) .. ":" .. ins.line, weight = 0,
          samples = 0, fn = fname, counts = l.counts }
        lines[key] = r
        r.weight, r.samples = r.weight + ins.weight, r.samples + ins.samples
      end
      local count = ins.weight > 0 and (l.counts == "histogram" and ("%10.2f"):format(ins.samples)
        or ("%10d"):format(ins.samples)) or (" "):rep(10)
      local fshare = ins.weight > 0 and ("%7.2f"):format(100 * ins.share) or (" "):rep(7)
      local tshare = ins.weight > 0 and total > 0 and ("%7.2f"):format(100 * ins.weight / total)
        or (" "):rep(7)
      local text = ins.mnemonic and (ins.mnemonic .. (ins.operands ~= "" and (" " .. ins.operands)
        or "")) or ""
      local tgt = target_text(fname, ins, l)
      local row = ("%s%s%s %s %10x  %8s  %-40s%s%s"):format(count, fshare, tshare,
        ins.shared_bin and "*" or " ", ins.address, ("+0x%x"):format(ins.offset), text,
        tgt ~= "" and ("  " .. tgt) or "", ins.back_edge and "  (back edge)" or "")
      out:write((row:gsub("%s+$", "")), "\n")
      if ins.weight > 0 then
        hot[#hot + 1] = { fn = fname, ins = ins, counts = l.counts, text = text }
      end
    end
    out:write("\n")
  end
  if top > 0 then
    table.sort(hot, function(a, b)
      if a.ins.weight ~= b.ins.weight then return a.ins.weight > b.ins.weight end
      return a.ins.address < b.ins.address
    end)
    out:write(("Top %d instructions:\n\n   samples %%total    address  function+offset  instruction\n")
      :format(math.min(top, #hot)))
    for i = 1, math.min(top, #hot) do
      local h = hot[i]
      local row = ("%s%7.2f %10x  %-16s %s"):format(h.counts == "histogram"
        and ("%10.2f"):format(h.ins.samples) or ("%10d"):format(h.ins.samples),
        total > 0 and 100 * h.ins.weight / total or 0, h.ins.address,
        ("%s+0x%x"):format(h.fn, h.ins.offset), h.text)
      out:write((row:gsub("%s+$", "")), "\n")
    end
    local lv = {}
    for _, r in pairs(lines) do lv[#lv + 1] = r end
    table.sort(lv, function(a, b)
      if a.weight ~= b.weight then return a.weight > b.weight end
      return a.name < b.name
    end)
    if #lv > 0 then
      out:write(("\nTop %d lines:\n\n   samples %%total  line\n"):format(math.min(top, #lv)))
    end
    for i = 1, math.min(top, #lv) do
      local r = lv[i]
      out:write(("%s%7.2f  %s (%s)\n"):format(r.counts == "histogram"
        and ("%10.2f"):format(r.samples) or ("%10d"):format(r.samples),
        total > 0 and 100 * r.weight / total or 0, r.name, r.fn))
    end
  end
  return true
end

--- The listings as JSON (lgprof's own encoder).
function asm.json_value(profile, functions, names)
  local lists, total, samples = asm.listings(profile, functions)
  local out = { total_weight = total, total_samples = samples, functions = {} }
  for k, l in ipairs(lists) do
    l.name = names and names(functions[k]) or functions[k].name
    out.functions[k] = l
  end
  return out
end

return asm
