-- The reports' words and numbers on a perf.data file (issue 25): the
-- sampling error, the sampling rate, gprof's "for X% of" and the files
-- named come from the recording's samples and their periods, not from
-- the nanosecond unit the weights are counted in; calls (not recorded)
-- are blank or null, never 0.
--
-- The recordings are written here with helpers.perfwriter for a program
-- compiled here (its symbols are real: addresses from nm and readelf);
-- every expected number is derived by hand from the samples written:
--
--   R1  3 samples leaf<-middle<-main   periods 1, 1, 1 ms  (3 ms)
--       2 samples other<-main          periods 1, 3 ms     (4 ms)
--       1 sample  in main              period  1 ms        (1 ms)
--   6 samples, 8 ms: the mean period 8/6 = 1.3333 ms, the mean rate 750 Hz.
--   self error = sqrt(n) x the mean period of the function's n samples
--   = weight / sqrt(n): leaf 3/sqrt(3) = 1.7320508 ms, other 4/sqrt(2) =
--   2.8284271 ms, main 1 ms; the total's 8/sqrt(6) = 3.2659863 ms (40.8%).
--   (sqrt(n) x the profile's mean period would give other 1.8856 ms;
--   sqrt(sum of squared periods) 3.1623 ms.)
--   gprof's "for X%": one sample of 6, 16.67%.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"
local lgprof = require "lgprof"

local q = util.q
local MS = 1000000
local EPS = 1e-12

local tmp, prog

local function near(want, got, what)
  assert(type(got) == "number", ("%s: want %.12g, got %s"):format(what, want, tostring(got)))
  assert(math.abs(want - got) <= EPS, ("%s: want %.12g, got %.12g"):format(what, want, got))
end

-- a recording of the program's samples: list of { frames (names, leaf
-- first), periods (one per sample) }
local function recording(samples)
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
    period = 1000, ids = { 1 } } } })
  return sp.write_stacks(f, prog, samples)
end

local R1 = {
  { frames = { "leaf", "middle", "main" }, periods = { MS, MS, MS } },
  { frames = { "other", "main" }, periods = { MS, 3 * MS } },
  { frames = { "main" }, periods = { MS } },
}

-- Shell: wait (10 s at most) until the writer $w is blocked opening the
-- FIFO (the kernel's wait for a reader in its wchan, or the open call in
-- its syscall): a reader that opens it then finds a writer, whereas one
-- that comes first reads a FIFO without a writer, as empty (the gmon
-- reader's rule: no wait), as spec/hostile_spec.lua does
local WAIT_OPEN = "i=0; while [ $i -lt 200 ] && ! grep -qE 'fifo_open|wait_for_partner' /proc/$w/wchan"
  .. " && ! grep -qE '^(2|56|257) ' /proc/$w/syscall; do sleep 0.05; i=$((i+1)); done 2>/dev/null; "

local function write(name, samples, opts)
  local path = tmp .. "/" .. name
  pw.write(path, recording(samples):bytes(opts))
  return path
end

local function run(argv, opts)
  return cmd.lgprof(argv, opts or { cwd = tmp })
end

local function fn(p, name)
  for f in p:functions() do
    if f.name == name then return f end
  end
  error("no function " .. name)
end

describe("perf.data reports", function()
  setup(function()
    tmp = util.mktempdir("lgprof-perfreport")
    prog = sp.shared(tmp)
    write("r1.data", R1)
    -- R2: R1 with one sample more in leaf (4 ms in 4 samples)
    write("r2.data", {
      { frames = { "leaf", "middle", "main" }, periods = { MS, MS, MS, MS } },
      { frames = { "other", "main" }, periods = { MS, 3 * MS } },
      { frames = { "main" }, periods = { MS } },
    })
  end)
  teardown(function() util.rmtree(tmp) end)

  it("gives the sampling error from the samples and their periods (Lua API)", function()
    local p = assert(lgprof.open(nil, tmp .. "/r1.data"))
    assert.equal(6, p.samples)
    near(0.008, p.total_time, "total_time")
    near(0.008 / 6, p.sample_period, "sample_period (the mean period)")
    assert.equal(750, p.hz)
    near(0.003 / math.sqrt(3), fn(p, "leaf").self_error, "leaf.self_error")
    near(0.004 / math.sqrt(2), fn(p, "other").self_error, "other.self_error")
    near(0.001, fn(p, "main").self_error, "main.self_error")
    near(0, fn(p, "middle").self_error, "middle.self_error")
    assert.equal(2, fn(p, "other").samples)
    assert.same({ tmp .. "/r1.data" }, p.files)
    -- Lines are the leaf frames' lines: each function's add up to its
    -- samples (they were rows of 0 samples once)
    for _, name in ipairs({ "leaf", "other", "main" }) do
      local n = 0
      for l in fn(p, name):lines() do n = n + l.samples end
      assert.equal(fn(p, name).samples, n, name)
    end
    p:close()
  end)

  it("says what a sample of an event that is not time is, and when no sample is kept", function()
    -- page-faults: weights are counts; 3 samples of 2, 2 and 5 faults: 3 per sample, no rate
    local p = assert(lgprof._core._profile_from_stacks({
      dsos = { { path = "/bin/prog" } },
      threads = { { pid = 7, tid = 7, comm = "prog" } },
      events = { { name = "page-faults", is_time = false } },
      funcs = { { name = "main", start = 0x1000, ["end"] = 0x10ff } },
      stacks = { { frames = { 1 }, samples = 3, weight = 9 } },
    }))
    assert.equal(0, p.hz)
    near(3, p.sample_period, "page-faults sample_period")
    near(9 / math.sqrt(3), fn(p, "main").self_error, "page-faults self_error")
    local text = require("lgprof.format.text").render(p, { brief = true })
    -- (its program: the one process's main thread "prog" runs /bin/prog)
    assert.matches("\nEach sample is a stack of /bin/prog from perf.data %(page%-faults: 3 events per sample%); 3 samples.\n",
      text)
    -- a thread with no sample: nothing kept
    local status, out, err = run({ "--format=text", "--tid=999", "r1.data" })
    assert.equal(0, status, err)
    assert.matches("\nNo sample: the recording %(or the samples kept%) holds none, so no times.\n", out)
  end)

  it("says what a sample is in --format=text, with the error of the total", function()
    local status, out, err = run({ "--format=text", "r1.data" })
    assert.equal(0, status, err)
    assert.matches("\nEach sample is a stack of [^\n]*/prog from perf.data %(cpu%-clock, 750 Hz: 1.333 ms per sample%); "
      .. "6 samples.\nTotal time: 0.008 ± 0.003 seconds %(± 40.8%%%).\n", out)
    assert.is_nil(out:find("1e-09", 1, true))
    assert.is_nil(out:find("1000000000", 1, true))
    -- other: 0.004 ± 0.003 (2.8284 ms), 2 samples; leaf 0.003 ± 0.002 (1.7321 ms)
    assert.matches("\n *%d+%.%d%d +0%.004 ± 0%.003 +2 ", out)
    assert.matches("\n *%d+%.%d%d +0%.003 ± 0%.002 +3 ", out)
  end)

  it("gives samples and self_error in JSON and CSV from the samples", function()
    local status, out, err = run({ "--format=json", "r1.data" })
    assert.equal(0, status, err)
    local doc = require("cjson").decode(out)
    assert.same({ "r1.data" }, doc.profile_files)
    assert.same({ prog.exe }, doc.binaries)
    assert.equal(750, doc.hz)
    near(0.008 / 6, doc.sample_period, "sample_period")
    local by = {}
    for _, f in ipairs(doc.functions) do by[f.name] = f end
    assert.equal(2, by.other.samples)
    near(0.004 / math.sqrt(2), by.other.self_error, "json other.self_error")
    near(0.003 / math.sqrt(3), by.leaf.self_error, "json leaf.self_error")
    -- calls were not recorded: null, not 0
    assert.matches('"calls":null,"self_calls":null,"member_calls":null', out)
    assert.is_nil(out:find('"calls":0', 1, true))
    assert.is_nil(out:find('"count":%d'))
    status, out, err = run({ "--format=csv", "r1.data" })
    assert.equal(0, status, err)
    -- ...,self_seconds,calls,self_calls,children_seconds,...,samples,self_error_seconds,...
    local row = out:match("\n%d+,other,[^\r]*")
    assert(row, out)
    local cells = {}
    for c in (row .. ","):gmatch("([^,]*),") do cells[#cells + 1] = c end
    assert.equal("", cells[9]) -- calls
    assert.equal("", cells[10]) -- self_calls
    assert.equal("2", cells[15])
    near(0.004 / math.sqrt(2), tonumber(cells[16]), "csv other self_error")
    status, out = run({ "--format=csv-arcs", "r1.data" })
    assert.equal(0, status)
    assert.matches("\nmain,other,,", out)
  end)

  it("counts samples, not nanoseconds, in pprof", function()
    -- R1's 8 ms at the mean period 4/3 ms are 6 samples; the period 1333333 ns
    local status, out, err = run({ "--format=pprof", "r1.data" })
    assert.equal(0, status, err)
    local path = tmp .. "/r1.pb.gz"
    util.spit(path, out)
    local raw = select(2, cmd.run({ "gzip", "-dc", path }))
    local prof = H.protobuf.profile(raw)
    assert.equal(1333333, prof.period)
    local samples, ns = 0, 0
    for _, smp in ipairs(prof.sample) do
      samples, ns = samples + smp.value[1], ns + smp.value[2]
    end
    assert.equal(6, samples)
    assert.equal(8 * MS, ns)
  end)

  it("gives gprof's 'for X%' as one sample's share, and the files in callgrind", function()
    local status, out, err = run({ "-q", "-b", "r1.data" })
    assert.equal(0, status, err)
    assert.matches("granularity: each sample is one stack from perf.data %(cpu%-clock%) for 16.67%% of 0.01 seconds",
      out)
    status, out, err = run({ "--format=callgrind", "r1.data" })
    assert.equal(0, status, err)
    assert.matches("\ndesc: Profile files: r1.data\n", out)
    assert.matches("\ndesc: Sampling rate: mean 750 Hz\n", out)
    assert.is_nil(out:find("gprof's estimate", 1, true))
  end)

  it("reads perf.data through a pipe, a FIFO and standard input, file or pipe mode", function()
    -- the same report as from the file itself, whichever way the bytes come
    write("pipe.data", R1, { pipe = true })
    local status, want, err = run({ "-b", "-p", "-q", "r1.data" })
    assert.equal(0, status, err)
    local function report(shell)
      local s, o, e = cmd.shell("cd " .. q(tmp) .. " || exit 9; " .. shell)
      assert.equal(0, s, shell .. ": " .. cmd.show(s, o, e))
      return o
    end
    local lg = "timeout 20 " .. q(cmd.LGPROF) .. " -b -p -q "
    for _, name in ipairs({ "r1.data", "pipe.data" }) do
      -- (the profile operand names the stream in what lgprof prints)
      local function same(o, as)
        assert.equal(want:gsub("r1%.data", as), o, name .. " as " .. as)
      end
      same(report("cat " .. name .. " | " .. lg .. "/dev/stdin"), "/dev/stdin")
      same(report("cat " .. name .. " | " .. lg .. "prog -"), "-")
      same(report("cat " .. name .. " | " .. lg .. "-"), "-")
      os.remove(tmp .. "/fifo")
      assert(os.execute("mkfifo " .. q(tmp .. "/fifo")))
      same(report("cat " .. name .. " > fifo & w=$!; " .. WAIT_OPEN .. lg .. "prog fifo; rc=$?; "
        .. "kill $w 2>/dev/null; exit $rc"), "fifo")
      os.remove(tmp .. "/fifo")
    end
    -- through the Lua API: the stream is read once (is_perfdata, then open)
    os.remove(tmp .. "/fifo")
    assert(os.execute("mkfifo " .. q(tmp .. "/fifo")))
    local sh = assert(io.popen("cd " .. q(tmp) .. " || exit 9; cat pipe.data > fifo & w=$!; "
      .. WAIT_OPEN .. "echo $w"))
    local writer = sh:read("l")
    sh:close()
    local p = assert(lgprof.open(nil, tmp .. "/fifo"))
    assert.equal(6, p.samples)
    assert.same({ tmp .. "/fifo" }, p.files)
    p:close()
    os.execute("kill " .. writer .. " 2>/dev/null")
    os.remove(tmp .. "/fifo")
  end)

  it("reads no stream given as the image (an endless one would never end)", function()
    -- (yes writes forever; the image of a perf.data is not read at all)
    local _, want = run({ "-b", "r1.data" })
    local status, out, err = cmd.shell("cd " .. q(tmp) .. " && yes | timeout 20 "
      .. q(cmd.LGPROF) .. " -b /dev/stdin r1.data")
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal(want, out)
    -- merge: a perf.data through a pipe is refused as from a file; an
    -- endless image is refused, not read
    status, out, err = cmd.shell("cd " .. q(tmp) .. " && cat r1.data | timeout 20 "
      .. q(cmd.LGPROF) .. " merge -o sum prog -")
    assert.equal(1, status, cmd.show(status, out, err))
    assert.equal("lgprof: -: perf.data files are not summed (merge sums gmon.out files)\n", err)
    status, out, err = cmd.shell("cd " .. q(tmp) .. " && yes | timeout 20 "
      .. q(cmd.LGPROF) .. " merge -o sum /dev/stdin r1.data")
    assert.equal(1, status, cmd.show(status, out, err))
  end)

  it("says in one line what is wrong with a stream that is no profile", function()
    local status, out, err = cmd.shell("cd " .. q(tmp) .. " && printf 'PERFILE2xx' | timeout 20 "
      .. q(cmd.LGPROF) .. " prog /dev/stdin")
    assert.equal(1, status)
    assert.equal("", out)
    assert.matches("^lgprof: /dev/stdin: [^\n]+\n$", err)
  end)

  it("tests a change of a few samples as a few samples (--diff, check)", function()
    -- base: R1; new: R2, leaf with one sample more. A Poisson count of 3 against 4 is no significant change (z about 0.4).
    local base = assert(lgprof.open(nil, tmp .. "/r1.data"))
    local new = assert(lgprof.open(nil, tmp .. "/r2.data"))
    local rows = lgprof.diff(base, new)
    local leaf
    for _, r in ipairs(rows) do if r.name == "leaf" then leaf = r end end
    assert(leaf)
    near(0.001, leaf.total_delta, "leaf.total_delta")
    assert.is_false(leaf.total_significant)
    assert.is_false(leaf.self_significant)
    -- middle (no self): its total 3 -> 4 samples, not significant either
    for _, r in ipairs(rows) do assert.is_false(r.significant, r.name) end
    -- check: leaf's total is 3 of 8 ms (37.5%) over 3 samples, standard
    -- error 37.5% / sqrt(3) = 21.7%: above 30% by a third of that, no
    -- significant breach; 100% of the time in main is over 6 samples
    local status, out, err = run({ "check", "--max-total=leaf=30%", "r1.data" })
    assert.equal(0, status, H.cmd.show(status, out, err))
    status, out, err = run({ "check", "--max-total=main=90%", "r1.data" })
    assert.equal(0, status, H.cmd.show(status, out, err))
    -- the spread of runs: one run's error at the mean, sqrt(mean samples)
    -- x the sample period (the mean period here): other, 2 samples in
    -- both: sqrt(2) x 8/6 ms
    local spread = lgprof.spread({ base, new })
    local other
    for _, r in ipairs(spread) do if r.name == "other" then other = r end end
    near(math.sqrt(2) * 0.008 / 6, other.error, "spread other.error")
    base:close()
    new:close()
  end)

  it("leaves out calls where they were not recorded: diff, dot, check --max-calls", function()
    -- diff: no calls columns, and the rows' calls fields nil
    local status, out, err = run({ "--diff", "r1.data", "r2.data" })
    assert.equal(0, status, err)
    local head = out:match("\n\n([^\n]*\n[^\n]*)\n")
    assert.equal("         total change            self change\n"
      .. "seconds    +-  % base  seconds    +-  % base  function", head)
    local base = assert(lgprof.open(nil, tmp .. "/r1.data"))
    local rows = lgprof.diff(base, base)
    assert.is_false(rows.calls_recorded)
    for _, r in ipairs(rows) do
      assert.is_nil(r.calls_base); assert.is_nil(r.calls_effect); assert.is_nil(r.per_call_effect)
    end
    -- the core's selection for the pictures: no count on a perf.data arc
    for _, e in ipairs(base:select({}).edges) do assert.is_nil(e.count) end
    base:close()
    -- dot: an edge's label is its share alone; the legend says why
    status, out, err = run({ "--format=dot", "r1.data" })
    assert.equal(0, status, err)
    assert.is_nil(out:find("\u{d7}"), out) -- no "N×" anywhere
    assert.matches("edge: %% of the sampled stacks from the caller to the callee %(a sampler counts no call%)", out)
    -- check: --max-calls cannot be judged: a usage error (from a file too)
    status, out, err = run({ "check", "--max-calls=leaf=5", "r1.data" })
    assert.equal(2, status)
    assert.equal("", out)
    assert.matches("^lgprof: r1.data records sampled stacks, no calls: %-%-max%-calls", err)
    util.spit(tmp .. "/th.lua", "return { max_calls = { leaf = 5 } }\n")
    status, out, err = run({ "check", "--thresholds=th.lua", "r1.data" })
    assert.equal(2, status)
    assert.equal("", out)
    assert.matches("^lgprof: r1.data records sampled stacks, no calls: max_calls %(leaf%) cannot be used\n", err)
  end)
end)
