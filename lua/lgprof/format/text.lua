--- lgprof.textreport: lgprof's own flat profile, in gprof's spirit, that
-- says which numbers to believe (`lgprof --format=text`,
-- lgprof.report.text).
--
--   textreport.write(profile, file [, options])  -> true | nil, message
--   textreport.render(profile [, options])       -> the report as a string
--
-- Each function's self time with its sampling error (one standard error:
-- sqrt(samples) sample periods; perf.data's samples weigh their own
-- periods: the mean of the function's), its samples and calls, and its total time
-- (gprof's estimate) with the bounds the data proves, [total_min ..
-- total_max]. Functions with fewer samples than the noise floor are not
-- ranked: they follow, by name, under a header that says so.
--
-- options: noise_floor (samples, default 10; 0 ranks every function),
-- zeros (list functions never sampled nor called too, as -z), brief (no
-- legend, as -b).
local args = require "lgprof.util.args"

local textreport = {}

local FIELDS = { noise_floor = true, zeros = true, brief = true }
textreport.NOISE_FLOOR = 10

local function check_options(options, what)
  args.check(options == nil or type(options) == "table", 3, what,
    "table expected, got " .. type(options))
  options = options or {}
  for k in pairs(options) do
    if not FIELDS[k] then
      args.error(("bad argument #3 to '%s' (unknown option '%s'; options: brief, "
        .. "noise_floor, zeros)")
        :format(what, tostring(k)))
    end
  end
  local floor = options.noise_floor
  if floor == nil then floor = textreport.NOISE_FLOOR end
  args.check(type(floor) == "number" and floor >= 0 and floor < math.huge, 3, what,
    "option 'noise_floor' must be a number of samples >= 0")
  for _, k in ipairs { "zeros", "brief" } do
    args.check(options[k] == nil or type(options[k]) == "boolean", 3, what,
      ("option '%s' must be a boolean"):format(k))
  end
  return { noise_floor = floor, zeros = options.zeros or false, brief = options.brief or false }
end

-- Decimals for seconds: gprof's two, more when a sample is shorter than a
-- hundredth of a second (a sample's worth stays visible).
local function decimals(period)
  if not period or period <= 0 then return 2 end
  return math.max(2, math.ceil(-math.log(period, 10) - 1e-9))
end

-- Samples: whole (a bin split over two functions credits fractions; one
-- decimal then, unless it rounds to a whole number).
local function samples_text(n)
  local r = math.floor(n + 0.5)
  if math.abs(n - r) < 0.05 then return ("%d"):format(r) end
  return ("%.1f"):format(n)
end

local function plural(n, word)
  return samples_text(n) .. " " .. word .. (n == 1 and "" or "s")
end

local function width(s) return utf8.len(s) or #s end

local function pad_left(s, w) return (" "):rep(w - width(s)) .. s end
local function pad_right(s, w) return s .. (" "):rep(w - width(s)) end

-- The cells of one function's row.
local function cells(fn, sec)
  local total = sec(fn.total) .. " [" .. sec(fn.total_min) .. " .. " .. sec(fn.total_max) .. "]"
  local calls = ""
  if fn.calls and (fn.calls > 0 or fn.self_calls > 0) then -- (nil: sampled stacks, no calls)
    calls = tostring(fn.calls) .. (fn.self_calls > 0 and "+" .. fn.self_calls or "")
  end
  return {
    ("%.2f"):format(fn.flat_percent),
    sec(fn.flat_self), sec(fn.self_error),
    samples_text(fn.samples),
    calls,
    total,
    fn.name .. (fn.is_spontaneous and " (spontaneous)" or ""),
  }
end

local AMBIGUOUS_SHOWN, CYCLE_NAMES = 10, 5

local HEAD = { "% time", "self", "error", "samples", "calls", "total [min .. max]", "name" }

local LEGEND = [[
 % time   the function's share of the samples (the flat profile's % time)
 self     seconds sampled in the function itself, ± one standard error:
          sqrt(samples) sample periods; a second run differs by about that
 samples  histogram samples in it (a fraction when a bin spans two functions)
 calls    calls from other functions (exact; +N: recursive calls)
 total    the function and what it calls: gprof's estimate (it charges
          a callee's time to callers by call counts, as if every call cost
          the same), then [min .. max], what the call graph proves whatever
          each call cost: min adds the self time of what is reached only
          through the function, max of everything it reaches
 (spontaneous)  its callers were not profiled (gprof's <spontaneous>): the
          bounds below it assume nothing else calls in
]]

-- The legend for a perf.data's profile: its samples are recorded stacks.
local LEGEND_STACKS = [[
 Samples are stacks recorded in perf.data: self and total are measured
 (sampled); a sampler counts no call, so no column counts them.
 % time   the function's share of the samples
 self     seconds sampled in the function itself, ± one standard error:
          sqrt(samples) times the mean period of its samples (their
          seconds / sqrt(samples)); a second run differs by about that
 samples  samples whose leaf is in it
 total    seconds of the samples with the function on their stack: [min ..
          max] are the total itself
]]

--- The report as a string (a Profile or a view).
function textreport.render(profile, options)
  args.check_profile(profile, 1, "text")
  local o = check_options(options, "text")
  local period = profile.sample_period
  local d = decimals(period)
  local function sec(x) return ("%." .. d .. "f"):format(x) end
  local ranked, noisy, noisy_samples, ranked_samples = {}, {}, 0, 0
  local function add(fn)
    if fn.samples >= o.noise_floor then
      ranked[#ranked + 1] = fn
      ranked_samples = ranked_samples + fn.samples
    else
      noisy[#noisy + 1] = fn
      noisy_samples = noisy_samples + fn.samples
    end
  end
  -- the flat profile's rows in its order, then the functions only the call
  -- graph shows (main: no samples, no recorded call, but all the time below)
  local seen = {}
  for fn in profile:flat { zeros = o.zeros } do
    seen[fn] = true
    add(fn)
  end
  for fn in profile:functions() do
    if not seen[fn] and fn.in_graph then add(fn) end
  end
  table.sort(noisy, function(a, b)
    if a.name ~= b.name then return a.name < b.name end
    return a.address < b.address
  end)
  local rows_ranked, rows_noisy = {}, {}
  for i, fn in ipairs(ranked) do rows_ranked[i] = cells(fn, sec) end
  for i, fn in ipairs(noisy) do rows_noisy[i] = cells(fn, sec) end
  -- one set of column widths for both tables (they read as one)
  local w = {}
  for k, h in ipairs(HEAD) do w[k] = width(h) end
  for _, rows in ipairs { rows_ranked, rows_noisy } do
    for _, r in ipairs(rows) do
      for k = 1, #r - 1 do w[k] = math.max(w[k], width(r[k])) end
    end
  end
  -- the self column: "self ± error", the sign lined up; no calls column
  -- for perf.data alone (a sampler counts none)
  local nocalls = profile.source == "stacks" and profile.calls_source ~= "gmon"
  local function row(r)
    local self = pad_left(r[2], w[2]) .. " ± " .. pad_right(r[3], w[3])
    local cols = { pad_left(r[1], w[1]), self, pad_left(r[4], w[4]) }
    if not nocalls then cols[#cols + 1] = pad_left(r[5], w[5]) end
    cols[#cols + 1] = pad_right(r[6], w[6])
    cols[#cols + 1] = r[7]
    return table.concat(cols, "  ")
  end
  local function line(r) return (row(r):gsub("%s+$", "")) end
  local heading = line(HEAD)
  local out = {}
  local function put(...)
    for i = 1, select("#", ...) do out[#out + 1] = select(i, ...) end
  end
  local samples = profile.samples
  put("Flat profile with sampling error and attribution bounds\n\n")
  if period and period > 0 and profile.source == "stacks" then
    -- a sample weighs its own period: the rate and period are the means
    local event = profile:_stack_evidence().event or "samples"
    local of = require("lgprof.format.groups").program_text({ program = profile.image,
      command = profile.command })
    if profile.hz > 0 then
      put(("Each sample is a stack of %s from perf.data (%s, %d Hz: %.4g ms per sample); %s.\n")
        :format(of, event, profile.hz, period * 1000, plural(samples, "sample")))
    else
      put(("Each sample is a stack of %s from perf.data (%s: %.4g events per sample); %s.\n")
        :format(of, event, period, plural(samples, "sample")))
    end
  elseif period and period > 0 then
    put(("Each sample counts as %g seconds (%d Hz); %s.\n"):format(period, profile.hz,
      plural(samples, "sample")))
  end
  if period and period > 0 then
    local total, err = profile.total_time, math.sqrt(samples) * period
    put(("Total time: %s ± %s seconds%s.\n"):format(sec(total), sec(err),
      total > 0 and (" (± %.1f%%)"):format(100 * err / total) or ""))
  elseif profile.source == "stacks" then
    put("No sample: the recording (or the samples kept) holds none, so no times.\n")
  else
    put("No sampling rate: the profile has no histogram, so no self times.\n")
  end
  put(("Noise floor: %s (relative error %s at the floor).\n"):format(
    plural(o.noise_floor, "sample"),
    o.noise_floor > 0 and ("%.0f%%"):format(100 / math.sqrt(o.noise_floor)) or "unbounded"))
  if not o.brief then
    local legend = LEGEND
    if profile.source == "stacks" and profile.calls_source == "gmon" then
      legend = LEGEND_STACKS:gsub("; a sampler counts no call, so no column counts them%.",
        ", nothing is estimated from arcs; calls are counted by gmon.out.")
    elseif profile.source == "stacks" then
      legend = LEGEND_STACKS
    end
    put("\n", legend)
  end
  put("\n", "Times in seconds.\n\n", heading, "\n")
  for _, r in ipairs(rows_ranked) do put(line(r), "\n") end
  if #ranked == 0 then put("  (no function has as many samples as the noise floor)\n") end
  if #noisy > 0 then
    local share = samples > 0 and (", %.1f%% of them"):format(100 * noisy_samples / samples) or ""
    put(("\nBelow the noise floor (fewer than %s each), not ranked, by name:\n%s, %s%s\n\n")
      :format(plural(o.noise_floor, "sample"), plural(#noisy, "function"),
        plural(noisy_samples, "sample"), share))
    put(heading, "\n")
    for _, r in ipairs(rows_noisy) do put(line(r), "\n") end
  end
  -- the callees whose attribution rests on gprof's assumption
  local amb = profile:ambiguous()
  if #amb > 0 then
    put("\nShared callees: gprof splits their time between their callers by calls,\n",
      "as if every call cost the same; their callers' totals are estimates.\n\n")
    local aw = width("time")
    for k = 1, math.min(#amb, AMBIGUOUS_SHOWN) do aw = math.max(aw, width(sec(amb[k].time))) end
    put(pad_left("time", aw), "  callers  name\n")
    for k = 1, math.min(#amb, AMBIGUOUS_SHOWN) do
      local e = amb[k]
      put(pad_left(sec(e.time), aw), "  ", pad_left(tostring(e.callers), 7), "  ", e.func.name,
        "\n")
    end
    if #amb > AMBIGUOUS_SHOWN then
      put(("... and %d more (profile:ambiguous() lists them all)\n"):format(#amb - AMBIGUOUS_SHOWN))
    end
  end
  -- cycles: gprof propagates nothing inside them, so the members' totals
  -- leave out what goes round; the cycle as a whole has the bounds
  local cycles = {}
  for c in profile:cycles() do
    if c.in_graph then cycles[#cycles + 1] = c end
  end
  if #cycles > 0 then
    put("\nCycles (a member's total leaves out what goes round the cycle):\n\n")
    for _, c in ipairs(cycles) do
      local names, n = {}, 0
      for m in c:members() do
        n = n + 1
        if n <= CYCLE_NAMES then names[n] = m.name end
      end
      put(("%s  total %s [%s .. %s]  self %s ± %s\n  %s: %s%s\n"):format(c.name, sec(c.total),
        sec(c.total_min), sec(c.total_max), sec(c.self), sec(c.self_error), plural(n, "member"),
        table.concat(names, ", "),
        n > CYCLE_NAMES and (", ... (%d more)"):format(n - CYCLE_NAMES) or ""))
    end
  end
  put(("\n%s ranked (%s), %d below the noise floor (%s).\n"):format(plural(#ranked, "function"),
    plural(ranked_samples, "sample"), #noisy, plural(noisy_samples, "sample")))
  return table.concat(out)
end

--- Writes the report to file (an open file, written and not closed, or a
-- path, written once the report is complete). true, or nil and a message.
function textreport.write(profile, file, options)
  args.check_profile(profile, 1, "text")
  args.check_output(file, "text")
  local s = textreport.render(profile, options)
  return args.write_output(file, s)
end

return textreport
