-- Off-CPU and wall-clock time, and time ranges, of perf.data recordings
-- (issue 32): --event=off-cpu, --event=wall, --off-cpu-state and
-- --time-range, read from recordings written here with helpers.perfwriter
-- for a program compiled here (real symbols), in the three forms perf
-- records switches in: the sched:sched_switch tracepoint with its tracing
-- data ("tp"), PERF_RECORD_SWITCH records ("sw"), and both ("both", as
-- hotspot records). Every number below is derived by hand from this
-- timeline (ms after T0 = 5 s; "cpu" is a cpu-clock sample of 1 ms;
-- "out" a sched_switch sample at t and, 10 us later, a SWITCH OUT record;
-- "in" a SWITCH IN record):
--
--   thread 100: cpu 0 leaf<-middle<-main, cpu 1 other<-main,
--               out 2 (S, next_pid 101) middle<-main, in 12,
--               cpu 13 leaf<-middle<-main, out 14 (R) other<-main, in 15,
--               cpu 16 other<-main, out 17 (D) leaf<-middle<-main (no in)
--   thread 101: cpu 3 other<-main, out 4 (S) other<-main, in 20,
--               cpu 21 leaf<-middle<-main, cpu 30 other<-main (the last record)
--
-- Each thread's records are written together (100's, then 101's): the file
-- is out of time order and must be read in time order.
--
-- Off-CPU intervals, charged to the switched-out stack under a frame that
-- names why (S sleeping, D waiting, R preempted, B blocked: S or D from a
-- record without state):
--   both: 100 S 2.01->12 = 9.99 middle<-main; R 14.01->15 = 0.99 other<-main;
--         D 17.01->30 (the end: open) = 12.99 leaf<-middle<-main;
--         101 S 4.01->20 = 15.99 other<-main. In all 39.96 ms.
--   tp:   no switch-in: the thread's next record ends it: 100 S 2->13 = 11,
--         R 14->16 = 2, D 17->30 (open) = 13; 101 S 4->21 = 17.
--   sw:   no stacks: 100 B 9.99, R 0.99, B 12.99 (open); 101 B 15.99.
-- Wall (both) = cpu samples + intervals: 100: 4 + 9.99 + 0.99 + 12.99 =
-- 27.97 ms; 101: 3 + 15.99 = 18.99 ms. Folded (microseconds, threads
-- merged): main;middle;leaf 3000 (cpu 0, 13, 21), main;other 4000 (1, 3,
-- 16, 30), and the four off-CPU stacks.
--
-- Time ranges: the samples run from T0 to T0 + 30 ms; FROM included, TO
-- excluded, a TO at the end includes the last sample.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"
local lgprof = require "lgprof"

local MS, US, T0 = 1000000, 1000, 5000000000
local ST_CPU = 0x10000 | pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN -- IDENTIFIER first
local ST_SWITCH = ST_CPU | pw.CPU | pw.RAW
local CONTEXT_SWITCH = 1 << 26

local tmp, prog

-- sched_switch's fields as an older layout might have them: 8 bytes more
-- before prev_comm, so that every offset differs from Linux 6's
local SHIFTED = {}
for k, f in ipairs(pw.SCHED_SWITCH_FIELDS) do
  SHIFTED[k] = { f[1], f[2], f[3] + (k > 4 and 8 or 0), f[4], f[5] }
end
table.insert(SHIFTED, 5, { "common_padding", "int common_padding", 8, 4, 1 })

local function chain(names)
  local c = { pw.CONTEXT_USER }
  for k, n in ipairs(names) do c[#c + 1] = sp.addr(prog, n, k == 1 and 4 or 8) end
  return c
end

-- The recording of the timeline above in form "tp", "sw" or "both";
-- opts.fields: sched_switch's layout; opts.order: the byte order.
local function recording(form, opts)
  opts = opts or {}
  local attrs = { { type = 1, config = 0, sample_type = ST_CPU, period = MS, ids = { 1 },
    name = "cpu-clock", flags = form ~= "tp" and CONTEXT_SWITCH or 0 } }
  if form ~= "sw" then
    attrs[2] = { type = 2, config = 372, sample_type = ST_SWITCH, period = 1, ids = { 2 },
      name = "sched:sched_switch" }
  end
  local f = pw.new({ attrs = attrs, order = opts.order })
  sp.map(f, prog)
  local function cpu(tid, t, names)
    local c = chain(names)
    f:sample({ attr = 1, ip = c[2], pid = sp.PID, tid = tid, time = T0 + t, period = MS, chain = c })
  end
  local function out(tid, t, state, next_pid, names)
    if form ~= "sw" then
      local c = chain(names)
      f:sample({ attr = 2, ip = c[2], pid = sp.PID, tid = tid, time = T0 + t, period = 1, chain = c,
        raw = pw.sched_switch_raw({ type = 372, prev_comm = "prog", prev_pid = tid, prev_state = state,
          next_comm = "other", next_pid = next_pid }, opts.fields, opts.order) })
    end
    if form ~= "tp" then f:switch(sp.PID, tid, T0 + t + 10 * US, { out = true, preempt = state == 0 }) end
  end
  local function into(tid, t)
    if form ~= "tp" then f:switch(sp.PID, tid, T0 + t) end
  end
  cpu(100, 0, { "leaf", "middle", "main" })
  cpu(100, 1 * MS, { "other", "main" })
  out(100, 2 * MS, 1, 101, { "middle", "main" })
  into(100, 12 * MS)
  cpu(100, 13 * MS, { "leaf", "middle", "main" })
  out(100, 14 * MS, 0, 0, { "other", "main" })
  into(100, 15 * MS)
  cpu(100, 16 * MS, { "other", "main" })
  out(100, 17 * MS, 2, 0, { "leaf", "middle", "main" })
  cpu(101, 3 * MS, { "other", "main" })
  out(101, 4 * MS, 1, 0, { "other", "main" })
  into(101, 20 * MS)
  cpu(101, 21 * MS, { "leaf", "middle", "main" })
  cpu(101, 30 * MS, { "other", "main" })
  f:finished_round()
  if form ~= "sw" then
    f:feature("tracing_data", pw.tracing_data({ { "sched",
      { pw.event_format("sched_switch", 372, opts.fields or pw.SCHED_SWITCH_FIELDS) } } }, opts.order))
  end
  f:feature("event_desc", true)
  -- (perf always writes it; a big-endian file's feature bits are read by it)
  f:feature("hostname", "spec")
  return f
end

local function run(argv) return cmd.lgprof_out(argv, { cwd = tmp }) end

-- folded text -> { [stack] = microseconds }
local function folded(out)
  local by = {}
  for stack, v in out:gmatch("([^\n]+) (%d+)\n") do
    assert.is_nil(by[stack], "a stack twice: " .. stack)
    by[stack] = tonumber(v)
  end
  return by
end

local S, D, R, B = "[off-cpu: sleeping (S)]", "[off-cpu: waiting (D)]", "[off-cpu: preempted (R)]",
  "[off-cpu: blocked (S or D)]"

local BOTH_OFF = {
  ["main;middle;" .. S] = 9990, ["main;other;" .. S] = 15990, ["main;other;" .. R] = 990,
  ["main;middle;leaf;" .. D] = 12990,
}
local ONCPU = { ["main;middle;leaf"] = 3000, ["main;other"] = 4000 }

describe("off-CPU and wall time from recorded switches", function()
  setup(function()
    tmp = util.mktempdir("offcpu")
    prog = sp.shared(tmp)
    for _, form in ipairs({ "tp", "sw", "both" }) do
      local f = recording(form)
      pw.write(tmp .. "/" .. form .. ".data", f:bytes())
      pw.write(tmp .. "/" .. form .. "-pipe.data", f:bytes({ pipe = true }))
    end
    pw.write(tmp .. "/shifted.data", recording("tp", { fields = SHIFTED }):bytes())
    pw.write(tmp .. "/both-be.data", recording("both", { order = ">" }):bytes())
  end)
  teardown(function() util.rmtree(tmp) end)

  it("tracepoint and switch records: each interval from switch-out to switch-in, on the sample's stack", function()
    assert.same(BOTH_OFF, folded(run({ "--event=off-cpu", "--format=folded", "both.data" })))
    assert.same(BOTH_OFF, folded(run({ "--event=off-cpu", "--format=folded", "both-pipe.data" })))
    -- a big-endian machine's file: the RAW fields in its byte order too
    assert.same(BOTH_OFF, folded(run({ "--event=off-cpu", "--format=folded", "both-be.data" })))
  end)

  it("the tracepoint alone: each interval ends at the thread's next record", function()
    local want = {
      ["main;middle;" .. S] = 11000, ["main;other;" .. S] = 17000, ["main;other;" .. R] = 2000,
      ["main;middle;leaf;" .. D] = 13000,
    }
    assert.same(want, folded(run({ "--event=off-cpu", "--format=folded", "tp.data" })))
    assert.same(want, folded(run({ "--event=off-cpu", "--format=folded", "tp-pipe.data" })))
    -- the fields are found where the recording's format says (8 bytes later here)
    assert.same(want, folded(run({ "--event=off-cpu", "--format=folded", "shifted.data" })))
  end)

  it("switch records alone: the time, by preemption or not, with no stack", function()
    assert.same({ [B] = 9990 + 12990 + 15990, [R] = 990 },
      folded(run({ "--event=off-cpu", "--format=folded", "sw.data" })))
  end)

  it("--off-cpu-state keeps the kinds asked for", function()
    local function only(state)
      return folded(run({ "--event=off-cpu", "--off-cpu-state=" .. state, "--format=folded", "both.data" }))
    end
    assert.same({ ["main;middle;" .. S] = 9990, ["main;other;" .. S] = 15990 }, only("S"))
    assert.same({ ["main;middle;leaf;" .. D] = 12990 }, only("D"))
    assert.same({ ["main;other;" .. R] = 990 }, only("R"))
    assert.same({ ["main;middle;" .. S] = 9990, ["main;other;" .. S] = 15990,
      ["main;middle;leaf;" .. D] = 12990 }, only("S,D"))
    -- a switch record's blocked time is S or D
    assert.same({ [B] = 38970 }, folded(run({ "--event=off-cpu", "--off-cpu-state=D", "--format=folded",
      "sw.data" })))
    local line = cmd.one_line_error(2, cmd.lgprof({ "--event=off-cpu", "--off-cpu-state=S,X", "both.data" },
      { cwd = tmp }))
    assert.matches("^%-%-off%-cpu%-state=S,X", line)
  end)

  it("--event=wall: each thread's samples and off-CPU intervals", function()
    local want = {}
    for k, v in pairs(BOTH_OFF) do want[k] = v end
    for k, v in pairs(ONCPU) do want[k] = v end
    assert.same(want, folded(run({ "--event=wall", "--format=folded", "both.data" })))
    local p = assert(lgprof.open(nil, tmp .. "/both.data", { event = "wall" }))
    local by = {}
    for t in p:threads() do by[t.tid] = t.seconds end
    assert.near(0.02797, by[100], 1e-9)
    assert.near(0.01899, by[101], 1e-9)
    p:close()
  end)

  it("gives each sample's time on request (sample_times), in time order, intervals at their start", function()
    local p = assert(lgprof.open(nil, tmp .. "/both.data", { event = "wall", sample_times = true }))
    local stacks, got = {}, {}
    for st in p:stacks() do stacks[#stacks + 1] = st end
    for _, smp in ipairs(p:sample_times()) do
      local names = {}
      for _, f in ipairs(stacks[smp.stack].frames) do names[#names + 1] = f.name end
      got[#got + 1] = ("%d %d %d %s"):format(math.floor(smp.time * 1e6 + 0.5),
        math.floor(smp.seconds * 1e6 + 0.5), smp.tid, table.concat(names, ";"))
    end
    p:close()
    -- microseconds after T0: the timeline above, thread 101's between 100's
    assert.same({
      "0 1000 100 main;middle;leaf", "1000 1000 100 main;other",
      "2010 9990 100 main;middle;" .. S, "3000 1000 101 main;other",
      "4010 15990 101 main;other;" .. S, "13000 1000 100 main;middle;leaf",
      "14010 990 100 main;other;" .. R, "16000 1000 100 main;other",
      "17010 12990 100 main;middle;leaf;" .. D, "21000 1000 101 main;middle;leaf",
      "30000 1000 101 main;other",
    }, got)
    local q = assert(lgprof.open(nil, tmp .. "/both.data"))
    assert.has_error(function() q:sample_times() end,
      "profile:sample_times(): open the profile with the option sample_times = true")
    q:close()
  end)

  it("the report says what is exact, what is sampled, and the interval the end cut", function()
    local out = run({ "--event=wall", "-b", "-p", "both.data" })
    assert.truthy(out:find("Off-CPU time is exact, measured from the recorded context switches: "
      .. "0.039960 seconds in 4 intervals (sleeping 0.025980, waiting 0.012990, preempted 0.000990, "
      .. "blocked 0.000000).", 1, true), out)
    assert.truthy(out:find("On-CPU time is sampled: 0.007000 seconds.", 1, true), out)
    assert.truthy(out:find("1 interval(s) had not ended when the recording did: charged up to its end "
      .. "(0.012990 seconds).", 1, true), out)
  end)

  it("a recording without switches: one line saying how to record them", function()
    local f = pw.new({ attrs = { { sample_type = ST_CPU, period = MS, ids = { 1 } } } })
    sp.map(f, prog)
    f:sample({ ip = chain({ "leaf" })[2], pid = sp.PID, tid = sp.PID, time = T0, period = MS,
      chain = chain({ "leaf", "main" }) })
    pw.write(tmp .. "/cpu.data", f:bytes())
    local line = cmd.file_error("cpu.data", cmd.lgprof({ "--event=off-cpu", "cpu.data" }, { cwd = tmp }))
    assert.matches("no context switches in the recording", line)
    assert.matches("lgprof record %-%-off%-cpu", line)
  end)

  it("real perf reads the same fields from these files", function()
    if not util.have("perf") then return pending("perf is not installed") end
    local status, out, err = cmd.shell("perf script -i " .. util.q(tmp .. "/shifted.data")
      .. " -F tid,time,trace 2>/dev/null")
    if status ~= 0 or not out:find("prev_state") then
      return pending("perf script cannot print tracepoints here: " .. err)
    end
    local states = {}
    for tid, state in out:gmatch("(%d+)%s+[%d.]+:%s+prev_comm=prog prev_pid=%d+ prev_state=(%d+)") do
      states[#states + 1] = tid .. ":" .. state
    end
    table.sort(states)
    assert.same({ "100:0", "100:1", "100:2", "101:1" }, states)
  end)
end)

describe("lgprof doctor on time", function()
  local doctor = require "lgprof.analysis.doctor"
  setup(function()
    tmp = util.mktempdir("offcpu-doctor")
    prog = sp.shared(tmp)
  end)
  teardown(function() util.rmtree(tmp) end)

  local function findings(path, opts)
    local p = assert(lgprof.open(nil, path, opts))
    local set = {}
    for _, f in ipairs(doctor.diagnose(p)) do set[f.id] = f end
    p:close()
    return set
  end

  it("off-cpu-dominant: an on-CPU profile of a program that mostly waited", function()
    -- two samples of 1 ms, 200 ms apart: on the CPU 2 ms of 200
    local f = pw.new({ attrs = { { sample_type = ST_CPU, period = MS, ids = { 1 } } } })
    sp.map(f, prog)
    for _, t in ipairs({ 0, 200 * MS }) do
      f:sample({ ip = chain({ "leaf" })[2], pid = sp.PID, tid = sp.PID, time = T0 + t, period = MS,
        chain = chain({ "leaf", "main" }) })
    end
    pw.write(tmp .. "/idle.data", f:bytes())
    local found = findings(tmp .. "/idle.data")["off-cpu-dominant"]
    assert.truthy(found)
    assert.near(0.002, found.oncpu_seconds, 1e-9)
    assert.near(0.2, found.span_seconds, 1e-9)
    assert.matches("lgprof record %-%-wall", found.advice)
    -- the same time read as wall: no finding
    pw.write(tmp .. "/both.data", recording("both"):bytes())
    assert.is_nil(findings(tmp .. "/both.data", { event = "wall" })["off-cpu-dominant"])
  end)

  it("lost-switches: a thread switched out twice, its return between lost", function()
    -- thread 100: OUT at 2 ms, OUT again at 5 ms (the IN between lost: 3 ms
    -- unknown), IN at 8 ms: one interval of 3 ms kept
    local f = pw.new({ attrs = { { sample_type = ST_CPU, period = MS, ids = { 1 },
      flags = CONTEXT_SWITCH } } })
    sp.map(f, prog)
    f:sample({ ip = chain({ "leaf" })[2], pid = sp.PID, tid = 100, time = T0, period = MS,
      chain = chain({ "leaf", "main" }) })
    f:switch(sp.PID, 100, T0 + 2 * MS, { out = true })
    f:switch(sp.PID, 100, T0 + 5 * MS, { out = true })
    f:switch(sp.PID, 100, T0 + 8 * MS)
    f:sample({ ip = chain({ "leaf" })[2], pid = sp.PID, tid = 100, time = T0 + 9 * MS, period = MS,
      chain = chain({ "leaf", "main" }) })
    pw.write(tmp .. "/lost.data", f:bytes())
    local found = findings(tmp .. "/lost.data", { event = "off-cpu" })["lost-switches"]
    assert.truthy(found)
    assert.equal(1, found.restarted)
    assert.near(0.003, found.unknown_seconds, 1e-9)
    assert.near(0.5, found.share, 1e-9)
    assert.is_nil(findings(tmp .. "/both.data", { event = "off-cpu" })["lost-switches"])
  end)

  it("few-samples is about sampled time: not said of exact off-CPU intervals", function()
    -- 7 cpu-clock samples: few; 4 off-CPU intervals: measured, not sampled
    assert.truthy(findings(tmp .. "/both.data")["few-samples"])
    assert.is_nil(findings(tmp .. "/both.data", { event = "off-cpu" })["few-samples"])
  end)
end)

describe("--time-range", function()
  setup(function()
    tmp = util.mktempdir("timerange")
    prog = sp.shared(tmp)
    pw.write(tmp .. "/both.data", recording("both"):bytes())
  end)
  teardown(function() util.rmtree(tmp) end)

  local function samples(range)
    return folded(run({ "--time-range=" .. range, "--format=folded", "both.data" }))
  end

  it("keeps the samples from FROM (included) to TO (excluded), in seconds from the first", function()
    -- 1 ms (other, thread 100: included) and 3 ms (other, 101); 13 ms excluded
    assert.same({ ["main;other"] = 2000 }, samples("0.001,0.013"))
    -- perf's own timestamps: 5.001 s is past the recording's 0.03 s
    assert.same({ ["main;other"] = 2000 }, samples("5.001,5.013"))
  end)

  it("takes percentages of the recording's length; a TO at the end includes the last sample", function()
    -- [0, 15 ms): 0 leaf, 1 other, 3 other, 13 leaf
    assert.same({ ["main;middle;leaf"] = 2000, ["main;other"] = 2000 }, samples("0%,50%"))
    -- [15 ms, the end]: 16 other, 21 leaf, 30 other (the last)
    assert.same({ ["main;middle;leaf"] = 1000, ["main;other"] = 2000 }, samples("50%,100%"))
    assert.same({ ["main;middle;leaf"] = 1000, ["main;other"] = 2000 }, samples("0.015,"))
  end)

  it("is repeatable: the samples of every range", function()
    -- [0, 2 ms): 0 leaf, 1 other; [16, 17 ms): 16 other
    assert.same({ ["main;middle;leaf"] = 1000, ["main;other"] = 2000 },
      folded(run({ "--time-range=0,0.002", "--time-range=0.016,0.017", "--format=folded", "both.data" })))
  end)

  it("cuts off-CPU intervals at its ends", function()
    -- [5, 15 ms): 100's S 2.01->12 gives 7, R 14.01->15 0.99; 101's S 4.01->20 gives 10
    assert.same({ ["main;middle;" .. S] = 7000, ["main;other;" .. S] = 10000, ["main;other;" .. R] = 990 },
      folded(run({ "--event=off-cpu", "--time-range=0.005,0.015", "--format=folded", "both.data" })))
  end)

  it("refuses a range outside the recording, giving its span, as a usage error", function()
    local line = cmd.one_line_error(2, cmd.lgprof({ "--time-range=1,2", "both.data" }, { cwd = tmp }))
    assert.equal("both.data: --time-range=1,2: outside the recording, whose samples run from 0 to "
      .. "0.030000 s (perf's time 5.000000 to 5.030000)", line)
    line = cmd.one_line_error(2, cmd.lgprof({ "--time-range=2,1", "both.data" }, { cwd = tmp }))
    assert.matches("FROM is not before TO", line)
    line = cmd.one_line_error(2, cmd.lgprof({ "--time-range=1", "both.data" }, { cwd = tmp }))
    assert.matches("^%-%-time%-range=1:", line)
  end)

  it("is the Lua API's option time_range", function()
    local p = assert(lgprof.open(nil, tmp .. "/both.data", { time_range = { "0%,50%" } }))
    assert.near(0.004, p.total_time, 1e-9)
    p:close()
    local none, msg = lgprof.open(nil, tmp .. "/both.data", { time_range = "x" })
    assert.is_nil(none)
    assert.matches("not a range", msg)
  end)
end)
