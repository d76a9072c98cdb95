-- gmon.out and perf.data of one run, combined (issue 26, part 4): times from
-- perf's stacks, calls from gmon.out (csrc/core/model/stackprofile.c,
-- lgp_profile_from_stacks_calls; lgprof.open's option perf, --perf=FILE).
--
-- (a) Deterministic: an ELF written by helpers.elfwriter whose symbols both
-- files use, a gmon.out (helpers.gmonwriter) and a perf.data
-- (helpers.perfwriter) written sample by sample. Every expected number is
-- derived by hand from what is written: a sample is 1 ms (period 1,000,000
-- ns of cpu-clock); calls are the arcs' counts.
-- (b) Live: the Trust chapter's easy/hard/work program built -pg
-- -fno-omit-frame-pointer and run under perf record: the combined children
-- of easy and hard match the split the program's loop counts give, within
-- sampling error, and real gprof's report on the same gmon.out splits
-- work's time equally (it does not). Pending where perf cannot record.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw, gw, ew = H.perfwriter, H.gmonwriter, H.elfwriter
local lgprof = require "lgprof"

local TMP = util.mktempdir("lgprof-combine")
local PID = 4242
local U = pw.CONTEXT_USER
local MS = 1000000 -- one sample's period, ns
local CHAIN = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN

-- the program: functions 0x100 bytes long from 0x401000
-- (after: gprof gives the last symbol no histogram time)
local ADDR = { main = 0x401000, easy = 0x401100, hard = 0x401200, work = 0x401300, spare = 0x401400,
               after = 0x401500 }

local function elf(path, addrs, names)
  local syms = {}
  for _, name in ipairs(names) do
    syms[#syms + 1] = { name = name, addr = addrs[name], size = 0x100, type = "func",
                        bind = name:find(".", 1, true) and "local" or "global" } -- gcc's clones are local
  end
  ew.write(path, { text_addr = 0x401000, text_size = 0x1000, symbols = syms })
  return path
end

-- gmon.out: arcs { {from, to, count} } by name (a call from 16 bytes into
-- the caller), ticks { name = n } in the histogram (100 Hz)
local function gmon(path, arcs, ticks, addrs)
  addrs = addrs or ADDR
  local h = gw.glibc_hist(0x401000, 0x402000, 100)
  for name, n in pairs(ticks or {}) do h.bins[gw.bin_for(h, addrs[name] + 8)] = n end
  for i = 1, h.n_bins do h.bins[i] = h.bins[i] or 0 end
  local a = {}
  for _, arc in ipairs(arcs) do
    a[#a + 1] = { from = addrs[arc[1]] + 0x10, to = addrs[arc[2]] + 4, count = arc[3] }
  end
  gw.write(path, { hist = { h }, arcs = a })
  return path
end

-- perf.data of exe: stacks { {n, leaf, caller, ...} } (names, leaf first),
-- n samples each of 1 ms
local function perfdata(path, exe, stacks, addrs, build_id)
  addrs = addrs or ADDR
  local f = pw.new({ attrs = { { sample_type = CHAIN, period = MS, ids = { 1 } } } })
  f:comm(PID, PID, "prog", 10, true)
  f:mmap2(PID, PID, 0x401000, 0x1000, 0x1000, exe, 20)
  local t = 100
  for _, s in ipairs(stacks) do
    for _ = 1, s[1] do
      local chain = { U, addrs[s[2]] + 8 }
      for i = 3, #s do chain[#chain + 1] = addrs[s[i]] + 0x14 end -- return addresses
      t = t + 1
      f:sample({ ip = addrs[s[2]] + 8, pid = PID, tid = PID, time = t, period = MS, chain = chain })
    end
  end
  f:finished_round()
  if build_id then f:feature("buildids", { { id = build_id, path = exe } }) end
  pw.write(path, f:bytes())
  return path
end

local NAMES = { "main", "easy", "hard", "work", "spare", "after" }
local EXE = elf(TMP .. "/prog", ADDR, NAMES)
-- main calls easy and hard once, spare 5 times; easy and hard call work
-- 1000 times each
local ARCS = { { "main", "easy", 1 }, { "main", "hard", 1 }, { "easy", "work", 1000 },
               { "hard", "work", 1000 }, { "main", "spare", 5 } }
-- work's 100 samples: 10 under easy, 90 under hard; 2 in easy itself
local STACKS = { { 10, "work", "easy", "main" }, { 90, "work", "hard", "main" }, { 2, "easy", "main" } }
local GMON = gmon(TMP .. "/gmon.out", ARCS, { work = 10 })
local PERF = perfdata(TMP .. "/perf.data", EXE, STACKS)

local function open(exe, g, perf)
  return lgprof.open(exe, g, { perf = perf, kallsyms = "" })
end

local function close(a, b, what)
  assert(math.abs(a - b) < 1e-9, ("%s: %.12g, expected %.12g"):format(what or "", a, b))
end

local function arc_of(profile, from, to)
  for a in profile:find(to):callers() do
    if a.caller.name == from then return a end
  end
end

describe("a profile of gmon.out's calls and perf.data's times", function()
  it("takes each function's calls from gmon.out and its times from the stacks", function()
    local p = assert(open(EXE, GMON, PERF))
    assert.equal("stacks", p.source)
    assert.equal("gmon", p.calls_source)
    local want = { -- calls, self (s), children (s)
      work = { 2000, 0.100, 0 }, easy = { 1, 0.002, 0.010 }, hard = { 1, 0, 0.090 },
      spare = { 5, 0, 0 }, main = { 0, 0, 0.102 },
    }
    for name, w in pairs(want) do
      local fn = assert(p:find(name), name)
      assert.equal(w[1], fn.calls, name .. " calls")
      close(fn.self, w[2], name .. " self")
      close(fn.children, w[3], name .. " children")
    end
    p:close()
  end)

  it("gives every arc gmon.out's count and its measured time, those no stack shows with none", function()
    local p = assert(open(EXE, GMON, PERF))
    local want = { -- count, self, children
      { "main", "easy", 1, 0.002, 0.010 }, { "main", "hard", 1, 0, 0.090 },
      { "easy", "work", 1000, 0.010, 0 }, { "hard", "work", 1000, 0.090, 0 },
      { "main", "spare", 5, 0, 0 },
    }
    for _, w in ipairs(want) do
      local a = assert(arc_of(p, w[1], w[2]), w[1] .. " -> " .. w[2])
      local what = w[1] .. " -> " .. w[2]
      assert.equal(w[3], a.count, what)
      close(a.self, w[4], what .. " self")
      close(a.children, w[5], what .. " children")
      assert.is_false(a.is_estimated, what)
    end
    -- measured arcs: nothing depends on gprof's assumption
    assert.same({}, p:ambiguous())
    p:close()
  end)

  it("prints the calls and per-call columns, and says which file each comes from", function()
    local status, out, err = cmd.lgprof({ "-b", "-p", EXE, GMON, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.truthy(out:find("\nTimes are sampled stacks from perf.data (cpu-clock); calls are counted "
      .. "by gmon.out.\n", 1, true), out)
    -- per call, in ms: work 100 ms / 2000 = 0.05 (self and total); easy
    -- self 2 / 1, total (2 + 10) / 1; hard 0 and 90; spare 0 / 5
    local function line(pct, cum, self, calls, spc, tpc, name)
      return ("%6.2f %9.2f %8.2f %8d %8.2f %8.2f  %s\n"):format(pct, cum, self, calls, spc, tpc, name)
    end
    assert.truthy(out:find(line(100 / 102 * 100, 0.10, 0.10, 2000, 0.05, 0.05, "work"), 1, true), out)
    assert.truthy(out:find(line(2 / 102 * 100, 0.10, 0.00, 1, 2.00, 12.00, "easy"), 1, true), out)
    assert.truthy(out:find(line(0, 0.10, 0.00, 1, 0.00, 90.00, "hard"), 1, true), out)
    assert.truthy(out:find(line(0, 0.10, 0.00, 5, 0.00, 0.00, "spare"), 1, true), out)
    assert.truthy(out:find(" ms/call ", 1, true), out)
  end)

  it("prints the call graph's counts from gmon.out and its times from the stacks", function()
    local status, out, err = cmd.lgprof({ "-b", "-q", EXE, GMON, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(0, status, cmd.show(status, out, err))
    -- work's entry: 100 of the 102 ms (main's is first); its parents' lines
    -- carry their measured shares (10 and 90 ms) and gmon's counts
    assert.truthy(out:find("                0.01    0.00    1000/2000        easy [", 1, true), out)
    assert.truthy(out:find("                0.09    0.00    1000/2000        hard [", 1, true), out)
    assert.truthy(out:find("\n[2]     98.0    0.10    0.00    2000         work [2]\n", 1, true), out)
    assert.truthy(out:find("                0.00    0.00       5/5           spare [", 1, true), out)
    assert.truthy(out:find("\ngranularity: each sample is one stack from perf.data (cpu-clock); calls "
      .. "counted by gmon.out for ", 1, true), out)
  end)

  it("says both sources in the JSON export", function()
    local status, out = cmd.lgprof({ "--format=json", EXE, GMON, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(0, status)
    assert.truthy(out:find('"source":"perf.data+gmon"', 1, true))
    assert.truthy(out:find("calls are counted by gmon.out", 1, true))
  end)

  it("says where the calls come from in --format=text's legend and the HTML page", function()
    local status, out = cmd.lgprof({ "--format=text", EXE, GMON, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(0, status)
    assert.truthy(out:find("nothing is estimated from arcs; calls are counted by gmon.out.", 1, true), out)
    -- work's row: 100 of 102 samples, 0.1 s ± sqrt(100) ms, 2000 calls
    -- (three decimals: the period is 1 ms)
    assert.truthy(out:find(" 98.04  0.100 ± 0.010      100   2000  ", 1, true), out)
    status, out = cmd.lgprof({ "--format=html", EXE, GMON, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(0, status)
    assert.truthy(out:find('"counted":true', 1, true))
  end)

  it("takes gmon.out's calls for the functions no stack shows, and only for them", function()
    -- a perf.data without spare, nor easy: both still have their calls
    local path = perfdata(TMP .. "/hardonly.data", EXE, { { 90, "work", "hard", "main" } })
    local p = assert(open(EXE, GMON, path))
    assert.equal(1, p:find("easy").calls)
    assert.equal(5, p:find("spare").calls)
    close(p:find("easy").children, 0, "easy children")
    close(p:find("work").self, 0.090, "work self")
    p:close()
  end)

  it("matches gcc's clones, which gprof's rule would fold into the function before them", function()
    local addrs = { main = 0x401000, work = 0x401100, ["work.isra.0"] = 0x401200, after = 0x401300 }
    local exe = elf(TMP .. "/clones", addrs, { "main", "work", "work.isra.0", "after" })
    local g = gmon(TMP .. "/clones.gmon", { { "main", "work", 3 }, { "main", "work.isra.0", 7 } },
      { ["work.isra.0"] = 5 }, addrs)
    local path = perfdata(TMP .. "/clones.data", exe,
      { { 50, "work.isra.0", "main" }, { 1, "work", "main" } }, addrs)
    local p = assert(open(exe, g, path))
    local clone = assert(p:find("work.isra.0"))
    assert.equal(7, clone.calls)
    close(clone.self, 0.050, "clone self")
    assert.equal(3, p:find("work").calls)
    close(p:find("work").self, 0.001, "work self")
    for _, f in ipairs(lgprof.doctor(p)) do assert.not_equal("different-runs", f.id, f.message) end
    p:close()
  end)

  it("refuses a --perf file that is no perf.data, and a missing one, in one line", function()
    local line = cmd.file_error(GMON, cmd.lgprof({ EXE, GMON, "--perf=" .. GMON }, { cwd = TMP }))
    assert.truthy(line:find("not a perf.data file", 1, true), line)
    local missing = TMP .. "/no-such.data"
    cmd.file_error(missing, cmd.lgprof({ EXE, GMON, "--perf=" .. missing }, { cwd = TMP }))
  end)

  it("points a perf.data given among the gmon files to --perf", function()
    local line = cmd.file_error(PERF, cmd.lgprof({ EXE, GMON, PERF }, { cwd = TMP }))
    assert.truthy(line:find("--perf=FILE", 1, true), line)
  end)

  it("takes a gmon Profile, not a view, in lgprof.core.open_stacks; a closed one cannot serve a filter", function()
    local core = lgprof._core
    local g = assert(lgprof.open(EXE, GMON))
    local view = assert(g:filter({ focus = "easy" }))
    local ok, err = pcall(core.open_stacks, EXE, PERF, { kallsyms = "" }, view)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #4", 1, true), err)
    view:close()
    local p = assert(core.open_stacks(EXE, PERF, { kallsyms = "" }, g))
    assert.equal(2000, p:find("work").calls)
    g:close()
    ok, err = pcall(p.filter, p, { pid = PID })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("was closed", 1, true), err)
    p:close()
  end)

  it("keeps gmon.out's calls through a filter by thread", function()
    local p = assert(open(EXE, GMON, PERF))
    local sub = assert(p:filter({ pid = PID }))
    assert.equal(2000, sub:find("work").calls)
    close(sub:find("hard").children, 0.090, "hard children")
    sub:close()
    p:close()
  end)
end)

describe("lgprof.diff of combined profiles", function()
  -- the new run calls work twice as often from easy, at the same times
  local ARCS2 = { { "main", "easy", 1 }, { "main", "hard", 1 }, { "easy", "work", 3000 },
                  { "hard", "work", 1000 }, { "main", "spare", 5 } }
  local GMON2 = gmon(TMP .. "/gmon2.out", ARCS2, { work = 10 })

  local function row_of(rows, name)
    for _, r in ipairs(rows) do
      if r.name == name then return r end
    end
  end

  it("compares gmon.out's calls of the two runs and splits the change by them", function()
    local base, new = assert(open(EXE, GMON, PERF)), assert(open(EXE, GMON2, PERF))
    local rows = lgprof.diff(base, new)
    assert.is_true(rows.calls_recorded)
    local w = assert(row_of(rows, "work"))
    assert.equal(2000, w.calls_base)
    assert.equal(4000, w.calls_new)
    assert.equal(2000, w.calls_delta)
    -- same stacks: no change in time, so all of the calls' effect
    -- (2000 more calls at 0.1 s / 2000 calls) is offset per call
    close(w.total_delta, 0, "work total change")
    close(w.calls_effect, 0.1, "work calls effect")
    close(w.per_call_effect, -0.1, "work per-call effect")
    assert.equal(1, row_of(rows, "easy").calls_new)
    base:close(); new:close()
  end)

  it("has no calls against a perf.data profile alone, which counted none", function()
    local base, new = assert(open(EXE, GMON, PERF)), assert(lgprof.open(EXE, PERF, { kallsyms = "" }))
    local rows = lgprof.diff(base, new)
    assert.is_false(rows.calls_recorded)
    assert.is_nil(row_of(rows, "work").calls_base)
    base:close(); new:close()
  end)
end)

describe("the doctor on a combined profile", function()
  local function findings(p)
    local t = {}
    for _, f in ipairs(lgprof.doctor(p)) do t[f.id] = f end
    return t
  end

  it("shows where gprof's split by calls is wrong, with the numbers", function()
    local p = assert(open(EXE, GMON, PERF))
    local f = findings(p)["assumption-violated"]
    assert.truthy(f, "no assumption-violated")
    assert.equal("info", f.severity)
    assert.equal("work", f.callee)
    assert.equal(2000, f.calls)
    close(f.time, 0.100, "time")
    -- N = 100 samples; p = 1000/2000 for each caller: gprof gives each
    -- 50 ms; the binomial error is sqrt(100 x 0.5 x 0.5) = 5 samples, 5 ms;
    -- measured 10 and 90 ms: 8 errors off
    local by = {}
    for _, c in ipairs(f.callers) do by[c.name] = c end
    for name, measured in pairs({ easy = 0.010, hard = 0.090 }) do
      local c = by[name]
      assert.equal(1000, c.calls)
      close(c.estimate, 0.050, name .. " estimate")
      close(c.measured, measured, name .. " measured")
      close(c.error, 0.005, name .. " error")
      close(c.sigmas, 8, name .. " sigmas")
    end
    assert.truthy(f.message:find("easy 1000 calls, gprof 0.0500 s, measured 0.0100 s ± 0.0050", 1, true),
      f.message)
    p:close()
  end)

  it("finds no assumption violated within 3 standard errors, and one just beyond", function()
    -- 40 / 60 of 100 samples: 10 samples from gprof's 50, 2 errors
    local path = perfdata(TMP .. "/near.data", EXE,
      { { 40, "work", "easy", "main" }, { 60, "work", "hard", "main" } })
    local p = assert(open(EXE, GMON, path))
    assert.is_nil(findings(p)["assumption-violated"])
    p:close()
    -- 34 / 66: 16 samples off, 3.2 errors
    path = perfdata(TMP .. "/far.data", EXE,
      { { 34, "work", "easy", "main" }, { 66, "work", "hard", "main" } })
    p = assert(open(EXE, GMON, path))
    local f = findings(p)["assumption-violated"]
    assert.truthy(f)
    for _, c in ipairs(f.callers) do close(c.sigmas, 3.2, c.name) end
    p:close()
  end)

  it("finds different-runs: a gmon.out of another build of the program", function()
    -- another build: every function moved by 0x40
    local moved = {}
    for k, v in pairs(ADDR) do moved[k] = v + 0x40 end
    local other = elf(TMP .. "/other", moved, NAMES)
    local g = gmon(TMP .. "/other.gmon", ARCS, { work = 10 }, moved)
    local p = assert(open(other, g, PERF))
    local f = findings(p)["different-runs"]
    assert.truthy(f, "no different-runs")
    assert.equal("error", f.severity)
    assert.is_nil(f.exe) -- no binary of the recording has a function at its symbols
    assert.equal(0, f.matched)
    assert.truthy(f.message:find("no binary in the perf.data", 1, true), f.message)
    -- its histogram's 10 ticks (0.1 s) are all in work at 0x401340: no stack shows it
    close(f.gmon_seconds, 0.10, "gmon seconds")
    close(f.gmon_unseen_seconds, 0.10, "unseen")
    assert.is_nil(findings(p)["assumption-violated"])
    p:close()
  end)

  it("leaves a recorded binary it cannot read to unresolved-dso, not different-runs", function()
    -- the recording names a binary of the program's name that is not there,
    -- of another build-id (without one, the image given, of the same file
    -- name, would serve it)
    local gone = TMP .. "/gone/prog"
    local path = perfdata(TMP .. "/gone.data", gone, STACKS, nil, ("\5"):rep(20))
    local p = assert(open(EXE, GMON, path))
    local f = findings(p)
    assert.truthy(f["unresolved-dso"], "no unresolved-dso")
    assert.is_nil(f["different-runs"], f["different-runs"] and f["different-runs"].message)
    p:close()
  end)

  it("leaves a recording without samples to no-samples", function()
    local path = perfdata(TMP .. "/empty.data", EXE, {})
    local p = assert(open(EXE, GMON, path))
    local f = findings(p)
    assert.truthy(f["no-samples"])
    assert.is_nil(f["different-runs"])
    assert.equal(2000, p:find("work").calls)
    p:close()
  end)

  it("finds different-runs: the executable given is not the binary perf recorded", function()
    -- same symbols, other bytes
    local copy = TMP .. "/copy"
    local bytes = util.slurp(EXE)
    util.spit(copy, bytes:sub(1, 0x1000) .. "\xcc" .. bytes:sub(0x1002))
    local p = assert(open(copy, GMON, PERF))
    local f = findings(p)["different-runs"]
    assert.truthy(f)
    assert.equal(EXE, f.exe)
    assert.equal(4, f.matched)
    assert.truthy(f.message:find("their bytes differ", 1, true), f.message)
    p:close()
  end)

  it("finds different-runs: gmon.out's histogram has time where no stack is", function()
    -- 20 ticks (0.2 s) in spare, which no stack shows; 10 in work
    local g = gmon(TMP .. "/spare.gmon", ARCS, { work = 10, spare = 20 })
    local p = assert(open(EXE, g, PERF))
    local f = findings(p)["different-runs"]
    assert.truthy(f)
    close(f.gmon_seconds, 0.30, "gmon seconds")
    close(f.gmon_unseen_seconds, 0.20, "unseen")
    close(f.gmon_unseen_share, 2 / 3, "share")
    assert.truthy(f.message:find("0.20 s (67% of its time) in functions that no stack", 1, true), f.message)
    assert.truthy(f.message:find("spare most", 1, true), f.message)
    p:close()
  end)

  it("exits 3 for different-runs and 0 for assumption-violated alone (the command)", function()
    local status, out = cmd.lgprof({ "doctor", EXE, GMON, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(0, status, out)
    assert.truthy(out:find("assumption-violated (info): work:", 1, true), out)
    local g = gmon(TMP .. "/spare2.gmon", ARCS, { work = 10, spare = 20 })
    status, out = cmd.lgprof({ "doctor", EXE, g, "--perf=" .. PERF }, { cwd = TMP })
    assert.equal(3, status, out)
    assert.truthy(out:find("different-runs (error)", 1, true), out)
  end)
end)

-- {=== the live run

local SRC = [[
volatile unsigned long sink;
/* n steps of a recurrence no compiler folds into a closed form */
__attribute__((noinline)) void work(long n) {
  unsigned long s = 0;
  for (long i = 0; i < n; i++) s = s * 6364136223846793005u + (unsigned long)i;
  sink += s;
}
__attribute__((noinline)) void easy(void) { for (int i = 0; i < 1000; i++) work(%d); }
__attribute__((noinline)) void hard(void) { for (int i = 0; i < 1000; i++) work(%d); }
int main(void) { easy(); hard(); return 0; }
]]
local EASY_N, HARD_N = 70000, 630000 -- work's steps per call: easy's share 1/10

local function record()
  local dir = TMP .. "/live"
  util.exec_ok("mkdir -p " .. util.q(dir))
  util.spit(dir .. "/eh.c", SRC:format(EASY_N, HARD_N))
  if not util.exec_ok(("cd %s && gcc -O1 -g -pg -fno-omit-frame-pointer -o eh eh.c"):format(util.q(dir))) then
    return nil, "gcc -pg failed"
  end
  if not util.have("perf") or not util.exec_ok(("cd %s && perf record -q -e cpu-clock -F 999 -g"
      .. " -o perf.data ./eh >/dev/null 2>&1"):format(util.q(dir))) then
    return nil, "perf record cannot run here"
  end
  local f = io.open(dir .. "/gmon.out", "rb")
  if not f then return nil, "no gmon.out written" end
  f:close()
  return dir
end

describe("the Trust chapter's easy/hard/work program, recorded live", function()
  local dir, why = record()
  if not dir then
    print("combine_spec: live run skipped: " .. tostring(why))
    pending("live run: " .. tostring(why))
    return
  end

  it("gives easy and hard their real shares of work, where gprof splits it equally", function()
    local p = assert(lgprof.open(dir .. "/eh", dir .. "/gmon.out", { perf = dir .. "/perf.data" }))
    local easy, hard = p:find("easy"), p:find("hard")
    assert.equal(1, easy.calls)
    assert.equal(1, hard.calls)
    assert.equal(2000, p:find("work").calls)
    -- the real split, from the loop counts: work's steps are 1000 x EASY_N
    -- under easy and 1000 x HARD_N under hard
    local share = EASY_N / (EASY_N + HARD_N)
    local both = easy.children + hard.children
    local period = p.base_time / p.samples
    local n = both / period
    -- (about 700 samples at 999 Hz; a run whose timer lost most of its
    -- ticks is skipped, not judged)
    if n < 100 then return pending(("too few samples under easy and hard: %g"):format(n)) end
    -- binomial error of easy's share of those samples, 4 of them: easy's
    -- and hard's deviations are one (their sum is both), so the two
    -- assertions fail together by luck with probability 2 Q(4) = 6.3e-5
    local err = math.sqrt(n * share * (1 - share)) * period
    assert.is_true(math.abs(easy.children - share * both) <= 4 * err,
      ("easy's children %.4f s, expected %.4f s ± %.4f"):format(easy.children, share * both, err))
    assert.is_true(math.abs(hard.children - (1 - share) * both) <= 4 * err,
      ("hard's children %.4f s, expected %.4f s ± %.4f"):format(hard.children, (1 - share) * both, err))
    p:close()
    -- real gprof on the same gmon.out: 1000/2000 calls each, so equal
    -- children, far from the real split
    local status, out, gerr = cmd.gprof({ "-b", "-q", dir .. "/eh", dir .. "/gmon.out" })
    assert.equal(0, status, gerr)
    local gchild = {}
    for self_s, child, name in out:gmatch("\n%[%d+%]%s+[%d.]+%s+([%d.]+)%s+([%d.]+)%s+1%s+(%a+) %[") do
      gchild[name] = tonumber(child)
      assert.truthy(self_s)
    end
    assert.truthy(gchild.easy and gchild.hard, out)
    assert.is_true(math.abs(gchild.easy - gchild.hard) <= 0.011, out) -- one tick of rounding
    local gboth = gchild.easy + gchild.hard
    if gboth > 0.1 then
      assert.is_true(math.abs(gchild.easy - share * gboth) > 0.25 * gboth, out)
    end
  end)

  it("is what lgprof record --gmon reports", function()
    local status, out, err = cmd.lgprof({ "record", "--gmon", "-b", "-p", "--", "./eh" }, { cwd = dir })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.truthy(out:find("calls are counted by gmon.out.", 1, true), out)
    assert.matches("\n[ %d.]+ +2000 +[%d.]+ +[%d.]+  work\n", out)
  end)

  it("reports assumption-violated for work", function()
    local p = assert(lgprof.open(dir .. "/eh", dir .. "/gmon.out", { perf = dir .. "/perf.data" }))
    local found
    for _, f in ipairs(lgprof.doctor(p)) do
      if f.id == "assumption-violated" and f.callee == "work" then found = f end
      assert.not_equal("different-runs", f.id, f.message)
    end
    assert.truthy(found)
    p:close()
  end)
end)
