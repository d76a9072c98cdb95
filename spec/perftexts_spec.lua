-- What lgprof writes about a perf.data profile says what it is (issue 31,
-- section 3): every legend, note and help text written for one, in every
-- format, names the recorded program (the process with the most samples
-- and its executable, not the binary most samples end in) and never speaks
-- of what only gmon.out has: counted calls, arcs, times estimated or
-- propagated by gprof's model. The profile: helpers.perfgroups (process 100
-- "prog" runs prog and has 14 of the 21 samples; the library libw.so holds
-- 15 of the 21 leaves).
--
-- The checker is shown to catch the phrases on a gmon profile's texts,
-- where they apply (the same writers, the same collection).
--
-- The doctor's findings are checked on a second recording made for them
-- (a stripped binary, one that is missing, one-frame chains); the page's
-- threads and binaries tables, and the page as a thread's or a binary's
-- row shows it, in Chromium.
--
-- gprof's report of a perf.data profile explains its columns in texts of
-- its own (gprof's speak of calls and propagated time): the explanations
-- after the flat profile and the call graph (before them with -T) are
-- checked, less their left margin, which holds the columns' names.
--
-- Not checked: the names of JSON fields and CSV columns (a schema, the same
-- for both kinds of profile: a perf.data's "calls" are null, its CSV calls
-- blank), callgrind's `calls=` lines (its syntax), and the column heads of
-- gprof's report (its layout).
local H = require "helpers"
local util = H.util

local TMP = util.mktempdir("lgprof-perftexts")
local FX = require("helpers.perfgroups").write(TMP)

-- the words of gmon.out's model, whole words, any case
local GMON_ONLY = { "calls", "estimated", "estimate", "estimates", "arcs", "propagated", "propagate",
                    "gprof's model" }

local function literal(s) return (s:gsub("%p", "%%%0")) end

--- The gmon-only phrases text holds (a list, empty when none).
local function offences(text)
  local low, found = text:lower(), {}
  for _, w in ipairs(GMON_ONLY) do
    local at = low:find("%f[%w]" .. literal(w) .. "%f[^%w]")
    if at then found[#found + 1] = ("%q in %q"):format(w, text:sub(math.max(1, at - 40), at + 40)) end
  end
  return found
end

local function run(argv, dir)
  local status, out, err = H.cmd.lgprof(argv, { cwd = dir or TMP })
  assert.equal(0, status, table.concat(argv, " ") .. ": " .. err)
  return out
end

-- The texts of every writer for the profile file(s) args, by where they
-- come from: { [what] = text }.
local function texts(args, dir)
  local function with(...)
    local a = { ... }
    for _, x in ipairs(args) do a[#a + 1] = x end
    return a
  end
  local t = {}
  t["--format=text"] = run(with("--format=text"), dir)
  -- gprof's report: its header, before its column heads
  t["gprof's report (header)"] = run(with("-b", "-p"), dir):match("^(.-)\n%s+%%")
  -- gprof's report: the columns' explanations, less the column names at the
  -- left margin (the flat profile's first 11 characters; the call graph's
  -- tab-led names)
  local function margin_less(text, width)
    local lines = {}
    for line in (text .. "\n"):gmatch("(.-)\n") do
      lines[#lines + 1] = width and line:sub(width + 1) or line:gsub("^%s+[%w%%]+\t", "")
    end
    return table.concat(lines, "\n")
  end
  local flat = run(with("-p"), dir)
  t["gprof's flat profile explanations"] = margin_less(flat:match("\n(\n %%%s+the .*)$") or "", 11)
  local graph = run(with("-q"), dir)
  t["gprof's call graph explanations"] = margin_less(graph:match("\n( This table .-)\f") or "")
  local bsd = run(with("-T", "-q"), dir)
  t["gprof's call graph explanations (-T)"] = margin_less(bsd:match("^(.-)\f") or "")
  -- JSON: the notes
  local notes = {}
  for n in run(with("--format=json"), dir):gmatch('"note":"(.-)"') do notes[#notes + 1] = n end
  t["--format=json notes"] = table.concat(notes, "\n")
  -- dot: the legend's rows
  local dot = run(with("--format=dot"), dir)
  t["--format=dot legend"] = (dot:match('"legend" %[.-label=<(.-)>%];') or ""):gsub("<[^>]*>", " ")
  -- callgrind: its desc lines, less the calls= syntax
  local desc = {}
  for l in run(with("--format=callgrind"), dir):gmatch("desc: ([^\n]*)") do desc[#desc + 1] = l end
  t["--format=callgrind desc"] = table.concat(desc, "\n"):gsub("calls=", "")
  -- svg: the text the picture shows (its frames' names aside: no name here
  -- is one of the words)
  local svg = run(with("--format=svg"), dir)
  local words = {}
  for s in svg:gmatch(">([^<>]+)<") do words[#words + 1] = s end
  t["--format=svg"] = table.concat(words, "\n")
  return t
end

-- A second recording, of what the doctor warns of on a perf.data profile
-- (helpers.perfwriter, helpers.elfwriter), in TMP/doctor: the program
-- (prog, with symbols) calls into libstrip.so, an ELF without a function
-- symbol (status stripped: its samples are [unknown] addresses), and
-- libgone.so, mapped at a path that does not exist here (unresolved); every
-- chain is one frame deep (depth one: broken stacks). 20 samples of 1 ms:
-- 8 in libstrip.so, 8 in libgone.so, 4 in main.
local function doctor_recording()
  local pw, ew = require "helpers.perfwriter", require "helpers.elfwriter"
  local dir = util.mkdir(TMP .. "/doctor")
  ew.write(dir .. "/prog", { text_addr = 0x401000, text_size = 0x1000, symbols = {
    { name = "main", addr = 0x401000, size = 0x100, type = "func" } } })
  ew.write(dir .. "/libstrip.so", { text_addr = 0x601000, text_size = 0x1000, symbols = {} })
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
                                 period = 1000000, ids = { 1 } } } })
  f:comm(300, 300, "prog", 10, true)
  f:mmap2(300, 300, 0x401000, 0x1000, 0x1000, dir .. "/prog", 20)
  f:mmap2(300, 300, 0x601000, 0x1000, 0x1000, dir .. "/libstrip.so", 21)
  f:mmap2(300, 300, 0x801000, 0x1000, 0x1000, dir .. "/gone/libgone.so", 22)
  local t = 100
  for _, s in ipairs({ { 8, 0x601010 }, { 8, 0x801010 }, { 4, 0x401010 } }) do
    for _ = 1, s[1] do
      t = t + 1
      f:sample({ ip = s[2], pid = 300, tid = 300, time = t, period = 1000000,
                 chain = { pw.CONTEXT_USER, s[2] } })
    end
  end
  f:finished_round()
  pw.write(dir .. "/perf.data", f:bytes())
  return dir
end

describe("the texts written about a perf.data profile", function()
  it("never speak of calls, arcs or estimates, in any format", function()
    local t = texts({ "perf.data" })
    local by = run({ "--by=comm,dso", "perf.data" })
    t["--by=comm,dso"] = by
    t["--by json"] = run({ "--by=thread", "--format=json", "perf.data" })
    t["--by=thread"] = run({ "--by=thread", "perf.data" })
    -- CSV: its header and its rows (the hottest functions' column)
    t["--by csv"] = run({ "--by=process,dso", "--format=csv", "perf.data" })
    local status, doctor = H.cmd.lgprof({ "doctor", "perf.data" }, { cwd = TMP })
    assert.is_true(status == 0 or status == 3)
    t["lgprof doctor"] = doctor
    local n = 0
    for what, text in pairs(t) do
      n = n + 1
      assert.is_true(#text > 0, what .. ": nothing collected")
      assert.same({}, offences(text), what)
    end
    assert.equal(14, n) -- (a text missing would leave it unchecked)
  end)

  it("the doctor's findings of a perf.data profile, in text and JSON, never speak of them either", function()
    local dir = doctor_recording()
    local status, text = H.cmd.lgprof({ "doctor", "perf.data" }, { cwd = dir })
    assert.equal(3, status, text)
    local _, json = H.cmd.lgprof({ "doctor", "--format=json", "perf.data" }, { cwd = dir })
    -- the findings the recording was made for (and their texts: message,
    -- advice), each checked
    local doc = require("cjson").decode(json)
    local ids = {}
    for _, f in ipairs(doc.findings) do
      ids[f.id] = true
      assert.same({}, offences(f.message), f.id .. "'s message")
      assert.same({}, offences(f.advice or ""), f.id .. "'s advice")
    end
    for _, id in ipairs({ "stripped-dso", "unresolved-dso", "broken-stacks" }) do
      assert.is_true(ids[id], id .. " not found: " .. text)
    end
    assert.same({}, offences(text), "lgprof doctor")
  end)

  it("name the recorded program, not the binary most samples end in", function()
    local text = run({ "--format=text", "perf.data" })
    assert.matches("\nEach sample is a stack of " .. literal(FX.prog) .. " from perf.data", text)
    local gprof = run({ "-b", "-p", "perf.data" })
    assert.matches("\nEach sample is a stack of prog from perf.data %(cpu%-clock%)", gprof)
    local json = run({ "--format=json", "perf.data" })
    assert.matches('"image":"' .. literal(FX.prog) .. '","command":"prog",', json)
    local dot = run({ "--format=dot", "perf.data" })
    assert.matches('"legend" %[[^\n]*' .. literal(FX.prog), dot)
    for _, out in ipairs({ text, gprof, json, dot }) do
      assert.is_nil(out:find("libw.so", 1, true) and out:find("Each sample is a stack of " .. FX.lib, 1, true))
    end
    local html = run({ "--format=html", "perf.data" })
    assert.matches("<title>lgprof: prog</title>", html, 1, true)
  end)

  it("catches the phrases where they apply: a gmon profile's texts", function()
    local dir = util.mktempdir("lgprof-perftexts-gmon")
    local exe, gmon = H.synth.write(dir, "prog", { funcs = { { "main", 10 }, { "work", 90 } },
      arcs = { { "main", "work", 5 } } })
    local t = texts({ exe, gmon }, dir)
    -- the legend, the notes and the dot legend explain gprof's model, and so
    -- do gprof's call graph explanations (its flat profile's speak of calls
    -- only in their margin)
    for _, what in ipairs({ "--format=text", "--format=json notes", "--format=dot legend",
                            "--format=callgrind desc", "gprof's call graph explanations", "gprof's call graph explanations (-T)" }) do
      assert.is_true(#offences(t[what]) > 0, what .. " should speak of calls or estimates: " .. t[what])
    end
  end)
end)

describe("the page of a perf.data profile, in Chromium", function()
  local chromium = require "helpers.chromium"
  if not chromium.available() then
    pending("Chromium is not installed (" .. chromium.BINARY .. ")")
    return
  end
  local browser
  setup(function()
    browser = assert(chromium.start(util.mktempdir("lgprof-perftexts-chromium"), { timeout = 600 }))
  end)
  teardown(function() if browser then browser:close() end end)

  it("says what the profile is: title, header, legends, column help, panels", function()
    local path = TMP .. "/page.html"
    util.spit(path, run({ "--format=html", "perf.data" }))
    local page = browser:open("file://" .. path)
    assert.is_true(page:eval("window.lgprofReady === true"))
    assert.equal("lgprof: prog", page:eval("document.title"))
    assert.equal("prog", page:eval("document.querySelector('#head h1').textContent"))
    local head = page:eval("document.getElementById('head').textContent")
    assert.truthy(head:find(FX.prog, 1, true), head)
    -- every text the page shows, the column help, and the call-graph panel
    -- of each function (clicked in turn)
    local shown = { page:eval("document.body.innerText"),
      page:eval("Array.from(document.querySelectorAll('[title]')).map(function (e) {"
        .. " return e.getAttribute('title'); }).join('\\n')") }
    local n = page:eval("document.querySelectorAll('#flat tbody tr').length")
    assert.equal(5, n)
    for k = 0, n - 1 do
      page:settle(("document.querySelectorAll('#flat tbody tr')[%d].click()"):format(k), 30)
      shown[#shown + 1] = page:eval("document.getElementById('panel').innerText")
    end
    -- the threads and binaries tables (helpers.perfgroups: threads 100,
    -- 101 and 200; leaves in prog and libw.so), and the page as it is
    -- when a thread's row, then a binary's, is clicked
    assert.equal(3, page:eval("document.querySelectorAll('#thread-table tbody tr').length"))
    assert.equal(2, page:eval("document.querySelectorAll('#dso-table tbody tr').length"))
    for _, which in ipairs({ "#thread-table", "#dso-table" }) do
      page:settle(("document.querySelector('%s tbody tr').click()"):format(which), 100)
      assert.truthy(page:eval("document.getElementById('groups-note').textContent"):find("This page shows", 1, true))
      shown[#shown + 1] = page:eval("document.body.innerText")
      page:settle("document.querySelectorAll('#flat tbody tr')[0].click()", 30)
      shown[#shown + 1] = page:eval("document.getElementById('panel').innerText")
      page:settle("document.getElementById('groups-all').click()", 100)
    end
    for i, text in ipairs(shown) do assert.same({}, offences(text), "page text " .. i) end
    assert.same({}, page.errors)
    page:close()
  end)
end)
