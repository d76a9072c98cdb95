-- --by=thread|process|comm|dso and profile:groups (issue 31, section 4): the
-- perf.data of helpers.perfgroups (two processes, three threads, a program
-- and a library, written by hand; its samples S1..S6 are listed there).
-- Every expected number is counted by hand from those samples (the
-- derivation is in the comments); each sample weighs 1 ms of cpu-clock.
--
-- Where perf runs, the same file is read by `perf report --sort pid` and
-- `--sort comm,dso`: their sample counts are the oracle too.
local H = require "helpers"
local util = H.util
local ew = H.elfwriter
local lgprof = require "lgprof"

local TMP = util.mktempdir("lgprof-groups")
local FX = require("helpers.perfgroups").write(TMP)
local PROG, LIB, PERF = FX.prog, FX.lib, FX.perf

local function run(argv)
  local a = table.move(argv, 1, #argv, 1, {})
  a[#a + 1] = PERF
  return H.cmd.lgprof(a, { cwd = TMP })
end

local function open()
  return assert(lgprof.open(nil, PERF, { kallsyms = "" }))
end

-- s as a Lua pattern that matches it literally
local function literal(s) return (s:gsub("%p", "%%%0")) end

local function close(a, b, what)
  assert(math.abs(a - b) < 1e-9, ("%s: %.12g, expected %.12g"):format(what or "", a, b))
end

-- the groups' { label, samples, hottest names } of a list, nested
local function shape(list)
  local t = {}
  for i, g in ipairs(list) do
    local hot = {}
    for k, h in ipairs(g.hottest) do hot[k] = h.name .. "=" .. h.samples end
    t[i] = { g.label, g.samples, table.concat(hot, " "), #g.groups > 0 and shape(g.groups) or nil }
  end
  return t
end

local function groups_of(p, keys)
  local list = {}
  for g in p:groups(keys) do list[#list + 1] = g end
  return list
end

describe("the samples by thread, process, command and binary", function()
  it("groups by thread: samples, seconds, error, share and hottest functions", function()
    local p <close> = open()
    local list = groups_of(p, { "thread" })
    -- thread 100: S1 3 + S2 5 = 8 (lib_hot 5, main 3); thread 200: S5 6 +
    -- S6 1 = 7 (lib_cold 6, work_a 1); thread 101: S3 4 + S4 2 = 6 (lib_hot
    -- 4, work_b 2); most samples first
    assert.same({ { "100:prog", 8, "lib_hot=5 main=3" }, { "200:other", 7, "lib_cold=6 work_a=1" },
                  { "101:worker", 6, "lib_hot=4 work_b=2" } }, shape(list))
    local g = list[1]
    assert.equal(100, g.tid)
    assert.equal(100, g.pid)
    assert.equal("prog", g.comm)
    close(0.008, g.seconds, "seconds")
    -- one standard error: sqrt(8) samples x 1 ms
    close(math.sqrt(8) * 0.001, g.error, "error")
    close(8 / 21, g.share, "share")
    close(5 / 8, g.hottest[1].share, "hottest share")
    assert.equal(LIB, g.hottest[1].dso)
    assert.equal(101, list[3].tid)
    assert.equal(100, list[3].pid)
  end)

  it("groups by process, by command name and by binary", function()
    local p <close> = open()
    -- process 100: 8 + 6 = 14 (lib_hot 9, main 3, work_b 2); 200: 7
    assert.same({ { "100:prog", 14, "lib_hot=9 main=3 work_b=2" },
                  { "200:other", 7, "lib_cold=6 work_a=1" } }, shape(groups_of(p, { "process" })))
    assert.same({ { "prog", 8, "lib_hot=5 main=3" }, { "other", 7, "lib_cold=6 work_a=1" },
                  { "worker", 6, "lib_hot=4 work_b=2" } }, shape(groups_of(p, "comm")))
    -- by the leaf's binary: the library S2 5 + S3 4 + S5 6 = 15 (lib_hot 9,
    -- lib_cold 6); the program S1 3 + S4 2 + S6 1 = 6
    local d = groups_of(p, "dso")
    assert.same({ { LIB, 15, "lib_hot=9 lib_cold=6" }, { PROG, 6, "main=3 work_b=2 work_a=1" } }, shape(d))
    close(15 / 21, d[1].share, "lib share")
  end)

  it("nests comm,dso as perf report --sort comm,dso", function()
    local p <close> = open()
    -- prog: lib 5 (S2), prog 3 (S1); other: lib 6 (S5), prog 1 (S6);
    -- worker: lib 4 (S3), prog 2 (S4); shares of all 21 samples
    local list = groups_of(p, "comm,dso")
    assert.same({
      { "prog", 8, "lib_hot=5 main=3", { { LIB, 5, "lib_hot=5" }, { PROG, 3, "main=3" } } },
      { "other", 7, "lib_cold=6 work_a=1", { { LIB, 6, "lib_cold=6" }, { PROG, 1, "work_a=1" } } },
      { "worker", 6, "lib_hot=4 work_b=2", { { LIB, 4, "lib_hot=4" }, { PROG, 2, "work_b=2" } } },
    }, shape(list))
    close(5 / 21, list[1].groups[1].share, "prog/lib share")
    assert.equal("dso", list[1].groups[1].key)
  end)

  it("names the recorded program, not the binary most samples end in", function()
    local p <close> = open()
    -- process 100 has the most samples (14 of 21); its main thread is
    -- "prog", which runs PROG; the library holds 15 of the 21 leaves
    assert.equal(PROG, p.image)
    assert.equal("prog", p.command)
    local _, out = run({ "--by=dso", "-b" })
    assert.matches("^Samples by dso of " .. literal(PROG) .. ": 21 samples of cpu%-clock%.\n", out)
  end)

  it("refuses bad keys as misuse", function()
    local p <close> = open()
    assert.has_error(function() p:groups({ "cpu" }) end)
    assert.has_error(function() p:groups("comm,comm") end)
  end)

  it("writes the text table by default, the groups of what --tid and --dso keep", function()
    local status, out, err = run({ "--by=thread" })
    assert.equal(0, status, err)
    assert.equal("", err)
    -- the rows: samples, seconds ± error, share, label, hottest
    assert.matches("\n%s*8%s+0%.008 ± 0%.003%s+38%.10%%%s+100:prog%s+lib_hot %(62%.5%%%), main %(37%.5%%%)\n", out)
    assert.matches("\n%s*7%s+0%.007 ± 0%.003%s+33%.33%%%s+200:other%s+lib_cold %(85%.7%%%), work_a %(14%.3%%%)\n", out)
    assert.matches("\n%s*6%s+0%.006 ± 0%.002%s+28%.57%%%s+101:worker%s+lib_hot %(66%.7%%%), work_b %(33%.3%%%)\n", out)
    -- --tid=101: its 6 samples are the whole (100%): lib 4, prog 2
    status, out, err = run({ "--by=dso", "--tid=101" })
    assert.equal(0, status, err)
    assert.matches("\n%s*4%s+0%.004 ± 0%.002%s+66%.67%%%s+" .. literal(LIB) .. "%s+lib_hot %(100%.0%%%)\n", out)
    assert.matches("\n%s*2%s+0%.002 ± 0%.001%s+33%.33%%%s+" .. literal(PROG) .. "%s+work_b %(100%.0%%%)\n", out)
    -- --dso=LIB by thread: 100 5 (S2), 200 6 (S5), 101 4 (S3) of 15
    status, out, err = run({ "--by=thread", "--dso=" .. LIB, "-b" })
    assert.equal(0, status, err)
    local rows = {}
    for n, label in out:gmatch("\n%s*(%d+)%s+[%d.]+ ± [%d.]+%s+[%d.]+%%%s+(%S+)") do
      rows[#rows + 1] = label .. "=" .. n
    end
    assert.same({ "200:other=6", "100:prog=5", "101:worker=4" }, rows)
  end)

  it("nests comm,dso in the text table, --by repeated as a comma list", function()
    local s1, o1, e1 = run({ "--by=comm,dso" })
    local s2, o2 = run({ "--by=comm", "--by=dso" })
    assert.equal(0, s1, e1)
    assert.equal(0, s2)
    assert.equal(o1, o2)
    -- the inner rows indented under their command
    local at = o1:match("\n([^\n]*%%  )prog ")
    assert.is_string(at)
    assert.matches("\n" .. ("."):rep(#at) .. "  " .. literal(LIB) .. " +lib_hot %(100%.0%%%)\n", o1)
    local status, _, err = run({ "--by=comm,comm" })
    assert.equal(2, status)
    assert.matches("given twice", err)
  end)

  it("writes the groups as JSON", function()
    local ok, cjson = pcall(require, "cjson")
    if not ok then return pending("lua-cjson not installed") end
    local status, out, err = run({ "--by=comm,dso", "--format=json" })
    assert.equal(0, status, err)
    local doc = cjson.decode(out)
    assert.equal("lgprof-groups", doc.format)
    assert.same({ "comm", "dso" }, doc.by)
    assert.equal(21, doc.samples)
    assert.equal("seconds", doc.unit)
    assert.equal("cpu-clock", doc.event)
    assert.equal(PROG, doc.program)
    assert.equal("prog", doc.command)
    assert.equal("prog", doc.groups[1].comm)
    assert.equal(8, doc.groups[1].samples)
    assert.equal(LIB, doc.groups[1].groups[1].dso)
    assert.equal(5, doc.groups[1].groups[1].samples)
    assert.equal("lib_hot", doc.groups[1].groups[1].hottest[1].name)
    close(5 / 21, doc.groups[1].groups[1].share)
    close(math.sqrt(5) * 0.001, doc.groups[1].groups[1].error)
  end)

  it("writes the groups as CSV, a row per innermost group", function()
    local status, out, err = run({ "--by=thread,dso", "--format=csv" })
    assert.equal(0, status, err)
    local lines = util.lines(out)
    assert.equal("tid,thread_comm,dso,samples,seconds,error_seconds,share,hottest", lines[1])
    -- thread 100: lib 5 then prog 3; 200: lib 6, prog 1; 101: lib 4, prog 2
    local want = { { 100, "prog", LIB, 5 }, { 100, "prog", PROG, 3 }, { 200, "other", LIB, 6 },
                   { 200, "other", PROG, 1 }, { 101, "worker", LIB, 4 }, { 101, "worker", PROG, 2 } }
    assert.equal(#want + 1, #lines)
    for i, w in ipairs(want) do
      local tid, comm, dso, n, sec = lines[i + 1]:match("^(%d+),([^,]*),([^,]*),(%d+),([^,]*),")
      assert.same({ w[1], w[2], w[3], w[4] }, { tonumber(tid), comm, dso, tonumber(n) }, lines[i + 1])
      close(w[4] * 0.001, tonumber(sec), lines[i + 1])
    end
  end)

  it("is a one-line usage error on a gmon profile", function()
    local dir = util.mktempdir("lgprof-groups-gmon")
    local g = H.gmonwriter
    local exe = ew.write(dir .. "/a.out", { text_addr = 0x401000, text_size = 0x1000, symbols = {
      { name = "main", addr = 0x401000, size = 0x100, type = "func" } } })
    local h = g.glibc_hist(0x401000, 0x402000, 100)
    for i = 1, h.n_bins do h.bins[i] = 0 end
    h.bins[1] = 3
    g.write(dir .. "/gmon.out", { hist = { h }, arcs = {} })
    local status, out, err = H.cmd.lgprof({ "--by=thread", "a.out", "gmon.out" }, { cwd = dir })
    assert.equal(2, status)
    assert.equal("", out)
    local first = err:match("^[^\n]*")
    assert.matches("^lgprof: %-%-by needs a perf%.data profile %(gmon%.out records no events, threads or binaries%)$",
      first)
  end)

  it("refuses a key lgprof does not know, in one line", function()
    local status, out, err = run({ "--by=cpu" })
    assert.equal(2, status)
    assert.equal("", out)
    assert.matches("^lgprof: %-%-by: 'cpu' is not a key: thread, process, comm or dso\n", err)
  end)
end)

describe("the groups against perf report on the same file", function()
  local HAVE = util.have("perf")
  if not HAVE then
    pending("perf is not installed")
    return
  end
  -- perf report --stdio -n: "overhead samples key..." rows; -F makes the
  -- columns exactly these
  local function perf_rows(sort)
    local status, out, err = H.cmd.shell(("perf report -i %s --stdio -n -g none --sort %s -F overhead,sample,%s"
      .. " --symfs=/ 2>&1"):format(util.q(PERF), sort, sort))
    if status ~= 0 then return nil, out .. err end
    local rows = {}
    for l in out:gmatch("[^\n]+") do
      if not l:match("^#") and l:match("%S") then
        local n, rest = l:match("^%s*[%d.]+%%%s+(%d+)%s+(.-)%s*$")
        if n then rows[#rows + 1] = { tonumber(n), rest } end
      end
    end
    return rows
  end

  it("counts the samples of each thread as perf report --sort pid", function()
    local rows, why = perf_rows("pid")
    if not rows then return pending("perf report failed: " .. tostring(why)) end
    -- perf's key: "TID:comm"
    assert.equal(3, #rows)
    local perf = {}
    for _, r in ipairs(rows) do perf[r[2]] = r[1] end
    local p <close> = open()
    local ours = {}
    for g in p:groups("thread") do ours[g.label] = g.samples end
    assert.same(perf, ours)
  end)

  it("counts the samples of each command and binary as perf report --sort comm,dso", function()
    local rows, why = perf_rows("comm,dso")
    if not rows then return pending("perf report failed: " .. tostring(why)) end
    assert.equal(6, #rows)
    local perf = {}
    for _, r in ipairs(rows) do
      local comm, dso = r[2]:match("^(%S+)%s+(%S+)$")
      perf[comm .. " " .. dso] = r[1]
    end
    local p <close> = open()
    local ours = {}
    for g in p:groups("comm,dso") do
      -- perf names a binary by its file name
      for _, d in ipairs(g.groups) do ours[g.comm .. " " .. d.dso:match("[^/]*$")] = d.samples end
    end
    assert.same(perf, ours)
  end)
end)
