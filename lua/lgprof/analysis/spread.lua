--- lgprof.spread: how much each function's self time varies over several
-- runs, next to what sampling alone explains.
local args = require "lgprof.util.args"
local fnkey = require "lgprof.analysis.fnkey"
local stats = require "lgprof.analysis.stats"

local spread = {}

local function median(sorted)
  local n = #sorted
  if n % 2 == 1 then return sorted[(n + 1) // 2] end
  return (sorted[n // 2] + sorted[n // 2 + 1]) / 2
end

-- The spread against sampling: the index of dispersion of the counts
-- (sample variance over mean: 1 for Poisson counts) and its test, the
-- dispersion test: (n - 1) S^2 / mean is chi-square with n - 1 degrees of
-- freedom when the runs differ by sampling alone.
local function dispersion(row, counts, n, alpha)
  local mean, s2 = stats.mean_var(counts)
  row.sd_samples = math.sqrt(s2)
  if n < 2 or mean <= 0 then
    row.dispersion, row.dispersion_p, row.excess = nil, nil, false
    return
  end
  row.dispersion = s2 / mean
  row.dispersion_p = stats.chi2_upper((n - 1) * s2 / mean, n - 1)
  row.excess = row.dispersion_p < alpha
end

--- For a list of Profiles (one per run), per function (lgprof.fnkey identity)
-- active in at least one run: { key, label, name, file, is_static, min,
-- median, max, mean, sd, runs, self, samples, self_error, error, dispersion,
-- dispersion_p, excess }, where self[i] is its self time (the flat
-- profile's) in run i, 0 in a run where it is absent or inactive,
-- samples[i] its samples there, self_error[i] the sampling error of self[i]
-- (sqrt(samples) x sample period, fn.self_error), sd the observed standard
-- deviation of self over the runs (n - 1; 0 for one run), error the
-- sampling error of one run at the mean (sqrt(mean samples) x period), and
-- excess true when the spread exceeds what sampling explains (the
-- dispersion test at opts.confidence, default 0.95). runs is the number of
-- runs where it is active. Sorted by max descending, then median
-- descending, then name.
-- gcc's clones (opts.clone_match ~= false): as lgprof.diff, profiles opened
-- with gprof's rule are read with the clones kept, and a clone is matched
-- to its origin across the runs (lgprof.fnkey.clone_aliases); such a row
-- has clone_match true and the label "FIRST <- OTHER".
function spread.spread(profiles, opts)
  args.check(type(profiles) == "table", 1, "spread",
    "list of Profiles expected, got " .. type(profiles))
  local confidence, match = 0.95, true
  if opts ~= nil then
    args.check(type(opts) == "table", 2, "spread", "table expected, got " .. type(opts))
    for k in pairs(opts) do
      args.check(k == "confidence" or k == "clone_match", 2, "spread",
        ("unknown option '%s'"):format(tostring(k)))
    end
    args.check(opts.clone_match == nil or type(opts.clone_match) == "boolean", 2, "spread",
      "clone_match: boolean expected, got " .. type(opts.clone_match))
    match = opts.clone_match ~= false
    if opts.confidence ~= nil then
      confidence = stats.confidence(opts.confidence)
      args.check(confidence, 2, "spread", "confidence: a number from 0 to 1 (1 excluded) expected")
    end
  end
  local nruns = #profiles
  local rows, byname = {}, {}
  for _, profile in ipairs(profiles) do args.check_profile(profile, 1, "spread") end
  if match then
    local kept = {}
    for i, p in ipairs(profiles) do kept[i] = fnkey.kept(p) end
    profiles = kept
  end
  local maps, orders = fnkey.collect_all(profiles)
  if match then fnkey.apply_aliases(fnkey.clone_aliases(maps), maps, orders) end
  for i, order in ipairs(orders) do
    local map = maps[i]
    for _, key in ipairs(order) do
      local e = map[key]
      local row = byname[key]
      if not row then
        row = { key = key, label = e.label, name = e.name, file = e.file,
                is_static = e.is_static, runs = 0, self = {}, samples = {}, self_error = {},
                names = {} }
        for j = 1, nruns do row.self[j], row.samples[j], row.self_error[j] = 0, 0, 0 end
        byname[key] = row
        rows[#rows + 1] = row
      end
      if e.key ~= row.key and not row.names[e.label] then -- matched through a clone's name
        row.names[e.label] = true
        row.label = row.label .. " <- " .. e.label
        row.clone_match = true
      end
      row.self[i] = e.fn.flat_self
      row.samples[i] = e.fn.samples
      row.self_error[i] = e.fn.self_error
      row.runs = row.runs + 1
    end
  end
  local period = 0
  for _, p in ipairs(profiles) do period = math.max(period, p.sample_period) end
  for _, row in ipairs(rows) do
    local sorted = table.move(row.self, 1, nruns, 1, {})
    table.sort(sorted)
    row.min, row.median, row.max = sorted[1], median(sorted), sorted[nruns]
    local mean, var = stats.mean_var(row.self)
    row.mean, row.sd = mean, math.sqrt(var)
    local msamples = stats.mean_var(row.samples)
    row.error = math.sqrt(msamples) * period
    dispersion(row, row.samples, nruns, 1 - confidence)
  end
  table.sort(rows, function(a, b)
    if a.max ~= b.max then return a.max > b.max end
    if a.median ~= b.median then return a.median > b.median end
    if a.name ~= b.name then return a.name < b.name end
    return a.key < b.key
  end)
  return rows
end

return spread
