-- The Lua API over the analysed profile, checked against the definitions
-- of the gprof model and against gprof's own report of the same files.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, cmd = H.fixtures, H.cmd

describe("lgprof API", function()
  local build
  setup(function()
    build = assert(fx.build("cycles", "O0g-nopie"))
  end)

  it("loads and reports bad files as nil plus a message", function()
    assert.is_table(lgprof)
    assert.is_string(lgprof.VERSION)
    local p, msg = lgprof.open("/nonexistent/exe", build.gmon[1])
    assert.is_nil(p)
    assert.matches("^/nonexistent/exe: ", msg)
    p, msg = lgprof.open(build.exe, "/nonexistent/gmon.out")
    assert.is_nil(p)
    assert.matches("^/nonexistent/gmon.out: ", msg)
  end)

  it("raises on misuse", function()
    assert.has_error(function() lgprof.open(42) end)
    assert.has_error(function() lgprof.open(build.exe, 42) end)
    assert.has_error(function() lgprof.open(build.exe, build.gmon[1], { bogus = true }) end)
  end)

  it("accepts one path or a list, and sums a list", function()
    local one = assert(lgprof.open(build.exe, build.gmon[1]))
    local all = assert(lgprof.open(build.exe, build.gmon))
    assert.are.equal(#one:file_info(), 1)
    assert.are.equal(#all:file_info(), 3)
    assert.is_true(all.arc_records >= one.arc_records)
    one:close()
    all:close()
  end)

  it("every function's calls equal the sum of its non-recursive callers' counts", function()
    local p <close> = assert(lgprof.open(build.exe, build.gmon))
    local checked = 0
    for fn in p:symbols() do
      local sum, self = 0, 0
      for arc in fn:callers() do
        if arc.is_recursive then self = self + arc.count else sum = sum + arc.count end
        assert.are.equal(fn, arc.callee)
      end
      assert.are.equal(sum, fn.calls, fn.name)
      assert.are.equal(self, fn.self_calls, fn.name)
      checked = checked + 1
    end
    assert.is_true(checked > 10)
  end)

  it("cycles: calls from outside plus internal calls match the members", function()
    local p <close> = assert(lgprof.open(build.exe, build.gmon))
    local ncycles = 0
    for cyc in p:cycles() do
      ncycles = ncycles + 1
      local outside, internal, members = 0, 0, 0
      for m, from_members in cyc:members() do
        members = members + 1
        assert.are.equal(cyc, m.cycle)
        assert.are.equal(from_members, m.member_calls)
        internal = internal + from_members
        outside = outside + m.calls - from_members
      end
      assert.is_true(members >= 2)
      assert.are.equal(internal, cyc.internal_calls)
      assert.are.equal(outside, cyc.calls)
      assert.are.equal(("<cycle %d>"):format(cyc.number), cyc.name)
    end
    assert.are.equal(3, ncycles) -- the fixture has three cycles
    assert.are.equal(3, p.cycle_count)
  end)

  it("index order, get() and the numbers gprof prints agree", function()
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local _, report = cmd.gprof({ "-b", "-q", build.exe, build.gmon[1] })
    local i = 0
    for e in p:entries() do
      i = i + 1
      assert.are.equal(i, e.index)
      assert.are.equal(e, p:get(i))
    end
    assert.are.equal(p.function_count + p.cycle_count, i)
    -- each primary line of gprof's call graph: [index] %time self children
    local lines = 0
    for idx, pct, self, children in report:gmatch("\n%[(%d+)%]%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)") do
      local e = p:get(tonumber(idx))
      assert.are.equal(pct, ("%.1f"):format(e.percent))
      assert.are.equal(self, ("%.2f"):format(e.self))
      assert.are.equal(children, ("%.2f"):format(e.children))
      lines = lines + 1
    end
    assert.is_true(lines > 5)
  end)

  it("flat order follows self time and matches gprof's flat profile", function()
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local _, report = cmd.gprof({ "-b", "-p", build.exe, build.gmon[1] })
    local expected = {}
    for line in report:gmatch("[^\n]+") do
      local name = line:match("^%s*[%d.]+%s+[%d.]+%s+[%d.]+%s.-  (%S+)$")
      if name then expected[#expected + 1] = name end
    end
    local got, prev = {}, math.huge
    for fn in p:flat() do
      assert.is_true(fn.flat_self <= prev)
      prev = fn.flat_self
      if fn.calls > 0 or fn.flat_self > 0 then got[#got + 1] = fn.name end
    end
    assert.are.same(expected, got)
  end)

  it("exposes symbols with addresses, ranges and source info", function()
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local prev, main
    for fn in p:symbols() do
      if prev then assert.is_true(fn.address > prev.address) end
      if fn.end_address >= fn.address then
        assert.are.equal(fn.end_address - fn.address + 1, fn.size)
        assert.are.equal(fn, p:lookup(fn.address))
        assert.are.equal(fn, p:lookup(fn.end_address))
      end
      if fn.symbol == "main" then main = fn end
      prev = fn
    end
    assert.is_not_nil(main)
    assert.is_false(main.is_static)
    assert.is_true(main.is_function)
    assert.matches("cycles%.c$", main.file)
    assert.is_true(main.line > 0)
    assert.are.equal(1, #p:histograms())
    assert.are.equal(p.hz, p:histograms()[1].rate)
  end)

  it("handles keep their profile alive; a closed profile raises", function()
    local fn
    do
      local p = assert(lgprof.open(build.exe, build.gmon[1]))
      fn = p:get(1)
    end
    collectgarbage()
    collectgarbage()
    assert.is_string(fn.name) -- the profile is still alive through fn
    local p = assert(lgprof.open(build.exe, build.gmon[1]))
    local f1 = p:get(1)
    p:close()
    p:close() -- idempotent
    assert.has_error(function() return f1.name end)
    assert.has_error(function() p:functions() end)
    assert.matches("closed", tostring(p))
  end)

  it("demangles like gprof", function()
    assert.are.equal("ns::f(int)", lgprof.demangle("_ZN2ns1fEi"))
    assert.are.equal("g(double)", lgprof.demangle("_ZL1gd"))
    assert.is_nil(lgprof.demangle("main"))
  end)
end)
