-- The exports of a perf.data whose event is not time (issue 25): `perf
-- record -e page-faults -g` weighs each sample by its period, a count of
-- page faults, not nanoseconds. The stack writers (folded, pprof,
-- speedscope, svg, html, dot) and the core's (callgrind, JSON, CSV) then
-- hold those counts and say so; a time event's exports stay as they were.
--
-- The recordings are written here with helpers.perfwriter for a program
-- compiled here (real symbols, from nm and readelf); every expected number
-- is derived by hand from the samples written:
--
--   PF  page-faults (software event, type 1, config 2), periods = faults:
--       2 samples leaf<-middle<-main  periods 2, 3   (5 faults)
--       1 sample  other<-main         period  4      (4 faults)
--       1 sample  in main             period  3      (3 faults)
--   4 samples, 12 faults: the mean period 3 faults per sample.
--   Folded: main;middle;leaf 5, main;other 4, main 3 (12 in all).
--   Self: leaf 5, other 4, main 3, middle 0; totals: main 12, middle 5.
--   MF  the same stacks as minor-faults:u (config 5), named by the
--       event-description feature: callgrind's event minor_faults_u.
--   CK  the same stacks as cpu-clock with periods in ms (2, 3, 4, 3 ms):
--       the time exports as before (folded in microseconds: 5000 ...).
--
-- Oracles beside the hand-derived numbers, each skipped when missing:
-- `go tool pprof -top` reads the pprof file (its total and flat counts),
-- headless Chromium draws the html page (its totals and tooltips).
--
-- The live check records a small program with `perf record -e page-faults
-- -g` in frequency mode, so the periods vary (skipped with the reason when
-- perf cannot record here): lgprof's folded total is the sum of the
-- periods `perf script -F period` prints.
local H = require "helpers"
local util, cmd, pb = H.util, H.cmd, H.protobuf
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"
local lgprof = require "lgprof"

local q = util.q
local MS = 1000000

local tmp, prog

-- the stacks (leaf first) and their samples' periods, scaled by unit
local STACKS = {
  { frames = { "leaf", "middle", "main" }, periods = { 2, 3 } },
  { frames = { "other", "main" }, periods = { 4 } },
  { frames = { "main" }, periods = { 3 } },
}

-- a recording of STACKS as event (type 1, config), periods x unit;
-- event_desc: the name the event-description feature gives it
local function recording(config, unit, event_desc)
  local f = pw.new({ attrs = { { type = 1, config = config, name = event_desc,
    sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN, period = 1, ids = { 1 } } } })
  sp.write_stacks(f, prog, STACKS, unit)
  if event_desc then f:feature("event_desc", true) end
  return f
end

local function run(argv) return cmd.lgprof_out(argv, { cwd = tmp }) end

-- folded text -> { [stack] = value }, and the values' sum
local function folded(out)
  local by, sum = {}, 0
  for stack, v in out:gmatch("([^\n]+) (%d+)\n") do
    assert.is_nil(by[stack], "a stack twice: " .. stack)
    by[stack] = tonumber(v)
    sum = sum + by[stack]
  end
  return by, sum
end

local function gunzip(data)
  local path = tmp .. "/p.pb.gz"
  util.spit(path, data)
  local status, out, err = cmd.run({ "gzip", "-dc", path })
  assert(status == 0, "gzip -dc: " .. err)
  return out
end

-- CSV text (no quoted commas here) -> header list, rows by name
local function csv(out, key)
  local lines = {}
  for l in out:gmatch("([^\r\n]+)\r\n") do lines[#lines + 1] = l end
  local head, rows = {}, {}
  for c in (lines[1] .. ","):gmatch("([^,]*),") do head[#head + 1] = c end
  for i = 2, #lines do
    local row, k = {}, 0
    for c in (lines[i] .. ","):gmatch("([^,]*),") do
      k = k + 1
      row[head[k]] = c
    end
    rows[key(row)] = row
  end
  return head, rows
end

-- the JSON an HTML page embeds
local function page_data(page)
  local data = page:match('<script type="application/json" id="lgprof%-data">(.-)</script>')
  assert(data, "no data in the page")
  return data
end

describe("perf.data events that are not time, in the exports", function()
  setup(function()
    tmp = util.mktempdir("lgprof-perfevents")
    prog = sp.shared(tmp)
    pw.write(tmp .. "/pf.data", recording(2, 1):bytes())
    pw.write(tmp .. "/mf.data", recording(5, 1, "minor-faults:u"):bytes())
    pw.write(tmp .. "/ck.data", recording(0, MS):bytes())
  end)
  teardown(function() util.rmtree(tmp) end)

  it("names the event and counts it (Lua API)", function()
    local p = assert(lgprof.open(nil, tmp .. "/pf.data"))
    local stacks = require "lgprof.analysis.stacks"
    assert.equal("page-faults", stacks.event(p))
    assert.equal(4, p.samples)
    assert.equal(12, p.total_time)
    assert.equal(3, p.sample_period)
    assert.equal(0, p.hz)
    local ck = assert(lgprof.open(nil, tmp .. "/ck.data"))
    assert.is_nil(stacks.event(ck))
    local mf = assert(lgprof.open(nil, tmp .. "/mf.data"))
    assert.equal("minor-faults:u", stacks.event(mf))
  end)

  it("writes folded stacks in counts of the event, and a time event in microseconds", function()
    local by, sum = folded(run({ "--format=folded", "pf.data" }))
    assert.same({ ["main;middle;leaf"] = 5, ["main;other"] = 4, main = 3 }, by)
    assert.equal(12, sum)
    by, sum = folded(run({ "--format=folded", "ck.data" }))
    assert.same({ ["main;middle;leaf"] = 5000, ["main;other"] = 4000, main = 3000 }, by)
    assert.equal(12000, sum)
  end)

  it("writes pprof's samples/count and page-faults/count, the mean period of the event", function()
    local prof = pb.profile(gunzip(run({ "--format=pprof", "pf.data" })))
    local function str(i) return assert(prof.string_table[i + 1]) end
    assert.equal(2, #prof.sample_type)
    assert.same({ "samples", "count" }, { str(prof.sample_type[1].type), str(prof.sample_type[1].unit) })
    assert.same({ "page-faults", "count" }, { str(prof.sample_type[2].type), str(prof.sample_type[2].unit) })
    assert.same({ "page-faults", "count" }, { str(prof.period_type.type), str(prof.period_type.unit) })
    assert.equal(3, prof.period)
    assert.equal("page-faults", str(prof.default_sample_type))
    for _, s in ipairs(prof.string_table) do
      assert.is_nil(s:find("nanoseconds", 1, true), "a string says nanoseconds: " .. s)
    end
    -- the values by stack (leaf first), names through locations and functions
    local fname, floc = {}, {}
    for _, f in ipairs(prof["function"]) do fname[f.id] = str(f.name) end
    for _, l in ipairs(prof.location) do floc[l.id] = fname[l.line[1].function_id] end
    local by, samples = {}, 0
    for _, s in ipairs(prof.sample) do
      local names = {}
      for i, id in ipairs(s.location_id) do names[i] = floc[id] end
      by[table.concat(names, ";")] = s.value[2]
      samples = samples + s.value[1]
    end
    assert.same({ ["leaf;middle;main"] = 5, ["other;main"] = 4, main = 3 }, by)
    assert.equal(4, samples) -- 12 faults / 3 per sample
    -- pprof itself (Debian's golang-go), when installed: the total and each
    -- function's flat count of page faults
    if not util.have("/usr/bin/go") then return end
    local path = tmp .. "/pf.pb.gz"
    util.spit(path, run({ "--format=pprof", "pf.data" }))
    local env = ("HOME=%s GOCACHE=%s GOPATH=%s GOPROXY=off GOTOOLCHAIN=local GOFLAGS= "
      .. "GOTELEMETRY=off PPROF_TMPDIR=%s "):format(q(tmp), q(tmp .. "/gocache"), q(tmp .. "/gopath"),
      q(tmp .. "/pprof"))
    local status, out, err = cmd.run({ "/usr/bin/go", "tool", "pprof", "-top", path },
      { prefix = env, timeout = 120, cwd = tmp })
    assert(status == 0, cmd.show(status, out, err))
    assert.matches("Type: page%-faults\n", out)
    assert.matches("accounting for 12, 100%% of 12 total", out)
    local flat = {}
    for v, name in out:gmatch("\n%s*(%d+)%s+[%d.]+%%%s+[%d.]+%%%s+%d+%s+[%d.]+%%%s+(%w+)") do
      flat[name] = tonumber(v)
    end
    assert.same({ leaf = 5, other = 4, main = 3, middle = 0 }, flat)
  end)

  it("writes speedscope's unit none and the counts", function()
    local doc = require("cjson").decode(run({ "--format=speedscope", "pf.data" }))
    local p = doc.profiles[1]
    assert.equal("none", p.unit)
    assert.equal(0, p.startValue)
    assert.equal(12, p.endValue)
    -- each frame's width: its close less its open (each opens once here)
    local open, width = {}, {}
    for _, e in ipairs(p.events) do
      local name = doc.shared.frames[e.frame + 1].name
      if e.type == "O" then open[name] = e.at else width[name] = e.at - open[name] end
    end
    assert.same({ main = 12, middle = 5, leaf = 5, other = 4 }, width)
    local ck = require("cjson").decode(run({ "--format=speedscope", "ck.data" }))
    assert.equal("microseconds", ck.profiles[1].unit)
    assert.equal(12000, ck.profiles[1].endValue)
  end)

  it("says --diff's numbers are the event's counts, and a time event's seconds", function()
    -- pf.data against itself: 12 faults each side, no change
    local out = run({ "--diff", "pf.data", "pf.data" })
    assert.matches("^base 12%.00 page%-faults, new 12%.00 page%-faults, change [+-]?0%.00 page%-faults ", out)
    assert.is_nil(out:find("seconds", 1, true), out)
    assert.matches("\npage%-faults +%+%- +%% base +page%-faults +%+%- +%% base +function\n", out)
    -- two events: no one unit, the rows as seconds
    out = run({ "--diff", "ck.data", "ck.data" })
    assert.matches("^base [%d.]+ seconds, new [%d.]+ seconds, change ", out)
    local status, text = cmd.lgprof({ "--diff", "pf.data", "mf.data" }, { cwd = tmp })
    assert.equal(0, status, text)
    assert.matches("^base [%d.]+ seconds", text)
  end)

  it("writes callgrind's costs as counts of an event named after it", function()
    local out = run({ "--format=callgrind", "pf.data" })
    assert.matches("\nevent: page_faults : [^\n]*\nevents: page_faults\n", out)
    assert.matches("\ndesc: Event: page%-faults [^\n]*mean 3 per sample\n", out)
    assert.is_nil(out:find("Time_ns", 1, true))
    assert.is_nil(out:find("Hz", 1, true))
    assert.matches("\nsummary: 12\n", out)
    assert.matches("\ntotals: 12\n", out)
    -- each function's own cost: the line after its fn= line
    local self = {}
    for name, cost in out:gmatch("\nfn=%(%d+%) ([%w_]+)\n%d+ (%d+)\n") do self[name] = tonumber(cost) end
    assert.same({ main = 3, middle = 0, leaf = 5, other = 4 }, self)
    -- the calls' inclusive costs: main -> middle 5, main -> other 4, middle -> leaf 5
    local calls = {}
    for callee, cost in out:gmatch("\ncfn=%(%d+%)[ ]?([%w_]*)\ncalls=%d+ %d+\n%d+ (%d+)\n") do
      calls[#calls + 1] = tonumber(cost)
    end
    table.sort(calls)
    assert.same({ 4, 5, 5 }, calls)
    -- a name from the recording becomes a callgrind name: letters, digits, '_'
    out = run({ "--format=callgrind", "mf.data" })
    assert.matches("\nevents: minor_faults_u\n", out)
    assert.matches("\ndesc: Event: minor%-faults:u ", out)
    -- time: as it was
    out = run({ "--format=callgrind", "ck.data" })
    assert.matches("\nevents: Time_ns\n", out)
    assert.matches("\nsummary: 12000000\n", out)
  end)

  it("says in JSON's units that the times are counts of the event, adding a field", function()
    local doc = require("cjson").decode(run({ "--format=json", "pf.data" }))
    assert.equal(4, doc.version)
    assert.same({ time = "events", event = "page-faults", percent = "percent", calls = "count",
      address = "byte address" }, doc.units)
    assert.equal(12, doc.totals.time)
    local by = {}
    for _, f in ipairs(doc.functions) do by[f.name] = f end
    assert.equal(5, by.leaf.flat_self)
    assert.equal(4, by.other.flat_self)
    assert.equal(3, by.main.flat_self)
    assert.equal(12, by.main.total)
    assert.equal(5, by.middle.total)
    local ck = require("cjson").decode(run({ "--format=json", "ck.data" }))
    assert.same({ time = "seconds", percent = "percent", calls = "count", address = "byte address" },
      ck.units)
  end)

  it("adds CSV's last column unit: the event the *_seconds columns count", function()
    local head, rows = csv(run({ "--format=csv", "pf.data" }), function(r) return r.name end)
    assert.equal("unit", head[#head])
    -- (before it, a perf.data's binary columns: doc/formats.md)
    assert.same({ "total_max_seconds", "dso", "dso_status", "is_anonymous" }, { table.unpack(head, #head - 4, #head - 1) })
    assert.equal("5", rows.leaf.self_seconds)
    assert.equal("12", rows.main.total_seconds)
    for name, r in pairs(rows) do assert.equal("page-faults", r.unit, name) end
    head, rows = csv(run({ "--format=csv-arcs", "pf.data" }), function(r) return r.caller .. ">" .. r.callee end)
    assert.equal("unit", head[#head])
    assert.equal("5", rows["middle>leaf"].self_seconds)
    assert.equal("4", rows["main>other"].self_seconds)
    assert.equal("page-faults", rows["main>other"].unit)
    head = csv(run({ "--format=csv", "--granularity=line", "pf.data" }), function(r) return r.address end)
    assert.equal("unit", head[#head])
    head = csv(run({ "--format=csv", "ck.data" }), function(r) return r.name end)
    assert.equal("total_max_seconds", head[#head - 3])
    assert.equal("is_anonymous", head[#head])
  end)

  it("labels the flame graph, the page and the legend with counts of the event", function()
    local svg = run({ "--format=svg", "pf.data" })
    assert.matches("Total 12 page%-faults", svg)
    assert.matches("<title>leaf %(5 page%-faults, 41%.67%%[^)]*; self 5 page%-faults%)</title>", svg)
    assert.matches("<title>main %(12 page%-faults, 100%.00%%; self 3 page%-faults%)</title>", svg)
    assert.is_nil(svg:find("\u{B5}s", 1, true))
    assert.is_nil(svg:find("%d ms[,)]"))
    local ck = run({ "--format=svg", "ck.data" })
    assert.matches("<title>leaf %(5%.000 ms, 41%.67%%", ck)
    local page = run({ "--format=html", "pf.data" })
    local data = require("cjson").decode(page_data(page))
    assert.equal("page-faults", data.meta.event)
    assert.equal(12, data.meta.flame_total)
    local ckpage = run({ "--format=html", "ck.data" })
    local ckdata = require("cjson").decode(page_data(ckpage))
    assert.is_nil(ckdata.meta.event)
    assert.equal(12000, ckdata.meta.flame_total)
    local dot = run({ "--format=dot", "pf.data" })
    assert.matches("12 page%-faults in the call graph", dot)
    assert.is_nil(dot:find("s of call graph time", 1, true))
  end)

  it("shows the page's totals and flame tooltips as counts in a browser", function()
    local chromium = require "helpers.chromium"
    if not chromium.available() then
      pending("needs " .. chromium.BINARY)
      return
    end
    local path = tmp .. "/pf.html"
    util.spit(path, run({ "--format=html", "pf.data" }))
    local dir = tmp .. "/browser"
    util.mkdir(dir)
    local browser = assert(chromium.start(dir, { timeout = 300 }))
    local ok, err = pcall(function()
      local page = browser:open("file://" .. path)
      assert.is_true(page:eval("window.lgprofReady === true"), "the page did not finish drawing")
      assert.same({}, page.errors)
      local head = page:eval("document.getElementById('head').textContent")
      assert.truthy(head:find("12 page-faults", 1, true), head)
      local titles = page:eval("Array.prototype.map.call(document.querySelectorAll('#flame title'), "
        .. "function (t) { return t.textContent; }).join('|')")
      -- leaf: 5 of 12 faults, 41.67%, all its own
      assert.truthy(titles:find("leaf\n5 page-faults, 41.67% of all, self 5 page-faults", 1, true), titles)
      assert.truthy(titles:find("main\n12 page-faults, 100.00% of all, self 3 page-faults", 1, true), titles)
      assert.is_nil(titles:find("\u{B5}s", 1, true), titles)
      page:close()
    end)
    browser:close()
    assert(ok, err)
  end)

  it("totals what perf script prints for a live page-faults recording", function()
    local why
    if not util.have("perf") then why = "no perf" end
    local dir = tmp .. "/live"
    util.mkdir(dir)
    local prog = dir .. "/touch"
    if not why then
      util.spit(dir .. "/touch.c", [[
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) static void touch(char *p, size_t n) { memset(p, 1, n); }
int main(void) {
  for (int i = 0; i < 8; i++) { char *p = malloc(1 << 22); touch(p, 1 << 22); free(p); }
  return 0;
}
]])
      local status, out, err = cmd.shell("cc -O1 -g -fno-omit-frame-pointer -o " .. q(prog) .. " "
        .. q(dir .. "/touch.c"))
      assert(status == 0, out .. err)
      status, out, err = cmd.shell("perf record -q -e page-faults -g -o " .. q(dir .. "/pf.data")
        .. " " .. q(prog))
      if status ~= 0 then why = "perf cannot record here: " .. (err ~= "" and err or out):gsub("\n.*", "") end
    end
    if why then
      pending("live page-faults recording skipped: " .. why)
      return
    end
    local status, out, err = cmd.shell("perf script -F period -i " .. q(dir .. "/pf.data"))
    assert(status == 0, out .. err)
    local want, n = 0, 0
    for v in out:gmatch("(%d+)") do want = want + tonumber(v); n = n + 1 end
    assert(n > 0, "perf script printed no sample")
    local fout = run({ "--format=folded", prog, dir .. "/pf.data" })
    local _, sum = folded(fout)
    assert.equal(want, sum)
    local doc = require("cjson").decode(run({ "--format=json", prog, dir .. "/pf.data" }))
    assert.equal("events", doc.units.time)
    assert.equal("page-faults", doc.units.event)
    assert.equal(want, doc.totals.time)
  end)
end)
