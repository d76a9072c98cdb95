--- lgprof.check: thresholds on a profile, for CI gates.
-- Each check matches function names (demangled) against a pattern
-- (lgprof.match), writes one line per breach to check.output (io.stderr),
-- returns true or false and records its failures: `lgprof --script` exits
-- with status 3 when a check failed; a standalone script calls check.exit().
-- A pattern that matches no function is a failure too (a misspelt gate must
-- not pass silently).
local lgprof = require "lgprof"
local args = require "lgprof.args"

local check = { output = io.stderr }

local failures = {}

local function percent(v) return ("%.2f%%"):format(100 * v) end

local function fail(kind, pattern, name, value, limit, text)
  local message = ("check failed: %s %s: %s"):format(kind, name or pattern, text)
  failures[#failures + 1] = { check = kind, pattern = pattern, name = name,
                              value = value, limit = limit, message = message }
  check.output:write("lgprof: ", message, "\n")
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

-- Runs one threshold over the functions of a profile; value(fn) -> number.
local function over_functions(kind, profile, pattern, limit, value, show)
  local matched, ok = 0, true
  for fn in profile:symbols() do
    if lgprof.match(fn.name, pattern) then
      matched = matched + 1
      local v = value(fn)
      if exceeds(v, limit) then
        ok = false
        local label = fn.name
        if fn.is_static and fn.file then label = ("%s (%s)"):format(label, fn.file:match("[^/]*$")) end
        fail(kind, pattern, label, v, limit, ("%s > %s"):format(show(v), show(limit)))
      end
    end
  end
  if matched == 0 then
    fail(kind, pattern, nil, nil, limit, "no function matches")
    return false
  end
  return ok
end

-- A check over the functions of a profile: value(fn) -> the measure,
-- show(v) -> the measure as the failure line writes it.
local function function_check(kind, value, show)
  return function(profile, pattern, limit)
    args.check_profile(profile, 1, kind)
    check_pattern(pattern, kind)
    local lim, expected = check.limit(kind, limit)
    args.check(lim, 3, kind, ("%s expected, got %s"):format(expected, tostring(limit)))
    return over_functions(kind, profile, pattern, lim, value, show)
  end
end

--- check.max_self(profile, pattern, share): fails if a function matching
-- pattern has a self time above share of the profile's total time: the
-- flat profile's "% time" column (fn.flat_percent, a percent).
check.max_self = function_check("max_self", function(fn) return fn.flat_percent / 100 end, percent)

--- check.max_total(profile, pattern, share): fails if a function matching
-- pattern has a total time (self + children) above share of the call
-- graph's time: the call graph's "% time" column (fn.percent).
check.max_total = function_check("max_total", function(fn) return fn.percent / 100 end, percent)

--- check.max_calls(profile, pattern, n): fails if a function matching
-- pattern was called more than n times (calls from other functions plus
-- recursive calls).
check.max_calls = function_check("max_calls", function(fn) return fn.calls + fn.self_calls end,
  tostring)

--- Fails if, in a result of lgprof.diff, a function matching pattern grew
-- (total time) by more than share (may exceed 1) of the base profile's
-- total time.
function check.max_growth(result, pattern, share)
  args.check(type(result) == "table" and result.base_total, 1, "max_growth",
    "result of lgprof.diff expected")
  check_pattern(pattern, "max_growth")
  local limit, expected = check.limit("max_growth", share)
  args.check(limit, 3, "max_growth", ("%s expected, got %s"):format(expected, tostring(share)))
  local matched, ok = 0, true
  for _, row in ipairs(result) do
    if lgprof.match(row.name, pattern) then
      matched = matched + 1
      local growth = row.total_share or (row.total_delta > 0 and math.huge or 0)
      if exceeds(growth, limit) then
        ok = false
        fail("max_growth", pattern, row.label, growth, limit,
          ("+%s > %s"):format(percent(growth), percent(limit)))
      end
    end
  end
  if matched == 0 then
    fail("max_growth", pattern, nil, nil, limit, "no function matches")
    return false
  end
  return ok
end

--- Returns f()'s results, with the checks writing their lines to stream
-- meanwhile; check.output is restored after, even if f raises (the modes
-- send them to their err stream).
function check.with_output(stream, f)
  local saved = check.output
  local _ <close> = setmetatable({}, { __close = function() check.output = saved end })
  check.output = stream
  return f()
end

--- The failures recorded so far: a list of { check, pattern, name, value,
-- limit, message } (name and value are nil when no function matched).
function check.failures()
  return table.move(failures, 1, #failures, 1, {})
end

--- Forgets the failures recorded so far.
function check.reset()
  failures = {}
end

--- Exits with status 3 if a check failed; returns otherwise.
function check.exit()
  if #failures > 0 then os.exit(3, true) end
end

return check
