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

-- Runs one threshold over the functions of a profile; value(fn) -> number.
local function over_functions(kind, profile, pattern, limit, value, show)
  local matched, ok = 0, true
  for fn in profile:symbols() do
    if lgprof.match(fn.name, pattern) then
      matched = matched + 1
      local v = value(fn)
      if v > limit + ROUNDING then
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
-- limit_ok(limit) -> is the limit valid (else "bad argument #3 (expected)"),
-- show(v) -> the measure as the failure line writes it.
local function function_check(kind, value, limit_ok, expected, show)
  return function(profile, pattern, limit)
    args.check_profile(profile, 1, kind, "symbols")
    args.check(type(pattern) == "string", 2, kind, "string expected")
    args.check(limit_ok(limit), 3, kind, expected)
    return over_functions(kind, profile, pattern, limit, value, show)
  end
end

local function is_share(v) return type(v) == "number" and v >= 0 and v <= 1 end

--- check.max_self(profile, pattern, share): fails if a function matching
-- pattern has a self time above share (0..1) of the profile's total time:
-- the flat profile's "% time" column.
check.max_self = function_check("max_self", function(fn) return fn.flat_percent / 100 end,
  is_share, "share between 0 and 1 expected", percent)

--- check.max_total(profile, pattern, share): fails if a function matching
-- pattern has a total time (self + children) above share of the call
-- graph's time: the call graph's "% time" column.
check.max_total = function_check("max_total", function(fn) return fn.percent / 100 end,
  is_share, "share between 0 and 1 expected", percent)

--- check.max_calls(profile, pattern, n): fails if a function matching
-- pattern was called more than n times (calls from other functions plus
-- recursive calls).
check.max_calls = function_check("max_calls", function(fn) return fn.calls + fn.self_calls end,
  function(n) return math.type(n) == "integer" and n >= 0 end, "non-negative integer expected",
  tostring)

--- Fails if, in a result of lgprof.diff, a function matching pattern grew
-- (total time) by more than share (>= 0, may exceed 1) of the base profile's
-- total time.
function check.max_growth(result, pattern, share)
  args.check(type(result) == "table" and result.base_total, 1, "max_growth",
    "result of lgprof.diff expected")
  args.check(type(pattern) == "string", 2, "max_growth", "string expected")
  args.check(type(share) == "number" and share >= 0, 3, "max_growth", "non-negative share expected")
  local matched, ok = 0, true
  for _, row in ipairs(result) do
    if lgprof.match(row.name, pattern) then
      matched = matched + 1
      local growth = row.total_share or (row.total_delta > 0 and math.huge or 0)
      if growth > share then
        ok = false
        fail("max_growth", pattern, row.label, growth, share,
          ("+%s > %s"):format(percent(growth), percent(share)))
      end
    end
  end
  if matched == 0 then
    fail("max_growth", pattern, nil, nil, share, "no function matches")
    return false
  end
  return ok
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
