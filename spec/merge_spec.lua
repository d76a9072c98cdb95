-- lgprof merge / lgprof.merge: one summed profile file, as gprof -s writes it
-- but with the arc records sorted, so that merging is associative (and
-- commutative) byte for byte, and the merged file reads as the inputs do.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, gw, ew = H.fixtures, H.util, H.cmd, H.gmonwriter, H.elfwriter
local oracle = require "helpers.oracle"

local PROGRAMS = { "classic", "cycles", "hub300", "cxx_virtual", "samename", "selfrec" }
local VARIANTS = { "O0g-nopie", "O2-pie" }

local function merge(exe, inputs, out)
  local status, o, e = cmd.lgprof({ "merge", "-o", out, exe, table.unpack(inputs) })
  assert(status == 0, cmd.show(status, o, e))
  assert(o == "" and e == "", cmd.show(status, o, e))
  return assert(util.slurp(out))
end

-- decoded arcs in file order, as { from, to, count }
local function arcs_of(bytes)
  local t = {}
  for i, a in ipairs(gw.decode(bytes).arcs) do t[i] = { a.from, a.to, a.count } end
  return t
end

local function stat(fmt, path)
  return (util.read_cmd(("stat -c %s %s"):format(fmt, fx.shquote(path))):gsub("%s+$", ""))
end

-- decoded arcs, sorted by (from, to, count)
local function sorted_arcs(data)
  local arcs = {}
  for i, a in ipairs(data.arcs) do arcs[i] = { a.from, a.to, a.count } end
  table.sort(arcs, function(x, y)
    if x[1] ~= y[1] then return x[1] < y[1] end
    if x[2] ~= y[2] then return x[2] < y[2] end
    return x[3] < y[3]
  end)
  return arcs
end

describe("lgprof merge", function()
  local tmp
  setup(function() tmp = util.mktempdir("lgprof-merge") end)
  teardown(function() util.rmtree(tmp) end)

  for _, name in ipairs(PROGRAMS) do
    for _, variant in ipairs(VARIANTS) do
      describe(name .. "/" .. variant, function()
        local b
        setup(function() b = assert(fx.build(name, variant)) end)
        local function path(f) return ("%s/%s-%s-%s"):format(tmp, name, variant, f) end

        it("is associative and commutative, byte for byte", function()
          local a, bb, c = table.unpack(b.gmon)
          merge(b.exe, { a, bb }, path("ab"))
          local ab_c = merge(b.exe, { path("ab"), c }, path("ab_c"))
          merge(b.exe, { bb, c }, path("bc"))
          local a_bc = merge(b.exe, { a, path("bc") }, path("a_bc"))
          local abc = merge(b.exe, { a, bb, c }, path("abc"))
          local cab = merge(b.exe, { c, a, bb }, path("cab"))
          assert.is_true(ab_c == a_bc, "merge(merge(a,b),c) ~= merge(a,merge(b,c))")
          assert.is_true(abc == ab_c, "merge(a,b,c) ~= merge(merge(a,b),c)")
          assert.is_true(cab == abc, "merge(c,a,b) ~= merge(a,b,c)")
          assert.is_true(#abc > 20)
        end)

        -- Reports are not compared: the merged file lists the arcs in
        -- another order, so gprof's propagation sums the children's time in
        -- another order, and a share on a rounding boundary can print one
        -- digit apart. What is exact is compared, and the report on the
        -- merged file is gprof's on it.
        it("reads as its inputs: same samples, calls and arcs", function()
          local merged = merge(b.exe, b.gmon, path("m"))
          assert.is_true(#merged > 20)
          local m <close> = assert(lgprof.open(b.exe, path("m")))
          local all <close> = assert(lgprof.open(b.exe, b.gmon))
          local function facts(p)
            local t = {}
            for fn in p:symbols() do
              t[("%x"):format(fn.address)] = { fn.symbol, fn.flat_self, fn.calls, fn.self_calls }
            end
            return t
          end
          assert.same(facts(all), facts(m))
          assert.same(H.profile.arc_map(all, "address"), H.profile.arc_map(m, "address"))
          assert.equal(all.total_time, m.total_time)
          assert.equal(all.arc_count, m.arc_count)
          -- the histograms: the three summed bin by bin
          local sum = gw.decode(util.slurp(b.gmon[1])).hist
          for r = 2, 3 do
            for i, h in ipairs(gw.decode(util.slurp(b.gmon[r])).hist) do
              for k, v in ipairs(h.bins) do sum[i].bins[k] = sum[i].bins[k] + v end
            end
          end
          assert.same(sum, gw.decode(merged).hist)
        end)

        it("reports as gprof does on the merged file", function()
          if not cmd.HAVE_GPROF then return pending("gprof not installed") end
          merge(b.exe, b.gmon, path("mg"))
          local args = { "-b", b.exe, path("mg") }
          local theirs = oracle.gprof_many(tmp, { { args = args } }, { b.exe, path("mg") })[1]
          assert.equal(0, theirs.rc, theirs.err)
          local status, out, err = cmd.lgprof(args)
          assert.equal(0, status, cmd.show(status, out, err))
          assert.equal(theirs.out, out)
        end)

        it("holds what gprof -s writes: same header and histograms, same arcs", function()
          if not cmd.HAVE_GPROF then return pending("gprof not installed") end
          local dir = util.mkdir(path("gprof"))
          local status, out, err = cmd.gprof({ "-s", b.exe, table.unpack(b.gmon) }, { cwd = dir })
          assert(status == 0, cmd.show(status, out, err))
          local theirs = assert(util.slurp(dir .. "/gmon.sum"))
          local ours = merge(b.exe, b.gmon, path("ours"))
          assert.equal(#theirs, #ours)
          local t, o = gw.decode(theirs), gw.decode(ours)
          assert.equal(t.version, o.version)
          assert.equal(t.spare, o.spare)
          assert.same(t.hist, o.hist)
          assert.same(t.bb, o.bb)
          assert.same(sorted_arcs(t), sorted_arcs(o))
          -- and ours are in sorted order
          local ordered = {}
          for i, a in ipairs(o.arcs) do ordered[i] = { a.from, a.to, a.count } end
          assert.same(sorted_arcs(o), ordered)
          -- everything before the arcs (the last records: the fixtures have
          -- no basic-block counts; 21 bytes each on x86-64) is the same bytes
          assert.same({}, t.bb)
          local first_arc = #theirs - 21 * #t.arcs + 1
          assert.equal(1, theirs:byte(first_arc))
          assert.equal(theirs:sub(1, first_arc - 1), ours:sub(1, first_arc - 1))
        end)
      end)
    end
  end

  describe("lgprof.analysis.merge", function()
    local b
    setup(function() b = assert(fx.build("classic", "O0g-nopie")) end)

    it("writes the same file as the command", function()
      local out = tmp .. "/api.sum"
      assert.is_true(lgprof.merge(b.exe, b.gmon, out))
      assert.equal(merge(b.exe, b.gmon, tmp .. "/cmd.sum"), util.slurp(out))
      -- one path is one input
      assert.is_true(lgprof.merge(b.exe, b.gmon[1], out))
      assert.equal(merge(b.exe, { b.gmon[1] }, tmp .. "/cmd1.sum"), util.slurp(out))
    end)

    it("returns nil and a message for bad input", function()
      local ok, msg = lgprof.merge(b.exe, tmp .. "/no-such-gmon", tmp .. "/x.sum")
      assert.is_nil(ok)
      assert.equal(tmp .. "/no-such-gmon: ", msg:sub(1, #tmp + 15))
      ok, msg = lgprof.merge(b.exe, b.gmon, tmp .. "/no-such-dir/x.sum")
      assert.is_nil(ok)
      assert.matches("^" .. tmp:gsub("%p", "%%%0") .. "/no%-such%-dir/x%.sum: ", msg)
    end)

    it("raises on misuse", function()
      assert.has_error(function() lgprof.merge(b.exe, b.gmon) end)
      assert.has_error(function() lgprof.merge(b.exe, b.gmon, tmp .. "/y", "opts") end)
      assert.has_error(function() lgprof.merge(b.exe, b.gmon, tmp .. "/y", { bogus = true }) end)
    end)
  end)

  -- A synthesized executable (no line information: gprof's line symbols are
  -- then the functions) and three profiles of it, so that every record
  -- written is known from the definitions: arcs are summed per (caller,
  -- callee); gprof -s writes them by caller address, each caller's newest
  -- first; canonical order sorts the records by (from, to, count); a count
  -- over 2^32 - 1 is written as 2^32 - 1 and the rest.
  describe("synthesized profiles", function()
    local T, MAIN, ALPHA, BETA = 0x401000, 0x401000, 0x401100, 0x401400
    local dir, exe
    -- gmon file `name` whose main -> alpha arc has count `c`
    local function gmon(name, c)
      local path = dir .. "/" .. name
      gw.write(path, {
        hist = { { low = T, high = T + 0x1000, n_bins = 0x800, rate = 100, bins = { [3] = 4, [0x205] = 1 } } },
        arcs = { { from = BETA + 0x30, to = ALPHA, count = 3 },
                 { from = MAIN + 0x24, to = ALPHA, count = c },
                 { from = MAIN + 0x30, to = BETA, count = 2 } } })
      return path
    end
    local function sum(canonical, ...)
      local out = dir .. "/out/sum"
      local p <close> = assert(lgprof.open(exe, { ... }, { granularity = "line" }))
      assert.is_true(p:write_gmon(out, canonical ~= nil and { canonical = canonical } or nil))
      return assert(util.slurp(out))
    end
    setup(function()
      dir = tmp .. "/synth dir-1"
      assert(util.exec_ok("mkdir -p " .. fx.shquote(dir .. "/out")))
      exe = dir .. "/exe"
      ew.write(exe, { class = 64, endian = "little", machine = ew.EM_X86_64, text_addr = T, text_size = 0x1000,
        symbols = { { name = "main", addr = MAIN }, { name = "alpha", addr = ALPHA },
                    { name = "beta", addr = BETA }, { name = "etext", addr = T + 0x1000, type = "notype" } } })
    end)

    it("write_gmon: gprof -s's bytes by default and with canonical = false; sorted arcs with canonical = true",
      function()
        local a, b, c = gmon("a", 1), gmon("b", 5), gmon("c", 7)
        local plain, off, on = sum(nil, a, b, c), sum(false, a, b, c), sum(true, a, b, c)
        assert.same({ { MAIN, BETA, 6 }, { MAIN, ALPHA, 13 }, { BETA, ALPHA, 9 } }, arcs_of(plain))
        assert.same({ { MAIN, ALPHA, 13 }, { MAIN, BETA, 6 }, { BETA, ALPHA, 9 } }, arcs_of(on))
        assert.equal(plain, off)
        -- everything but the order of the three 21-byte arc records is the same
        assert.equal(#plain, #on)
        assert.equal(plain:sub(1, -64), on:sub(1, -64))
        assert.equal(1, on:byte(-63))
        if not util.exec_ok("command -v gprof >/dev/null 2>&1") then
          pending("gprof not installed")
          return
        end
        assert(util.exec_ok(("cd %s && gprof -s exe a b c >/dev/null 2>&1"):format(fx.shquote(dir))))
        assert.is_true(util.slurp(dir .. "/gmon.sum") == plain, "write_gmon's bytes differ from gprof -s's")
      end)

    it("splits counts over 32 bits into records that sort like any others; merging stays associative", function()
      local a, b, c = gmon("big-a", 0xFFFFFFFF), gmon("big-b", 5), gmon("big-c", 7)
      -- main -> alpha: 2^32 - 1 + 5 + 7 = (2^32 - 1) + 12
      assert.same({ { MAIN, BETA, 6 }, { MAIN, ALPHA, 0xFFFFFFFF }, { MAIN, ALPHA, 12 }, { BETA, ALPHA, 9 } },
        arcs_of(sum(nil, a, b, c)))
      local abc = sum(true, a, b, c)
      assert.same({ { MAIN, ALPHA, 12 }, { MAIN, ALPHA, 0xFFFFFFFF }, { MAIN, BETA, 6 }, { BETA, ALPHA, 9 } },
        arcs_of(abc))
      local ab, bc = dir .. "/big-ab", dir .. "/big-bc"
      assert.is_true(lgprof.merge(exe, { a, b }, ab))
      assert.is_true(lgprof.merge(exe, { b, c }, bc))
      local ab_c, a_bc = dir .. "/big-ab_c", dir .. "/big-a_bc"
      assert.is_true(lgprof.merge(exe, { ab, c }, ab_c))
      assert.is_true(lgprof.merge(exe, { a, bc }, a_bc))
      assert.is_true(util.slurp(ab_c) == abc, "merge(merge(a,b),c) ~= merge(a,b,c)")
      assert.is_true(util.slurp(a_bc) == abc, "merge(a,merge(b,c)) ~= merge(a,b,c)")
    end)

    describe("the output file is replaced at once", function()
      local out, good, bad
      before_each(function()
        out = dir .. "/replace"
        assert(util.exec_ok("rm -rf " .. fx.shquote(out) .. " && mkdir " .. fx.shquote(out)))
        good = gmon("good", 1)
        bad = dir .. "/bad"
        local data = gw.encode({ arcs = { { from = MAIN + 0x24, to = ALPHA, count = 1 } } })
        cmd.write(bad, gw.truncate(data, #data - 3)) -- the arc record cut short
      end)

      it("on success: a new file (an old one's hard link keeps the old bytes), nothing else", function()
        local target = out .. "/m.gmon"
        cmd.write(target, "old")
        assert(util.exec_ok(("ln %s %s"):format(fx.shquote(target), fx.shquote(out .. "/link"))))
        assert.is_true(lgprof.merge(exe, { good, good }, target))
        assert.equal("gmon", util.slurp(target):sub(1, 4))
        assert.equal("old", util.slurp(out .. "/link"))
        assert.same({ "link", "m.gmon" }, util.ls(out))
      end)

      it("on failure: the old file untouched, no temporary file left", function()
        local target = out .. "/m.gmon"
        cmd.write(target, "old")
        -- a bad second input
        local ok, msg = lgprof.merge(exe, { good, bad }, target)
        assert.is_nil(ok)
        assert.equal(bad .. ": ", msg:sub(1, #bad + 2))
        local status, o, e = cmd.lgprof({ "merge", "-o", target, exe, good, bad })
        assert.equal(bad .. ": ", cmd.one_line_error(1, status, o, e):sub(1, #bad + 2))
        -- a write that fails midway: files limited to one block (the
        -- histogram alone is 4 KB), the signal that would kill ignored
        status, o, e = cmd.lgprof({ "merge", "-o", target, exe, good }, { prefix = "trap '' XFSZ; ulimit -f 1; " })
        local want = target .. ": write error"
        assert.equal(want, cmd.one_line_error(1, status, o, e):sub(1, #want))
        -- a target that cannot be replaced: a directory (the file is
        -- written in full first, then the rename fails)
        local sub = out .. "/sub"
        assert(util.exec_ok("mkdir " .. fx.shquote(sub) .. " && touch " .. fx.shquote(sub .. "/x")))
        ok, msg = lgprof.merge(exe, { good }, sub)
        assert.is_nil(ok)
        assert.equal(sub .. ": ", msg:sub(1, #sub + 2))
        assert.same({ "x" }, util.ls(sub))
        -- a folder that does not exist
        local missing = out .. "/no-such-dir/m.gmon"
        ok, msg = lgprof.merge(exe, { good }, missing)
        assert.is_nil(ok)
        want = missing .. ": cannot open for writing"
        assert.equal(want, msg:sub(1, #want))
        assert.equal("old", util.slurp(target))
        assert.same({ "m.gmon", "sub" }, util.ls(out))
      end)

      it("keeps an old file's permissions; a new one gets what the umask gives", function()
        local target, fresh, ref = out .. "/m.gmon", out .. "/new.gmon", out .. "/ref"
        cmd.write(target, "old")
        assert(util.exec_ok("chmod 640 " .. fx.shquote(target)))
        assert.is_true(lgprof.merge(exe, { good }, target))
        assert.equal("640", stat("%a", target))
        cmd.write(ref, "") -- io.open: 0666 less the umask
        assert.is_true(lgprof.merge(exe, { good }, fresh))
        assert.equal(stat("%a", ref), stat("%a", fresh))
      end)
    end)

    it("write_gmon checks its options", function()
      local p <close> = assert(lgprof.open(exe, gmon("opt", 1)))
      local out = dir .. "/out/opt"
      assert.has_error(function() p:write_gmon(out, { bogus = true }) end,
        "bad argument #2 to 'write_gmon' (unknown option 'bogus')")
      assert.has_error(function() p:write_gmon(out, { canonical = 1 }) end,
        "bad argument #2 to 'write_gmon' (option 'canonical' must be a boolean)")
      assert.has_error(function() p:write_gmon(out, "canonical") end)
      assert.is_nil(util.slurp(out))
    end)
  end)

  describe("exit statuses", function()
    local b
    setup(function() b = assert(fx.build("classic", "O0g-nopie")) end)

    it("0: written, nothing printed", function()
      local out = tmp .. "/status0.sum"
      local status, o, e = cmd.lgprof({ "merge", b.exe, b.gmon[1], "--output=" .. out, b.gmon[2] })
      assert.equal(0, status, cmd.show(status, o, e))
      assert.equal("", o .. e)
      local m <close> = assert(lgprof.open(b.exe, out))
      local two <close> = assert(lgprof.open(b.exe, { b.gmon[1], b.gmon[2] }))
      assert.equal(two.total_time, m.total_time)
    end)

    it("1: a missing profile file, or an output that cannot be written", function()
      local missing = tmp .. "/no-such-gmon"
      local msg = cmd.one_line_error(1, cmd.lgprof({ "merge", "-o", tmp .. "/s1.sum", b.exe, missing }))
      assert.equal(missing .. ": ", msg:sub(1, #missing + 2))
      local bad = tmp .. "/no-such-dir/out.sum"
      msg = cmd.one_line_error(1, cmd.lgprof({ "merge", "-o", bad, b.exe, b.gmon[1] }))
      assert.equal(bad .. ": ", msg:sub(1, #bad + 2))
    end)

    it("2: usage errors", function()
      for _, args in ipairs({
        { "merge", b.exe, b.gmon[1] }, -- no -o
        { "merge", "-o" },
        { "merge", "-o", tmp .. "/s2.sum", b.exe }, -- no profile file
        { "merge", "-o", tmp .. "/s2.sum" },
        { "merge", "-o", tmp .. "/s2.sum", "--bogus", b.exe, b.gmon[1] },
        { "merge", "-o", tmp .. "/s2.sum", b.exe, b.gmon[1], "-w" }, -- -w without its number
      }) do
        local msg = cmd.one_line_error(2, cmd.lgprof(args))
        assert.is_true(#msg > 0)
      end
      assert.is_nil(util.slurp(tmp .. "/s2.sum"))
    end)
  end)
end)
