--- lgprof.diff: compares profiles function by function, with the
-- significance of each change (the sampling error of both sides and, with
-- several base runs, their observed spread) and the split of a total-time
-- change into more calls and slower calls.
-- Functions are matched by identity (lgprof.fnkey: demangled name, plus for
-- a static function the shortest suffix of its source path that is unique
-- in both profiles); only functions active in either profile (sampled or
-- called) are listed. A perf.data's addresses in no mapping, which differ
-- from run to run, are one function "[unknown]" on each side
-- (fnkey.collect_all's unknown_as_one).
-- gcc's clones: by default (opts.clone_match ~= false) each profile opened
-- with gprof's rule by default (no clones option), which folds most clones
-- into the function before them, is read with the clones kept
-- (lgprof.fnkey.kept), and a clone
-- unmatched by name is matched to its origin (lookup.constprop.0 in one
-- build, lookup in the other) when the origin name is unique among the
-- functions unmatched in each profile (lgprof.fnkey.clone_aliases): its
-- row is labelled "NEW <- BASE" (lookup <- lookup.constprop.0).
local args = require "lgprof.util.args"
local fnkey = require "lgprof.analysis.fnkey"
local presence = require "lgprof.analysis.presence"
local stats = require "lgprof.analysis.stats"
local stacks = require "lgprof.analysis.stacks"

local diff = {}

--- The default confidence of the intervals and significance flags.
diff.CONFIDENCE = 0.95

local function share(delta, total)
  if total > 0 then return delta / total end
  return nil
end

-- Sorts rows in place by the size of the change: absolute total change,
-- then absolute self change (largest first), then name, then key. (The
-- comparator reads the absolute values from arrays, computed once: with
-- the tens of thousands of rows of a perf.data, a comparator that called
-- math.abs four times was most of a diff's time.)
local function sort_by_change(rows)
  local n = #rows
  local at, as, order = {}, {}, {}
  for i = 1, n do
    local r = rows[i]
    at[i], as[i], order[i] = math.abs(r.total_delta), math.abs(r.self_delta), i
  end
  table.sort(order, function(x, y)
    local ax, ay = at[x], at[y]
    if ax ~= ay then return ax > ay end
    ax, ay = as[x], as[y]
    if ax ~= ay then return ax > ay end
    local a, b = rows[x], rows[y]
    if a.name ~= b.name then return a.name < b.name end
    return a.key < b.key
  end)
  local sorted = {}
  for i = 1, n do sorted[i] = rows[order[i]] end
  table.move(sorted, 1, n, 1, rows)
end

-- The statistics of one measure ("self" or "total") of a row, in seconds.
-- counts: the measure as sample counts in each base run; new: in the new
-- run; period: seconds per sample; q: the two-sided quantile of the
-- confidence (0: no statistics, the interval is the point).
local function measure_stats(row, what, counts, new, period, q)
  local t = stats.count_test(counts, new)
  local se, cc = t.se * period, t.cc * period
  local d = row[what .. "_delta"]
  row[what .. "_error"] = se
  row[what .. "_sd"] = t.sd and t.sd * period
  row[what .. "_z"] = t.z
  row[what .. "_p"] = stats.p_two(t.z)
  row[what .. "_p_growth"] = stats.p_growth(t.z)
  row[what .. "_cc"] = cc
  local half = q > 0 and q * se + cc or 0
  row[what .. "_low"], row[what .. "_high"] = d - half, d + half
  -- the interval (continuity correction included) leaves out 0 exactly
  -- when the two-sided test rejects "no change" at the confidence
  row[what .. "_significant"] = d - half > 0 or d + half < 0
end

--- Checks a confidence level (a number or "0.95", "95%", from 0 to 1
-- excluded); returns it, or nil and what was expected.
function diff.confidence(v)
  local c = stats.confidence(v)
  if c then return c end
  return nil, "a confidence from 0 to 1, 1 excluded (0.95 or 95%; 0: no statistics)"
end

-- Checks lgprof.diff's options; returns the confidence and whether clones
-- are matched.
local function check_options(opts)
  if opts == nil then return diff.CONFIDENCE, true end
  args.check(type(opts) == "table", 3, "diff", "table expected, got " .. type(opts))
  for k in pairs(opts) do
    args.check(k == "confidence" or k == "clone_match", 3, "diff",
      ("unknown option '%s'"):format(tostring(k)))
  end
  args.check(opts.clone_match == nil or type(opts.clone_match) == "boolean", 3, "diff",
    "clone_match: boolean expected, got " .. type(opts.clone_match))
  local match = opts.clone_match ~= false
  if opts.confidence == nil then return diff.CONFIDENCE, match end
  local c, expected = diff.confidence(opts.confidence)
  args.check(c, 3, "diff", ("confidence: %s expected, got %s"):format(expected,
    tostring(opts.confidence)))
  return c, match
end

-- collect_all over the profiles (the bases, then the new one), with the
-- clones matched unless match is false (two sides: the bases, the new one).
-- census: fnkey.collect_all's of profiles with the same symbols, or nil.
local function collect(profiles, match, census)
  local maps, orders, families
  maps, orders, families, census = fnkey.collect_all(profiles, { unknown_as_one = true, census = census })
  if not match then return maps, orders, families, {}, census end
  local bases = {}
  for i = 1, #maps - 1 do
    for key, e in pairs(maps[i]) do bases[key] = bases[key] or e end
  end
  local alias, ambiguous = fnkey.clone_aliases({ bases, maps[#maps] })
  fnkey.apply_aliases(alias, maps, orders)
  -- the ambiguous groups by the labels of their functions
  local said = {}
  for _, g in ipairs(ambiguous) do
    local labels = {}
    for _, key in ipairs(g.keys) do
      local e = maps[#maps][key] or bases[key]
      labels[#labels + 1] = e and e.label or key
    end
    said[#said + 1] = { origin = g.origin, labels = labels }
  end
  return maps, orders, families, said, census
end

-- The base argument as a list of Profiles.
local function base_list(base)
  if args.is_profile(base) then return { base } end
  args.check(type(base) == "table" and #base > 0, 1, "diff",
    "Profile or non-empty list of Profiles expected, got " .. type(base))
  for i = 1, #base do
    if not args.is_profile(base[i]) then
      args.error(("bad argument #1 to 'diff' (Profile expected at [%d], got %s)"):format(i,
        type(base[i])))
    end
  end
  return table.move(base, 1, #base, 1, {})
end

--- Compares Profile `new` with Profile `base`, or with a list of base
-- Profiles (runs of the same workload: their mean is the base and their
-- spread counts in the error). opts: { confidence = 0.95 (0: no
-- statistics), clone_match = true (false: profiles as opened, functions
-- matched by identity only) }. A row matched through a clone's name has
-- clone_match true, base_name (the base's name) and label "NEW <- BASE".
-- Returns a list of rows sorted by the size of the change
-- (absolute total change, then absolute self change, then name), with the
-- fields base_total and new_total (the profiles' total_time; the bases'
-- mean), base_samples, new_samples, base_runs, confidence, period (seconds
-- per sample), ambiguous (the clones of one origin left unmatched because a
-- side holds two: { origin =, labels = { ... } }) and matching (the
-- profiles compared and, for each, Function -> row key). See
-- doc/scripting.md (lgprof.diff) and doc/trust.md (the test of a change).
function diff.diff(base, new, opts)
  return diff._diff(base, new, opts)
end

--- diff.diff, and like: the matching of an earlier result (rows.matching)
-- whose profiles hold the same symbols as these (profile:filter's of them),
-- so that the functions' keys are not made again (fnkey.collect_all's
-- census): the comparison page's threads and binaries.
function diff._diff(base, new, opts, like)
  local profiles = base_list(base)
  args.check_profile(new, 2, "diff")
  local confidence, match = check_options(opts)
  local q = confidence > 0 and stats.quantile((1 + confidence) / 2) or 0
  local k = #profiles
  profiles[k + 1] = new
  if match then
    for i = 1, k + 1 do profiles[i] = fnkey.kept(profiles[i]) end
    new = profiles[k + 1]
  end
  local maps, orders, families, ambiguous, census = collect(profiles, match, like and like.census)
  local base_total, base_samples = 0, 0
  for i = 1, k do
    base_total = base_total + profiles[i].total_time
    base_samples = base_samples + profiles[i].samples
  end
  base_total, base_samples = base_total / k, base_samples / k
  -- seconds per sample (profiles of one program share it; else the longest)
  local period = new.sample_period
  for i = 1, k do period = math.max(period, profiles[i].sample_period) end
  -- a profile of sampled stacks (perf.data) recorded no calls, unless
  -- gmon.out of the same run gave them (lgprof.open's option perf)
  local calls_recorded = true
  for i = 1, k + 1 do
    local p = profiles[i]
    calls_recorded = calls_recorded and (p.source ~= "stacks" or p.calls_source == "gmon")
  end
  -- what the times count: seconds, or the events of a perf.data event
  -- that is not time when every profile counts that one
  local unit = stacks.event(new)
  for i = 1, k do
    if stacks.event(profiles[i]) ~= unit then unit = nil end
  end
  local rows = { base_total = base_total, new_total = new.total_time, base_runs = k,
                 base_samples = base_samples, new_samples = new.samples,
                 confidence = confidence, calls_recorded = calls_recorded, unit = unit,
                 ambiguous = ambiguous, period = period }
  -- how each side's functions match the rows, for the pictures that match
  -- stacks frame by frame (lgprof.analysis.difftree): the profiles compared
  -- (clones kept), and for each, Function -> the key of its row
  local key_of = {}
  for i = 1, k + 1 do
    local m = {}
    for key, e in pairs(maps[i]) do
      -- (the addresses in no mapping: each of them, not the sum standing
      -- for them, is a Function of that side)
      if e.members then
        for _, fn in ipairs(e.members) do m[fn] = key end
      else
        m[e.fn] = key
      end
    end
    key_of[i] = m
  end
  rows.matching = { profiles = profiles, key_of = key_of, census = census }
  local nmap = maps[k + 1]
  local function add(key)
    local n, e = nmap[key], nmap[key]
    local e_side = n and k + 1
    local selfs, totals = {}, {}
    local sb, tb, cb, present = 0, 0, 0, 0
    for i = 1, k do
      local b = maps[i][key]
      selfs[i], totals[i] = 0, 0
      if b then
        if not e then e, e_side = b, i end
        present = present + 1
        local fn = b.fn
        -- (a function gmon.out cannot count, in a library, has none)
        sb, tb, cb = sb + fn.flat_self, tb + fn.total, cb + (fn.calls or 0) + (fn.self_calls or 0)
        selfs[i] = fn.samples
        totals[i] = period > 0 and fn.total / period or 0
      end
    end
    -- (calls stay integers when the mean is one)
    sb, tb, cb = sb / k, tb / k, cb % k == 0 and cb // k or cb / k
    local ns, nt, nc, nsamples = 0, 0, 0, 0
    if n then
      local fn = n.fn
      ns, nt, nc, nsamples = fn.flat_self, fn.total, (fn.calls or 0) + (fn.self_calls or 0), fn.samples
    end
    -- new and gone: absent from that side's symbols (a clone's origin
    -- standing for the clone), not merely idle in its run (a function that
    -- was neither sampled nor called there is in both, with 0 on one side).
    -- A perf.data's symbols are only the functions its frames met: its
    -- binaries' symbol tables tell (lgprof.analysis.presence)
    local function holds(i)
      local yes
      if match then yes = families[i].families[e.family] else yes = families[i].keys[key] end
      if yes then return true end
      return presence.holds(profiles[e_side], e.fn, profiles[i], match) == true
    end
    local status = "common"
    if present == 0 then
      status = "added"
      for i = 1, k do
        if holds(i) then status = "common" end
      end
    elseif not n and not holds(k + 1) then
      status = "removed"
    end
    local label, base_name = e.label, nil
    for i = 1, k do -- matched through a clone's name: "NEW <- BASE"
      local b = maps[i][key]
      if b and n and b.key ~= n.key then
        label, base_name = n.label .. " <- " .. b.label, b.name
        break
      end
    end
    local row = {
      key = key, name = e.name, file = e.file, is_static = e.is_static, label = label,
      base_name = base_name, clone_match = base_name ~= nil,
      frame_label = (n or e).label,
      status = status,
      base_present = present,
      self_base = sb, self_new = ns, self_delta = ns - sb, self_share = share(ns - sb, base_total),
      total_base = tb, total_new = nt, total_delta = nt - tb,
      total_share = share(nt - tb, base_total),
      calls_base = cb, calls_new = nc, calls_delta = nc - cb,
    }
    -- calls are exact: more calls at the base's time per call, and the rest
    -- is the time per call. With no base call, all of it is per call.
    row.calls_effect = cb > 0 and row.calls_delta * (tb / cb) or 0
    row.per_call_effect = row.total_delta - row.calls_effect
    if not calls_recorded then -- no call was counted: no count, no split by calls
      row.calls_base, row.calls_new, row.calls_delta = nil, nil, nil
      row.calls_effect, row.per_call_effect = nil, nil
    end
    measure_stats(row, "self", selfs, nsamples, period, q)
    measure_stats(row, "total", totals, period > 0 and nt / period or 0, period, q)
    row.significant = row.self_significant or row.total_significant
    rows[#rows + 1] = row
  end
  local seen = {}
  for i = 1, k + 1 do
    for _, key in ipairs(orders[i]) do
      if not seen[key] then
        seen[key] = true
        add(key)
      end
    end
  end
  sort_by_change(rows)
  return rows
end

local function signed(v, fmt)
  if v == nil then return "-" end
  local s = fmt:format(v)
  if s:match("^%-0[%.0]*$") then s = s:sub(2) end -- no "-0.00"
  if s:sub(1, 1) ~= "-" then s = "+" .. s end
  return s
end

-- A number of calls: an integer, or a mean over base runs with one decimal.
local function calls_text(v)
  if math.type(v) == "integer" or v == math.floor(v) then return ("%d"):format(v) end
  return ("%.1f"):format(v)
end

local function percent_of_confidence(c)
  local s = ("%.1f"):format(100 * c):gsub("%.0$", "")
  return s .. "%"
end

--- Writes a diff result as an aligned table to a file handle (default io.stdout).
-- Columns: total change (seconds, the half-width of its confidence interval,
-- % of base, * when significant), the same for self, the calls of both
-- sides, and the total change split into more calls and time per call.
-- With confidence 0 the intervals and marks are left out.
function diff.write(result, file)
  file = file or io.stdout
  local base, new = result.base_total, result.new_total
  local c = result.confidence or 0
  local stat = c > 0
  local change = base > 0 and (" (%s%% of base)"):format(signed(100 * (new - base) / base, "%.1f"))
    or ""
  local runs = (result.base_runs or 1) > 1 and (" (mean of %d runs)"):format(result.base_runs) or ""
  local unit = result.unit or "seconds"
  file:write(("base %.2f %s%s, new %.2f %s, change %s %s%s\n"):format(
    base, unit, runs, new, unit, signed(new - base, "%.2f"), unit, change))
  if stat then
    local pc = percent_of_confidence(c)
    file:write(("+-: the %s confidence interval's half-width; *: significant at %s\n"):format(
      pc, pc))
  end
  file:write("\n")
  -- columns: { second header line, group (first header line) }
  local cols = {}
  local function col(head, group) cols[#cols + 1] = { head = head, group = group } end
  col(unit, "total change")
  if stat then col("+-", "total change") end
  col("% base", "total change")
  col(unit, "self change")
  if stat then col("+-", "self change") end
  col("% base", "self change")
  -- (perf.data recorded no calls: no calls columns)
  local calls = result.calls_recorded ~= false
  if calls then
    col("base", "calls"); col("new", "calls")
    col("calls", "total change from"); col("per call", "total change from")
  end
  local cells = {}
  for i, r in ipairs(result) do
    local label = r.label
    if r.status == "added" then label = label .. " (new)"
    elseif r.status == "removed" then label = label .. " (gone)" end
    local row = {}
    local function measure(what)
      row[#row + 1] = signed(r[what .. "_delta"], "%.2f")
      if stat then
        row[#row + 1] = ("%.2f"):format((r[what .. "_high"] - r[what .. "_low"]) / 2)
      end
      local pct = signed(r[what .. "_share"] and 100 * r[what .. "_share"], "%.1f")
      if stat then pct = pct .. (r[what .. "_significant"] and "*" or " ") end
      row[#row + 1] = pct
    end
    measure("total"); measure("self")
    if calls then
      row[#row + 1] = calls_text(r.calls_base)
      row[#row + 1] = calls_text(r.calls_new)
      row[#row + 1] = signed(r.calls_effect, "%.2f")
      row[#row + 1] = signed(r.per_call_effect, "%.2f")
    end
    row[#row + 1] = label
    cells[i] = row
  end
  local ncol = #cols
  local width = {}
  for j = 1, ncol do
    local w = #cols[j].head
    for _, row in ipairs(cells) do w = math.max(w, #row[j]) end
    width[j] = w
  end
  -- the first header line spans the columns of a group, which widen to fit it
  local groups = {}
  for j = 1, ncol do
    local g = groups[#groups]
    if g and g.name == cols[j].group then g.last = j
    else groups[#groups + 1] = { name = cols[j].group, first = j, last = j } end
  end
  local function span(g)
    local w = 0
    for j = g.first, g.last do w = w + width[j] end
    return w + 2 * (g.last - g.first)
  end
  for _, g in ipairs(groups) do
    local s = span(g)
    if #g.name > s then width[g.first] = width[g.first] + #g.name - s end
  end
  local out = {}
  for gi, g in ipairs(groups) do out[gi] = (" "):rep(span(g) - #g.name) .. g.name end
  file:write((table.concat(out, "  "):gsub("%s+$", "")), "\n")
  local function line(row)
    local o = {}
    for j = 1, ncol do o[j] = (" "):rep(width[j] - #row[j]) .. row[j] end
    o[ncol + 1] = row[ncol + 1]
    return table.concat(o, "  ") .. "\n"
  end
  local head = {}
  for j = 1, ncol do head[j] = cols[j].head end
  head[ncol + 1] = "function"
  file:write(line(head))
  for _, row in ipairs(cells) do file:write(line(row)) end
end

return diff
