-- The three gmon.out formats (GNU tagged, 4.4BSD, old BSD) in every address
-- width and byte order, merging of several files, the -s round trip, and
-- gprof's local-symbol name filter (with its read-past-the-NUL quirk).
--
-- Data are written with spec/helpers/gmonwriter.lua; 32-bit executables
-- (big-endian PowerPC, little-endian i386) are written with
-- spec/helpers/elfwriter.lua. Where /usr/bin/gprof is installed it is used
-- as the oracle for the same inputs.

local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, gw, ew = H.fixtures, H.util, H.cmd, H.gmonwriter, H.elfwriter

local slurp = util.slurp
local run, lg, gprof = cmd.run, cmd.lgprof, cmd.gprof
local HAVE_GPROF = cmd.HAVE_GPROF

-- (run, lg and gprof take opts.cwd: the directory to run in)
local function at(dir) return dir and { cwd = dir } end

-- Everything lgprof.open exposes about the gmon data, as plain tables.
local function snapshot(p)
  local arcs = {}
  for a in p:arcs() do
    arcs[#arcs + 1] = { a.caller.symbol, a.callee.symbol, a.count }
  end
  return {
    hist = p:histograms(), arcs = arcs, hz = p.hz,
    have_histogram = p.have_histogram, have_call_graph = p.have_call_graph,
  }
end

local function open_ok(exe, gmon, options)
  local p, err = lgprof.open(exe, gmon, options)
  assert(p, "lgprof.open failed: " .. tostring(err))
  return p
end

-- arcs as "caller>callee" -> count (order independent)
local arc_map = H.profile.arc_map

-- gmonwriter format -> lgprof.open format, -O letter
local FORMATS = {
  { gw = "gnu", api = "magic", opt = "m" },
  { gw = "bsd44", api = "4.4bsd", opt = "4" },
  { gw = "oldbsd", api = "bsd", opt = "b" },
}

local copy = util.copy

---------------------------------------------------------------------------
-- 32-bit executables made with elfwriter
---------------------------------------------------------------------------

-- Routines at fixed offsets from the start of .text (0x1000 bytes). The
-- trailing global NOTYPE "etext" plays the part of the real one: gprof
-- credits no samples to the last symbol of its table.
local FUNCS = {
  { name = "main", off = 0x000, bind = "global" },
  { name = "alpha", off = 0x100, bind = "global" },
  { name = "beta", off = 0x400, bind = "global" },
  { name = "gamma", off = 0x800, bind = "local" },
  { name = "delta", off = 0xC00, bind = "weak" },
}
local TEXT_SIZE = 0x1000

local function make_elf32(path, endian, machine, text)
  local syms = {}
  for _, f in ipairs(FUNCS) do
    syms[#syms + 1] = { name = f.name, addr = text + f.off, bind = f.bind, type = "func" }
  end
  syms[#syms + 1] = { name = "etext", addr = text + TEXT_SIZE, bind = "global", type = "notype" }
  return ew.write(path, {
    class = 32, endian = endian, machine = machine,
    text_addr = text, text_size = TEXT_SIZE, symbols = syms,
  })
end

-- Counts with two different non-zero bytes, so that a byte-order mistake
-- cannot go unnoticed. Bin numbers are 1-based; one bin = 2 bytes.
local SAMPLES = { -- function, byte offset inside it, count
  { "main", 0x10, 0x0102 },
  { "alpha", 0x20, 0x0301 },
  { "alpha", 0x22, 0x0005 },
  { "beta", 0x3fe, 0x0403 }, -- last bin of beta
  { "gamma", 0x000, 0x0605 }, -- first bin of gamma
  { "delta", 0x3fe, 0x1234 }, -- last bin of .text
}
local ARCS = { -- caller, offset of the call site, callee, count
  { "main", 0x24, "alpha", 0x00010203 },
  { "main", 0x30, "beta", 2 },
  { "alpha", 0x41, "gamma", 0x01000001 },
  { "beta", 0x17, "delta", 5 },
  { "gamma", 0x3ff, "alpha", 1 },
  { "main", 0x24, "alpha", 7 }, -- same arc again: summed
}

local function func_off(name)
  for _, f in ipairs(FUNCS) do if f.name == name then return f.off end end
  error("no function " .. name)
end

local function data32(text)
  local h = { low = text, high = text + TEXT_SIZE, n_bins = TEXT_SIZE // 2, rate = 100, bins = {} }
  for _, s in ipairs(SAMPLES) do
    local bin = (func_off(s[1]) + s[2]) // 2 + 1
    h.bins[bin] = (h.bins[bin] or 0) + s[3]
  end
  local arcs = {}
  for _, a in ipairs(ARCS) do
    arcs[#arcs + 1] = { from = text + func_off(a[1]) + a[2], to = text + func_off(a[3]), count = a[4] }
  end
  return { hist = { h }, arcs = arcs }
end

local function expected_flat()
  local t = {}
  for _, s in ipairs(SAMPLES) do t[s[1]] = (t[s[1]] or 0) + s[3] end
  return t
end

local function expected_arcs(mult)
  local t = {}
  for _, a in ipairs(ARCS) do
    local k = a[1] .. ">" .. a[3]
    t[k] = (t[k] or 0) + a[4] * (mult or 1)
  end
  return t
end

local function readelf_ok(path)
  local status, out, err = run({ "readelf", "-a", path })
  return status == 0 and err == "" and #out > 0, err
end

---------------------------------------------------------------------------

describe("gmon formats", function()
  local tmpdir = util.block_tmpdir("lgprof-formats")

  describe("x86-64 little-endian fixture (classic, O0g-pie)", function()
    local fixture, data, files

    setup(function()
      fixture = assert(fx.build("classic", "O0g-pie"))
      data = fx.gmon_data(fixture)
      files = {}
      for _, f in ipairs(FORMATS) do
        files[f.gw] = tmpdir() .. "/classic." .. f.gw
        gw.write(files[f.gw], data, { format = f.gw, bits = 64, endian = "little" })
      end
    end)

    -- (run 1 has samples: one of the fixture's needs, helpers/fixtures.lua)
    it("the test data has a histogram and arcs", function()
      assert.equal(1, #data.hist)
      assert.is_true(#data.arcs > 0)
      local nonzero = 0
      for _, v in pairs(data.hist[1].bins) do if v ~= 0 then nonzero = nonzero + 1 end end
      assert.is_true(nonzero > 0)
    end)

    it("the GNU encoding is byte-identical to glibc's own file", function()
      assert.equal(gw.read(fixture.gmon[1]), gw.read(files.gnu))
    end)

    it("all three formats load identically through lgprof.open", function()
      local ref = snapshot(open_ok(fixture.exe, fixture.gmon[1]))
      assert.is_true(ref.have_histogram)
      assert.is_true(ref.have_call_graph)
      assert.equal(100, ref.hz)
      for _, f in ipairs(FORMATS) do
        assert.same(ref, snapshot(open_ok(fixture.exe, files[f.gw])), f.gw .. " (auto)")
        assert.same(ref, snapshot(open_ok(fixture.exe, files[f.gw], { format = f.api })),
          f.gw .. " (format " .. f.api .. ")")
      end
    end)

    it("all three formats give the same lgprof -b output", function()
      local st, ref, err = lg({ "-b", fixture.exe, fixture.gmon[1] })
      assert.equal(0, st, err)
      assert.equal("", err)
      assert.truthy(ref:find("Flat profile", 1, true))
      for _, f in ipairs(FORMATS) do
        local s1, o1, e1 = lg({ "-b", fixture.exe, files[f.gw] })
        assert.equal(0, s1, e1)
        assert.equal(ref, o1, f.gw)
        local s2, o2, e2 = lg({ "-b", "-O", f.opt, fixture.exe, files[f.gw] })
        assert.equal(0, s2, e2)
        assert.equal(ref, o2, f.gw .. " -O " .. f.opt)
      end
    end)

    it("lgprof -b equals gprof -b on each format", function()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      for _, f in ipairs(FORMATS) do
        local gs, gout = gprof({ "-b", fixture.exe, files[f.gw] })
        local ls, lout = lg({ "-b", fixture.exe, files[f.gw] })
        assert.equal(gs, ls, f.gw)
        assert.equal(gout, lout, f.gw)
      end
    end)

    it("-O magic rejects a BSD file and -O 4.4bsd rejects an old BSD file", function()
      local p, err = lgprof.open(fixture.exe, files.bsd44, { format = "magic" })
      assert.is_nil(p)
      assert.equal(files.bsd44 .. ": ", err:sub(1, #files.bsd44 + 2))
      p, err = lgprof.open(fixture.exe, files.oldbsd, { format = "4.4bsd" })
      assert.is_nil(p)
      assert.equal(files.oldbsd .. ": ", err:sub(1, #files.oldbsd + 2))
    end)
  end)

  for _, variant in ipairs({
    { label = "32-bit big-endian (EM_PPC)", endian = "big", machine = ew.EM_PPC, text = 0x10000000 },
    { label = "32-bit little-endian (EM_386)", endian = "little", machine = ew.EM_386, text = 0x08049000 },
  }) do
    describe(variant.label, function()
      local exe, files, data

      setup(function()
        exe = tmpdir() .. "/elf32" .. variant.endian
        make_elf32(exe, variant.endian, variant.machine, variant.text)
        data = data32(variant.text)
        files = {}
        for _, f in ipairs(FORMATS) do
          files[f.gw] = tmpdir() .. "/elf32" .. variant.endian .. ".gmon." .. f.gw
          gw.write(files[f.gw], data, { format = f.gw, bits = 32, endian = variant.endian })
        end
      end)

      it("elfwriter's executable is accepted by readelf -a", function()
        local ok, err = readelf_ok(exe)
        assert.is_true(ok, err)
        local _, out = run({ "readelf", "-h", exe })
        assert.truthy(out:find("ELF32", 1, true))
        assert.truthy(out:find(variant.endian == "big" and "big endian" or "little endian", 1, true))
        assert.truthy(out:find("EXEC", 1, true))
        local _, syms = run({ "readelf", "-s", exe })
        for _, f in ipairs(FUNCS) do
          assert.truthy(syms:find("FUNC%s+" .. f.bind:upper() .. "%s+DEFAULT%s+1 " .. f.name), f.name)
        end
      end)

      it("lgprof reads the executable's width and byte order", function()
        local p = open_ok(exe, files.gnu)
        assert.equal(32, p.address_bits)
        assert.equal(variant.endian == "big", p.big_endian)
        assert.equal(variant.text, p.text_start)
        assert.equal(variant.text + TEXT_SIZE, p.text_end)
        local names = {}
        for f in p:symbols() do names[#names + 1] = f.symbol end
        assert.same({ "main", "alpha", "beta", "gamma", "delta", "etext" }, names)
      end)

      for _, f in ipairs(FORMATS) do
        it("reads the " .. f.gw .. " format: histogram, bins per function, arcs", function()
          for _, options in ipairs({ {}, { format = f.api } }) do
            local p = open_ok(exe, files[f.gw], options)
            assert.is_true(p.have_histogram)
            assert.is_true(p.have_call_graph)
            assert.equal(100, p.hz)
            local h = p:histograms()
            assert.equal(1, #h)
            assert.equal(variant.text, h[1].low)
            assert.equal(variant.text + TEXT_SIZE, h[1].high)
            assert.equal(TEXT_SIZE // 2, h[1].nbins)
            assert.equal(100, h[1].rate)
            assert.same(data.hist[1].bins, h[1].samples)
            -- one bin = one 2-byte unit exactly: each count goes to one function
            local want = expected_flat()
            for fn in p:symbols() do
              local ticks = want[fn.symbol] or 0
              assert.near(ticks / 100, fn.flat_self, 1e-9, fn.symbol)
            end
            assert.same(expected_arcs(), arc_map(p))
            local calls = {}
            for _, a in ipairs(ARCS) do calls[a[3]] = (calls[a[3]] or 0) + a[4] end
            for fn in p:symbols() do
              assert.equal(calls[fn.symbol] or 0, fn.calls, fn.symbol)
            end
          end
        end)
      end

      it("all three formats load identically (lgprof.open and lgprof -b)", function()
        local ref = snapshot(open_ok(exe, files.gnu))
        local st, bref, err = lg({ "-b", exe, files.gnu })
        assert.equal(0, st, err)
        assert.equal("", err)
        for _, name in ipairs({ "main", "alpha", "beta", "gamma", "delta" }) do
          assert.truthy(bref:find(name, 1, true), name)
        end
        for _, f in ipairs(FORMATS) do
          assert.same(ref, snapshot(open_ok(exe, files[f.gw])), f.gw)
          local s, o, e = lg({ "-b", exe, files[f.gw] })
          assert.equal(0, s, e)
          assert.equal(bref, o, f.gw)
        end
      end)

      it("the other byte order is not read as valid data", function()
        local other = variant.endian == "big" and "little" or "big"
        local wrong = tmpdir() .. "/elf32" .. variant.endian .. ".wrong"
        gw.write(wrong, data, { format = "gnu", bits = 32, endian = other })
        local p, err = lgprof.open(exe, wrong)
        assert.is_nil(p)
        assert.equal(wrong .. ": ", err:sub(1, #wrong + 2))
      end)

      it("lgprof -b equals gprof -b on each format", function()
        if not cmd.HAVE_GPROF then return pending("gprof not installed") end
        local gs, _, gerr = gprof({ "-b", exe, files.gnu })
        if gs ~= 0 and gerr:find("format", 1, true) then
          pending("gprof cannot read this target: " .. gerr)
          return
        end
        for _, f in ipairs(FORMATS) do
          local s1, gout, e1 = gprof({ "-b", exe, files[f.gw] })
          local s2, lout, e2 = lg({ "-b", exe, files[f.gw] })
          assert.equal(0, s1, e1)
          assert.equal(0, s2, e2)
          assert.equal(gout, lout, f.gw)
        end
      end)
    end)
  end

  describe("merging", function()
    local exe, text = nil, 0x10000000

    setup(function()
      exe = tmpdir() .. "/merge.ppc"
      make_elf32(exe, "big", ew.EM_PPC, text)
    end)

    local function write32(name, data, format)
      local path = tmpdir() .. "/" .. name
      gw.write(path, data, { format = format or "gnu", bits = 32, endian = "big" })
      return path
    end

    for _, pair in ipairs({ { "gnu", "gnu" }, { "bsd44", "bsd44" }, { "oldbsd", "oldbsd" }, { "gnu", "bsd44" } }) do
      it("sums two files with identical histogram ranges (" .. pair[1] .. " + " .. pair[2] .. ")", function()
        local d = data32(text)
        local g1 = write32("m1." .. pair[1], d, pair[1])
        local g2 = write32("m2." .. pair[2], d, pair[2])
        local doubled = copy(d)
        for k, v in pairs(doubled.hist[1].bins) do doubled.hist[1].bins[k] = 2 * v end
        for _, a in ipairs(doubled.arcs) do a.count = 2 * a.count end
        local gd = write32("m12.gnu", doubled, "gnu")

        local p = open_ok(exe, { g1, g2 })
        local h = p:histograms()
        assert.equal(1, #h)
        assert.same(doubled.hist[1].bins, h[1].samples)
        assert.same(expected_arcs(2), arc_map(p))
        local info = p:file_info()
        assert.equal(2, #info)
        assert.equal(g1, info[1].path)
        assert.equal(g2, info[2].path)
        assert.equal(#d.arcs, info[2].arcs)
        assert.same(snapshot(open_ok(exe, gd)), snapshot(p))

        local s1, o1, e1 = lg({ "-b", exe, g1, g2 })
        local s2, o2, e2 = lg({ "-b", exe, gd })
        assert.equal(0, s1, e1)
        assert.equal(0, s2, e2)
        assert.equal(o2, o1)
      end)
    end

    it("keeps disjoint histogram ranges of GNU files as separate records", function()
      local d = data32(text)
      local lo, hi = copy(d), copy(d)
      lo.hist[1].high, lo.hist[1].n_bins, lo.hist[1].bins = text + 0x800, 0x400, {}
      hi.hist[1].low, hi.hist[1].n_bins, hi.hist[1].bins = text + 0x800, 0x400, {}
      for k, v in pairs(d.hist[1].bins) do
        if k <= 0x400 then lo.hist[1].bins[k] = v else hi.hist[1].bins[k - 0x400] = v end
      end
      hi.arcs = {}
      local g1, g2 = write32("lo.gnu", lo), write32("hi.gnu", hi)
      local p = open_ok(exe, { g1, g2 })
      local h = p:histograms()
      assert.equal(2, #h)
      local want = expected_flat()
      for fn in p:symbols() do
        assert.near((want[fn.symbol] or 0) / 100, fn.flat_self, 1e-9, fn.symbol)
      end
      assert.same(snapshot(open_ok(exe, write32("whole.gnu", d))).arcs, snapshot(p).arcs)
    end)

    it("rejects overlapping but different histogram ranges", function()
      local d = data32(text)
      local part = copy(d)
      part.hist[1].low, part.hist[1].n_bins, part.hist[1].bins = text + 0x800, 0x400, { [1] = 1 }
      local g1, g2 = write32("full.gnu", d), write32("part.gnu", part)
      local err = H.profile.refused(exe, { g1, g2 }, g2)
      assert.truthy(err:find("overlap", 1, true), err)
    end)

    it("rejects a 4.4BSD file whose range differs from the first one", function()
      local d = data32(text)
      local other = copy(d)
      other.hist[1].low, other.hist[1].n_bins, other.hist[1].bins = text + 0x800, 0x400, {}
      local g1, g2 = write32("first.bsd44", d, "bsd44"), write32("second.bsd44", other, "bsd44")
      H.profile.refused(exe, { g1, g2 }, g2)
    end)

    it("sums the arcs of several files (x86-64 fixture, three runs)", function()
      local fixture = assert(fx.build("classic", "O0g-pie"))
      local want = {}
      for _, g in ipairs(fixture.gmon) do
        for k, v in pairs(arc_map(open_ok(fixture.exe, g))) do want[k] = (want[k] or 0) + v end
      end
      assert.same(want, arc_map(open_ok(fixture.exe, fixture.gmon)))
    end)
  end)

  describe("-s round trip", function()
    local function sum_dir(name)
      return util.mkdir(tmpdir() .. "/" .. name)
    end

    it("gmon.sum of the three fixture runs reads like the three runs", function()
      local fixture = assert(fx.build("classic", "O0g-pie"))
      local dir = sum_dir("sum-classic")
      local args = { "-s", fixture.exe }
      for _, g in ipairs(fixture.gmon) do args[#args + 1] = g end
      local st, out, err = lg(args, at(dir))
      assert.equal(0, st, err)
      assert.equal("", out)
      assert.equal("", err)
      local sum = dir .. "/gmon.sum"
      assert.truthy(slurp(sum))

      local b1 = { "-b", fixture.exe }
      for _, g in ipairs(fixture.gmon) do b1[#b1 + 1] = g end
      local s1, o1 = lg(b1)
      local s2, o2 = lg({ "-b", fixture.exe, sum })
      assert.equal(0, s1)
      assert.equal(0, s2)
      assert.equal(o1, o2)

      local p1, p2 = open_ok(fixture.exe, fixture.gmon), open_ok(fixture.exe, sum)
      assert.same(p1:histograms(), p2:histograms())
      assert.same(arc_map(p1), arc_map(p2))
      if HAVE_GPROF then
        local gb = { "-b", fixture.exe }
        for _, g in ipairs(fixture.gmon) do gb[#gb + 1] = g end
        local _, go1 = gprof(gb)
        local _, go2 = gprof({ "-b", fixture.exe, sum })
        assert.equal(go1, go2)
      end
    end)

    -- counts that do not fit one record: 3 x 60000 per bin, 3 x (2^32-1) per arc
    local BIG_BIN, BIG_ARC = 60000, 0xFFFFFFFF

    local function big_round_trip(exe, data, opts, dir)
      local paths = {}
      for i = 1, 3 do
        paths[i] = dir .. "/big" .. i .. ".gmon"
        gw.write(paths[i], data, opts)
      end
      local st, out, err = lg({ "-s", exe, paths[1], paths[2], paths[3] }, at(dir))
      assert.equal(0, st, err)
      assert.equal("", out)
      local sum = dir .. "/gmon.sum"
      local p1 = open_ok(exe, paths)
      local p2 = open_ok(exe, sum)
      local h1, h2 = p1:histograms(), p2:histograms()
      assert.same(h1, h2)
      assert.same(arc_map(p1), arc_map(p2))
      local s1, o1 = lg({ "-b", exe, paths[1], paths[2], paths[3] })
      local s2, o2 = lg({ "-b", exe, sum })
      assert.equal(0, s1)
      assert.equal(0, s2)
      assert.equal(o1, o2)
      -- the writer split the big counts into several records
      local dec = gw.decode(gw.read(sum), { bits = opts.bits, endian = opts.endian })
      assert.equal("gnu", dec.format)
      assert.is_true(#dec.hist >= 3, "histogram records in gmon.sum: " .. #dec.hist)
      for _, h in ipairs(dec.hist) do
        for _, v in pairs(h.bins) do assert.is_true(v <= 65535) end
      end
      return p2, dec
    end

    it("keeps counts beyond 16 bits per bin and 32 bits per arc (x86-64)", function()
      local fixture = assert(fx.build("classic", "O0g-pie"))
      local d = fx.gmon_data(fixture)
      local one <close> = open_ok(fixture.exe, fixture.gmon[1])
      local bin = gw.bin_for(d.hist[1], one:find("main").address) -- sampled or not
      d.hist[1].bins[bin] = BIG_BIN
      d.arcs[1].count = BIG_ARC
      local p, dec = big_round_trip(fixture.exe, d, { format = "gnu", bits = 64, endian = "little" },
        sum_dir("sum-big64"))
      assert.equal(3 * BIG_BIN, p:histograms()[1].samples[bin])
      local biggest = 0
      for a in p:arcs() do biggest = math.max(biggest, a.count) end
      assert.is_true(biggest >= 3 * BIG_ARC, "largest arc count " .. biggest)
      local parts = 0
      for _, a in ipairs(dec.arcs) do if a.count == BIG_ARC then parts = parts + 1 end end
      assert.is_true(parts >= 2, "arc records of 2^32-1 in gmon.sum: " .. parts)
    end)

    it("keeps counts beyond 16 bits per bin and 32 bits per arc (32-bit big-endian)", function()
      local text = 0x10000000
      local dir = sum_dir("sum-big32")
      local exe = dir .. "/ppc"
      make_elf32(exe, "big", ew.EM_PPC, text)
      local d = data32(text)
      local bin = (func_off("beta") + 0x10) // 2 + 1
      d.hist[1].bins[bin] = BIG_BIN
      d.arcs[2].count = BIG_ARC -- main -> beta
      local p, dec = big_round_trip(exe, d, { format = "gnu", bits = 32, endian = "big" }, dir)
      assert.equal(3 * BIG_BIN, p:histograms()[1].samples[bin])
      assert.equal(3 * BIG_ARC, arc_map(p)["main>beta"])
      local beta_calls
      for fn in p:symbols() do if fn.symbol == "beta" then beta_calls = fn.calls end end
      assert.equal(3 * BIG_ARC, beta_calls)
      local parts = 0
      for _, a in ipairs(dec.arcs) do
        if a.to == text + func_off("beta") then parts = parts + 1 end
      end
      assert.is_true(parts >= 3, "arc records main->beta in gmon.sum: " .. parts)
      assert.is_true(#dec.hist >= 3)
    end)
  end)

  describe("local-name filter quirk (strtab scan past the NUL)", function()
    local TEXT = 0x401000

    -- An x86-64 executable whose .strtab holds the names in exactly the given
    -- order; entries are { name, bind }. Each symbol gets its own 0x40 bytes.
    local function quirk_exe(name, entries)
      local path = tmpdir() .. "/" .. name
      local syms, order = {}, {}
      for i, e in ipairs(entries) do
        syms[#syms + 1] = { name = e[1], addr = TEXT + 0x40 * (i - 1), bind = e[2] or "local",
          type = e[3] or "func", section = e[4] }
        order[#order + 1] = e[1]
      end
      ew.write(path, { class = 64, endian = "little", machine = ew.EM_X86_64,
        text_addr = TEXT, text_size = 0x1000, symbols = syms, strtab_order = order })
      local gmon = path .. ".gmon"
      gw.write(gmon, { hist = { { low = TEXT, high = TEXT + 0x1000, n_bins = 0x800, rate = 100,
        bins = { [1] = 1 } } } })
      return path, gmon
    end

    local function strtab_strings(path)
      local _, out = run({ "readelf", "-p", ".strtab", path })
      local t = {}
      for s in out:gmatch("%[%s*%x+%]%s+([^\n]+)") do t[#t + 1] = s end
      return t
    end

    local function lgprof_syms(exe, gmon)
      local p = open_ok(exe, gmon)
      local names, lines = {}, {}
      for f in p:symbols() do
        names[#names + 1] = f.symbol
        lines[#lines + 1] = ("0x%x-0x%x\t%s"):format(f.address, f.end_address, f.symbol)
      end
      return names, lines
    end

    local function gprof_syms(exe, gmon)
      local st, out, err = gprof({ "-d128", exe, gmon })
      assert.equal(0, st, err)
      local lines = {}
      for l in out:gmatch("%[symtab_finalize%] (0x[^\n]*)") do lines[#lines + 1] = l end
      return lines
    end

    local CASES = {
      {
        label = "ab.1, cd.2, zz.q: all three rejected",
        entries = { { "main", "global" }, { "ab.1" }, { "cd.2" }, { "zz.q" } },
        want = { "main" },
      },
      {
        label = "ab.1, ef.constprop.0, __bss_start: the first two accepted",
        entries = { { "main", "global" }, { "ab.1" }, { "ef.constprop.0" },
          { "__bss_start", "global", "notype", "abs" } },
        want = { "main", "ab.1", "ef.constprop.0" },
      },
      {
        label = ".part/.isra/.cold always rejected, .constprop/.clone accepted before a plain name",
        entries = { { "main", "global" },
          { "foo.part.0" }, { "n1", "global" }, { "foo.isra.0" }, { "n2", "global" },
          { "foo.cold" }, { "n3", "global" }, { "foo.constprop.0" }, { "n4", "global" },
          { "foo.clone.3" }, { "n5", "global" } },
        want = { "main", "n1", "n2", "n3", "foo.constprop.0", "n4", "foo.clone.3", "n5" },
      },
      {
        label = "a dotted-digit name takes the verdict of the strings after it",
        entries = { { "main", "global" },
          { "c1.constprop.0" }, { "x.part.1" },    -- both rejected
          { "d1.7" }, { "q$r" },                   -- both rejected ('$')
          { "e1.2.3" }, { "plain" },               -- both accepted
          { "f1.4" }, { "g1.5" }, { "h1.x" },      -- all three rejected
          { "tail", "global" } },
        want = { "main", "e1.2.3", "plain", "tail" },
      },
    }

    for ci, c in ipairs(CASES) do
      it(c.label, function()
        local exe, gmon = quirk_exe("quirk" .. ci, c.entries)
        local ok, rerr = readelf_ok(exe)
        assert.is_true(ok, rerr)
        local order = {}
        for i, e in ipairs(c.entries) do order[i] = e[1] end
        assert.same(order, strtab_strings(exe))
        local names, lines = lgprof_syms(exe, gmon)
        assert.same(c.want, names)
        if HAVE_GPROF then
          assert.same(gprof_syms(exe, gmon), lines)
        end
      end)
    end
  end)
end)
