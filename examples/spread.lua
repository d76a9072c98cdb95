-- spread.lua: how each function's self time varies across runs.
-- Each profile file is one run, opened separately (not summed) with the
-- executable named first, as for every lgprof command.
--   lgprof --script examples/spread.lua myprog gmon.1 gmon.2 gmon.3 -- 10
--   lua5.4 examples/spread.lua myprog gmon.1 gmon.2 gmon.3 -- 10
-- Argument: how many functions to list (default 10), largest maximum
-- first. A function absent from a run counts 0 s there; "runs" is the
-- number of runs where it appears. A bad argument: one line on stderr,
-- status 2.
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)

local top = 10
if args[1] then
  top = math.tointeger(tonumber(args[1]))
  if not top or top < 1 or #args > 1 then
    io.stderr:write("spread.lua: N, how many functions to list, is a positive integer (the executable "
      .. "comes first, not after --) (usage: myprog gmon.1 gmon.2 ... [-- N])\n")
    os.exit(2)
  end
end

local runs = {}
for i, path in ipairs(profile.files) do runs[i] = assert(lgprof.open(profile.image, path)) end

print(("%d runs"):format(#runs))
print(("%9s %9s %9s %9s %5s  %s"):format("min s", "median s", "max s", "max-min", "runs",
  "function"))
for i, r in ipairs(lgprof.spread(runs)) do
  if i > top then break end
  print(("%9.2f %9.2f %9.2f %9.2f %5d  %s"):format(r.min, r.median, r.max, r.max - r.min,
    r.runs, r.label))
end
