-- Lua API misuse cases for spec/misuse_spec.lua. Each case is
-- { label, function(env) ... end }; env holds an open Profile `p` and
-- the fixture paths. spec/misuse/run.lua runs every case under pcall in a
-- subprocess (a crash loses only that process) and prints one line a case:
-- "label<TAB>ok<TAB>values" or "label<TAB>error<TAB>message".
local C = {}
local function case(label, f) C[#C + 1] = { label, f } end

local lgprof = require "lgprof"

-- wrong types and nils to every public function and method
local BAD = { { "nil", nil }, { "number", 42 }, { "table", {} }, { "function", print },
  { "boolean", true } }

for _, b in ipairs(BAD) do
  local name, v = b[1], b[2]
  if name ~= "nil" then -- open(nil) means a.out
    case("lgprof.open(" .. name .. ")", function(e) return lgprof.open(v, e.GMON) end)
  end
  if name ~= "nil" and name ~= "table" then
    case("lgprof.open(exe, " .. name .. ")", function(e) return lgprof.open(e.EXE, v) end)
    case("lgprof.open(exe, gmon, " .. name .. ")", function(e) return lgprof.open(e.EXE, e.GMON, v) end)
  end
  case("lgprof.open(exe, {" .. name .. "})", function(e) return lgprof.open(e.EXE, { e.GMON, v }) end)
  case("lgprof.demangle(" .. name .. ")", function() return lgprof.demangle(v) end)
  case("lgprof.demangle(name, " .. name .. ")", function() return lgprof.demangle("_Z1fv", v) end)
  case("lgprof.match(" .. name .. ", p)", function() return lgprof.match(v, "x") end)
  case("lgprof.match(s, " .. name .. ")", function() return lgprof.match("x", v) end)
  case("lgprof.diff(" .. name .. ", p)", function(e) return lgprof.diff(v, e.p) end)
  case("lgprof.diff(p, " .. name .. ")", function(e) return lgprof.diff(e.p, v) end)
  case("lgprof.spread(" .. name .. ")", function() return lgprof.spread(v) end)
  case("lgprof.merge(" .. name .. ", gmons, out)", function(e) return lgprof.merge(v, { e.GMON }, e.OUT) end)
  case("lgprof.merge(exe, " .. name .. ", out)", function(e) return lgprof.merge(e.EXE, v, e.OUT) end)
  case("lgprof.merge(exe, gmons, " .. name .. ")", function(e) return lgprof.merge(e.EXE, { e.GMON }, v) end)
  case("lgprof.dot.write(" .. name .. ", f)", function(e) return require("lgprof.format.dot").write(v, e.OUT) end)
  case("lgprof.dot.write(p, " .. name .. ")", function(e) return require("lgprof.format.dot").write(e.p, v) end)
  for _, fmt in ipairs({ "callgrind", "json", "csv", "folded", "dot" }) do
    case("lgprof.report." .. fmt .. "(" .. name .. ", f)", function(e) return lgprof.report[fmt](v, e.OUT) end)
    case("lgprof.report." .. fmt .. "(p, " .. name .. ")", function(e) return lgprof.report[fmt](e.p, v) end)
    if name ~= "nil" and name ~= "table" then
      case("lgprof.report." .. fmt .. "(p, f, " .. name .. ")",
        function(e) return lgprof.report[fmt](e.p, e.OUT, v) end)
    end
  end
  for _, chk in ipairs({ "max_self", "max_total", "max_calls" }) do
    case("lgprof.check." .. chk .. "(" .. name .. ", pat, 1)",
      function() return lgprof.check[chk](v, "^main$", 1) end)
    case("lgprof.check." .. chk .. "(p, " .. name .. ", 1)",
      function(e) return lgprof.check[chk](e.p, v, 1) end)
    case("lgprof.check." .. chk .. "(p, pat, " .. name .. ")",
      function(e) return lgprof.check[chk](e.p, "^main$", v) end)
  end
  case("lgprof.check.max_growth(" .. name .. ", pat, 1)", function() return lgprof.check.max_growth(v, "x", 1) end)
  -- methods
  case("p:gprof_report(" .. name .. ")", function(e) return e.p:gprof_report(v) end)
  if name ~= "nil" and name ~= "table" then
    case("p:gprof_report(f, " .. name .. ")", function(e) return e.p:gprof_report(io.stderr, v) end)
  end
  case("p:write_gmon(" .. name .. ")", function(e) return e.p:write_gmon(v) end)
  case("p:get(" .. name .. ")", function(e) return e.p:get(v) end)
  case("p:lookup(" .. name .. ")", function(e) return e.p:lookup(v) end)
  case("p:filter(" .. name .. ")", function(e) return e.p:filter(v) end)
  case("p:find(" .. name .. ")", function(e) return e.p:find(v) end)
  case("p:find('main', " .. name .. ")", function(e) return e.p:find("main", v) end)
  case("p:export(" .. name .. ", f)", function(e) return e.p:export(v, io.stderr) end)
  case("p:export('json', " .. name .. ")", function(e) return e.p:export("json", v) end)
  -- methods with a wrong self
  for _, m in ipairs({ "gprof_report", "write_gmon", "file_info", "histograms", "symbols", "functions",
                       "flat", "cycles", "arcs", "get", "lookup", "filter", "find", "roots", "export",
                       "close" }) do
    case("Profile." .. m .. "(" .. name .. ")", function(e) return e.P[m](v) end)
  end
  case("Function.callers(" .. name .. ")", function(e) return e.F.callers(v) end)
  case("Function.callees(" .. name .. ")", function(e) return e.F.callees(v) end)
  case("Cycle.members(" .. name .. ")", function(e) return e.C.members(v) end)
end

-- the wrong kind of object as self
case("Function.members via a Cycle method on a Function", function(e) return e.C.members(e.fn) end)
case("Cycle.callers on a Cycle", function(e) return e.F.callers(e.cyc) end)
case("Function.callers on an Arc", function(e) return e.F.callers(e.arc) end)
case("Function.callers on a Profile", function(e) return e.F.callers(e.p) end)
case("Profile.flat on a Function", function(e) return e.P.flat(e.fn) end)
case("Profile.get on an Arc", function(e) return e.P.get(e.arc, 1) end)
case("Profile.close on a Cycle", function(e) return e.P.close(e.cyc) end)
case("Profile.export on a Function", function(e) return e.P.export(e.fn, "json", io.stderr) end)
case("Profile.gprof_report on a file handle", function(e) return e.P.gprof_report(io.stderr, {}) end)
case("p:gprof_report(closed file)", function(e)
  local f = io.tmpfile(); f:close(); return e.p:gprof_report(f, {}) end)
case("p:export('json', closed file)", function(e)
  local f = io.tmpfile(); f:close(); return e.p:export("json", f) end)
case("lgprof.report.json(p, closed file)", function(e)
  local f = io.tmpfile(); f:close(); return lgprof.report.json(e.p, f) end)
case("lgprof.dot.write(p, closed file)", function(e)
  local f = io.tmpfile(); f:close(); return require("lgprof.format.dot").write(e.p, f) end)
case("p:gprof_report(f, {width = -5})", function(e) return e.p:gprof_report(io.tmpfile(), { width = -5 }) end)
case("p:gprof_report(f, {width = 1e300})", function(e) return e.p:gprof_report(io.tmpfile(), { width = 1e300 }) end)
case("p:get(0)", function(e) return e.p:get(0) end)
case("p:get(-1)", function(e) return e.p:get(-1) end)
case("p:get(2^53)", function(e) return e.p:get(2 ^ 53) end)
case("p:get(1.5)", function(e) return e.p:get(1.5) end)
case("p:get(math.huge)", function(e) return e.p:get(math.huge) end)
case("p:get(0/0)", function(e) return e.p:get(0 / 0) end)
case("p:lookup(-1)", function(e) return e.p:lookup(-1) end)
case("p:lookup(math.mininteger)", function(e) return e.p:lookup(math.mininteger) end)
case("p:lookup(0.5)", function(e) return e.p:lookup(0.5) end)
case("p:filter{bogus = 1}", function(e) return e.p:filter { bogus = 1 } end)
case("p:filter{focus = '('}", function(e) return e.p:filter { focus = "(" } end)
case("p:filter{top = -1}", function(e) return e.p:filter { top = -1 } end)
case("p:filter{node_fraction = 0/0}", function(e) return e.p:filter { node_fraction = 0 / 0 } end)
case("p:filter{focus = {1, {}}}", function(e) return e.p:filter { focus = { 1, {} } } end)
case("p.nonexistent_field", function(e) return e.p.nonexistent_field end)
case("fn.nonexistent_field", function(e) return e.fn.nonexistent_field end)
case("p.total_time = 1", function(e) e.p.total_time = 1 end)
case("fn.name = 'x'", function(e) e.fn.name = "x" end)

-- iterator functions called with bogus arguments
for _, it in ipairs({ "functions", "flat", "symbols", "cycles", "arcs", "roots" }) do
  case("p:" .. it .. "() iterator called with bogus arguments", function(e)
    local f, s, c = e.p[it](e.p)
    local out = {}
    for _, args in ipairs({ { nil, nil }, { 42, "x" }, { {}, {} }, { s, -1 }, { s, 2 ^ 40 }, { e.fn, e.fn } }) do
      out[#out + 1] = tostring((f(args[1], args[2])))
    end
    return table.concat(out, ",")
  end)
end
case("fn:callers() iterator called with bogus arguments", function(e)
  local f = e.fn:callers()
  return f(42, -7), f(nil, nil), f({}, {})
end)
case("cyc:members() iterator called with bogus arguments", function(e)
  local f = e.cyc:members()
  return f(42, -7), f(nil, nil), f({}, {})
end)

-- handles and iterators keep an unreferenced profile alive
case("an iterator of a collected profile variable", function(e)
  local it = lgprof.open(e.EXE, e.GMON):functions()
  collectgarbage(); collectgarbage()
  local n = 0
  while it() do n = n + 1 end
  return n
end)
case("a Function of a collected profile variable", function(e)
  local fn = lgprof.open(e.EXE, e.GMON):get(1)
  collectgarbage(); collectgarbage()
  local n = 0
  for _ in fn:callees() do n = n + 1 end
  return fn.name, n
end)

-- after close
local CLOSED = {
  { "p:flat()", function(e) return e.q:flat() end },
  { "p:get(1)", function(e) return e.q:get(1) end },
  { "p:lookup(addr)", function(e) return e.q:lookup(e.addr) end },
  { "p:histograms()", function(e) return e.q:histograms() end },
  { "p:file_info()", function(e) return e.q:file_info() end },
  { "p:gprof_report(f)", function(e) return e.q:gprof_report(io.tmpfile(), {}) end },
  { "p:write_gmon(out)", function(e) return e.q:write_gmon(e.OUT) end },
  { "p:export('json', f)", function(e) return e.q:export("json", io.tmpfile()) end },
  { "p:filter{top = 1}", function(e) return e.q:filter { top = 1 } end },
  { "p:find('main')", function(e) return e.q:find("main") end },
  { "p:roots()", function(e) return e.q:roots() end },
  { "p.total_time", function(e) return e.q.total_time end },
  { "fn.name", function(e) return e.qfn.name end },
  { "fn.self", function(e) return e.qfn.self end },
  { "fn:callers()", function(e) return e.qfn:callers() end },
  { "arc.count", function(e) return e.qarc.count end },
  { "arc.caller", function(e) return e.qarc.caller end },
  { "cyc:members()", function(e) return e.qcyc:members() end },
  { "cyc.number", function(e) return e.qcyc.number end },
  { "a functions() iterator resumed", function(e) return e.qit() end },
  { "a callers() iterator resumed", function(e) return e.qcallers() end },
  { "a members() iterator resumed", function(e) return e.qmembers() end },
  { "a view's flat()", function(e) return e.qview:flat() end },
  { "a view's function", function(e) return e.qviewfn.name end },
  { "lgprof.report.json", function(e) return lgprof.report.json(e.q, io.tmpfile()) end },
  { "lgprof.dot.write", function(e) return require("lgprof.format.dot").write(e.q, io.tmpfile()) end },
  { "lgprof.check.max_self", function(e) return lgprof.check.max_self(e.q, "main", 1) end },
  { "lgprof.analysis.diff", function(e) return lgprof.diff(e.q, e.p) end },
  { "p:close() again", function(e) return e.q:close() end },
}
for _, c in ipairs(CLOSED) do case("closed profile: " .. c[1], c[2]) end

return C
