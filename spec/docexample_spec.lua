-- The example of the original gprof paper (and of the GNU gprof manual's
-- section on mutually recursive functions): main calls a, a and b call each
-- other (cycle 1), both call c.
--
-- At test time an executable with the functions start, main, a, b and c and
-- its gmon.out are written with helpers.synth (one histogram bin per function):
--   histogram at 100 Hz: main 16 samples, a 75, b 102, c 0;
--   arcs: start->main 1, main->a 1, a->b 3, b->a 2, a->c 3, b->c 3.
--
-- Expected values, derived by hand from gprof's definitions:
--   total time = (16 + 75 + 102) / 100 = 1.93 s
--   cycle 1 = {a, b}: self 0.75 + 1.02 = 1.77 s, children 0 (c has no time);
--     called from outside once (main->a) and 3 + 2 = 5 times inside: "1+5";
--     100 * 1.77 / 1.93 = 91.709 -> "91.7"
--   b: 100 * 1.02 / 1.93 = 52.849 -> "52.8";  a: 100 * 0.75 / 1.93 = 38.860 -> "38.9"
--   calls received from the other member: a 2 (from b), b 3 (from a)
--   main: self 0.16, children = the whole cycle (its only outside caller) 1.77
--   start: no caller (<spontaneous>), self 0, children 0.16 + 1.77 = 1.93
--   c: called 3 + 3 = 6 times, "3/6" from each of a and b, 0.00 s.
--
-- doc/trust.md shows this call graph (the fenced block whose first line is
-- the header "index % time ..."): it must be what lgprof prints, which the
-- last tests compare with what gprof prints.

local H = require "helpers"
local util, cmd, synth = H.util, H.cmd, H.synth
local lgprof = require "lgprof"

local FUNCS = { "start", "main", "a", "b", "c" }
local SAMPLES = { start = 0, main = 16, a = 75, b = 102, c = 0 }
local ARCS = {
  { "start", "main", 1 }, { "main", "a", 1 }, { "a", "b", 3 },
  { "b", "a", 2 }, { "a", "c", 3 }, { "b", "c", 3 },
}

-- The call graph's lines, entry by entry, as Lua patterns ([N]: an index):
local ENTRIES = {
  -- members: b 52.8%, a 38.9%; a's outside caller main gets the whole cycle
  ["b <cycle 1>"] = {
    primary = { "[N]%s+52%.8%s+1%.02%s+0%.00%s+3%s+b <cycle 1> [N]" },
    parents = { "%s+3%s+a <cycle 1> [N]" },
    children = { "%s+0%.00%s+0%.00%s+3/6%s+c [N]", "%s+2%s+a <cycle 1> [N]" },
  },
  ["a <cycle 1>"] = {
    primary = { "[N]%s+38%.9%s+0%.75%s+0%.00%s+3%s+a <cycle 1> [N]" },
    parents = { "%s+1%.77%s+0%.00%s+1/1%s+main [N]", "%s+2%s+b <cycle 1> [N]" },
    children = { "%s+0%.00%s+0%.00%s+3/6%s+c [N]", "%s+3%s+b <cycle 1> [N]" },
  },
  -- main: self 0.16, children 1.77 (the cycle), called once by start
  main = {
    primary = { "[N]%s+100%.0%s+0%.16%s+1%.77%s+1%s+main [N]" },
    parents = { "%s+0%.16%s+1%.77%s+1/1%s+start [N]" },
    children = { "%s+1%.77%s+0%.00%s+1/1%s+a <cycle 1> [N]" },
  },
  -- start: spontaneous, children 1.93
  start = {
    primary = { "[N]%s+100%.0%s+0%.00%s+1%.93%s+start [N]" },
    children = { "%s+0%.16%s+1%.77%s+1/1%s+main [N]" },
  },
  -- c: called 6 times, 3/6 from each of a and b
  c = {
    primary = { "[N]%s+0%.0%s+0%.00%s+0%.00%s+6%s+c [N]" },
    parents = { "%s+0%.00%s+0%.00%s+3/6%s+a <cycle 1> [N]", "%s+0%.00%s+0%.00%s+3/6%s+b <cycle 1> [N]" },
  },
}

local example -- { dir, exe, gmon, addr = {name -> address} } once written

local function need_example()
  if not example then
    local dir = util.mktempdir("lgprof-docexample")
    local funcs = {}
    for i, name in ipairs(FUNCS) do funcs[i] = { name, SAMPLES[name] } end
    local exe, gmon, addr = synth.write(dir, "example", { funcs = funcs, arcs = ARCS })
    example = { dir = dir, exe = exe, gmon = gmon, addr = addr }
  end
  return example
end

-- Call-graph entries of a -b -q report: { [primary name] = {lines...} }, the
-- primary line being the one that starts with "[N]".
local function entries(report)
  local list, cur = {}, {}
  for line in report:gmatch("([^\n]*)\n") do
    if line:match("^%-%-%-%-%-") then
      if #cur > 0 then list[#list + 1] = cur end
      cur = {}
    else
      cur[#cur + 1] = line
    end
  end
  local by_name = {}
  for _, e in ipairs(list) do
    for i, line in ipairs(e) do
      local name = line:match("^%[%d+%]%s+[%d.]+%s+[%d.]+%s+[%d.]+%s+[%d+]*%s*(.-) %[%d+%]$")
      if name then
        by_name[name] = { lines = e, primary = i }
        break
      end
    end
  end
  return by_name
end

local function find_line(entry, pattern, where)
  for i, line in ipairs(entry.lines) do
    local ok = (where == "parents" and i < entry.primary)
      or (where == "children" and i > entry.primary)
      or (where == "primary" and i == entry.primary) or where == nil
    if ok and line:match(pattern) then return line end
  end
  return nil
end

local function close_to(want, got, eps)
  assert.is_number(got)
  assert.is_true(math.abs(want - got) <= (eps or 1e-9),
    ("expected %.6f, got %.6f"):format(want, got))
end

describe("the gprof paper's example", function()
  teardown(function() util.rmtree(example and example.dir) end)

  it("call graph (lgprof -b -q) shows the paper's numbers", function()
    local ex = need_example()
    local rc, out, err = cmd.lgprof({ "-b", "-q", ex.exe, ex.gmon })
    assert.are.equal(0, rc, cmd.show(rc, out, err))
    local e = entries(out)
    local N = "%[%d+%]"

    -- the cycle as a whole: 91.7%, self 1.77, children 0.00, called 1+5,
    -- members b (1.02) then a (0.75)
    local cyc = assert(e["<cycle 1 as a whole>"], "no <cycle 1 as a whole> entry:\n" .. out)
    assert.is_truthy(find_line(cyc,
      "^" .. N .. "%s+91%.7%s+1%.77%s+0%.00%s+1%+5%s+<cycle 1 as a whole> " .. N .. "$",
      "primary"), out)
    local members = {}
    for i = cyc.primary + 1, #cyc.lines do
      local self, child, name = cyc.lines[i]:match(
        "^%s+([%d.]+)%s+([%d.]+)%s+%d+%s+(%a+) <cycle 1> " .. N .. "$")
      if name then members[#members + 1] = { name, self, child } end
    end
    assert.are.same({ { "b", "1.02", "0.00" }, { "a", "0.75", "0.00" } }, members)

    -- the lines of each entry (see the header)
    for entry, parts in pairs(ENTRIES) do
      local en = assert(e[entry], "no entry " .. entry .. ":\n" .. out)
      for where, patterns in pairs(parts) do
        for _, pat in ipairs(patterns) do
          assert(find_line(en, "^" .. pat:gsub("%[N%]", function() return N end) .. "$", where),
            ("%s: no %s line %q\n%s"):format(entry, where, pat, out))
        end
      end
    end

    -- start: spontaneous (its only parent line)
    assert.are.equal(2, e["start"].primary, out)
    assert.matches("^%s+<spontaneous>$", e["start"].lines[1])
  end)

  it("Lua API gives the paper's numbers", function()
    local ex = need_example()
    local profile = assert(lgprof.open(ex.exe, ex.gmon))
    finally(function() profile:close() end)
    local EPS = 1e-6
    close_to(1.93, profile.total_time, EPS)
    assert.are.equal(100, profile.hz)

    local fn = {}
    for f in profile:symbols() do fn[f.symbol] = f end
    for _, name in ipairs(FUNCS) do
      assert.is_truthy(fn[name], name .. " missing")
      assert.are.equal(ex.addr[name], fn[name].address)
      assert.is_true(fn[name].is_function)
    end

    local cy = H.profile.only(profile:cycles()) -- one cycle
    assert.are.equal(1, cy.number)
    assert.are.equal("<cycle 1>", cy.name)
    close_to(1.77, cy.self, EPS)
    close_to(0, cy.children, EPS)
    assert.are.equal(1, cy.calls)
    assert.are.equal(5, cy.internal_calls)
    close_to(100 * 1.77 / 1.93, cy.percent, 1e-6)
    assert.are.equal("91.7", ("%.1f"):format(cy.percent))

    local members = {}
    for m, received in cy:members() do members[m.symbol] = received end
    assert.are.same({ a = 2, b = 3 }, members)
    assert.are.equal(2, fn.a.member_calls)
    assert.are.equal(3, fn.b.member_calls)
    assert.are.equal(cy, fn.a.cycle)
    assert.are.equal(cy, fn.b.cycle)
    assert.is_nil(fn.main.cycle)
    assert.is_nil(fn.c.cycle)

    close_to(1.02, fn.b.self, EPS)
    close_to(0.75, fn.a.self, EPS)
    close_to(100 * 1.02 / 1.93, fn.b.percent, 1e-6)
    close_to(100 * 0.75 / 1.93, fn.a.percent, 1e-6)
    assert.are.equal("52.8", ("%.1f"):format(fn.b.percent))
    assert.are.equal("38.9", ("%.1f"):format(fn.a.percent))
    -- a: 1 call from main, 2 from b; b: 3 from a
    assert.are.equal(3, fn.a.calls)
    assert.are.equal(3, fn.b.calls)
    assert.are.equal(0, fn.a.self_calls)

    close_to(0.16, fn.main.self, EPS)
    close_to(1.77, fn.main.children, EPS)
    assert.are.equal(1, fn.main.calls)

    close_to(0, fn.start.self, EPS)
    close_to(1.93, fn.start.children, EPS)
    assert.are.equal(0, fn.start.calls)
    local start_callers = 0
    for _ in fn.start:callers() do start_callers = start_callers + 1 end
    assert.are.equal(0, start_callers)

    assert.are.equal(6, fn.c.calls)
    close_to(0, fn.c.self, EPS)
    local from = {}
    for arc in fn.c:callers() do
      from[arc.caller.symbol] = arc.count
      close_to(0, arc.self, EPS)
    end
    assert.are.same({ a = 3, b = 3 }, from)

    -- main's arc to a carries the whole cycle
    for arc in fn.main:callees() do
      assert.are.equal("a", arc.callee.symbol)
      assert.are.equal(1, arc.count)
      close_to(1.77, arc.self, EPS)
      close_to(0, arc.children, EPS)
    end
  end)

  it("is shown in doc/trust.md as lgprof -b -q prints it", function()
    local ex = need_example()
    local doc = assert(util.slurp(cmd.ROOT .. "/doc/trust.md"))
    local shown = assert(doc:match("\n```\n(index %% time[^\n]*\n.-)```\n"),
      "doc/trust.md has no block starting with the call graph's header")
    local rc, out, err = cmd.lgprof({ "-b", "-q", ex.exe, ex.gmon })
    assert.are.equal(0, rc, cmd.show(rc, out, err))
    -- the call graph's table: from its header through its last separator
    local graph = assert(out:match("\n(index %% time.*%-%-%-%-%-\n)"), out)
    assert.are.equal(graph, shown)
  end)

  for _, args in ipairs { { "-b", "-q" }, {} } do
    local opts = #args > 0 and table.concat(args, " ") or "(no options)"
    it("output equals gprof's: " .. opts, function()
      local ex = need_example()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      local argv = { table.unpack(args) }
      argv[#argv + 1], argv[#argv + 2] = ex.exe, ex.gmon
      local wrc, want, werr = cmd.gprof(argv, { cwd = ex.dir })
      local grc, got, gerr = cmd.lgprof(argv, { cwd = ex.dir })
      assert.are.equal(0, wrc, cmd.show(wrc, want, werr))
      assert.are.equal(want, got)
      assert.are.equal(werr, gerr)
      assert.are.equal(wrc, grc)
    end)
  end
end)
