-- How the timeline's page draws a selection again, in headless Chromium:
-- the parts below the timeline (the flame graph's section, the flat
-- profile with the call graph, the cycles) keep their elements, which
-- content-visibility: auto lets the browser skip off screen, with fresh
-- contents that work as the first drawing's; the flame graph is drawn at
-- its box's width, handed over by the redraw instead of read from a layout.
--
-- The recording (helpers.perfwriter; every cpu-clock sample weighs 1 ms;
-- times in ms after the first sample):
--   thread 100 "prog":   0 1 2 3    work_a <- main          (4)
--                        10..14     lib_hot <- work_a <- main (5)
--   thread 101 "worker": 5 6 7      lib_hot <- work_b       (3)
--                        15         work_b                  (1, the last sample)
-- Derived by hand (FROM included, TO excluded; the flame graph's total in
-- microseconds): range 0,10 ms: 100's 0..3 and 101's 5..7 = 7 samples,
-- 7000 us, of work_a (4: self 4), lib_hot (3), work_b and main (total only).
local H = require "helpers"
local util = H.util
local chromium = require "helpers.chromium"
local pw = require "helpers.perfwriter"

local TMP = util.mktempdir("lgprof-htmlredraw")
local MS, T0 = 1000000, 1000000000
local ST = pw.CHAIN_SAMPLE
local pg = require "helpers.perfgroups"

-- (the program and library of helpers.perfgroups, at its addresses)
local function write_recording(dir)
  local prog, lib = pg.binaries(dir)
  local f = pw.new({ attrs = { { type = 1, config = 0, sample_type = ST, period = MS, ids = { 1 },
    name = "cpu-clock" } } })
  f:comm(100, 100, "prog", T0 - 100, true)
  f:mmap2(100, 100, 0x401000, 0x1000, 0x1000, prog, T0 - 90)
  f:mmap2(100, 100, 0x601000, 0x1000, 0x1000, lib, T0 - 80)
  f:comm(100, 101, "worker", T0 - 70)
  local function cpu(tid, ms, names)
    f:chain_samples(1, 100, tid, pg.frames(names, 1), T0 + ms * MS, MS, MS)
  end
  for _, ms in ipairs { 0, 1, 2, 3 } do cpu(100, ms, { "work_a", "main" }) end
  for ms = 10, 14 do cpu(100, ms, { "lib_hot", "work_a", "main" }) end
  for ms = 5, 7 do cpu(101, ms, { "lib_hot", "work_b" }) end
  cpu(101, 15, { "work_b" })
  f:finished_round()
  f:feature("event_desc", true)
  pw.write(dir .. "/perf.data", f:bytes())
end

describe("the timeline's redraw of a selection", function()
  if not chromium.available() then
    pending("Chromium is not installed (" .. chromium.BINARY .. ")")
    return
  end
  local browser, path
  setup(function()
    write_recording(TMP)
    browser = assert(chromium.start(util.mktempdir("lgprof-htmlredraw-chromium"), { timeout = 600 }))
    path = TMP .. "/page.html"
    local status, out, err = H.cmd.lgprof({ "--format=html", "perf.data" }, { cwd = TMP })
    assert.equal(0, status, err)
    util.spit(path, out)
  end)
  teardown(function() if browser then browser:close() end end)

  local function settle(page, js)
    return page:eval("new Promise(function (r) { " .. js .. "; requestAnimationFrame(function () { setTimeout(r, 50); }); })")
  end

  it("keeps the parts below the timeline, with working fresh contents at the box's width", function()
    local page = browser:open("file://" .. path)
    assert.is_true(page:eval("window.lgprofTimelineReady === true"), "the timeline was not drawn")
    local LAZY = "['flame-sec', 'main', 'cycles-sec']"
    assert.equal("auto auto auto", page:eval(LAZY .. ".map(function (id) { return "
      .. "getComputedStyle(document.getElementById(id)).contentVisibility; }).join(' ')"))
    local before = page:eval("document.querySelector('#flame > svg').getAttribute('width')")
    page:eval("window.kept = " .. LAZY .. ".map(function (id) { return document.getElementById(id); }), 0")
    settle(page, "location.hash = 'range=0,0.010'")
    -- the same elements, each id once, one flame graph
    assert.equal("true true true", page:eval(LAZY .. ".map(function (id, i) { return "
      .. "document.getElementById(id) === window.kept[i]; }).join(' ')"))
    assert.equal(1, page:eval("document.querySelectorAll('#flame').length + document.querySelectorAll('#flat').length - 1"))
    assert.equal(1, page:eval("document.querySelectorAll('#flame > svg').length"))
    -- the selection's page: 7000 us in the flame graph, work_a first in the flat profile
    assert.equal(7000, page:eval("JSON.parse(document.getElementById('lgprof-data').textContent).meta.flame_total"))
    assert.equal("work_a", page:eval("document.querySelector('#flat tbody td.name').textContent.replace(/ \\[\\d+\\]$/, '')"))
    -- drawn at the width it had, which is its box's (read now, laid out),
    -- and the width handed over is used once
    local after = page:eval("document.querySelector('#flame > svg').getAttribute('width')")
    assert.equal(before, after)
    assert.equal(tonumber(after), page:eval("Math.max(document.getElementById('flame').clientWidth, 300)"))
    assert.is_nil(page:eval("document.getElementById('flame').getAttribute('data-width')"))
    -- the fresh contents' listeners: a flat profile's row shows its call
    -- graph, a flame graph's frame zooms
    settle(page, "document.querySelector('#flat tbody tr').click()")
    assert.equal("work_a", page:eval("document.getElementById('panel-title').textContent.replace(/ \\[\\d+\\]$/, '')"))
    local zoomed = page:eval([[(function () {
      var g = Array.from(document.querySelectorAll('#flame g.fr')).filter(function (e) {
        return e.getAttribute('data-node') !== '0'; })[0];
      g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      return window.lgprofState.get().zoom || ''; })()]])
    assert.truthy(zoomed:match("^%d+$"), "no zoom in the fragment: " .. zoomed)
    -- and back to all the samples: the whole's 13 ms (4 + 5 + 3 + 1)
    settle(page, "document.getElementById('tl-clear').click()")
    assert.equal(13000, page:eval("JSON.parse(document.getElementById('lgprof-data').textContent).meta.flame_total"))
    assert.same({}, page.errors)
    page:close()
  end)

  -- (a selection's data element gets its text after the painted frame: a
  -- read before then, here in the same task as the selection, gets it at
  -- once; and it comes unread after the frame)
  it("gives a selection's data as the page's data text, read at once or after the frame", function()
    local page = browser:open("file://" .. path)
    assert.is_true(page:eval("window.lgprofTimelineReady === true"), "the timeline was not drawn")
    local function select_now(range)
      return ("history.replaceState(null, '', '#range=%s'); "
        .. "window.dispatchEvent(new HashChangeEvent('hashchange'))"):format(range)
    end
    -- range 0,10 ms: 7000 us (the header's derivation)
    assert.equal(7000, page:eval("(function () { " .. select_now("0,0.010") .. "; return "
      .. "JSON.parse(document.getElementById('lgprof-data').textContent).meta.flame_total; })()"))
    -- range 10,16 ms: 100's samples at 10..14 and 101's at 15 (TO past the
    -- end includes the last sample): 6 ms; read as the element's markup,
    -- which no reader of its text has written
    settle(page, select_now("0.010,0.016"))
    assert.equal(6000, page:eval("JSON.parse(document.getElementById('lgprof-data').innerHTML).meta.flame_total"))
    assert.same({}, page.errors)
    page:close()
  end)
end)
