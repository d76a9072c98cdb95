-- spec/helpers/perflabels.lua: where perf report and lgprof name a caller
-- frame differently, and by how much that moves perf's children shares.
--
-- A caller frame holds a return address: the instruction after the call.
-- lgprof looks up the address less 1, the call itself, so the frame is the
-- calling function's. perf 6.1 looks up the return address as it is: where
-- the call is the last instruction before another symbol (a call to a
-- noreturn function, or ld.so's `_start`, whose `call _dl_start` is followed
-- by the label `_dl_start_user`), perf names the symbol that begins exactly
-- there. perf script shows such a frame as NAME+0x0.
--
--   local labels = require "helpers.perflabels"
--   local moves = labels.moves(path)     -- { { from =, to =, lose =, gain = } ... }
--   labels.apply(children, moves, alias) -- perf report's children, as lgprof names them
--   local alias = labels.aliases(path)   -- one name for the symbols of one address
--   labels.name_at(dso, addr)            -- the function symbol at or below addr
--   labels.in_plt(dso, addr)             -- whether addr is in one of dso's PLTs
--
-- Each move says: perf report's children share of `from` holds `lose`
-- percent that lgprof does not count there, and `to` (the function holding
-- the byte before `from`, found by address in the binary's symbol table,
-- or in its debug file found by build-id, as perf and lgprof find it) has
-- `gain` percent more in lgprof's. Both are counted sample by sample from
-- perf script on the same file, with each sample's period, as perf report
-- counts children (once per sample): a sample whose chain still names
-- `from` elsewhere loses nothing, one whose chain names `to` already adds
-- nothing.
local util = require "helpers.util"

local M = {}
local q = util.q

-- the function symbols of an ELF file (its .symtab): list of { addr, name },
-- in address order; nil when it has none
local function symtab(path)
  local t = {}
  for a, kind, name in util.read_cmd(util.NM .. " -n --defined-only " .. q(path) .. " 2>/dev/null")
      :gmatch("(%x+) (%a) (%S+)") do
    if kind:find("[tTwWiI]") then t[#t + 1] = { addr = tonumber(a, 16), name = name } end
  end
  return #t > 0 and t or nil
end

-- the symbol table of a binary as a profiler finds it: its own, or its
-- debug file's under /usr/lib/debug/.build-id (cached per path)
local tables = {}
local function symbols_of(dso)
  if tables[dso] ~= nil then return tables[dso] end
  local t = symtab(dso)
  if not t then
    local id = util.read_cmd("readelf -n " .. q(dso) .. " 2>/dev/null"):match("Build ID: (%x+)")
    if id then t = symtab(("/usr/lib/debug/.build-id/%s/%s.debug"):format(id:sub(1, 2), id:sub(3))) end
  end
  tables[dso] = t or false
  return t
end

-- the name of the function holding the byte before the symbol `label` of
-- dso: the symbol with the highest address below label's (nil if unknown)
local function name_before(dso, label)
  local t = symbols_of(dso)
  if not t then return nil end
  for k, s in ipairs(t) do
    if s.name == label then
      for j = k - 1, 1, -1 do
        if t[j].addr < s.addr then return t[j].name end
      end
      return nil
    end
  end
  return nil
end

--- The name of the function symbol of dso (its own symbol table, else its
-- debug file's) with the highest address at most addr (an address of the
-- file, not of a process), or nil where dso has no symbols or none below.
function M.name_at(dso, addr)
  local t = symbols_of(dso)
  if not t or #t == 0 or t[1].addr > addr then return nil end
  local lo, hi = 1, #t
  while lo < hi do -- the last entry at most addr
    local mid = (lo + hi + 1) // 2
    if t[mid].addr <= addr then lo = mid else hi = mid - 1 end
  end
  return t[lo].name
end

--- Parses perf script's samples of path: list of { period, frames }, each
-- frame { sym, off, dso } in the chain's order (the sampled address first),
-- without the frames of inlined functions.
function M.samples(path)
  local out = util.read_cmd(("perf script -i %s -F period,ip,sym,symoff,dso 2>/dev/null"):format(q(path)))
  local list, cur = {}, nil
  for line in (out .. "\n"):gmatch("([^\n]*)\n") do
    local period = line:match("^%s*(%d+)%s*$")
    if period then
      cur = { period = tonumber(period), frames = {} }
      list[#list + 1] = cur
    elseif cur and not line:find(" %(inlined%)$") then
      -- (frames of inlined functions, at the next frame's address, which
      -- perf script shows for DWARF recordings and perf report --no-inline
      -- does not, are left out)
      local sym, off, dso = line:match("^%s+%x+ (.-)%+0x(%x+) %((.*)%)$")
      if sym then
        cur.frames[#cur.frames + 1] = { sym = sym, off = tonumber(off, 16), dso = dso }
      else
        local other = line:match("^%s+%x+ (.-) %(")
        if other then cur.frames[#cur.frames + 1] = { sym = other, dso = line:match("%((.*)%)$") } end
      end
    end
  end
  return list
end

local function kernel(dso) return dso == nil or dso:find("^%[") ~= nil end

--- The moves of perf's children shares to lgprof's names on path (see
-- above); names as given (callers alias them as they alias the shares).
function M.moves(path)
  local samples = M.samples(path)
  local total = 0
  for _, s in ipairs(samples) do total = total + s.period end
  local by = {}   -- "from\0to" -> { from, to, period }
  local names = {}
  for _, s in ipairs(samples) do
    -- perf's names in this chain, and the frames that lgprof names otherwise
    local count, renamed = {}, {}
    for k, fr in ipairs(s.frames) do
      count[fr.sym] = (count[fr.sym] or 0) + 1
      -- a return address: a user frame under another user frame (the first
      -- user frame under kernel frames is the interrupted address)
      if k > 1 and fr.off == 0 and not kernel(fr.dso) and not kernel(s.frames[k - 1].dso) then
        local key = fr.dso .. "\0" .. fr.sym
        if names[key] == nil then names[key] = name_before(fr.dso, fr.sym) or false end
        if names[key] then renamed[#renamed + 1] = { from = fr.sym, to = names[key] } end
      end
    end
    for _, r in ipairs(renamed) do count[r.from] = count[r.from] - 1 end
    local seen = {}
    for _, r in ipairs(renamed) do
      local key = r.from .. "\0" .. r.to
      if not seen[key] then
        seen[key] = true
        local m = by[key] or { from = r.from, to = r.to, lose = 0, gain = 0 }
        if count[r.from] == 0 then m.lose = m.lose + s.period end
        if (count[r.to] or 0) == 0 then m.gain = m.gain + s.period end
        count[r.to] = (count[r.to] or 0) + 1
        by[key] = m
      end
    end
  end
  local list = {}
  for _, m in pairs(by) do
    list[#list + 1] = { from = m.from, to = m.to, lose = 100 * m.lose / total, gain = 100 * m.gain / total }
  end
  table.sort(list, function(a, b) return a.from .. a.to < b.from .. b.to end)
  return list
end

--- A function giving one name to the symbols of one address: perf and
-- lgprof may pick different ones among a binary's aliases (ld.so's fstatat
-- and fstatat64, libc's clone3 and __clone3, mmap and __mmap64). The names
-- of the binaries the samples of path are in (their symbol tables, or
-- their debug files') fall into classes: the names of one address, joined
-- across binaries through the names they share (libc's mmap and ld.so's
-- mmap are one class, as comparisons by name already make them); each name
-- maps to the first of its class without leading underscores, others to
-- themselves without them. Both sides of a comparison summed through it
-- sum the same sets of functions.
function M.aliases(path)
  local parent = {}
  local function find(n)
    while parent[n] and parent[n] ~= n do
      parent[n] = parent[parent[n]] or parent[n]
      n = parent[n]
    end
    return n
  end
  local function union(a, b)
    parent[a], parent[b] = parent[a] or a, parent[b] or b
    local ra, rb = find(a), find(b)
    if ra ~= rb then parent[rb] = ra end
  end
  local seen = {}
  for _, s in ipairs(M.samples(path)) do
    for _, fr in ipairs(s.frames) do
      if fr.dso and not kernel(fr.dso) and fr.dso:sub(1, 1) == "/" and not seen[fr.dso] then
        seen[fr.dso] = true
        local first_at = {}
        for _, sym in ipairs(symbols_of(fr.dso) or {}) do
          first_at[sym.addr] = first_at[sym.addr] or sym.name
          union(first_at[sym.addr], sym.name)
        end
      end
    end
  end
  local best = {}
  for n in pairs(parent) do
    local r, plain = find(n), (n:gsub("^_+", ""))
    if not best[r] or plain < best[r] then best[r] = plain end
  end
  -- (the second result says whether the name is a binary's of the
  -- recording: libc's strnlen is no kernel strnlen)
  return function(name)
    if parent[name] then return best[find(name)], true end
    return (name:gsub("^_+", "")), false
  end
end

-- Whether addr (the binary's own address) is in one of dso's PLT sections
-- (.plt, .plt.got, .plt.sec). perf names each entry of a PLT after its
-- relocation (realloc@plt, *ABS*+0x9f550@plt); lgprof, with no symbol
-- there, has the FDE covering the PLT as one function, BINARY+0xSTART.
local plts = {}
function M.in_plt(dso, addr)
  local t = plts[dso]
  if not t then
    t = {}
    local out = util.read_cmd("readelf -SW " .. q(dso) .. " 2>/dev/null")
    for a, size in out:gmatch("%] %.plt[%.%w]*%s+%S+%s+(%x+)%s+%x+%s+(%x+)") do
      t[#t + 1] = { start = tonumber(a, 16), finish = tonumber(a, 16) + tonumber(size, 16) }
    end
    plts[dso] = t
  end
  for _, r in ipairs(t) do
    if addr >= r.start and addr < r.finish then return true end
  end
  return false
end

--- Applies moves to children shares (name -> percent, names through alias):
-- returns the shares lgprof's naming gives.
function M.apply(shares, moves, alias)
  alias = alias or function(n) return n end
  for _, m in ipairs(moves) do
    local from, to = alias(m.from), alias(m.to)
    if m.lose > 0 then
      shares[from] = (shares[from] or 0) - m.lose
      if shares[from] < 0.005 then shares[from] = nil end
    end
    if m.gain > 0 then shares[to] = (shares[to] or 0) + m.gain end
  end
  return shares
end

return M
