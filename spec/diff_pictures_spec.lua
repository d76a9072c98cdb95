-- lgprof --diff --format=json|csv|folded|svg on hand-written profiles
-- (helpers.synth: an ELF and its gmon.out, 100 samples a second, one
-- sample 0.01 s), so every number is derived by hand:
--
--   function             base samples   new samples
--   main                       10             10     (calls the others)
--   dbl                       100            200     doubles
--   half                      200            100     halves
--   same                      150            160     within the noise
--   old                        50              -     gone (not in the new build)
--   fresh                       -             50     new (not in the base build)
--   score.constprop.0          80              -     renamed clone: score.isra.0
--   score.isra.0                -             80       in the new build: one frame
--
-- The test of a self change (stats.count_test, one base run): m = (b + n)/2
-- samples, se = sqrt(2m), cc = 1, half-width (1.959964 se + cc) samples.
--   dbl:   b 100, n 200: se = sqrt(300) = 17.3205, half = 34.947572 < 100: red
--   half:  b 200, n 100: the same half-width, -100: blue
--   same:  b 150, n 160: se = sqrt(310) = 17.6068, half = 35.508727 > 10: grey
--   fresh: b 0, n 50: se = sqrt(50) = 7.0711, half = 14.859038 < 50: red
--   old:   b 50, n 0: blue
--   score, main: no change: grey
-- Saturation: rel = |n - b| / max(b, n); the other channels round(220 (1 - rel)):
--   dbl, half: rel 1/2 -> 110: rgb(255,110,110), rgb(110,110,255)
--   fresh, old: rel 1 -> 0: rgb(255,0,0), rgb(0,0,255)
-- Widths (1200 px, 10 px each side: 1180 px for the root's time):
--   new shape, total 600 samples: dbl 200/600 x 1180 = 393.33, half 196.67,
--   same 160/600 x 1180 = 314.67, fresh 98.33, score 157.33, old not drawn;
--   base shape, total 590 samples: old 50/590 x 1180 = 100.00, dbl 200.00.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local synth = require "helpers.synth"
local cjson = require "cjson"

local BASE = { { "main", 10 }, { "dbl", 100 }, { "half", 200 }, { "same", 150 }, { "old", 50 },
               { name = "score.constprop.0", samples = 80, bind = "local" } }
local NEW = { { "main", 10 }, { "dbl", 200 }, { "half", 100 }, { "same", 160 }, { "fresh", 50 },
              { name = "score.isra.0", samples = 80, bind = "local" } }
local function arcs(names)
  local a = {}
  for i = 2, #names do a[#a + 1] = { "main", names[i].name or names[i][1], 10 } end
  return a
end

-- The frames of an SVG: label -> { fill, width, title, status, change, outline }.
local function svg_frames(text)
  local t = {}
  for g in text:gmatch('<g class="f".-</g>') do
    local status, change = g:match('data%-change="(%a+)" data%-status="(%a+)"')
    local title = g:match("<title>(.-)</title>")
    local name = title:match("^(.-) %(")
    t[name] = { fill = g:match('fill="([^"]+)"'), width = tonumber(g:match('width="([%d.]+)"')),
                title = title, change = status, status = change,
                outline = g:match('stroke%-dasharray="([^"]+)"') }
  end
  return t
end

describe("lgprof --diff's differential outputs", function()
  local tmp, bexe, bgmon, nexe, ngmon
  setup(function()
    tmp = util.mktempdir("lgprof diff pictures")
    bexe, bgmon = synth.write(tmp, "base", { funcs = BASE, arcs = arcs(BASE) })
    nexe, ngmon = synth.write(tmp, "new", { funcs = NEW, arcs = arcs(NEW) })
  end)
  teardown(function() util.rmtree(tmp) end)

  local function run(fmt, extra)
    local a = { "--diff=" .. bgmon, "--diff-image=" .. bexe }
    if fmt then a[#a + 1] = "--format=" .. fmt end
    for _, x in ipairs(extra or {}) do a[#a + 1] = x end
    a[#a + 1] = nexe
    a[#a + 1] = ngmon
    local s, out, err = cmd.lgprof(a)
    assert.equal(0, s, cmd.show(s, out, err))
    assert.equal("", err)
    return out
  end

  it("svg: red doubled, blue halved, grey within the noise, new dashed, widths the new time",
    function()
    local out = run("svg")
    local f = svg_frames(out)
    assert.equal("rgb(255,110,110)", f.dbl.fill)
    assert.equal("grew", f.dbl.change)
    assert.equal("rgb(110,110,255)", f.half.fill)
    assert.equal("rgb(204,204,204)", f.same.fill)
    assert.equal("same", f.same.change)
    assert.equal("rgb(255,0,0)", f.fresh.fill)
    assert.equal("new", f.fresh.status)
    assert.equal("4,2", f.fresh.outline)
    assert.equal("rgb(204,204,204)", f.main.fill)
    assert.is_nil(f.old) -- no width in the new profile: listed instead
    assert.truthy(out:find("Gone (dotted outline, not drawn: see --diff-shape=base): old", 1, true))
    assert.truthy(out:find("New (dashed outline): fresh", 1, true))
    -- the renamed clone is one frame, unchanged
    assert.equal("rgb(204,204,204)", f["score.isra.0"].fill)
    assert.is_nil(f["score.constprop.0"])
    assert.near(393.33, f.dbl.width, 0.01)
    assert.near(196.67, f.half.width, 0.01)
    assert.near(314.67, f.same.width, 0.01)
    assert.near(98.33, f.fresh.width, 0.01)
    assert.near(157.33, f["score.isra.0"].width, 0.01)
    assert.near(1180, f.all.width, 0.01)
    -- tooltips: base, new, change +- the half-width (34.947572 samples of 0.01 s: 349475.72 us), significance
    assert.truthy(f.dbl.title:find("self: base 1.000 s, new 2.000 s, change +1.000 s "
      .. "\u{B1} 349.476 ms, +100.0%, significant at 95%, p = ", 1, true), f.dbl.title)
    assert.truthy(f.same.title:find("self: base 1.500 s, new 1.600 s, change +100.000 ms "
      .. "\u{B1} 355.087 ms, +6.7%, within the noise at 95%", 1, true), f.same.title)
    assert.truthy(f.fresh.title:find("; new function", 1, true), f.fresh.title)
    -- the legend says what grey means
    assert.truthy(out:find("grey: the self time&apos;s change is within the noise at 95%"
      .. " confidence", 1, true))
  end)

  it("svg --diff-shape=base: widths the base's time, the gone function drawn dotted and blue",
    function()
    local f = svg_frames(run("svg", { "--diff-shape=base" }))
    assert.equal("rgb(0,0,255)", f.old.fill)
    assert.equal("1,2", f.old.outline)
    assert.near(100, f.old.width, 0.01)
    assert.near(200, f.dbl.width, 0.01)
    assert.is_nil(f.fresh)
  end)

  it("--confidence=0: every change is coloured", function()
    local f = svg_frames(run("svg", { "--confidence=0" }))
    -- same: 150 -> 160, rel = 10/160: round(220 x 150/160) = 206
    assert.equal("rgb(255,206,206)", f.same.fill)
  end)

  it("json: the text table's numbers, parsed by a JSON parser", function()
    local doc = cjson.decode(run("json"))
    assert.equal("lgprof-diff", doc.format)
    assert.equal(0.95, doc.confidence)
    local by = {}
    for _, r in ipairs(doc.functions) do by[r.label] = r end
    -- against the text table: each row's total and self change, half-width, mark
    local text = run(nil)
    local seen = 0
    for line in text:gmatch("[^\n]+") do
      local tc, th, tp, sc, sh, sp, label = line:match(
        "^%s*(%S+)%s+(%S+)%s+(%S+)%s+(%S+)%s+(%S+)%s+(%S+)%s+%S+%s+%S+%s+%S+%s+%S+%s+(.-)$")
      if label and tc:match("^[-+]%d") then
        local mark = label:match(" %((%a+)%)$")
        label = label:gsub(" %(%a+%)$", ""):gsub(" <%- .*$", "")
        local r = assert(by[label], label)
        seen = seen + 1
        assert.equal(tonumber(tc), tonumber(("%.2f"):format(r.total.change)), label)
        assert.equal(tonumber(th), tonumber(("%.2f"):format((r.total.high - r.total.low) / 2)))
        assert.equal(tp:sub(-1) == "*", r.total.significant, label)
        assert.equal(tonumber(sc), tonumber(("%.2f"):format(r.self.change)), label)
        assert.equal(tonumber(sh), tonumber(("%.2f"):format((r.self.high - r.self.low) / 2)))
        assert.equal(sp:sub(-1) == "*", r.self.significant, label)
        assert.equal(mark or "common", r.status == "common" and "common" or r.status)
      end
    end
    assert.equal(7, seen)
    -- by hand
    assert.equal(1, by.dbl.self.base); assert.equal(2, by.dbl.self.new)
    assert.near(0.34947572, (by.dbl.self.high - by.dbl.self.low) / 2, 1e-8)
    assert.equal("new", by.fresh.status); assert.equal("none", by.fresh.matched_by)
    assert.equal("gone", by.old.status)
    assert.equal("clone-origin", by["score.isra.0"].matched_by)
    assert.equal("score.constprop.0", by["score.isra.0"].base_name)
    assert.equal("name", by.dbl.matched_by)
    assert.equal(10, by.dbl.calls.base)
    assert.is_false(by.same.self.significant)
  end)

  it("csv: a header and a row per function, the JSON's values", function()
    local out = run("csv")
    local lines = util.lines(out)
    assert.equal("function,status,matched_by,base_name,self_base,self_new,self_change,"
      .. "self_low,self_high,self_significant,self_p,total_base,total_new,total_change,"
      .. "total_low,total_high,total_significant,total_p,calls_base,calls_new\r", lines[1])
    local rows = {}
    for i = 2, #lines do
      if lines[i] ~= "" then
        local c = {}
        for v in (lines[i]:gsub("\r$", "") .. ","):gmatch("([^,]*),") do c[#c + 1] = v end
        rows[c[1]] = c
      end
    end
    assert.same({ "dbl", "common", "name", "", "1", "2", "1" },
      table.move(rows.dbl, 1, 7, 1, {}))
    assert.equal("1", rows.dbl[10])
    assert.equal("0", rows.same[10])
    assert.same({ "score.isra.0", "common", "clone-origin", "score.constprop.0" },
      table.move(rows["score.isra.0"], 1, 4, 1, {}))
    assert.equal("new", rows.fresh[2])
    assert.equal("gone", rows.old[2])
  end)

  it("folded: two columns of counts per stack, read back by a difffolded-style parser",
    function()
    local out = run("folded")
    -- flamegraph.pl's reading of a differential line: STACK COUNT1 COUNT2
    local got = {}
    for line in out:gmatch("[^\n]+") do
      local stack, b, n = line:match("^(.-)%s+(%d+)%s+(%d+)$")
      assert.truthy(stack, line)
      got[stack] = { tonumber(b), tonumber(n) }
    end
    -- microseconds: a sample is 10,000 us
    assert.same({
      main = { 100000, 100000 },
      ["main;dbl"] = { 1000000, 2000000 },
      ["main;half"] = { 2000000, 1000000 },
      ["main;same"] = { 1500000, 1600000 },
      ["main;old"] = { 500000, 0 },
      ["main;fresh"] = { 0, 500000 },
      ["main;score.isra.0"] = { 800000, 800000 },
    }, got)
  end)

  it("refuses an unknown format and --diff-shape's bad value (exit 2)", function()
    local s, _, err = cmd.lgprof({ "--diff=" .. bgmon, "--format=pdf", nexe, ngmon })
    assert.equal(2, s)
    assert.truthy(err:find("--format: expected text, json, csv, folded, svg or html", 1, true), err)
    s, _, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-shape=old", nexe, ngmon })
    assert.equal(2, s)
    assert.truthy(err:find("--diff-shape=old: new or base", 1, true), err)
  end)
end)

describe("lgprof --diff's page and flame graph in headless Chromium", function()
  local chromium = require "helpers.chromium"
  if not chromium.available() then
    pending("needs chromium (Debian's chromium)")
    return
  end
  local tmp, browser, bexe, bgmon, nexe, ngmon
  setup(function()
    tmp = util.mktempdir("lgprof diff page")
    bexe, bgmon = synth.write(tmp, "base", { funcs = BASE, arcs = arcs(BASE) })
    nexe, ngmon = synth.write(tmp, "new", { funcs = NEW, arcs = arcs(NEW) })
    browser = assert(chromium.start(tmp, { timeout = 600 }))
  end)
  teardown(function()
    if browser then browser:close() end
    util.rmtree(tmp)
  end)
  local function write(fmt, name)
    local s, out, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-image=" .. bexe, "--format=" .. fmt,
      nexe, ngmon })
    assert.equal(0, s, cmd.show(s, out, err))
    local path = tmp .. "/" .. name
    util.spit(path, out)
    return "file://" .. path:gsub(" ", "%%20")
  end

  it("html: the frames' colours in the page's data and drawn, the side by side from the fragment",
    function()
    local url = write("html", "diff page.html")
    -- dbl is the first row of the table (the largest change; ties by name)
    local page = browser:open(url .. "#f=0")
    assert.is_true(page:eval("window.lgprofReady === true"))
    assert.same({}, page.errors)
    local fills = page:eval("(function () { var d = JSON.parse(document.getElementById("
      .. "'lgprof-diff-data').textContent), o = {}; d.frames.forEach(function (f) {"
      .. " o[f[0]] = f[10] + ' ' + f[8] + ' ' + f[9]; }); return o; })()")
    assert.equal("rgb(255,110,110) grew common", fills.dbl)
    assert.equal("rgb(110,110,255) shrank common", fills.half)
    assert.equal("rgb(204,204,204) same common", fills.same)
    assert.equal("rgb(255,0,0) grew new", fills.fresh)
    assert.equal("rgb(0,0,255) shrank gone", fills.old)
    assert.equal("rgb(204,204,204) same common", fills["score.isra.0"])
    -- drawn: the rect of dbl's frame, and fresh's outline class
    assert.equal("rgb(255,110,110)", page:eval("(function () { var r; document.querySelectorAll("
      .. "'#dflame g.fr').forEach(function (g) { if (g.textContent.indexOf('dbl\\n') === 0)"
      .. " r = g.querySelector('rect').getAttribute('fill'); }); return r; })()"))
    assert.equal(1, page:eval("document.querySelectorAll('#dflame g.st-new').length"))
    -- the selected function's callers, base and new side by side: main, 1 s and 2 s
    assert.equal("dbl", page:eval("document.getElementById('panel-title').textContent"))
    local base = page:eval("document.getElementById('side-base').textContent")
    local new = page:eval("document.getElementById('side-new').textContent")
    assert.truthy(base:find("main1.000 s10", 1, true), base)
    assert.truthy(new:find("main2.000 s10+1.000 s", 1, true), new)
    assert.truthy(page:eval("document.getElementById('stacks-note').textContent")
      :find("gprof's estimate", 1, true))
    page:close()
    -- the filters from the fragment: only new and gone
    page = browser:open(url .. "#ng=1")
    assert.equal(2, page:eval("document.querySelectorAll('#dtable tbody tr').length"))
    assert.same({}, page.errors)
    page:close()
    page = browser:open(url .. "#sig=1&shape=base")
    -- significant: dbl, half, fresh, old
    assert.equal(4, page:eval("document.querySelectorAll('#dtable tbody tr').length"))
    assert.equal(1, page:eval("document.querySelectorAll('#dflame g.st-gone').length"))
    assert.same({}, page.errors)
    page:close()
  end)

  it("svg: the script runs, a search from the fragment matches", function()
    local url = write("svg", "diff.svg")
    local page = browser:open(url .. "#s=dbl")
    assert.same({}, page.errors)
    assert.equal(7, page:eval("document.querySelectorAll('g.f').length")) -- all, main and five
    -- dbl's frame: 2 s of the new 6 s
    assert.equal("Matched: 33.33%", page:eval("document.getElementById('matched').textContent"))
    page:close()
  end)
end)

-- The same on perf.data recordings written by hand (helpers.perfwriter,
-- helpers.stackprog's program): samples of 1 ms each, measured stacks.
--   stack              base samples   new samples
--   main;middle;leaf        100            200     doubles
--   main;other              200            100     halves
--   main                     50             55     within the noise:
--     m = 52.5, se = sqrt(105) = 10.247, half = 1.96 x 10.247 + 1 = 21.08 > 5
-- Widths (new shape): 355 samples in all; leaf 200/355 x 1180 = 664.79,
-- other 100/355 x 1180 = 332.39, middle (no self time: grey) as leaf.
describe("lgprof --diff's differential outputs on perf.data", function()
  if not util.have("cc") then
    pending("cc is needed")
    return
  end
  local pw = require "helpers.perfwriter"
  local sp = require "helpers.stackprog"
  local MS = 1000000
  local tmp, base, new, prog
  local function periods(n)
    local t = {}
    for i = 1, n do t[i] = MS end
    return t
  end
  local function write(name, leaf, other, main)
    local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
      period = 1000, ids = { 1 } } } })
    sp.write_stacks(f, prog, {
      { frames = { "leaf", "middle", "main" }, periods = periods(leaf) },
      { frames = { "other", "main" }, periods = periods(other) },
      { frames = { "main" }, periods = periods(main) },
    })
    local path = tmp .. "/" .. name
    pw.write(path, f:bytes())
    return path
  end
  setup(function()
    tmp = util.mktempdir("lgprof diff perf")
    prog = sp.shared(tmp)
    base = write("base.data", 100, 200, 50)
    new = write("new.data", 200, 100, 55)
  end)
  teardown(function() util.rmtree(tmp) end)

  local function run(fmt)
    local s, out, err = cmd.lgprof({ "--diff=" .. base, "--format=" .. fmt, new }, { cwd = tmp })
    assert.equal(0, s, cmd.show(s, out, err))
    return out
  end

  it("svg: leaf red, other blue, main and middle grey; widths the new time; measured", function()
    local out = run("svg")
    local f = svg_frames(out)
    assert.equal("rgb(255,110,110)", f.leaf.fill)
    assert.equal("rgb(110,110,255)", f.other.fill)
    assert.equal("rgb(204,204,204)", f.main.fill)
    assert.equal("rgb(204,204,204)", f.middle.fill)
    assert.near(664.79, f.leaf.width, 0.01)
    assert.near(332.39, f.other.width, 0.01)
    assert.near(664.79, f.middle.width, 0.01)
    assert.truthy(f.main.title:find("self: base 50.000 ms, new 55.000 ms, change +5.000 ms "
      .. "\u{B1} 21.084 ms, +10.0%, within the noise at 95%", 1, true), f.main.title)
    assert.truthy(out:find("Stacks recorded in perf.data (measured).", 1, true))
  end)

  it("folded and json: the counts and the table of the same recordings", function()
    local got = {}
    for line in run("folded"):gmatch("[^\n]+") do
      local stack, b, n = line:match("^(.-) (%d+) (%d+)$")
      got[stack] = { tonumber(b), tonumber(n) }
    end
    assert.same({ main = { 50000, 55000 }, ["main;middle;leaf"] = { 100000, 200000 },
                  ["main;other"] = { 200000, 100000 } }, got)
    local doc = cjson.decode(run("json"))
    local by = {}
    for _, r in ipairs(doc.functions) do by[r.name] = r end
    assert.is_true(by.leaf.self.significant)
    assert.is_false(by.main.self.significant)
    assert.is_nil(by.leaf.calls) -- perf.data records no calls
  end)
end)
