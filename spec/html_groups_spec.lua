-- The threads and binaries tables of a perf.data profile's page
-- (lgprof.format.html_groups), and the page's state in the URL fragment, in
-- headless Chromium. The profile: helpers.perfgroups (21 samples of 1 ms:
-- thread 100 "prog" 8 (S1 3 main, S2 5 lib_hot), thread 200 "other" 7 (S5 6
-- lib_cold, S6 1 work_a), thread 101 "worker" 6 (S3 4 lib_hot, S4 2
-- work_b); leaves in libw.so 15, in prog 6). A group's flame graph is its
-- samples alone: its total is its samples times 1 ms.
local H = require "helpers"
local util = H.util
local chromium = require "helpers.chromium"

local TMP = util.mktempdir("lgprof-htmlgroups")
local FX = require("helpers.perfgroups").write(TMP)

describe("the page's threads and binaries tables", function()
  if not chromium.available() then
    pending("Chromium is not installed (" .. chromium.BINARY .. ")")
    return
  end
  local browser, path
  setup(function()
    browser = assert(chromium.start(util.mktempdir("lgprof-htmlgroups-chromium"), { timeout = 600 }))
    path = TMP .. "/page.html"
    local status, out, err = H.cmd.lgprof({ "--format=html", "perf.data" }, { cwd = TMP })
    assert.equal(0, status, err)
    util.spit(path, out)
  end)
  teardown(function() if browser then browser:close() end end)

  local function open(fragment)
    local page = browser:open("file://" .. path .. (fragment or ""))
    assert.is_true(page:eval("window.lgprofGroupsReady === true"), "the tables were not drawn")
    return page
  end
  -- the flame graph's total (microseconds: time events) and the flat
  -- profile's function names
  local function shown(page)
    local total = page:eval("JSON.parse(document.getElementById('lgprof-data').textContent).meta.flame_total")
    local names = page:eval("Array.from(document.querySelectorAll('#flat tbody td.name')).map("
      .. "function (td) { return td.textContent.replace(/ \\[\\d+\\]$/, ''); }).sort().join(' ')")
    return total, names
  end
  local function wait(page, js) return page:settle(js) end

  it("lists the threads and binaries with their samples, most first", function()
    local page = open()
    local rows = page:eval("Array.from(document.querySelectorAll('#thread-table tbody tr')).map("
      .. "function (tr) { return tr.cells[4].textContent + '=' + tr.cells[0].textContent; }).join(' ')")
    assert.equal("100:prog=8 200:other=7 101:worker=6", rows)
    rows = page:eval("Array.from(document.querySelectorAll('#dso-table tbody tr')).map("
      .. "function (tr) { return tr.cells[4].textContent + '=' + tr.cells[0].textContent; }).join(' ')")
    assert.equal(FX.lib .. "=15 " .. FX.prog .. "=6", rows)
    local total, names = shown(page)
    assert.equal(21000, total)
    assert.equal("lib_cold lib_hot main work_a work_b", names)
    assert.same({}, page.errors)
    page:close()
  end)

  it("draws a thread's samples alone when its row is clicked, and all again on a second click", function()
    local page = open()
    wait(page, "document.querySelectorAll('#thread-table tbody tr')[2].click()")
    assert.equal("#thread=101", page:eval("location.hash"))
    -- thread 101: S3 4 + S4 2 = 6 samples, 6 ms; its functions lib_hot, work_b
    local total, names = shown(page)
    assert.equal(6000, total)
    assert.equal("lib_hot work_b", names)
    assert.truthy(page:eval("document.getElementById('flame-note').textContent"):find("Total: 6.00 ms", 1, true))
    assert.truthy(page:eval("document.getElementById('groups-note').textContent"):find("101:worker", 1, true))
    -- its call graph: a function clicked shows the thread's numbers
    wait(page, "document.querySelector('#flat tbody tr').click()")
    assert.truthy(page:eval("document.getElementById('panel-title').textContent"):find("lib_hot", 1, true))
    assert.matches("^#f%d+&thread=101$", page:eval("location.hash"))
    -- again: all samples
    wait(page, "document.querySelectorAll('#thread-table tbody tr')[2].click()")
    total = shown(page)
    assert.equal(21000, total)
    assert.same({}, page.errors)
    page:close()
  end)

  it("keeps a thread's flame graph when the window was resized just before its row was clicked", function()
    -- (the drawing of all samples answers a resize 100 ms later; drawn over
    -- by the thread's by then, it must leave the thread's flame graph be:
    -- thread 101's frames are lib_hot and work_b, no main)
    local page = open()
    page:settle("window.dispatchEvent(new Event('resize')); "
      .. "document.querySelectorAll('#thread-table tbody tr')[2].click()", 300)
    assert.equal("#thread=101", page:eval("location.hash"))
    local frames = page:eval("Array.from(document.querySelectorAll('#flame g.fr > text')).map("
      .. "function (t) { return t.textContent; }).join(' ')")
    assert.falsy(frames:find("main", 1, true), frames)
    assert.truthy(page:eval("document.getElementById('flame-note').textContent"):find("Total: 6.00 ms", 1, true))
    assert.same({}, page.errors)
    page:close()
  end)

  it("shows the view of a loaded fragment: thread, binary, search and zoom", function()
    local page = open("#thread=101")
    local total, names = shown(page)
    assert.equal(6000, total)
    assert.equal("lib_hot work_b", names)
    assert.equal(1, page:eval("document.querySelectorAll('#thread-table tr.sel').length"))
    page:close()
    -- the library: S2 5 + S3 4 + S5 6 = 15 samples whose leaf is in it
    page = open("#dso=" .. FX.lib:gsub("/", "%%2F"))
    total, names = shown(page)
    assert.equal(15000, total)
    assert.equal("lib_cold lib_hot main work_a work_b", names)
    page:close()
    -- the search is kept, and the zoom (a frame's position in the data)
    page = open("#q=lib_&thread=100")
    assert.equal("lib_", page:eval("document.getElementById('search').value"))
    assert.equal(1, page:eval("document.querySelectorAll('#flat tbody tr').length"))
    total = shown(page)
    assert.equal(8000, total)
    wait(page, "document.getElementById('search').value = 'main'; "
      .. "document.getElementById('search').dispatchEvent(new Event('input'))")
    page:settle("", 200) -- (the search box's own timer: 120 ms)
    assert.equal("#q=main&thread=100", page:eval("location.hash"))
    wait(page, "document.querySelectorAll('#flame g.fr')[1].dispatchEvent(new MouseEvent('click', { bubbles: true }))")
    local hash = page:eval("location.hash")
    local k = hash:match("zoom=(%d+)")
    assert.is_string(k, hash)
    local path_text = page:eval("document.getElementById('flame-path').textContent")
    page:close()
    page = open(hash)
    assert.equal(path_text, page:eval("document.getElementById('flame-path').textContent"))
    assert.truthy(path_text:find("zoomed on", 1, true))
    assert.same({}, page.errors)
    page:close()
  end)

  it("keeps #fN working as before, and a gmon page has no tables", function()
    local page = open("#f1")
    assert.truthy(page:eval("document.getElementById('panel-title').textContent"):find("[1]", 1, true))
    page:close()
    local dir = util.mktempdir("lgprof-htmlgroups-gmon")
    local exe, gmon = H.synth.write(dir, "prog", { funcs = { { "main", 10 }, { "work", 90 } },
      arcs = { { "main", "work", 5 } } })
    local status, out = H.cmd.lgprof({ "--format=html", exe, gmon }, { cwd = dir })
    assert.equal(0, status)
    assert.is_nil(out:find("lgprof-groups", 1, true))
    util.spit(dir .. "/page.html", out)
    page = browser:open("file://" .. dir .. "/page.html#f2")
    assert.is_true(page:eval("window.lgprofReady === true"))
    assert.truthy(page:eval("document.getElementById('panel-title').textContent"):find("[2]", 1, true))
    assert.same({}, page.errors)
    page:close()
  end)
end)
