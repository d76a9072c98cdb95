-- The HTML page's timeline (lgprof.format.html_timeline and its assets) in
-- headless Chromium: lanes, the subsecond heat map, a time range and a
-- thread selected by the URL fragment, by dragging and by clicking, and
-- the page recomputed for them.
--
-- The recording (written here with helpers.perfwriter; ELF files of
-- helpers.elfwriter; every cpu-clock sample weighs 1 ms; times in ms after
-- the first sample, T0 = 1 s of perf's clock):
--   thread 100 "prog":   0 1 2 3    work_a <- main          (4)
--                        10..14     lib_hot <- work_a <- main (5)
--                        20 21      main                    (2)
--   thread 101 "worker": 5 6 7      lib_hot <- work_b       (3)
--                        15..18     work_b                  (4)
--                        30         lib_cold <- work_b      (1, the last sample)
-- and a switch of 101 (PERF_RECORD_SWITCH): out at 8 (not preempted: the
-- record says "blocked"), in at 15. Totals derived by hand (FROM included,
-- TO excluded, a TO at the recording's end includes the last sample; the
-- flame graph's total is in microseconds):
--   range 5,16 ms and thread 101: 5 6 7 15 = 4 samples, 4000 us: lib_hot 3, work_b 1
--   range 0,10 ms: 100's 0..3 (4) and 101's 5..7 (3) = 7000 us
--   range 20,30 ms (the end): 100's 20 21 and 101's 30 = 3000 us
--   a drag from 4.5 to 15.5 ms: 100's 10..14 (5), 101's 5 6 7 15 (4) = 9000 us
--   thread 101 alone: 3 + 4 + 1 = 8000 us
--   --event=wall, range 10,20 ms, thread 101: its samples 15..18 (4 ms) and
--   the interval 8 -> 15 cut at 10: 5 ms, so 9000 us
local H = require "helpers"
local util = H.util
local chromium = require "helpers.chromium"
local pw = require "helpers.perfwriter"

local TMP = util.mktempdir("lgprof-htmltimeline")
local MS, T0 = 1000000, 1000000000
local CONTEXT_SWITCH = 1 << 26
local ST = 0x10000 | pw.CHAIN_SAMPLE -- (and PERF_SAMPLE_IDENTIFIER)
local pg = require "helpers.perfgroups"

-- (the program and library of helpers.perfgroups, at its addresses)
local function write_recording(dir)
  local prog, lib = pg.binaries(dir)
  local f = pw.new({ attrs = { { type = 1, config = 0, sample_type = ST, period = MS, ids = { 1 },
    name = "cpu-clock", flags = CONTEXT_SWITCH } } })
  f:comm(100, 100, "prog", T0 - 100, true)
  f:mmap2(100, 100, 0x401000, 0x1000, 0x1000, prog, T0 - 90)
  f:mmap2(100, 100, 0x601000, 0x1000, 0x1000, lib, T0 - 80)
  f:comm(100, 101, "worker", T0 - 70)
  local function cpu(tid, ms, names)
    f:chain_samples(1, 100, tid, pg.frames(names, 1), T0 + ms * MS, MS, MS)
  end
  for _, ms in ipairs { 0, 1, 2, 3 } do cpu(100, ms, { "work_a", "main" }) end
  for ms = 10, 14 do cpu(100, ms, { "lib_hot", "work_a", "main" }) end
  for _, ms in ipairs { 20, 21 } do cpu(100, ms, { "main" }) end
  for ms = 5, 7 do cpu(101, ms, { "lib_hot", "work_b" }) end
  f:switch(100, 101, T0 + 8 * MS, { out = true })
  f:switch(100, 101, T0 + 15 * MS)
  for ms = 15, 18 do cpu(101, ms, { "work_b" }) end
  cpu(101, 30, { "lib_cold", "work_b" })
  f:finished_round()
  f:feature("event_desc", true)
  pw.write(dir .. "/perf.data", f:bytes())
end

describe("the page's timeline", function()
  if not chromium.available() then
    pending("Chromium is not installed (" .. chromium.BINARY .. ")")
    return
  end
  local browser, path, wall
  setup(function()
    write_recording(TMP)
    browser = assert(chromium.start(util.mktempdir("lgprof-htmltimeline-chromium"), { timeout = 600 }))
    path, wall = TMP .. "/page.html", TMP .. "/wall.html"
    local status, out, err = H.cmd.lgprof({ "--format=html", "perf.data" }, { cwd = TMP })
    assert.equal(0, status, err)
    util.spit(path, out)
    status, out, err = H.cmd.lgprof({ "--format=html", "--event=wall", "perf.data" }, { cwd = TMP })
    assert.equal(0, status, err)
    util.spit(wall, out)
  end)
  teardown(function() if browser then browser:close() end end)

  local function open(file, fragment)
    local page = browser:open("file://" .. file .. (fragment or ""))
    assert.is_true(page:eval("window.lgprofTimelineReady === true"), "the timeline was not drawn")
    return page
  end
  -- the flame graph's total (the page's data) and the flat profile's names
  local function shown(page)
    local total = page:eval("JSON.parse(document.getElementById('lgprof-data').textContent).meta.flame_total")
    local names = page:eval("Array.from(document.querySelectorAll('#flat tbody td.name')).map("
      .. "function (td) { return td.textContent.replace(/ \\[\\d+\\]$/, ''); }).sort().join(' ')")
    return total, names
  end
  local function settle(page, js) return page:settle(js) end
  local function rows(page, kind)
    return page:eval("Array.from(document.querySelectorAll('#" .. kind .. "-table tbody tr')).map("
      .. "function (tr) { return tr.cells[4].textContent + '=' + tr.cells[0].textContent; }).join(' ')")
  end

  it("draws a lane per thread, the switches' off-CPU interval and the heat map", function()
    local page = open(path)
    assert.equal("100:prog|101:worker", page:eval("document.querySelector('#tl-lanes canvas').getAttribute('data-lanes')"))
    assert.truthy(page:eval("document.querySelector('#tl-heat canvas').width") > 0)
    -- the on-CPU page: the interval 8 -> 15 ms of 101 from the switches, for the lanes alone
    local offs = page:eval("(function () { var T = JSON.parse(document.getElementById('lgprof-timeline').textContent);"
      .. " return T.offs.t.join(',') + ' ' + T.offs.d.join(',') + ' ' + T.offs.k.join(','); })()")
    assert.equal("8000 7000 4", offs)
    assert.truthy(page:eval("document.getElementById('tl-legend').textContent"):find("blocked (S or D)", 1, true))
    -- every sample: 4 + 5 + 2 + 3 + 4 + 1 = 19
    assert.equal(19000, (shown(page)))
    assert.same({}, page.errors)
    page:close()
  end)

  it("shows the fragment's range and thread: the flame graph holds that thread's samples in that range", function()
    local page = open(path, "#range=0.005,0.016&thread=101")
    local total, names = shown(page)
    assert.equal(4000, total)
    assert.equal("lib_hot work_b", names)
    assert.truthy(page:eval("document.getElementById('view').textContent"):find("from 0.005 s to 0.016 s", 1, true))
    -- the tables: the range's samples of every thread (100's 10..14, 101's 5 6 7 15), 101's row chosen
    assert.equal("100:prog=5 101:worker=4", rows(page, "thread"))
    assert.equal("101", page:eval("document.querySelector('#thread-table tr.sel').getAttribute('data-key')"))
    assert.truthy(page:eval("document.getElementById('flame-note').textContent"):find("Total: 4.00 ms", 1, true))
    -- the flat profile and the call graph: lib_hot's 3 samples, called by work_b
    local flat = page:eval("Array.from(document.querySelectorAll('#flat tbody tr')).map(function (tr) {"
      .. " return tr.querySelector('td.name').textContent.replace(/ \\[\\d+\\]$/, '') + '=' + tr.querySelector('td.smp').textContent; }).join(' ')")
    assert.equal("lib_hot=3 work_b=1", flat)
    settle(page, "document.querySelector('#flat tbody tr').click()")
    assert.truthy(page:eval("document.getElementById('panel-title').textContent"):find("lib_hot", 1, true))
    assert.truthy(page:eval("document.getElementById('panel').textContent"):find("work_b", 1, true))
    assert.same({}, page.errors)
    page:close()
  end)

  it("filters the tables to the range, and includes the last sample in a range to the end", function()
    local page = open(path, "#range=0,0.01")
    assert.equal(7000, (shown(page)))
    assert.equal("100:prog=4 101:worker=3", rows(page, "thread"))
    settle(page, "location.hash = 'range=0.02,0.03'")
    local total, names = shown(page)
    assert.equal(3000, total)
    assert.equal("lib_cold main work_b", names) -- (work_b: lib_cold's caller)
    assert.equal("100:prog=2 101:worker=1", rows(page, "thread"))
    assert.equal(TMP .. "/prog=2 " .. TMP .. "/libw.so=1", rows(page, "dso"))
    -- cleared: every sample again, and the tables of the whole
    settle(page, "document.getElementById('tl-clear').click()")
    assert.equal(19000, (shown(page)))
    assert.equal("100:prog=11 101:worker=8", rows(page, "thread"))
    assert.equal("", page:eval("location.hash"))
    assert.same({}, page.errors)
    page:close()
  end)

  it("selects a range by dragging across the lanes, and a thread by clicking its lane", function()
    local page = open(path)
    -- the canvas's x of a time: LABEL (170) + ms / span (30 ms) * its plot's width
    local drag = [[
      (function () {
        var c = document.querySelector('#tl-lanes canvas'), r = c.getBoundingClientRect();
        var plot = c.width - 170 - 8;
        function x(ms) { return r.left + 170 + ms / 30 * plot; }
        function ev(type, ms, y) { (type === 'mousedown' ? c : window).dispatchEvent(new MouseEvent(type,
          { clientX: x(ms), clientY: r.top + y, bubbles: true })); }
        ev('mousedown', 4.5, 40); ev('mousemove', 10, 40); ev('mousemove', 15.5, 40); ev('mouseup', 15.5, 40);
      })()]]
    settle(page, drag)
    -- (a mouse event's position is whole pixels: the ends are within a pixel, 0.05 ms, of 4.5 and 15.5)
    local a, b = page:eval("location.hash"):match("^#range=([0-9.]+),([0-9.]+)$")
    assert.is_true(math.abs(tonumber(a) - 0.0045) < 0.0001 and math.abs(tonumber(b) - 0.0155) < 0.0001)
    assert.equal(9000, (shown(page)))
    -- a click on 101's lane (its y: the axis 20, the process 16, lane 100 20: 56 to 76)
    settle(page, "document.getElementById('tl-clear').click()")
    settle(page, [[
      (function () {
        var c = document.querySelector('#tl-lanes canvas'), r = c.getBoundingClientRect();
        c.dispatchEvent(new MouseEvent('mousedown', { clientX: r.left + 300, clientY: r.top + 66, bubbles: true }));
        window.dispatchEvent(new MouseEvent('mouseup', { clientX: r.left + 300, clientY: r.top + 66, bubbles: true }));
      })()]])
    assert.equal("#thread=101", page:eval("location.hash"))
    assert.equal(8000, (shown(page)))
    -- back: all samples, as the browser's history goes
    settle(page, "history.back()")
    assert.equal(19000, (shown(page)))
    assert.same({}, page.errors)
    page:close()
  end)

  it("selects a heat map cell's time", function()
    local page = open(path)
    -- 30 ms: columns of 1 ms, 50 rows of 20 us; the cell of 12 ms (column 12, row 0) holds one sample
    assert.truthy(page:eval("document.getElementById('tl-heat-note').textContent"):find("A column per 0.001 s, 50 rows of 0.00002 s", 1, true))
    settle(page, [[
      (function () {
        var c = document.querySelector('#tl-heat canvas'), r = c.getBoundingClientRect();
        var x = r.left + 44 + 12 * 14 + 5, y = r.top + 16 + 2;
        c.dispatchEvent(new MouseEvent('mousedown', { clientX: x, clientY: y, bubbles: true }));
        window.dispatchEvent(new MouseEvent('mouseup', { clientX: x, clientY: y, bubbles: true }));
      })()]])
    assert.equal("#range=0.012,0.01202", page:eval("location.hash"))
    local total, names = shown(page)
    assert.equal(1000, total) -- 100's sample at 12 ms
    assert.equal("lib_hot main work_a", names)
    assert.same({}, page.errors)
    page:close()
  end)

  -- The page's recomputation against lgprof's own (the C core's): thread
  -- 101's page, which html_groups embeds as lgprof computes it, and the
  -- same samples selected as the whole recording's range of thread 101,
  -- which the timeline's script computes: every function's times and
  -- caller-callee pairs, and the flame graph, must be the same.
  it("computes a selection's page as lgprof computes the same samples", function()
    local function page_of(fragment)
      local page = open(path, fragment)
      local d = page:eval("document.getElementById('lgprof-data').textContent")
      assert.same({}, page.errors)
      page:close()
      return require("cjson").decode(d)
    end
    for _, case in ipairs { { 100, 3 }, { 101, 3 } } do -- (100's: main, work_a, lib_hot; 101's: work_b, lib_hot, lib_cold)
    local exact, mine = page_of("#thread=" .. case[1]), page_of("#range=0,0.03&thread=" .. case[1])
    assert.is_nil(exact.view) -- (html_groups' own page: not recomputed)
    assert.truthy(mine.view)
    local function by_index(d)
      local t = {}
      for _, f in ipairs(d.fns) do
        if not f.stub then t[f.n] = f end -- (by name: the thread's profile numbers its functions anew)
      end
      return t
    end
    local function pairs_of(d, list)
      local out = {}
      for _, a in ipairs(list) do out[#out + 1] = ("%s %.6f %.6f"):format(d.fns[a[1] + 1].n, a[2], a[3]) end
      table.sort(out)
      return table.concat(out, "; ")
    end
    local e, m, n = by_index(exact), by_index(mine), 0
    for i, f in pairs(e) do
      n = n + 1
      local g = assert(m[i], f.n .. " is missing")
      for _, k in ipairs { "self", "tot", "gself", "ch", "smp", "pct", "gpct", "err" } do
        -- (the page's numbers: 9 significant digits)
        assert.is_true(math.abs(f[k] - g[k]) <= 1e-8 * math.max(1, math.abs(f[k])), ("%s.%s: %s against %s"):format(f.n, k, f[k], g[k]))
      end
      assert.equal(pairs_of(exact, f["in"]), pairs_of(mine, g["in"]))
      assert.equal(pairs_of(exact, f.out), pairs_of(mine, g.out))
    end
    assert.equal(case[2], n)
    assert.equal(exact.meta.flame_total, mine.meta.flame_total)
    assert.equal(#exact.frames, #mine.frames)
    end
  end)

  it("cuts an off-CPU interval at the range's ends (--event=wall)", function()
    local page = open(wall, "#range=0.01,0.02&thread=101")
    assert.equal(9000, (shown(page)))
    assert.same({}, page.errors)
    page:close()
  end)

  it("draws an --event=off-cpu page: the heat map of the intervals' starts", function()
    local off = TMP .. "/off.html"
    local status, out, err = H.cmd.lgprof({ "--format=html", "--event=off-cpu", "perf.data" }, { cwd = TMP })
    assert.equal(0, status, err)
    util.spit(off, out)
    local page = open(off)
    assert.equal(7000, (shown(page))) -- 101's 8 -> 15 ms
    assert.truthy(page:eval("document.getElementById('tl-heat-note').textContent"):find("off-CPU intervals' starts", 1, true))
    -- a range from 12 ms: the interval's last 3 ms
    settle(page, "location.hash = 'range=0.012,'")
    assert.equal(3000, (shown(page)))
    assert.same({}, page.errors)
    page:close()
  end)
end)

describe("the page without a timeline", function()
  it("is a gmon.out's page (nothing is timed), and a perf.data's opened without sample_times", function()
    local fx = H.fixtures
    local b = assert(fx.build("cycles", "O0g-nopie"))
    local dir = util.mktempdir("lgprof-htmltimeline-gmon")
    local s = fx.snapshot(b, dir)
    local status, out, err = H.cmd.lgprof({ "--format=html", s.exe, s.gmon[1] })
    assert.equal(0, status, err)
    assert.is_nil(out:find("lgprof-timeline", 1, true))
    -- (the recording of the describe above: written there, or here when Chromium is missing)
    if not util.slurp(TMP .. "/perf.data") then write_recording(TMP) end
    local lgprof = require "lgprof"
    local profile <close> = assert(lgprof.open(nil, TMP .. "/perf.data"))
    assert.is_nil(require("lgprof.format.html_timeline").collect(profile, {}, {}))
    local timed <close> = assert(lgprof.open(nil, TMP .. "/perf.data", { sample_times = true }))
    local data = assert(require("lgprof.format.html_timeline").collect(timed,
      { max_functions = 2000, max_arcs = 100, min_weight = 0.0005, max_depth = 64 }, {}))
    assert.equal(30000, data.span) -- microseconds: the first sample at 0, the last at 30 ms
  end)

  -- (a thread's page of the command, --tid, is a filtered profile: its own
  -- copy of the kept samples' times, numbered by its own stacks)
  it("keeps a filtered profile's sample times", function()
    if not util.slurp(TMP .. "/perf.data") then write_recording(TMP) end
    local lgprof = require "lgprof"
    local timed <close> = assert(lgprof.open(nil, TMP .. "/perf.data", { sample_times = true }))
    local sub <close> = assert(timed:filter { tid = 101 })
    local stacks = {}
    for st in sub:stacks() do stacks[#stacks + 1] = st end
    local got = {}
    for _, t in ipairs(sub:sample_times()) do
      assert.equal(101, t.tid)
      local leaf = stacks[t.stack].frames[#stacks[t.stack].frames].name
      got[#got + 1] = ("%g %s"):format(t.time * 1000, leaf)
    end
    -- 101's samples: 5 6 7 lib_hot, 15..18 work_b, 30 lib_cold (ms)
    assert.equal("5 lib_hot,6 lib_hot,7 lib_hot,15 work_b,16 work_b,17 work_b,18 work_b,30 lib_cold",
      table.concat(got, ","))
  end)
end)
