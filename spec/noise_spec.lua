-- Diffs and gates that know the noise.
-- 1. The statistics on synthesized profiles, with expected values derived
--    here from the textbook definitions (an independent normal CDF by
--    numerical integration of the density, the conditional binomial test's
--    normal approximation written out, Holm's procedure) and a few
--    hand-computed constants.
-- 2. The promise, on real -pg runs (the one place a live test is right: what
--    is asserted is a statistical promise): of the 9 consecutive pairs of 10
--    runs of one ~2 s workload, at most one fails a 5% growth gate at the
--    default confidence, while a 2x slowdown of the function holding ~40% of
--    the time fails it every time.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd, synth, fx = H.util, H.cmd, H.synth, H.fixtures

-- The normal distribution from its definition: the integral of the density
-- phi(t) = exp(-t^2 / 2) / sqrt(2 pi) (composite Simpson, step 0.005). The
-- upper tail Q(x) = integral from x to x + 20 (what lies beyond is below
-- 1e-80 of it) for x >= 0, 1 - Q(-x) below; Phi(x) = 1 - Q(x).
local function simpson(a, b, n)
  local h = (b - a) / n
  local f = function(t) return math.exp(-t * t / 2) / math.sqrt(2 * math.pi) end
  local s = f(a) + f(b)
  for i = 1, n - 1 do s = s + (i % 2 == 1 and 4 or 2) * f(a + i * h) end
  return s * h / 3
end
local function Q(x)
  if x >= 0 then return simpson(x, x + 20, 4000) end
  return 1 - Q(-x)
end
local function Phi(x) return x < 0 and Q(-x) or 1 - Q(x) end

-- The quantile by bisection on that Phi.
local function quantile(p)
  local lo, hi = -10, 10
  for _ = 1, 100 do
    local mid = (lo + hi) / 2
    if Phi(mid) < p then lo = mid else hi = mid end
  end
  return (lo + hi) / 2
end

local function near(want, got, tol, what)
  assert(math.abs(want - got) <= tol, ("%s: want %.10g, got %.10g"):format(what or "", want, got))
end

describe("lgprof.analysis.stats", function()
  local stats = require "lgprof.analysis.stats"

  it("the normal CDF and quantile: tables' constants and the integral of the density", function()
    -- printed tables: Phi(1) = 0.8413447461, Phi(1.96) = 0.9750021049,
    -- z(0.95) = 1.644853627, z(0.975) = 1.959963985, z(0.995) = 2.575829304
    near(0.8413447461, stats.cdf(1), 2e-7, "Phi(1)")
    near(0.9750021049, stats.cdf(1.96), 2e-7, "Phi(1.96)")
    near(1.644853627, stats.quantile(0.95), 1e-8, "z(0.95)")
    near(1.959963985, stats.quantile(0.975), 1e-8, "z(0.975)")
    near(2.575829304, stats.quantile(0.995), 1e-8, "z(0.995)")
    for _, x in ipairs({ -6, -3.3, -1, -0.2, 0, 0.5, 1.7, 2.9, 4.4, 6 }) do
      near(Phi(x), stats.cdf(x), 2e-7 * math.max(Phi(x), 1e-3), "Phi")
      -- the upper tail keeps its relative accuracy
      near(Q(x), stats.upper(x), 1.5e-7 * Q(x), "Q")
    end
    for _, p in ipairs({ 1e-6, 0.001, 0.02, 0.3, 0.5, 0.8, 0.99, 0.999999 }) do
      near(quantile(p), stats.quantile(p), 1e-7 * math.max(1, math.abs(quantile(p))), "z")
    end
  end)

  it("the count test: the conditional binomial's normal approximation with one base", function()
    -- x1 = 40, x2 = 60: new | 100 ~ Bin(100, 1/2) under no change;
    -- z = (|60 - 50| - 0.5) / sqrt(100 / 4) = 9.5 / 5 = 1.9
    local t = stats.count_test({ 40 }, 60)
    near(1.9, t.z, 1e-12)
    near(20, t.d, 1e-12)
    near(10, t.se, 1e-12) -- sqrt(x1 + x2)
    near(1, t.cc, 1e-12)
    near(1 - Phi(1.9), stats.p_growth(t.z), 2e-8, "one-sided")
    near(2 * (1 - Phi(1.9)), stats.p_two(t.z), 4e-8, "two-sided")
    -- by hand from a table: Q(1.9) = 0.0287166
    near(0.0287166, stats.p_growth(t.z), 1e-7)
    -- a fall is negative, and a change within the correction is z = 0
    assert.is_true(stats.count_test({ 60 }, 40).z < 0)
    assert.equal(0, stats.count_test({ 10 }, 11).z)
  end)

  it("the count test with k base runs: Bin(sum, 1/(k+1)), then the observed spread", function()
    -- k = 4 runs of 20, 22, 18, 20 (sum 80), new 35: under no change
    -- new | 115 ~ Bin(115, 1/5): mean 23, variance 115 * 1/5 * 4/5 = 18.4;
    -- z = (|35 - 23| - 0.5) / sqrt(18.4)
    local t = stats.count_test({ 20, 22, 18, 20 }, 35)
    near((12 - 0.5) / math.sqrt(18.4), t.z, 1e-12)
    near(15, t.d, 1e-12)
    near(math.sqrt(8 / 3), t.sd, 1e-12) -- sample variance (0 + 4 + 4 + 0) / 3
    assert.is_true(t.poisson)
    -- a spread larger than Poisson's: 10, 30, 5, 35 (variance 650/3 > 23)
    t = stats.count_test({ 10, 30, 5, 35 }, 35)
    local v = (100 + 100 + 225 + 225) / 3
    assert.is_false(t.poisson)
    near(math.sqrt(v * (1 + 1 / 4)), t.se, 1e-12)
    near((15 - 5 / 8) / math.sqrt(v * 5 / 4), t.z, 1e-12)
  end)

  it("Holm's step-down", function()
    -- alpha 0.05, m = 4: sorted p 0.01 <= 0.0125, 0.015 <= 0.01667,
    -- 0.03 > 0.025 stops: 0.04 is kept although it is below 0.05
    local rej, level = stats.holm({ 0.04, 0.01, 0.03, 0.015 }, 0.05)
    assert.same({ false, true, false, true }, rej)
    near(0.05, level[1], 1e-15); near(0.0125, level[2], 1e-15)
    near(0.025, level[3], 1e-15); near(0.05 / 3, level[4], 1e-15)
  end)

  it("confidence levels", function()
    assert.equal(0.95, stats.confidence("95%"))
    assert.equal(0.9, stats.confidence("0.9"))
    assert.equal(0, stats.confidence(0))
    assert.is_nil(stats.confidence(1))
    assert.is_nil(stats.confidence("-0.1"))
    assert.is_nil(stats.confidence("x"))
  end)
end)

-- Synthesized runs: main calls a (which calls leaf) and b; samples and
-- calls given, 100 Hz (10 ms a sample).
local function write_run(dir, tag, s)
  return synth.write(dir, tag, {
    funcs = { { "main", s.main or 0 }, { "a", s.a }, { "b", s.b }, { "leaf", s.leaf or 0 } },
    arcs = { { "main", "a", s.calls_a or 10 }, { "main", "b", s.calls_b or 5 },
             { "a", "leaf", s.calls_leaf or 10 } },
  })
end

describe("lgprof.diff: statistics of synthesized runs", function()
  local tmp = util.block_tmpdir("lgprof noise-synth")

  local function row(d, name)
    for _, r in ipairs(d) do if r.name == name then return r end end
  end

  it("self: the count test on fn.samples; total: a count of total / period samples", function()
    local exe1, g1 = write_run(tmp(), "r1", { a = 40, b = 100, leaf = 0, calls_a = 10 })
    local _, g2 = write_run(tmp(), "r2", { a = 60, b = 100, leaf = 0, calls_a = 10 })
    local p1 <close> = assert(lgprof.open(exe1, g1))
    local p2 <close> = assert(lgprof.open(exe1, g2))
    local d = lgprof.diff(p1, p2)
    assert.equal(0.95, d.confidence)
    assert.equal(1, d.base_runs)
    assert.equal(140, d.base_samples); assert.equal(160, d.new_samples)
    local a = row(d, "a")
    near(0.2, a.self_delta, 1e-12)
    near(1.9, a.self_z, 1e-12)              -- (20 - 1) / sqrt(100)
    near(0.1, a.self_error, 1e-12)          -- sqrt(100) samples of 10 ms
    near(0.01, a.self_cc, 1e-12)
    near(2 * (1 - Phi(1.9)), a.self_p, 1e-7)
    near(1 - Phi(1.9), a.self_p_growth, 1e-7)
    local q = quantile(0.975)
    near(0.2 - q * 0.1 - 0.01, a.self_low, 1e-7)
    near(0.2 + q * 0.1 + 0.01, a.self_high, 1e-7)
    assert.is_false(a.self_significant) -- the interval holds 0 (1.9 < 1.96)
    -- a's total is its self (leaf has no samples): the same test
    near(a.self_z, a.total_z, 1e-9)
    -- b did not change: z = 0, p = 1
    local b = row(d, "b")
    assert.equal(0, b.self_z); assert.equal(1, b.self_p)
    assert.is_false(b.significant)
    -- main's total: 140 -> 160 samples, z = (20 - 1) / sqrt(300)
    local main = row(d, "main")
    near(19 / math.sqrt(300), main.total_z, 1e-9)
    near(0.01 * math.sqrt(300), main.total_error, 1e-9)
    -- at 90% the same change is significant (1.9 > 1.645)
    local d90 = lgprof.diff(p1, p2, { confidence = 0.9 })
    assert.is_true(row(d90, "a").self_significant)
    assert.is_true(row(d90, "a").significant)
    -- confidence 0: the interval is the point, any change is "significant"
    local d0 = lgprof.diff(p1, p2, { confidence = 0 })
    local a0 = row(d0, "a")
    assert.equal(a0.self_delta, a0.self_low); assert.equal(a0.self_delta, a0.self_high)
    assert.is_true(a0.self_significant)
    assert.is_false(row(d0, "b").self_significant)
  end)

  it("several base runs: their mean, their spread when it exceeds Poisson's", function()
    local exe, g = nil, {}
    local counts = { 10, 30, 5, 35 }
    for i, c in ipairs(counts) do
      exe, g[i] = write_run(tmp(), "b" .. i, { a = c, b = 50, calls_a = 10 })
    end
    local _, gn = write_run(tmp(), "n", { a = 35, b = 50, calls_a = 10 })
    local bases = {}
    for i = 1, 4 do bases[i] = assert(lgprof.open(exe, g[i])) end
    local new <close> = assert(lgprof.open(exe, gn))
    local d = lgprof.diff(bases, new)
    assert.equal(4, d.base_runs)
    local a = row(d, "a")
    near(0.2, a.self_base, 1e-12)
    near(0.15, a.self_delta, 1e-12)
    near(10, a.calls_base, 0)
    local v = 650 / 3
    near(0.01 * math.sqrt(v), a.self_sd, 1e-12)
    near(0.01 * math.sqrt(v * 5 / 4), a.self_error, 1e-12)
    near((15 - 5 / 8) / math.sqrt(v * 5 / 4), a.self_z, 1e-12)
    -- b never changed: no spread, Poisson's error of 50 samples a run
    local b = row(d, "b")
    assert.equal(0, b.self_sd)
    near(0.01 * math.sqrt(50 * 5 / 4), b.self_error, 1e-12)
    for _, p in ipairs(bases) do p:close() end
  end)

  it("the total change split into more calls and slower calls (calls are exact)", function()
    -- a: 10 calls, 40 samples -> 20 calls, 100 samples: at the base's
    -- 4 ms a call, the 10 more calls explain 0.4 s of the 0.6 s
    local exe, g1 = write_run(tmp(), "c1", { a = 40, b = 10, calls_a = 10 })
    local _, g2 = write_run(tmp(), "c2", { a = 100, b = 10, calls_a = 20 })
    local p1 <close> = assert(lgprof.open(exe, g1))
    local p2 <close> = assert(lgprof.open(exe, g2))
    local a = row(lgprof.diff(p1, p2), "a")
    near(0.6, a.total_delta, 1e-12)
    near(0.4, a.calls_effect, 1e-12)
    near(0.2, a.per_call_effect, 1e-12)
    -- the definition: (n1 - n0) t0/n0 + n1 (t1/n1 - t0/n0)
    near((20 - 10) * 0.4 / 10, a.calls_effect, 1e-12)
    near(20 * (1.0 / 20 - 0.4 / 10), a.per_call_effect, 1e-12)
    -- main is never called: all of its change is per call
    local main = row(lgprof.diff(p1, p2), "main")
    assert.equal(0, main.calls_effect)
    near(main.total_delta, main.per_call_effect, 1e-12)
  end)

  it("raises on misuse", function()
    local exe, g1 = write_run(tmp(), "m", { a = 1, b = 1 })
    local p <close> = assert(lgprof.open(exe, g1))
    assert.has_error(function() lgprof.diff({}, p) end)
    assert.has_error(function() lgprof.diff({ p, "x" }, p) end)
    assert.has_error(function() lgprof.diff(p, p, { confidence = 1 }) end)
    assert.has_error(function() lgprof.diff(p, p, { confidence = "x" }) end)
    assert.has_error(function() lgprof.diff(p, p, { bogus = 1 }) end)
    assert.has_error(function() lgprof.diff(p, p, 0.9) end)
  end)
end)

describe("lgprof.spread: the spread next to the sampling error", function()
  local tmp = util.block_tmpdir("lgprof noise-spread")

  -- P(X >= x) for X chi-square with 3 degrees of freedom, exactly:
  -- 2 Q(sqrt x) + sqrt(2 x / pi) exp(-x / 2)
  local function chi2_3(x)
    return 2 * Q(math.sqrt(x)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
  end

  it("per run: samples and self_error; sd, error and the dispersion test", function()
    local runs = {}
    local a = { 10, 30, 5, 35 }    -- far more spread than sqrt(20)
    local b = { 18, 22, 20, 20 }   -- less than Poisson's
    for i = 1, 4 do
      local exe, g = write_run(tmp(), "s" .. i, { main = 5, a = a[i], b = b[i], leaf = 50 })
      runs[i] = assert(lgprof.open(exe, g))
    end
    local rows = lgprof.spread(runs)
    local by = {}
    for _, r in ipairs(rows) do by[r.name] = r end
    local ra, rb, rl = by.a, by.b, by.leaf
    assert.same(a, ra.samples)
    for i = 1, 4 do near(0.01 * math.sqrt(a[i]), ra.self_error[i], 1e-12) end
    near(0.2, ra.mean, 1e-12)
    near(0.01 * math.sqrt(650 / 3), ra.sd, 1e-12)
    near(0.01 * math.sqrt(20), ra.error, 1e-12)
    near((650 / 3) / 20, ra.dispersion, 1e-12)
    -- (n - 1) S^2 / mean = 32.5 on 3 degrees of freedom: p about 4e-7
    assert.is_true(ra.excess)
    assert.is_true(ra.dispersion_p < 1e-5)
    -- b: 3 (8/3) / 20 = 0.4, p = 0.9403 exactly (within 0.01 by Wilson-Hilferty)
    near(chi2_3(0.4), rb.dispersion_p, 0.01)
    near(0.9403, chi2_3(0.4), 1e-4)
    assert.is_false(rb.excess)
    -- leaf: the same in every run, no spread
    assert.equal(0, rl.sd)
    assert.equal(1, rl.dispersion_p)
    assert.is_false(rl.excess)
    -- at confidence 0 any spread is "excess"
    local r0 = lgprof.spread(runs, { confidence = 0 })
    for _, r in ipairs(r0) do if r.name == "b" then assert.is_true(r.excess) end end
    assert.has_error(function() lgprof.spread(runs, { confidence = 2 }) end)
    assert.has_error(function() lgprof.spread(runs, { bogus = 1 }) end)
    for _, p in ipairs(runs) do p:close() end
  end)
end)

describe("lgprof.check: confidence", function()
  local tmp = util.block_tmpdir("lgprof noise-check")
  local check = lgprof.check
  local saved
  before_each(function()
    check.reset()
    saved = check.output
    check.output = io.tmpfile()
  end)
  after_each(function() check.output = saved; check.reset() end)

  local function written()
    check.output:seek("set")
    return check.output:read("a")
  end

  it("max_self fails only when the lower bound is above the limit", function()
    -- a: 40 of 200 samples (20%); its share's error sqrt(40)/200 and half a
    -- sample's correction: the one-sided 95% bound 0.2 - (0.5 + z sqrt(40)) / 200
    local exe, g = write_run(tmp(), "s", { main = 10, a = 40, b = 150 })
    local p <close> = assert(lgprof.open(exe, g))
    local z = quantile(0.95)
    local lower = 0.2 - (0.5 + z * math.sqrt(40)) / 200
    near(0.14548, lower, 1e-5) -- by hand: (0.5 + 1.64485 * 6.32456) / 200 = 0.054517
    -- a limit just under the bound fails, just over it warns
    assert.is_false(check.max_self(p, "^a$", lower - 0.001))
    assert.equal(1, #check.failures())
    near(lower, check.failures()[1].lower, 1e-7)
    check.reset()
    assert.is_true(check.max_self(p, "^a$", lower + 0.001))
    assert.equal(0, #check.failures())
    local w = check.warnings()
    assert.equal(1, #w)
    assert.equal(("warning: max_self a: 20.00%% > %.2f%%, not significant (95%% lower bound %.2f%%)")
      :format(100 * (lower + 0.001), 100 * lower), w[1].message)
    assert.truthy(written():find("\nlgprof: warning: max_self a: ", 1, true))
    -- confidence 0 (per call or module-wide): the estimate alone fails
    check.reset()
    assert.is_false(check.max_self(p, "^a$", lower + 0.001, { confidence = 0 }))
    assert.equal(("check failed: max_self a: 20.00%% > %.2f%%"):format(100 * (lower + 0.001)),
      check.failures()[1].message)
    check.confidence = 0
    local ok = check.max_self(p, "^a$", 0.19)
    check.confidence = 0.95
    assert.is_false(ok)
  end)

  it("Holm over the functions a pattern matches", function()
    -- a and b at 25% and 24% of 400 samples; limit 20%; one-sided p-values
    -- from z = (n - 0.5 - 80) / sqrt(n) (in samples): a 100 -> 1.95,
    -- b 96 -> 1.583. Alone, each is tested at 5%; together Holm tests the
    -- smaller p at 2.5% and stops there.
    local exe, g = write_run(tmp(), "h", { main = 204, a = 100, b = 96 })
    local p <close> = assert(lgprof.open(exe, g))
    local pa = 1 - Phi((100 - 0.5 - 80) / 10)
    local pb = 1 - Phi((96 - 0.5 - 80) / math.sqrt(96))
    assert.is_true(pa < 0.05 and pa > 0.025 and pb < 0.1 and pb > 0.05)
    assert.is_false(check.max_self(p, "^a$", 0.2))      -- alone: 2.6% < 5%
    check.reset()
    assert.is_true(check.max_self(p, "^(a|b)$", 0.2))   -- 2.6% > 2.5%
    assert.equal(2, #check.warnings())
    assert.matches("2 functions tested", check.warnings()[1].message)
    -- a function neither sampled nor called is not in the family: a
    -- alone again, with the same verdict
    local exe2, g2 = synth.write(tmp(), "idle", {
      funcs = { { "main", 204 }, { "a", 100 }, { "b", 96 }, { "idle", 0 } },
      arcs = { { "main", "a", 1 }, { "main", "b", 1 } } })
    local p2 <close> = assert(lgprof.open(exe2, g2))
    check.reset()
    assert.is_false(check.max_self(p2, "^(a|idle)$", 0.2))
    assert.is_nil(check.failures()[1].message:find("tested", 1, true))
  end)

  it("max_total: a count of total / period samples; max_calls is exact", function()
    -- a's total: its 20 samples and leaf's 20 (a calls leaf), of 100
    local exe, g = write_run(tmp(), "t", { main = 0, a = 20, b = 60, leaf = 20 })
    local p <close> = assert(lgprof.open(exe, g))
    local lower = 0.4 - (0.5 + quantile(0.95) * math.sqrt(40)) / 100
    assert.is_false(check.max_total(p, "^a$", lower - 0.001))
    check.reset()
    assert.is_true(check.max_total(p, "^a$", lower + 0.001))
    check.reset()
    assert.is_false(check.max_calls(p, "^a$", 9))   -- 10 calls: exact, no confidence
    assert.equal(0, #check.warnings())
  end)

  it("max_growth: the diff row's error, Holm over the rows", function()
    -- a: 40 -> 80 samples of a 200-sample base: +20%; the total change's
    -- error sqrt(120) samples, half a... one sample's correction (one base)
    local exe, g1 = write_run(tmp(), "g1", { main = 10, a = 40, b = 150 })
    local _, g2 = write_run(tmp(), "g2", { main = 10, a = 80, b = 150 })
    local p1 <close> = assert(lgprof.open(exe, g1))
    local p2 <close> = assert(lgprof.open(exe, g2))
    local d = lgprof.diff(p1, p2)
    -- rows: main (total 200 -> 240), a, b, leaf-less: the family is the rows matched
    local lower_a = (40 - 1 - quantile(1 - 0.05) * math.sqrt(120)) / 200
    assert.is_false(check.max_growth(d, "^a$", lower_a - 0.001))
    near(lower_a, check.failures()[1].lower, 1e-7)
    assert.equal(("check failed: max_growth a: +20.00%% > %.2f%% (95%% lower bound +%.2f%%)")
      :format(100 * (lower_a - 0.001), 100 * lower_a), check.failures()[1].message)
    check.reset()
    assert.is_true(check.max_growth(d, "^a$", lower_a + 0.001))
    assert.equal(1, #check.warnings())
    check.reset()
    assert.is_false(check.max_growth(d, "^a$", lower_a + 0.001, { confidence = 0 }))
    assert.equal(("check failed: max_growth a: +20.00%% > %.2f%%"):format(100 * (lower_a + 0.001)),
      check.failures()[1].message)
  end)
end)

describe("lgprof --diff and lgprof check: --confidence", function()
  local tmp = util.block_tmpdir("lgprof noise-cli")

  it("--diff: several bases (repeated, or a quoted glob), the table's statistics", function()
    local exe, g = nil, {}
    for i, c in ipairs({ 38, 42, 40 }) do
      exe, g[i] = write_run(tmp(), "base." .. i, { main = 10, a = c, b = 150 })
    end
    local _, gn = write_run(tmp(), "new", { main = 10, a = 80, b = 150 })
    local s1, o1, e1 = cmd.lgprof({ "--diff", g[1], "--diff", g[2], "--diff", g[3], exe, gn })
    assert.equal(0, s1, cmd.show(s1, o1, e1))
    local s2, o2 = cmd.lgprof({ "--diff=" .. tmp() .. "/base.*.gmon", exe, gn })
    assert.equal(0, s2)
    assert.equal(o1, o2)
    local lines = util.lines(o1)
    assert.matches("^base 2%.00 seconds %(mean of 3 runs%), new 2%.40 seconds", lines[1])
    assert.equal("+-: the 95% confidence interval's half-width; *: significant at 95%", lines[2])
    -- a's row: +0.40 s, its half-width, +20.0% (significant), calls 10 10, all per call
    local bases = {}
    for i = 1, 3 do bases[i] = assert(lgprof.open(exe, g[i])) end
    local new <close> = assert(lgprof.open(exe, gn))
    local d = lgprof.diff(bases, new)
    for _, p in ipairs(bases) do p:close() end
    local a
    for _, r in ipairs(d) do if r.name == "a" then a = r end end
    local want = { "+0.40", ("%.2f"):format((a.total_high - a.total_low) / 2), "+20.0*",
      "+0.40", ("%.2f"):format((a.self_high - a.self_low) / 2), "+20.0*", "10", "10",
      "+0.00", "+0.40", "a" }
    local found
    for _, l in ipairs(lines) do
      if l:match(" a$") then found = util.fields(l, #want) end
    end
    assert.same(want, found)
    -- --confidence=0: no intervals, no marks
    local s3, o3 = cmd.lgprof({ "--diff", g[1], "--confidence=0", exe, gn })
    assert.equal(0, s3)
    assert.is_nil(o3:find("+-", 1, true))
    assert.is_nil(o3:find("*", 1, true))
    -- a pattern matching no file is bad input; a bad confidence a usage error
    local msg = cmd.one_line_error(1, cmd.lgprof({ "--diff=" .. tmp() .. "/nothing*", exe, gn }))
    assert.matches("no file matches", msg)
    for _, c in ipairs({ "1", "-0.5", "x", "150%" }) do
      cmd.one_line_error(2, cmd.lgprof({ "--diff", g[1], "--confidence=" .. c, exe, gn }))
      cmd.one_line_error(2, cmd.lgprof({ "check", "--max-self=a=0.1", "--confidence=" .. c, exe, gn }))
    end
    -- --confidence without --diff
    msg = cmd.one_line_error(2, cmd.lgprof({ "--confidence=0.9", exe, gn }))
    assert.matches("%-%-confidence needs %-%-diff", msg)
  end)

  it("--max-growth: a significant growth fails (3), one that is not warns (0)", function()
    local exe, g1 = write_run(tmp(), "gb", { main = 10, a = 40, b = 150 })
    local _, g2 = write_run(tmp(), "gn", { main = 10, a = 52, b = 150 })
    -- a: +12 samples of 200 = +6% > 5%, but not significant
    local s, o, e = cmd.lgprof({ "--diff", g1, "--max-growth=^a$=5%", exe, g2 })
    assert.equal(0, s, cmd.show(s, o, e))
    assert.matches("^lgprof: warning: max_growth a: %+6%.00%% > 5%.00%%, not significant", e)
    s, o, e = cmd.lgprof({ "--diff", g1, "--max-growth=^a$=5%", "--confidence=0", exe, g2 })
    assert.equal(3, s)
    assert.equal("lgprof: check failed: max_growth a: +6.00% > 5.00%\n", e)
    -- at 50% the one-sided bound is the estimate less one sample: +5.5% > 5%
    s = cmd.lgprof({ "--diff", g1, "--max-growth=^a$=5%", "--confidence=50%", exe, g2 })
    assert.equal(3, s)
  end)

  it("check: the summary counts warnings", function()
    local exe, g = write_run(tmp(), "cw", { main = 10, a = 40, b = 150 })
    local s, o, e = cmd.lgprof({ "check", "--max-self=^a$=19%", exe, g })
    assert.equal(0, s, cmd.show(s, o, e))
    assert.equal("lgprof check: 1 threshold, 0 failed, 1 warning\n", o)
    assert.matches("^lgprof: warning: max_self a: 20%.00%% > 19%.00%%", e)
    s, o = cmd.lgprof({ "check", "--max-self=^a$=19%", "--confidence=0", exe, g })
    assert.equal(3, s)
    assert.equal("lgprof check: 1 threshold, 1 failed\n", o)
    s, o = cmd.lgprof({ "check", "--max-self=^a$=10%", exe, g })
    assert.equal(3, s)
    -- a thresholds file may set the confidence; --confidence overrides it
    local file = cmd.write(tmp() .. "/gate.lua",
      [[return { max_self = { ["^a$"] = "19%" }, confidence = 0 }]])
    s, o = cmd.lgprof({ "check", "--thresholds=" .. file, exe, g })
    assert.equal(3, s)
    s, o = cmd.lgprof({ "check", "--thresholds=" .. file, "--confidence=0.95", exe, g })
    assert.equal(0, s)
    assert.equal("lgprof check: 1 threshold, 0 failed, 1 warning\n", o)
    file = cmd.write(tmp() .. "/bad.lua", [[return { max_self = { a = 0.1 }, confidence = 1 }]])
    local msg = cmd.one_line_error(1, cmd.lgprof({ "check", "--thresholds=" .. file, exe, g }))
    local want = file .. ": confidence: expected a confidence"
    assert.equal(want, msg:sub(1, #want))
  end)
end)

-- The promise, on real runs of spec/fixtures/noise/work.c.
--
-- What one batch of runs sampled is luck; the spec asserts only what fails
-- with probability below 1e-4, computed here for the runs it got:
--
-- (a) A run counts when its histogram measured its CPU time: the time the
--     histogram holds is from 0.8 to 1.25 times the run's user + system
--     time (getrusage, through bash's `time`). A loaded VM loses (or
--     bunches: up to 9% more seen here) the profiling timer's ticks; such
--     a run is redone (4 tries), not judged, and the spec is skipped with
--     the reason if none counts. What smaller drift leaves in the totals,
--     (c) puts in the bound.
-- (b) Model: a run's N samples fall in heavy, medium, light and tiny
--     independently with the workload's shares s = 0.4, 0.3, 0.2, 0.1
--     (multinomial; a timer's fixed-period samples of a deterministic loop
--     vary less than that, so the model is conservative). The gate with k
--     bases (mean total B samples) against a run of N samples fails only if
--     Holm's first step rejects, so only if some row's one-sided p-value is
--     at most 0.05/m, m >= 5 rows (the four and main): z = 2.3263. A row of
--     share s fails then only if its difference d > T = 0.05 B + cc + z se,
--     with lgprof's cc = (k+1)/(2k) and se = sqrt(s (kB+N)/(k+1) (1+1/k))
--     (stats.count_test); d is near normal with mean s (N - B) and variance
--     s (1-s) (N + B/k): P(fail) <= sum over rows Q((T - mean) / sd). main's
--     row (all samples) is not random given the totals: fails iff
--     N - B - cc > 0.05 B + z sqrt((kB+N)/(k+1) (1+1/k)).
-- (c) The batch's bound: two of the 9 consecutive pairs fail with
--     probability <= sum over i < j of p_i p_j (pairs sharing a run: the
--     same row's two growths are negatively correlated, two rows' weakly
--     positively, |rho| <= 0.27 at these shares: the product stays the
--     order of the joint tail); plus the 9 bases against the one held out
--     (the run whose total is nearest the other nine's mean); plus
--     heavy's share of run 1 outside 25..55% (2 Q(0.15 / sqrt(0.24 / N)));
--     plus, for each slowdown gate (heavy's work doubled: N near 1.4 B,
--     heavy 8/14 of it), the probability that it passes: 0 when main's
--     row is rejected at Holm's first step (alpha/m, m the diff's rows),
--     else at most the probability that heavy's row is not. When the
--     bound exceeds 1e-4 (the totals of the runs drifted: a loaded
--     machine's spread, the case for several bases), the spec is skipped
--     with the bound and the totals, not failed.
describe("the noise promise (live -pg runs)", function()
  local tmp = util.block_tmpdir("lgprof noise live")
  local have_cc = util.have("cc")
  local SHARES = { 0.4, 0.3, 0.2, 0.1 }
  local Z_FIRST = quantile(1 - 0.05 / 5)

  -- (b): the probability that the gate with k bases of mean total B fails
  -- on a run of N samples with nothing changed; math.huge when main's row
  -- fails given the totals alone
  local function p_false(B, N, k)
    local cc = (k + 1) / (2 * k)
    local function se(share) return math.sqrt(share * (k * B + N) / (k + 1) * (1 + 1 / k)) end
    if N - B - cc > 0.05 * B + Z_FIRST * se(1) then return math.huge end
    local p = 0
    for _, sh in ipairs(SHARES) do
      local T = 0.05 * B + cc + Z_FIRST * se(sh)
      p = p + Q((T - sh * (N - B)) / math.sqrt(sh * (1 - sh) * (N + B / k)))
    end
    return p
  end

  -- The probability that the gate with k bases of mean total B misses a
  -- slowdown run of N samples (heavy's work doubled: its share 8/14), the
  -- diff having m rows: 0 when main's row (not random given the totals)
  -- is rejected at Holm's first step, alpha/m; else at most the
  -- probability that heavy's row is not.
  local function p_miss(B, N, k, m)
    local cc = (k + 1) / (2 * k)
    local z = quantile(1 - 0.05 / m)
    local function se(mean) return math.sqrt(mean * (1 + 1 / k)) end
    if N - B - cc - 0.05 * B > z * se((k * B + N) / (k + 1)) then return 0 end
    local sb, sn = 0.4, 8 / 14
    local T = 0.05 * B + cc + z * se((k * sb * B + sn * N) / (k + 1))
    return Q((sn * N - sb * B - T) / math.sqrt(sn * (1 - sn) * N + sb * (1 - sb) * B / k))
  end

  it("10 runs: at most 1 of 9 pairs fails a 5% gate; a 2x slowdown fails it 3 of 3", function()
    if not have_cc then pending("no C compiler") return end
    if not util.have("bash") then pending("no bash to measure the runs' CPU time") return end
    local dir = tmp()
    local src = fx.root .. "/spec/fixtures/noise/work.c"
    local flags = { "-O1", "-falign-functions=64", "-falign-loops=64", "-pg", "-fno-pie", "-no-pie" }
    local function build(out, ...)
      local argv = { "cc" }
      table.move(flags, 1, #flags, 2, argv)
      for _, w in ipairs({ ... }) do argv[#argv + 1] = w end
      table.move({ "-o", dir .. "/" .. out, src }, 1, 3, #argv + 1, argv)
      local s, o, e = cmd.run(argv)
      assert(s == 0, cmd.show(s, o, e))
    end
    build("work")
    build("slow", "-DSLOW=2")
    local started = os.time()
    local redone = 0
    -- (a) sequential runs, each writing gmon.out in the temporary
    -- directory; returns its path and its samples, or nil and why not
    local function run(prog, name)
      local why
      for _ = 1, 4 do
        local s, o, e = cmd.run({ "bash", "-c", "TIMEFORMAT='%3U %3S'; time ./" .. prog .. " >/dev/null" },
          { cwd = dir, timeout = 120 })
        assert(s == 0, cmd.show(s, o, e))
        local user, sys = e:match("([%d.]+) ([%d.]+)%s*$")
        assert(user, "no time from bash: " .. e)
        local cpu = tonumber(user) + tonumber(sys)
        local path = dir .. "/" .. name
        assert(os.rename(dir .. "/gmon.out", path))
        local p <close> = assert(lgprof.open(dir .. "/" .. prog, path))
        local ratio = p.total_time / cpu
        if ratio >= 0.8 and ratio <= 1.25 then return path, p.samples end
        why = ("%s: the histogram holds %.2f s of a run of %.2f s CPU"):format(name, p.total_time, cpu)
        redone = redone + 1
      end
      return nil, why
    end
    local base, slow, nb, ns = {}, {}, {}, {}
    for i = 1, 10 do
      local path, n = run("work", ("base.%02d"):format(i))
      if not path then return pending("the profiling timer lost ticks 4 times in a row: " .. n) end
      base[i], nb[i] = path, n
    end
    for i = 1, 3 do
      local path, n = run("slow", ("slow.%d"):format(i))
      if not path then return pending("the profiling timer lost ticks 4 times in a row: " .. n) end
      slow[i], ns[i] = path, n
    end
    -- (c) the bound for these totals
    local ps, pairs_bound = {}, 0
    for i = 1, 9 do ps[i] = p_false(nb[i], nb[i + 1], 1) end
    for i = 1, 9 do for j = i + 1, 9 do pairs_bound = pairs_bound + ps[i] * ps[j] end end
    -- the spread gate holds out the base run whose total is nearest the
    -- other nine's mean (a choice by the totals alone: given them, the
    -- functions' counts are the model's draws still)
    local held, mean9 = nil, nil
    for h = 1, 10 do
      local m = 0
      for i = 1, 10 do if i ~= h then m = m + nb[i] / 9 end end
      if not held or math.abs(nb[h] - m) < math.abs(nb[held] - mean9) then held, mean9 = h, m end
    end
    local nine = {}
    for i = 1, 10 do if i ~= held then nine[#nine + 1] = base[i] end end
    local bound = pairs_bound + p_false(mean9, nb[held], 9) + 2 * Q(0.15 / math.sqrt(0.24 / nb[1]))
    -- the rows each slowdown gate tests (Holm's family: every row of the diff)
    -- (the gate reads the slow runs with work's image, as below)
    local function rows(bases, new)
      local opened = {}
      for i, b in ipairs(bases) do opened[i] = assert(lgprof.open(dir .. "/work", b)) end
      local np = assert(lgprof.open(dir .. "/work", new))
      local m = #lgprof.diff(opened, np)
      for _, x in ipairs(opened) do x:close() end
      np:close()
      return m
    end
    bound = bound + p_miss(mean9, ns[1], 9, rows(nine, slow[1]))
    for i = 1, 3 do bound = bound + p_miss(nb[i], ns[i], 1, rows({ base[i] }, slow[i])) end
    local totals = ("bases %s; slowdowns %s"):format(table.concat(nb, " "), table.concat(ns, " "))
    if not (bound < 1e-4) then
      return pending(("the runs' totals give the promise a failure bound of %.2g > 1e-4: %s"):format(bound, totals))
    end
    local exe = dir .. "/work"
    -- b: a base run, or a list of them (--diff repeated)
    local function gate(b, new, confidence)
      local argv = {}
      for _, x in ipairs(type(b) == "table" and b or { b }) do table.move({ "--diff", x }, 1, 2, #argv + 1, argv) end
      if confidence then argv[#argv + 1] = "--confidence=" .. confidence end
      table.move({ "--max-growth=5%", exe, new }, 1, 3, #argv + 1, argv)
      local s, o, e = cmd.lgprof(argv)
      assert(s == 0 or s == 3, cmd.show(s, o, e))
      return s == 3, e
    end
    local failed, naive, why = 0, 0, {}
    for i = 1, 9 do
      local f, e = gate(base[i], base[i + 1])
      if f then failed = failed + 1; why[#why + 1] = e end
      if gate(base[i], base[i + 1], 0) then naive = naive + 1 end
    end
    local caught = 0
    for i = 1, 3 do
      if gate(base[i], slow[i]) then caught = caught + 1 end
    end
    -- the bases' spread: 9 of them against the one held out passes, against
    -- the slowdown fails
    local spread_same = gate(nine, base[held])
    local spread_slow = gate(nine, slow[1])
    -- the spread of the 10 runs against their sampling error (reported)
    local runs = {}
    for i = 1, 10 do runs[i] = assert(lgprof.open(exe, base[i])) end
    local excess = {}
    for _, r in ipairs(lgprof.spread(runs)) do
      if r.excess then excess[#excess + 1] = ("%s (sd %.3f s, error %.3f s)"):format(r.label, r.sd, r.error) end
    end
    for _, p in ipairs(runs) do p:close() end
    -- the fixture's shape: heavy holds about 40% of the time
    local p <close> = assert(lgprof.open(exe, base[1]))
    local heavy = p:find("heavy")
    io.stderr:write(("\n[noise] %d s of runs (%d redone: ticks lost); heavy %.1f%% of %d samples; " ..
      "5%% gate on 9 pairs: %d failed at 95%%, %d naive (--confidence=0); 2x slowdown caught %d/3; " ..
      "spread beyond sampling: %s; failure bound %.2g (%s)\n"):format(
      os.time() - started, redone, heavy.flat_percent, p.samples, failed, naive, caught,
      #excess > 0 and table.concat(excess, ", ") or "none", bound, totals))
    assert.is_true(heavy.flat_percent > 25 and heavy.flat_percent < 55, tostring(heavy.flat_percent))
    assert.is_true(failed <= 1, table.concat(why))
    assert.equal(3, caught)
    assert.is_false(spread_same)
    assert.is_true(spread_slow)
  end)
end)
