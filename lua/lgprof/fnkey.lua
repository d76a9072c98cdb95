--- Identity of a function across profiles (used by lgprof.diff and lgprof.spread).
-- A function is its demangled name; a static function is its name plus its
-- source file (from DWARF, "?" when unknown). When a profile holds the same
-- identity twice (two statics of one name without file names), the second
-- one in address order is "NAME#2", the third "NAME#3", and so on.
local fnkey = {}

local function basename(path)
  return path:match("([^/]*)$")
end

--- Is a function active: sampled, or called at least once?
function fnkey.active(fn)
  return fn.flat_self ~= 0 or fn.total ~= 0 or fn.calls + fn.self_calls ~= 0
end

--- The active functions of a profile: a map key -> entry and the keys in
-- address order. An entry is { key =, label =, name =, file =, is_static =, fn = }.
function fnkey.collect(profile)
  local byname, order, seen = {}, {}, {}
  for fn in profile:symbols() do
    local name, static = fn.name, fn.is_static
    local file = static and fn.file or nil
    local key = static and (name .. "\0" .. (file or "?")) or name
    local n = (seen[key] or 0) + 1
    seen[key] = n
    if fnkey.active(fn) then
      local label = name
      if static and file then label = label .. " (" .. basename(file) .. ")" end
      if n > 1 then key, label = key .. "#" .. n, label .. " #" .. n end
      byname[key] = { key = key, label = label, name = name, file = fn.file,
                      is_static = static, fn = fn }
      order[#order + 1] = key
    end
  end
  return byname, order
end

return fnkey
