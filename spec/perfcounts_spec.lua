-- The gprof-style report of a perf.data whose event is not time (`perf
-- record -e page-faults`, cycles, cache-references...): its columns hold
-- counts of the event, and say so, where they said "seconds" and "times are
-- measured"; a time event's report keeps its words.
--
-- The recordings (helpers.perfwriter, the program of helpers.stackprog) are
-- perfevents_spec's; derived by hand from the samples written:
--   PF  page-faults, periods = faults:
--       2 samples leaf<-middle<-main  periods 2, 3   (5 faults)
--       1 sample  other<-main         period  4      (4 faults)
--       1 sample  in main             period  3      (3 faults)
--   Self: leaf 5 (5/12 = 41.67 %), other 4 (33.33 %), main 3 (25.00 %);
--   cumulative 5, 9, 12. One sample is the mean period, 12 / 4 = 3 faults,
--   25.00 % of the 12 (the call graph's granularity line).
--   CK  the same stacks as cpu-clock, periods in ms (2, 3, 4, 3 ms).
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"

local MS = 1000000
local STACKS = {
  { frames = { "leaf", "middle", "main" }, periods = { 2, 3 } },
  { frames = { "other", "main" }, periods = { 4 } },
  { frames = { "main" }, periods = { 3 } },
}

local tmp, prog

local function recording(config, unit)
  local f = pw.new({ attrs = { { type = 1, config = config,
    sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN, period = 1, ids = { 1 } } } })
  sp.write_stacks(f, prog, STACKS, unit)
  return f
end

local function run(argv) return cmd.lgprof_out(argv, { cwd = tmp }) end

describe("the gprof-style report of a count event", function()
  setup(function()
    tmp = util.mktempdir("lgprof-perfcounts")
    prog = sp.shared(tmp)
    pw.write(tmp .. "/pf.data", recording(2, 1):bytes())
    pw.write(tmp .. "/ck.data", recording(0, MS):bytes())
  end)
  teardown(function() util.rmtree(tmp) end)

  it("says its columns count the event, not seconds", function()
    local out = run({ "-b", "-p", "pf.data" })
    assert.equal(table.concat({
      "Flat profile:",
      "",
      "Each sample is a stack of prog from perf.data (page-faults): the columns count page-faults (each"
        .. " sample weighs its period), not seconds; a sampler counts no call, so gprof's call columns are blank.",
      "  %   cumulative   self              self     total           ",
      "share    events    events    calls  Te/call  Te/call  name    ",
      " 41.67      5.00     5.00                             leaf",
      " 33.33      9.00     4.00                             other",
      " 25.00     12.00     3.00                             main",
      "" }, "\n"), out:match("^(.- main\n)") or out)
    assert.is_nil(out:find("times are measured", 1, true), out)
  end)

  it("gives the call graph's granularity in the event's unit", function()
    local out = run({ "-b", "-q", "pf.data" })
    assert.truthy(out:find("\ngranularity: each sample is one stack from perf.data (page-faults) for 25.00% of"
      .. " 12.00 page-faults\n", 1, true), out)
    assert.truthy(out:find("\nindex %share    self  children    called     name\n", 1, true), out)
    assert.is_nil(out:find("seconds", 1, true), out)
    assert.equal("page-faults", require("lgprof").open(nil, tmp .. "/pf.data").dimension)
  end)

  it("keeps a time event's words: seconds, times are measured", function()
    local out = run({ "-b", "ck.data" })
    assert.truthy(out:find("Each sample is a stack of prog from perf.data (cpu-clock): times are measured; a sampler counts no call, so gprof's call columns are blank.\n", 1, true), out)
    assert.truthy(out:find("\n time   seconds   seconds    calls ", 1, true), out)
    assert.truthy(out:find("\nindex % time    self  children    called     name\n", 1, true), out)
    assert.truthy(out:find(" for 25.00% of 0.01 seconds\n", 1, true), out)
    assert.equal("seconds", require("lgprof").open(nil, tmp .. "/ck.data").dimension)
  end)
end)
