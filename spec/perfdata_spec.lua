-- The perf.data reader of the core (csrc/core/read/perf/perfdata.c): the
-- container, the attrs, the features and every record it decodes, through
-- spec/unit/perfdump.c (compiled here against the core's library). Files are
-- written by helpers.perfwriter with every byte chosen here, so the expected
-- lines below are derived from what was written; where perf is installed,
-- `perf report -D` (perf's own strict decoder) must accept the same file and
-- count the same records, and on real recordings made here the reader's
-- counts must equal perf's.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"

local q = util.q
local HAVE_PERF = util.have("perf")

local tmp, dump
local function perfdump(path)
  return cmd.shell(q(dump) .. " " .. q(path))
end

local function lines_of(text)
  local t = {}
  for l in text:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

local function grep(text, pattern)
  local t = {}
  for _, l in ipairs(lines_of(text)) do
    if l:find(pattern) then t[#t + 1] = l end
  end
  return t
end

-- perf report -D's record counts of a file: type name -> count (nil when perf
-- is missing or refuses the file; then why)
local function perf_counts(path)
  local status, out, err = cmd.shell("perf report -D -i " .. q(path) .. " 2>&1")
  if status ~= 0 then return nil, out .. err end
  local counts = {}
  for name in out:gmatch("PERF_RECORD_([A-Z0-9_]+)") do counts[name] = (counts[name] or 0) + 1 end
  return counts
end

local ST = pw.IP | pw.TID | pw.TIME | pw.PERIOD
local EXE = "/tmp/x/prog"

-- The reference recording: one process, a map, 6 samples in leaf and 2 in
-- other, as in the format's description of a minimal file.
local function minimal(st)
  local f = pw.new({ attrs = { { sample_type = st or ST, period = 1000000, ids = { 1 } } } })
  f:comm(4242, 4242, "prog", 1000, true)
  f:mmap2(4242, 4242, 0x555555555000, 0x1000, 0x1000, EXE, 2000)
  for k = 1, 8 do
    f:sample({ ip = k <= 6 and 0x555555555160 or 0x555555555200, pid = 4242, tid = 4242,
      time = 1000000 * k + 3000, period = 1000000,
      chain = { pw.CONTEXT_USER, k <= 6 and 0x555555555160 or 0x555555555200, 0x5555555551f5 } })
  end
  f:finished_round()
  return f
end

describe("perf.data reader", function()
  setup(function()
    tmp = util.mktempdir("lgprof perf-data")
    dump = tmp .. "/perfdump"
    cmd.build_core_program(cmd.ROOT .. "/spec/unit/perfdump.c", dump)
  end)
  teardown(function() util.rmtree(tmp) end)

  it("reads a minimal file: attr, COMM, MMAP2, samples with their fields, counts", function()
    local path = tmp .. "/min.data"
    pw.write(path, minimal():bytes())
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    assert.same({ "mode file", "attr 0 type 1 config 0 sample_type 0x107 period 1000000 name cpu-clock ids 1",
      "comm pid 4242 tid 4242 exec 1 time 1000 prog",
      "mmap pid 4242 tid 4242 start 0x555555555000 len 0x1000 pgoff 0x1000 prot 5 time 2000 buildid 0 " .. EXE },
      { table.unpack(lines_of(out), 1, 4) })
    local samples = grep(out, "^sample")
    assert.equal(8, #samples)
    assert.equal("sample attr 0 mode 2 pid 4242 tid 4242 time 1003000 ip 0x555555555160 period 1000000 chain",
      samples[1])
    assert.equal("sample attr 0 mode 2 pid 4242 tid 4242 time 8003000 ip 0x555555555200 period 1000000 chain",
      samples[8])
    assert.same({ "count 3 COMM 1", "count 9 SAMPLE 8", "count 10 MMAP2 1", "count 68 FINISHED_ROUND 1",
      "count other 0" }, grep(out, "^count"))
    assert.same({}, grep(out, "^truncated"))
  end)

  it("reads call chains with their context markers", function()
    local path = tmp .. "/chain.data"
    pw.write(path, minimal(ST | pw.CALLCHAIN):bytes())
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    local samples = grep(out, "^sample")
    assert.equal("sample attr 0 mode 2 pid 4242 tid 4242 time 1003000 ip 0x555555555160 period 1000000 "
      .. "chain 0xfffffffffffffe00 0x555555555160 0x5555555551f5", samples[1])
  end)

  it("reads pipe mode (16-byte header, attrs and features as records) the same", function()
    local f = minimal():feature("hostname", "vm"):feature("version", "6.1.187")
    local path = tmp .. "/pipe.data"
    pw.write(path, f:bytes({ pipe = true }))
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    assert.equal("mode pipe", lines_of(out)[1])
    assert.same({ "hostname vm" }, grep(out, "^hostname"))
    assert.same({ "version 6.1.187" }, grep(out, "^version"))
    assert.equal(8, #grep(out, "^sample"))
    assert.same({}, grep(out, "^truncated"))
  end)

  it("reads the features: names, command line, build-ids", function()
    local id = ("\x12\x35\x82\x90\xc3\xbf\x61\xbe\xaf\x35\xa0\x21\x0d\x91\x6b\x27\xef\xe9\x79\x40")
    local f = minimal():feature("hostname", "vm"):feature("arch", "x86_64")
      :feature("cmdline", { "/usr/bin/perf", "record", "-g" }):feature("event_desc", true)
      :feature("buildids", { { id = id, path = EXE } })
    f.attrs[1].name = "cpu-clock:u"
    local path = tmp .. "/feat.data"
    pw.write(path, f:bytes())
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    assert.truthy(out:find("name cpu-clock:u ids 1\n", 1, true), out)
    assert.same({ "hostname vm" }, grep(out, "^hostname"))
    assert.same({ "arch x86_64" }, grep(out, "^arch"))
    assert.same({ "cmdline /usr/bin/perf", "cmdline record", "cmdline -g" }, grep(out, "^cmdline"))
    assert.same({ "buildid -1 12358290c3bf61beaf35a0210d916b27efe97940 len 20 " .. EXE }, grep(out, "^buildid"))
  end)

  it("skips unknown records and reads unaligned ones that follow", function()
    local f = minimal()
    -- a record of an unknown type, then a 100-byte build-id record (not a
    -- multiple of 8), then a sample at an odd offset
    f:raw(pw.record(99, 0, ("\0"):rep(16)))
    f:raw(pw.record(67, 2, string.pack("<i4", -1) .. ("\7"):rep(20) .. ("\0"):rep(4)
      .. pw.padded("/tmp/x/lib.so", 64)))
    f:sample({ ip = 0x555555555161, pid = 4242, tid = 4242, time = 9000000, period = 1000000 })
    local path = tmp .. "/odd.data"
    pw.write(path, f:bytes())
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    local samples = grep(out, "^sample")
    assert.equal(9, #samples)
    assert.truthy(samples[9]:find("ip 0x555555555161", 1, true))
    assert.same({ "count 3 COMM 1", "count 9 SAMPLE 9", "count 10 MMAP2 1", "count 67 - 1",
      "count 68 FINISHED_ROUND 1", "count other 1" }, grep(out, "^count"))
  end)

  it("attributes samples to their event by id when there are two", function()
    local st = ST | pw.ID
    local f = pw.new({ attrs = { { sample_type = st, period = 1000000, ids = { 11, 12 }, name = "cpu-clock" },
      { sample_type = st, period = 2000000, ids = { 21, 22 }, name = "task-clock", config = 1 } } })
    f:comm(7, 7, "two", 10, true)
    f:sample({ ip = 0x1000, pid = 7, tid = 7, time = 100, period = 1000000, id = 12 })
    f:sample({ ip = 0x2000, pid = 7, tid = 7, time = 200, period = 2000000, id = 21, attr = 2 })
    f:sample({ ip = 0x3000, pid = 7, tid = 7, time = 300, period = 1000000, id = 11 })
    local path = tmp .. "/two.data"
    pw.write(path, f:bytes())
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    local samples = grep(out, "^sample")
    assert.truthy(samples[1]:find("^sample attr 0 .* ip 0x1000"), samples[1])
    assert.truthy(samples[2]:find("^sample attr 1 .* ip 0x2000 period 2000000"), samples[2])
    assert.truthy(samples[3]:find("^sample attr 0 .* ip 0x3000"), samples[3])
    assert.truthy(out:find("attr 1 type 1 config 1 sample_type 0x147 period 2000000 name task-clock ids 21 22", 1, true))
  end)

  it("reads a file cut inside a record up to its last whole record, and says so", function()
    local bytes = minimal():bytes({ no_features = true })
    -- the header's data size says 8 samples; the file ends 20 bytes into the last
    local data_end = #bytes - 8 -- FINISHED_ROUND
    local cut = data_end - 40 + 20
    local path = tmp .. "/cut.data"
    pw.write(path, bytes:sub(1, cut))
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    assert.equal(7, #grep(out, "^sample"))
    assert.same({ ("truncated at %d"):format(data_end - 40) }, grep(out, "^truncated"))
  end)

  it("reads a file whose header was never finished (data size 0) to its end", function()
    local path = tmp .. "/killed.data"
    pw.write(path, minimal():bytes({ data_size = 0 }))
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    assert.equal(8, #grep(out, "^sample"))
    assert.equal(1, #grep(out, "^truncated"))
  end)

  it("counts LOST and LOST_SAMPLES records and their numbers", function()
    local f = minimal()
    f:lost(1, 7, 5000):lost_samples(74)
    local path = tmp .. "/lost.data"
    pw.write(path, f:bytes())
    local status, out, err = perfdump(path)
    assert.equal(0, status, err)
    assert.same({ "lost 7", "lost 74" }, grep(out, "^lost"))
  end)

  describe("perf record -z (zstd-compressed records)", function()
    -- minimal()'s records but its final FINISHED_ROUND, which perf keeps
    -- outside the compressed records
    local function stream_of(f)
      local s = f:take_records(0)
      assert(s:sub(-8) == pw.record(68, 0, ""))
      return s:sub(1, -9)
    end
    local function z(bytes, opts)
      local out, why = pw.zstd(bytes, opts)
      if not out then pending(why) end
      return out
    end
    -- what perfdump prints, but the compressed-record count and the counts
    -- of FINISHED_ROUND (placed differently)
    local function body_of(out)
      local t = {}
      for _, l in ipairs(lines_of(out)) do
        if not l:find("^compressed") and not l:find("^count 68 ") then t[#t + 1] = l end
      end
      return t
    end
    local plain
    local function read_plain()
      local path = tmp .. "/z-plain.data"
      pw.write(path, minimal():bytes())
      local status, out, err = perfdump(path)
      assert.equal(0, status, err)
      return out
    end
    -- the file made of minimal()'s header, then payloads as COMPRESSED
    -- records (COMPRESSED2 with v2), a FINISHED_ROUND after each
    local function zfile(name, payloads, opts)
      opts = opts or {}
      local f = minimal():feature("compressed", {})
      stream_of(f)
      for _, p in ipairs(payloads) do
        f:compressed(p, opts.v2)
        f:finished_round()
      end
      local path = tmp .. "/" .. name
      local bytes = f:bytes({ no_features = opts.no_features })
      if opts.cut then bytes = bytes:sub(1, opts.cut(bytes)) end
      pw.write(path, bytes)
      return path, bytes
    end
    local function dump_ok(path)
      local status, out, err = perfdump(path)
      assert.equal(0, status, err)
      return out
    end

    it("reads one compressed record exactly as the same records uncompressed", function()
      plain = plain or read_plain()
      local zs = z(stream_of(minimal()))
      if not zs then return end
      local out = dump_ok((zfile("z-one.data", { zs })))
      assert.same(body_of(plain), body_of(out))
      assert.same({ "compressed 1 records" }, grep(out, "^compressed"))
      assert.same({ "count 68 FINISHED_ROUND 1" }, grep(out, "^count 68 "))
      assert.equal(8, #grep(out, "^sample"))
    end)

    it("reads a record split across two compressed records, a round between them", function()
      plain = plain or read_plain()
      local s = stream_of(minimal())
      -- the 4th sample starts after COMM, MMAP2 and 3 samples; cut 20 bytes into it
      local first = s:find("\9\0\0\0\2\0", 1, true)
      local size = string.unpack("<I2", s, first + 6)
      local cut = first - 1 + 3 * size + 20
      local a, b = z(s:sub(1, cut)), z(s:sub(cut + 1))
      if not a then return end
      local out = dump_ok((zfile("z-split.data", { a, b })))
      assert.same(body_of(plain), body_of(out))
      assert.same({ "compressed 2 records" }, grep(out, "^compressed"))
      assert.same({ "count 68 FINISHED_ROUND 2" }, grep(out, "^count 68 "))
    end)

    it("reads one zstd stream cut anywhere into several records (perf's continuations)", function()
      plain = plain or read_plain()
      local zs = z(stream_of(minimal()), { level = 1 })
      if not zs then return end
      local n = #zs
      local cuts = { 1, 7, n // 3, n // 2 + 5, n - 1 }
      local pieces, from = {}, 1
      for _, c in ipairs(cuts) do
        pieces[#pieces + 1] = zs:sub(from, c)
        from = c + 1
      end
      pieces[#pieces + 1] = zs:sub(from)
      local out = dump_ok((zfile("z-pieces.data", pieces)))
      assert.same(body_of(plain), body_of(out))
      assert.same({ "compressed 6 records" }, grep(out, "^compressed"))
    end)

    it("reads COMPRESSED2 records (their size first, padded to 8 bytes) the same", function()
      plain = plain or read_plain()
      local zs = z(stream_of(minimal()))
      if not zs then return end
      local pieces = { zs:sub(1, 13), zs:sub(14) }
      local out = dump_ok((zfile("z-v2.data", pieces, { v2 = true })))
      assert.same(body_of(plain), body_of(out))
      assert.same({ "compressed 2 records" }, grep(out, "^compressed"))
    end)

    it("reads compressed records in pipe mode the same", function()
      local zs = z(stream_of(minimal()))
      if not zs then return end
      local f = minimal():feature("compressed", {})
      stream_of(f)
      f:compressed(zs)
      f:finished_round()
      local path, plain_path = tmp .. "/z-pipe.data", tmp .. "/z-plain-pipe.data"
      pw.write(path, f:bytes({ pipe = true }))
      pw.write(plain_path, minimal():feature("compressed", {}):bytes({ pipe = true }))
      local out = dump_ok(path)
      assert.same(body_of(dump_ok(plain_path)), body_of(out))
      assert.equal("mode pipe", lines_of(out)[1])
      assert.same({ "compressed 1 records" }, grep(out, "^compressed"))
    end)

    it("a file cut inside its second compressed record: the records whole before the cut, truncated", function()
      local s = stream_of(minimal())
      local first = s:find("\9\0\0\0\2\0", 1, true)
      local size = string.unpack("<I2", s, first + 6)
      local cut = first - 1 + 3 * size + 20
      local six = first - 1 + 6 * size
      -- the second payload: two frames, the rest of sample 4 to the end of
      -- sample 6, then the others; the file ends in the middle of the second
      local a, b1, b2 = z(s:sub(1, cut)), z(s:sub(cut + 1, six)), z(s:sub(six + 1))
      if not a then return end
      local _, full = zfile("z-full.data", { a, b1 .. b2 }, { no_features = true })
      local second = full:find(pw.record(68, 0, "") .. "\81\0\0\0", 1, true) + 8
      local path = zfile("z-cut.data", { a, b1 .. b2 }, { no_features = true,
        cut = function() return second - 1 + 8 + #b1 + #b2 // 2 end })
      local out = dump_ok(path)
      assert.equal(6, #grep(out, "^sample"))
      assert.equal(1, #grep(out, "^comm"))
      assert.equal(1, #grep(out, "^mmap"))
      assert.equal(1, #grep(out, "^truncated"))
      assert.same({ "compressed 2 records" }, grep(out, "^compressed"))
      -- cut inside the first frame of the second payload: samples 1 to 3
      path = zfile("z-cut1.data", { a, b1 .. b2 }, { no_features = true,
        cut = function() return second - 1 + 8 + #b1 // 2 end })
      out = dump_ok(path)
      assert.equal(3, #grep(out, "^sample"))
      assert.equal(1, #grep(out, "^truncated"))
    end)

    it("a stream that ends inside a record: the whole records, truncated", function()
      local s = stream_of(minimal())
      local a = z(s:sub(1, #s - 30))
      if not a then return end
      local out = dump_ok((zfile("z-tail.data", { a })))
      assert.equal(7, #grep(out, "^sample"))
      assert.equal(1, #grep(out, "^truncated"))
    end)

    describe("refuses with one line, no crash", function()
      local function refused(path, pattern)
        local status, out, err = perfdump(path)
        assert.equal(1, status, out .. err)
        assert.equal(1, #lines_of(err), err)
        assert.truthy(err:find(pattern), err)
        assert.truthy(err:find(path, 1, true), err)
      end
      it("a payload that is not zstd", function()
        local path = zfile("z-garbage.data", { ("\40\181\47\253") .. ("garbage!"):rep(20) })
        refused(path, "compressed record: ")
        refused((zfile("z-garbage2.data", { ("x"):rep(100) })), "compressed record: ")
      end)
      it("decompressed bytes that are no records", function()
        local zs = z(("\0"):rep(64))
        if not zs then return end
        refused((zfile("z-zero.data", { zs })), "holds a record of 0 bytes")
      end)
      it("a COMPRESSED2 record claiming more bytes than it holds", function()
        local f = minimal()
        stream_of(f)
        f:raw(pw.record(83, 0, string.pack("<I8", 1000) .. ("\0"):rep(16)))
        local path = tmp .. "/z-v2-claim.data"
        pw.write(path, f:bytes())
        refused(path, "claims 1000")
      end)
      it("a decompression bomb: valid records, far more than the file's size allows", function()
        -- 96 MiB of FINISHED_ROUND records: past the 64 MiB floor plus 256
        -- times a file of a few KiB
        local zs = z(pw.record(68, 0, ""):rep(12 << 20), { level = 19 })
        if not zs then return end
        local pieces = {}
        for at = 1, #zs, 60000 do pieces[#pieces + 1] = zs:sub(at, at + 59999) end
        local path, bytes = zfile("z-bomb.data", pieces)
        assert.truthy(#bytes < 1 << 20)
        refused(path, "decompress to more than")
      end)
    end)
  end)

  describe("directory recordings (perf record --threads -o DIR)", function()
    -- minimal()'s COMM and MMAP2 in DIR/data, samples 1, 3, 5, 7 in data.0,
    -- 2, 4, 6, 8 in data.1 (compressed with zcompress)
    local function dir_of(name, opts)
      opts = opts or {}
      local f = minimal()
      local records = {}
      for k = 1, #f.records do records[k] = f.records[k] end
      f:take_records(2)
      local s0, s1 = {}, {}
      for k = 1, 8 do table.insert(k % 2 == 1 and s0 or s1, records[2 + k]) end
      local streams = { table.concat(s0), table.concat(s1) }
      if opts.zcompress then
        local zs, why = pw.zstd(streams[2])
        if not zs then return nil, why end
        streams[2] = pw.record(81, 0, zs:sub(1, 10)) .. pw.record(81, 0, zs:sub(11))
      end
      if opts.edit then opts.edit(streams) end
      local dir = tmp .. "/" .. name
      pw.write_dir(dir, f:bytes(), streams)
      return dir
    end
    local function sorted(t) table.sort(t) return t end

    it("reads DIR/data's header and records, then data.0, data.1, ... as one stream", function()
      local plain = tmp .. "/dir-plain.data"
      pw.write(plain, minimal():bytes())
      local _, pout = perfdump(plain)
      for _, z in ipairs({ false, true }) do
        local dir, why = dir_of(z and "dirz.data" or "dir.data", { zcompress = z })
        if not dir then return pending(why) end
        local status, out, err = perfdump(dir)
        assert.equal(0, status, err)
        -- the same records; data.0's samples, then data.1's
        assert.same(sorted(grep(pout, "^sample")), sorted(grep(out, "^sample")))
        assert.same(grep(pout, "^comm"), grep(out, "^comm"))
        assert.same(grep(pout, "^mmap"), grep(out, "^mmap"))
        assert.truthy(grep(out, "^sample")[2]:find("time 3003000", 1, true))
        assert.same({ "count 3 COMM 1", "count 9 SAMPLE 8", "count 10 MMAP2 1", "count other 0" },
          grep(out, "^count"))
        assert.same(z and { "compressed 2 records" } or {}, grep(out, "^compressed"))
        assert.same({}, grep(out, "^truncated"))
      end
    end)

    it("a stream cut inside a record: the whole records, truncated", function()
      local dir = dir_of("dircut.data", { edit = function(s) s[1] = s[1]:sub(1, #s[1] - 20) end })
      local status, out, err = perfdump(dir)
      assert.equal(0, status, err)
      assert.equal(7, #grep(out, "^sample"))
      assert.equal(1, #grep(out, "^truncated"))
    end)

    it("refuses a directory without data or without data.0, with one line", function()
      local empty = tmp .. "/dir-empty"
      assert.equal(0, (cmd.shell("mkdir -p " .. q(empty))))
      local status, out, err = perfdump(empty)
      assert.equal(1, status, out)
      assert.equal(1, #lines_of(err), err)
      assert.truthy(err:find(empty .. "/data", 1, true), err)
      pw.write(empty .. "/data", minimal():bytes())
      status, out, err = perfdump(empty)
      assert.equal(1, status, out)
      assert.same({ empty .. ": a directory without data.0 (perf record --threads writes data and "
        .. "data.0, data.1, ...)" }, lines_of(err))
    end)

    it("refuses a bomb in data.1 with one line", function()
      local dir, why = dir_of("dirbomb.data", { edit = function(s)
        local zs = assert(pw.zstd(pw.record(68, 0, ""):rep(12 << 20), { level = 19 }))
        local t = {}
        for at = 1, #zs, 60000 do t[#t + 1] = pw.record(81, 0, zs:sub(at, at + 59999)) end
        s[2] = table.concat(t)
      end })
      if not dir then return pending(why) end
      local status, out, err = perfdump(dir)
      assert.equal(1, status, out)
      assert.equal(1, #lines_of(err), err)
      assert.truthy(err:find(dir .. "/data.1: compressed records", 1, true), err)
    end)

    it("counts every record of real directory recordings, with and without -z, as perf does", function()
      if not HAVE_PERF then return pending("perf is not installed") end
      local src = tmp .. "/busyd.c"
      util.spit(src, [[
#include <stdlib.h>
volatile long s;
void leaf(int n) { for (int i = 0; i < n; i++) s += i; }
int main(int c, char **v) { int n = c > 1 ? atoi(v[1]) : 100; for (int i = 0; i < n; i++) leaf(200000); return 0; }
]])
      local exe = tmp .. "/busyd"
      assert.equal(0, (cmd.shell("gcc -O1 -g -fno-omit-frame-pointer -o " .. q(exe) .. " " .. q(src))))
      for _, z in ipairs({ "", "-z " }) do
        local dir = tmp .. "/realdir" .. (z ~= "" and "-z" or "") .. ".data"
        local status, out, err = cmd.shell("perf record --threads " .. z .. "-e cpu-clock -F 999 -g -o "
          .. q(dir) .. " " .. q(exe) .. " 2000 2>&1")
        if status ~= 0 then return pending("perf record --threads does not work here: " .. out .. err) end
        local counts, why = perf_counts(dir)
        assert.truthy(counts, why)
        local dstatus, dout, derr = perfdump(dir)
        assert.equal(0, dstatus, derr)
        local mine = {}
        for name, n in dout:gmatch("count %d+ ([A-Z_0-9]+) (%d+)") do mine[name] = tonumber(n) end
        for _, name in ipairs({ "SAMPLE", "MMAP", "MMAP2", "COMM", "EXIT", "FORK", "FINISHED_ROUND" }) do
          assert.equal(counts[name], mine[name], z .. name)
        end
        assert.truthy((mine.SAMPLE or 0) > 0, z .. "no samples")
      end
    end)
  end)

  describe("refuses with one line, no crash", function()
    local function refused(name, bytes, pattern)
      local path = tmp .. "/" .. name
      pw.write(path, bytes)
      local status, out, err = perfdump(path)
      assert.equal(1, status, out .. err)
      assert.equal(1, #lines_of(err), err)
      assert.truthy(err:find(pattern), err)
      assert.truthy(err:find(path, 1, true), err)
    end
    local good = minimal():bytes()
    it("a little-endian file under the big-endian magic (the byte orders: spec/perfendian_spec.lua)", function()
      -- read as big-endian, its header says it is 0x6800000000000000 bytes
      refused("be.data", "2ELIFREP" .. good:sub(9), "not a perf.data file %(header of 7493989779944505344 bytes%)")
    end)
    it("too short a file, or another magic", function()
      refused("short.data", "PERFILE2", "not a perf.data file")
      refused("magic.data", "PERFFILE" .. good:sub(9), "not a perf.data file")
    end)
    it("a header pointing outside the file", function()
      refused("attrs.data", good:sub(1, 24) .. string.pack("<I8", 1 << 40) .. good:sub(33),
        "outside the file")
    end)
    it("ids outside the file", function()
      -- the attr's ids section: its offset at 104 + 8 + 128
      local at = 104 + 8 + 128
      refused("ids.data", good:sub(1, at) .. string.pack("<I8", 1 << 40) .. good:sub(at + 9),
        "outside the file")
    end)
    it("a sample whose call chain claims more entries than it holds", function()
      local f = minimal(ST | pw.CALLCHAIN)
      local bytes = f:bytes()
      -- the first sample's nr (after ip, pid/tid, time, period) made huge
      local first = bytes:find("\9\0\0\0\2\0", 1, true)
      local nr_at = first + 8 + 32
      refused("chain.data", bytes:sub(1, nr_at - 1) .. string.pack("<I8", 1 << 60)
        .. bytes:sub(nr_at + 8), "cut short")
    end)
    it("a sample type it cannot size", function()
      local f = pw.new({ attrs = { { sample_type = ST | (1 << 40), period = 1, ids = { 1 } } } })
      refused("type.data", f:bytes(), "cannot size")
    end)
  end)

  describe("against perf report -D", function()
    local cases = {
      { "min", function() return minimal():bytes() end },
      { "chain", function() return minimal(ST | pw.CALLCHAIN):bytes() end },
      { "pipe", function() return minimal():bytes({ pipe = true }) end },
    }
    for _, c in ipairs(cases) do
      it("perf accepts the written " .. c[1] .. " file and counts what the reader counts", function()
        if not HAVE_PERF then return pending("perf is not installed") end
        local path = tmp .. "/perf-" .. c[1] .. ".data"
        pw.write(path, c[2]())
        local counts, why = perf_counts(path)
        assert.truthy(counts, why)
        local _, out = perfdump(path)
        assert.equal(counts.SAMPLE, #grep(out, "^sample"))
        assert.equal(counts.MMAP2, #grep(out, "^mmap"))
        assert.equal(counts.COMM, #grep(out, "^comm"))
      end)
    end

    -- The program the two tests on real recordings record (leaf called
    -- through middle), compiled once for both.
    local busy_exe
    local function busy_program()
      if not busy_exe then
        local src = tmp .. "/busy.c"
        util.spit(src, [[
#include <stdlib.h>
volatile long s;
void leaf(int n) { for (int i = 0; i < n; i++) s += i; }
void middle(int n) { leaf(n); leaf(n); }
int main(int c, char **v) { int n = c > 1 ? atoi(v[1]) : 100; for (int i = 0; i < n; i++) middle(100000); return 0; }
]])
        local exe = tmp .. "/busy"
        assert.equal(0, (cmd.shell("gcc -O1 -g -fno-omit-frame-pointer -o " .. q(exe) .. " " .. q(src))))
        busy_exe = exe
      end
      return busy_exe
    end

    it("counts every record of a real recording as perf does", function()
      if not HAVE_PERF then return pending("perf is not installed") end
      local exe = busy_program()
      for _, mode in ipairs({ "file", "pipe" }) do
        local path = tmp .. "/real-" .. mode .. ".data"
        local rec = mode == "file" and ("-o " .. q(path)) or ("-o - > " .. q(path))
        local status, out, err = cmd.shell("perf record -e cpu-clock -F 999 -g " .. rec .. " "
          .. q(exe) .. " 300 2>&1")
        if status ~= 0 then return pending("perf record does not work here: " .. out .. err) end
        local counts, why = perf_counts(path)
        assert.truthy(counts, why)
        local dstatus, dout, derr = perfdump(path)
        assert.equal(0, dstatus, derr)
        local mine = {}
        for name, n in dout:gmatch("count %d+ ([A-Z_0-9]+) (%d+)") do mine[name] = tonumber(n) end
        for _, name in ipairs({ "SAMPLE", "MMAP", "MMAP2", "COMM", "EXIT", "FORK", "FINISHED_ROUND" }) do
          assert.equal(counts[name], mine[name], mode .. " " .. name)
        end
        assert.truthy((mine.SAMPLE or 0) > 0)
      end
    end)

    it("counts every record of real recordings with and without -z as perf does", function()
      if not HAVE_PERF then return pending("perf is not installed") end
      local exe = busy_program()
      for _, z in ipairs({ "", "-z " }) do
        local path = tmp .. "/real" .. (z ~= "" and "-z" or "") .. ".data"
        local status, out, err = cmd.shell("perf record " .. z .. "-e cpu-clock -F 999 -g -o " .. q(path)
          .. " " .. q(exe) .. " 2000 2>&1")
        if status ~= 0 then return pending("perf record does not work here: " .. out .. err) end
        -- perf report -D lists the records it decompressed, not the COMPRESSED ones
        local counts, why = perf_counts(path)
        assert.truthy(counts, why)
        local dstatus, dout, derr = perfdump(path)
        assert.equal(0, dstatus, derr)
        local mine = {}
        for name, n in dout:gmatch("count %d+ ([A-Z_0-9]+) (%d+)") do mine[name] = tonumber(n) end
        for _, name in ipairs({ "SAMPLE", "MMAP", "MMAP2", "COMM", "EXIT", "FORK", "FINISHED_ROUND" }) do
          assert.equal(counts[name], mine[name], z .. name)
        end
        assert.truthy((mine.SAMPLE or 0) > 0, z .. "no samples")
        local nz = tonumber(dout:match("compressed (%d+) records"))
        if z ~= "" then
          assert.truthy(nz and nz > 0, dout)
        else
          assert.is_nil(nz)
        end
      end
    end)
  end)
end)
