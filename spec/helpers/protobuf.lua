-- A reader of protobuf's wire format, written from the encoding's
-- specification (https://protobuf.dev/programming-guides/encoding/), apart
-- from lgprof's writer, to check what lgprof.pprof encodes; and a decoder of
-- pprof's Profile message (proto/profile.proto in github.com/google/pprof)
-- on top of it.
--
--   local pb = require "helpers.protobuf"
--   local fields = pb.fields(bytes)          -- { {number, wire, value}, ... }
--   local prof = pb.profile(bytes)           -- the Profile as Lua tables
--
-- Errors (truncated data, a bad wire type) raise.

local M = {}

-- A varint at byte i of s: the value (a 64-bit integer) and the next index.
local function varint(s, i)
  local v, shift = 0, 0
  while true do
    local b = s:byte(i)
    assert(b, "protobuf: truncated varint")
    assert(shift < 64, "protobuf: varint longer than 10 bytes")
    v = v | ((b & 0x7f) << shift)
    i = i + 1
    if b < 0x80 then return v, i end
    shift = shift + 7
  end
end
M.varint = varint

--- The fields of a message, in order: { number, wire, value } where value
-- is an integer (wire 0, 1 and 5: the raw bits) or a string (wire 2).
function M.fields(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local k
    k, i = varint(s, i)
    local number, wire = k >> 3, k & 7
    assert(number > 0, "protobuf: field number 0")
    local value
    if wire == 0 then
      value, i = varint(s, i)
    elseif wire == 1 then
      assert(i + 7 <= n, "protobuf: truncated fixed64")
      value = string.unpack("<i8", s, i); i = i + 8
    elseif wire == 5 then
      assert(i + 3 <= n, "protobuf: truncated fixed32")
      value = string.unpack("<I4", s, i); i = i + 4
    elseif wire == 2 then
      local len
      len, i = varint(s, i)
      assert(len >= 0 and i + len - 1 <= n, "protobuf: truncated length-delimited field")
      value = s:sub(i, i + len - 1); i = i + len
    else
      error("protobuf: unsupported wire type " .. wire)
    end
    out[#out + 1] = { number = number, wire = wire, value = value }
  end
  assert(i == n + 1, "protobuf: trailing bytes")
  return out
end

--- The integers of a repeated integer field, packed (wire 2) or not (wire 0).
local function add_ints(list, f)
  if f.wire == 0 then
    list[#list + 1] = f.value
  else
    assert(f.wire == 2, "protobuf: integer field with wire type " .. f.wire)
    local i, s = 1, f.value
    while i <= #s do
      local v
      v, i = varint(s, i)
      list[#list + 1] = v
    end
  end
end
M.add_ints = add_ints

-- A message as a table by schema: schema[number] = { name, kind } with kind
-- "int" (one varint), "ints" (repeated, packed or not), "string", "strings"
-- or a nested schema table, repeated when its field `repeated` is set.
-- Unknown fields raise: the writer must use only the schema's.
local function decode(s, schema)
  local m = {}
  for _, spec in pairs(schema) do
    if type(spec) == "table" and (spec[2] == "ints" or spec[2] == "strings"
        or (type(spec[2]) == "table" and spec.repeated)) then
      m[spec[1]] = {}
    end
  end
  for _, f in ipairs(M.fields(s)) do
    local spec = schema[f.number]
    assert(spec, "protobuf: unknown field " .. f.number)
    local name, kind = spec[1], spec[2]
    if kind == "int" then
      assert(f.wire == 0, name .. ": not a varint")
      m[name] = f.value
    elseif kind == "ints" then
      add_ints(m[name], f)
    elseif kind == "string" or kind == "strings" then
      assert(f.wire == 2, name .. ": not length-delimited")
      if kind == "string" then m[name] = f.value else m[name][#m[name] + 1] = f.value end
    else
      assert(f.wire == 2, name .. ": not a message")
      local sub = decode(f.value, kind)
      if spec.repeated then m[name][#m[name] + 1] = sub else m[name] = sub end
    end
  end
  return m
end
M.decode = decode

-- pprof's profile.proto, field by field
local VALUE_TYPE = { [1] = { "type", "int" }, [2] = { "unit", "int" } }
local LABEL = { [1] = { "key", "int" }, [2] = { "str", "int" }, [3] = { "num", "int" },
                [4] = { "num_unit", "int" } }
local SAMPLE = { [1] = { "location_id", "ints" }, [2] = { "value", "ints" },
                 [3] = { "label", LABEL, repeated = true } }
local MAPPING = { [1] = { "id", "int" }, [2] = { "memory_start", "int" },
                  [3] = { "memory_limit", "int" }, [4] = { "file_offset", "int" },
                  [5] = { "filename", "int" }, [6] = { "build_id", "int" },
                  [7] = { "has_functions", "int" }, [8] = { "has_filenames", "int" },
                  [9] = { "has_line_numbers", "int" }, [10] = { "has_inline_frames", "int" } }
local LINE = { [1] = { "function_id", "int" }, [2] = { "line", "int" }, [3] = { "column", "int" } }
local LOCATION = { [1] = { "id", "int" }, [2] = { "mapping_id", "int" }, [3] = { "address", "int" },
                   [4] = { "line", LINE, repeated = true }, [5] = { "is_folded", "int" } }
local FUNCTION = { [1] = { "id", "int" }, [2] = { "name", "int" }, [3] = { "system_name", "int" },
                   [4] = { "filename", "int" }, [5] = { "start_line", "int" } }
local PROFILE = {
  [1] = { "sample_type", VALUE_TYPE, repeated = true }, [2] = { "sample", SAMPLE, repeated = true },
  [3] = { "mapping", MAPPING, repeated = true }, [4] = { "location", LOCATION, repeated = true },
  [5] = { "function", FUNCTION, repeated = true }, [6] = { "string_table", "strings" },
  [7] = { "drop_frames", "int" }, [8] = { "keep_frames", "int" }, [9] = { "time_nanos", "int" },
  [10] = { "duration_nanos", "int" }, [11] = { "period_type", VALUE_TYPE },
  [12] = { "period", "int" }, [13] = { "comment", "ints" }, [14] = { "default_sample_type", "int" },
  [15] = { "doc_url", "int" },
}

--- The Profile message s decoded: fields by their proto names, proto3's
-- defaults (0) where absent, repeated fields as lists.
function M.profile(s)
  local p = decode(s, PROFILE)
  for _, k in ipairs { "drop_frames", "keep_frames", "time_nanos", "duration_nanos", "period",
                       "default_sample_type", "doc_url" } do
    p[k] = p[k] or 0
  end
  local function defaults(m, schema)
    for _, spec in pairs(schema) do
      if spec[2] == "int" and m[spec[1]] == nil then m[spec[1]] = 0 end
    end
  end
  for _, list in ipairs { { p.sample_type, VALUE_TYPE }, { p.mapping, MAPPING },
                          { p.location, LOCATION }, { p["function"], FUNCTION } } do
    for _, m in ipairs(list[1]) do defaults(m, list[2]) end
  end
  for _, l in ipairs(p.location) do
    for _, ln in ipairs(l.line) do defaults(ln, LINE) end
  end
  if p.period_type then defaults(p.period_type, VALUE_TYPE) end
  return p
end

return M
