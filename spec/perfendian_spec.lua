-- perf.data files of the other byte order (issue 25: "both byte orders"):
-- csrc/core/read/perf/perfswap.c turns a copy of such a file to this
-- machine's order and the reader reads the copy.
--
-- The same recordings are written both ways by helpers.perfwriter (every
-- integer packed by its own width in the order asked for, the flag words as
-- a big-endian compiler lays out their bitfields), for an ELF compiled here.
-- The oracle is the little-endian file itself: the converter's copy of the
-- big-endian file must be byte for byte the little-endian file, and every
-- output (the reader's dump, the stacks, lgprof's reports, messages and
-- statuses included) must be the same for both, also for files cut short
-- anywhere, for sizes that lie (the same lie written in either order) and
-- for directory recordings. Where perf is installed, perf itself (which
-- reads files of either order) must print the same decoded records and
-- attrs for both files.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"

local q = util.q
local HAVE_PERF = util.have("perf")

local PID = sp.PID
local ST = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN
local U = pw.CONTEXT_USER

local tmp, prog, exe, buildid
local tools = {}

local function rt(name, off) return sp.addr(prog, name, off or 0) end

-- A recording in byte order `order`: COMM and MMAP2 of the program, then
-- what add(f) appends.
local function recording(order, attrs, add)
  local f = sp.map(pw.new({ order = order, attrs = attrs }), prog)
  add(f)
  return f
end

local function chains(f, opts)
  opts = opts or {}
  for k = 1, 3 do
    f:sample({ attr = opts.attr, id = opts.id, ip = rt("leaf", 4), pid = PID, tid = PID,
      time = 1000 + k, period = 1000, cpu = 1,
      chain = { U, rt("leaf", 4), rt("middle", 4), rt("main", 4) } })
  end
  for k = 1, 2 do
    f:sample({ ip = rt("other", 2), pid = PID, tid = PID, time = 1010 + k, period = 1000,
      cpu = 0, chain = { U, rt("other", 2), rt("main", 8) } })
  end
end

local function features(f)
  f:feature("hostname", "big"):feature("osrelease", "6.1.0"):feature("version", "6.1.187")
  f:feature("arch", "s390x"):feature("nrcpus", { 4, 2 }):feature("cmdline", { "perf", "record", "-g" })
  f:feature("event_desc", true):feature("sample_time", { 1001, 1012 })
  f:feature("buildids", { { id = buildid, path = exe }, { id = ("\7"):rep(20), path = "[vdso]", misc = 0x8001 } })
end

-- The recordings, each a function of the byte order; `features`: whether
-- the file carries features (a file whose data size is 0 reads its records
-- to the end of the file, so it has none).
local SCENARIOS = {
  { "call chains, features and build-ids", function(order, feat)
    return recording(order, { { sample_type = ST, period = 1000, ids = { 1, 2 } } }, function(f)
      chains(f)
      f:finished_round()
      if feat then features(f) end
    end)
  end },
  { "every trailer field, MMAP, MMAP2 with a build-id, FORK, EXIT, LOST, LOST_SAMPLES", function(order, feat)
    local st = ST | pw.ID | pw.STREAM_ID | pw.CPU | pw.IDENTIFIER
    return recording(order, { { sample_type = st, period = 1000, ids = { 7 }, name = "task-clock",
      config = 1 } }, function(f)
      f:fork(PID, PID, PID + 1, PID, 30)
      f:comm(PID, PID + 1, "worker", 31)
      f:mmap(PID, PID, 0x7f0000000000, 0x2000, 0, "/lib/old-style.so", 32)
      f:mmap2(PID, PID, 0x7f0000100000, 0x1000, 0, "/lib/with-id.so", 33, { buildid = ("\5"):rep(20) })
      chains(f)
      f:lost(7, 5, 1500)
      f:lost_samples(5)
      f:exit(PID, PID, PID + 1, PID, 2000)
      f:finished_round()
      if feat then features(f) end
    end)
  end },
  { "two events told apart by their ids", function(order, feat)
    local st = ST | pw.IDENTIFIER
    return recording(order, {
      { sample_type = st, period = 1000, ids = { 11, 12 }, name = "cpu-clock" },
      { sample_type = st, period = 500, ids = { 21 }, name = "task-clock", config = 1 },
    }, function(f)
      chains(f)
      chains(f, { attr = 2, id = 21 })
      if feat then features(f) end
    end)
  end },
  { "a branch stack with its flag bitfields", function(order, feat)
    local st = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.BRANCH_STACK
    return recording(order, { { sample_type = st, period = 1000, ids = { 1 } } }, function(f)
      -- mispred, abort, cycles 0x1234, type 5 (IND_CALL); then predicted,
      -- in_tx, cycles 7, type 1, and spec 2, new_type 9, priv 3 (fields perf
      -- 6.1 swaps as one reserved block of 40 bits)
      local flags = 1 | 8 | (0x1234 << 4) | (5 << 20)
      f:sample({ ip = rt("leaf", 4), pid = PID, tid = PID, time = 100, period = 1000,
        branches = { { from = rt("middle", 1), to = rt("leaf"), flags = flags },
          { from = rt("main", 1), to = rt("middle"), flags = 2 | 4 | (7 << 4) | (1 << 20) } } })
      f:sample({ ip = rt("leaf", 4), pid = PID, tid = PID, time = 101, period = 1000,
        branches = { { from = rt("middle", 1), to = rt("leaf"),
          flags = (2 << 24) | (9 << 26) | (3 << 30) } } })
      if feat then features(f) end
    end)
  end },
  { "user registers and a stack copy (--call-graph dwarf), frequency mode, precise_ip", function(order, feat)
    local st = ST | pw.REGS_USER | pw.STACK_USER
    -- freq, precise_ip 2, exclude_kernel, mmap2, build_id
    local flags = (2 << 15) | (1 << 5) | (1 << 23) | (1 << 34)
    return recording(order, { { sample_type = st, freq = 999, ids = { 1 }, regs_user = 0xff0fff,
      stack_user = 64, flags = flags } }, function(f)
      local regs = {}
      for k = 1, 20 do regs[k] = 0x1000 * k end
      f:sample({ ip = rt("leaf"), pid = PID, tid = PID, time = 100, period = 1001001, chain = {},
        regs = regs, stack = ("stack bytes are memory, not integers..."):rep(2), dyn_size = 40 })
      if feat then features(f) end
    end)
  end },
  { "a record of a type no reader knows, then more records", function(order, feat)
    return recording(order, { { sample_type = ST, period = 1000, ids = { 1 } } }, function(f)
      f:raw(pw.record(99, 3, "opaque payload\0\0", order))
      chains(f)
      if feat then features(f) end
    end)
  end },
}

local function write(dir, name, bytes)
  local path = tmp .. "/" .. dir .. "/" .. name
  pw.write(path, bytes)
  return path
end

-- a tool's run on the file `name` of tmp/le and of tmp/be, each from its
-- own directory (so that messages name the same file)
local function both(tool, args, name)
  local r = {}
  for _, dir in ipairs({ "le", "be" }) do
    local line = { q(tool) }
    for _, a in ipairs(args) do line[#line + 1] = q(a) end
    line[#line + 1] = q(name)
    r[dir] = { cmd.shell(table.concat(line, " "), { cwd = tmp .. "/" .. dir }) }
  end
  return r.le, r.be
end

-- perfdump --each on the files `names` of tmp/le and of tmp/be, each from
-- its own directory: for each name, in order, { status, stdout, stderr } as
-- `perfdump NAME` gives them, read from the one process's blocks ("#file",
-- the dump, "#stderr" when it failed, "#status"; spec/unit/perfdump.c).
-- Hundreds of files cut short cost two processes instead of hundreds.
local function both_each(names)
  local r = {}
  for _, dir in ipairs({ "le", "be" }) do
    local line = { q(tools.perfdump), "--each" }
    for _, n in ipairs(names) do line[#line + 1] = q(n) end
    local status, out, err = cmd.shell(table.concat(line, " "), { cwd = tmp .. "/" .. dir })
    assert.equal(0, status, dir .. ": perfdump --each: " .. cmd.show(status, out, err))
    assert.equal("", err, dir .. ": perfdump --each")
    local runs = {}
    for name, body, code in out:gmatch("#file ([^\n]*)\n(.-)#status (%d+)\n") do
      local o, e = body:match("^(.-)#stderr (.*)$")
      runs[#runs + 1] = { tonumber(code), o or body, e or "", name = name }
    end
    assert.equal(#names, #runs, dir .. ": perfdump --each read every file")
    for k, n in ipairs(names) do assert.equal(n, runs[k].name) end
    r[dir] = runs
  end
  return r.le, r.be
end

local function same_run(le, be, what)
  assert.equal(le[1], be[1], what .. ": status\n" .. cmd.show(table.unpack(be)))
  assert.equal(le[2], be[2], what .. ": stdout")
  assert.equal(le[3], be[3], what .. ": stderr")
end

describe("perf.data of the other byte order", function()
  setup(function()
    tmp = util.mktempdir("lgprof perf-endian")
    assert(os.execute("mkdir -p " .. q(tmp .. "/le") .. " " .. q(tmp .. "/be")))
    for _, t in ipairs({ "perfdump", "perfstacks", "perfswap" }) do
      tools[t] = tmp .. "/" .. t
      cmd.build_core_program(cmd.ROOT .. "/spec/unit/" .. t .. ".c", tools[t])
    end
    prog = sp.shared(tmp)
    exe = prog.exe
    local hex = util.read_cmd("readelf -n " .. q(exe)):match("Build ID: (%x+)")
    buildid = hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
  end)
  teardown(function() util.rmtree(tmp) end)

  -- the modes each recording is written in: a file, a pipe, a file perf
  -- never finished (data size 0)
  local MODES = {
    { "file", {}, true },
    { "pipe", { pipe = true }, true },
    { "unfinished file", { data_size = 0 }, false },
  }

  for _, sc in ipairs(SCENARIOS) do
    for _, mode in ipairs(MODES) do
      local what = sc[1] .. " (" .. mode[1] .. ")"
      it("turns " .. what .. " into the little-endian file, byte for byte, and reads it the same", function()
        local le_bytes = sc[2]("<", mode[3]):bytes(mode[2])
        local be_bytes = sc[2](">", mode[3]):bytes(mode[2])
        assert.are_not.equal(le_bytes, be_bytes)
        write("le", "x.data", le_bytes)
        write("be", "x.data", be_bytes)
        local status, swapped, err = cmd.shell(q(tools.perfswap) .. " x.data", { cwd = tmp .. "/be" })
        assert.equal(0, status, err)
        assert.equal(#le_bytes, #swapped)
        -- the first byte that differs, for the message
        local at = 1
        while at <= #le_bytes and le_bytes:byte(at) == swapped:byte(at) do at = at + 1 end
        assert.is_true(at > #le_bytes, what .. ": the copy differs at offset " .. (at - 1))
        local le, be = both(tools.perfdump, {}, "x.data")
        assert.equal(0, le[1], le[3])
        same_run(le, be, what .. ", perfdump")
        le, be = both(tools.perfstacks, {}, "x.data")
        same_run(le, be, what .. ", perfstacks")
        for _, args in ipairs({ {}, { "--format=folded" }, { "--format=json" }, { "doctor" } }) do
          local argv = table.move(args, 1, #args, 1, {})
          argv[#argv + 1] = exe
          le, be = both(cmd.LGPROF, argv, "x.data")
          same_run(le, be, what .. ", lgprof " .. table.concat(args, " "))
        end
      end)
    end
  end

  it("reads a feature bitmap written as 32-bit words (a 32-bit big-endian perf) the same", function()
    -- perf's rule: the bitmap is 64-bit words when HOSTNAME (bit 3) reads
    -- set so, else 32-bit ones
    local le_bytes = SCENARIOS[1][2]("<", true):bytes()
    local be_bytes = SCENARIOS[1][2](">", true):bytes()
    local bits = string.unpack("<I8", le_bytes, 73)
    assert.equal(0, string.unpack("<I8", le_bytes, 81))
    local words = string.pack(">I4I4", bits & 0xffffffff, bits >> 32) .. ("\0"):rep(24)
    write("le", "words.data", le_bytes)
    write("be", "words.data", be_bytes:sub(1, 72) .. words .. be_bytes:sub(105))
    local le, be = both(tools.perfdump, {}, "words.data")
    assert.equal(0, le[1], le[3])
    assert.truthy(le[2]:find("hostname big", 1, true), le[2])
    same_run(le, be, "32-bit words")
  end)

  -- both byte orders' files cut at from, from + step, ... (before their
  -- last byte), named PREFIX..CUT.data, read: the cuts, and the runs of
  -- each order (both_each's)
  local function read_cut(prefix, le_bytes, be_bytes, from, step)
    local names, cuts = {}, {}
    for cut = from, #le_bytes - 1, step do
      names[#names + 1], cuts[#cuts + 1] = prefix .. cut .. ".data", cut
      write("le", names[#names], le_bytes:sub(1, cut))
      write("be", names[#names], be_bytes:sub(1, cut))
    end
    return cuts, both_each(names)
  end

  it("reads both files cut short anywhere the same: the records before the cut, or the same refusal", function()
    local outcomes = {}
    local cuts, les, bes = read_cut("cut-", SCENARIOS[2][2]("<", true):bytes(),
      SCENARIOS[2][2](">", true):bytes(), 1, 3)
    for k, cut in ipairs(cuts) do
      local le, be = les[k], bes[k]
      same_run(le, be, "cut at " .. cut)
      if le[1] ~= 0 then assert.equal(1, #util.lines(le[3]), le[3]) end
      outcomes[le[1]] = true
    end
    -- both kinds were met: refusals (header, attrs, features cut) and
    -- records read up to the cut
    assert.is_true(outcomes[0] and outcomes[1])
  end)

  it("reads a pipe cut short anywhere the same", function()
    local cuts, les, bes = read_cut("cutp-", SCENARIOS[1][2]("<", true):bytes({ pipe = true }),
      SCENARIOS[1][2](">", true):bytes({ pipe = true }), 16, 5)
    for k, cut in ipairs(cuts) do
      same_run(les[k], bes[k], "pipe cut at " .. cut)
    end
  end)

  describe("refuses sizes that lie as in the little-endian file: one line, no crash", function()
    -- each case: where the lie goes (a byte offset in the file, found in
    -- the little-endian bytes), its width and value; written in each file's
    -- own order at the same offset (the orders share every offset)
    local function patched(bytes, order, at, width, value)
      return bytes:sub(1, at) .. string.pack(order .. "I" .. width, value) .. bytes:sub(at + width + 1)
    end
    local function sample_at(le)
      return assert(le:find("\9\0\0\0\2\0", 1, true)) - 1
    end
    local cases = {
      { "the attrs' offset", function() return 24, 8, 1 << 40 end, "outside the file" },
      { "the attr's size", function() return 104 + 16 + 4, 4, 4096 end, "event attribute" },
      { "the attr size of the header", function() return 16, 8, 8 end, "outside the file" },
      { "the ids' offset", function() return 104 + 16 + 128, 8, 1 << 40 end, "outside the file" },
      { "the ids' size", function() return 104 + 16 + 136, 8, 1 << 41 end, "outside the file" },
      { "a feature's offset", function(le)
        return string.unpack("<I8", le, 41) + string.unpack("<I8", le, 49), 8, 1 << 50 end,
        "outside the file" },
      { "a feature's size", function(le)
        return string.unpack("<I8", le, 41) + string.unpack("<I8", le, 49) + 8, 8, 1 << 50 end,
        "outside the file" },
      { "a call chain's length", function(le) return sample_at(le) + 8 + 32, 8, 1 << 60 end,
        "cut short" },
      { "a sample's size", function(le) return sample_at(le) + 6, 2, 16 end, "cut short" },
      { "a string's length in a feature", function(le)
        -- the first payload: the build-ids; the second, HOSTNAME: u32 len first
        local ftab = string.unpack("<I8", le, 41) + string.unpack("<I8", le, 49)
        return string.unpack("<I8", le, ftab + 16 + 1), 4, 0xfffffff0 end, "cut short" },
    }
    for _, c in ipairs(cases) do
      it(c[1], function()
        local le_bytes = SCENARIOS[1][2]("<", true):bytes()
        local be_bytes = SCENARIOS[1][2](">", true):bytes()
        local at, width, value = c[2](le_bytes)
        write("le", "lie.data", patched(le_bytes, "<", at, width, value))
        write("be", "lie.data", patched(be_bytes, ">", at, width, value))
        local le, be = both(tools.perfdump, {}, "lie.data")
        same_run(le, be, c[1])
        local line = cmd.file_error("lie.data", cmd.lgprof({ exe, "lie.data" }, { cwd = tmp .. "/be" }))
        assert.truthy(line:find(c[3], 1, true), line)
        local status, out, err = cmd.lgprof({ exe, "lie.data" }, { cwd = tmp .. "/le" })
        assert.equal("lgprof: " .. line .. "\n", err, cmd.show(status, out, err))
      end)
    end
  end)

  it("refuses compressed records (perf record -z) of the other byte order, in one line", function()
    local f = pw.new({ order = ">", attrs = { { sample_type = ST, period = 1, ids = { 1 } } } })
    f:compressed("\40\181\47\253 not really zstd")
    write("be", "z.data", f:bytes())
    local line = cmd.file_error("z.data", cmd.lgprof({ exe, "z.data" }, { cwd = tmp .. "/be" }))
    assert.truthy(line:find("compressed records (perf record -z) in a perf.data of the other byte order",
      1, true), line)
  end)

  it("reads a directory recording (perf record --threads) the same, its streams turned by DIR/data's attrs", function()
    -- DIR/data: the header, attrs, COMM and MMAP2; data.0 and data.1 share
    -- the rest, record by record; then data.1 cut inside a record
    for _, cut in ipairs({ 0, 20 }) do
      for _, order in ipairs({ "<", ">" }) do
        local f = SCENARIOS[2][2](order, true)
        local records = table.move(f.records, 1, #f.records, 1, {})
        f:take_records(2)
        local s0, s1 = {}, {}
        for k = 3, #records do table.insert(k % 2 == 1 and s0 or s1, records[k]) end
        local streams = { table.concat(s0), table.concat(s1) }
        streams[2] = streams[2]:sub(1, #streams[2] - cut)
        pw.write_dir(tmp .. (order == "<" and "/le" or "/be") .. "/dir.data", f:bytes(), streams)
      end
      local le, be = both(tools.perfdump, {}, "dir.data")
      assert.equal(0, le[1], le[3])
      assert.truthy(le[2]:find("lost 5", 1, true), le[2])
      assert.equal(cut > 0, le[2]:find("\ntruncated") ~= nil, le[2])
      same_run(le, be, "directory")
      le, be = both(tools.perfstacks, {}, "dir.data")
      assert.equal(0, le[1], le[3])
      same_run(le, be, "directory, stacks")
    end
  end)

  describe("against perf, which reads files of either byte order", function()
    -- perf report -D without its hex dumps (perf shows the bytes as it
    -- swapped them in place; a branch stack's lines are kept) and without the file's name. perf 6.1 leaves
    -- an MMAP2's prot and flags in the file's order (its swap of MMAP2
    -- stops before them), so it prints a big-endian file's "r-xp" as
    -- "---p": the protection is masked here, and checked by the byte for
    -- byte comparison above. Likewise its swap of a branch entry's flags
    -- knows cycles, type and the one-bit flags but moves the fields after
    -- type (spec, new_type, priv) as one 40-bit block into the column it
    -- prints as "reserved": that column is masked too.
    local function decoded(path)
      local status, out, err = cmd.shell("perf report -D -i " .. q(path) .. " 2>&1")
      assert(status == 0, out .. err)
      local t = {}
      for _, l in ipairs(util.lines(out)) do
        if not l:find("^%.%s") and l ~= "." then
          local a, b = l:find(path, 1, true)
          if a then l = l:sub(1, a - 1) .. "FILE" .. l:sub(b + 1) end
          l = l:gsub("(PERF_RECORD_MMAP2 .*%]: )[-rwxsp]+ ", "%1prot ")
          t[#t + 1] = (l:gsub("( cycles [MPAT ]+ )%x+", "%1reserved"))
        end
      end
      return t
    end
    for k, sc in ipairs(SCENARIOS) do
      -- perf 6.1 refuses record type 99 and the branch stack of an
      -- event that did not ask for one; it does not unwind the stack copy
      -- of a big-endian machine ("user stack dump failure"), and reads a
      -- big-endian precise_ip with its two bits reversed
      if k ~= 5 and k ~= 6 then
        it("perf decodes " .. sc[1] .. " the same from both files", function()
          if not HAVE_PERF then
            pending("perf is not installed")
            return
          end
          local le = write("le", "perf.data", sc[2]("<", true):bytes())
          local be = write("be", "perf.data", sc[2](">", true):bytes())
          local want = decoded(le)
          assert.is_true(#want > 10)
          assert.same(want, decoded(be))
          local _, le_attrs = cmd.shell("perf evlist -v -i " .. q(le) .. " 2>&1")
          local _, be_attrs = cmd.shell("perf evlist -v -i " .. q(be) .. " 2>&1")
          assert.truthy(le_attrs:find("sample_id_all: 1", 1, true), le_attrs)
          assert.equal(le_attrs, be_attrs)
        end)
      end
    end
  end)
end)
