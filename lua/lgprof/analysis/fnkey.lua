--- Identity of a function across profiles (used by lgprof.diff and lgprof.spread).
-- A function is its demangled name; a static function is its name plus the
-- shortest suffix of its source path (from DWARF, "?" when unknown), in
-- whole components, that tells apart the statics of that name in each of the
-- profiles compared: the same program built in two checkouts (oldtree/a.c,
-- newtree/a.c) matches as "a.c". When a profile holds the same identity
-- twice (two statics of one name without file names), the second one in
-- address order is "NAME#2", the third "NAME#3", and so on.
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

--- The active functions of each profile of a list: for profile i, a map
-- key -> entry and the keys in address order (two lists). An entry is
-- { key =, label =, name =, file =, is_static =, fn = }; label is the
-- name, followed for a static by its path suffix ("helper (a.c)").
function fnkey.collect_all(profiles)
  local statics, fns = {}, {}
  for i, profile in ipairs(profiles) do
    local byname, list = {}, {}
    for fn in profile:symbols() do
      list[#list + 1] = fn
      if fn.is_static then
        local files = byname[fn.name] or {}
        byname[fn.name] = files
        files[#files + 1] = fn.file or "?"
      end
    end
    statics[i], fns[i] = byname, list
  end
  local len = suffix_lengths(statics)
  local maps, orders = {}, {}
  for i, list in ipairs(fns) do
    local map, order, seen = {}, {}, {}
    for _, fn in ipairs(list) do
      local name, static = fn.name, fn.is_static
      local where = static and suffix(fn.file or "?", len[name]) or nil
      local key = static and (name .. "\0" .. where) or name
      local n = (seen[key] or 0) + 1
      seen[key] = n
      if fnkey.active(fn) then
        local label = name
        if static and fn.file then label = label .. " (" .. where .. ")" end
        if n > 1 then key, label = key .. "#" .. n, label .. " #" .. n end
        map[key] = { key = key, label = label, name = name, file = fn.file,
                     is_static = static, fn = fn }
        order[#order + 1] = key
      end
    end
    maps[i], orders[i] = map, order
  end
  return maps, orders
end

return fnkey
