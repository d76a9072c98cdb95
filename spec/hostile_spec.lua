-- Hostile inputs (issue "Robustness", part 3). Every case ends within
-- `timeout 20` either with a correct result or with exactly one line
-- "lgprof: FILE: what is wrong" on stderr, status 1 and nothing on stdout.
-- spec/bad_input_spec.lua already covers: missing files, a text file, a
-- stripped executable, a directory as executable and as profile, /dev/null as
-- profile, GNU and 4.4BSD files cut in a few places, bad tags and versions,
-- 0xFFFFFFFF bins in a short GNU or 4.4BSD file (first histogram), a histogram
-- outside the text, with no bins, rate 0 or low above high (one file),
-- overlapping ranges, empty and cut executables. This file adds the cases
-- below, none of which repeats those.

local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, gw, ew, cmd = H.fixtures, H.util, H.gmonwriter, H.elfwriter, H.cmd

local q, slurp, copy = util.q, util.slurp, util.copy
local HAVE_GPROF = cmd.HAVE_GPROF

-- lgprof with args under `timeout 20` (prefix: more shell text before it)
local function lg(args, prefix)
  return cmd.lgprof(args, { prefix = prefix, timeout = 20 })
end

-- status 1, nothing on stdout, one line "lgprof: FILE: reason"; returns the reason
local function one_line_error(file, status, out, err)
  return cmd.file_error(file, status, out, err):sub(#file + 3)
end

-- exe with the profile files refused because of `file`, by the command
-- (under `timeout 20`) and by lgprof.open, with the same message
local function refused(exe, files, file)
  return H.profile.refused(exe, files, file, { timeout = 20 })
end

-- gprof's status and stdout for args
local function gprof(args)
  return cmd.gprof(args, { timeout = 20 })
end

describe("hostile input", function()
  local tmp, fixture, EXE, GMON, gmon, data

  setup(function()
    fixture = assert(fx.build("classic", "O0g-pie"))
    EXE, GMON = fixture.exe, fixture.gmon[1]
    tmp = util.mktempdir("lgprof-hostile")
    data, gmon = fx.gmon_data(fixture)
  end)

  teardown(function() util.rmtree(tmp) end)

  local function put(name, bytes)
    gw.write(tmp .. "/" .. name, bytes)
    return tmp .. "/" .. name
  end

  describe("a profile truncated", function()
    -- record boundaries of a GNU file whose records are listed in data.records
    -- (x86-64: 20-byte header, 1 + 40-byte histogram header + 2 bytes a bin,
    -- 1 + 20-byte arcs, basic-block records 1 + 4 + 16 a block)
    local function boundaries(d)
      local b, pos = { 20 }, 20
      for _, r in ipairs(d.records) do
        if r[1] == "hist" then
          pos = pos + 41 + 2 * d.hist[r[2]].n_bins
        elseif r[1] == "arc" then
          pos = pos + 21
        else
          pos = pos + 5 + 16 * #d.bb[r[2]].blocks
        end
        b[#b + 1] = pos
      end
      return b
    end

    -- the real profile, and one with its records interleaved with a
    -- basic-block record (histogram, arcs and bb records in every position)
    local function variants()
      local mixed = copy(data)
      mixed.bb = { { blocks = { { addr = data.arcs[1].from, count = 7 },
                                { addr = data.arcs[2].from, count = 9 } } } }
      mixed.records = { { "arc", 1 }, { "hist", 1 }, { "arc", 2 }, { "bb", 1 } }
      for i = 3, #data.arcs do mixed.records[#mixed.records + 1] = { "arc", i } end
      local m = gw.encode(mixed)
      return { { "real", gmon, data }, { "mixed", m, gw.decode(m) } }
    end

    it("at every record boundary: what is complete, byte for byte as gprof reads it", function()
      for _, v in ipairs(variants()) do
        local name, bytes, d = v[1], v[2], v[3]
        local bs = boundaries(d)
        assert.equal(#bytes, bs[#bs], name .. ": layout")
        for _, n in ipairs(bs) do
          local path = put(("%s-cut-%d"):format(name, n), bytes:sub(1, n))
          local status, out, err = lg({ EXE, path })
          local ctx = name .. " cut at " .. n .. "\n" .. cmd.show(status, out, err)
          assert.equal(0, status, ctx)
          -- a complete block record is read and, without -l, ignored with
          -- gprof's warning
          local has_bb = false
          for k = 1, #bs - 1 do
            if bs[k + 1] <= n and d.records[k][1] == "bb" then has_bb = true end
          end
          assert.equal(has_bb and "lgprof: warning: ignoring basic-block exec counts (use -l or --line)\n"
            or "", err, ctx)
          if HAVE_GPROF then
            local gs, gout, gerr = gprof({ EXE, path })
            assert.equal(0, gs, ctx)
            assert.equal(gout, out, ctx)
            assert.equal(has_bb, (gerr or ""):find("ignoring basic-block exec counts", 1, true) ~= nil, ctx)
          end
          -- and the Lua API reads the same records
          local p = assert(lgprof.open(EXE, path))
          -- record k is complete when bs[k + 1] <= n
          local nh = 0
          for k = 1, #bs - 1 do
            if bs[k + 1] <= n and d.records[k][1] == "hist" then nh = nh + 1 end
          end
          assert.equal(nh > 0, p.have_histogram, ctx)
          local sum = 0
          for a in p:arcs() do sum = sum + a.count end
          local want = 0
          for k = 1, #bs - 1 do
            local r = d.records[k]
            if bs[k + 1] <= n and r[1] == "arc" then want = want + d.arcs[r[2]].count end
          end
          assert.equal(want, sum, ctx)
          p:close()
        end
      end
    end)

    it("inside a record: exit 1, one line naming the file, nothing on stdout", function()
      for _, v in ipairs(variants()) do
        local name, bytes, d = v[1], v[2], v[3]
        local bs = boundaries(d)
        local is_boundary = {}
        for _, n in ipairs(bs) do is_boundary[n] = true end
        -- every offset in the header, the histogram header and the arcs; every
        -- 61st in the bins (each: the Lua API); a few of them through the command
        local offsets = {}
        for n = 0, #bytes - 1 do
          if not is_boundary[n] then
            local in_bins = false
            for k = 1, #bs - 1 do
              local r = d.records[k]
              if r[1] == "hist" and n > bs[k] + 41 + 2 and n < bs[k + 1] - 2 then in_bins = true end
            end
            if not in_bins or n % 61 == 0 then offsets[#offsets + 1] = n end
          end
        end
        assert.is_true(#offsets > 100)
        for i, n in ipairs(offsets) do
          local path = put(("%s-mid-%d"):format(name, n), bytes:sub(1, n))
          local p, msg = lgprof.open(EXE, path)
          assert.is_nil(p, name .. " cut at " .. n)
          assert.equal(path .. ": ", msg:sub(1, #path + 2), msg)
          if i % 25 == 1 or n == #bytes - 1 then
            local status, out, err = lg({ EXE, path })
            assert.equal(msg, cmd.one_line_error(1, status, out, err))
            if HAVE_GPROF then assert.equal(1, (gprof({ EXE, path }))) end
          end
          os.remove(path)
        end
      end
    end)
  end)

  describe("histogram headers", function()
    -- (bad_input_spec: the first histogram of a GNU or 4.4BSD file)
    it("0xFFFFFFFF bins in the second histogram record, or in an old BSD header: fast error", function()
      local h = data.hist[1]
      local files = {
        put("huge-second", gw.huge_bins({ hist = { h, copy(h) }, arcs = data.arcs }, nil, 0xFFFFFFFF)),
        put("huge-oldbsd", gw.encode({ hist = { (function()
          local c = copy(h); c.ncnt = 0xFFFFFFFF; return c end)() } }, { format = "oldbsd" })),
      }
      for _, path in ipairs(files) do
        local status, out, err = lg({ EXE, path }, util.memory_limit(300000))
        local msg = one_line_error(path, status, out, err)
        assert.falsy(msg:find("memory", 1, true), msg)
      end
    end)

    it("low == high, rate 0 in a 4.4BSD file, a bad histogram in the second of two files", function()
      local h = data.hist[1]
      local eq = copy(h); eq.high = eq.low
      local r0 = copy(h); r0.rate = 0
      local nob = copy(h); nob.n_bins = 0; nob.bins = {}
      local inv = copy(h); inv.low, inv.high = h.high, h.low
      local cases = {
        { put("low-eq-high", gw.encode({ hist = { eq } })) },
        { put("rate0.bsd44", gw.encode({ hist = { r0 } }, { format = "bsd44" })) },
        { GMON, put("second-no-bins", gw.encode({ hist = { nob } })) },
        { GMON, put("second-low-above-high", gw.encode({ hist = { inv } })) },
        { GMON, put("second-rate0", gw.encode({ hist = { r0 } })) },
      }
      for _, files in ipairs(cases) do
        refused(EXE, files, files[#files])
      end
    end)
  end)

  it("arcs pointing outside the text are ignored, as gprof ignores them", function()
    local arcs = {}
    for i, a in ipairs(data.arcs) do arcs[i] = a end
    local extra = {
      { from = 0x10, to = data.arcs[1].to, count = 5 },            -- from below the text
      { from = data.arcs[1].from, to = 0x7fffffff0000, count = 7 }, -- to above it
      { from = 0xffffffffffffffff, to = 0, count = 9 },            -- both, extreme
    }
    for _, a in ipairs(extra) do arcs[#arcs + 1] = a end
    local with = put("arcs-outside", gw.encode({ hist = data.hist, arcs = arcs }))
    local without = put("arcs-inside", gw.encode({ hist = data.hist, arcs = data.arcs }))
    local s1, out1, err1 = lg({ EXE, with })
    assert.equal(0, s1, cmd.show(s1, out1, err1))
    assert.equal("", err1)
    local s2, out2 = lg({ EXE, without })
    assert.equal(0, s2)
    assert.equal(out2, out1)
    if HAVE_GPROF then
      local gs, gout = gprof({ EXE, with })
      assert.equal(0, gs)
      assert.equal(gout, out1)
    end
    local p <close> = assert(lgprof.open(EXE, with))
    local sum = 0
    for a in p:arcs() do sum = sum + a.count end
    local want = 0
    for _, a in ipairs(data.arcs) do want = want + a.count end
    assert.equal(want, sum)
  end)

  describe("a profile from a different executable", function()
    it("a non-PIE program's profile with a PIE executable: a clear error", function()
      local other = assert(fx.build("cycles", "O0g-nopie"))
      local msg = one_line_error(other.gmon[1], lg({ EXE, other.gmon[1] }))
      assert.truthy(msg:find("another program", 1, true), msg)
    end)

    it("a PIE program's profile with a synthetic executable elsewhere: a clear error", function()
      local exe = tmp .. "/elsewhere"
      ew.write(exe, { symbols = { { name = "main", addr = 0x401000, size = 0x100 },
        { name = "f", addr = 0x401100, size = 0x100 } } })
      local msg = one_line_error(GMON, lg({ exe, GMON }))
      assert.truthy(msg:find("another program", 1, true), msg)
    end)

    it("two PIE programs of overlapping text: gprof cannot tell either; same report as gprof", function()
      -- (documented limit: nothing in gmon.out names its program)
      local other = assert(fx.build("cycles", "O0g-pie"))
      local status, out = lg({ EXE, other.gmon[1] })
      assert.equal(0, status)
      if HAVE_GPROF then assert.equal(select(2, gprof({ EXE, other.gmon[1] })), out) end
    end)
  end)

  it("10,000 profiles merged: the sum of their counts", function()
    local dir = tmp .. "/many"
    util.mkdir(dir)
    local h = data.hist[1]
    -- each file: one sample in main's first bin, one arc counted i times
    local a1 = data.arcs[1]
    local bin = gw.bin_for(h, a1.from)
    local hist = gw.encode({ hist = { { low = h.low, high = h.high, n_bins = h.n_bins, rate = h.rate,
      bins = { [bin] = 1 } } } })
    local N = 10000
    local list = {}
    for i = 1, N do
      local path = ("%s/g%05d"):format(dir, i)
      list[i] = path
      local f = assert(io.open(path, "wb"))
      f:write(hist, string.pack("<BI8I8I4", 1, a1.from, a1.to, i))
      f:close()
    end
    local want = N * (N + 1) // 2
    local p <close> = assert(lgprof.open(EXE, list))
    assert.equal(N, #p.files)
    local n, sum = 0, 0
    for a in p:arcs() do n = n + 1; sum = sum + a.count end
    assert.equal(1, n)
    assert.equal(want, sum)
    assert.near(N * p.sample_period, p.total_time, 1e-9)
    -- (a function's share of a bin follows gprof's overlap rule: compare
    -- with one file's, times N)
    local single <close> = assert(lgprof.open(EXE, list[1]))
    assert.near(N * single:lookup(a1.from).flat_self, p:lookup(a1.from).flat_self, 1e-6)
    -- the command (10,000 paths on one command line) agrees; the command
    -- line goes through a script (one `sh -c` string is limited to 128 KB)
    local script = cmd.write(tmp .. "/many.sh", "exec timeout 20 "
      .. util.qwords({ cmd.LGPROF, "-b", "-q", EXE, table.unpack(list) }) .. "\n")
    local status, out, err = cmd.shell("sh " .. q(script))
    assert.equal(0, status, cmd.show(status, out, err))
    assert.truthy(out:find(("%d/%d"):format(want, want), 1, true), out)
  end)

  describe("counts beyond their fields when summed", function()
    local function arc_sum(p) return H.profile.arc_map(p, "name") end

    it("arc counts over 2^32 and bins over 65535: exact in the API and through -s", function()
      local h = data.hist[1]
      local a1 = data.arcs[1]
      local bin = gw.bin_for(h, a1.from)
      local one = gw.encode({ hist = { { low = h.low, high = h.high, n_bins = h.n_bins, rate = h.rate,
        bins = { [bin] = 0xFFFF } } }, arcs = { { from = a1.from, to = a1.to, count = 0xFFFFFFFF } } })
      local files = {}
      for i = 1, 3 do files[i] = put("big" .. i, one) end
      local p <close> = assert(lgprof.open(EXE, files))
      local sums = arc_sum(p)
      local key = next(sums)
      assert.equal(3 * 0xFFFFFFFF, sums[key])
      assert.is_true(sums[key] > 2 ^ 32)
      local fn = p:lookup(a1.from)
      local single <close> = assert(lgprof.open(EXE, files[1]))
      assert.near(3 * single:lookup(a1.from).flat_self, fn.flat_self, 1e-6)
      assert.near(3 * 0xFFFF * p.sample_period, p.total_time, 1e-6)
      local hs = p:histograms()
      assert.equal(1, #hs)
      -- -s: the sum splits over several records and reads back the same
      local cwd = tmp .. "/sum"
      util.mkdir(cwd)
      local status, out, err = cmd.lgprof({ "-s", EXE, table.unpack(files) }, { cwd = cwd })
      assert.equal(0, status, cmd.show(status, out, err))
      local back <close> = assert(lgprof.open(EXE, cwd .. "/gmon.sum"))
      assert.same(sums, arc_sum(back))
      assert.near(p.total_time, back.total_time, 1e-9)
      assert.near(fn.flat_self, back:lookup(a1.from).flat_self, 1e-9)
      -- and the same report
      local _, r1 = lg({ "-b", EXE, table.unpack(files) })
      local _, r2 = lg({ "-b", EXE, cwd .. "/gmon.sum" })
      assert.equal(r1, r2)
      assert.truthy(r1:find(tostring(3 * 0xFFFFFFFF), 1, true), r1)
      if HAVE_GPROF then assert.equal(select(2, gprof({ "-b", EXE, table.unpack(files) })), r1) end
    end)
  end)

  describe("hostile executables", function()
    local function elf_bytes()
      return ew.build({ symbols = { { name = "main", addr = 0x401000, size = 0x100 },
        { name = "f", addr = 0x401100, size = 0x100 } } })
    end

    it("no symbols, section headers cut off, a symbol table past the end of the file", function()
      local b = elf_bytes()
      local shoff = string.unpack("<I8", b, 0x28 + 1)
      local sym = shoff + 2 * 64 -- section 2 is .symtab
      local exes = {
        ew.write(tmp .. "/nosyms", { symbols = {} }) and tmp .. "/nosyms",
        put("cut-shdrs", b:sub(1, shoff)),
        put("symtab-offset-past", b:sub(1, sym + 24) .. string.pack("<I8", 0x7fffffff) .. b:sub(sym + 33)),
        put("symtab-size-past", b:sub(1, sym + 32) .. string.pack("<I8", 0x7fffffff0) .. b:sub(sym + 41)),
        put("shoff-past", b:sub(1, 0x28) .. string.pack("<I8", 0x7ffffffffff0) .. b:sub(0x31)),
        put("shnum-huge", b:sub(1, 0x3c) .. string.pack("<I2", 0xffff) .. b:sub(0x3f)),
      }
      for _, exe in ipairs(exes) do refused(exe, GMON, exe) end
    end)
  end)

  describe("special files", function()
    local FIFO
    before_each(function()
      FIFO = tmp .. "/fifo"
      os.remove(FIFO)
      assert(os.execute("mkfifo " .. q(FIFO)))
    end)

    it("/dev/null and a FIFO as the executable: refused at once", function()
      for _, exe in ipairs({ "/dev/null", FIFO }) do
        local msg = one_line_error(exe, lg({ exe, GMON }))
        assert.truthy(msg:find("not a regular file", 1, true), msg)
      end
    end)

    it("a FIFO without a writer as the profile: no wait, an error", function()
      one_line_error(FIFO, lg({ EXE, FIFO }))
    end)

    it("a FIFO with a writer, and a pipe, as the profile: read like the file", function()
      local _, want = lg({ "-b", EXE, GMON })
      -- lgprof runs once the writer is blocked opening the FIFO (the
      -- kernel's wait for a reader shows in its wchan, or the open call in
      -- its syscall), within 10 s; a writer left waiting is killed
      local status, out, err = cmd.shell("cat " .. q(GMON) .. " >" .. q(FIFO) .. " & w=$!; i=0; "
        .. "while [ $i -lt 200 ] && ! grep -qE 'fifo_open|wait_for_partner' /proc/$w/wchan"
        .. " && ! grep -qE '^(2|56|257) ' /proc/$w/syscall; do sleep 0.05; i=$((i+1)); done 2>/dev/null; "
        .. util.qwords({ cmd.LGPROF, "-b", EXE, FIFO }) .. "; rc=$?; kill $w 2>/dev/null; exit $rc")
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal(want, out)
      status, out = cmd.shell("cat " .. q(GMON) .. " | timeout 20 "
        .. util.qwords({ cmd.LGPROF, "-b", EXE, "/dev/stdin" }))
      assert.equal(0, status)
      assert.equal(want, out)
    end)
  end)

  describe("special files as output", function()
    -- a file written in one step is renamed over its target: that must never
    -- put a plain file in the place of a symbolic link, a FIFO or a device
    -- (as root, renaming over /dev/null replaces the device for everybody)
    it("a symbolic link and a FIFO: written through, left what they are", function()
      local p = assert(lgprof.open(EXE, { GMON }))
      local target, link = tmp .. "/target.json", tmp .. "/link.json"
      os.remove(target); os.remove(link)
      assert(os.execute("ln -s target.json " .. q(link)))
      assert(p:export("json", link))
      assert.is_true(util.exec_ok("test -L " .. q(link)), "the link was replaced")
      assert.truthy((slurp(target) or ""):find('"functions"', 1, true))
      assert(p:write_gmon(link))
      assert.is_true(util.exec_ok("test -L " .. q(link)), "the link was replaced by write_gmon")
      assert.equal("gmon", (slurp(target) or ""):sub(1, 4))

      local fifo, got = tmp .. "/out-fifo", tmp .. "/from-fifo"
      os.remove(fifo)
      assert(os.execute("mkfifo " .. q(fifo)))
      local status = cmd.shell("timeout 20 cat " .. q(fifo) .. " >" .. q(got) .. " & w=$!; "
        .. util.qwords({ cmd.LGPROF, "merge", "-o", fifo, EXE, GMON, GMON })
        .. "; rc=$?; wait $w; exit $rc")
      assert.equal(0, status)
      assert.is_true(util.exec_ok("test -p " .. q(fifo)), "the FIFO was replaced")
      assert.equal("gmon", (slurp(got) or ""):sub(1, 4))
      p:close()
    end)
  end)

  describe("a 2 GB sparse file", function()
    -- bounded time and memory: peak RSS from /usr/bin/time, under `timeout 20`
    local HAVE_TIME = util.exec_ok("test -x /usr/bin/time")
    local function run_rss(args)
      local rss = tmp .. "/rss"
      local status, out, err = lg(args, "/usr/bin/time -f %M -o " .. q(rss) .. " ")
      local kb = tonumber((slurp(rss) or ""):match("(%d+)%s*$"))
      return status, out, err, kb
    end
    local LIMIT_KB = os.getenv("LGPROF_SANITIZER") and 400000 or 100000

    it("as the profile and as the executable: one line, status 1, little memory", function()
      if not HAVE_TIME then pending("/usr/bin/time not installed") return end
      local big = tmp .. "/sparse"
      assert(os.execute("truncate -s 2G " .. q(big)))
      -- a real profile followed by zeros: the zeros read as empty histogram records
      local big2 = put("sparse-gmon", gmon)
      assert(os.execute("truncate -s 2G " .. q(big2)))
      for _, c in ipairs({ { EXE, big, big }, { big, GMON, big }, { EXE, big2, big2 } }) do
        local status, out, err, kb = run_rss({ c[1], c[2] })
        one_line_error(c[3], status, out, err)
        assert.is_true(kb ~= nil and kb < LIMIT_KB, "peak RSS " .. tostring(kb) .. " KB")
      end
    end)

    it("a real executable padded to 2 GB: the same report", function()
      if not HAVE_TIME then pending("/usr/bin/time not installed") return end
      local exe = tmp .. "/padded"
      assert(os.execute("cp " .. q(EXE) .. " " .. q(exe) .. " && truncate -s 2G " .. q(exe)))
      local _, want = lg({ EXE, GMON })
      local status, out, err, kb = run_rss({ exe, GMON })
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal(want, out)
      assert.is_true(kb ~= nil and kb < LIMIT_KB, "peak RSS " .. tostring(kb) .. " KB")
    end)
  end)
end)
