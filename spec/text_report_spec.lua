-- lgprof.report.text / `lgprof --format=text`: the flat profile with
-- sampling errors, attribution bounds and a noise floor. Expected rows are
-- derived by hand from the model of a synthesized profile (helpers.synth:
-- every sample and call known; hz 100): % time = samples / 453, self =
-- samples / 100, error = sqrt(samples) / 100, bounds by their definitions
-- (README, Attribution bounds). gprof's own report stays gprof's: compared
-- with GNU gprof on the same files.
local lgprof = require "lgprof"
local H = require "helpers"
local synth = require "helpers.synth"
local util, cmd = H.util, H.cmd

local TMP = util.mktempdir("lgprof-text report")

-- noise: 8 samples, called 4 + 4 times by work and parse (each gets 0.04 s)
local MODEL = {
  funcs = { { "main", 0 }, { "work", 400 }, { "parse", 30 }, { "lex", 12 }, { "tiny", 3 },
            { "noise", 8 }, { "idle", 0 } },
  arcs = { { "main", "work", 10 }, { "main", "parse", 1 }, { "parse", "lex", 50 },
           { "main", "tiny", 2 }, { "work", "noise", 4 }, { "parse", "noise", 4 } },
}

local HEADING = "% time  self ± error  samples  calls  total [min .. max]   name"
local ROWS = {
  work = " 88.30  4.00 ± 0.20       400     10  4.04 [4.00 .. 4.08]  work",
  parse = "  6.62  0.30 ± 0.05        30      1  0.46 [0.42 .. 0.50]  parse",
  lex = "  2.65  0.12 ± 0.03        12     50  0.12 [0.12 .. 0.12]  lex",
  main = "  0.00  0.00 ± 0.00         0         4.53 [4.53 .. 4.53]  main",
  noise = "  1.77  0.08 ± 0.03         8      8  0.08 [0.08 .. 0.08]  noise",
  tiny = "  0.66  0.03 ± 0.02         3      2  0.03 [0.03 .. 0.03]  tiny",
}

local function lines_of(text)
  local t = {}
  for l in text:gmatch("([^\n]*)\n") do t[#t + 1] = l end
  return t
end

local function index_of(list, s, from)
  for i = from or 1, #list do if list[i] == s then return i end end
end

describe("lgprof --format=text", function()
  local exe, gmon, p
  lazy_setup(function()
    exe, gmon = synth.write(TMP, "text", MODEL)
    p = assert(lgprof.open(exe, gmon))
  end)
  lazy_teardown(function()
    p:close()
    util.rmtree(TMP)
  end)

  local function render(options)
    local path = TMP .. "/out.txt"
    assert(lgprof.report.text(p, path, options))
    return util.slurp(path)
  end

  it("ranks the functions above the noise floor, then the rest by name", function()
    local l = lines_of(render())
    assert.equal("Flat profile with sampling error and attribution bounds", l[1])
    assert.is_not_nil(index_of(l, "Each sample counts as 0.01 seconds (100 Hz); 453 samples."))
    -- sqrt(453) / 100 = 0.2128 s, 4.7% of 4.53 s
    assert.is_not_nil(index_of(l, "Total time: 4.53 ± 0.21 seconds (± 4.7%)."))
    assert.is_not_nil(index_of(l, "Noise floor: 10 samples (relative error 32% at the floor)."))
    local h = assert(index_of(l, HEADING))
    assert.same({ ROWS.work, ROWS.parse, ROWS.lex, "" }, { l[h + 1], l[h + 2], l[h + 3], l[h + 4] })
    local b = assert(index_of(l, "Below the noise floor (fewer than 10 samples each), not ranked, by name:"))
    assert.equal("3 functions, 11 samples, 2.4% of them", l[b + 1])
    assert.equal(HEADING, l[b + 3])
    assert.same({ ROWS.main, ROWS.noise, ROWS.tiny }, { l[b + 4], l[b + 5], l[b + 6] })
    -- noise's 0.08 s are split between work and parse by calls
    local s = assert(index_of(l, "Shared callees: gprof splits their time between their callers by calls,"))
    assert.same({ "time  callers  name", "0.08        2  noise", "" }, { l[s + 3], l[s + 4], l[s + 5] })
    assert.equal("3 functions ranked (442 samples), 3 below the noise floor (11 samples).", l[#l])
    for _, s in ipairs(l) do assert.is_true(utf8.len(s) <= 80, s) end
    assert.is_nil(index_of(l, "idle"))
  end)

  it("noise_floor moves the line; 0 ranks every function in flat order", function()
    local l = lines_of(render { noise_floor = 13, brief = true })
    local h = assert(index_of(l, HEADING))
    assert.same({ ROWS.work, ROWS.parse, "" }, { l[h + 1], l[h + 2], l[h + 3] })
    assert.is_not_nil(index_of(l, "4 functions, 23 samples, 5.1% of them"))
    assert.is_not_nil(index_of(l, ROWS.lex))
    l = lines_of(render { noise_floor = 0, brief = true })
    h = assert(index_of(l, HEADING))
    assert.same({ ROWS.work, ROWS.parse, ROWS.lex, ROWS.noise, ROWS.tiny, ROWS.main, "" },
      { table.unpack(l, h + 1, h + 7) })
    assert.is_nil(index_of(l, "Below the noise floor (fewer than 0 samples each), not ranked, by name:"))
  end)

  it("brief drops the legend; zeros lists functions never sampled nor called", function()
    local full, brief = render(), render { brief = true }
    assert.truthy(full:find("sqrt(samples) sample periods", 1, true))
    assert.falsy(brief:find("sqrt(samples) sample periods", 1, true))
    local l = lines_of(render { zeros = true })
    assert.is_not_nil(index_of(l, "  0.00  0.00 ± 0.00         0         0.00 [0.00 .. 0.00]  idle"))
  end)

  it("marks a spontaneous root", function()
    local e, g = synth.write(TMP, "spont", {
      funcs = { { "main", 0 }, { "a", 30 }, { "handler", 20 } },
      arcs = { { "main", "a", 1 }, { "handler", "a", 1 } },
    })
    local q <close> = assert(lgprof.open(e, g))
    local path = TMP .. "/spont.txt"
    assert(lgprof.report.text(q, path, { brief = true }))
    local l = lines_of(util.slurp(path))
    -- handler: 20 samples; a's 30 shared with main: bounds 0.20 .. 0.50
    assert.is_not_nil(index_of(l, " 40.00  0.20 ± 0.04        20         0.35 [0.20 .. 0.50]  handler (spontaneous)"))
  end)

  it("gives each cycle as a whole its bounds", function()
    -- main -> x <-> y, y -> z, main -> w -> z: the cycle's self 30 samples;
    -- below it z (30), shared with w: total 0.30 + 0.30 x 3/5, bounds 0.30 .. 0.60
    local e, g = synth.write(TMP, "cyc", {
      funcs = { { "main", 0 }, { "x", 10 }, { "y", 20 }, { "z", 30 }, { "w", 5 } },
      arcs = { { "main", "x", 1 }, { "x", "y", 5 }, { "y", "x", 4 }, { "y", "z", 3 },
               { "main", "w", 1 }, { "w", "z", 2 } },
    })
    local q <close> = assert(lgprof.open(e, g))
    local path = TMP .. "/cyc.txt"
    assert(lgprof.report.text(q, path, { brief = true }))
    local l = lines_of(util.slurp(path))
    local c = assert(index_of(l, "<cycle 1>  total 0.48 [0.30 .. 0.60]  self 0.30 ± 0.05"))
    local a, b = l[c + 1]:match("^  2 members: ([xy]), ([xy])$")
    assert.is_true(a ~= nil and a ~= b, l[c + 1])
  end)

  it("takes a view", function()
    local v <close> = assert(p:filter { focus = "^parse$" })
    local path = TMP .. "/view.txt"
    assert(lgprof.report.text(v, path, { noise_floor = 0 }))
    local text = util.slurp(path)
    assert.truthy(text:find("  parse\n", 1, true))
    assert.falsy(text:find("  work\n", 1, true))
  end)

  it("refuses bad options and arguments", function()
    assert.has_error(function() lgprof.report.text(p, TMP .. "/x", { noise_floor = -1 }) end)
    assert.has_error(function() lgprof.report.text(p, TMP .. "/x", { noise_floor = "10" }) end)
    assert.has_error(function() lgprof.report.text(p, TMP .. "/x", { colour = true }) end)
    assert.has_error(function() lgprof.report.text({}, TMP .. "/x") end)
    assert.has_error(function() lgprof.report.text(p, 42) end)
    local ok, err = lgprof.report.text(p, TMP .. "/no/such/dir/x")
    assert.is_nil(ok)
    assert.truthy(err)
  end)

  describe("the command", function()
    it("writes what lgprof.report.text writes, -b and --noise-floor included", function()
      local status, out, err = cmd.lgprof({ "--format=text", exe, gmon })
      assert.equal(0, status, err)
      assert.equal(render(), out)
      status, out, err = cmd.lgprof({ "--format=text", "-b", "--noise-floor=13", exe, gmon })
      assert.equal(0, status, err)
      assert.equal(render { brief = true, noise_floor = 13 }, out)
      status, out = cmd.lgprof({ "--format=text", "-z", "--noise-floor=0.5", exe, gmon })
      assert.equal(0, status)
      assert.equal(render { zeros = true, noise_floor = 0.5 }, out)
    end)

    it("refuses a bad --noise-floor, and one without --format=text (status 2)", function()
      for _, argv in ipairs {
        { "--format=text", "--noise-floor=many", exe, gmon },
        { "--format=text", "--noise-floor=-3", exe, gmon },
        { "--noise-floor=3", exe, gmon },
        { "--format=json", "--noise-floor=3", exe, gmon },
        { "--format=text", "--granularity=line", exe, gmon },
      } do
        local status, out, err = cmd.lgprof(argv)
        assert.equal(2, status, table.concat(argv, " "))
        assert.equal("", out)
        assert.truthy(err:match("^lgprof: "), err)
      end
    end)

    it("leaves gprof's default report as GNU gprof prints it", function()
      if not cmd.HAVE_GPROF then pending("GNU gprof not installed") return end
      local s1, l = cmd.lgprof({ exe, gmon })
      local s2, g = cmd.gprof({ exe, gmon })
      assert.equal(s2, s1)
      assert.equal(g, l)
    end)
  end)
end)
