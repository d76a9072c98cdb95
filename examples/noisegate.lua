-- noisegate.lua: a CI gate that knows the noise. The last profile file is
-- the new run, the others are base runs of the same workload (opened
-- separately, not summed, with the executable named after "--"). It fails
-- (status 3) only when a function's total time grew by more than LIMIT of
-- the base's time significantly: beyond the sampling error of both sides and
-- the spread the base runs show, at CONFIDENCE, with Holm's correction over
-- the functions tested. A growth beyond LIMIT that is not significant is a
-- warning (status 0).
--   lgprof --script examples/noisegate.lua myprog base.1 base.2 base.3 new.gmon -- myprog 5%
--   lua5.4 examples/noisegate.lua myprog base.1 base.2 base.3 new.gmon -- myprog 5% 0.99 '^parse'
-- Arguments: the executable (default a.out), LIMIT (default 5%), CONFIDENCE
-- (default 0.95), PATTERN (default: every function).
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local exe, limit = args[1] or "a.out", args[2] or "5%"
local confidence, pattern = tonumber(args[3]) or 0.95, args[4] or "."
local check = lgprof.check

local files = profile.files
if #files < 2 then
  io.stderr:write("noisegate.lua: give the base runs and then the new run\n")
  os.exit(2)
end
if not check.limit("max_growth", limit) then
  io.stderr:write(("noisegate.lua: bad limit '%s' (0.05 or 5%%)\n"):format(limit))
  os.exit(2)
end

local bases = {}
for i = 1, #files - 1 do bases[i] = assert(lgprof.open(exe, files[i])) end
local new = assert(lgprof.open(exe, files[#files]))
local d = lgprof.diff(bases, new, { confidence = confidence })
print(("base %.2f s (%d run%s), new %.2f s"):format(d.base_total, d.base_runs,
  d.base_runs == 1 and "" or "s", d.new_total))

-- the gate writes its lines on stderr; the summary on stdout lists them
check.max_growth(d, pattern, limit, { confidence = confidence })
local function show(v) return v == math.huge and "+inf%" or ("%+.2f%%"):format(100 * v) end
local function line(tag, r)
  -- (at confidence 0 there is no bound: the estimate alone decides)
  local bound = r.lower and (", lower bound " .. show(r.lower)) or ""
  print(("%s %s %s%s"):format(tag, r.name, show(r.value), bound))
end
for _, f in ipairs(check.failures()) do
  if f.name then line("FAIL", f) end -- (nil: the pattern matched no function)
end
for _, w in ipairs(check.warnings()) do line("warn", w) end
print(("%d failed, %d warned"):format(#check.failures(), #check.warnings()))
check.exit() -- status 3 if the gate failed
