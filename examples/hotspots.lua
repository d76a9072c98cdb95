-- hotspots.lua: the functions with the most self time, and an optional gate.
-- Runs under lgprof or on its own (lgprof installed, or LUA_PATH/LUA_CPATH
-- pointing at a checkout's lua/ and build/):
--   lgprof --script examples/hotspots.lua myprog gmon.out -- 5 0.4
--   lua5.4 examples/hotspots.lua myprog gmon.out -- 5 0.4
-- Arguments: how many functions to list (default 10); a share (0..1): exit
-- with status 3 if a function's self time is above it beyond its sampling
-- error; the confidence of that (default 0.95; 0: any breach of the
-- estimate fails, 0.99: only a surer one).
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local top, limit = tonumber(args[1]) or 10, tonumber(args[2])
local confidence = tonumber(args[3]) or 0.95

print(("%6s %9s %9s %10s  %s"):format("self%", "self s", "total s", "calls", "function"))
local listed = 0
for fn in profile:flat() do
  if listed == top then break end
  if fn.flat_self > 0 or fn.calls > 0 then
    listed = listed + 1
    print(("%6.2f %9.2f %9.2f %10d  %s"):format(fn.flat_percent, fn.flat_self, fn.total,
      fn.calls + fn.self_calls, fn.name))
  end
end
if limit then lgprof.check.max_self(profile, ".", limit, { confidence = confidence }) end
lgprof.check.exit()
