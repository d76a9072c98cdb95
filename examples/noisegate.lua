-- noisegate.lua: a CI gate that knows the noise. The last profile file is
-- the new run, the others are base runs of the same workload (opened
-- separately, not summed, with the executable named first, as for every
-- lgprof command). It fails (status 3) only when a function's total time
-- grew by more than LIMIT of the base's time significantly: beyond the
-- sampling error of both sides and the spread the base runs show, at
-- CONFIDENCE, with Holm's correction over the functions tested. A growth
-- beyond LIMIT that is not significant is a warning (status 0). A bad
-- argument: one line on stderr, status 2.
--   lgprof --script examples/noisegate.lua myprog base.1 base.2 base.3 new.gmon -- 5%
--   lua5.4 examples/noisegate.lua myprog base.1 base.2 base.3 new.gmon -- 5% 0.99 '^parse'
-- Arguments: LIMIT (default 5%), CONFIDENCE (default 0.95), PATTERN
-- (default: every function).
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local limit, pattern = args[1] or "5%", args[3] or "."
local check = lgprof.check

local function usage(why)
  io.stderr:write("noisegate.lua: ", why, " (usage: myprog base.1 ... new.gmon [-- LIMIT [CONFIDENCE [PATTERN]]])\n")
  os.exit(2)
end
local files = profile.files
if #files < 2 then usage("give the base runs and then the new run") end
if not check.limit("max_growth", limit) then
  usage(("bad limit '%s' (0.05 or 5%%; the executable comes first, not after --)"):format(limit))
end
local confidence = tonumber(args[2] or "0.95")
if not confidence or confidence < 0 or confidence >= 1 then
  usage(("bad confidence '%s' (from 0 to 1 excluded)"):format(args[2]))
end
if #args > 3 then usage("too many arguments") end

local bases = {}
for i = 1, #files - 1 do bases[i] = assert(lgprof.open(profile.image, files[i])) end
local new = assert(lgprof.open(profile.image, files[#files]))
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
