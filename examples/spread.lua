-- spread.lua: how each function's self time varies across runs.
-- Each profile file is one run, opened separately (not summed) with the
-- executable named after "--".
--   lgprof --script examples/spread.lua myprog gmon.1 gmon.2 gmon.3 -- myprog 10
--   lua5.4 examples/spread.lua myprog gmon.1 gmon.2 gmon.3 -- myprog 10
-- Arguments: the executable (default a.out), how many functions to list
-- (default 10), largest maximum first. A function absent from a run counts
-- 0 s there; "runs" is the number of runs where it appears.
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local exe, top = args[1] or "a.out", tonumber(args[2]) or 10

local runs = {}
for i, path in ipairs(profile.files) do runs[i] = assert(lgprof.open(exe, path)) end

print(("%d runs"):format(#runs))
print(("%9s %9s %9s %9s %5s  %s"):format("min s", "median s", "max s", "max-min", "runs",
  "function"))
for i, r in ipairs(lgprof.spread(runs)) do
  if i > top then break end
  print(("%9.2f %9.2f %9.2f %9.2f %5d  %s"):format(r.min, r.median, r.max, r.max - r.min,
    r.runs, r.label))
end
