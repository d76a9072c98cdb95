--- lgprof.stats: the few statistics the diffs and gates need (no external
-- library): the standard normal distribution, the two-sample test on sample
-- counts, confidence bounds and Holm's step-down over a family of tests.
local stats = {}

local SQRT2 = math.sqrt(2)

-- erfc(x), with a fractional error below 1.2e-7 everywhere (Press et al.,
-- Numerical Recipes, "erfcc": a Chebyshev fit of erfc(z) exp(z^2)); its
-- relative accuracy holds far in the tail, where 1 - erf(x) would cancel.
local function erfc(x)
  local z = math.abs(x)
  local t = 1 / (1 + 0.5 * z)
  local r = t * math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 +
    t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 +
    t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
  if x >= 0 then return r end
  return 2 - r
end

--- Phi(x): P(Z <= x) for a standard normal Z.
function stats.cdf(x) return 0.5 * erfc(-x / SQRT2) end

--- Q(x) = 1 - Phi(x), accurate in the upper tail.
function stats.upper(x) return 0.5 * erfc(x / SQRT2) end

-- Acklam's rational approximations of the normal quantile (relative error
-- below 1.15e-9), central region and tails.
local A = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
            1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 }
local B = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
            6.680131188771972e+01, -1.328068155288572e+01 }
local C = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
            -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 }
local D = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
            3.754408661907416e+00 }
local P_LOW = 0.02425

--- The standard normal quantile: x with Phi(x) = p, for 0 < p < 1
-- (-inf at 0, +inf at 1).
function stats.quantile(p)
  if p <= 0 then return -math.huge end
  if p >= 1 then return math.huge end
  if p < P_LOW then
    local q = math.sqrt(-2 * math.log(p))
    return (((((C[1] * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) * q + C[6]) /
      ((((D[1] * q + D[2]) * q + D[3]) * q + D[4]) * q + 1)
  elseif p <= 1 - P_LOW then
    local q = p - 0.5
    local r = q * q
    return (((((A[1] * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * r + A[6]) * q /
      (((((B[1] * r + B[2]) * r + B[3]) * r + B[4]) * r + B[5]) * r + 1)
  end
  local q = math.sqrt(-2 * math.log(1 - p))
  return -(((((C[1] * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) * q + C[6]) /
    ((((D[1] * q + D[2]) * q + D[3]) * q + D[4]) * q + 1)
end

--- The mean and the sample variance (n - 1 in the denominator; 0 for
-- fewer than two values) of a list of numbers.
function stats.mean_var(values)
  local n, sum = #values, 0
  for i = 1, n do sum = sum + values[i] end
  local mean = n > 0 and sum / n or 0
  if n < 2 then return mean, 0 end
  local ss = 0
  for i = 1, n do ss = ss + (values[i] - mean) ^ 2 end
  return mean, ss / (n - 1)
end

--- The two-sample test on sample counts. base: the counts of the k base
-- runs (a list), new: the count of the new run. Each run is one exposure
-- (the same workload). Under "no change" the k + 1 counts are Poisson with
-- one mean m, estimated from all of them: m = (sum(base) + new) / (k + 1).
-- The per-run variance is the larger of m (Poisson) and the sample variance
-- of the base counts (their observed spread, k >= 2). The difference
-- d = new - mean(base) has the standard error se = sqrt(v (1 + 1/k)), and
-- the continuity correction is cc = (k + 1) / (2k) (half a count of `new`
-- in the conditional binomial test: with v = m, (|d| - cc) / se is exactly
-- the normal approximation, with continuity correction, to the binomial
-- test of new ~ Bin(sum(base) + new, 1 / (k + 1))). Returns
-- { d, se, cc, z, sd (the observed standard deviation of the base counts,
-- nil for k = 1), poisson (true when m >= the sample variance) } where z is
-- the signed corrected statistic sign(d) max(0, |d| - cc) / se (0 when se = 0).
function stats.count_test(base, new)
  local k = #base
  local mean, s2 = stats.mean_var(base)
  local m = (mean * k + new) / (k + 1)
  local v = math.max(m, s2)
  local se = math.sqrt(v * (1 + 1 / k))
  local d = new - mean
  local cc = (k + 1) / (2 * k)
  local z = 0
  if se > 0 then
    z = math.max(0, math.abs(d) - cc) / se
    if d < 0 then z = -z end
  end
  return { d = d, se = se, cc = cc, z = z, sd = k > 1 and math.sqrt(s2) or nil,
           poisson = m >= s2 }
end

--- The two-sided p-value of a signed z (P(|Z| >= |z|)) and the one-sided
-- p-value of a growth (P(Z >= z)).
function stats.p_two(z) return math.min(1, 2 * stats.upper(math.abs(z))) end
function stats.p_growth(z) return stats.upper(z) end

--- Holm's step-down over a family of one-sided tests at level alpha.
-- ps: a list of p-values. Returns a list of booleans (rejected) and a list
-- of the levels each p-value is compared with (alpha / (m - j + 1) for the
-- j-th smallest). Ties keep the list order.
function stats.holm(ps, alpha)
  local m = #ps
  local order = {}
  for i = 1, m do order[i] = i end
  table.sort(order, function(a, b)
    if ps[a] ~= ps[b] then return ps[a] < ps[b] end
    return a < b
  end)
  local rejected, level = {}, {}
  local going = true
  for j, i in ipairs(order) do
    level[i] = alpha / (m - j + 1)
    going = going and ps[i] <= level[i]
    rejected[i] = going
  end
  return rejected, level
end

--- P(X >= x) for X chi-square with nu degrees of freedom, by the
-- Wilson-Hilferty approximation: (X / nu)^(1/3) is close to normal with
-- mean 1 - 2 / (9 nu) and variance 2 / (9 nu) (within about 0.01 of the
-- exact tail from nu = 2 on, closer as nu grows).
function stats.chi2_upper(x, nu)
  if x <= 0 then return 1 end
  local v = 2 / (9 * nu)
  return stats.upper(((x / nu) ^ (1 / 3) - (1 - v)) / math.sqrt(v))
end

--- Checks a confidence level: a number or a string ("0.95", "95%") from 0
-- to 1 excluded, read as every share is (lgprof.util.args.share). Returns
-- it or nil.
function stats.confidence(v)
  local c = require("lgprof.util.args").share(v, 1)
  if not c or c >= 1 then return nil end
  return c
end

return stats
