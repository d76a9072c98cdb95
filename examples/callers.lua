-- callers.lua: who calls a function, how often, and how much time it costs them.
--   lgprof --script examples/callers.lua myprog gmon.out -- malloc
--   lua5.4 examples/callers.lua myprog gmon.out -- '^str'
-- Argument: a function name, or a POSIX ERE (every matching function).
-- For each caller: the calls, their share of all the function's calls, and
-- the time charged to the caller for them (the callee's self and children
-- time propagated along the arc, as in gprof's call graph).
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local what = args[1]
if not what then
  io.stderr:write("callers.lua: give a function name or a pattern after --\n")
  os.exit(2)
end

local targets = {}
local exact = profile:find(what)
if exact then
  targets[1] = exact
else
  for fn in profile:symbols() do
    if lgprof.match(fn.name, what) and fn.calls + fn.self_calls > 0 then targets[#targets + 1] = fn end
  end
end
if #targets == 0 then print(("no called function matches '%s'"):format(what)) end

for _, fn in ipairs(targets) do
  local calls = fn.calls + fn.self_calls -- the self-recursive arc is one of the callers
  print(("%s: %d calls, %.2f s (self %.2f s, children %.2f s)"):format(fn.name, calls,
    fn.total, fn.self, fn.children))
  local arcs = {}
  for arc in fn:callers() do arcs[#arcs + 1] = arc end
  table.sort(arcs, function(a, b) return a.count > b.count end)
  if #arcs == 0 then print("  <spontaneous>") end
  for _, arc in ipairs(arcs) do
    print(("  %10d %6.2f%% %9.2f s  %s"):format(arc.count,
      calls > 0 and 100 * arc.count / calls or 0, arc.self + arc.children, arc.caller.name))
  end
end
