--- Argument helpers shared by the API and the command's modes: is this a
-- Profile, argument checks, shares ("0.3", "30%"), patterns, "PATTERN=VALUE".
local args = {}

--- Is v a Profile (an opened profile or a view of one)? With method, a
-- table whose field method is a function stands in for one too (the specs'
-- synthetic graphs).
function args.is_profile(v, method)
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__name == "lgprof.Profile" then return true end
  if method and type(v) == "table" then
    local ok, f = pcall(function() return v[method] end)
    return ok and type(f) == "function"
  end
  return false
end

--- Raises "bad argument #n to 'what' (msg)" for the caller's caller unless cond.
function args.check(cond, n, what, msg)
  if not cond then error(("bad argument #%d to '%s' (%s)"):format(n, what, msg), 3) end
end

--- Raises "bad argument #n to 'what' (Profile expected, got TYPE)" for the
-- caller's caller unless v is a Profile (see args.is_profile for method).
function args.check_profile(v, n, what, method)
  if not args.is_profile(v, method) then
    error(("bad argument #%d to '%s' (Profile expected, got %s)"):format(n, what, type(v)), 3)
  end
end

--- A share from "0.3", "30%" or a number: a number in 0..max (default 1), or nil.
function args.share(v, max)
  local n
  if type(v) == "number" then
    n = v
  elseif type(v) == "string" then
    local num, pct = v:match("^%s*([%d.eE+-]+)%s*(%%?)%s*$")
    n = tonumber(num)
    if n and pct == "%" then n = n / 100 end
  end
  if n and n >= 0 and n <= (max or 1) then return n end
  return nil
end

--- An error message without the "file.lua:LINE: " that error() put before it.
function args.message(msg)
  return (tostring(msg):gsub("^[^:]*:%d+: ", ""))
end

--- What is wrong with a pattern (lgprof.match's language), or nil if nothing.
function args.pattern_error(pattern)
  -- required here, not above: lgprof (init.lua) requires this module
  local ok, msg = pcall(require("lgprof").match, "", pattern)
  if not ok then return args.message(msg) end
  return nil
end

--- "PATTERN=VALUE" -> PATTERN, VALUE (the last "=" splits; PATTERN not
-- empty); nil if the word has no such "=".
function args.pattern_value(word)
  return word:match("^(.+)=([^=]*)$")
end

return args
