-- lgprof merge / lgprof.merge: one summed profile file, as gprof -s writes it
-- but with the arc records sorted, so that merging is associative (and
-- commutative) byte for byte, and the merged file reads as the inputs do.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, gw = H.fixtures, H.util, H.cmd, H.gmonwriter

local PROGRAMS = { "classic", "cycles", "hub300", "cxx_virtual", "samename", "selfrec" }
local VARIANTS = { "O0g-nopie", "O2-pie" }

local report = H.profile.report

local function sorted_lines(s)
  local t = {}
  for l in s:gmatch("[^\n]*") do t[#t + 1] = l end
  table.sort(t)
  return t
end

local function merge(exe, inputs, out)
  local status, o, e = cmd.lgprof({ "merge", "-o", out, exe, table.unpack(inputs) })
  assert(status == 0, cmd.show(status, o, e))
  assert(o == "" and e == "", cmd.show(status, o, e))
  return assert(util.slurp(out))
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

        it("reads as its inputs: same flat profile, same call-graph lines", function()
          local merged = merge(b.exe, b.gmon, path("m"))
          assert.is_true(#merged > 20)
          local m <close> = assert(lgprof.open(b.exe, path("m")))
          local all <close> = assert(lgprof.open(b.exe, b.gmon))
          assert.equal(report(all, { flat = true, graph = false }),
            report(m, { flat = true, graph = false }))
          -- gprof lists parents of equal weight in the order it read the
          -- arcs, so only the set of lines is the same
          assert.same(sorted_lines(report(all, { flat = false, graph = true })),
            sorted_lines(report(m, { flat = false, graph = true })))
          assert.equal(all.total_time, m.total_time)
          assert.equal(all.arc_count, m.arc_count)
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

  describe("lgprof.merge", function()
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
        { "merge", "-o", tmp .. "/s2.sum", "-l", b.exe, b.gmon[1] },
      }) do
        local msg = cmd.one_line_error(2, cmd.lgprof(args))
        assert.is_true(#msg > 0)
      end
      assert.is_nil(util.slurp(tmp .. "/s2.sum"))
    end)
  end)
end)
