--- lgprof.spread: how much each function's self time varies over several runs.
local args = require "lgprof.args"
local fnkey = require "lgprof.fnkey"

local spread = {}

local function median(sorted)
  local n = #sorted
  if n % 2 == 1 then return sorted[(n + 1) // 2] end
  return (sorted[n // 2] + sorted[n // 2 + 1]) / 2
end

--- For a list of Profiles (one per run), per function (lgprof.fnkey identity)
-- active in at least one run: { key, label, name, file, is_static, min,
-- median, max, runs, self }, where self[i] is its self time (the flat
-- profile's) in run i, 0 in a run where it is absent or inactive, and runs
-- is the number of runs where it is active. Sorted by max descending, then
-- median descending, then name.
function spread.spread(profiles)
  args.check(type(profiles) == "table", 1, "spread",
    "list of Profiles expected, got " .. type(profiles))
  local nruns = #profiles
  local rows, byname = {}, {}
  for _, profile in ipairs(profiles) do args.check_profile(profile, 1, "spread") end
  local maps, orders = fnkey.collect_all(profiles)
  for i, order in ipairs(orders) do
    local map = maps[i]
    for _, key in ipairs(order) do
      local e = map[key]
      local row = byname[key]
      if not row then
        row = { key = key, label = e.label, name = e.name, file = e.file,
                is_static = e.is_static, runs = 0, self = {} }
        for j = 1, nruns do row.self[j] = 0 end
        byname[key] = row
        rows[#rows + 1] = row
      end
      row.self[i] = e.fn.flat_self
      row.runs = row.runs + 1
    end
  end
  for _, row in ipairs(rows) do
    local sorted = table.move(row.self, 1, nruns, 1, {})
    table.sort(sorted)
    row.min, row.median, row.max = sorted[1], median(sorted), sorted[nruns]
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
