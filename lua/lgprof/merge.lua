--- lgprof.merge: sums profile files into one gmon file.
-- The file is what gprof -s writes (header, summed histograms, summed arcs
-- from gprof's line symbols, basic-block counts), except that the arc
-- records are sorted by (from, to, count). gprof writes them in an order that
-- depends on how the inputs were grouped, so merge(merge(a, b), c) and
-- merge(a, merge(b, c)) would differ in their bytes; sorted, they do not.
local merge = {}

local GMON_TAG_TIME_HIST, GMON_TAG_CG_ARC, GMON_TAG_BB_COUNT = 0, 1, 2

local function arc_before(a, b)
  if a[1] ~= b[1] then return math.ult(a[1], b[1]) end
  if a[2] ~= b[2] then return math.ult(a[2], b[2]) end
  return math.ult(a[3], b[3])
end

--- The bytes of a GNU gmon file with its arc records in canonical order.
-- addr_bytes: 4 or 8; big_endian: byte order. Returns nil, message if the
-- bytes are not a well-formed GNU gmon file.
function merge.canonical(bytes, addr_bytes, big_endian)
  local e = big_endian and ">" or "<"
  local addr = "I" .. addr_bytes
  if #bytes < 20 or bytes:sub(1, 4) ~= "gmon" then return nil, "not a GNU gmon file" end
  local parts, arcs, arc_slot = { bytes:sub(1, 20) }, {}, nil
  local pos, len = 21, #bytes
  while pos <= len do
    local tag, size = bytes:byte(pos), nil
    if tag == GMON_TAG_TIME_HIST then
      if pos + 2 * addr_bytes + 4 > len then return nil, "truncated histogram record" end
      local nbins = string.unpack(e .. "I4", bytes, pos + 1 + 2 * addr_bytes)
      size = 1 + 2 * addr_bytes + 8 + 16 + 2 * nbins
    elseif tag == GMON_TAG_CG_ARC then
      size = 1 + 2 * addr_bytes + 4
    elseif tag == GMON_TAG_BB_COUNT then
      if pos + 4 > len then return nil, "truncated basic-block record" end
      size = 1 + 4 + string.unpack(e .. "I4", bytes, pos + 1) * 2 * addr_bytes
    else
      return nil, ("bad tag %d at offset %d"):format(tag, pos - 1)
    end
    if pos + size - 1 > len then return nil, "truncated record" end
    local record = bytes:sub(pos, pos + size - 1)
    if tag == GMON_TAG_CG_ARC then
      local from, to, count = string.unpack(e .. addr .. addr .. "I4", record, 2)
      arcs[#arcs + 1] = { from, to, count, record }
      if not arc_slot then
        parts[#parts + 1] = false
        arc_slot = #parts
      end
    else
      parts[#parts + 1] = record
    end
    pos = pos + size
  end
  if arc_slot then
    table.sort(arcs, arc_before)
    local sorted = {}
    for i, a in ipairs(arcs) do sorted[i] = a[4] end
    parts[arc_slot] = table.concat(sorted)
  end
  return table.concat(parts)
end

--- Writes profile's summed data to path (profile:write_gmon), arcs sorted.
-- Returns true, or nil and "PATH: what is wrong".
function merge.write(profile, path)
  local ok, err = profile:write_gmon(path)
  if not ok then return nil, err end
  local f, oerr = io.open(path, "rb")
  if not f then return nil, oerr end
  local bytes = f:read("a")
  f:close()
  local canon, cerr = merge.canonical(bytes, profile.address_bits // 8, profile.big_endian)
  if not canon then return nil, path .. ": " .. cerr end
  f, oerr = io.open(path, "wb")
  if not f then return nil, oerr end
  local wok, werr = f:write(canon)
  local cok, cerr2 = f:close()
  if not (wok and cok) then return nil, path .. ": " .. tostring(werr or cerr2) end
  return true
end

--- Sums the profile files `gmons` (a path or a list) of the executable `exe`
-- into the file `path`. `options` as for lgprof.open. Returns true, or nil
-- and a message "FILE: what is wrong".
function merge.merge(exe, gmons, path, options)
  if type(path) ~= "string" then
    error("bad argument #3 to 'merge' (string expected, got " .. type(path) .. ")", 2)
  end
  if options ~= nil and type(options) ~= "table" then
    error("bad argument #4 to 'merge' (table expected, got " .. type(options) .. ")", 2)
  end
  local o = { line_arcs = true }
  for k, v in pairs(options or {}) do o[k] = v end
  local profile, err = require("lgprof").open(exe, gmons, o)
  if not profile then return nil, err end
  local ok, werr = merge.write(profile, path)
  profile:close()
  return ok, werr
end

return merge
