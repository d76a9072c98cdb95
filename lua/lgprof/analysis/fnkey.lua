--- Identity of a function across profiles (used by lgprof.diff and lgprof.spread).
-- A function is its demangled name; a static function is its name plus the
-- shortest suffix of its source path (from DWARF, "?" when unknown), in
-- whole components, that tells apart the statics of that name in each of the
-- profiles compared: the same program built in two checkouts (oldtree/a.c,
-- newtree/a.c) matches as "a.c". When a profile holds the same identity
-- twice (two statics of one name without file names), the second one in
-- address order is "NAME#2", the third "NAME#3", and so on.
-- In a profile of sampled stacks (perf.data) a function is also its
-- binary: a name that two binaries of one profile hold (f in the program
-- and in libm) is its name plus the binary's file name ("f (libm.so.6)"),
-- so that each matches its own across recordings whatever the order the
-- recordings met the binaries in; a name only one binary holds stays the
-- name, so a library whose version changed (libfoo.so.1 -> .2) still
-- matches. A function of stripped code (fn.is_anonymous: named
-- BINARY+0xSTART) is also its binary's build-id: two recordings of one
-- build match it by its start, two builds do not (only symbols match).
-- gcc's clones (lookup.constprop.0, cmp.isra.0, f.part.0, f.cold...) are
-- named after their origin (fnkey.origin): a build with other flags
-- renames them, and fnkey.clone_aliases matches them across profiles.
local fnkey = {}

--- Is a function active: sampled, or called at least once?
function fnkey.active(fn)
  -- (a profile of sampled stacks has no calls: nil)
  return fn.flat_self ~= 0 or fn.total ~= 0 or (fn.calls or 0) + (fn.self_calls or 0) ~= 0
end

-- The last k components of path ("/" separated), or all of them.
local function suffix(path, k)
  local parts = {}
  for part in path:gmatch("[^/]+") do parts[#parts + 1] = part end
  if k >= #parts then return path end
  return table.concat(parts, "/", #parts - k + 1)
end

local function depth(path)
  local _, n = path:gsub("[^/]+", "")
  return n
end

-- For each static name, the number of trailing components that tells its
-- distinct files apart in every profile. statics[i][name] = { file... }.
local function suffix_lengths(statics)
  local names, len = {}, {}
  for _, byname in ipairs(statics) do
    for name in pairs(byname) do names[name] = true end
  end
  for name in pairs(names) do
    local k, max = 1, 1
    for _, byname in ipairs(statics) do
      for _, f in ipairs(byname[name] or {}) do max = math.max(max, depth(f)) end
    end
    while k < max do
      local clash = false
      for _, byname in ipairs(statics) do
        local seen = {}
        for _, f in ipairs(byname[name] or {}) do
          local s = suffix(f, k)
          if seen[s] and seen[s] ~= f then clash = true end
          seen[s] = f
        end
      end
      if not clash then break end
      k = k + 1
    end
    len[name] = k
  end
  return len
end

-- The family of a function: its origin name (a clone's origin, or the
-- name), for a static the file name of its source, and its binary where
-- two binaries of the profiles hold the name. A family present among a
-- profile's symbols means the function is in that build, sampled or not.
local function family(name, static, file, binary)
  local f = fnkey.origin(name) or name
  if static then f = f .. "\0" .. ((file or "?"):match("[^/]*$")) end
  if binary then f = f .. "\0\0" .. binary end
  return f
end

--- The name of the one function that stands for every address in no
-- mapping (fnkey.collect_all's unknown_as_one).
fnkey.UNMAPPED = "[unknown]"

--- Is fn an address of a perf.data's stacks that lies in no mapping (no
-- binary: "[unknown] 0xADDR", frame-pointer garbage or code of no file)?
function fnkey.is_unmapped(fn)
  return fn.kind ~= "cycle" and fn.dso == "[unknown]"
end

-- The addresses in no mapping of one profile (list: its Functions) as one
-- function: a table with the fields diff reads (flat_self, samples, total,
-- self_error), or nil when none of them was sampled. Its self time is the
-- sum of theirs (a sample has one leaf); its total counts each stack once
-- however many of them it holds (the sum of their totals would count a
-- chain of garbage addresses once per frame), from the profile's paths:
-- the weight through an entry of one of them not under another.
local function unmapped_as_one(profile, list, paths)
  local self, samples, err2, active = 0, 0, 0, false
  local member = {}
  for _, fn in ipairs(list) do
    member[fn] = true
    active = active or fnkey.active(fn)
    self, samples = self + fn.flat_self, samples + (fn.samples or 0)
    err2 = err2 + (fn.self_error or 0) ^ 2
  end
  if not active then return nil end
  local total = 0
  -- (every frame of every stack: the depth is not cut)
  paths = paths or profile:_measured_paths(math.maxinteger)
  local pnode, pparent, ptotal, funcs = paths.node, paths.parent, paths.total, paths.funcs
  local under = { [0] = false }
  for e = 1, #pnode do
    local mine = member[funcs[pnode[e]]] == true
    local above = under[pparent[e]]
    if mine and not above then total = total + ptotal[e] end
    under[e] = mine or above
  end
  return { name = fnkey.UNMAPPED, flat_self = self, samples = samples, total = total,
           self_error = math.sqrt(err2) }
end

-- collect_all from a census (see there): the maps, orders and families, or
-- nil when a profile's symbols are not its census's.
local function collect_like(profiles, opts, census)
  local unknown_as_one = opts.unknown_as_one
  local maps, orders, families = {}, {}, {}
  for i, profile in ipairs(profiles) do
    local c = census[i]
    if not c or c.unknown_as_one ~= unknown_as_one then return nil end
    local ckey, clabel, cname, cfamily = c.key, c.label, c.name, c.family
    local map, order, unknown = {}, {}, {}
    local function take(j, fn)
      local key = ckey[j]
      if key == nil then
        -- (a position with no key is an address in no mapping)
        if not fnkey.is_unmapped(fn) then return false end
        unknown[#unknown + 1] = fn
        return true
      end
      local name = fn.name
      if name ~= cname[j] then return false end
      map[key] = { key = key, label = clabel[j], name = name, file = fn.file,
                   is_static = fn.is_static, fn = fn, family = cfamily[j] }
      order[#order + 1] = key
      return true
    end
    local paths
    if profile.source == "stacks" and profile.calls_source ~= "gmon" and not profile.is_view then
      -- (a profile of stacks with no calls: its active functions are the
      -- frames of its stacks, a symbol's position its node's; the thousands
      -- of symbols of the binaries, and of addresses in no mapping, idle in
      -- one thread or binary, are not looked at)
      paths = profile:_measured_paths(math.maxinteger)
      local ids = {}
      for id in pairs(paths.funcs) do ids[#ids + 1] = id end
      table.sort(ids)
      for _, id in ipairs(ids) do
        local fn = paths.funcs[id]
        if fn.kind ~= "cycle" and fnkey.active(fn) and not take(id + 1, fn) then return nil end
      end
    else
      local j = 0
      for fn in profile:symbols() do
        j = j + 1
        if fnkey.active(fn) and not take(j, fn) then return nil end
      end
      if j ~= c.n then return nil end
    end
    if unknown[1] then
      local key = fnkey.UNMAPPED
      local fn = unmapped_as_one(profile, unknown, paths)
      if fn then
        map[key] = { key = key, label = key, name = key, is_static = false, fn = fn,
                     family = key, members = unknown }
        order[#order + 1] = key
      end
    end
    maps[i], orders[i], families[i] = map, order, c.families
  end
  return maps, orders, families
end

--- The active functions of each profile of a list: for profile i, a map
-- key -> entry and the keys in address order (two lists). An entry is
-- { key =, label =, name =, file =, is_static =, fn =, family = }; label is
-- the name, followed for a static by its path suffix ("helper (a.c)").
-- A third list holds, for profile i, what that build holds whatever its
-- run did: { keys = the set of the keys of all its symbols, active or not,
-- families = the set of their families (a clone's origin name, a static's
-- file name, the binary) }. opts.unknown_as_one: the addresses of a
-- perf.data in no mapping (fnkey.is_unmapped, differing from run to run)
-- are one function fnkey.UNMAPPED whose entry lists them (members).
--
-- opts.census: what an earlier collect_all of profiles with the same
-- symbols gave (its fourth result: a perf.data's profile:filter of each
-- profile compared holds the whole's symbols): the keys, labels and
-- families are taken from it and only the active functions are looked at
-- (a comparison page's threads and binaries, a dozen diffs of one pair of
-- recordings). When a profile's symbols are not those of its census, it is
-- collected afresh. The fourth result: that census of these profiles.
function fnkey.collect_all(profiles, opts)
  local census = opts and opts.census
  if census then
    local maps, orders, families = collect_like(profiles, opts, census)
    if maps then return maps, orders, families, census end
  end
  local unknown_as_one = opts and opts.unknown_as_one
  local statics, fns, binary_of, in_binaries, build_id = {}, {}, {}, {}, {}
  local unknowns, positions, counts = {}, {}, {}
  for i, profile in ipairs(profiles) do
    local byname, list, first_binary, has_anonymous = {}, {}, {}, false
    local unknown, at, j = {}, {}, 0
    unknowns[i], positions[i] = unknown, at
    for fn in profile:symbols() do
      j = j + 1
      if unknown_as_one and fnkey.is_unmapped(fn) then
        unknown[#unknown + 1] = fn
      else
        list[#list + 1] = fn
        at[#list] = j
        has_anonymous = has_anonymous or fn.is_anonymous
        if fn.is_static then
          local files = byname[fn.name] or {}
          byname[fn.name] = files
          files[#files + 1] = fn.file or "?"
        end
        local dso = fn.dso
        if dso then
          local base = dso:match("[^/]*$")
          binary_of[fn] = base
          local seen = first_binary[fn.name]
          if seen == nil then first_binary[fn.name] = base
          elseif seen ~= base then in_binaries[fn.name] = true end
        end
      end
    end
    statics[i], fns[i], counts[i] = byname, list, j
    build_id[i] = {}
    if has_anonymous then
      for d in profile:dsos() do build_id[i][d.path] = d.build_id end
    end
  end
  local len = suffix_lengths(statics)
  local maps, orders, families, made = {}, {}, {}, {}
  for i, list in ipairs(fns) do
    local map, order, seen, fams, keys = {}, {}, {}, {}, {}
    local c = { n = counts[i], unknown_as_one = unknown_as_one, key = {}, label = {}, name = {},
                family = {} }
    made[i] = c
    local at = positions[i]
    for li, fn in ipairs(list) do
      local name, static = fn.name, fn.is_static
      local where = static and suffix(fn.file or "?", len[name]) or nil
      local key = static and (name .. "\0" .. where) or name
      local binary = in_binaries[name] and binary_of[fn]
      if binary then key = key .. "\0\0" .. binary end
      -- a function of stripped code is named after its start: the same
      -- function only in the same build of its binary (its family too: in
      -- another build the name is another function's)
      local build = fn.is_anonymous and "\0\0\0" .. (build_id[i][fn.dso] or "?") or ""
      key = key .. build
      local n = (seen[key] or 0) + 1
      seen[key] = n
      local fam = family(name, static, fn.file, binary) .. build
      fams[fam] = true
      if n > 1 then key = key .. "#" .. n end
      keys[key] = true
      local label = name
      if static and fn.file then label = label .. " (" .. where .. ")" end
      if binary then label = label .. " (" .. binary .. ")" end
      if n > 1 then label = label .. " #" .. n end
      local j = at[li]
      c.key[j], c.label[j], c.name[j], c.family[j] = key, label, name, fam
      if fnkey.active(fn) then
        map[key] = { key = key, label = label, name = name, file = fn.file,
                     is_static = static, fn = fn, family = fam }
        order[#order + 1] = key
      end
    end
    if unknowns[i][1] then
      local key = fnkey.UNMAPPED
      keys[key], fams[key] = true, true
      local fn = unmapped_as_one(profiles[i], unknowns[i])
      if fn then
        map[key] = { key = key, label = key, name = key, is_static = false, fn = fn,
                     family = key, members = unknowns[i] }
        order[#order + 1] = key
      end
    end
    maps[i], orders[i], families[i] = map, order, { keys = keys, families = fams }
    c.families = families[i]
  end
  return maps, orders, families, made
end

--- The origin name of a gcc clone's name: the name before the first clone
-- suffix ("lookup" for "lookup.constprop.0", "f" for "f.part.0.cold",
-- "f(int)" for "f(int) [clone .isra.0]"); nil for a name that is not a
-- clone's.
function fnkey.origin(name)
  return require("lgprof.core").clone_origin(name)
end

--- Does pattern (lgprof.match) match name or, for a clone's name, its origin?
function fnkey.match(name, pattern)
  local lgprof = require "lgprof"
  if lgprof.match(name, pattern) then return true end
  local origin = fnkey.origin(name)
  return origin ~= nil and lgprof.match(origin, pattern)
end

--- Matches gcc's clones across profiles. maps: a list of key -> entry
-- (entry.name), one per profile (or per side compared). A key is
-- unmatched when some map lacks it; the unmatched keys are grouped by
-- origin name (a clone's origin, or the name itself), and a group becomes
-- one function when no map holds two of its keys (the origin name is
-- unique among the functions unmatched in each profile), it has two keys
-- or more, and one of them is a clone's. Returns alias: key -> the group's
-- first key (in the maps' order, then by key), for the keys of such groups;
-- and the groups left unmatched because a map holds two of their keys (a
-- list of { origin =, keys = { key... } }, by origin): ambiguous, said
-- rather than guessed.
function fnkey.clone_aliases(maps)
  local present = {}
  for _, map in ipairs(maps) do
    for key in pairs(map) do present[key] = (present[key] or 0) + 1 end
  end
  local groups, origins = {}, {}
  for i, map in ipairs(maps) do
    local mine = {}
    for key in pairs(map) do
      if present[key] < #maps then mine[#mine + 1] = key end
    end
    table.sort(mine)
    for _, key in ipairs(mine) do
      local name = map[key].name
      local origin = fnkey.origin(name)
      local g = groups[origin or name]
      if not g then
        g = { keys = {}, seen = {}, per_map = {}, clone = false }
        groups[origin or name] = g
        origins[#origins + 1] = origin or name
      end
      g.per_map[i] = (g.per_map[i] or 0) + 1
      if origin then g.clone = true end
      if not g.seen[key] then
        g.seen[key] = true
        g.keys[#g.keys + 1] = key
      end
    end
  end
  local alias, ambiguous = {}, {}
  for _, o in ipairs(origins) do
    local g, unique = groups[o], true
    for _, n in pairs(g.per_map) do
      if n > 1 then unique = false end
    end
    if unique and g.clone and #g.keys > 1 then
      for _, key in ipairs(g.keys) do alias[key] = g.keys[1] end
    elseif not unique and g.clone and next(g.per_map, next(g.per_map)) then
      -- (in more than one map, one of which holds two: which is which?)
      ambiguous[#ambiguous + 1] = { origin = o, keys = g.keys }
    end
  end
  table.sort(ambiguous, function(a, b) return a.origin < b.origin end)
  return alias, ambiguous
end

--- Applies clone_aliases' result to the maps and orders of collect_all, in
-- place: an entry moves to its group's key (its own key stays in entry.key).
function fnkey.apply_aliases(alias, maps, orders)
  for i, map in ipairs(maps) do
    for key, to in pairs(alias) do
      if key ~= to and map[key] then
        map[to], map[key] = map[key], nil
      end
    end
    local order = orders[i]
    for j, key in ipairs(order) do order[j] = alias[key] or key end
  end
end

-- Does kept (read with the clones kept) hold the data of profile (read with
-- gprof's rule)? Each function's samples and calls must be those of the
-- functions of kept that gprof's rule folds into it: a profile file
-- rewritten since (another run) shows there.
local function same_data(profile, kept)
  if kept.samples ~= profile.samples or kept.arc_records ~= profile.arc_records
     or kept.hz ~= profile.hz then
    return false
  end
  local byaddr, sum = {}, {}
  for fn in profile:symbols() do byaddr[fn.address] = fn end
  for fn in kept:symbols() do
    local into = byaddr[fn.address] or profile:lookup(fn.address)
    if into then
      local t = sum[into] or { samples = 0, calls = 0 }
      sum[into] = t
      t.samples, t.calls = t.samples + fn.samples, t.calls + fn.calls + fn.self_calls
    end
  end
  for fn in profile:symbols() do
    local t = sum[fn] or { samples = 0, calls = 0 }
    -- (calls from a host to its folded clone are the host's self calls;
    -- samples split over bins add up to within rounding)
    if math.abs(t.samples - fn.samples) > 1e-6 * math.max(1, fn.samples)
       or t.calls ~= fn.calls + fn.self_calls then
      return false
    end
  end
  return true
end

-- Each Profile opened with gprof's rule whose executable has clones that
-- the rule folded: the same files read again with the clones kept (or the
-- Profile itself when they cannot be: see fnkey.kept), one table for each
-- value of its `always`. Weak keys: an entry lives as long as its Profile.
local kept_cache = { [false] = setmetatable({}, { __mode = "k" }),
                     [true] = setmetatable({}, { __mode = "k" }) }

--- The Profile with gcc's clones as functions of their own: profile itself
-- when it was opened so, when gprof's rule folded no clone, for a view,
-- when it was not opened by lgprof.open, or opened with clones = "gprof"
-- asked for explicitly (the default is gprof's rule too, but then nothing
-- says the caller wants it) unless always is true (the doctor's look at
-- what the rule folded); else its files read again with
-- the same options and clones = "keep" (once per Profile). When the files
-- no longer hold the Profile's data (rewritten by another run since: the
-- functions' samples and calls differ), the Profile itself is used.
function fnkey.kept(profile, always)
  if profile.clones == "keep" or profile.folded_clones == 0 or profile.is_view then
    return profile
  end
  always = always == true
  local cached = kept_cache[always][profile]
  if cached then return cached end
  local lgprof = require "lgprof"
  local how = lgprof._opened(profile)
  local p
  if how and (how.options.clones == nil or always) then
    local o = {}
    for k, v in pairs(how.options) do o[k] = v end
    o.clones = "keep"
    p = lgprof.open(how.exe, how.gmon, o)
    if p and not same_data(profile, p) then
      p:close()
      p = nil
    end
  end
  kept_cache[always][profile] = p or profile
  return p or profile
end

return fnkey
