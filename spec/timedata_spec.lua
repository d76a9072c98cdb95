-- Each sample's time, for scripts and other tools (issue 32, sections 2
-- and 3): profile:sample_times(), profile:slice{}, --format=json --sample-times,
-- speedscope's per-thread sampled profiles and pprof's thread labels, on a
-- recording written here with helpers.perfwriter for a program compiled
-- here (helpers.stackprog). Every number below is derived by hand from this
-- timeline (ms after T0 = 5 s, the first sample; each a cpu-clock sample
-- of the period given, whose time ends its period):
--
--   thread 100 "prog":   0 leaf<-middle<-main (1 ms), 2 other<-main (1 ms),
--                        5 leaf<-middle<-main (1 ms), 9 other<-main (1 ms)
--   thread 101 "worker": 1 other<-main (2 ms), 4 leaf<-middle<-main (2 ms),
--                        6 leaf<-middle<-main (2 ms), 10 other<-main (2 ms)
--
-- so thread 100 ran in [-1, 0], [1, 2], [4, 5], [8, 9] ms and thread 101 in
-- [-1, 1], [2, 4], [4, 6], [8, 10]. Thread 100's records are written before
-- 101's: the file is out of time order, and is read in time order. The
-- recording spans 0 to 10 ms; all samples weigh 4 + 8 = 12 ms.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"
local lgprof = require "lgprof"
local cjson = require "cjson"

local MS, T0 = 1000000, 5000000000
local ST_CPU = 0x10000 | pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN -- IDENTIFIER first
local CONTEXT_SWITCH = 1 << 26
local L, O = { "leaf", "middle", "main" }, { "other", "main" }

local tmp, prog

-- { tid, ms, period in ms, frames leaf first }, in the order written
local SAMPLES = {
  { 100, 0, 1, L }, { 100, 2, 1, O }, { 100, 5, 1, L }, { 100, 9, 1, O },
  { 101, 1, 2, O }, { 101, 4, 2, L }, { 101, 6, 2, L }, { 101, 10, 2, O },
}

-- The timeline; switches: with switch records (PERF_RECORD_SWITCH), thread
-- 100 switched out (not preempted) at 2.5 ms and in at 4 ms.
local function recording(switches)
  local f = pw.new({ attrs = { { type = 1, config = 0, sample_type = ST_CPU, period = MS, ids = { 1 },
    name = "cpu-clock", flags = switches and CONTEXT_SWITCH or 0 } } })
  sp.map(f, prog)
  f:comm(sp.PID, 101, "worker", 20, false)
  for _, s in ipairs(SAMPLES) do
    local c = { pw.CONTEXT_USER }
    for k, n in ipairs(s[4]) do c[#c + 1] = sp.addr(prog, n, k == 1 and 4 or 8) end
    f:sample({ attr = 1, ip = c[2], pid = sp.PID, tid = s[1], time = T0 + s[2] * MS, period = s[3] * MS,
      chain = c })
  end
  if switches then
    f:switch(sp.PID, 100, T0 + 2500000, { out = true, preempt = false })
    f:switch(sp.PID, 100, T0 + 4 * MS)
  end
  f:finished_round()
  f:feature("event_desc", true)
  f:feature("hostname", "spec")
  return f
end

-- "tid ms period_ms main;middle;leaf" of a sample, root first
local function line(tid, time, seconds, names)
  return ("%d %d %d %s"):format(tid, math.floor(time * 1e3 + 0.5), math.floor(seconds * 1e3 + 0.5),
    table.concat(names, ";"))
end

local function frame_names(frames)
  local names = {}
  for i, f in ipairs(frames) do names[i] = f.name end
  return names
end

-- the samples of a profile (opened with sample_times) as line()s
local function sample_lines(p, filter)
  local stacks, got = {}, {}
  for st in p:stacks() do stacks[#stacks + 1] = st end
  for s in p:sample_times(filter) do
    got[#got + 1] = line(s.tid, s.time, s.seconds, frame_names(stacks[s.stack].frames))
  end
  return got
end

local ALL = { -- the timeline in time order
  "100 0 1 main;middle;leaf", "101 1 2 main;other", "100 2 1 main;other", "101 4 2 main;middle;leaf",
  "100 5 1 main;middle;leaf", "101 6 2 main;middle;leaf", "100 9 1 main;other", "101 10 2 main;other",
}

local function only(tid)
  local out = {}
  for _, l in ipairs(ALL) do
    if l:match("^%d+") == tostring(tid) then out[#out + 1] = l end
  end
  return out
end

describe("each sample's time", function()
  setup(function()
    tmp = util.mktempdir("timedata")
    prog = sp.shared(tmp)
    pw.write(tmp .. "/two.data", recording():bytes())
    pw.write(tmp .. "/sw.data", recording(true):bytes())
  end)
  teardown(function() if os.getenv("KEEP") then print(tmp) else util.rmtree(tmp) end end)

  describe("profile:sample_times()", function()
    it("walks the samples lazily in time order, with their thread and stack", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      assert.same(ALL, sample_lines(p))
      local first = p:sample_times()()
      assert.equal("prog", first.comm)
      assert.near(5.0, first.perf_time, 1e-9)
      assert.equal(sp.PID, first.pid)
    end)

    it("is also a list whose entries are made when asked for: #, [i], ipairs", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      local all = p:sample_times()
      assert.equal(8, #all)
      assert.near(0.010, all[8].time, 1e-12)
      assert.is_nil(all[9])
      assert.is_nil(all[0])
      assert.is_nil(all.time)
      local worker = p:sample_times({ tid = 101 })
      assert.equal(4, #worker)
      local times = {}
      for i, s in ipairs(worker) do times[i] = math.floor(s.time * 1e3 + 0.5) end
      assert.same({ 1, 4, 6, 10 }, times)
      -- the iteration and the list are independent
      assert.equal(101, worker().tid)
      assert.equal(4, #worker)
      assert.matches("^lgprof.SampleTimes", tostring(worker))
      -- a closed profile's samples: an error
      p:close()
      assert.has_error(function() return all[1] end)
      assert.has_error(function() return all() end)
    end)

    it("says which are off-CPU intervals, whose time is their start (--event=wall)", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/sw.data", { event = "wall", sample_times = true }))
      local got = {}
      for s in p:sample_times({ tid = 100 }) do
        got[#got + 1] = ("%.1f %.1f %s"):format(s.time * 1e3, s.seconds * 1e3, tostring(s.off_cpu))
      end
      -- thread 100's samples, and its interval from 2.5 to 4 ms
      assert.same({ "0.0 1.0 false", "2.0 1.0 false", "2.5 1.5 true", "5.0 1.0 false", "9.0 1.0 false" }, got)
    end)

    it("keeps the samples of the threads or processes asked for", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      assert.same(only(101), sample_lines(p, { tid = 101 }))
      assert.same(only(100), sample_lines(p, { tid = { 100, 7 } }))
      assert.same(ALL, sample_lines(p, { pid = sp.PID }))
      assert.same({}, sample_lines(p, { pid = 1 }))
      for s in p:sample_times({ tid = 101 }) do assert.equal("worker", s.comm) end
    end)

    it("a profile filtered by thread keeps that thread's sample times", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      local w <close> = assert(p:filter({ tid = 101 }))
      assert.same(only(101), sample_lines(w))
      local q <close> = assert(p:filter({ tid = 100 }))
      assert.same(only(100), sample_lines(q))
    end)

    it("raises for misuse: no times kept, a gmon profile, an unknown key", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data"))
      assert.has_error(function() p:sample_times() end,
        "profile:sample_times(): open the profile with the option sample_times = true")
      local q <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      assert.has_error(function() q:sample_times({ thread = 1 }) end)
      assert.has_error(function() q:sample_times({ tid = "101" }) end)
      assert.has_error(function() q:sample_times(101) end)
    end)
  end)

  describe("profile:slice{}", function()
    it("restricts the profile to a range: FROM included, TO excluded", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      assert.near(0.012, p.total_time, 1e-12)
      -- 0 to 4 ms (excluded): the samples at 0, 1, 2 ms: 1 + 2 + 1 = 4 ms
      local a <close> = assert(p:slice({ from = 0, to = 0.004 }))
      assert.near(0.004, a.total_time, 1e-12)
      assert.same({ ALL[1], ALL[2], ALL[3] }, sample_lines(a))
      -- from 50% (5 ms, included) to the end, which includes the last
      -- sample: 5, 6, 9, 10 ms: 1 + 2 + 1 + 2 = 6 ms
      local b <close> = assert(p:slice({ from = "50%" }))
      assert.near(0.006, b.total_time, 1e-12)
      assert.same({ ALL[5], ALL[6], ALL[7], ALL[8] }, sample_lines(b))
      -- --time-range's text does the same
      local c <close> = assert(p:slice("50%,100%"))
      assert.near(0.006, c.total_time, 1e-12)
    end)

    it("takes several ranges: a sample in one of them is kept", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      -- [0, 1 ms) and [9 ms, end]: the samples at 0, 9 and 10 ms, 1 + 1 + 2 ms
      local s <close> = assert(p:slice({ { from = 0, to = 0.001 }, { from = 0.009 } }))
      assert.near(0.004, s.total_time, 1e-12)
      assert.same({ ALL[1], ALL[7], ALL[8] }, sample_lines(s))
      local by = {}
      for t in s:threads() do by[t.tid] = t.seconds end
      assert.near(0.002, by[100], 1e-12)
      assert.near(0.002, by[101], 1e-12)
    end)

    it("a range outside the recording: nil and a message with the recording's span", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data"))
      local s, msg = p:slice({ from = 20, to = 30 })
      assert.is_nil(s)
      assert.equal(tmp .. "/two.data: --time-range=20,30: outside the recording, whose samples run from 0"
        .. " to 0.010000 s (perf's time 5.000000 to 5.010000)", msg)
    end)

    it("raises for misuse", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data"))
      assert.has_error(function() p:slice(42) end)
      assert.has_error(function() p:slice({ from = -1, to = 2 }) end)
      assert.has_error(function() p:slice({ from = 2, till = 3 }) end)
      assert.has_error(function() p:slice({ from = true }) end)
      assert.has_error(function() p:slice({}) end)
      local s <close> = assert(p:slice({ to = "50%" }))
      assert.has_error(function() s:slice({ from = 0 }) end,
        "slice: this profile is already a part of its recording (option time_range): slice the whole"
        .. " recording's profile")
      local f <close> = assert(p:filter({ tid = 101 }))
      assert.has_error(function() f:slice({ from = 0 }) end)
    end)
  end)

  describe("--format=json --sample-times", function()
    it("gives each thread's samples in time order with their times and stacks", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=json", "--sample-times", "two.data" }, { cwd = tmp }))
      local st = doc.sample_times
      assert.near(5.0, st.first, 1e-12)
      assert.near(5.01, st.last, 1e-12)
      local name = {}
      for _, f in ipairs(doc.functions) do name[f.index] = f.name end
      local got = {}
      for _, th in ipairs(st.threads) do
        for _, s in ipairs(th.samples) do
          local names = {}
          for i, ix in ipairs(st.stacks[s.stack + 1].frames) do names[i] = name[ix] end
          got[#got + 1] = line(th.tid, s.time, s.seconds, names)
          assert.equal(th.tid, st.stacks[s.stack + 1].tid)
          assert.is_false(st.stacks[s.stack + 1].off_cpu)
        end
      end
      local want = only(100)
      for _, l in ipairs(only(101)) do want[#want + 1] = l end
      assert.same(want, got)
      assert.same({ "prog", "worker" }, { st.threads[1].comm, st.threads[2].comm })
      assert.same({ sp.PID, sp.PID }, { st.threads[1].pid, st.threads[2].pid })
    end)

    it("says which stacks are off-CPU intervals' (--event=wall)", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=json", "--sample-times", "--event=wall", "sw.data" },
        { cwd = tmp }))
      local st = doc.sample_times
      local got = {}
      for _, s in ipairs(st.threads[1].samples) do
        got[#got + 1] = ("%.1f %s"):format(s.time * 1e3, tostring(st.stacks[s.stack + 1].off_cpu))
      end
      -- thread 100's interval at 2.5 ms among its samples
      assert.same({ "0.0 false", "2.0 false", "2.5 true", "5.0 false", "9.0 false" }, got)
    end)

    it("with --tid and --time-range, the samples kept", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=json", "--sample-times", "--tid=101",
        "--time-range=0,50%", "two.data" }, { cwd = tmp }))
      local th = doc.sample_times.threads
      assert.equal(1, #th)
      local times = {}
      for i, s in ipairs(th[1].samples) do times[i] = math.floor(s.time * 1e3 + 0.5) end
      -- 101's samples before 50% (5 ms, excluded): 1 and 4 ms
      assert.same({ 1, 4 }, times)
    end)

    it("from Lua: lgprof.report.json's option sample_times", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      local path = tmp .. "/api.json"
      assert(lgprof.report.json(p, path, { sample_times = true }))
      local doc = cjson.decode(util.slurp(path))
      assert.equal(2, #doc.sample_times.threads)
      assert.equal(4, #doc.sample_times.threads[2].samples)
      -- misuse: a profile opened without the times
      local q <close> = assert(lgprof.open(nil, tmp .. "/two.data"))
      assert.has_error(function() lgprof.report.json(q, path, { sample_times = true }) end)
    end)

    it("without the option, no sample_times; the option is for json only", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=json", "two.data" }, { cwd = tmp }))
      assert.is_nil(doc.sample_times)
      local status = cmd.lgprof({ "--format=csv", "--sample-times", "two.data" }, { cwd = tmp })
      assert.equal(2, status)
      -- not with --by's groups, and not for a gmon.out (no times)
      assert.matches("^%-%-sample%-times cannot be combined with %-%-by", cmd.one_line_error(2,
        cmd.lgprof({ "--format=json", "--by=thread", "--sample-times", "two.data" }, { cwd = tmp })))
      assert.matches("^%-%-sample%-times needs a perf.data profile", cmd.one_line_error(2,
        cmd.lgprof({ "--format=json", "--sample-times", "prog", "gmon.out" }, { cwd = tmp })))
    end)
  end)

  describe("--format=speedscope of a perf.data", function()
    -- a sampled profile's samples as "frame;frame weight" (root first; "" an
    -- empty sample, the time between two)
    local function sampled(doc, prof)
      local got = {}
      for i, st in ipairs(prof.samples) do
        local names = {}
        for k, f in ipairs(st) do names[k] = doc.shared.frames[f + 1].name end
        got[i] = table.concat(names, ";") .. " " .. ("%d"):format(prof.weights[i])
      end
      return got
    end
    local LS, OS = "main;middle;leaf", "main;other"

    it("one sampled profile per thread: its samples in time order, the time between them empty", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=speedscope", "two.data" }, { cwd = tmp }))
      -- the whole first, as before: the tree of 12 ms
      assert.equal(3, #doc.profiles)
      assert.equal("evented", doc.profiles[1].type)
      assert.equal(12000, doc.profiles[1].endValue)
      local a, b = doc.profiles[2], doc.profiles[3]
      assert.same({ "sampled", "prog pid: 100 tid: 100", "nanoseconds", 0 }, { a.type, a.name, a.unit, a.startValue })
      assert.same({ "sampled", "worker pid: 100 tid: 101", "nanoseconds", 0 }, { b.type, b.name, b.unit, b.startValue })
      -- one time axis from the earliest start (-1 ms) to the last end (10 ms)
      assert.equal(11000000, a.endValue)
      assert.equal(11000000, b.endValue)
      -- 100 ran in [0, 1], [2, 3], [5, 6], [9, 10] ms of the axis
      assert.same({ LS .. " 1000000", " 1000000", OS .. " 1000000", " 2000000", LS .. " 1000000", " 3000000",
        OS .. " 1000000" }, sampled(doc, a))
      -- 101 in [0, 2], [3, 5], [5, 7], [9, 11]
      assert.same({ OS .. " 2000000", " 1000000", LS .. " 2000000", LS .. " 2000000", " 2000000",
        OS .. " 2000000" }, sampled(doc, b))
    end)

    it("the samples kept: a thread, a time range", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=speedscope", "--tid=101", "--time-range=0.003,",
        "two.data" }, { cwd = tmp }))
      assert.equal(2, #doc.profiles)
      -- 101's samples at 4, 6 and 10 ms: the axis from 2 ms (4's start)
      local b = doc.profiles[2]
      assert.equal("worker pid: 100 tid: 101", b.name)
      assert.equal(8000000, b.endValue)
      assert.same({ LS .. " 2000000", LS .. " 2000000", " 2000000", OS .. " 2000000" }, sampled(doc, b))
    end)

    it("an off-CPU interval from its time on (--event=wall)", function()
      local doc = cjson.decode(cmd.lgprof_out({ "--format=speedscope", "--event=wall", "sw.data" }, { cwd = tmp }))
      local a = doc.profiles[2]
      assert.equal("prog pid: 100 tid: 100", a.name)
      -- out at 2.5 ms (3.5 on the axis) for 1.5 ms, after the sample that ended at 2 ms (3)
      local got = sampled(doc, a)
      assert.equal(" 500000", got[4])
      assert.matches("%[off%-cpu: blocked %(S or D%)%] 1500000$", got[5])
      table.remove(got, 5)
      table.remove(got, 4)
      assert.same({ LS .. " 1000000", " 1000000", OS .. " 1000000", LS .. " 1000000", " 3000000",
        OS .. " 1000000" }, got)
    end)

    it("validates against speedscope's published schema", function()
      local python = "/usr/bin/python3"
      if not (util.have(python) and util.exec_ok(util.q(python) .. " -c 'import jsonschema' 2>/dev/null")) then
        return pending("python3 with jsonschema (python3-jsonschema) not installed")
      end
      local paths = {}
      for i, argv in ipairs({ { "two.data" }, { "--event=wall", "sw.data" }, { "--tid=101", "two.data" } }) do
        paths[i] = ("%s/v%d.speedscope.json"):format(tmp, i)
        table.insert(argv, 1, "--format=speedscope")
        util.spit(paths[i], cmd.lgprof_out(argv, { cwd = tmp }))
      end
      -- and one that breaks it (weights of another length than samples' are
      -- speedscope's import error, not the schema's: a bad unit instead)
      paths[#paths + 1] = tmp .. "/bad.speedscope.json"
      util.spit(paths[#paths], (util.slurp(paths[1]):gsub('"unit":"nanoseconds"', '"unit":"ns"', 1)))
      local script = util.spit(tmp .. "/validate.py", table.concat({
        "import json, sys, jsonschema",
        "v = jsonschema.Draft7Validator(json.load(open(sys.argv[1])))",
        "for p in sys.argv[2:]:",
        "    errs = list(v.iter_errors(json.load(open(p))))",
        "    print('ok' if not errs else 'bad')",
      }, "\n") .. "\n")
      local argv = { python, script, cmd.ROOT .. "/spec/fixtures/speedscope/file-format-schema.json" }
      table.move(paths, 1, #paths, #argv + 1, argv)
      local status, out, err = cmd.run(argv, { timeout = 300 })
      assert(status == 0, cmd.show(status, out, err))
      assert.equal("ok\nok\nok\nbad\n", out)
    end)

    it("from Lua, a profile opened without the samples' times: the tree alone", function()
      local p <close> = assert(lgprof.open(nil, tmp .. "/two.data"))
      local doc = cjson.decode((assert(require("lgprof.speedscope").encode(p))))
      assert.equal(1, #doc.profiles)
      local q <close> = assert(lgprof.open(nil, tmp .. "/two.data", { sample_times = true }))
      doc = cjson.decode((assert(require("lgprof.speedscope").encode(q))))
      assert.equal(3, #doc.profiles)
    end)
  end)

  describe("--format=pprof of a perf.data", function()
    -- the samples as "tid thread_comm comm pid leaf;...;root samples nanoseconds"
    local function labelled(prof)
      local function str(i) return prof.string_table[i + 1] end
      local fname, floc = {}, {}
      for _, f in ipairs(prof["function"]) do fname[f.id] = str(f.name) end
      for _, l in ipairs(prof.location) do floc[l.id] = fname[l.line[1].function_id] end
      local got = {}
      for _, smp in ipairs(prof.sample) do
        local names, lab = {}, {}
        for i, id in ipairs(smp.location_id) do names[i] = floc[id] end
        for _, l in ipairs(smp.label) do
          assert.is_nil(lab[str(l.key)], "a label twice")
          lab[str(l.key)] = (l.str or 0) ~= 0 and str(l.str) or l.num
        end
        got[#got + 1] = ("%d %s %s %d %s %d %d"):format(lab.tid, lab.thread_comm, lab.comm, lab.pid,
          table.concat(names, ";"), smp.value[1], smp.value[2])
      end
      table.sort(got)
      return got
    end

    it("labels each sample with its thread: pid, tid, comm and thread_comm", function()
      local raw = cmd.lgprof_out({ "--format=pprof", "two.data" }, { cwd = tmp })
      util.spit(tmp .. "/two.pb.gz", raw)
      local status, out, err = cmd.run({ "gzip", "-dc", tmp .. "/two.pb.gz" })
      assert(status == 0, err)
      local prof = H.protobuf.profile(out)
      -- each thread's two samples of each stack: 1 ms each for 100, 2 ms for 101
      assert.same({
        "100 prog prog 100 leaf;middle;main 2 2000000", "100 prog prog 100 other;main 2 2000000",
        "101 worker prog 100 leaf;middle;main 2 4000000", "101 worker prog 100 other;main 2 4000000",
      }, labelled(prof))
      -- pprof itself (Debian's golang-go), when installed: the time by tag,
      -- and one thread's (tid 101: 4 + 4 ms of 12)
      if not util.have("/usr/bin/go") then return end
      local env = ("HOME=%s GOCACHE=%s GOPATH=%s GOPROXY=off GOTOOLCHAIN=local GOFLAGS= "
        .. "GOTELEMETRY=off PPROF_TMPDIR=%s "):format(util.q(tmp), util.q(tmp .. "/gocache"),
        util.q(tmp .. "/gopath"), util.q(tmp .. "/pprof"))
      local st, tags, terr = cmd.run({ "/usr/bin/go", "tool", "pprof", "-tags", tmp .. "/two.pb.gz" },
        { prefix = env, timeout = 120, cwd = tmp })
      assert(st == 0, cmd.show(st, tags, terr))
      assert.matches("tid: Total 12%.0ms\n%s+8%.0ms %(66%.67%%%): 101\n%s+4%.0ms %(33%.33%%%): 100\n", tags)
      assert.matches("thread_comm: Total 12%.0ms\n%s+8%.0ms %(66%.67%%%): worker\n%s+4%.0ms %(33%.33%%%): prog\n",
        tags)
      assert.matches("comm: Total 12%.0ms\n%s+12%.0ms %(%s*100%%%): prog\n", tags)
      local st2, top, err2 = cmd.run({ "/usr/bin/go", "tool", "pprof", "-top", "-tagfocus=tid=101",
        tmp .. "/two.pb.gz" }, { prefix = env, timeout = 120, cwd = tmp })
      assert(st2 == 0, cmd.show(st2, top, err2))
      assert.matches("accounting for 8ms, 66.67%% of 12ms total", top)
    end)
  end)
end)
