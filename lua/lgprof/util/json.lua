--- lgprof.util.json: the JSON of lgprof's own Lua-written documents (the
-- doctor's findings, the --by groups): plain values, lists and objects
-- (keys sorted, so that a document is the same on every run).
local json = {}

-- A JSON string: the core's (bytes that are not UTF-8 read as Latin-1).
local json_string = require("lgprof.core").json_string

local function is_list(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n == #t -- an empty table is an empty list: no object here is empty
end
--- Appends the JSON text of v to the list out (strings: the core's
-- encoding; integers as integers, other numbers with 17 digits, NaN and
-- infinities as null; a table whose keys are 1..n a list, {} one too).
function json.encode(v, out)
  local t = type(v)
  if t == "string" then
    out[#out + 1] = json_string(v)
  elseif t == "number" then
    if math.type(v) == "integer" then out[#out + 1] = ("%d"):format(v)
    elseif v ~= v or v == math.huge or v == -math.huge then out[#out + 1] = "null"
    else out[#out + 1] = ("%.17g"):format(v) end
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "table" then
    if is_list(v) then
      out[#out + 1] = "["
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = "," end
        json.encode(x, out)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = json_string(k) .. ":"
        json.encode(v[k], out)
      end
      out[#out + 1] = "}"
    end
  else
    out[#out + 1] = "null"
  end
end

--- The JSON text of v.
function json.text(v)
  local out = {}
  json.encode(v, out)
  return table.concat(out)
end

return json
