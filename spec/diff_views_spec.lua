-- lgprof --diff's pictures with the options that choose a part of a
-- perf.data (--comm, --dso, --time-range, --event): each applies to the
-- base and the new recording alike; so do the views --focus, --ignore and
-- --hide (on gmon.out profiles: a perf.data takes no call-graph view, as
-- in lgprof's report); the ones that cannot (--pid and --tid: ids of one
-- run; the threshold views, which keep a different part of each side) are
-- a one-line usage error saying why.
--
-- perf.data recordings written by hand (helpers.perfwriter, the program of
-- helpers.stackprog), one process (pid 100) with two threads: tid 100
-- "prog" and tid 101 "worker"; samples of 1 ms, taken 1 ms apart, the
-- first at perf's time 5 s, prog's samples first:
--
--   thread   stack              base samples   new samples
--   prog     main;middle;leaf        100            200
--   worker   main;other              200            100
--
-- The folded output (difffolded's two columns, microseconds):
--   whole:              main;middle;leaf 100000 200000, main;other 200000 100000
--   --comm=worker:      main;other 200000 100000 (prog's samples gone from both)
--   --comm=prog:        main;middle;leaf 100000 200000
--   --time-range=0,0.0995 (seconds from each recording's first sample, TO
--     excluded): the samples at 0 .. 0.099 s, the first 100 of each: prog's
--     leaf, 100 in both: main;middle;leaf 100000 100000
--   --dso=PROG (every leaf is in the program): the whole
--   --event=cpu-clock (the recordings' one event): the whole
local H = require "helpers"
local util, cmd = H.util, H.cmd

describe("lgprof --diff's pictures with the options that choose a part of a recording", function()
  if not util.have("cc") then
    pending("cc is needed")
    return
  end
  local pw = require "helpers.perfwriter"
  local sp = require "helpers.stackprog"
  local MS = 1000000
  local tmp, prog, base, new

  local function write(name, leaf, other)
    local f = pw.chain_recording(1000)
    sp.map(f, prog)
    f:comm(sp.PID, 101, "worker", 30, false)
    local t = 5000000000
    local function put(tid, names, n)
      local frames = {}
      for k, fname in ipairs(names) do frames[k] = sp.addr(prog, fname, k == 1 and 4 or 8) end
      t = f:chain_samples(n, sp.PID, tid, frames, t, MS, MS)
    end
    put(sp.PID, { "leaf", "middle", "main" }, leaf)
    put(101, { "other", "main" }, other)
    f:finished_round()
    local path = tmp .. "/" .. name
    pw.write(path, f:bytes())
    return path
  end

  setup(function()
    tmp = util.mktempdir("lgprof diff views")
    prog = sp.shared(tmp)
    base = write("base.data", 100, 200)
    new = write("new.data", 200, 100)
  end)
  teardown(function() util.rmtree(tmp) end)

  local function folded(...)
    local a = { "--diff=" .. base, "--format=folded", ... }
    a[#a + 1] = new
    local s, out, err = cmd.lgprof(a, { cwd = tmp })
    assert.equal(0, s, cmd.show(s, out, err))
    local got = {}
    for line in out:gmatch("[^\n]+") do
      local stack, b, n = line:match("^(.-) (%d+) (%d+)$")
      got[stack] = { tonumber(b), tonumber(n) }
    end
    return got
  end

  local WHOLE = { ["main;middle;leaf"] = { 100000, 200000 }, ["main;other"] = { 200000, 100000 } }

  it("--comm chooses the same threads in both recordings", function()
    assert.same(WHOLE, folded())
    assert.same({ ["main;other"] = { 200000, 100000 } }, folded("--comm=worker"))
    assert.same({ ["main;middle;leaf"] = { 100000, 200000 } }, folded("--comm=prog"))
  end)

  it("--comm colours the part compared: worker's other shrank (blue), prog's leaf is gone", function()
    local s, out, err = cmd.lgprof({ "--diff=" .. base, "--format=svg", "--comm=worker", new },
      { cwd = tmp })
    assert.equal(0, s, cmd.show(s, out, err))
    -- other: 200 against 100 samples, rel 1/2: rgb(110,110,255)
    assert.truthy(out:find("<title>other (", 1, true))
    assert.truthy(out:find('fill="rgb(110,110,255)"', 1, true))
    assert.falsy(out:find("<title>leaf (", 1, true))
  end)

  it("--dso and --event apply to both recordings", function()
    assert.same(WHOLE, folded("--dso=" .. prog.exe))
    assert.same(WHOLE, folded("--event=cpu-clock"))
  end)

  it("--time-range takes the same span of each recording", function()
    assert.same({ ["main;middle;leaf"] = { 100000, 100000 } }, folded("--time-range=0,0.0995"))
  end)

  it("--pid and --tid are a usage error: ids of one run name nothing in the other", function()
    for _, o in ipairs({ "--pid=100", "--tid=101" }) do
      local line = cmd.one_line_error(2, cmd.lgprof({ "--diff=" .. base, "--format=svg", o, new },
        { cwd = tmp }))
      assert.matches("does not apply to %-%-diff: %a+ ids differ from run to run", line)
    end
  end)

  it("--focus, --ignore and --hide on perf.data: the single profile's error, once", function()
    -- (a perf.data profile takes no call-graph view: lgprof's report says the same)
    for _, o in ipairs({ "--focus=middle", "--ignore=other", "--hide=middle" }) do
      local line = cmd.one_line_error(1, cmd.lgprof({ "--diff=" .. base, "--format=svg", o, new },
        { cwd = tmp }))
      local _, _, single = cmd.lgprof({ "--format=svg", o, new }, { cwd = tmp })
      assert.equal(single, "lgprof: " .. line .. "\n")
      assert.matches("is not available for sampled stacks", line)
    end
  end)

  it("the threshold views stay a usage error saying why", function()
    for _, o in ipairs({ "--top=1", "--node-fraction=0.5", "--prune-from=middle" }) do
      local line = cmd.one_line_error(2, cmd.lgprof({ "--diff=" .. base, "--format=svg", o, new },
        { cwd = tmp }))
      assert.matches("the view options other than %-%-focus, %-%-ignore and %-%-hide do not apply to"
        .. " %-%-diff: a threshold keeps a different part of each profile", line)
    end
  end)
end)

-- gprof's symspec options on gmon.out profiles (helpers.synth: 100 samples
-- a second, a sample 10,000 us): they choose functions as the file is read,
-- so they shape the base and the new profile alike.
--   function   base samples   new samples   (main calls dbl and half)
--   main            10             10
--   dbl            100            200
--   half           200            100
-- The folded output, microseconds:
--   whole:       main 100000 100000, main;dbl 1000000 2000000,
--                main;half 2000000 1000000
--   -P dbl (dbl out of the flat profile, its time not counted): main, main;half
--   -p dbl (only dbl): main;dbl
--   -k main/dbl (the arc deleted): dbl a root of its own: dbl 1000000 2000000
describe("lgprof --diff's pictures with gprof's symspecs", function()
  local synth = require "helpers.synth"
  local tmp, bexe, bgmon, nexe, ngmon
  local BASE = { { "main", 10 }, { "dbl", 100 }, { "half", 200 } }
  local NEW = { { "main", 10 }, { "dbl", 200 }, { "half", 100 } }
  local ARCS = { { "main", "dbl", 10 }, { "main", "half", 10 } }
  setup(function()
    tmp = util.mktempdir("lgprof diff symspecs")
    bexe, bgmon = synth.write(tmp, "base", { funcs = BASE, arcs = ARCS })
    nexe, ngmon = synth.write(tmp, "new", { funcs = NEW, arcs = ARCS })
  end)
  teardown(function() util.rmtree(tmp) end)

  local function folded(...)
    local a = { "--diff=" .. bgmon, "--diff-image=" .. bexe, "--format=folded", ... }
    a[#a + 1] = nexe
    a[#a + 1] = ngmon
    local s, out, err = cmd.lgprof(a)
    assert.equal(0, s, cmd.show(s, out, err))
    local got = {}
    for line in out:gmatch("[^\n]+") do
      local stack, b, n = line:match("^(.-) (%d+) (%d+)$")
      got[stack] = { tonumber(b), tonumber(n) }
    end
    return got
  end

  it("-P, -p and -k apply to the base and the new profile alike", function()
    assert.same({ main = { 100000, 100000 }, ["main;dbl"] = { 1000000, 2000000 },
                  ["main;half"] = { 2000000, 1000000 } }, folded())
    assert.same({ main = { 100000, 100000 }, ["main;half"] = { 2000000, 1000000 } }, folded("-Pdbl"))
    assert.same({ ["main;dbl"] = { 1000000, 2000000 } }, folded("-pdbl"))
    assert.same({ main = { 100000, 100000 }, dbl = { 1000000, 2000000 },
                  ["main;half"] = { 2000000, 1000000 } }, folded("-kmain/dbl"))
  end)

  -- The views apply to the base and the new profile alike (what the single
  -- profile's pictures draw with them: gprof's estimated stacks of the
  -- view), by hand from the table above:
  --   --focus=dbl: the paths through dbl, main's own time dropped:
  --     main;dbl 1000000 2000000
  --   --ignore=half: half dropped: main 100000 100000, main;dbl 1000000 2000000
  --   --hide=dbl: dbl's time charged to its caller main: main 10 + 100 = 110
  --     samples in base, 10 + 200 = 210 in new: main 1100000 2100000,
  --     main;half 2000000 1000000
  it("--focus, --ignore and --hide make the same view of both profiles", function()
    assert.same({ ["main;dbl"] = { 1000000, 2000000 } }, folded("--focus=dbl"))
    assert.same({ main = { 100000, 100000 }, ["main;dbl"] = { 1000000, 2000000 } },
      folded("--ignore=half"))
    assert.same({ main = { 1100000, 2100000 }, ["main;half"] = { 2000000, 1000000 } },
      folded("--hide=dbl"))
  end)

  it("the flame graph says which view both sides were read with", function()
    local s, out, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-image=" .. bexe, "--format=svg",
      "--hide=dbl", "--hide=nothing", nexe, ngmon })
    assert.equal(0, s, cmd.show(s, out, err))
    assert.truthy(out:find(">View (of both sides): hide=dbl, hide=nothing</text>", 1, true), out)
    -- the pattern that matches nothing in either profile: one warning
    assert.equal("lgprof: warning: --hide=nothing matches no function\n", err)
    s, out, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-image=" .. bexe, "--format=svg", nexe, ngmon })
    assert.equal(0, s, cmd.show(s, out, err))
    assert.falsy(out:find("View (of both sides)", 1, true))
  end)

  it("the text table of a view: --hide=dbl has no dbl row, main has its time", function()
    local s, out, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-image=" .. bexe, "--format=json",
      "--hide=dbl", nexe, ngmon })
    assert.equal(0, s, cmd.show(s, out, err))
    local byname = {}
    for _, r in ipairs(require("cjson").decode(out).functions) do byname[r.name] = r end
    assert.is_nil(byname.dbl)
    -- main's self: 110 -> 210 samples of 10 ms (see above); half's unchanged, 200 -> 100
    assert.near(1.1, byname.main.self.base, 1e-9); assert.near(2.1, byname.main.self.new, 1e-9)
    assert.near(2.0, byname.half.self.base, 1e-9); assert.near(1.0, byname.half.self.new, 1e-9)
    -- the text table says the same
    s, out, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-image=" .. bexe, "--hide=dbl", nexe,
      ngmon })
    assert.equal(0, s, cmd.show(s, out, err))
    assert.falsy(out:find(" dbl\n", 1, true))
    assert.truthy(out:find(" main\n", 1, true))
  end)
end)
