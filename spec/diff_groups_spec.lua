-- The comparison page's threads and binaries (lgprof --diff --format=html of
-- two perf.data recordings: lgprof.format.diffgroups), in headless Chromium
-- and against the text and JSON of --diff --comm and --dso.
--
-- The recordings: helpers.perfdiffgroups (samples of 1 ms; the threads' ids
-- differ between the runs, a thread of the comparison is its command name):
--   base: prog 10 x main, 20 x lib_hot <- work_a <- main;
--         worker 10 x lib_hot <- work_b, 30 x work_b, 3 x lib_hot <- U1;
--         gone 5 x work_a
--   new:  prog 10 x main, 60 x lib_hot <- work_a <- main;
--         worker 10 x lib_hot <- work_b, 5 x work_b, 2 x lib_hot <- U2;
--         fresh 4 x lib_cold <- main
--   (U1 = 0x500000, U2 = 0x600000: callers in no mapping, one function
--   "[unknown]" on each side, as --diff matches them)
-- By hand:
-- The test of a change of samples b -> n (one base run; stats.count_test):
-- z = (|n - b| - 1) / sqrt(b + n), significant at 95% beyond 1.96.
--   thread prog: base 30 ms, new 70 ms; lib_hot self 20 -> 60 ms (+40 ms;
--     z = 39 / sqrt(80) = 4.36: grew), main self
--     10 -> 10 ms, total 30 -> 70 ms; work_a total 20 -> 60 ms.
--   thread worker: base 43 ms, new 17 ms; work_b self 30 -> 5 ms (z =
--     -24 / sqrt(35) = -4.06: shrank), total 40 -> 15 ms; lib_hot 13 -> 12
--     ms; [unknown] total 3 -> 2 ms, self 0.
--   thread gone: 5 samples in the base, none new ("gone"); its work_a
--     self 5 -> 0 ms, z = -4 / sqrt(5) = -1.79: within the noise.
--   thread fresh: 0 -> 4 samples ("new"): lib_cold self 0 -> 4 ms, main
--     total 0 -> 4 ms; lib_cold is in libw.so in both runs: common, not new.
--   The threads' order (the base's samples plus the new run's): prog 100,
--   worker 60, gone 5, fresh 4.
--   binary libw.so (the leaf's): base 20 + 10 + 3 = 33 samples, new 60 + 10
--     + 4 + 2 = 76; lib_hot self 33 -> 72 ms, lib_cold 0 -> 4 ms, main total
--     (its samples whose leaf is in libw.so) 20 -> 64 ms.
--   binary prog: base 10 + 30 + 5 = 45 samples, new 10 + 5 = 15.
--   the whole: lib_hot self 33 -> 72 ms; main total 30 -> 74 ms.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local chromium = require "helpers.chromium"

local TMP = util.mktempdir("lgprof diff-groups")
local FX = require("helpers.perfdiffgroups").write(TMP)

local function lgprof(args)
  local s, out, err = cmd.lgprof(args, { cwd = TMP })
  assert.equal(0, s, cmd.show(s, out, err))
  return out
end

local function page_text()
  return lgprof({ "--diff=base.data", "--format=html", "prog", "new.data" })
end

-- a group's data embedded in the page: { fns, frames, meta }
local function group_data(html, kind, key)
  local cjson = require "cjson"
  local gtext = html:match('<script type="application/json" id="lgprof%-diff%-groups">(.-)</script>')
  assert.truthy(gtext)
  local groups = cjson.decode(gtext)
  local id = groups.ids[kind][key]
  assert.truthy(id, key)
  local text = html:match('<script type="application/json" id="lgprof%-diff%-' .. kind .. "%-" .. ("%d"):format(id)
    .. '">(.-)</script>')
  assert.truthy(text)
  return cjson.decode(text), groups
end

-- the page written through the API with at most `cap` rows per table
local function capped_page(cap)
  local lgprof = require "lgprof"
  local dg = require "lgprof.format.diffgroups"
  local base = assert(lgprof.open(FX.prog, { FX.base }, { clones = "keep" }))
  local new = assert(lgprof.open(FX.prog, { FX.new }, { clones = "keep" }))
  local saved = dg.MAX_GROUPS
  dg.MAX_GROUPS = cap
  local ok, rows, text = pcall(require("lgprof.format.diffout").write, "html", { base }, new,
    { confidence = 0.95, clone_match = true })
  dg.MAX_GROUPS = saved
  base:close(); new:close()
  assert(ok, rows)
  return text
end

local function near(want, got, what)
  assert.is_true(math.abs(want - got) < 1e-9, ("%s: %s, not %s"):format(what or "", tostring(got), tostring(want)))
end

describe("lgprof --diff --format=html: threads and binaries", function()
  local html
  setup(function() html = page_text() end)

  it("lists the threads by command name and the binaries of both runs, new and gone", function()
    local _, groups = group_data(html, "thread", "prog")
    local got = {}
    for _, g in ipairs(groups.threads) do got[#got + 1] = ("%s %s %g %g"):format(g.key, g.status, g.sb, g.sn) end
    assert.same({ "prog common 30 70", "worker common 43 17", "gone gone 5 0", "fresh new 0 4" }, got)
    got = {}
    for _, g in ipairs(groups.dsos) do got[#got + 1] = ("%s %g %g"):format(g.key, g.sb, g.sn) end
    assert.same({ FX.lib .. " 33 76", FX.prog .. " 45 15" }, got)
    near(0.030, groups.threads[1].tb); near(0.070, groups.threads[1].tn); near(0.040, groups.threads[1].td)
  end)

  it("a thread's data is its samples alone, as derived by hand", function()
    local d = group_data(html, "thread", "prog")
    near(0.030, d.meta.base_total); near(0.070, d.meta.new_total)
    local by = {}
    for _, f in ipairs(d.fns) do by[f.name] = f end
    near(0.020, by.lib_hot.sb); near(0.060, by.lib_hot.sn); near(0.040, by.lib_hot.sd)
    assert.is_true(by.lib_hot.ss)
    near(0.010, by.main.sb); near(0.010, by.main.sn); near(0.030, by.main.tb); near(0.070, by.main.tn)
    near(0.020, by.work_a.tb); near(0.060, by.work_a.tn)
    assert.is_nil(by.work_b)
    d = group_data(html, "thread", "worker")
    by = {}
    for _, f in ipairs(d.fns) do by[f.name] = f end
    near(0.030, by.work_b.sb); near(0.005, by.work_b.sn); near(0.040, by.work_b.tb); near(0.015, by.work_b.tn)
    near(0.013, by.lib_hot.sb); near(0.012, by.lib_hot.sn)
    near(0, by["[unknown]"].sb); near(0.003, by["[unknown]"].tb); near(0.002, by["[unknown]"].tn)
    assert.is_nil(by.main)
  end)

  it("a binary's data is the samples whose leaf is in it", function()
    local d = group_data(html, "dso", FX.lib)
    local by = {}
    for _, f in ipairs(d.fns) do by[f.name] = f end
    near(0.033, by.lib_hot.sb); near(0.072, by.lib_hot.sn)
    near(0, by.lib_cold.sb); near(0.004, by.lib_cold.sn)
    near(0.020, by.main.tb); near(0.064, by.main.tn)
    near(0, by.work_b.sb); near(0.010, by.work_b.tb); near(0.010, by.work_b.tn)
  end)

  -- every function's numbers in the page's group and in --diff --comm's
  -- (or --dso's) JSON: one computation
  local function agree(kind, key, option)
    local d = group_data(html, kind, key)
    local doc = require("cjson").decode(lgprof({ "--diff=base.data", option .. "=" .. key, "--format=json",
      "prog", "new.data" }))
    near(doc.base_total, d.meta.base_total, "base total"); near(doc.new_total, d.meta.new_total, "new total")
    local page = {}
    for _, f in ipairs(d.fns) do page[f.name] = f end
    assert.equal(#doc.functions, #d.fns)
    for _, r in ipairs(doc.functions) do
      local f = assert(page[r.label], r.label)
      assert.equal(r.status, f.status, r.label)
      near(r.self.base, f.sb, r.label); near(r.self.new, f.sn, r.label); near(r.self.change, f.sd, r.label)
      near((r.self.high - r.self.low) / 2, f.sh, r.label); near(r.self.p, f.sp, r.label)
      assert.equal(r.self.significant, f.ss, r.label)
      near(r.total.base, f.tb, r.label); near(r.total.new, f.tn, r.label); near(r.total.change, f.td, r.label)
      near((r.total.high - r.total.low) / 2, f.th, r.label); near(r.total.p, f.tp, r.label)
      assert.equal(r.total.significant, f.ts, r.label)
    end
  end
  it("a thread's numbers are those of --diff --comm's JSON", function()
    agree("thread", "prog", "--comm")
    agree("thread", "worker", "--comm")
  end)
  it("a binary's numbers are those of --diff --dso's JSON", function()
    agree("dso", FX.lib, "--dso")
    agree("dso", FX.prog, "--dso")
  end)
  it("lists the heaviest groups, names the others and carries no data for them", function()
    local html = capped_page(2)
    local _, groups = group_data(html, "thread", "prog")
    assert.equal(2, #groups.threads)
    assert.equal(4, groups.counts.thread)
    assert.same({ "gone", "fresh" }, groups.rest.thread)
    assert.same({}, groups.rest.dso)
    assert.truthy(html:find('id="lgprof-diff-thread-2"', 1, true))
    assert.falsy(html:find('id="lgprof-diff-thread-3"', 1, true))
  end)

  it("and of the text table", function()
    local out = lgprof({ "--diff=base.data", "--comm=prog", "prog", "new.data" })
    -- lib_hot's total and self change: +0.04 s, +133.3% of the base's 0.03 s
    assert.truthy(out:find("base 0.03 seconds, new 0.07 seconds", 1, true), out)
    assert.matches("%+0%.04%s+[%d.]+%s+%+133%.3%*%s+%+0%.04%s+[%d.]+%s+%+133%.3%*%s+lib_hot", out)
  end)
end)

describe("the comparison page's threads and binaries in Chromium", function()
  if not chromium.available() then
    pending("Chromium is not installed (" .. chromium.BINARY .. ")")
    return
  end
  local browser, url
  setup(function()
    browser = assert(chromium.start(util.mktempdir("lgprof-diffgroups-chromium"), { timeout = 600 }))
    local path = TMP .. "/diff page.html"
    util.spit(path, page_text())
    url = "file://" .. path:gsub(" ", "%%20")
  end)
  teardown(function() if browser then browser:close() end end)

  local function open(fragment)
    local page = browser:open(url .. (fragment or ""))
    assert.is_true(page:eval("window.lgprofReady === true"), "the page was not drawn: "
      .. table.concat(page.errors, "; "))
    return page
  end
  -- runs js, which changes the fragment, and waits for the page's redraw
  -- (the hashchange event's listeners draw it)
  local function wait(page, js) return page:after_hashchange(js) end
  -- the cells of the diff table's row of a function
  local function row(page, name)
    return page:eval("(function () { var out = null; document.querySelectorAll('#dtable tbody tr')"
      .. ".forEach(function (tr) { if (tr.cells[0].textContent === '" .. name .. "') out ="
      .. " Array.from(tr.cells).map(function (td) { return td.textContent; }); }); return out; })()")
  end
  -- a flame graph frame's data (its name's first frame): [base self, new self, change]
  local function frame(page, name)
    return page:eval("(function () { var d = JSON.parse(document.getElementById('lgprof-diff-data')"
      .. ".textContent), o = null; d.frames.forEach(function (f) { if (o === null && f[0] === '" .. name
      .. "') o = [f[4], f[5], f[8]]; }); return o; })()")
  end

  it("draws the tables, the whole comparison without a fragment", function()
    local page = open()
    assert.equal("prog worker gone fresh", page:eval("Array.from(document.querySelectorAll("
      .. "'#dthread-table tbody tr')).map(function (tr) { return tr.getAttribute('data-key'); }).join(' ')"))
    assert.equal("gone", page:eval("document.querySelector('#dthread-table tr[data-key=gone]').cells[1].textContent"))
    assert.equal("new", page:eval("document.querySelector('#dthread-table tr[data-key=fresh]').cells[1].textContent"))
    -- a thread's change, its samples tested as a function's: worker 43 -> 17,
    -- z = (26 - 1) / sqrt(60) = 3.23 (*), the interval's half-width
    -- (1.96 sqrt(60) + 1) x 1 ms = 16.2 ms; gone 5 -> 0 within the noise
    local function cells(key)
      return page:eval("Array.from(document.querySelector('#dthread-table tr[data-key=" .. key .. "]').cells)"
        .. ".map(function (td) { return td.textContent; }).join('|')")
    end
    -- and its largest self changes: work_b 30 -> 5 ms (*), lib_hot 13 -> 12 ms
    -- ([unknown]: no self time, left out)
    assert.equal("worker|common|43|17|0.043|0.017|-0.026 *|0.016|work_b -0.025 *, lib_hot -0.001", cells("worker"))
    assert.equal("gone|gone|5|0|0.005|0.000|-0.005|0.005|work_a -0.005", cells("gone"))
    -- the whole: lib_hot self 33 -> 72 ms
    local r = row(page, "lib_hot")
    assert.equal("33.000 ms", r[3]); assert.equal("72.000 ms", r[4])
    assert.same({}, page.errors)
    page:close()
  end)

  it("#thread=prog shows that thread's deltas alone", function()
    local page = open("#thread=prog")
    local r = row(page, "lib_hot")
    assert.equal("20.000 ms", r[3]); assert.equal("60.000 ms", r[4]); assert.equal("+40.000 ms *", r[5])
    assert.is_nil(row(page, "work_b"))
    local f = frame(page, "lib_hot")
    near(0.020, f[1]); near(0.060, f[2]); assert.equal("grew", f[3])
    -- its frame drawn, red
    assert.equal("grew", page:eval("(function () { var r; document.querySelectorAll('#dflame g.fr')"
      .. ".forEach(function (g) { if (g.textContent.indexOf('lib_hot\\n') === 0) r = g.getAttribute('data-change'); });"
      .. " return r; })()"))
    assert.equal("prog", page:eval("document.querySelector('#dthread-table tr.sel').getAttribute('data-key')"))
    assert.truthy(page:eval("document.getElementById('dgroups-note').textContent"):find("threads named prog", 1, true))
    assert.same({}, page.errors)
    page:close()
  end)

  -- (its functions are in both builds' binaries, sampled in one run: each
  -- is common, with nothing on the other side, neither new nor gone)
  it("a thread of one run alone: its functions on one side only, common", function()
    local page = open("#thread=gone")
    local r = row(page, "work_a")
    assert.equal("common", r[2])
    assert.equal("5.000 ms", r[3]); assert.equal("0 \u{b5}s", r[4])
    -- (within the noise: z = (5 - 1) / sqrt(5) = 1.79 < 1.96, no *)
    assert.equal("-5.000 ms", r[5])
    assert.equal(1, page:eval("document.querySelectorAll('#dtable tbody tr').length"))
    assert.same({}, page.errors)
    page:close()
    page = open("#thread=fresh")
    r = row(page, "lib_cold")
    -- (libw.so defines lib_cold in both runs: not new, though sampled in
    -- the new run only)
    assert.equal("common", r[2])
    assert.equal("0 \u{b5}s", r[3]); assert.equal("4.000 ms", r[4])
    assert.equal("4.000 ms", row(page, "main")[9])
    assert.same({}, page.errors)
    page:close()
  end)

  it("#thread=worker&f=N: the side by side is the thread's", function()
    local page = open("#thread=worker")
    local r = row(page, "work_b")
    assert.equal("30.000 ms", r[3]); assert.equal("5.000 ms", r[4]); assert.equal("-25.000 ms *", r[5])
    local f = frame(page, "work_b")
    near(0.030, f[1]); near(0.005, f[2]); assert.equal("shrank", f[3])
    -- lib_hot's callers in this thread: work_b (10 ms on each side) and
    -- [unknown] (3 ms, 2 ms), not work_a
    local id = page:eval("(function () { var d = JSON.parse(document.getElementById('lgprof-diff-data')"
      .. ".textContent), i = -1; d.fns.forEach(function (f, j) { if (f.name === 'lib_hot') i = j; }); return i; })()")
    page:close()
    page = open("#f=" .. id .. "&thread=worker")
    assert.equal("lib_hot", page:eval("document.getElementById('panel-title').textContent"))
    local new = page:eval("document.getElementById('side-new').textContent")
    assert.truthy(new:find("work_b10.000 ms", 1, true), new)
    assert.falsy(new:find("work_a", 1, true), new)
    assert.same({}, page.errors)
    page:close()
  end)

  it("dso=PATH shows the samples whose leaf is in that binary", function()
    local page = open("#dso=" .. FX.lib:gsub("[^%w]", function(c) return ("%%%02X"):format(c:byte()) end))
    local r = row(page, "lib_hot")
    assert.equal("33.000 ms", r[3]); assert.equal("72.000 ms", r[4])
    r = row(page, "main")
    assert.equal("20.000 ms", r[8]); assert.equal("64.000 ms", r[9])
    assert.same({}, page.errors)
    page:close()
  end)

  it("names the threads past the cap in a note", function()
    local path = TMP .. "/capped.html"
    util.spit(path, capped_page(2))
    local page = browser:open("file://" .. path)
    assert.is_true(page:eval("window.lgprofReady === true"))
    assert.equal("2 lighter ones not listed: gone, fresh.", page:eval("document.getElementById('dthread-rest').textContent"))
    assert.is_nil(page:eval("document.getElementById('ddso-rest')"))
    assert.same({}, page.errors)
    page:close()
  end)

  it("a click on a row picks its group, a second click or the link all samples", function()
    local page = open()
    wait(page, "document.querySelector('#dthread-table tr[data-key=worker]').click()")
    assert.equal("thread=worker", page:eval("location.hash.slice(1)"))
    assert.equal("5.000 ms", row(page, "work_b")[4])
    wait(page, "document.querySelector('#ddso-table tbody tr').click()")
    assert.truthy(page:eval("location.hash"):find("dso=", 1, true))
    assert.falsy(page:eval("location.hash"):find("thread=", 1, true))
    -- main's total: its samples whose leaf is in libw.so, 60 + 4 ms
    assert.equal("64.000 ms", row(page, "main")[9])
    wait(page, "document.querySelector('#ddso-table tbody tr').click()")
    assert.equal("", page:eval("location.hash.slice(1)"))
    assert.equal("74.000 ms", row(page, "main")[9]) -- the whole: 10 + 60 + 4
    wait(page, "document.querySelector('#dthread-table tr[data-key=prog]').click()")
    assert.equal("60.000 ms", row(page, "lib_hot")[4])
    wait(page, "document.getElementById('dgroups-all').click()")
    assert.equal("72.000 ms", row(page, "lib_hot")[4])
    -- back in history: the thread again
    wait(page, "history.back()")
    assert.equal("60.000 ms", row(page, "lib_hot")[4])
    -- an unknown thread: the whole comparison
    wait(page, "location.hash = 'thread=nosuch'")
    assert.equal("72.000 ms", row(page, "lib_hot")[4])
    assert.same({}, page.errors)
    page:close()
  end)
end)
