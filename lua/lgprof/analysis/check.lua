--- lgprof.check: thresholds on a profile, for CI gates.
-- Each check matches function names (demangled) against a pattern
-- (lgprof.match), writes one line per breach to check.output (io.stderr),
-- returns true or false and records its failures: `lgprof --script` exits
-- with status 3 when a check failed; a standalone script calls check.exit().
-- A pattern that matches no function is a failure too (a misspelt gate must
-- not pass silently).
-- Times are samples: a time threshold fails only when the breach is
-- significant at check.confidence (or the check's own { confidence = c }):
-- Holm's step-down over the functions the pattern matches (those sampled
-- or called), each a one-sided test of "measure <= limit" with the Poisson
-- error of its sample count. A breach of the estimate alone is a warning
-- line. Confidence 0: every breach of the estimate fails (no statistics).
-- Call counts are exact.
-- gcc's clones (opts.clone_match ~= false, the default): a profile opened
-- with gprof's rule, which folds most clones into the function before
-- them, is checked with the clones kept (lgprof.fnkey.kept), and a pattern
-- matches a clone through its origin name too (^lookup$ matches
-- lookup.constprop.0); max_growth also matches a row's base name.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local stats = require "lgprof.analysis.stats"
local fnkey = require "lgprof.analysis.fnkey"

-- A checker: where its lines go (output), its default confidence, the
-- failures and warnings it recorded. check.new makes one per run (the
-- command's modes do); the module is itself the checker of scripts
-- (check.max_self(...), check.output, check.failures()...).
local Checker = {}
Checker.__index = Checker

local check = setmetatable({ output = io.stderr, confidence = 0.95, _failures = {}, _warnings = {} },
  Checker)

--- A new checker: opts.output (default io.stderr), opts.confidence
-- (default 0.95); its methods are the module's functions (checker:max_self,
-- checker:failures, ...), its state its own.
function check.new(opts)
  args.check(opts == nil or type(opts) == "table", 1, "new", "table expected, got " .. type(opts))
  opts = opts or {}
  return setmetatable({ output = opts.output or io.stderr, confidence = opts.confidence or 0.95,
                        _failures = {}, _warnings = {} }, Checker)
end

local function percent(v) return ("%.2f%%"):format(100 * v) end

-- A failure (or, warn true, a warning) of checker self: recorded and
-- written as one line.
local function report(self, warn, kind, pattern, name, value, limit, text, lower)
  local message = (warn and "warning: %s %s: %s" or "check failed: %s %s: %s"):format(kind,
    name or pattern, text)
  local list = warn and self._warnings or self._failures
  list[#list + 1] = { check = kind, pattern = pattern, name = name,
                      value = value, limit = limit, lower = lower, message = message }
  self.output:write("lgprof: ", message, "\n")
end

local function fail(self, kind, pattern, name, value, limit, text, lower)
  report(self, false, kind, pattern, name, value, limit, text, lower)
end

-- Shares are quotients of seconds: main's total over the call graph's time
-- can come out as 1.0000000000000002. A limit is passed only beyond this.
local ROUNDING = 1e-9

-- Is v beyond limit (equal passes, and so does v within ROUNDING of it)?
local function exceeds(v, limit) return v > limit + ROUNDING end

-- Is pattern a string lgprof.match accepts? Raises for the user's code if not.
local function check_pattern(pattern, kind)
  args.check(type(pattern) == "string", 2, kind, "string expected, got " .. type(pattern))
  local perr = args.pattern_error(pattern)
  if perr then args.error(("bad argument #2 to '%s' (%s)"):format(kind, perr)) end
end

-- The confidence of a check: opts.confidence, else the checker's; and
-- whether gcc's clones are matched (opts.clone_match, default true).
local function confidence_of(self, opts, kind)
  local c, match = self.confidence, true
  if opts ~= nil then
    args.check(type(opts) == "table", 4, kind, "table expected, got " .. type(opts))
    for k in pairs(opts) do
      args.check(k == "confidence" or k == "clone_match", 4, kind,
        ("unknown option '%s'"):format(tostring(k)))
    end
    args.check(opts.clone_match == nil or type(opts.clone_match) == "boolean", 4, kind,
      "clone_match: boolean expected, got " .. type(opts.clone_match))
    if opts.confidence ~= nil then c = opts.confidence end
    match = opts.clone_match ~= false
  end
  local v = stats.confidence(c)
  if not v then
    args.error(("bad argument #4 to '%s' (confidence: a number from 0 to 1, 1 excluded, " ..
      "expected, got %s)"):format(kind, tostring(c)))
  end
  return v, match
end

-- Does pattern match a function's name (with clone matching: or, for a
-- gcc clone's name, its origin's)?
local function matches(name, pattern, match)
  if match then return fnkey.match(name, pattern) end
  return lgprof.match(name, pattern)
end

--- check.limit(kind, v): the limit v of a check kind, or nil and what was
-- expected: for "max_calls" a non-negative integer, for "max_self",
-- "max_total" and "max_growth" a share (0.3 or "30%"), >= 0 and without an
-- upper bound: a function's total can exceed the call graph's time (gprof
-- prints 100.16%), a growth can exceed the base. The command line and
-- thresholds files read their limits with it too.
function check.limit(kind, v)
  if kind == "max_calls" then
    if type(v) == "string" then v = tonumber(v) end
    local n = type(v) == "number" and math.tointeger(v)
    if n and n >= 0 then return n end
    return nil, "a number of calls (a non-negative integer)"
  end
  local n = args.share(v, math.huge)
  if n then return n end
  return nil, args.share_expected(math.huge)
end

local function percent_of_confidence(c)
  return (("%.1f"):format(100 * c):gsub("%.0$", "")) .. "%"
end

-- The verdicts of one threshold on its tested items. Each item is
-- { label =, v = (the estimate), se = (its standard error), cc = (its
-- continuity correction) }, v, se and cc in the limit's unit; show(v) writes
-- a value. At confidence 0 every breach of the estimate fails; otherwise a
-- breach fails only when Holm's step-down over the items rejects
-- "value <= limit" at 1 - confidence, and is a warning line otherwise.
local function judge(self, kind, pattern, items, limit, confidence, show, show_limit)
  show_limit = show_limit or show
  if confidence == 0 then
    local ok = true
    for _, it in ipairs(items) do
      if exceeds(it.v, limit) then
        ok = false
        fail(self, kind, pattern, it.label, it.v, limit, ("%s > %s"):format(show(it.v), show_limit(limit)))
      end
    end
    return ok
  end
  local ps = {}
  for i, it in ipairs(items) do
    if it.se > 0 then
      ps[i] = stats.upper((it.v - it.cc - limit) / it.se)
    else -- exact (or nothing sampled)
      ps[i] = exceeds(it.v, limit) and 0 or 1
    end
  end
  local rejected, level = stats.holm(ps, 1 - confidence)
  local pc = percent_of_confidence(confidence)
  local family = #items > 1 and (", %d functions tested"):format(#items) or ""
  local ok = true
  for i, it in ipairs(items) do
    if exceeds(it.v, limit) then
      -- the lower bound at the level Holm compares this function with
      local lower = it.v
      if it.se > 0 then lower = it.v - it.cc - stats.quantile(1 - level[i]) * it.se end
      local text = ("%s > %s"):format(show(it.v), show_limit(limit))
      if rejected[i] then
        ok = false
        fail(self, kind, pattern, it.label, it.v, limit,
          ("%s (%s lower bound %s%s)"):format(text, pc, show(lower), family), lower)
      else
        report(self, true, kind, pattern, it.label, it.v, limit,
          ("%s, not significant (%s lower bound %s%s)"):format(text, pc, show(lower), family),
          lower)
      end
    end
  end
  return ok
end

local function label_of(fn)
  if fn.is_static and fn.file then return ("%s (%s)"):format(fn.name, fn.file:match("[^/]*$")) end
  return fn.name
end

-- A share of the time and its error: the function's count of samples n
-- (Poisson: standard error sqrt(n)) scaled to the share, and half a sample.
local function share_item(fn, share, n)
  local item = { label = label_of(fn), v = share, se = 0, cc = 0 }
  if n > 0 then item.se, item.cc = share / math.sqrt(n), share * 0.5 / n end
  return item
end

-- A check over the functions of a profile: item(fn, profile) -> the
-- tested item, show(v) -> the measure as the failure line writes it.
local function function_check(kind, item, show, exact)
  return function(self, profile, pattern, limit, opts)
    args.check_profile(profile, 1, kind)
    check_pattern(pattern, kind)
    local lim, expected = check.limit(kind, limit)
    args.check(lim, 3, kind, ("%s expected, got %s"):format(expected, tostring(limit)))
    local confidence, match = confidence_of(self, opts, kind)
    if exact then confidence = 0 end
    if match then profile = fnkey.kept(profile) end
    -- the family of tests: the matching functions sampled or called (an
    -- inactive one measures 0 and cannot breach; it would only weaken the
    -- correction), as lgprof.diff lists them
    local items, matched = {}, 0
    for fn in profile:symbols() do
      if matches(fn.name, pattern, match) then
        matched = matched + 1
        if fnkey.active(fn) then items[#items + 1] = item(fn, profile) end
      end
    end
    if matched == 0 then
      fail(self, kind, pattern, nil, nil, lim, "no function matches")
      return false
    end
    return judge(self, kind, pattern, items, lim, confidence, show)
  end
end

--- check.max_self(profile, pattern, share [, opts]): fails if a function
-- matching pattern has a self time above share of the profile's total
-- time: the flat profile's "% time" column (fn.flat_percent, a percent);
-- its error is that of its fn.samples.
Checker.max_self = function_check("max_self", function(fn)
  return share_item(fn, fn.flat_percent / 100, fn.samples)
end, percent)

--- check.max_total(profile, pattern, share [, opts]): fails if a function
-- matching pattern has a total time (self + children) above share of the
-- call graph's time: the call graph's "% time" column (fn.percent); its
-- error is that of a count of total / sample_period samples.
Checker.max_total = function_check("max_total", function(fn, profile)
  local period = profile.sample_period
  return share_item(fn, fn.percent / 100, period > 0 and fn.total / period or 0)
end, percent)

--- check.max_calls(profile, pattern, n [, opts]): fails if a function
-- matching pattern was called more than n times (calls from other functions
-- plus recursive calls). Counts are exact: no confidence applies.
Checker.max_calls = function_check("max_calls", function(fn)
  -- (a profile of sampled stacks has no calls: none counted)
  return { label = label_of(fn), v = (fn.calls or 0) + (fn.self_calls or 0), se = 0, cc = 0 }
end, tostring, true)

--- Fails if, in a result of lgprof.diff, a function matching pattern grew
-- (total time) by more than share (may exceed 1) of the base profile's
-- total time, significantly (Holm over the matching rows, each with the
-- diff row's standard error of its total change).
function Checker:max_growth(result, pattern, share, opts)
  args.check(type(result) == "table" and result.base_total, 1, "max_growth",
    "result of lgprof.diff expected")
  check_pattern(pattern, "max_growth")
  local limit, expected = check.limit("max_growth", share)
  args.check(limit, 3, "max_growth", ("%s expected, got %s"):format(expected, tostring(share)))
  local confidence, match = confidence_of(self, opts, "max_growth")
  local base = result.base_total
  local items = {}
  for _, row in ipairs(result) do
    if matches(row.name, pattern, match)
       or (match and row.base_name and matches(row.base_name, pattern, true)) then
      local growth = row.total_share or (row.total_delta > 0 and math.huge or 0)
      local it = { label = row.label, v = growth, se = 0, cc = 0 }
      if base > 0 and row.total_error then
        it.se, it.cc = row.total_error / base, row.total_cc / base
      end
      items[#items + 1] = it
    end
  end
  if #items == 0 then
    fail(self, "max_growth", pattern, nil, nil, limit, "no function matches")
    return false
  end
  return judge(self, "max_growth", pattern, items, limit, confidence, function(v)
    return (v >= 0 and "+" or "") .. percent(v)
  end, percent)
end

--- Returns f()'s results, with the checks writing their lines to stream
-- meanwhile; the output is restored after, even if f raises.
function Checker:with_output(stream, f)
  local saved = self.output
  local _ <close> = setmetatable({}, { __close = function() self.output = saved end })
  self.output = stream
  return f()
end

--- The failures recorded so far: a list of { check, pattern, name, value,
-- limit, message } (name and value are nil when no function matched).
function Checker:failures()
  return table.move(self._failures, 1, #self._failures, 1, {})
end

--- The warnings recorded so far (breaches of the estimate that are not
-- significant), as failures() lists failures, with `lower`: the bound.
function Checker:warnings()
  return table.move(self._warnings, 1, #self._warnings, 1, {})
end

--- Forgets the failures and warnings recorded so far.
function Checker:reset()
  self._failures, self._warnings = {}, {}
end

--- Exits with status 3 if a check failed; returns otherwise.
function Checker:exit()
  if #self._failures > 0 then os.exit(3, true) end
end

-- The module's functions (check.max_self(profile, ...), documented with a
-- dot) are its own checker's methods.
for _, name in ipairs({ "max_self", "max_total", "max_calls", "max_growth", "with_output", "failures",
                        "warnings", "reset", "exit" }) do
  local method = Checker[name]
  check[name] = function(...) return method(check, ...) end
end

return check
