-- The example of the original gprof paper (and of the GNU gprof manual's
-- section on mutually recursive functions): main calls a, a and b call each
-- other (cycle 1), both call c.
--
-- At test time an executable with the functions start (entry), main, a, b and
-- c is assembled with gcc, and its gmon.out is written with
-- helpers.gmonwriter:
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

local gw = require "helpers.gmonwriter"
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local lgprof = require "lgprof"

local ROOT = fx.root
local LGPROF = ROOT .. "/bin/lgprof"
local GPROF = "/usr/bin/gprof"
local sq = fx.shquote

local exec_ok = util.exec_ok

local read_cmd = util.read_cmd

local HAVE_GCC = exec_ok("command -v gcc >/dev/null 2>&1")
local HAVE_GPROF = exec_ok("test -x " .. sq(GPROF))

local FUNCS = { "start", "main", "a", "b", "c" }
local SAMPLES = { main = 16, a = 75, b = 102, c = 0 }
local ARCS = {
  { "start", "main", 1 }, { "main", "a", 1 }, { "a", "b", 3 },
  { "b", "a", 2 }, { "a", "c", 3 }, { "b", "c", 3 },
}

local function assembly()
  local out = { "\t.text" }
  for _, f in ipairs(FUNCS) do
    out[#out + 1] = table.concat({
      "\t.globl " .. f,
      "\t.type " .. f .. ", @function",
      "\t.p2align 4",
      f .. ":",
      "\t.rept 64",
      "\tnop",
      "\t.endr",
      "\tret",
      "\t.size " .. f .. ", .-" .. f,
    }, "\n")
  end
  out[#out + 1] = '\t.section .note.GNU-stack,"",@progbits\n'
  return table.concat(out, "\n")
end

local example -- { dir, exe, gmon, addr = {name -> address} } once built
local build_error

local function build_example()
  if example or build_error then return example, build_error end
  local dir = read_cmd("mktemp -d " .. sq((os.getenv("TMPDIR") or "/tmp")
    .. "/lgprof-docexample.XXXXXX")):gsub("%s+$", "")
  if dir == "" then build_error = "mktemp failed"; return nil, build_error end
  local src, exe, gmon = dir .. "/example.s", dir .. "/example", dir .. "/gmon.out"
  local f = assert(io.open(src, "w"))
  f:write(assembly())
  f:close()
  local log = read_cmd("gcc -nostdlib -static -no-pie -Wl,-e,start -o " .. sq(exe) .. " "
    .. sq(src) .. " 2>&1; echo \"rc=$?\"")
  if not log:match("rc=0%s*$") then
    build_error = "gcc failed:\n" .. log
    return nil, build_error
  end
  -- addresses from the symbol table (nm comes with gcc's binutils)
  local addr = {}
  for line in read_cmd("nm " .. sq(exe)):gmatch("[^\n]+") do
    local a, name = line:match("^(%x+)%s+[Tt]%s+(%S+)$")
    if a then addr[name] = tonumber(a, 16) end
  end
  for _, fn in ipairs(FUNCS) do
    if not addr[fn] then
      build_error = "nm does not list " .. fn
      return nil, build_error
    end
  end
  -- One histogram over the text, with 4-byte bins.  The bin width must be a
  -- whole number of bytes: gprof credits a bin to a function in proportion
  -- to the *integer* byte overlap divided by the real scale, so glibc's
  -- geometry (textsize / 4 bins, rounded up to a multiple of 4) would give a
  -- scale like 3.88 and inflate every time by 4/3.88.
  local low = addr.start & ~3
  local high = (addr.c + 65 + 3) & ~3
  local h = { low = low, high = high, n_bins = (high - low) // 4, rate = 100,
              dimen = "seconds", abbrev = "s", bins = {} }
  for name, n in pairs(SAMPLES) do
    if n > 0 then h.bins[gw.bin_for(h, addr[name] + 16)] = n end
  end
  local arcs = {}
  for i, a in ipairs(ARCS) do
    -- from_pc inside the caller's body, self_pc just after the callee's start
    arcs[#arcs + 1] = { from = addr[a[1]] + 8 + 4 * i, to = addr[a[2]] + 4, count = a[3] }
  end
  gw.write(gmon, { hist = { h }, arcs = arcs })
  example = { dir = dir, exe = exe, gmon = gmon, addr = addr }
  return example
end

local function need_example()
  if not HAVE_GCC then
    pending("gcc not installed")
    return nil
  end
  local ex, err = build_example()
  assert(ex, err)
  return ex
end

local function run(cmd)
  local out = read_cmd(cmd .. " 2>&1; echo \"__rc=$?\"")
  local rc = tonumber(out:match("__rc=(%d+)%s*$"))
  return out:gsub("__rc=%d+%s*$", ""), rc
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
  teardown(function()
    if example and example.dir:match("/lgprof%-docexample%.") then
      os.execute("rm -rf " .. sq(example.dir))
    end
  end)

  it("call graph (lgprof -b -q) shows the paper's numbers", function()
    local ex = need_example()
    if not ex then return end
    local out, rc = run(sq(LGPROF) .. " -b -q " .. sq(ex.exe) .. " " .. sq(ex.gmon))
    assert.are.equal(0, rc, out)
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

    -- members: b 52.8%, a 38.9%; a's outside caller main gets the whole cycle
    local b = assert(e["b <cycle 1>"], out)
    assert.is_truthy(find_line(b, "^" .. N .. "%s+52%.8%s+1%.02%s+0%.00%s+3%s+b <cycle 1> "
      .. N .. "$", "primary"), out)
    assert.is_truthy(find_line(b, "^%s+3%s+a <cycle 1> " .. N .. "$", "parents"), out)
    assert.is_truthy(find_line(b, "^%s+0%.00%s+0%.00%s+3/6%s+c " .. N .. "$", "children"), out)
    assert.is_truthy(find_line(b, "^%s+2%s+a <cycle 1> " .. N .. "$", "children"), out)
    local a = assert(e["a <cycle 1>"], out)
    assert.is_truthy(find_line(a, "^" .. N .. "%s+38%.9%s+0%.75%s+0%.00%s+3%s+a <cycle 1> "
      .. N .. "$", "primary"), out)
    assert.is_truthy(find_line(a, "^%s+1%.77%s+0%.00%s+1/1%s+main " .. N .. "$", "parents"), out)
    assert.is_truthy(find_line(a, "^%s+2%s+b <cycle 1> " .. N .. "$", "parents"), out)
    assert.is_truthy(find_line(a, "^%s+0%.00%s+0%.00%s+3/6%s+c " .. N .. "$", "children"), out)
    assert.is_truthy(find_line(a, "^%s+3%s+b <cycle 1> " .. N .. "$", "children"), out)

    -- main: self 0.16, children 1.77 (the cycle), called once by start
    local main = assert(e["main"], out)
    assert.is_truthy(find_line(main, "^" .. N .. "%s+100%.0%s+0%.16%s+1%.77%s+1%s+main "
      .. N .. "$", "primary"), out)
    assert.is_truthy(find_line(main, "^%s+0%.16%s+1%.77%s+1/1%s+start " .. N .. "$",
      "parents"), out)
    assert.is_truthy(find_line(main, "^%s+1%.77%s+0%.00%s+1/1%s+a <cycle 1> " .. N .. "$",
      "children"), out)

    -- start: spontaneous, children 1.93
    local start = assert(e["start"], out)
    assert.are.equal(2, start.primary, out)
    assert.matches("^%s+<spontaneous>$", start.lines[1])
    assert.is_truthy(find_line(start, "^" .. N .. "%s+100%.0%s+0%.00%s+1%.93%s+start "
      .. N .. "$", "primary"), out)
    assert.is_truthy(find_line(start, "^%s+0%.16%s+1%.77%s+1/1%s+main " .. N .. "$",
      "children"), out)

    -- c: called 6 times, 3/6 from each of a and b
    local c = assert(e["c"], out)
    assert.is_truthy(find_line(c, "^" .. N .. "%s+0%.0%s+0%.00%s+0%.00%s+6%s+c " .. N .. "$",
      "primary"), out)
    assert.is_truthy(find_line(c, "^%s+0%.00%s+0%.00%s+3/6%s+a <cycle 1> " .. N .. "$",
      "parents"), out)
    assert.is_truthy(find_line(c, "^%s+0%.00%s+0%.00%s+3/6%s+b <cycle 1> " .. N .. "$",
      "parents"), out)
  end)

  it("Lua API gives the paper's numbers", function()
    local ex = need_example()
    if not ex then return end
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

    local cycles = {}
    for cy in profile:cycles() do cycles[#cycles + 1] = cy end
    assert.are.equal(1, #cycles)
    local cy = cycles[1]
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

  for _, args in ipairs { { "-b", "-q" }, {} } do
    local opts = #args > 0 and table.concat(args, " ") or "(no options)"
    it("output equals gprof's: " .. opts, function()
      local ex = need_example()
      if not ex then return end
      if not HAVE_GPROF then
        pending("gprof not installed")
        return
      end
      local a = table.concat(args, " ")
      local files = " " .. sq(ex.exe) .. " " .. sq(ex.gmon)
      local want, wrc = run("cd " .. sq(ex.dir) .. " && PATH=/usr/bin:$PATH gprof " .. a .. files)
      local got, grc = run("cd " .. sq(ex.dir) .. " && " .. sq(LGPROF) .. " " .. a .. files)
      assert.are.equal(0, wrc, want)
      assert.are.equal(want, got)
      assert.are.equal(wrc, grc)
    end)
  end
end)
