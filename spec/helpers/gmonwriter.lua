-- spec/helpers/gmonwriter.lua
--
-- Pure Lua 5.4 writer (and reader) of gmon.out files, for tests and
-- benchmarks.  See section 2 of gprof-2.40-behaviour.md.
--
--   local gw = require "helpers.gmonwriter"
--   local data = {
--     version = 1,                 -- optional, GNU only (opts.version wins)
--     hist = {                     -- zero or more histogram records
--       { low = 0x1000, high = 0x2000, rate = 100, dimen = "seconds",
--         abbrev = "s",
--         bins = { 0, 5, 0, ... }, -- dense, 1-based ...
--         n_bins = 2048,           -- ... or sparse: bins[i] for i = 1..n_bins,
--                                  --     missing entries are 0
--         hist_size = nil,         -- optional: lie about the bin count in the
--                                  --     GNU header (bins actually written stay n_bins)
--         ncnt = nil,              -- optional: lie about ncnt in BSD headers
--       },
--     },
--     arcs = { { from = 0x1010, to = 0x1100, count = 3 }, ... },  -- in order
--     bb = {                       -- optional, GNU tagged format only
--       { blocks = { { addr = 0x1010, count = 7 }, ... } },   -- one tag-2 record
--       { { addr = 0x1010, count = 7 } },                       -- same, shorter
--       { raw = "..." },           -- record body written verbatim after the tag
--     },
--     records = nil,               -- optional explicit record order (GNU only):
--                                  -- { {"hist", i}, {"arc", i}, {"bb", i},
--                                  --   {"tag", n}, {"raw", bytes} }
--   }
--   gw.encode(data, { format = "gnu"|"bsd44"|"oldbsd"|"ldprofile", bits = 64|32,
--                     endian = "little"|"big", version = 1 }) -> string
--
-- format "ldprofile" is glibc's LD_PROFILE file (layout in
-- csrc/core/read/gmon.c): version 0x1ffff, u32 tags, exactly one histogram
-- (hist[1]), then the arcs, whose from and to are the file's raw values:
-- offsets from hist[1].low, from = 0 for a caller outside the library.
-- Extra fields of data for it: slots (arc records the file has room for,
-- default #arcs; the unused ones are zero), narcs (lie about the records
-- in use), hist_tag and arc_tag (default 0 and 1), truncate (cut the file
-- to this many bytes), trailing (raw bytes appended).
--   gw.write(path, data, opts)
--   gw.decode(str, { bits = 64, endian = "little", format = "auto" }) -> data
--
-- All integer fields are masked to their width, so -1 becomes 0xffffffff in
-- a u32 field.  Default opts: gnu, 64 bits, little endian, version 1.

local util = require "helpers.util"

local M = {}

local GMON_MAGIC = "gmon"
local GMONVERSION = 0x00051879

M.TAG_TIME_HIST = 0
M.TAG_CG_ARC = 1
M.TAG_BB_COUNT = 2
M.GMONVERSION = GMONVERSION

-- Header sizes (binutils gprof/gmon.h).  Note the 32-bit 4.4BSD header is
-- 4+4+4+4+4+12 = 32 bytes.
local HDRSIZE = {
  bsd44 = { [64] = 8 + 8 + 4 + 4 + 4 + 12, [32] = 4 + 4 + 4 + 4 + 4 + 12 },
  oldbsd = { [64] = 8 + 8 + 4, [32] = 4 + 4 + 4 },
  gnu = { [64] = 20, [32] = 20 },
}

local function norm_opts(opts)
  opts = opts or {}
  local o = {
    format = opts.format or "gnu",
    bits = opts.bits or 64,
    endian = opts.endian or "little",
    version = opts.version,
  }
  if o.format == "bsd" then o.format = "oldbsd" end
  if o.format == "magic" then o.format = "gnu" end
  assert(o.format == "gnu" or o.format == "bsd44" or o.format == "oldbsd"
         or o.format == "ldprofile" or o.format == "auto",
         "gmonwriter: bad format " .. tostring(o.format))
  assert(o.bits == 64 or o.bits == 32, "gmonwriter: bits must be 32 or 64")
  assert(o.endian == "little" or o.endian == "big",
         "gmonwriter: endian must be little or big")
  o.e = (o.endian == "little") and "<" or ">"
  o.asz = o.bits // 8
  return o
end

--- Size in bytes of the file header for a format ("gnu", "bsd44", "oldbsd").
function M.header_size(format, bits)
  if format == "bsd" then format = "oldbsd" end
  return HDRSIZE[format][bits or 64]
end

local function mask(v, bytes)
  v = math.tointeger(v) or error("gmonwriter: not an integer: " .. tostring(v))
  if bytes >= 8 then return v end
  return v & ((1 << (bytes * 8)) - 1)
end

-- Packers bound to one byte order / address width.
local function packers(o)
  local e = o.e
  local fa = e .. "I" .. o.asz
  local f32, f16 = e .. "I4", e .. "I2"
  local asz = o.asz
  return {
    addr = function(v) return string.pack(fa, mask(v, asz)) end,
    u32 = function(v) return string.pack(f32, mask(v, 4)) end,
    u16 = function(v) return string.pack(f16, mask(v, 2)) end,
    fa = fa, f32 = f32, f16 = f16,
  }
end

local function n_bins_of(h)
  return h.n_bins or (h.bins and #h.bins) or 0
end

-- Bins as one string of u16s, 1-based bins[i].
local function bins_string(h, o)
  local n = n_bins_of(h)
  local bins = h.bins or {}
  local f16 = o.e .. "I2"
  local out, k = {}, 0
  -- Pack in chunks of up to 256 bins to keep string.pack arguments small.
  local zero2 = "\0\0"
  local i = 1
  while i <= n do
    local j = math.min(n, i + 255)
    local chunk = {}
    for b = i, j do
      local v = bins[b]
      if v == nil or v == 0 then
        chunk[#chunk + 1] = zero2
      else
        chunk[#chunk + 1] = string.pack(f16, mask(v, 2))
      end
    end
    k = k + 1
    out[k] = table.concat(chunk)
    i = j + 1
  end
  return table.concat(out)
end

local function dimen_field(d)
  d = d or "seconds"
  d = d:sub(1, 15)                      -- strncpy: no terminator if 15 chars
  return d .. string.rep("\0", 15 - #d)
end

local function abbrev_field(a)
  if a == nil then a = "s" end
  if type(a) == "number" then return string.char(a & 0xff) end
  if a == "" then return "\0" end
  return a:sub(1, 1)
end

local function arc_self(a)
  return a.to or a.self or a.self_pc or error("gmonwriter: arc without 'to'")
end

local function arc_from(a)
  return a.from or a.from_pc or error("gmonwriter: arc without 'from'")
end

local function encode_hist_rec(h, o, p)
  local n = n_bins_of(h)
  return table.concat {
    string.char(M.TAG_TIME_HIST),
    p.addr(h.low), p.addr(h.high),
    p.u32(h.hist_size or n),
    p.u32(h.rate or h.prof_rate or 100),
    dimen_field(h.dimen),
    abbrev_field(h.abbrev),
    bins_string(h, o),
  }
end

local function encode_bb_rec(r, o, p, version)
  local out = { string.char(M.TAG_BB_COUNT) }
  if r.raw then
    out[2] = r.raw
    return table.concat(out)
  end
  local blocks = r.blocks or r
  out[#out + 1] = p.u32(r.nblocks or #blocks)
  if version == 0 then
    -- Version 0 layout, host order (gprof reads it with fread): a
    -- NUL-terminated string, then per block ncalls(8) addr(8) str str int.
    out[#out + 1] = (r.name or "") .. "\0"
    for _, b in ipairs(blocks) do
      out[#out + 1] = string.pack("=i8i8zzi4", b.count or 0, b.addr,
        b.func or "", b.file or "", b.line or 0)
    end
  else
    for _, b in ipairs(blocks) do
      out[#out + 1] = p.addr(b.addr)
      out[#out + 1] = p.addr(b.count or 0)
    end
  end
  return table.concat(out)
end

local function encode_arcs_tagged(arcs, p, out)
  -- one record: tag byte, from, self (address width), u32 count
  local fmt = p.fa:sub(1, 1) .. "B" .. p.fa:sub(2) .. p.fa:sub(2) .. p.f32:sub(2)
  local asz = tonumber(p.fa:sub(-1))
  local k = #out
  local pack, tag = string.pack, M.TAG_CG_ARC
  -- (the fields read in place, mask() only where it changes something: a
  -- B3-sized profile has a million arcs)
  for i = 1, #arcs do
    local a = arcs[i]
    local from, to, count = a.from or arc_from(a), a.to or arc_self(a), a.count or 1
    if asz < 8 then from, to = mask(from, asz), mask(to, asz) end
    k = k + 1
    out[k] = pack(fmt, tag, from, to, mask(count, 4))
  end
end

local function encode_gnu(data, o, p)
  local version = o.version or data.version or 1
  local out = {
    data.cookie or GMON_MAGIC,
    string.pack(o.e .. "i4", version),
    data.spare or string.rep("\0", 12),
  }
  local hist, arcs, bb = data.hist or {}, data.arcs or {}, data.bb or {}
  if data.records then
    for _, r in ipairs(data.records) do
      local kind, v = r[1], r[2]
      if kind == "hist" then
        out[#out + 1] = encode_hist_rec(hist[v], o, p)
      elseif kind == "arc" then
        encode_arcs_tagged({ arcs[v] }, p, out)
      elseif kind == "bb" then
        out[#out + 1] = encode_bb_rec(bb[v], o, p, version)
      elseif kind == "tag" then
        out[#out + 1] = string.char(v & 0xff)
      elseif kind == "raw" then
        out[#out + 1] = v
      else
        error("gmonwriter: bad record kind " .. tostring(kind))
      end
    end
  else
    for _, h in ipairs(hist) do out[#out + 1] = encode_hist_rec(h, o, p) end
    encode_arcs_tagged(arcs, p, out)
    for _, r in ipairs(bb) do
      out[#out + 1] = encode_bb_rec(r, o, p, version)
    end
  end
  return table.concat(out)
end

local function encode_bsd(data, o, p)
  local hist = data.hist or {}
  assert(#hist <= 1, "gmonwriter: BSD formats hold exactly one histogram")
  assert(not data.bb or #data.bb == 0,
         "gmonwriter: BSD formats have no basic-block records")
  local h = hist[1] or { low = 0, high = 0, n_bins = 0 }
  local hsize = HDRSIZE[o.format][o.bits]
  local n = n_bins_of(h)
  local out = { p.addr(h.low), p.addr(h.high), p.u32(h.ncnt or (n * 2 + hsize)) }
  if o.format == "bsd44" then
    out[#out + 1] = p.u32(h.bsd_version or GMONVERSION)
    out[#out + 1] = p.u32(h.rate or h.prof_rate or 100)
    out[#out + 1] = h.spare or string.rep("\0", 12)
  end
  out[#out + 1] = bins_string(h, o)
  -- raw arcs: from, self, count, all of address width
  local fmt = o.e .. string.rep("I" .. o.asz, 3)
  local asz = o.asz
  for _, a in ipairs(data.arcs or {}) do
    out[#out + 1] = string.pack(fmt, mask(arc_from(a), asz),
      mask(arc_self(a), asz), mask(a.count or 1, asz))
  end
  return table.concat(out)
end

M.LDPROFILE_VERSION = 0x1ffff

local function encode_ldprofile(data, o, p)
  local hist = data.hist or {}
  assert(#hist == 1, "gmonwriter: an LD_PROFILE file holds exactly one histogram")
  local h, arcs = hist[1], data.arcs or {}
  local slots = data.slots or #arcs
  assert(slots >= #arcs, "gmonwriter: fewer slots than arcs")
  local out = {
    data.cookie or GMON_MAGIC,
    p.u32(o.version or data.version or M.LDPROFILE_VERSION),
    data.spare or string.rep("\0", 12),
    p.u32(data.hist_tag or M.TAG_TIME_HIST),
    p.addr(h.low), p.addr(h.high),
    p.u32(h.hist_size or n_bins_of(h)),
    p.u32(h.rate or h.prof_rate or 100),
    dimen_field(h.dimen),
    abbrev_field(h.abbrev),
    bins_string(h, o),
    p.u32(data.arc_tag or M.TAG_CG_ARC),
    p.u32(data.narcs or #arcs),
  }
  for _, a in ipairs(arcs) do
    out[#out + 1] = p.addr(arc_from(a)) .. p.addr(arc_self(a)) .. p.u32(a.count or 1)
  end
  out[#out + 1] = string.rep("\0", (slots - #arcs) * (2 * o.asz + 4))
  out[#out + 1] = data.trailing
  local s = table.concat(out)
  if data.truncate then s = s:sub(1, data.truncate) end
  return s
end

--- Encode a description as a gmon.out byte string.
function M.encode(data, opts)
  local o = norm_opts(opts)
  assert(o.format ~= "auto", "gmonwriter: encode needs a concrete format")
  local p = packers(o)
  if o.format == "gnu" then return encode_gnu(data, o, p) end
  if o.format == "ldprofile" then return encode_ldprofile(data, o, p) end
  return encode_bsd(data, o, p)
end

--- Write bytes (a string) or a description (a table) to path.
function M.write(path, data, opts)
  local s = type(data) == "string" and data or M.encode(data, opts)
  util.spit(path, s)
  return s
end

--- The bytes of a file (raises if it cannot be read).
function M.read(path)
  return (assert(util.slurp(path), "cannot read " .. path))
end

---------------------------------------------------------------------------
-- Decoder
---------------------------------------------------------------------------

-- Reads n u16 bins of byte order e at pos into h.bins (1-based) and
-- h.n_bins; returns the position after them.
local function read_bins(h, s, pos, n, e)
  local bins, f16 = {}, e .. "I2"
  for i = 1, n do
    bins[i] = string.unpack(f16, s, pos)
    pos = pos + 2
  end
  h.bins, h.n_bins = bins, n
  return pos
end

local function decode_gnu(s, o)
  local e = o.e
  local fa = e .. "I" .. o.asz
  local data = { format = "gnu", hist = {}, arcs = {}, bb = {}, records = {} }
  assert(#s >= 20, "gmondecode: file too short to be a gmon file")
  assert(s:sub(1, 4) == GMON_MAGIC, "gmondecode: bad magic")
  data.version = string.unpack(e .. "i4", s, 5)
  data.spare = s:sub(9, 20)
  local pos, len = 21, #s
  local arc_fmt = e .. "I" .. o.asz .. "I" .. o.asz .. "I4"
  local arcs, hist, bb, recs = data.arcs, data.hist, data.bb, data.records
  while pos <= len do
    local tag = s:byte(pos)
    pos = pos + 1
    if tag == M.TAG_CG_ARC then
      assert(pos + 2 * o.asz + 4 - 1 <= len, "gmondecode: truncated arc")
      local from, to, count
      from, to, count, pos = string.unpack(arc_fmt, s, pos)
      arcs[#arcs + 1] = { from = from, to = to, count = count }
      recs[#recs + 1] = { "arc", #arcs }
    elseif tag == M.TAG_TIME_HIST then
      local h = {}
      h.low, pos = string.unpack(fa, s, pos)
      h.high, pos = string.unpack(fa, s, pos)
      local n
      n, pos = string.unpack(e .. "I4", s, pos)
      h.rate, pos = string.unpack(e .. "I4", s, pos)
      local d = s:sub(pos, pos + 14)
      h.dimen = d:match("^[^%z]*")
      h.abbrev = s:sub(pos + 15, pos + 15)
      pos = pos + 16
      assert(pos + 2 * n - 1 <= len, "gmondecode: truncated histogram")
      pos = read_bins(h, s, pos, n, e)
      hist[#hist + 1] = h
      recs[#recs + 1] = { "hist", #hist }
    elseif tag == M.TAG_BB_COUNT then
      local nb
      nb, pos = string.unpack(e .. "I4", s, pos)
      local blocks = {}
      if data.version == 0 then
        local name
        name, pos = string.unpack("z", s, pos)
        for i = 1, nb do
          local c, a, fn, fl, ln
          c, a, fn, fl, ln, pos = string.unpack("=i8i8zzi4", s, pos)
          blocks[i] = { addr = a, count = c, func = fn, file = fl, line = ln }
        end
        bb[#bb + 1] = { name = name, blocks = blocks }
      else
        for i = 1, nb do
          local a, c
          a, c, pos = string.unpack(fa .. fa:sub(2), s, pos)
          blocks[i] = { addr = a, count = c }
        end
        bb[#bb + 1] = { blocks = blocks }
      end
      recs[#recs + 1] = { "bb", #bb }
    else
      error(string.format("gmondecode: found bad tag %d at offset %d", tag, pos - 2))
    end
  end
  return data
end

local function decode_bsd(s, o, fmt)
  local e = o.e
  local fa = e .. "I" .. o.asz
  local pos = 1
  local h = {}
  h.low, pos = string.unpack(fa, s, pos)
  h.high, pos = string.unpack(fa, s, pos)
  local ncnt
  ncnt, pos = string.unpack(e .. "I4", s, pos)
  local version = string.unpack(e .. "I4", s, pos)
  local data = { hist = { h }, arcs = {} }
  if fmt == "auto" then fmt = (version == GMONVERSION) and "bsd44" or "oldbsd" end
  data.format = fmt
  if fmt == "bsd44" then
    h.rate = string.unpack(e .. "I4", s, pos + 4)
  end
  local hsize = HDRSIZE[fmt][o.bits]
  h.dimen, h.abbrev = "seconds", "s"
  local n = (ncnt - hsize) // 2
  pos = read_bins(h, s, hsize + 1, n, e)
  local rec = 3 * o.asz
  local afmt = e .. string.rep("I" .. o.asz, 3)
  while pos + rec - 1 <= #s do
    local from, to, count
    from, to, count, pos = string.unpack(afmt, s, pos)
    data.arcs[#data.arcs + 1] = { from = from, to = to, count = count }
  end
  return data
end

--- Decode a gmon.out byte string into the description shape used by encode.
-- opts: bits (64), endian ("little"), format ("auto" | "gnu" | "bsd44" | "oldbsd").
function M.decode(s, opts)
  opts = opts or {}
  local o = norm_opts { bits = opts.bits, endian = opts.endian,
                        format = opts.format or "auto" }
  local fmt = o.format
  if fmt == "auto" then
    if s:sub(1, 4) == GMON_MAGIC then return decode_gnu(s, o) end
    return decode_bsd(s, o, "auto")
  elseif fmt == "gnu" then
    return decode_gnu(s, o)
  else
    return decode_bsd(s, o, fmt)
  end
end

---------------------------------------------------------------------------
-- Helpers for building realistic data
---------------------------------------------------------------------------

--- Histogram geometry as glibc's __monstartup computes it from the text
-- range [text_lo, text_hi) (__executable_start / etext).  Returns a hist
-- record without bins: { low, high, n_bins, rate = 100, dimen, abbrev }.
function M.glibc_hist(text_lo, text_hi, rate)
  local low = text_lo & ~3                      -- ROUNDDOWN(lowpc, 4)
  local high = (text_hi + 3) & ~3               -- ROUNDUP(highpc, 4)
  local textsize = high - low
  local kcountsize = textsize // 2              -- / HISTFRACTION
  kcountsize = (kcountsize + 7) & ~7            -- ROUNDUP(, sizeof(ARCINDEX))
  return { low = low, high = high, n_bins = kcountsize // 2,
           rate = rate or 100, dimen = "seconds", abbrev = "s", bins = {} }
end

--- Bin index (1-based) that holds address pc in hist record h, as gprof
-- maps it (bin = (pc - low) / scale, scale = (high - low) / n_bins).
function M.bin_for(h, pc)
  local n = n_bins_of(h)
  local i = math.floor((pc - h.low) * n / (h.high - h.low))
  return i + 1
end

---------------------------------------------------------------------------
-- Corruptions for bad-input tests
---------------------------------------------------------------------------

--- First n bytes of s (n >= 0), or s without its last -n bytes (n < 0).
function M.truncate(s, n)
  if n < 0 then return s:sub(1, math.max(0, #s + n)) end
  return s:sub(1, n)
end

--- Overwrite bytes of s at 0-based offset.
function M.patch(s, offset, bytes)
  assert(offset >= 0 and offset <= #s)
  return s:sub(1, offset) .. bytes .. s:sub(offset + #bytes + 1)
end

--- GNU file whose records are followed (where = "end", default) or preceded
-- (where = "start") by a record with an invalid tag byte (default 3), plus
-- optional trailing bytes.
function M.bad_tag(data, opts, tag, where, trailing)
  local o = norm_opts(opts)
  o.format = "gnu"
  local s = M.encode(data, o)
  local t = string.char((tag or 3) & 0xff) .. (trailing or "")
  if where == "start" then
    return s:sub(1, 20) .. t .. s:sub(21)
  end
  return s .. t
end

--- GNU file with an unsupported version (default 2).
function M.bad_version(data, opts, version)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.format, o.version = "gnu", version or 2
  return M.encode(data, o)
end

--- GNU file whose 4-byte cookie is not "gmon" (default "gmoN"): read as
-- BSD by auto-detection, rejected by -O magic.
function M.bad_magic(data, opts, cookie)
  local d = {}
  for k, v in pairs(data) do d[k] = v end
  d.cookie = (cookie or "gmoN"):sub(1, 4)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.format = "gnu"
  return M.encode(d, o)
end

--- A file whose first histogram claims `count` bins (default 0x7fffffff)
-- while only its real bins are present.  GNU: the hist_size field; BSD:
-- ncnt = count*2 + header size (masked to 32 bits).
function M.huge_bins(data, opts, count)
  local o = norm_opts(opts)
  count = count or 0x7fffffff
  local d = {}
  for k, v in pairs(data) do d[k] = v end
  d.hist = {}
  for i, h in ipairs(data.hist or {}) do
    local c = {}
    for k, v in pairs(h) do c[k] = v end
    d.hist[i] = c
  end
  if not d.hist[1] then d.hist[1] = { low = 0x1000, high = 0x2000, n_bins = 0 } end
  if o.format == "gnu" then
    d.hist[1].hist_size = count
  else
    d.hist[1].ncnt = mask(count * 2 + HDRSIZE[o.format][o.bits], 4)
  end
  return M.encode(d, opts)
end

--- GNU file cut in the middle of its last record (drops `cut` bytes,
-- default 1): gprof reports an unexpected EOF / truncated record.
function M.truncated_record(data, opts, cut)
  return M.truncate(M.encode(data, opts), -(cut or 1))
end

return M
