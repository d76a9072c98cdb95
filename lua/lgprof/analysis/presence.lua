--- Is a function of one perf.data profile in the build another profile ran,
-- sampled there or not? (lgprof.diff's "new" and "gone".) A profile of
-- sampled stacks lists only the functions its frames met; the binaries its
-- frames resolved to keep the names their symbol tables define
-- (profile:_defines), which answer it. The function's binary is matched in
-- the other profile by build-id, else by recorded path, else by file name
-- (as fnkey keys a name two binaries hold); then:
--   - the same build (the same build-id, the kernel's too): present, the
--     same file holds the same functions (symbols, FDEs, inlined ones);
--   - otherwise (another build, or no build-id to tell): a function of a
--     symbol is present when that binary defines the name (with clones
--     matched, a name of its family: its clone origin, or a clone of
--     that); a static's source file is not compared (the symbol table
--     does not name it); a function of
--     stripped code (BINARY+0xSTART, from an FDE) is not when both sides
--     name their builds (its name is another function's there);
--   - no such binary among the other profile's (none of its frames was in
--     it): absent.
-- Unknown (nil), there: an inlined function (no symbol of its own), a
-- function of stripped code, a binary whose symbols were not read (JIT
-- code, a file not found); and an address in no mapping, a profile of
-- gmon.out.
local fnkey = require "lgprof.analysis.fnkey"

local presence = {}

-- Each profile's binaries, looked up by build-id, path and file name, made
-- once (weak keys: as long as the profile lives).
local cache = setmetatable({}, { __mode = "k" })

local function binaries(profile)
  local b = cache[profile]
  if b then return b end
  b = { by_build = {}, by_path = {}, by_base = {} }
  local i = 0
  for d in profile:dsos() do
    i = i + 1
    local entry = { index = i, build_id = d.build_id }
    if d.build_id and b.by_build[d.build_id] == nil then b.by_build[d.build_id] = entry end
    if b.by_path[d.path] == nil then b.by_path[d.path] = entry end
    local base = d.path:match("[^/]*$")
    -- (a file name two binaries share names neither)
    if b.by_base[base] == nil then b.by_base[base] = entry
    elseif b.by_base[base] then b.by_base[base] = false end
  end
  cache[profile] = b
  return b
end

local function stacks(profile)
  return profile.source == "stacks" and profile.calls_source ~= "gmon"
end

--- Does the build of profile `to` hold fn, a Function of profile `from`
-- (both perf.data profiles)? as_origin: by family (clones matched). true,
-- false, or nil when that cannot be told (see above).
function presence.holds(from, fn, to, as_origin)
  if not (stacks(from) and stacks(to)) then return nil end
  local dso = fn.dso
  if dso == nil or fn.kind == "cycle" or fnkey.is_unmapped(fn) then return nil end
  local mine = binaries(from).by_path[dso]
  local theirs = binaries(to)
  local build = mine and mine.build_id
  if build and theirs.by_build[build] then return true end
  local other = theirs.by_path[dso] or theirs.by_base[dso:match("[^/]*$")] or nil
  if not other then return false end
  if fn.is_inline then return nil end
  if fn.is_anonymous then
    -- (a side without a build-id: which build is not known)
    if not (build and other.build_id) then return nil end
    return false
  end
  local symbol = fn.symbol
  if symbol == nil then return nil end
  return to:_defines(other.index, symbol, as_origin)
end

return presence
