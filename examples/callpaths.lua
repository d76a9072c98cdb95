-- callpaths.lua: the heaviest call path from each root of the call graph.
-- From each function nobody calls (main, thread entry points, signal
-- handlers), follow the call that carries the most time (self + children
-- propagated along the arc; the call count breaks ties) until a leaf, a
-- function already on the path, or the depth limit. Times are seconds of the
-- call graph (gprof's: self + children charged along each call).
--   lgprof --script examples/callpaths.lua myprog gmon.out -- 8
--   lua5.4 examples/callpaths.lua myprog gmon.out -- 8
-- Argument: the depth limit, in calls (default 10).
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local depth = tonumber(args[1]) or 10

-- The heaviest arc out of fn to a function not yet on the path, or nil.
local function heaviest(fn, on_path)
  local best, best_time
  for arc in fn:callees() do
    local t = arc.self + arc.children
    if not arc.is_recursive and not on_path[arc.callee.index]
       and (not best or t > best_time or (t == best_time and arc.count > best.count)) then
      best, best_time = arc, t
    end
  end
  return best, best_time
end

print(("%9s %10s  %s"):format("seconds", "calls", "path"))
for root in profile:roots() do
  print(("%9.2f %10s  %s"):format(root.total, "", root.name))
  local fn, on_path = root, { [root.index] = true }
  for level = 1, depth do
    local arc, t = heaviest(fn, on_path)
    if not arc then break end
    fn = arc.callee
    on_path[fn.index] = true
    -- arcs between members of a cycle carry no time (gprof charges the cycle)
    local note = arc.in_cycle and (" (in cycle %d)"):format(fn.cycle.number) or ""
    print(("%9.2f %10d  %s-> %s%s"):format(t, arc.count, ("  "):rep(level), fn.name, note))
  end
  print()
end
