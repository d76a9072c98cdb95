-- lgprof record: the perf command it runs (--dry-run prints it; a real
-- recording's CMDLINE feature names it), its choice between frame pointers
-- and DWARF from the program's code, its failures' one-line messages, and a
-- live recording's report. A live run samples differently each time: only
-- what any sampling makes true is asserted (the hot function is named; the
-- kept file gives the same report read again). The live part is pending
-- where perf cannot record.
local cmd = require "helpers.cmd"
local util = require "helpers.util"
local record = require "lgprof.cmd.record"

local q = util.q
local TMP = util.mktempdir("lgprof-record")

-- one hot function among a few others, so that the prologue heuristic has
-- several functions to look at
local SRC = [[
#include <stdio.h>
static volatile double sink;
__attribute__((noinline)) double hot_loop(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }
__attribute__((noinline)) double helper_a(long n) { return hot_loop(n) + 1; }
__attribute__((noinline)) double helper_b(long n) { return helper_a(n) * 2; }
int main(void) { sink = helper_b(150000000L); printf("done\n"); return 0; }
]]

local function build(name, flags)
  util.spit(TMP .. "/p.c", SRC)
  assert(util.exec_ok(("cd %s && gcc %s -o %s p.c"):format(q(TMP), flags, name)), "gcc failed")
  return TMP .. "/" .. name
end

local FP = build("fp", "-O1 -g -fno-omit-frame-pointer")
local NOFP = build("nofp", "-O2 -g -fomit-frame-pointer")

describe("lgprof record's perf command", function()
  it("is cpu-clock at 999 Hz, -g, quiet, the program after --", function()
    assert.same({ "perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o", "out.data",
                  "--", "./p", "a b", "-x" },
      record.perf_command({ unwind = "fp", output = "out.data", program = "./p", args = { "a b", "-x" } }))
    assert.same({ "perf", "record", "-q", "-e", "task-clock", "-F", "50", "--call-graph", "dwarf",
                  "-o", "o", "--", "p" },
      record.perf_command({ unwind = "dwarf", event = "task-clock", freq = 50, output = "o", program = "p" }))
  end)

  it("unwinds by frame pointers when the program keeps them, else with DWARF", function()
    assert.is_true(record.frame_pointers(FP))
    assert.is_false(record.frame_pointers(NOFP))
    local none, why = record.frame_pointers(TMP .. "/p.c")
    assert.is_nil(none)
    assert.equal("not an ELF file", why)
    -- cut short, and cut inside its section headers: no error escapes
    local elf = util.slurp(FP)
    for _, n in ipairs({ 6, 64, #elf - 100 }) do
      util.spit(TMP .. "/cut", elf:sub(1, n))
      none, why = record.frame_pointers(TMP .. "/cut")
      assert.is_nil(none)
      assert.is_string(why)
    end
  end)

  local function dry(args)
    local argv = { "record", "--dry-run" }
    table.move(args, 1, #args, #argv + 1, argv)
    local status, out, err = cmd.lgprof(argv, { cwd = TMP })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("", err)
    -- the command's line (the explanation that follows: record_choice_spec)
    return out:match("^[^\n]*\n")
  end

  it("--dry-run prints the command chosen: DWARF for either build (the C library keeps no frame"
     .. " pointers: record_choice_spec), as --dwarf forces, -g as --fp forces", function()
    assert.matches("^perf record %-q %-e cpu%-clock %-F 999 %-%-call%-graph dwarf %-o %S+ %-%- %./fp 'x y'\n$",
      dry({ "--", "./fp", "x y" }))
    assert.matches(" %-%-call%-graph dwarf %-o %S+ %-%- %./nofp\n$", dry({ "--", "./nofp" }))
    assert.matches(" %-g %-o %S+ %-%- %./nofp\n$", dry({ "--fp", "--", "./nofp" }))
    assert.matches(" %-%-call%-graph dwarf %-o keep%.data %-%- %./fp\n$",
      dry({ "--dwarf", "-o", "keep.data", "--", "./fp" }))
    assert.matches("^perf record %-q %-e task%-clock %-F 100 ", dry({ "--event=task-clock", "-F", "100", "--", "./fp" }))
  end)

  it("--stack-size=BYTES asks perf for that much stack per sample, and implies --dwarf", function()
    assert.matches(" %-%-call%-graph dwarf,16384 %-o %S+ %-%- %./fp\n$", dry({ "--stack-size=16384", "--", "./fp" }))
    assert.matches(" %-%-call%-graph dwarf,65528 %-o %S+ %-%- %./nofp\n$",
      dry({ "--dwarf", "--stack-size", "65528", "--", "./nofp" }))
    assert.matches("cannot be combined with %-%-fp",
      cmd.one_line_error(2, cmd.lgprof({ "record", "--fp", "--stack-size=4096", "--", FP })))
    for _, bad in ipairs({ "0", "65529", "x", "-8" }) do
      cmd.one_line_error(2, cmd.lgprof({ "record", "--stack-size=" .. bad, "--", FP }))
    end
  end)

  it("finds the program on PATH as a shell would", function()
    util.mkdir(TMP .. "/bin1"); util.mkdir(TMP .. "/bin2")
    util.spit(TMP .. "/bin1/tool", "not executable\n")
    util.spit(TMP .. "/bin2/tool", "#!/bin/sh\n")
    assert(util.exec_ok("chmod +x " .. q(TMP .. "/bin2/tool")))
    util.mkdir(TMP .. "/bin1/dir")
    local path = TMP .. "/bin1:" .. TMP .. "/bin2"
    assert.equal(TMP .. "/bin2/tool", record.find_program("tool", path))
    assert.is_nil(record.find_program("dir", path))
    assert.is_nil(record.find_program("absent", path))
    assert.equal(FP, record.find_program(FP, ""))
  end)
end)

describe("lgprof record's failures", function()
  it("are usage errors (status 2) for --fp with --dwarf, no program, a program before --", function()
    assert.matches("cannot be combined", cmd.one_line_error(2, cmd.lgprof({ "record", "--fp", "--dwarf", "--", FP })))
    assert.matches("no program", cmd.one_line_error(2, cmd.lgprof({ "record" })))
    assert.matches("goes after %-%-", cmd.one_line_error(2, cmd.lgprof({ "record", FP })))
    cmd.one_line_error(2, cmd.lgprof({ "record", "-F", "0", "--", FP }))
  end)

  it("say a program that is not found (status 1)", function()
    assert.equal("no-such-program-x: program not found (not on PATH, or not an executable file)",
      cmd.one_line_error(1, cmd.lgprof({ "record", "--", "no-such-program-x" })))
  end)

  it("say how to install perf when it is not on PATH (status 1)", function()
    local line = cmd.one_line_error(1, cmd.lgprof({ "record", "--", FP }, { prefix = "PATH=/nonexistent " }))
    assert.equal("perf is not installed (on Debian: apt-get install linux-perf)", line)
  end)

  it("say which sysctl to set for a strict perf_event_paranoid, or to run as root", function()
    local m = record.failure_message("paranoid", 3)
    assert.matches("^perf_event_paranoid is 3: ", m)
    assert.matches("sysctl kernel%.perf_event_paranoid=1", m)
    assert.matches("as root", m)
    assert.matches("no permission %(open: Permission denied%).*root",
      record.failure_message("permission", "open: Permission denied"))
    assert.equal("perf record failed (exit status 255): bad thing", record.failure_message("perf", "bad thing", 255))
    for _, kind in ipairs({ "no-perf", "paranoid", "permission", "no-program", "perf" }) do
      assert.is_nil(record.failure_message(kind, "x", 1):find("\n"), kind)
    end
  end)
end)

-- whether perf can record here (a real run, the smallest)
local function perf_works()
  if not util.have("perf") then return false, "perf is not installed" end
  if not util.exec_ok(("cd %s && perf record -q -e cpu-clock -F 99 -o probe.data -- true >/dev/null 2>&1")
      :format(q(TMP))) then
    return false, "perf record cannot run here"
  end
  return true
end

describe("a live lgprof record", function()
  local ok, why = perf_works()
  if not ok then
    pending(why)
    return
  end

  local function cmdline(file)
    local text = util.read_cmd(("perf report --header-only -i %s 2>/dev/null"):format(q(file)))
    return text:match("# cmdline : ([^\n]*)")
  end

  it("prints the program's output, then a report that names its hot function; the temporary"
     .. " recording is gone", function()
    local dir = TMP .. "/live1"
    util.mkdir(dir)
    -- the recording goes to $TMPDIR (here a folder of this test's own, so
    -- that another suite's runs cannot show in it), named NAME.perf.data
    local tmpdir = TMP .. "/tmpdir"
    util.mkdir(tmpdir)
    local status, out, err = cmd.lgprof({ "record", "-b", "--", FP },
      { cwd = dir, prefix = "TMPDIR=" .. q(tmpdir) .. " " })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.matches("^done\nFlat profile:\n", out)
    assert.matches("\n *[%d.]+ +[%d.]+ +[%d.]+ +hot_loop\n", out)
    assert.same({}, util.ls(dir))
    assert.same({}, util.ls(tmpdir))
    -- and it was there while perf ran: --dry-run names it
    out = select(2, cmd.lgprof({ "record", "--dry-run", "--", FP }, { prefix = "TMPDIR=" .. q(tmpdir) .. " " }))
    local named = out:match(" %-o (%S+) %-%- ")
    assert.equal(tmpdir .. "/", named and named:sub(1, #tmpdir + 1), out)
    assert.matches("^lua_%w+%.perf%.data$", named:sub(#tmpdir + 2))
  end)

  it("-o keeps the recording, whose report is the one printed; its command is perf's with -g for"
     .. " --fp", function()
    local file = TMP .. "/kept.data"
    local status, out, err = cmd.lgprof({ "record", "--fp", "-o", file, "--", FP }, { cwd = TMP })
    assert.equal(0, status, cmd.show(status, out, err))
    local again_status, again = cmd.lgprof({ FP, file })
    assert.equal(0, again_status)
    assert.equal("done\n" .. again, out)
    local line = cmdline(file)
    assert.matches(" %-g %-o ", line)
    assert.is_nil(line:find("dwarf", 1, true))
  end)

  it("says perf's own failure in one line, an earlier recording in -o FILE kept as FILE.old", function()
    local file = TMP .. "/stale.data"
    assert(util.exec_ok(("cp %s %s"):format(q(TMP .. "/probe.data"), q(file))))
    local line = cmd.one_line_error(1, cmd.lgprof({ "record", "--event=no-such-event", "-o", file, "--", FP },
      { cwd = TMP }))
    assert.matches("^perf record failed %(exit status %d+%): ", line)
    assert.equal(util.slurp(TMP .. "/probe.data"), util.slurp(file .. ".old"))
  end)

  it("takes the report options of lgprof FILE: --format=folded writes stacks", function()
    local status, out, err = cmd.lgprof({ "record", "--format=folded", "-F", "199", "--", FP }, { cwd = TMP })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.matches("^done\n", out)
    assert.matches("\n[^\n]*hot_loop[^\n]* %d+\n", out)
    assert.is_nil(out:find("Flat profile", 1, true))
  end)

  it("records the -O2 -fomit-frame-pointer build with DWARF", function()
    local file = TMP .. "/nofp.data"
    local status, out, err = cmd.lgprof({ "record", "-o", file, "--", NOFP }, { cwd = TMP })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.matches("hot_loop", out)
    assert.matches(" %-%-call%-graph dwarf ", cmdline(file))
    -- its size, said when it ends; every sample holds a copy of 8192 bytes
    -- of stack (perf script counts them), and little more: the header, ip,
    -- registers... (measured: 297 bytes) and the file's own header and
    -- features (build-ids, the command line...: less than 256 KB)
    local size = #util.slurp(file)
    assert.matches("\nlgprof: recorded [%d.]+ [KMG]?B in [%d.]+ s %([%d.]+ [KMG]?B a second%) in "
      .. file:gsub("%p", "%%%0") .. "\n", "\n" .. err)
    local samples = select(2, util.read_cmd(("perf script -i %s -F tid 2>/dev/null"):format(q(file))):gsub("\n", ""))
    assert.is_true(samples > 0)
    assert.is_true(size >= samples * 8192, ("%d bytes, %d samples"):format(size, samples))
    assert.is_true(size <= samples * (8192 + 1024) + 256 * 1024, ("%d bytes, %d samples"):format(size, samples))
  end)

  it("prints the report of a failing program, then exits with status 4", function()
    local status, out, err = cmd.lgprof({ "record", "--fp", "--", "sh", "-c", q(FP) .. "; exit 3" },
      { cwd = TMP })
    assert.equal(4, status, cmd.show(status, out, err))
    assert.matches("Flat profile:", out)
    assert.matches("lgprof: sh exited with status 3\n$", err)
  end)

  it("--gmon keeps the -pg program's gmon.out and perf.data side by side", function()
    local dir = TMP .. "/gmon"
    util.mkdir(dir)
    util.spit(dir .. "/p.c", SRC)
    assert(util.exec_ok(("cd %s && gcc -pg -O1 -o pg p.c"):format(q(dir))))
    local status, out, err = cmd.lgprof({ "record", "--gmon", "--", "./pg" }, { cwd = dir })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.matches("hot_loop", out)
    local files = util.ls(dir)
    table.sort(files)
    assert.same({ "gmon.out", "p.c", "perf.data", "pg" }, files)
  end)
end)
