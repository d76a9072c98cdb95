-- Writes perf.data files for the specs: every byte chosen here, so that what
-- a reader must find in them is known exactly. The layout is what
-- `perf record` writes (a file: header, id arrays, attrs, the record stream,
-- the feature table; a pipe: a 16-byte header, then attr and feature
-- records); `perf report -D` accepts these files.
--
--   local pw = require "helpers.perfwriter"
--   local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD,
--                                  period = 1000000, ids = { 1 } } } })
--   f:comm(4242, 4242, "prog", 1000, true)
--   f:mmap2(4242, 4242, 0x555555555000, 0x1000, 0x1000, "/tmp/x/prog", 2000)
--   f:sample({ ip = 0x555555555160, pid = 4242, tid = 4242, time = 3000, period = 1000000 })
--   f:finished_round()
--   pw.write(path, f:bytes())            -- f:bytes({ pipe = true }) for pipe mode
--
-- pw.new({ order = ">", ... }) writes the same recording as a big-endian
-- machine would.
local M = {}

M.IP, M.TID, M.TIME, M.ADDR, M.READ, M.CALLCHAIN = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
M.ID, M.CPU, M.PERIOD, M.STREAM_ID, M.RAW = 0x40, 0x80, 0x100, 0x200, 0x400
M.BRANCH_STACK, M.REGS_USER, M.STACK_USER, M.IDENTIFIER = 0x800, 0x1000, 0x2000, 0x10000
M.CONTEXT_KERNEL, M.CONTEXT_USER = -128, -512
M.SAMPLE_ID_ALL = 1 << 18

-- The integer writers of one byte order ("<" little-endian, as perf on
-- x86-64 writes, or ">" big-endian): every integer of a file goes through
-- them, each by its own width; strings and byte arrays do not.
local function packers(order)
  local P = { order = order }
  function P.u16(v) return string.pack(order .. "I2", v) end
  function P.u32(v) return string.pack(order .. "I4", v) end
  function P.i32(v) return string.pack(order .. "i4", v) end
  function P.u64(v) return string.pack(order .. "i8", v) end
  return P
end
local LE = packers("<")
local u16, u32, u64 = LE.u16, LE.u32, LE.u64

-- s NUL-terminated and padded with NULs to a multiple of `to` bytes
local function padded(s, to)
  local n = #s + 1
  return s .. ("\0"):rep(n + (to - n % to) % to - #s)
end
M.padded = padded

-- perf's string: u32 length (NUL and padding counted), the padded bytes
local function pstring(s, P)
  local p = padded(s, 64)
  return P.u32(#p) .. p
end

--- A record of type rtype: its header, then body (already in the file's
-- byte order); order: "<" (default) or ">".
local function record(rtype, misc, body, order)
  local P = order == ">" and packers(">") or LE
  local size = 8 + #body
  assert(size <= 65535, "record too big")
  return P.u32(rtype) .. P.u16(misc) .. P.u16(size) .. body
end
M.record = record

-- A C bitfield word as a big-endian compiler lays it out: the first field
-- in the most significant bits (a little-endian one starts from the least
-- significant). v: the fields as the little-endian word holds them;
-- widths: the fields' widths in declaration order.
local function msb_first(v, widths)
  local r, at = 0, 0
  for _, w in ipairs(widths) do
    local mask = w == 64 and -1 or (1 << w) - 1
    r = r | (((v >> at) & mask) << (64 - at - w))
    at = at + w
  end
  return r
end
M.msb_first = msb_first

-- perf_event_attr's flags: 15 one-bit flags, precise_ip (2 bits), 21 more
-- flags, reserved; a branch entry's flags (mispred ... priv, reserved)
local ATTR_FLAG_WIDTHS = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 26 }
local BRANCH_FLAG_WIDTHS = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31 }

-- A bitfield word in P's byte order
local function flag_word(P, v, widths)
  if P.order == ">" then return P.u64(msb_first(v, widths)) end
  return P.u64(v)
end

local File = {}
File.__index = File

--- A new recording: opts.attrs, a list of { type (1), config (0),
-- sample_type, period or freq (with freq = true), ids = {...}, name,
-- sample_id_all (default true), regs_user, stack_user }; opts.order: "<"
-- (default) or ">" for a file of a big-endian machine (every integer in
-- that order, the attr's and the branch entries' flag words as its
-- compiler lays out their bitfields, magic "2ELIFREP").
function M.new(opts)
  local f = setmetatable({ attrs = opts.attrs, records = {}, features = {},
    P = packers(opts.order or "<") }, File)
  for _, a in ipairs(f.attrs) do
    if a.sample_id_all == nil then a.sample_id_all = true end
    a.ids = a.ids or {}
  end
  return f
end

-- The usual `perf record -g` sample: ip, pid/tid, time, period and a call
-- chain.
M.CHAIN_SAMPLE = M.IP | M.TID | M.TIME | M.PERIOD | M.CALLCHAIN

--- A recording of one event whose samples are CHAIN_SAMPLE's, `period` each
--- unless a sample says otherwise.
function M.chain_recording(period)
  return M.new({ attrs = { { sample_type = M.CHAIN_SAMPLE, period = period, ids = { 1 } } } })
end

--- Appends n samples of thread pid/tid, each with the user-space chain
--- `frames` (leaf first: the sample's ip, then return addresses) and weight
--- period, the first at time t, the next `step` later; returns the time after
--- the last.
function File:chain_samples(n, pid, tid, frames, t, step, period)
  local chain = { M.CONTEXT_USER }
  table.move(frames, 1, #frames, 2, chain)
  for _ = 1, n do
    self:sample({ ip = frames[1], pid = pid, tid = tid, time = t, period = period, chain = chain })
    t = t + step
  end
  return t
end

-- The sample_id trailer of attr a (the first attr unless given).
function File:trailer(pid, tid, time, a)
  local P = self.P
  a = a or self.attrs[1]
  if not a.sample_id_all then return "" end
  local st, t = a.sample_type, {}
  if st & M.TID ~= 0 then t[#t + 1] = P.u32(pid) .. P.u32(tid) end
  if st & M.TIME ~= 0 then t[#t + 1] = P.u64(time) end
  if st & M.ID ~= 0 then t[#t + 1] = P.u64(a.ids[1] or 0) end
  if st & M.STREAM_ID ~= 0 then t[#t + 1] = P.u64(0) end
  if st & M.CPU ~= 0 then t[#t + 1] = P.u32(0) .. P.u32(0) end
  if st & M.IDENTIFIER ~= 0 then t[#t + 1] = P.u64(a.ids[1] or 0) end
  return table.concat(t)
end

--- A record in the file's byte order (see M.record).
function File:record(rtype, misc, body)
  return record(rtype, misc, body, self.P.order)
end

--- Appends raw bytes (a record made by M.record, or anything).
function File:raw(bytes)
  self.records[#self.records + 1] = bytes
  return self
end

function File:comm(pid, tid, name, time, exec)
  local P = self.P
  return self:raw(self:record(3, exec and 0x2000 or 0,
    P.u32(pid) .. P.u32(tid) .. padded(name, 8) .. self:trailer(pid, tid, time)))
end

function File:fork(pid, ppid, tid, ptid, time)
  local P = self.P
  return self:raw(self:record(7, 0, P.u32(pid) .. P.u32(ppid) .. P.u32(tid) .. P.u32(ptid) .. P.u64(time)
    .. self:trailer(pid, tid, time)))
end

function File:exit(pid, ppid, tid, ptid, time)
  local P = self.P
  return self:raw(self:record(4, 0, P.u32(pid) .. P.u32(ppid) .. P.u32(tid) .. P.u32(ptid) .. P.u64(time)
    .. self:trailer(pid, tid, time)))
end

--- MMAP2 of an executable mapping (prot R|X, private); opts.misc (default
-- 2, user), opts.prot, opts.buildid (20 bytes: the build-id form).
function File:mmap2(pid, tid, start, len, pgoff, filename, time, opts)
  local P = self.P
  opts = opts or {}
  local misc = opts.misc or 2
  local dev
  if opts.buildid then
    misc = misc | 0x4000
    dev = string.char(#opts.buildid, 0, 0, 0) .. opts.buildid .. ("\0"):rep(20 - #opts.buildid)
  else
    dev = P.u32(8) .. P.u32(1) .. P.u64(1234) .. P.u64(0)
  end
  return self:raw(self:record(10, misc, P.u32(pid) .. P.u32(tid) .. P.u64(start) .. P.u64(len) .. P.u64(pgoff)
    .. dev .. P.u32(opts.prot or 5) .. P.u32(opts.flags or 2) .. padded(filename, 8)
    .. self:trailer(pid, tid, time)))
end

function File:mmap(pid, tid, start, len, pgoff, filename, time, misc)
  local P = self.P
  return self:raw(self:record(1, misc or 2, P.u32(pid) .. P.u32(tid) .. P.u64(start) .. P.u64(len)
    .. P.u64(pgoff) .. padded(filename, 8) .. self:trailer(pid, tid, time)))
end

function File:lost(id, n, time)
  local P = self.P
  return self:raw(self:record(2, 0, P.u64(id) .. P.u64(n) .. self:trailer(0, 0, time)))
end

function File:lost_samples(n)
  local P = self.P
  return self:raw(self:record(13, 0, P.u64(n) .. self:trailer(0, 0, 0)))
end

function File:finished_round() return self:raw(self:record(68, 0, "")) end

--- perf record -z's records: a COMPRESSED (81) record holding payload, a
-- piece of the file's zstd stream; with v2, a COMPRESSED2 (83): the
-- payload's size first, the record padded to 8 bytes.
function File:compressed(payload, v2)
  local P = self.P
  if v2 then
    return self:raw(self:record(83, 0, P.u64(#payload) .. payload .. ("\0"):rep((8 - #payload % 8) % 8)))
  end
  return self:raw(self:record(81, 0, payload))
end

--- The records appended since the first `keep` ones, as bytes, taken out of
-- the file (to be compressed and put back with File:compressed).
function File:take_records(keep)
  local t = {}
  for k = keep + 1, #self.records do
    t[#t + 1] = self.records[k]
    self.records[k] = nil
  end
  return table.concat(t)
end

--- A SAMPLE of attr s.attr (default 1): fields in perf's order, those of
-- its sample_type. s: ip, pid, tid, time, addr, id, cpu, period, chain (a
-- list of u64, context markers included; nchain: the count written, when
-- it must lie), branches (a list of { from, to, flags }: the branch stack),
-- regs (the user registers of the attr's regs_user mask, in bit order; abi
-- 2 unless given), stack (the bytes of the user stack copy; dyn_size, how
-- many of them are real, all unless given), misc (default 2, user).
function File:sample(s)
  local P = self.P
  local a = self.attrs[s.attr or 1]
  local st, t = a.sample_type, {}
  if st & M.IDENTIFIER ~= 0 then t[#t + 1] = P.u64(s.id or a.ids[1] or 0) end
  if st & M.IP ~= 0 then t[#t + 1] = P.u64(s.ip) end
  if st & M.TID ~= 0 then t[#t + 1] = P.u32(s.pid) .. P.u32(s.tid) end
  if st & M.TIME ~= 0 then t[#t + 1] = P.u64(s.time) end
  if st & M.ADDR ~= 0 then t[#t + 1] = P.u64(s.addr or 0) end
  if st & M.ID ~= 0 then t[#t + 1] = P.u64(s.id or a.ids[1] or 0) end
  if st & M.STREAM_ID ~= 0 then t[#t + 1] = P.u64(0) end
  if st & M.CPU ~= 0 then t[#t + 1] = P.u32(s.cpu or 0) .. P.u32(0) end
  if st & M.PERIOD ~= 0 then t[#t + 1] = P.u64(s.period) end
  if st & M.CALLCHAIN ~= 0 then
    local chain = s.chain or {}
    t[#t + 1] = P.u64(s.nchain or #chain)
    for _, v in ipairs(chain) do t[#t + 1] = P.u64(v) end
  end
  if st & M.RAW ~= 0 then
    -- u32 size, then the bytes padded (as the kernel does) so that the
    -- record stays 8-aligned
    local raw = s.raw or ""
    raw = raw .. ("\0"):rep((8 - (4 + #raw) % 8) % 8)
    t[#t + 1] = P.u32(#raw) .. raw
  end
  if st & M.BRANCH_STACK ~= 0 then
    local br = s.branches or {}
    t[#t + 1] = P.u64(#br)
    for _, b in ipairs(br) do t[#t + 1] = P.u64(b.from) .. P.u64(b.to)
      .. flag_word(P, b.flags or 0, BRANCH_FLAG_WIDTHS) end
  end
  if st & M.REGS_USER ~= 0 then
    local regs = s.regs or {}
    t[#t + 1] = P.u64(#regs > 0 and (s.abi or 2) or 0)
    for _, v in ipairs(regs) do t[#t + 1] = P.u64(v) end
  end
  if st & M.STACK_USER ~= 0 then
    local stack = s.stack or ""
    t[#t + 1] = P.u64(#stack)
    if #stack > 0 then t[#t + 1] = stack .. P.u64(s.dyn_size or #stack) end
  end
  assert(st & ~(M.IP | M.TID | M.TIME | M.ADDR | M.ID | M.STREAM_ID | M.CPU | M.PERIOD
    | M.CALLCHAIN | M.RAW | M.IDENTIFIER | M.BRANCH_STACK | M.REGS_USER | M.STACK_USER) == 0,
    "perfwriter: sample field not written")
  return self:raw(self:record(9, s.misc or 2, table.concat(t)))
end

--- A context switch of thread pid/tid at time (PERF_RECORD_SWITCH, 14):
-- opts.out (switched out; else in), opts.preempt (out while runnable),
-- opts.attr (whose trailer: the first attr unless given), opts.cpu_wide
-- = { pid, tid } (SWITCH_CPU_WIDE, 15, with the next or previous task).
function File:switch(pid, tid, time, opts)
  opts = opts or {}
  local misc = (opts.out and 0x2000 or 0) | (opts.out and opts.preempt and 0x4000 or 0)
  local body = ""
  if opts.cpu_wide then body = self.P.u32(opts.cpu_wide[1]) .. self.P.u32(opts.cpu_wide[2]) end
  return self:raw(self:record(opts.cpu_wide and 15 or 14, misc,
    body .. self:trailer(pid, tid, time, opts.attr and self.attrs[opts.attr])))
end

-- The fields of sched:sched_switch as Linux 6.x's tracefs gives them: name,
-- C declaration, offset, size, signed.
M.SCHED_SWITCH_FIELDS = {
  { "common_type", "unsigned short common_type", 0, 2, 0 },
  { "common_flags", "unsigned char common_flags", 2, 1, 0 },
  { "common_preempt_count", "unsigned char common_preempt_count", 3, 1, 0 },
  { "common_pid", "int common_pid", 4, 4, 1 },
  { "prev_comm", "char prev_comm[16]", 8, 16, 0 },
  { "prev_pid", "pid_t prev_pid", 24, 4, 1 },
  { "prev_prio", "int prev_prio", 28, 4, 1 },
  { "prev_state", "long prev_state", 32, 8, 1 },
  { "next_comm", "char next_comm[16]", 40, 16, 0 },
  { "next_pid", "pid_t next_pid", 56, 4, 1 },
  { "next_prio", "int next_prio", 60, 4, 1 },
}

--- An event's format text as tracefs writes it: name, id, fields (a list
-- as M.SCHED_SWITCH_FIELDS: the first four are the common ones).
function M.event_format(name, id, fields)
  local t = { ("name: %s\nID: %d\nformat:\n"):format(name, id) }
  for k, f in ipairs(fields) do
    t[#t + 1] = ("\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n"):format(f[2], f[3], f[4], f[5])
    if k == 4 then t[#t + 1] = "\n" end
  end
  -- perf script prints the fields it reads by the offsets above
  t[#t + 1] = '\nprint fmt: "prev_comm=%s prev_pid=%d prev_state=%ld next_pid=%d", REC->prev_comm,'
    .. " REC->prev_pid, REC->prev_state, REC->next_pid\n"
  return table.concat(t)
end

--- The tracing data blob (feature 1, pipe record 66) of perf 6.1: its
-- header, header_page and header_event, no ftrace formats, then systems =
-- { { "sched", { format text, ... } } }, no kallsyms, no printk formats,
-- no saved command lines. order: the file's ("<" or ">").
function M.tracing_data(systems, order)
  local P = packers(order or "<")
  local function sized(text) return P.u64(#text) .. text end
  local t = { "\x17\x08\x44tracing", "0.6\0", string.char(order == ">" and 1 or 0), "\8", P.u32(4096),
    "header_page\0", sized("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
      .. "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
      .. "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
      .. "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"),
    "header_event\0", sized("# compressed entry header\n\ttype_len    :    5 bits\n"
      .. "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n\tpadding     : type == 29\n"
      .. "\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n"),
    P.u32(0), P.u32(#systems) }
  for _, sys in ipairs(systems) do
    t[#t + 1] = sys[1] .. "\0" .. P.u32(#sys[2])
    for _, text in ipairs(sys[2]) do t[#t + 1] = sized(text) end
  end
  t[#t + 1] = P.u32(0) .. P.u32(0) .. P.u64(0)
  return table.concat(t)
end

--- The RAW bytes of a sched_switch sample laid out by fields (default
-- M.SCHED_SWITCH_FIELDS): v = { type, pid, prev_comm, prev_pid, prev_prio,
-- prev_state, next_comm, next_pid, next_prio }; order: the file's.
function M.sched_switch_raw(v, fields, order)
  fields = fields or M.SCHED_SWITCH_FIELDS
  local size = 0
  for _, f in ipairs(fields) do size = math.max(size, f[3] + f[4]) end
  local bytes = {}
  for k = 1, size do bytes[k] = "\0" end
  local values = { common_type = v.type, common_flags = 1, common_preempt_count = 3,
    common_pid = v.pid or v.prev_pid, prev_comm = v.prev_comm or "", prev_pid = v.prev_pid,
    prev_prio = v.prev_prio or 120, prev_state = v.prev_state or 0, next_comm = v.next_comm or "",
    next_pid = v.next_pid or 0, next_prio = v.next_prio or 120 }
  for _, f in ipairs(fields) do
    local x, b = values[f[1]]
    if type(x) == "string" then b = (x .. ("\0"):rep(f[4])):sub(1, f[4])
    else b = string.pack((order or "<") .. (f[5] == 1 and "i" or "I") .. f[4], x or 0) end
    for k = 1, f[4] do bytes[f[3] + k] = b:sub(k, k) end
  end
  return table.concat(bytes)
end

--- Features: hostname, osrelease, version, arch (strings), cmdline (list),
-- event_desc = true (names from the attrs), buildids = { { id = 20 bytes,
-- path, pid (-1), misc (0x8002) } }, nrcpus = { avail, online },
-- tracing_data = the blob (M.tracing_data; a record 66 in pipe mode).
function File:feature(name, value)
  self.features[name] = value
  return self
end

local FEATURE_BITS = { tracing_data = 1, buildids = 2, hostname = 3, osrelease = 4, version = 5, arch = 6,
  nrcpus = 7, cmdline = 11, event_desc = 12, sample_time = 21, compressed = 27 }

local function attr_bytes(a, P)
  local flags = a.flags or 0
  if a.sample_id_all then flags = flags | M.SAMPLE_ID_ALL end
  if a.freq then flags = flags | (1 << 10) end
  local b = P.u32(a.type or 1) .. P.u32(128) .. P.u64(a.config or 0) .. P.u64(a.freq or a.period or 0)
    .. P.u64(a.sample_type) .. P.u64(a.read_format or 0) .. flag_word(P, flags, ATTR_FLAG_WIDTHS)
    .. P.u32(0) .. P.u32(0) .. P.u64(0) .. P.u64(0) .. P.u64(0) .. P.u64(a.regs_user or 0)
    .. P.u32(a.stack_user or 0) .. P.u32(0) .. P.u64(0)
  return b .. ("\0"):rep(128 - #b)
end

function File:feature_payload(name, v)
  local P = self.P
  if name == "cmdline" then
    local t = { P.u32(#v) }
    for _, s in ipairs(v) do t[#t + 1] = pstring(s, P) end
    return table.concat(t)
  elseif name == "nrcpus" then
    return P.u32(v[1]) .. P.u32(v[2])
  elseif name == "sample_time" then
    return P.u64(v[1]) .. P.u64(v[2])
  elseif name == "compressed" then
    -- version 0, zstd (1), level, ratio, mmap_len: as perf record -z -F ... writes
    return P.u32(0) .. P.u32(1) .. P.u32(v.level or 1) .. P.u32(v.ratio or 9) .. P.u32(v.mmap_len or 528384)
  elseif name == "event_desc" then
    local t = { P.u32(#self.attrs), P.u32(128) }
    for _, a in ipairs(self.attrs) do
      t[#t + 1] = attr_bytes(a, P) .. P.u32(#a.ids) .. pstring(a.name or "cpu-clock", P)
      for _, id in ipairs(a.ids) do t[#t + 1] = P.u64(id) end
    end
    return table.concat(t)
  elseif name == "buildids" then
    local t = {}
    for _, b in ipairs(v) do
      local path = padded(b.path, 64)
      t[#t + 1] = P.u32(0) .. P.u16(b.misc or 0x8002) .. P.u16(36 + #path) .. P.i32(b.pid or -1)
        .. b.id .. ("\0"):rep(20 - #b.id) .. string.char(#b.id) .. "\0\0\0" .. path
    end
    return table.concat(t)
  elseif name == "tracing_data" then
    return v
  end
  return pstring(v, P)
end

--- The file's bytes. opts.pipe: pipe mode; opts.data_size: the header's
-- data size (0 as a killed perf leaves it); opts.no_features.
function File:bytes(opts)
  local P = self.P
  opts = opts or {}
  local names = {}
  for name in pairs(self.features) do names[#names + 1] = name end
  table.sort(names, function(x, y) return FEATURE_BITS[x] < FEATURE_BITS[y] end)
  local data = table.concat(self.records)
  if opts.pipe then
    local t = { (P.order == ">" and "2ELIFREP" or "PERFILE2"), P.u64(16) }
    for _, a in ipairs(self.attrs) do
      local ids = {}
      for _, id in ipairs(a.ids) do ids[#ids + 1] = P.u64(id) end
      t[#t + 1] = self:record(64, 0, attr_bytes(a, P) .. table.concat(ids))
    end
    for _, name in ipairs(names) do
      if name == "tracing_data" then
        -- the blob follows its record, outside the record's size, padded to 8
        local blob = self.features[name]
        local padded_len = (#blob + 7) // 8 * 8
        t[#t + 1] = self:record(66, 0, P.u32(padded_len) .. P.u32(0)) .. blob
          .. ("\0"):rep(padded_len - #blob)
      else
        t[#t + 1] = self:record(80, 0, P.u64(FEATURE_BITS[name]) .. self:feature_payload(name, self.features[name]))
      end
    end
    t[#t + 1] = data
    return table.concat(t)
  end
  -- header (104), id arrays, attrs (144 each), data, feature table, payloads
  local ids, id_offsets = {}, {}
  local off = 104
  for k, a in ipairs(self.attrs) do
    id_offsets[k] = off
    for _, id in ipairs(a.ids) do ids[#ids + 1] = P.u64(id) end
    off = off + 8 * #a.ids
  end
  local attrs_off = off
  local attrs = {}
  for k, a in ipairs(self.attrs) do
    attrs[k] = attr_bytes(a, P) .. P.u64(id_offsets[k]) .. P.u64(8 * #a.ids)
  end
  local data_off = attrs_off + 144 * #self.attrs
  local feat_bits = { 0, 0, 0, 0 }
  local table_off = data_off + #data
  local payload_off = table_off + 16 * #names
  local ftab, payloads = {}, {}
  for _, name in ipairs(names) do
    local bit = FEATURE_BITS[name]
    feat_bits[bit // 64 + 1] = feat_bits[bit // 64 + 1] | (1 << (bit % 64))
    local p = self:feature_payload(name, self.features[name])
    ftab[#ftab + 1] = P.u64(payload_off) .. P.u64(#p)
    payloads[#payloads + 1] = p
    payload_off = payload_off + #p
  end
  local header = (P.order == ">" and "2ELIFREP" or "PERFILE2") .. P.u64(104) .. P.u64(144) .. P.u64(attrs_off) .. P.u64(144 * #self.attrs)
    .. P.u64(data_off) .. P.u64(opts.data_size or #data) .. P.u64(0) .. P.u64(0)
    .. P.u64(feat_bits[1]) .. P.u64(feat_bits[2]) .. P.u64(feat_bits[3]) .. P.u64(feat_bits[4])
  return header .. table.concat(ids) .. table.concat(attrs) .. data .. table.concat(ftab)
    .. table.concat(payloads)
end

--- bytes compressed into one zstd frame by the zstd command (TEST_PACKAGES):
-- nil and why when it is missing or fails. opts.level (default 3).
function M.zstd(bytes, opts)
  local input, output = os.tmpname(), os.tmpname()
  M.write(input, bytes)
  local ok = os.execute(("zstd -q -f -c -%d '%s' > '%s' 2>/dev/null")
    :format(opts and opts.level or 3, input, output))
  local fh = io.open(output, "rb")
  local z = fh and fh:read("a")
  if fh then fh:close() end
  os.remove(input)
  os.remove(output)
  if not ok or not z or #z == 0 then return nil, "zstd (the command) failed or is missing" end
  return z
end

function M.write(path, bytes)
  local fh = assert(io.open(path, "wb"))
  assert(fh:write(bytes))
  assert(fh:close())
end

--- A directory recording (perf record --threads -o DIR): DIR/data holds
-- data (a file's bytes), DIR/data.N the (N+1)th of streams (bare records).
function M.write_dir(dir, data, streams)
  assert(os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'"))
  M.write(dir .. "/data", data)
  for k, s in ipairs(streams) do M.write(("%s/data.%d"):format(dir, k - 1), s) end
end

return M
