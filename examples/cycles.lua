-- cycles.lua: the recursion cycles of the call graph, as gprof collapses them.
-- For each cycle: its time, the calls it receives from outside and the calls
-- between its members; for each member: its self time, the calls it
-- receives from outside the cycle and from the other members.
--   lgprof --script examples/cycles.lua myprog gmon.out
--   lua5.4 examples/cycles.lua myprog gmon.out
local lgprof = require "lgprof"
local profile = lgprof.script(...)

if profile.cycle_count == 0 then
  print("no cycles")
  return
end
for cyc in profile:cycles() do
  print(("cycle %d [%d]: self %.2f s, children %.2f s, %d calls from outside, %d internal calls")
    :format(cyc.number, cyc.index, cyc.self, cyc.children, cyc.calls, cyc.internal_calls))
  print(("  %9s %10s %12s  %s"):format("self s", "outside", "from members", "member"))
  for member, from_members in cyc:members() do
    -- a member's `calls` counts calls from outside the cycle and from members
    print(("  %9.2f %10d %12d  %s"):format(member.self, member.calls - from_members,
      from_members, member.name))
  end
end
