-- lgprof.check and `lgprof check`: thresholds on a profile's shares and call
-- counts, measured as the gprof report shows them (flat "% time" for self,
-- call graph "% time" for total, calls + recursive calls). A breach is one
-- line on stderr and makes the run exit with status 3.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, synth, prof = H.fixtures, H.util, H.cmd, H.synth, H.profile
local fn_named = prof.fn

-- The classic fixture; these specs set thresholds just above and below c's
-- share, so they need c sampled in it and not alone (10% to 99% of each run's
-- samples): a cached build without it is rerun (helpers.fixtures), not failed
-- on forever.
local function classic()
  return assert(fx.build("classic", "O0g-nopie"))
end

-- The classic shape synthesized, so that its numbers are known exactly:
-- main -> a, a <-> b, a -> c, b -> c; samples main 2, a 10, b 8, c 20 (0.40 s
-- in all, every one of them in main or below it); `more` has c at 80.
local function synthesized(dir)
  local funcs = { { "main", 2 }, { "a", 10 }, { "b", 8 }, { "c", 20 } }
  local arcs = { { "main", "a", 1 }, { "a", "b", 5 }, { "b", "a", 4 }, { "a", "c", 6 }, { "b", "c", 5 } }
  local exe, gmon = synth.write(dir, "classic", { funcs = funcs, arcs = arcs })
  funcs[4] = { "c", 80 }
  local _, more = synth.write(dir, "classic-more", { funcs = funcs, arcs = arcs })
  return exe, gmon, more
end

-- A profile where gprof prints a share above 100%: one function, burn, at
-- the start of the text (16 bytes, then etext), and a histogram over its
-- first 6 bytes: 3 two-byte units in 2 bins, so gprof's bin scale is 1.5.
-- gprof truncates bin edges to whole units, so the second bin spans units 1
-- to 3 and credits 2 / 1.5 of its count: its 3 samples give burn 4 ticks of
-- a total of 3, 133.33% (the reference: "percentages can exceed 100%").
local function over_100(dir)
  local ew, gw = require "helpers.elfwriter", require "helpers.gmonwriter"
  local text = synth.TEXT
  local exe, gmon = dir .. "/over100", dir .. "/over100.gmon"
  ew.write(exe, { text_addr = text, text_size = 16, symbols = {
    { name = "burn", addr = text, size = 16 }, { name = "etext", addr = text + 16, type = "notype" } } })
  gw.write(gmon, { hist = { { low = text, high = text + 6, n_bins = 2, rate = 100,
    dimen = "seconds", abbrev = "s", bins = { 0, 3 } } }, arcs = {} })
  return exe, gmon
end

-- Captures what a check writes.
local function capture(f)
  local check = lgprof.check
  local saved, file = check.output, io.tmpfile()
  check.output = file
  local ok, res = pcall(f)
  check.output = saved
  file:seek("set")
  local text = file:read("a")
  file:close()
  if not ok then error(res, 0) end
  return res, text
end

local function fmt(v) return ("%.6f"):format(v) end

describe("lgprof.analysis.check", function()
  local build, p, c, tmp
  setup(function()
    build = classic()
    p = assert(lgprof.open(build.exe, build.gmon))
    c = fn_named(p, "c")
    -- c has 10% to 99% of every run's samples (the fixture's needs), so of their sum too
    assert(c.flat_percent >= 10 and c.flat_percent <= 99 and c.calls > 100, "unexpected fixture")
    tmp = util.mktempdir("lgprof-check")
    -- the measures themselves, at confidence 0 (every breach of the
    -- estimate fails): the confidence is spec/noise_spec.lua's
    lgprof.check.confidence = 0
  end)
  teardown(function()
    lgprof.check.confidence = 0.95
    if p then p:close() end
    util.rmtree(tmp)
  end)
  before_each(function() lgprof.check.reset() end)

  it("is loaded on first use", function()
    assert.equal(require("lgprof.analysis.check"), lgprof.check)
  end)

  it("max_self: the flat profile's share, failing just below and passing just above", function()
    local share = c.flat_percent / 100
    local ok, text = capture(function() return lgprof.check.max_self(p, "^c$", share + 1e-6) end)
    assert.is_true(ok)
    assert.equal("", text)
    assert.same({}, lgprof.check.failures())
    ok, text = capture(function() return lgprof.check.max_self(p, "^c$", share - 1e-6) end)
    assert.is_false(ok)
    assert.equal(("lgprof: check failed: max_self c: %.2f%% > %.2f%%\n"):format(
      100 * share, 100 * (share - 1e-6)), text)
    local f = lgprof.check.failures()
    assert.equal(1, #f)
    assert.equal("max_self", f[1].check)
    assert.equal("^c$", f[1].pattern)
    assert.equal("c", f[1].name)
    assert.equal(share, f[1].value)
    assert.equal(share - 1e-6, f[1].limit)
    assert.equal(text, "lgprof: " .. f[1].message .. "\n")
  end)

  it("max_total: the call graph's share", function()
    local share = c.percent / 100
    assert.is_true((capture(function() return lgprof.check.max_total(p, "^c$", share + 1e-6) end)))
    assert.is_false((capture(function() return lgprof.check.max_total(p, "^c$", share - 1e-6) end)))
  end)

  it("max_total: main holding every sample below it is 100% of the graph (synthesized)", function()
    local exe, gmon = synthesized(tmp)
    local s <close> = assert(lgprof.open(exe, gmon))
    assert.is_true((capture(function() return lgprof.check.max_total(s, "^main$", 1) end)))
    local ok, text = capture(function() return lgprof.check.max_total(s, "^main$", 0.99) end)
    assert.is_false(ok)
    assert.equal("lgprof: check failed: max_total main: 100.00% > 99.00%\n", text)
    -- c: 20 of the 40 samples
    ok, text = capture(function() return lgprof.check.max_self(s, "^c$", 0.4) end)
    assert.is_false(ok)
    assert.equal("lgprof: check failed: max_self c: 50.00% > 40.00%\n", text)
  end)

  it("max_calls: calls plus recursive calls", function()
    local n = c.calls + c.self_calls
    assert.is_true((capture(function() return lgprof.check.max_calls(p, "^c$", n) end)))
    local ok, text = capture(function() return lgprof.check.max_calls(p, "^c$", n - 1) end)
    assert.is_false(ok)
    assert.equal(("lgprof: check failed: max_calls c: %d > %d\n"):format(n, n - 1), text)
    -- recursive calls count
    local rec = assert(fx.build("selfrec", "O0g-nopie"))
    local rp <close> = assert(lgprof.open(rec.exe, rec.gmon[1]))
    local fact = fn_named(rp, "fact")
    assert.is_true(fact.self_calls > 0)
    local all = fact.calls + fact.self_calls
    assert.is_true((capture(function() return lgprof.check.max_calls(rp, "^fact$", all) end)))
    assert.is_false((capture(function() return lgprof.check.max_calls(rp, "^fact$", fact.calls) end)))
  end)

  it("checks every matching function and writes one line per breach", function()
    local over = 0
    for fn in p:symbols() do
      if fn.name:match("^[abc]$") and fn.calls > 0 then over = over + 1 end
    end
    assert.equal(3, over)
    local ok, text = capture(function() return lgprof.check.max_calls(p, "^[abc]$", 0) end)
    assert.is_false(ok)
    assert.equal(3, select(2, text:gsub("\n", "")))
    assert.equal(3, #lgprof.check.failures())
  end)

  it("a pattern that matches no function fails", function()
    local ok, text = capture(function() return lgprof.check.max_self(p, "^no_such_function$", 1) end)
    assert.is_false(ok)
    assert.equal("lgprof: check failed: max_self ^no_such_function$: no function matches\n", text)
    assert.is_nil(lgprof.check.failures()[1].name)
  end)

  it("max_growth: total change of a diff row as a share of the base total", function()
    local one <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local d = lgprof.diff(one, p)
    local row
    for _, r in ipairs(d) do if r.name == "c" then row = r end end
    local g = row.total_delta / one.total_time
    assert.is_true(g > 0) -- three runs against one
    assert.equal(g, row.total_share)
    assert.is_true((capture(function() return lgprof.check.max_growth(d, "^c$", g + 1e-6) end)))
    local ok, text = capture(function() return lgprof.check.max_growth(d, "^c$", g - 1e-6) end)
    assert.is_false(ok)
    assert.equal(("lgprof: check failed: max_growth c: +%.2f%% > %.2f%%\n"):format(100 * g,
      100 * (g - 1e-6)), text)
    -- shrinking never fails
    assert.is_true((capture(function() return lgprof.check.max_growth(lgprof.diff(p, one), ".", 0) end)))
    assert.has_error(function() lgprof.check.max_growth(d, "^c$", -1) end)
  end)

  it("max_growth may exceed 1 (synthesized: c from 20 to 80 samples, the base 40)", function()
    local exe, gmon, more = synthesized(tmp)
    local base <close> = assert(lgprof.open(exe, gmon))
    local new <close> = assert(lgprof.open(exe, more))
    local d = lgprof.diff(base, new)
    assert.is_true((capture(function() return lgprof.check.max_growth(d, "^c$", 1.51) end)))
    local ok, text = capture(function() return lgprof.check.max_growth(d, "^c$", 1.49) end)
    assert.is_false(ok)
    assert.equal("lgprof: check failed: max_growth c: +150.00% > 149.00%\n", text)
  end)

  it("a share is a fraction or a percent string, as on the command line", function()
    local share = c.flat_percent / 100
    local above, below = 100 * share + 1e-4, 100 * share - 1e-4
    for _, limit in ipairs { ("%.6f%%"):format(above), (" %.6f %% "):format(above), tostring(share + 1e-6) } do
      assert.is_true((capture(function() return lgprof.check.max_self(p, "^c$", limit) end)), limit)
    end
    for _, limit in ipairs { ("%.6f%%"):format(below), tostring(share - 1e-6) } do
      assert.is_false((capture(function() return lgprof.check.max_self(p, "^c$", limit) end)), limit)
    end
    local f = lgprof.check.failures()
    assert.equal(2, #f)
    assert.near(below / 100, f[1].limit, 1e-8) -- recorded as a fraction
    assert.equal("number", type(f[2].limit))
    local total = c.percent / 100
    assert.is_true((capture(function()
      return lgprof.check.max_total(p, "^c$", ("%.6f%%"):format(100 * total + 1e-4)) end)))
    local one <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local d = lgprof.diff(one, p)
    assert.is_true((capture(function() return lgprof.check.max_growth(d, ".", "1000%") end)))
    assert.is_nil(lgprof.check.limit("max_self", "x"))
    assert.equal(0.3, lgprof.check.limit("max_total", "30%"))
    assert.equal(1.5, lgprof.check.limit("max_growth", 1.5))
    assert.equal(100000, lgprof.check.limit("max_calls", "1e5"))
    assert.is_nil(lgprof.check.limit("max_calls", "30%"))
  end)

  it("limits above 100%: a share gprof prints as 133.33% (synthesized)", function()
    local exe, gmon = over_100(tmp)
    if cmd.HAVE_GPROF then -- the measure, as gprof prints it
      local _, out = cmd.gprof({ "-b", "-p", exe, gmon })
      assert.matches("\n133%.33%s+0%.04%s+0%.04%s+burn\n", out)
    end
    local s <close> = assert(lgprof.open(exe, gmon))
    assert.near(133.3333333, s:find("burn").flat_percent, 1e-6)
    for _, limit in ipairs { "134%", 1.34, "1.34", 2 } do
      assert.is_true((capture(function() return lgprof.check.max_self(s, "^burn$", limit) end)), limit)
    end
    for _, limit in ipairs { "133%", "100%", 1 } do
      local ok, text = capture(function() return lgprof.check.max_self(s, "^burn$", limit) end)
      assert.is_false(ok, limit)
      assert.matches("max_self burn: 133%.33%% > 1[03][03]%.00%%", text)
    end
  end)

  it("records failures until reset; failures() is a copy", function()
    capture(function() lgprof.check.max_calls(p, "^c$", 0) end)
    capture(function() lgprof.check.max_self(p, "^c$", 1) end) -- passes
    capture(function() lgprof.check.max_calls(p, "^a$", 0) end)
    local f = lgprof.check.failures()
    assert.equal(2, #f)
    f[3] = "x"
    assert.equal(2, #lgprof.check.failures())
    lgprof.check.reset()
    assert.same({}, lgprof.check.failures())
  end)

  it("raises on misuse", function()
    local check = lgprof.check
    assert.has_error(function() check.max_self(p, "^c$", -0.1) end)
    assert.has_error(function() check.max_self(p, "^c$", "-30%") end)
    assert.has_error(function() check.max_self(p, "^c$", "30%%") end)
    assert.has_error(function() check.max_self(p, "^c$", "0x1p-2") end)
    assert.has_error(function() check.max_self(p, "^c$", "nan") end)
    assert.has_error(function() check.max_self(p, "^c$", 0 / 0) end)
    assert.has_error(function() check.max_self(p, "^c$", {}) end)
    assert.has_error(function() check.max_total(p, 42, 0.5) end)
    assert.has_error(function() check.max_calls(p, "^c$", 1.5) end)
    assert.has_error(function() check.max_calls("profile", "^c$", 1) end)
    assert.has_error(function() check.max_growth(p, ".", 0.1) end)
    assert.has_error(function() check.max_self(p, "(", 0.5) end) -- a bad pattern
    assert.same({}, check.failures())
  end)

  it("check.exit() exits 3 after a failure and returns otherwise", function()
    local code = [[
local lgprof = require "lgprof"
local p = assert(lgprof.open(%q, %q))
lgprof.check.max_calls(p, "^c$", %d)
lgprof.check.exit()
print("still running")
]]
    local n = c.calls -- of the summed profile: more than any single run has
    local script = tmp .. "/exit.lua"
    cmd.write(script, code:format(build.exe, build.gmon[1], n))
    cmd.expect({ status = 0, out = "still running\n" }, cmd.lua({ script }))
    cmd.write(script, code:format(build.exe, build.gmon[1], 0))
    cmd.expect({ status = 3, out = "" }, cmd.lua({ script }))
  end)

  it("lgprof.match: the pattern language (ERE from the core, else Lua patterns)", function()
    assert.is_true(lgprof.match("foo_bar", "^foo"))
    assert.is_true(lgprof.match("foo_bar", "bar$"))
    assert.is_false(lgprof.match("foo_bar", "^bar"))
    assert.is_true(lgprof.match("ns::f(int)", "f"))
    assert.has_error(function() lgprof.match("x", "(") end)
    assert.has_error(function() lgprof.match(1, "x") end)
    assert.has_error(function() lgprof.match("x", nil) end)
  end)
end)

describe("lgprof check", function()
  local build, tmp, self_share, total_share, calls
  setup(function()
    build = classic()
    tmp = util.mktempdir("lgprof-check")
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local c = fn_named(p, "c")
    self_share, total_share, calls = c.flat_percent / 100, c.percent / 100, c.calls + c.self_calls
  end)
  teardown(function() util.rmtree(tmp) end)

  -- (the measures at confidence 0; the confidence is spec/noise_spec.lua's)
  local function run(...)
    local args = { "check", "--confidence=0", ... }
    args[#args + 1] = build.exe
    args[#args + 1] = build.gmon[1]
    return cmd.lgprof(args)
  end

  it("0: every threshold passes; the summary is on stdout", function()
    local status, out, err = run("--max-self=^c$=" .. fmt(self_share + 0.001),
      "--max-total=^c$=" .. fmt(total_share + 0.001), "--max-calls=^c$=" .. calls)
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("lgprof check: 3 thresholds, 0 failed\n", out)
    assert.equal("", err)
  end)

  it("3: a threshold just below the measured value fails", function()
    for _, opt in ipairs({ "--max-self=^c$=" .. fmt(self_share - 0.001),
                           "--max-total=^c$=" .. fmt(total_share - 0.001),
                           "--max-calls=^c$=" .. (calls - 1) }) do
      cmd.expect({ status = 3, out = "lgprof check: 1 threshold, 1 failed\n",
                   err_match = "^lgprof: check failed: max_%a+ c: [%d.%%]+ > [%d.%%]+\n$" }, run(opt))
    end
  end)

  it("counts failed thresholds, not breaches", function()
    local status, out, err = run("--max-calls=^[abc]$=0", "--max-self=.=1", "--max-calls=^a$=0")
    assert.equal(3, status, cmd.show(status, out, err))
    assert.equal("lgprof check: 3 thresholds, 2 failed\n", out)
    assert.equal(4, select(2, err:gsub("\n", ""))) -- a, b, c, then a again
  end)

  it("reads SHARE as a fraction or a percentage", function()
    local pct = ("%.4f%%"):format(100 * self_share - 0.1)
    local status, out, err = run("--max-self=^c$=" .. pct)
    assert.equal(3, status, cmd.show(status, out, err))
    pct = ("%.4f%%"):format(100 * self_share + 0.1)
    status, out, err = run("--max-self=^c$=" .. pct)
    assert.equal(0, status, cmd.show(status, out, err))
  end)

  it("reads thresholds from a Lua file, with the options after it", function()
    local file = cmd.write(tmp .. "/thresholds.lua", ([[
return {
  max_self = { ["^c$"] = %s, ["^[ab]$"] = "%s" },
  max_calls = { ["^main$"] = 0 },
}
]]):format(fmt(self_share + 0.001), "90%"))
    local status, out, err = run("--thresholds=" .. file)
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("lgprof check: 3 thresholds, 0 failed\n", out)
    status, out, err = run("--thresholds", file, "--max-calls=^c$=1")
    assert.equal(3, status, cmd.show(status, out, err))
    assert.equal("lgprof check: 4 thresholds, 1 failed\n", out)
    assert.matches("max_calls c:", err)
  end)

  it("a limit above 100% where gprof prints more (synthesized burn at 133.33%)", function()
    local exe, gmon = over_100(tmp)
    local function check(...)
      local argv = { "check", "--confidence=0", ... }
      argv[#argv + 1] = exe
      argv[#argv + 1] = gmon
      return cmd.lgprof(argv)
    end
    cmd.expect({ status = 0, out = "lgprof check: 1 threshold, 0 failed\n", err = "" },
      check("--max-self=^burn$=134%"))
    cmd.expect({ status = 0, out = "lgprof check: 2 thresholds, 0 failed\n", err = "" },
      check("--max-self=^burn$=1.34", "--max-total=^burn$=150%"))
    cmd.expect({ status = 3, err = "lgprof: check failed: max_self burn: 133.33% > 100.00%\n" },
      check("--max-self=^burn$=100%"))
    cmd.expect({ status = 3, err = "lgprof: check failed: max_self burn: 133.33% > 133.00%\n" },
      check("--max-self=^burn$=133%"))
    local file = cmd.write(tmp .. "/over100.lua", [[return { max_self = { ["^burn$"] = "134%" } }]])
    cmd.expect({ status = 0, out = "lgprof check: 1 threshold, 0 failed\n" },
      check("--thresholds=" .. file))
  end)

  it("a pattern matching no function fails", function()
    local status, out, err = run("--max-calls=^nothing_like_this$=5")
    assert.equal(3, status, cmd.show(status, out, err))
    assert.equal("lgprof: check failed: max_calls ^nothing_like_this$: no function matches\n", err)
  end)

  it("1: bad input (profile or thresholds file)", function()
    local missing = tmp .. "/no-such-gmon"
    local msg = cmd.one_line_error(1, cmd.lgprof({ "check", "--max-calls=c=1", build.exe, missing }))
    assert.equal(missing .. ": ", msg:sub(1, #missing + 2))
    local nofile = tmp .. "/no-such-thresholds.lua"
    msg = cmd.one_line_error(1, run("--thresholds=" .. nofile))
    assert.equal(nofile .. ": ", msg:sub(1, #nofile + 2))
    for name, text in pairs({
      syntax = "return {",
      notable = "return 42",
      kind = "return { max_time = { c = 0.5 } }",
      share = "return { max_self = { c = -0.5 } }",
      percent = "return { max_total = { c = '30 percent' } }",
      calls = "return { max_calls = { c = 1.5 } }",
      pattern = "return { max_self = { ['('] = 0.5 } }",
      globals = "return { max_self = { c = math.huge } }", -- data only: no globals
    }) do
      local file = cmd.write(tmp .. "/" .. name .. ".lua", text)
      msg = cmd.one_line_error(1, run("--thresholds=" .. file))
      assert.equal(file .. ":", msg:sub(1, #file + 1))
    end
  end)

  it("2: usage errors", function()
    local cases = {
      {}, -- no thresholds
      { "--max-self=c" }, -- no SHARE
      { "--max-self==0.5" }, -- no PATTERN
      { "--max-self=c=-0.5" },
      { "--max-self=c=-5%" },
      { "--max-total=c=0x10" },
      { "--max-growth=c=5%" }, -- not a check option
      { "--max-total=c=x" },
      { "--max-calls=c=-1" },
      { "--max-calls=c=2.5" },
      { "--max-self=(=0.5" }, -- bad pattern
      { "--max-self=c=0.5", "--bogus" },
      { "--max-self=c=0.5", "-d" }, -- not supported yet
      { "--max-self" },
    }
    for _, args in ipairs(cases) do
      local msg = cmd.one_line_error(2, run(table.unpack(args)))
      assert.is_true(#msg > 0)
    end
  end)
end)
