-- spec/bench/run.lua: lgprof and GNU gprof side by side (`make bench`).
--
--   lua5.4 spec/bench/run.lua [BUILD_DIR]        (default: build)
--
-- Builds its inputs under BUILD_DIR/bench/ with fixed seeds from the
-- generators next to this file (reused while the generator and its
-- parameters are unchanged), then times the full default report of
-- `bin/lgprof EXE GMON` and `/usr/bin/gprof EXE GMON`, output to a file:
--
--   B0  a real -O1 -g -pg program of 40 functions (gen_program.lua): start-up,
--       lgprof/gprof wall time, the median of B0_PAIRS (default 31) paired
--       runs taken in turn (lgprof, gprof, lgprof, ...) in one shell
--   B1  a real -O1 -g -pg program of 10,000 functions (gen_program.lua)
--   B1s the B1 shape with 20% static functions: `-b -p -q` (the index names
--       the statics' files, from the DWARF line tables)
--   B2  synthetic, 10,000 functions, 100,000 arcs, 3% back edges
--   B3  synthetic, 100,000 functions, 1,000,000 arcs; also lgprof.open alone
--       from Lua, --format=html, --format=pprof and --break-cycles (its time
--       above the plain report's); gprof only with BENCH_GPROF_B3=1
--   B4  lgprof alone at 25k, 50k, 100k functions (10 arcs each): growth
--   B5  line granularity and annotated source on the B1 program (built with
--       -g): `-b -l -p`, `-b -l -q` and `-A`, each against gprof
--
-- and lgprof against perf on the same perf.data (gprof's columns show
-- perf), recordings of gcc (cc1: its own frames) compiling one C file made
-- of gen_program.lua's parts, recorded once and cached; skipped, saying
-- why, when perf cannot record:
--   P1  6,000 functions, `perf record -e cpu-clock -F 4000 -g` (frame
--       pointers): the default report against `perf report --stdio
--       --no-inline`; peak RSS
--   P2  the same recording against `perf report --stdio` (its default:
--       inlined frames resolved, as lgprof's report)
--   P3  the same recording: --format=folded and --format=pprof against
--       `perf script | awk` folding the stacks as stackcollapse-perf does
--   P4  1,500 functions, `--call-graph dwarf`: the report against `perf
--       report --stdio` and `--no-inline`; the sample count and the total
--       weight (lgprof's against `perf script -F period`'s) must agree
--   PL  P1's compile recorded again at -F 2000: t(2n)/t(n) of the report
--   PA  the same recording: --annotate-asm of cc1's 20 hottest functions
--       against `perf annotate --stdio` of each of them (target >= 10x)
--   PD  P1's compile recorded a second time: `lgprof --diff --format=html`
--       and `--format=svg` of the two recordings against one recording's
--       `--format=html` page (at most 2x its time)
--   PT  P1's compile recorded with its switches (cpu-clock at 4000 Hz,
--       sched:sched_switch with DWARF stacks, --switch-events, as lgprof
--       record --off-cpu records them): --event=off-cpu and --event=wall
--       reports at most 1.5x the on-CPU report's time on the same file;
--       --time-range=25%,75% no slower than the whole
--   PH  P1's recording as a --format=html page in headless Chromium (when
--       installed): from the navigation to the first frame painted after
--       the page's scripts (target < 2 s), and a time range selected on the
--       timeline (the fragment's range=) until its frame is painted (the
--       page recomputed: target < 200 ms; what the view shows then, the
--       top of the page: the parts below it are laid out and painted only
--       when they come near the view, those near it in a frame after the
--       one timed), then, the timeline scrolled to the
--       top of the view, a second range (its flame graph and flat profile
--       in view: painted too); medians of BENCH_RUNS loads
--
-- BENCH_ONLY=B1s,B5 (a comma-separated list) runs only those benchmarks
-- (P1,P2,P3,P4,PL,PA,PD,PT,PH for the perf.data rows).
-- Each command runs BENCH_RUNS times (default and minimum 3; 11 when its
-- first run took under 1 s, so short commands get a steadier median); the table
-- shows the medians of wall time (bash's $EPOCHREALTIME around the command,
-- for millisecond resolution) and peak RSS (GNU time's %M, in a second run
-- of the same command), the ratio
-- gprof/lgprof, the target and whether it is met.  A missed target prints
-- MISSED and does not fail; a failing generator or command exits 1.

package.path = ((arg and arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/../?.lua;" .. package.path
local util = require "helpers.util"
local q, slurp, spit = util.q, util.slurp, util.spit

local function log(fmt, ...) io.stderr:write("bench: ", fmt:format(...), "\n") end

local function die(fmt, ...)
  io.stdout:flush()
  io.stderr:write("bench: error: ", fmt:format(...), "\n")
  os.exit(1)
end

local function sh(cmd)
  local ok, how, code = os.execute(cmd)
  if not ok then die("command failed (%s %s): %s", how, code, cmd) end
end

local function capture(cmd)
  local p = assert(io.popen(cmd))
  local s = p:read("a")
  local ok, how, code = p:close()
  if not ok then die("command failed (%s %s): %s", how, code, cmd) end
  return s
end

local function exists(path) local f = io.open(path, "rb"); if f then f:close() end; return f ~= nil end

---------------------------------------------------------------------------
-- Settings
---------------------------------------------------------------------------
local LUA = os.getenv("BENCH_LUA") or (arg[-1] and not arg[-1]:find("^%-") and arg[-1]) or "lua5.4"
local HERE = capture("cd " .. q((arg[0]:match("^(.*)/[^/]*$") or ".")) .. " && pwd"):gsub("\n$", "")
local ROOT = HERE:gsub("/spec/bench$", "")
local BUILD = arg[1] or os.getenv("BUILD") or "build"
if not BUILD:find("^/") then BUILD = capture("pwd"):gsub("\n$", "") .. "/" .. BUILD end
local BENCH = BUILD .. "/bench"
-- Reports are deleted once compared (BENCH_KEEP=1 keeps them): left on
-- disk, the kernel writes their hundreds of megabytes back 30 s later, in
-- the middle of later runs, which then took up to twice as long.
local OUT = os.getenv("BENCH_OUT") or (BENCH .. "/out")
local KEEP = os.getenv("BENCH_KEEP") == "1"
local function done_with(...)
  if KEEP then return end
  for _, path in ipairs { ... } do os.remove(path) end
end
-- the executable `make` builds: bin/lgprof, or BUILD/bin/lgprof for another BUILD
local LGPROF = ROOT .. "/bin/lgprof"
local GPROF = "/usr/bin/gprof"
local GPROF_B3 = os.getenv("BENCH_GPROF_B3") == "1"
local ONLY = os.getenv("BENCH_ONLY")
local function want(...)
  if not ONLY or ONLY == "" then return true end
  for _, name in ipairs { ... } do
    if ("," .. ONLY .. ","):find("," .. name .. ",", 1, true) then return true end
  end
  return false
end

local RUNS = math.tointeger(tonumber(os.getenv("BENCH_RUNS") or "3")) or 3
if RUNS < 3 then log("BENCH_RUNS=%d raised to the minimum of 3", RUNS); RUNS = 3 end
local SHORT_RUNS = 11 -- runs of commands under 1 s
local B0_PAIRS = math.max(30, math.tointeger(tonumber(os.getenv("B0_PAIRS") or "31")) or 31)

-- Fixed seeds and sizes.
local B0 = { n = 40, seed = 1, seconds = 0.2 }
local B1 = { n = 10000, seed = 1, seconds = 1 }
local B1S = { n = 10000, seed = 1, seconds = 1, statics = 20 }
local SYNTH_SEED, BACK = 2, 3
local B2 = { n = 10000, arcs = 100000 }
local B3 = { n = 100000, arcs = 1000000 }
local B4 = { { n = 25000, arcs = 250000 }, { n = 50000, arcs = 500000 }, { n = 100000, arcs = 1000000 } }

if not exists("/usr/bin/time") then die("/usr/bin/time (GNU time) is missing: apt-get install time") end
if not exists(GPROF) then die("%s is missing: apt-get install binutils", GPROF) end
if exists(BUILD .. "/bin/lgprof") then LGPROF = BUILD .. "/bin/lgprof" end
if not exists(LGPROF) then die("%s is missing: run make first", LGPROF) end
if not exists(BUILD .. "/lgprof/core.so") then die("%s/lgprof/core.so is missing: run make first", BUILD) end
sh("mkdir -p " .. q(OUT))

-- (LUA_CPATH_5_4: B3's lgprof.open from Lua loads BUILD's core)
local ENV = "export LC_ALL=C LUA_CPATH_5_4=" .. q(BUILD .. "/?.so;;") .. "; "

---------------------------------------------------------------------------
-- Inputs, cached under BENCH with a stamp of the generator and parameters
---------------------------------------------------------------------------
local function cached(dir, stamp, files, build)
  local sf = dir .. "/stamp"
  local ok = slurp(sf) == stamp
  for _, f in ipairs(files) do ok = ok and exists(dir .. "/" .. f) end
  if ok then log("reusing %s", dir); return end
  log("building %s", dir)
  sh("rm -rf " .. q(dir) .. " && mkdir -p " .. q(dir))
  build()
  for _, f in ipairs(files) do
    if not exists(dir .. "/" .. f) then die("%s/%s was not produced", dir, f) end
  end
  spit(sf, stamp)
end

local function synth(n, arcs)
  local dir = ("%s/synth-n%d-a%d-b%d-s%d"):format(BENCH, n, arcs, BACK, SYNTH_SEED)
  local gen = HERE .. "/gen_synth.lua"
  local cmd = ("%s %s %d %d %d %d %s"):format(q(LUA), q(gen), n, arcs, BACK, SYNTH_SEED, q(dir))
  local stamp = capture("cksum " .. q(gen) .. " " .. q(ROOT .. "/spec/helpers/gmonwriter.lua")
                        .. " " .. q(ROOT .. "/spec/helpers/prng.lua")
                        .. " | cut -d' ' -f1,2") .. ("gen_synth.lua %d %d %d %d\n"):format(n, arcs, BACK, SYNTH_SEED)
  cached(dir, stamp, { "synth", "gmon.out" }, function() sh(cmd .. " >&2") end)
  return { exe = dir .. "/synth", gmon = dir .. "/gmon.out", dir = dir,
           desc = ("gen_synth.lua %d %d %d %d"):format(n, arcs, BACK, SYNTH_SEED) }
end

local function program(n, seed, seconds, statics)
  statics = statics or 0
  local dir = ("%s/prog-n%d-s%d-t%g%s"):format(BENCH, n, seed, seconds,
    statics > 0 and ("-st%d"):format(statics) or "")
  local gen = HERE .. "/gen_program.lua"
  local stamp = capture("cksum " .. q(gen) .. " " .. q(ROOT .. "/spec/helpers/prng.lua")
                        .. " | cut -d' ' -f1,2; gcc -dumpfullversion")
                .. ("gen_program.lua %d %d %g %d\n"):format(n, seed, seconds, statics)
  cached(dir, stamp, { "prog", "gmon.out" }, function()
    sh(("%s %s %d %d %s %g %d >&2"):format(q(LUA), q(gen), n, seed, q(dir), seconds, statics))
    log("compiling and running %s/prog", dir)
    sh(q(dir .. "/build.sh") .. " run >&2")
  end)
  return { exe = dir .. "/prog", gmon = dir .. "/gmon.out", dir = dir,
           desc = ("gen_program.lua %d %d DIR %g %d; DIR/build.sh run"):format(n, seed, seconds, statics) }
end

-- Call-graph records in a gmon.out, from lgprof -i.
local function arc_records(inp)
  local s = capture(ENV .. q(LGPROF) .. " -i " .. q(inp.exe) .. " " .. q(inp.gmon))
  return tonumber(s:match("(%d+) call%-graph record")) or 0
end

---------------------------------------------------------------------------
-- Measuring
---------------------------------------------------------------------------
local function median(t)
  local s = table.move(t, 1, #t, 1, {})
  table.sort(s)
  local m = (#s + 1) // 2
  return #s % 2 == 1 and s[m] or (s[m] + s[m + 1]) / 2
end

-- Runs `cmd > out` RUNS times; returns median wall seconds and peak RSS (KB).
-- A failing command ends the benchmarks, unless may_fail: then it returns
-- nil and the exit status. once: a command of minutes (perf report
-- resolving inlined frames through addr2line) runs once, under GNU time
-- alone (its wall time and peak RSS from the same run).
local function measure(label, cmd, out, may_fail, once)
  local ts, rss = {}, {}
  if once then
    local tf, ef = out .. ".time", out .. ".stderr"
    local script = ENV .. ("rm -f %s; /usr/bin/time -f '%%e %%M' -o %s %s > %s 2> %s; echo $?")
      :format(q(out), q(tf), cmd, q(out), q(ef))
    local rc = capture("bash -c " .. q(script)):match("^(%d+)")
    local t, kb = (slurp(tf) or ""):match("([%d.]+) (%d+)%s*$")
    if rc ~= "0" or not kb then
      io.stderr:write(slurp(ef) or "", slurp(tf) or "")
      die("%s failed (status %s): %s", label, tostring(rc), cmd)
    end
    log("%-28s one run: %.2f s, %.1f MB", label, tonumber(t), tonumber(kb) / 1024)
    return { t = tonumber(t), rss = tonumber(kb), out = out, once = true }
  end
  -- a command of a few tens of milliseconds is at the mercy of the page
  -- cache and the scheduler: after a short first run, take SHORT_RUNS runs
  -- so the median means something (long commands keep RUNS)
  local runs, i = RUNS, 0
  while i < runs do
    i = i + 1
    local tf, ef = out .. ".time", out .. ".stderr"
    -- wall time of the command alone (GNU time's own fork and exec would
    -- weigh on commands of a few milliseconds), then its peak RSS in a
    -- second run under GNU time
    -- (the report goes to a new file each time: truncating the previous
    -- run's 17-175 MB would be timed too)
    local script = ENV .. ("rm -f %s; s=$EPOCHREALTIME; %s > %s 2> %s; rc=$?; e=$EPOCHREALTIME; " ..
      "[ $rc = 0 ] && { /usr/bin/time -f '%%e %%M' -o %s %s > /dev/null 2>> %s; rc=$?; }; " ..
      "echo \"$rc $s $e\""):format(q(out), cmd, q(out), q(ef), q(tf), cmd, q(ef))
    local res = capture("bash -c " .. q(script))
    local rc, s, e = res:match("^(%d+) ([%d.]+) ([%d.]+)")
    if rc ~= "0" then
      io.stderr:write(slurp(ef) or "", slurp(tf) or "")
      if may_fail then return nil, rc end
      die("%s failed (status %s): %s", label, tostring(rc), cmd)
    end
    local kb = (slurp(tf) or ""):match("[%d.]+ (%d+)%s*$")
    if not kb then die("cannot read GNU time's output in %s", tf) end
    ts[i], rss[i] = tonumber(e) - tonumber(s), tonumber(kb)
    if i == 1 and ts[1] < 1 then runs = math.max(RUNS, SHORT_RUNS) end
    log("%-28s run %d/%d: %.3f s, %.1f MB", label, i, runs, ts[i], rss[i] / 1024)
  end
  return { t = median(ts), rss = median(rss), out = out }
end

-- B0: `a` and `b` (shell text) run in turn, n pairs after one warm-up pair,
-- in one bash process (no Lua or shell start-up inside the timings); each
-- report goes to its own file. Returns the median of the pairs' a/b wall
-- ratios, and a's and b's median times.
local function paired(label, a, b, n, out)
  local script = ENV .. ("for i in $(seq 0 %d); do " ..
    "rm -f %s.a %s.b; s=$EPOCHREALTIME; %s > %s.a 2>/dev/null || exit 1; m=$EPOCHREALTIME; " ..
    "%s > %s.b 2>/dev/null || exit 2; e=$EPOCHREALTIME; echo \"$i $s $m $e\"; done")
    :format(n, q(out), q(out), a, q(out), b, q(out))
  local ratios, ta, tb = {}, {}, {}
  for line in capture("bash -c " .. q(script)):gmatch("[^\n]+") do
    local i, s, m, e = line:match("^(%d+) ([%d.]+) ([%d.]+) ([%d.]+)$")
    if i and i ~= "0" then
      ta[#ta + 1], tb[#tb + 1] = tonumber(m) - tonumber(s), tonumber(e) - tonumber(m)
      ratios[#ratios + 1] = ta[#ta] / tb[#tb]
    end
  end
  if #ratios ~= n then die("%s: %d of %d paired runs finished", label, #ratios, n) end
  log("%-28s %d pairs: lgprof %.4f s, gprof %.4f s, ratio %.3f", label, n, median(ta), median(tb),
    median(ratios))
  return median(ratios), { t = median(ta), out = out .. ".a" }, { t = median(tb), out = out .. ".b" }
end

-- The report of one tool (LGPROF or GPROF) with options (shell words) before
-- the files.
local function report(tool, who, name, inp, opts, may_fail)
  return measure(name .. " " .. who, q(tool) .. (opts and " " .. opts or "") .. " " .. q(inp.exe)
                 .. " " .. q(inp.gmon), OUT .. "/" .. name .. "." .. who .. ".txt", may_fail)
end

local function lgprof_report(name, inp, opts, may_fail)
  return report(LGPROF, "lgprof", name, inp, opts, may_fail)
end
local function gprof_report(name, inp, opts) return report(GPROF, "gprof", name, inp, opts) end

-- nil if the files are equal, else the number of the first differing line.
local function first_diff(a, b)
  local fa, fb = assert(io.open(a, "rb")), assert(io.open(b, "rb"))
  local n = 0
  while true do
    local la, lb = fa:read("L"), fb:read("L")
    n = n + 1
    if la ~= lb or la == nil then
      fa:close(); fb:close()
      if la == lb then return nil end
      return n
    end
  end
end

---------------------------------------------------------------------------
-- The table
---------------------------------------------------------------------------
local rows, met, missed = {}, 0, 0
local ROWFMT = "%-5s  %-36s  %10s  %8s  %9s  %8s  %8s  %-20s  %s"

local function secs(x) return x and ("%.3f"):format(x) or "-" end
local function mb(x) return x and ("%.1f"):format(x / 1024) or "-" end
local function ratio(x) return x and (x < 10 and "%.2fx" or "%.1fx"):format(x) or "-" end

local function diff_note(d)
  return d and ("DIFFERENT (first differing line %d)"):format(d) or "identical"
end

-- r: { bench, what, l = measurement, g = measurement, lt/lr/gt/gr = show its
-- time/RSS, ratio, target, ok = target met (nil: no target), note }
local function row(r)
  local status = "-"
  if r.ok ~= nil then
    status = (r.ok and "met" or "MISSED") .. (r.note and ": " .. r.note or "")
    if r.ok then met = met + 1 else missed = missed + 1 end
  end
  local l, g = r.l or {}, r.g or {}
  rows[#rows + 1] = ROWFMT:format(r[1], r[2], r.lt and secs(l.t) or "-", r.lr and mb(l.rss) or "-",
    r.gt and secs(g.t) or "-", r.gr and mb(g.rss) or "-", ratio(r.ratio), r.target or "-", status)
end

local function compare_rows(name, l, g, speedup, what)
  what = what or "full report"
  local fast = g.t / l.t
  row { name, what .. ": wall time", l = l, g = g, lt = true, gt = true, ratio = fast,
        target = (">= %dx faster"):format(speedup), ok = fast >= speedup }
  local d = first_diff(l.out, g.out)
  row { name, what .. ": byte for byte", target = "identical", ok = d == nil, note = diff_note(d) }
  row { name, what .. ": peak RSS", l = l, g = g, lr = true, gr = true, ratio = g.rss / l.rss,
        target = "lgprof < gprof", ok = l.rss < g.rss }
  return d
end

---------------------------------------------------------------------------
-- Inputs
---------------------------------------------------------------------------
local t_start = os.time()
local in0 = want("B0") and program(B0.n, B0.seed, B0.seconds)
local in1 = want("B1", "B5") and program(B1.n, B1.seed, B1.seconds)
local in1s = want("B1s") and program(B1S.n, B1S.seed, B1S.seconds, B1S.statics)
local in2 = want("B2") and synth(B2.n, B2.arcs)
local in3 = want("B3") and synth(B3.n, B3.arcs)
local in4 = {}
if want("B4") then
  for i, s in ipairs(B4) do in4[i] = synth(s.n, s.arcs) end
end

print(("lgprof benchmarks: median of %d runs each (%d for commands under 1 s; B0: %d pairs); wall time (s), peak RSS (MB); ratio = gprof / lgprof (B0: lgprof / gprof; B4: t(2n) / t(n); P rows: perf in gprof's columns, perf / lgprof; PL: t(2n) / t(n))")
      :format(RUNS, math.max(RUNS, SHORT_RUNS), B0_PAIRS))
print(("tools: bin/lgprof; %s; gcc %s; %s CPUs"):format(
  capture(GPROF .. " --version | head -1"):gsub("\n", ""), capture("gcc -dumpfullversion"):gsub("\n", ""),
  capture("nproc"):gsub("\n", "")))
print("inputs (DIR under " .. BENCH .. "; synthetic seed " .. SYNTH_SEED .. ", " .. BACK .. "% back edges):")
local function show(name, inp, what)
  if not inp then return end
  print(("  %-3s %-40s %s; %d call-graph records"):format(name, inp.dir:match("[^/]*$"), what, arc_records(inp)))
end
show("B0", in0, ("%d functions, seed %d, -O1 -g -pg, run ~%gs"):format(B0.n, B0.seed, B0.seconds))
show("B1", in1, ("%d functions, seed %d, -O1 -g -pg, run ~%gs"):format(B1.n, B1.seed, B1.seconds))
show("B1s", in1s, ("%d functions, %d%% static, seed %d, -O1 -g -pg, run ~%gs"):format(B1S.n, B1S.statics,
  B1S.seed, B1S.seconds))
show("B2", in2, ("%d functions, %d arcs"):format(B2.n, B2.arcs))
show("B3", in3, ("%d functions, %d arcs"):format(B3.n, B3.arcs))
for i, s in ipairs(B4) do show("B4", in4[i], ("%d functions, %d arcs"):format(s.n, s.arcs)) end
io.stdout:flush()

---------------------------------------------------------------------------
-- B0: start-up on a small program, paired runs
---------------------------------------------------------------------------
local notes = {}
if want("B0") then
  local r, l, g = paired("B0 lgprof/gprof", q(LGPROF) .. " " .. q(in0.exe) .. " " .. q(in0.gmon),
    q(GPROF) .. " " .. q(in0.exe) .. " " .. q(in0.gmon), B0_PAIRS, OUT .. "/B0")
  row { "B0", "full report: wall, lgprof/gprof", l = l, g = g, lt = true, gt = true, ratio = r,
        target = "<= 1.0x", ok = r <= 1.0 }
  local d = first_diff(l.out, g.out)
  row { "B0", "output, byte for byte", target = "identical", ok = d == nil, note = diff_note(d) }
  if d then
    notes[#notes + 1] = ("B0: first difference at line %d: diff %s %s"):format(d, l.out, g.out)
  else
    done_with(l.out, g.out)
  end
end

---------------------------------------------------------------------------
-- B1, B2: lgprof against gprof
---------------------------------------------------------------------------
for _, b in ipairs { { "B1", in1, 5 }, { "B2", in2, 100 } } do
  local name, inp, speedup = b[1], b[2], b[3]
  if not want(name) then goto next end
  local l = lgprof_report(name, inp)
  local g = gprof_report(name, inp)
  local d = compare_rows(name, l, g, speedup)
  if d then
    notes[#notes + 1] = ("%s: first difference at line %d: diff %s %s"):format(name, d, l.out, g.out)
  else
    done_with(l.out, g.out)
  end
  ::next::
end

---------------------------------------------------------------------------
-- B1s, B5: one report each, against gprof (B5 on B1's program: line mode and
-- annotated source; -A prints the sources, which sit next to the program)
---------------------------------------------------------------------------
for _, b in ipairs {
  { "B1s", in1s, "-b -p -q", 5, "-b -p -q" },
  { "B5", in1, "-b -l -p", 10, "-b -l -p" },
  { "B5", in1, "-b -l -q", 10, "-b -l -q" },
  { "B5", in1, "-A", 10, "-A" },
} do
  local name, inp, opts, speedup = b[1], b[2], b[3], b[4]
  if not want(name) then goto next end
  local tag = name .. opts:gsub("[ -]+", "_")
  -- (an lgprof that refuses the options makes a missed row, not an end)
  local l, status = lgprof_report(tag, inp, opts, true)
  local g = gprof_report(tag, inp, opts)
  local d = l and compare_rows(name, l, g, speedup, b[5])
  if not l then
    row { name, b[5] .. ": lgprof failed", g = g, gt = true, gr = true,
          target = (">= %dx faster"):format(speedup), ok = false, note = "exit status " .. status }
    done_with(g.out)
  elseif d then
    notes[#notes + 1] = ("%s %s: first difference at line %d: diff %s %s"):format(name, opts, d, l.out, g.out)
  else
    done_with(l.out, g.out)
  end
  ::next::
end

---------------------------------------------------------------------------
-- B3: large; gprof only on request; lgprof.open and the analysis from Lua
---------------------------------------------------------------------------
if want("B3") then
  local l = lgprof_report("B3", in3)
  local code = ("package.path = %q .. package.path; package.cpath = %q .. package.cpath; " ..
    "local lgprof = require 'lgprof'; local p = assert(lgprof.open(%q, %q)); " ..
    -- (the analysis runs when first needed: a cycle count needs all of it)
    "assert(p.cycle_count >= 0); p:close()")
    :format(ROOT .. "/lua/?.lua;" .. ROOT .. "/lua/?/init.lua;", BUILD .. "/?.so;", in3.exe, in3.gmon)
  local o = measure("B3 lgprof.open", q(LUA) .. " -e " .. q(code), OUT .. "/B3.open.txt")
  -- attribution bounds from Lua: the same opening and analysis, then
  -- total_min of every function (the dominator tree, built once) and
  -- total_max of the 100 heaviest by total (one traversal each; functions()
  -- is the call graph's index order: heaviest total first)
  local bcode = ("package.path = %q .. package.path; package.cpath = %q .. package.cpath; " ..
    "local lgprof = require 'lgprof'; local p = assert(lgprof.open(%q, %q)); " ..
    "assert(p.cycle_count >= 0); local i, s = 0, 0; " ..
    "for fn in p:functions() do i = i + 1; s = s + fn.total_min; " ..
    "if i <= 100 then s = s + fn.total_max end end; " ..
    "for c in p:cycles() do s = s + c.total_min + c.total_max end; p:close()")
    :format(ROOT .. "/lua/?.lua;" .. ROOT .. "/lua/?/init.lua;", BUILD .. "/?.so;", in3.exe, in3.gmon)
  local bo = measure("B3 bounds", q(LUA) .. " -e " .. q(bcode), OUT .. "/B3.bounds.txt")
  local g = GPROF_B3 and gprof_report("B3", in3) or nil
  -- lgprof doctor (status 3 when it finds something): its own opening and
  -- analysis plus its checks, which may cost one analysis more
  local dr = measure("B3 lgprof doctor", "bash -c " .. q(q(LGPROF) .. " doctor " .. q(in3.exe) .. " "
    .. q(in3.gmon) .. " || [ $? = 3 ]"), OUT .. "/B3.doctor.txt")
  row { "B3", "lgprof doctor", l = dr, lt = true, lr = true,
        target = "<= 2 x open + analysis", ok = dr.t <= 2 * o.t }
  row { "B3", "full report: wall time", l = l, g = g, lt = true, gt = g ~= nil, ratio = g and g.t / l.t,
        target = "lgprof <= 1.5 s", ok = l.t <= 1.5 }
  row { "B3", "lgprof.open + analysis (Lua)", l = o, lt = true, lr = true,
        target = "<= 0.5 s", ok = o.t <= 0.5 }
  row { "B3", "bounds (min all, max top 100)", l = bo, lt = true, lr = true,
        ratio = (bo.t - o.t) / o.t, target = "adds <= 1 analysis", ok = bo.t - o.t <= o.t }
  row { "B3", "full report: peak RSS", l = l, g = g, lr = true, gr = g ~= nil, ratio = g and g.rss / l.rss,
        target = "<= 200 MB", ok = l.rss <= 200 * 1024 }
  -- --format=pprof: the analysis, the estimated stacks encoded (lgprof.pprof) and gzipped
  local pp = report(LGPROF, "lgprof-pprof", "B3", in3, "--format=pprof")
  row { "B3", "--format=pprof: wall time, peak RSS", l = pp, lt = true, lr = true,
        target = "<= 1.5 s, <= 200 MB", ok = pp.t <= 1.5 and pp.rss <= 200 * 1024 }
  done_with(pp.out)
  -- --break-cycles: the arcs breaking every cycle, then the report with them
  -- deleted (from the profile read; analysed once): the search, the deletion
  -- and the list may add one analysis
  local bc = lgprof_report("B3-break-cycles", in3, "--break-cycles")
  row { "B3", "--break-cycles: added wall time", l = { t = bc.t - l.t }, lt = true,
        target = ("<= open + analysis (%.2f s)"):format(o.t), ok = bc.t - l.t <= o.t }
  done_with(bc.out)
  if g then
    local d = first_diff(l.out, g.out)
    row { "B3", "output, byte for byte", target = "identical", ok = d == nil, note = diff_note(d) }
    if d == nil then done_with(g.out) end
  else
    row { "B3", "gprof skipped (set BENCH_GPROF_B3=1)" }
  end
  -- --format=html: the capped interactive page (README, "--format=html")
  local h = lgprof_report("B3_html", in3, "--format=html")
  local hf = assert(io.open(h.out, "rb"))
  local hsize = hf:seek("end")
  hf:close()
  row { "B3", "--format=html: wall time", l = h, lt = true, lr = true, target = "<= 3 s, page <= 8 MB",
        ok = h.t <= 3 and hsize <= 8e6, note = ("%.1f MB"):format(hsize / 1e6) }
  done_with(l.out, o.out, dr.out, h.out, bo.out)
end

---------------------------------------------------------------------------
-- B4: growth per doubling, lgprof alone
---------------------------------------------------------------------------
if want("B4") then
  local prev
  for i, s in ipairs(B4) do
    local l = lgprof_report(("B4-%dk"):format(s.n // 1000), in4[i])
    local r = prev and l.t / prev.t
    local ok
    if r then ok = r <= 2.2 end
    row { "B4", ("full report: %d fn, %d arcs"):format(s.n, s.arcs), l = l, lt = true, lr = true,
          ratio = r, target = r and "t(2n)/t(n) <= 2.2x", ok = ok }
    done_with(l.out)
    prev = l
  end
end

---------------------------------------------------------------------------
-- P1-P4, linear: perf.data recordings of gcc compiling a generated file,
-- lgprof against perf on the same file
---------------------------------------------------------------------------
if want("P1", "P2", "P3", "P4", "PL", "PA", "PD", "PT", "PH") then
  local PERF = capture("command -v perf || true"):gsub("\n$", "")
  local why
  if PERF == "" then
    why = "perf is not installed"
  elseif not os.execute("cd " .. q(OUT) .. " && " .. q(PERF) .. " record -q -o pcheck.data -e cpu-clock -g -- true"
                        .. " > /dev/null 2>&1") then
    why = "perf cannot record here (perf_event_paranoid, or no perf events in this container)"
  end
  os.remove(OUT .. "/pcheck.data")
  if why then
    row { "P", "perf.data rows skipped: " .. why }
  else
    local CC1 = capture("gcc -print-prog-name=cc1"):gsub("\n$", "")
    -- one C file of n functions: gen_program.lua's parts, concatenated
    -- (gcc compiles it; gcc itself is the workload)
    local function recording(n, name, flags)
      local dir = ("%s/perf-gcc-n%d-%s"):format(BENCH, n, name)
      local gen = HERE .. "/gen_program.lua"
      local stamp = capture("cksum " .. q(gen) .. " " .. q(ROOT .. "/spec/helpers/prng.lua")
                            .. " | cut -d' ' -f1,2; gcc -dumpfullversion; " .. q(PERF) .. " --version")
                    .. ("gen_program.lua %d 1; perf record %s -- gcc -O1 -g -c one.c\n"):format(n, flags)
      cached(dir, stamp, { "one.c", "perf.data" }, function()
        sh(("%s %s %d 1 %s 1 >&2"):format(q(LUA), q(gen), n, q(dir)))
        sh(("cd %s && cat prog.h prog_*.c | grep -v '^#include \"prog.h\"' > one.c"):format(q(dir)))
        log("recording gcc -O1 -g -c %s/one.c (%s)", dir, flags)
        sh(("cd %s && %s record -q -o perf.data %s -- gcc -O1 -g -c one.c -o one.o >&2")
           :format(q(dir), q(PERF), flags))
      end)
      return { exe = CC1, gmon = dir .. "/perf.data", dir = dir, n = n, flags = flags }
    end
    -- the sample count and the total weight, as lgprof reads them
    local function lg_totals(inp)
      local code = ("package.path = %q .. package.path; package.cpath = %q .. package.cpath; " ..
        "local lgprof = require 'lgprof'; local p = assert(lgprof.open(%q, %q)); local s, w = 0, 0; " ..
        "for t in p:threads() do s = s + t.samples; w = w + t.weight end; " ..
        "io.write(('%%d %%d'):format(s, w)); p:close()")
        :format(ROOT .. "/lua/?.lua;" .. ROOT .. "/lua/?/init.lua;", BUILD .. "/?.so;", inp.exe, inp.gmon)
      local s, w = capture(ENV .. q(LUA) .. " -e " .. q(code)):match("(%d+) (%d+)")
      return tonumber(s), tonumber(w)
    end
    -- and as perf reads them: every sample's period (no unwinding)
    local function perf_totals(inp)
      local s, w = capture(ENV .. q(PERF) .. " script -i " .. q(inp.gmon) .. " -F period 2>/dev/null"
        .. " | awk '{ n++; w += $1 } END { printf \"%.0f %.0f\", n, w }'"):match("(%d+) (%d+)")
      return tonumber(s), tonumber(w)
    end
    local function perf_cmd(inp, args) return q(PERF) .. " " .. args:gsub("FILE", q(inp.gmon)) end
    local function perf_run(label, inp, args, tag, once)
      return measure(label, perf_cmd(inp, args), OUT .. "/" .. tag .. ".perf.txt", false, once)
    end
    local fp = want("P1", "P2", "P3", "PL", "PA", "PD", "PH") and recording(6000, "fp", "-e cpu-clock -F 4000 -g")
    -- (a second recording of the same compile, the new side of PD's diff)
    local fp2 = want("PD") and recording(6000, "fp-2", "-e cpu-clock -F 4000 -g")
    local half = want("PL") and recording(6000, "fp-half", "-e cpu-clock -F 2000 -g")
    local dw = want("P4") and recording(1500, "dwarf", "-e cpu-clock -F 4000 --call-graph dwarf")
    local sw = want("PT") and recording(6000, "switches", "-e cpu-clock/freq=4000/"
      .. " -e sched:sched_switch/call-graph=dwarf/ --switch-events -g")
    -- (the recordings asked for: { fp or nil, ... } would stop at the first missing one)
    local inputs = {}
    for _, inp in ipairs { fp, half, dw, fp2, sw } do
      if inp then inputs[#inputs + 1] = inp end
    end
    for _, inp in ipairs(inputs) do
      local ls, lw = lg_totals(inp)
      print(("  P   %-40s gen_program.lua %d 1, one file; perf record %s -- gcc -O1 -g -c; %d samples, weight %d")
            :format(inp.dir:match("[^/]*$"), inp.n, inp.flags, ls, lw))
      inp.samples, inp.weight = ls, lw
    end
    io.stdout:flush()
    local function vs(name, what, l, p, speedup, note)
      local fast = p.t / l.t
      row { name, what .. ": wall", l = l, g = p, lt = true, gt = true, ratio = fast,
            target = speedup == 1 and "no slower" or (">= %dx faster"):format(speedup),
            ok = fast >= speedup, note = note }
    end
    local function rss_row(name, what, l, p)
      row { name, what .. ": peak RSS", l = l, g = p, lr = true, gr = true, ratio = p.rss / l.rss,
            target = "lgprof < perf", ok = l.rss < p.rss }
    end
    local lfp
    if want("P1", "P2", "PL") then lfp = lgprof_report("P1", fp) end
    if want("P1") then
      local p = perf_run("P1 perf report --no-inline", fp, "report -i FILE --stdio --no-inline", "P1")
      vs("P1", "vs perf report --no-inline", lfp, p, 10)
      rss_row("P1", "vs perf report --no-inline", lfp, p)
      done_with(p.out)
    end
    if want("P2") then
      local p = perf_run("P2 perf report", fp, "report -i FILE --stdio", "P2")
      vs("P2", "vs perf report (inline)", lfp, p, 50)
      rss_row("P2", "vs perf report (inline)", lfp, p)
      done_with(p.out)
    end
    if want("P3") then
      -- stackcollapse-perf's folding: comm;root;...;leaf and a sample count
      local fold = [[awk '/^[^ \t]/ { if (c != "") n[c s]++; c = $1; s = ""; next }
        /^[ \t]*$/ { if (c != "") n[c s]++; c = ""; next }
        { f = $2; sub(/\+0x[0-9a-f]+$/, "", f); s = ";" f s }
        END { if (c != "") n[c s]++; for (k in n) print k, n[k] }']]
      local p = measure("P3 perf script | fold", "bash -c " .. q("set -o pipefail; "
        .. perf_cmd(fp, "script -i FILE") .. " 2>/dev/null | LC_ALL=C " .. fold), OUT .. "/P3.perf.txt")
      for _, fmt in ipairs { "folded", "pprof" } do
        local l = report(LGPROF, "lgprof." .. fmt, "P3", fp, "--format=" .. fmt)
        vs("P3", fmt .. " vs perf script | awk", l, p, 10)
        done_with(l.out)
      end
      done_with(p.out)
    end
    if want("P4") then
      local l = lgprof_report("P4", dw)
      -- (perf resolves inlined frames through addr2line: minutes; one run)
      local p = perf_run("P4 perf report", dw, "report -i FILE --stdio", "P4", true)
      local pn = perf_run("P4 perf report --no-inline", dw, "report -i FILE --stdio --no-inline", "P4n")
      local ps, pw = perf_totals(dw)
      local same = ps == dw.samples and pw == dw.weight
      local note = same and ("same totals: %d samples, weight %d"):format(ps, pw)
        or ("MISMATCH: lgprof %s samples, weight %s; perf %s, %s"):format(dw.samples, dw.weight, ps, pw)
      row { "P4", "samples and weight vs perf script", target = "equal", ok = same, note = note }
      vs("P4", "vs perf report (1 run)", l, p, 50)
      rss_row("P4", "vs perf report (1 run)", l, p)
      vs("P4", "vs perf report --no-inline", l, pn, 1)
      if not same then notes[#notes + 1] = "P4: " .. note end
      done_with(l.out, p.out, pn.out)
    end
    if want("PA") then
      -- --annotate-asm of P1's 20 hottest functions of cc1 (by self, raw
      -- symbol names) against perf annotate --stdio of each of the same 20
      -- (one perf command a function: it annotates one symbol a run)
      local code = ("package.path = %q .. package.path; package.cpath = %q .. package.cpath; " ..
        "local lgprof = require 'lgprof'; local p = assert(lgprof.open(%q, %q, { demangle = false })); " ..
        "local t = {}; for fn in p:functions() do if not fn.is_inline and fn.self > 0 and " ..
        "tostring(fn.dso):match('cc1$') then t[#t + 1] = fn end end; " ..
        "table.sort(t, function(a, b) return a.self > b.self end); " ..
        "for i = 1, math.min(20, #t) do print(t[i].symbol) end; p:close()")
        :format(ROOT .. "/lua/?.lua;" .. ROOT .. "/lua/?/init.lua;", BUILD .. "/?.so;", fp.exe, fp.gmon)
      local names = {}
      for n in capture(ENV .. q(LUA) .. " -e " .. q(code)):gmatch("[^\n]+") do names[#names + 1] = n end
      local alts = {}
      for i, n in ipairs(names) do alts[i] = (n:gsub("[.$]", "\\%0")) end
      local re = "^(" .. table.concat(alts, "|") .. ")$"
      local l = measure("PA lgprof --annotate-asm", q(LGPROF) .. " --no-demangle --annotate-asm=" .. q(re)
        .. " " .. q(fp.exe) .. " " .. q(fp.gmon), OUT .. "/PA.lgprof.txt")
      local loop = {}
      for i, n in ipairs(names) do
        loop[i] = perf_cmd(fp, "annotate --stdio --no-demangle -i FILE -s " .. q(n)) .. " 2>/dev/null"
      end
      local p = measure("PA perf annotate x" .. #names, "bash -c " .. q(table.concat(loop, "; ")),
        OUT .. "/PA.perf.txt", false, true)
      vs("PA", ("--annotate-asm vs perf annotate, %d functions"):format(#names), l, p, 10)
      done_with(l.out, p.out)
    end
    if want("PL") then
      local lh = lgprof_report("PL-half", half)
      local r = lfp.t / lh.t
      row { "PL", ("report: %d samples (-F 2000)"):format(half.samples), l = lh, lt = true, lr = true }
      row { "PL", ("report: %d samples (-F 4000)"):format(fp.samples), l = lfp, lt = true, lr = true,
            ratio = r, target = "t(2n)/t(n) <= 2.2x", ok = r <= 2.2 }
      done_with(lh.out)
    end
    if want("PD") then
      -- lgprof --diff's pictures of two P1-size recordings against one
      -- recording's page
      local page = lgprof_report("PD-page", fp, "--format=html")
      row { "PD", "one recording's page (--format=html)", l = page, lt = true, lr = true }
      for _, fmt in ipairs { "html", "svg" } do
        local l = lgprof_report("PD-diff-" .. fmt, fp2, "--diff=" .. q(fp.gmon) .. " --format=" .. fmt)
        local r = l.t / page.t
        row { "PD", "--diff --format=" .. fmt .. " of two recordings", l = l, lt = true, lr = true,
              ratio = r, target = "<= 2x one page", ok = r <= 2 }
        done_with(l.out)
      end
      done_with(page.out)
    end
    if want("PT") then
      local on = lgprof_report("PT", sw)
      row { "PT", "report, on-CPU (cpu-clock)", l = on, lt = true, lr = true }
      for _, ev in ipairs { "off-cpu", "wall" } do
        local l = report(LGPROF, "lgprof-" .. ev, "PT", sw, "--event=" .. ev)
        local r = l.t / on.t
        row { "PT", "report, --event=" .. ev, l = l, lt = true, lr = true, ratio = r,
              target = "<= 1.5x on-CPU", ok = r <= 1.5 }
        done_with(l.out)
      end
      local part = report(LGPROF, "lgprof-range", "PT", sw, "--time-range=25%,75%")
      local r = part.t / on.t
      -- (the medians of runs: 5% of noise allowed)
      row { "PT", "report, --time-range=25%,75%", l = part, lt = true, lr = true, ratio = r,
            target = "no slower than the whole", ok = r <= 1.05 }
      done_with(part.out, on.out)
    end
    if want("PH") then
      -- the page's timeline: load and first paint, a range's redraw
      local chromium = require "helpers.chromium"
      local page = lgprof_report("PH-page", fp, "--format=html")
      local size = #(slurp(page.out) or "")
      if not chromium.available() then
        row { "PH", "page timing skipped: no " .. chromium.BINARY }
      else
        local html = OUT .. "/PH-page.html"
        sh("cp " .. q(page.out) .. " " .. q(html))
        local dir = OUT .. "/PH-chromium"
        sh("rm -rf " .. q(dir) .. " && mkdir -p " .. q(dir))
        local browser = assert(chromium.start(dir, { timeout = 600 }))
        -- (after the page's scripts: the next frame, then a task after it)
        local PAINTED = "new Promise(function (r) { requestAnimationFrame(function () {"
          .. " setTimeout(function () { r(performance.now()); }, 0); }); })"
        -- the browser's processes' CPU time (user + system, seconds): on a
        -- loaded machine the wall times above include waiting for a CPU
        local function browser_cpu()
          local ls = io.popen("ls /proc")
          local total = 0
          for pid in ls:lines() do
            if pid:match("^%d+$") then
              local cmdline = slurp("/proc/" .. pid .. "/cmdline") or ""
              if cmdline:find(dir, 1, true) then
                local stat = slurp("/proc/" .. pid .. "/stat") or ""
                local rest = stat:match("%) (.*)$")
                local f = {}
                for w in (rest or ""):gmatch("%S+") do f[#f + 1] = w end
                -- (fields 14 and 15 of stat: the 12th and 13th after the command's ")")
                total = total + (tonumber(f[12]) or 0) + (tonumber(f[13]) or 0)
              end
            end
          end
          ls:close()
          return total / 100 -- (clock ticks: USER_HZ is 100 on Linux)
        end
        local loads, redraws, errors, load_cpu, redraw_cpu, in_view = {}, {}, 0, {}, {}, {}
        for _ = 1, RUNS do
          local c0 = browser_cpu()
          local p = browser:open("file://" .. html)
          loads[#loads + 1] = p:eval("window.lgprofTimelineReady ? " .. PAINTED .. " : -1") / 1000
          local c1 = browser_cpu()
          load_cpu[#load_cpu + 1] = c1 - c0
          -- the middle half of the recording, from its span in the page's data
          redraws[#redraws + 1] = p:eval([[
            (function () {
              // (its span alone, not a parse of all its data: the browser's
              // CPU time below is then the page's)
              var m = /"span":(\d+)/.exec(document.getElementById('lgprof-timeline').textContent);
              var s = +m[1] / 1e6, t0 = performance.now();
              location.hash = 'range=' + (s / 4).toFixed(6) + ',' + (3 * s / 4).toFixed(6);
              return new Promise(function (r) { requestAnimationFrame(function () {
                setTimeout(function () { r(performance.now() - t0); }, 0); }); });
            })()]]) / 1000
          redraw_cpu[#redraw_cpu + 1] = browser_cpu() - c1
          -- then the timeline scrolled to the top of the view, where a drag
          -- selects: a second range (the fifth to the seventh tenth), whose
          -- flame graph and flat profile, in view there, are painted too
          in_view[#in_view + 1] = p:eval([[
            new Promise(function (r) {
              document.getElementById('tl-sec').scrollIntoView();
              requestAnimationFrame(function () { setTimeout(function () {
                var m = /"span":(\d+)/.exec(document.getElementById('lgprof-timeline').textContent);
                var s = +m[1] / 1e6, t0 = performance.now();
                location.hash = 'range=' + (s / 5).toFixed(6) + ',' + (7 * s / 10).toFixed(6);
                requestAnimationFrame(function () {
                  setTimeout(function () { r(performance.now() - t0); }, 0); }); }, 0); });
            })]]) / 1000
          errors = errors + #p.errors
          p:close()
        end
        browser:close()
        local load, redraw = median(loads), median(redraws)
        row { "PH", "page: load to first paint", l = { t = load }, lt = true,
              target = "< 2 s", ok = load < 2 and errors == 0,
              note = ("%d samples, page %.1f MB, load average %s%s"):format(fp.samples or 0, size / 1e6,
                (slurp("/proc/loadavg") or "?"):match("^(%S+)") or "?",
                errors > 0 and (", %d script errors"):format(errors) or "") }
        row { "PH", "page: range selected to painted", l = { t = redraw }, lt = true,
              target = "< 0.2 s", ok = redraw < 0.2 }
        row { "PH", "page: range, timeline in view", l = { t = median(in_view) }, lt = true,
              target = "< 0.2 s", ok = median(in_view) < 0.2,
              note = "a second range, the page scrolled to the timeline" }
        -- (CPU time: the browser's processes', tab creation included; the
        -- range's from the load's end: the work the page does after its
        -- first frame for selections, if still running, counts in it)
        row { "PH", "page: load, browser CPU time", l = { t = median(load_cpu) }, lt = true,
              note = "for a loaded machine: the wall time's share of work" }
        row { "PH", "page: range, browser CPU time", l = { t = median(redraw_cpu) }, lt = true }
      end
      done_with(page.out)
    end
    if lfp then done_with(lfp.out) end
  end
end

print()
print(ROWFMT:format("bench", "what", "lgprof (s)", "RSS (MB)", "gprof (s)", "RSS (MB)", "ratio", "target",
                    "status"))
for _, r in ipairs(rows) do print((r:gsub("%s+$", ""))) end
print()
for _, n in ipairs(notes) do print(n) end
print(("targets: %d met, %d MISSED; reports in %s%s; %d s in all"):format(met, missed, OUT,
      KEEP and "" or " (deleted once compared; BENCH_KEEP=1 keeps them)", os.time() - t_start))
