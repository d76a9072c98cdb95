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

-- gprof's flat profile and call graph of the same files, as lists: the flat
-- rows' names (the name starts at column 55 in every row gprof -b prints) and
-- the call graph entries' indices ("[N]" opens an entry's line).
local function gprof_rows(exe, gmon, flags)
  local argv = { "-b" }
  table.move(flags, 1, #flags, 2, argv)
  argv[#argv + 1] = exe
  argv[#argv + 1] = gmon
  local status, out = cmd.gprof(argv)
  assert(status == 0, out)
  local flat, graph = {}, {}
  for line in out:gmatch("[^\n]+") do
    if line:match("^%s*[%d.]+%s+[%d.]+%s+[%d.]+%s") then flat[#flat + 1] = line:sub(55) end
    local index = line:match("^%[(%d+)%]")
    if index then graph[#graph + 1] = tonumber(index) end
  end
  return flat, graph
end

describe("lgprof API: what gprof prints", function()
  -- programs with cycles, same-name statics and C++ names (spaces in names)
  local CASES = { { "classic", "c" }, { "cycles" }, { "samename" }, { "cxx_overload" } }

  it("flat() yields the rows of gprof's flat profile, in its order (-z: zeros; -P)", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    for _, case in ipairs(CASES) do
      local b = assert(fx.build(case[1], "O0g-nopie"))
      local variants = { { {}, {}, {} }, { { "-z" }, { zeros = true }, {} },
                         { {}, {}, { zeros = true } } }
      if case[2] then variants[#variants + 1] = { { "-P" .. case[2] }, { no_flat = { case[2] } }, {} } end
      for _, v in ipairs(variants) do
        local flags, open_opts, flat_opts = v[1], v[2], v[3]
        local want = gprof_rows(b.exe, b.gmon[1], { "-p", table.unpack(flat_opts.zeros and { "-z" } or flags) })
        local p <close> = assert(lgprof.open(b.exe, b.gmon[1], open_opts))
        local got = {}
        for fn in p:flat(flat_opts) do
          got[#got + 1] = fn.name
          assert.is_true(fn.in_flat or flat_opts.zeros == true, fn.name)
        end
        assert.are.same(want, got, case[1] .. " " .. table.concat(flags, " "))
        local n = 0
        for fn in p:functions() do if fn.in_flat then n = n + 1 end end
        if not flat_opts.zeros then assert.are.equal(#want, n) end
      end
    end
  end)

  it("fn.in_graph and fn.printed: the entries of gprof's call graph (and with -z)", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    for _, case in ipairs(CASES) do
      local b = assert(fx.build(case[1], "O0g-nopie"))
      for _, z in ipairs { false, true } do
        local _, want = gprof_rows(b.exe, b.gmon[1], z and { "-q", "-z" } or { "-q" })
        local p <close> = assert(lgprof.open(b.exe, b.gmon[1], { zeros = z }))
        local got = {}
        for e in p:entries() do
          assert.are.equal(e.in_graph, e.printed, e.name)
          if e.in_graph then got[#got + 1] = e.index end
        end
        assert.are.same(want, got, case[1] .. (z and " -z" or ""))
      end
    end
  end)

  it("symbols without samples or calls are neither rows nor entries without zeros", function()
    local b = assert(fx.build("classic", "O0g-nopie"))
    local p <close> = assert(lgprof.open(b.exe, b.gmon[1]))
    local idle = 0
    for fn in p:symbols() do
      if fn.flat_self == 0 and fn.calls == 0 and fn.self_calls == 0 and fn.total == 0 then
        idle = idle + 1
        assert.is_false(fn.in_flat, fn.name)
        assert.is_false(fn.printed, fn.name)
      end
    end
    assert.is_true(idle > 0) -- etext, _start and the like
    for fn in p:flat() do assert.is_true(fn.flat_self > 0 or fn.calls > 0, fn.name) end
  end)

  it("search(pattern): every Function whose name matches the ERE, in index order", function()
    local b = assert(fx.build("cycles", "O0g-nopie"))
    local p <close> = assert(lgprof.open(b.exe, b.gmon[1]))
    local v <close> = assert(p:filter { ignore = "^b1$" })
    for _, prof in ipairs { p, v } do
      for _, pattern in ipairs { "^[abc]1$", "a", "^main$", "(2|3)z*$", "no such function" } do
        local want = {}
        for fn in prof:functions() do
          if lgprof.match(fn.name, pattern) then want[#want + 1] = fn end
        end
        local got = prof:search(pattern)
        assert.are.equal(#want, #got, pattern)
        for i = 1, #want do assert.is_true(rawequal(want[i], got[i]), pattern) end
      end
    end
    assert.are.equal(0, #v:search("^b1$")) -- what a view removed is not found
    assert.are.equal(1, #p:search("^b1$"))
    assert.has_error(function() p:search("bu(rn") end)
    assert.has_error(function() p:search() end)
    -- find is exact: no regex, no prefix
    assert.is_nil(p:find("^main$"))
    assert.is_nil(p:find("mai"))
    assert.are.equal("main", p:find("main").name)
  end)
end)
