-- lgprof.check.new: a checker whose output, confidence, failures and
-- warnings are its own, so that the command's modes (and specs) need not
-- save and restore the module's; the module keeps its documented functions
-- (lgprof.check.max_self(...), .failures(), .reset()) as its own checker's.
-- On the synthesized classic shape (helpers.synth): main 2, a 10, b 8, c 20
-- samples, so c's self share is exactly 50% and a's 25%.
local lgprof = require "lgprof"
local H = require "helpers"
local util, synth = H.util, H.synth

local function opened(dir)
  local funcs = { { "main", 2 }, { "a", 10 }, { "b", 8 }, { "c", 20 } }
  local arcs = { { "main", "a", 1 }, { "a", "b", 5 }, { "b", "a", 4 }, { "a", "c", 6 }, { "b", "c", 5 } }
  local exe, gmon = synth.write(dir, "classic", { funcs = funcs, arcs = arcs })
  return assert(lgprof.open(exe, gmon))
end

describe("lgprof.check.new", function()
  local dir
  before_each(function() dir = util.mktempdir("lgprof-checker") end)
  after_each(function() util.rmtree(dir) end)

  it("records its failures and writes its lines apart from the module's and other checkers'", function()
    local profile <close> = opened(dir)
    local module_failures = #lgprof.check.failures()
    local out1, out2 = io.tmpfile(), io.tmpfile()
    local one = lgprof.check.new { output = out1, confidence = 0 }
    local two = lgprof.check.new { output = out2, confidence = 0 }
    assert.is_false(one:max_self(profile, "^c$", "40%"))   -- 50% > 40%
    assert.is_true(two:max_self(profile, "^c$", "60%"))
    assert.is_false(two:max_calls(profile, "^nothing$", 1)) -- no function matches
    assert.equal(1, #one:failures())
    assert.equal("^c$", one:failures()[1].pattern)
    assert.equal(1, #two:failures())
    assert.equal("^nothing$", two:failures()[1].pattern)
    assert.equal(module_failures, #lgprof.check.failures())
    out1:seek("set")
    assert.equal("lgprof: check failed: max_self c: 50.00% > 40.00%\n", out1:read("a"))
    out2:seek("set")
    assert.equal("lgprof: check failed: max_calls ^nothing$: no function matches\n", out2:read("a"))
    one:reset()
    assert.same({}, one:failures())
    assert.equal(1, #two:failures())
  end)

  it("uses its own confidence unless the check gives one", function()
    local profile <close> = opened(dir)
    local out = io.tmpfile()
    -- 20 samples of 40: 50% with a standard error of about 11%: above 45%
    -- by the estimate, not significantly at 95%
    local strict = lgprof.check.new { output = out, confidence = 0.95 }
    assert.is_true(strict:max_self(profile, "^c$", "45%"))
    assert.equal(1, #strict:warnings())
    assert.is_false(strict:max_self(profile, "^c$", "45%", { confidence = 0 }))
    local naive = lgprof.check.new { output = out, confidence = 0 }
    assert.is_false(naive:max_self(profile, "^c$", "45%"))
  end)

  it("keeps the module's functions working on the module's own checker", function()
    local profile <close> = opened(dir)
    local check = lgprof.check
    local saved = check.output
    finally(function() check.output = saved; check.reset() end)
    check.output = io.tmpfile()
    check.reset()
    assert.is_false(check.max_self(profile, "^c$", 0.4, { confidence = 0 }))
    assert.equal(1, #check.failures())
    check.reset()
    assert.same({}, check.failures())
  end)
end)

describe("the confidence levels", function()
  it("are read as every share is (one parser: args.share), 1 excluded", function()
    local stats, args = require "lgprof.analysis.stats", require "lgprof.util.args"
    for _, v in ipairs({ "0.95", "95%", " 95 % ", "0", "0%", ".5", "1e-1", 0.9, 0 }) do
      assert.equal(args.share(v, 1), stats.confidence(v), tostring(v))
    end
    for _, v in ipairs({ "1", "100%", "abc", "", "nan", "inf", "-5%", "150%", 1, {}, true }) do
      assert.is_nil(stats.confidence(v), tostring(v))
    end
  end)
end)
