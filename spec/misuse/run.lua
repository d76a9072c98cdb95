-- lua5.4 spec/misuse/run.lua EXE GMON OUT [FROM [TO]]: runs the misuse cases
-- FROM..TO of spec/misuse/cases.lua (all by default) and prints one line each.
local EXE, GMON, OUT = arg[1], arg[2], arg[3]
local from, to = tonumber(arg[4]) or 1, tonumber(arg[5])
local lgprof = require "lgprof"
local cases = dofile((arg[0]:gsub("run%.lua$", "cases.lua")))
lgprof.check.output = io.open("/dev/null", "w")

local function env()
  local e = { EXE = EXE, GMON = GMON, OUT = OUT }
  e.p = assert(lgprof.open(EXE, GMON))
  for fn in e.p:functions() do
    if fn.cycle == nil and fn.kind == "function" and not e.fn and fn.calls > 0 then e.fn = fn end
  end
  e.cyc = e.p:cycles()()
  e.arc = e.p:arcs()()
  e.P = getmetatable(e.p).__index
  if type(e.P) ~= "table" then e.P = e.p end
  local mf, mc = getmetatable(e.fn), e.cyc and getmetatable(e.cyc)
  e.F = type(mf.__index) == "table" and mf.__index or { callers = e.fn.callers, callees = e.fn.callees }
  e.C = mc and (type(mc.__index) == "table" and mc.__index or { members = e.cyc.members })
    or { members = function() error("no cycle in the fixture") end }
  -- a second profile, closed, with handles and iterators taken before
  e.q = assert(lgprof.open(EXE, GMON))
  e.qit = e.q:functions()
  e.qit()
  e.qfn = e.q:get(1)
  e.qarc = e.q:arcs()()
  e.qcyc = e.q:cycles()()
  e.qcallers = e.q:find(e.fn.name):callers()
  e.qmembers = e.qcyc and e.qcyc:members() or function() error("no cycle") end
  e.qview = e.q:filter { top = 3 }
  e.qviewfn = e.qview:get(1)
  e.addr = e.fn.address
  e.q:close()
  return e
end

local E = env()
to = to or #cases
for i = from, to do
  local c = cases[i]
  io.stdout:write(c[1], "\t")
  io.stdout:flush()
  local res = table.pack(pcall(c[2], E))
  if res[1] then
    local vals = {}
    for k = 2, res.n do vals[#vals + 1] = tostring(res[k]) end
    io.stdout:write("ok\t", (table.concat(vals, " "):gsub("[\t\n]", " ")), "\n")
  else
    io.stdout:write("error\t", (tostring(res[2]):gsub("[\t\n]", " ")), "\n")
  end
  io.stdout:flush()
end
