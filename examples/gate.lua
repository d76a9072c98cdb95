-- gate.lua: a CI gate: exits with status 3 when a threshold is exceeded.
--   lgprof --script examples/gate.lua myprog gmon.out -- 'self:^parse$=30%' 'calls:^malloc$=100000'
--   lua5.4 examples/gate.lua myprog gmon.out -- 'total:^main$=1'
-- Each argument is KIND:PATTERN=LIMIT, KIND one of
--   self   the function's share of the flat profile's time   (0.3 or 30%)
--   total  its self + children share of the call graph's time (0.3 or 30%)
--   calls  its number of calls (an integer)
-- PATTERN is a POSIX ERE matched in the function's name; a pattern that
-- matches no function fails. A time threshold fails only when its breach is
-- significant (lgprof.check's sampling error) at the confidence an argument
-- confidence=C sets (default 0.95; 0: any breach of the estimate fails); a
-- breach that is not significant passes with "warn". Exits with status 2 on
-- a malformed argument.
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local check = lgprof.check

local kinds = { self = check.max_self, total = check.max_total, calls = check.max_calls }

local function usage(word)
  io.stderr:write(("gate.lua: bad threshold '%s' (want self|total|calls:PATTERN=LIMIT)\n")
    :format(word))
  os.exit(2)
end

local words = {}
for _, word in ipairs(args) do
  local c = word:match("^confidence=(.*)$")
  if c then
    c = tonumber(c)
    if not c or c < 0 or c >= 1 then usage(word) end
    check.confidence = c
  else
    words[#words + 1] = word
  end
end
if #words == 0 then usage("") end
for _, word in ipairs(words) do
  local kind, pattern, limit = word:match("^(%a+):(.*)=([^=]+)$")
  if not kinds[kind] or pattern == "" then usage(word) end
  local value
  if kind == "calls" then
    value = math.tointeger(tonumber(limit))
  else
    local pct = limit:match("^(.*)%%$")
    value = pct and tonumber(pct) and tonumber(pct) / 100 or tonumber(limit)
    if value and (value < 0 or value > 1) then value = nil end
  end
  if not value then usage(word) end
  -- the checks write one line per breach to stderr
  local warned = #check.warnings()
  local ok = kinds[kind](profile, pattern, value)
  local tag = not ok and "FAIL" or #check.warnings() > warned and "warn" or "ok"
  print(("%-4s %s"):format(tag, word))
end
check.exit() -- status 3 if a check failed (lgprof --script would do it anyway)
