-- lgprof record's choice of unwinding from every binary the program loads
-- (lgprof.util.elfdeps): the DT_NEEDED libraries found as the dynamic
-- loader finds them (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the cache),
-- frame pointers only when every one keeps them; --dry-run's explanation
-- and expected size; the watcher of the recording's size; the kept file's
-- folder checked first. No perf is run: the programs are built here (gcc)
-- and only read.
local cmd = require "helpers.cmd"
local util = require "helpers.util"
local record = require "lgprof.cmd.record"
local elf = require "lgprof.util.elfdeps"

local q = util.q
local TMP = util.mktempdir("lgprof record choice")

-- Code without the C library (-nostdlib), so that every binary the program
-- loads is one built here: a library libx.so (two builds of it, with and
-- without frame pointers, in two folders) and programs that need it.
local LIB = [[
int lib_mix(int n) { int s = 0; for (int i = 0; i < n; i++) s += i ^ (s >> 3); return s; }
int lib_twice(int n) { return lib_mix(n) + lib_mix(n + 1); }
int lib_thrice(int n) { return lib_twice(n) + lib_mix(n + 2); }
]]
local MAIN = [[
int lib_thrice(int);
int work(int n) { return lib_thrice(n) + 1; }
int more_work(int n) { return work(n) * work(n + 1); }
void _start(void) {
  int r = more_work(10);
  __asm__ volatile("mov $60, %%eax\n\tsyscall" :: "D"(r & 0));
  for (;;) {}
}
]]
local FP_FLAGS = "-O1 -fno-omit-frame-pointer"
local NOFP_FLAGS = "-O2 -fomit-frame-pointer"
local BASE = "gcc -nostdlib -fno-stack-protector -fcf-protection=none"

local function sh(line)
  assert(util.exec_ok("cd " .. q(TMP) .. " && " .. line), line)
end

util.spit(TMP .. "/lib.c", LIB)
util.spit(TMP .. "/main.c", MAIN)
util.mkdir(TMP .. "/fpdir")
util.mkdir(TMP .. "/nofpdir")
sh(BASE .. " -shared -fPIC " .. FP_FLAGS .. " -Wl,-soname,libx.so -o fpdir/libx.so lib.c")
sh(BASE .. " -shared -fPIC " .. NOFP_FLAGS .. " -Wl,-soname,libx.so -o nofpdir/libx.so lib.c")
-- no search path in the program: only LD_LIBRARY_PATH finds libx.so
sh(BASE .. " " .. FP_FLAGS .. " -o allfp main.c -Lfpdir -lx")
-- DT_RUNPATH (after LD_LIBRARY_PATH) and DT_RPATH (before it), both $ORIGIN/fpdir
sh(BASE .. " " .. FP_FLAGS .. " -o runpath main.c -Lfpdir -lx -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/fpdir'")
sh(BASE .. " " .. FP_FLAGS .. " -o rpath main.c -Lfpdir -lx -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/fpdir'")
-- an ordinary program (the C library's start-up code, libc.so.6)
util.spit(TMP .. "/p.c", "#include <stdio.h>\n"
  .. "__attribute__((noinline)) int f(int n) { return n * 3; }\n"
  .. "__attribute__((noinline)) int g(int n) { return f(n) + 1; }\n"
  .. "int main(void) { printf(\"%d\\n\", g(2)); return 0; }\n")
sh("gcc " .. FP_FLAGS .. " -o withlibc p.c")

local FPDIR, NOFPDIR = TMP .. "/fpdir", TMP .. "/nofpdir"

local function paths(list)
  local out = {}
  for i, b in ipairs(list) do out[i] = b.path or ("not found: " .. b.name) end
  return out
end

describe("the binaries a program loads", function()
  it("are the program and its DT_NEEDED library, found through LD_LIBRARY_PATH only when the program"
     .. " has no search path", function()
    local prog = TMP .. "/allfp"
    assert.same({ prog, "not found: libx.so" }, paths(elf.binaries(prog, {})))
    assert.same({ prog, FPDIR .. "/libx.so" }, paths(elf.binaries(prog, { LD_LIBRARY_PATH = FPDIR })))
    -- the first folder of LD_LIBRARY_PATH that has it
    assert.same({ prog, NOFPDIR .. "/libx.so" },
      paths(elf.binaries(prog, { LD_LIBRARY_PATH = TMP .. "/none:" .. NOFPDIR .. ":" .. FPDIR })))
  end)

  it("take DT_RPATH before LD_LIBRARY_PATH and DT_RUNPATH after it, $ORIGIN the program's folder", function()
    assert.same({ TMP .. "/runpath", TMP .. "/fpdir/libx.so" }, paths(elf.binaries(TMP .. "/runpath", {})))
    assert.same({ TMP .. "/runpath", NOFPDIR .. "/libx.so" },
      paths(elf.binaries(TMP .. "/runpath", { LD_LIBRARY_PATH = NOFPDIR })))
    assert.same({ TMP .. "/rpath", TMP .. "/fpdir/libx.so" },
      paths(elf.binaries(TMP .. "/rpath", { LD_LIBRARY_PATH = NOFPDIR })))
  end)

  it("are the libraries ldd names, at the paths it gives (the system's through /etc/ld.so.cache)", function()
    if not util.have("ldd") then return pending("ldd is not installed") end
    for _, prog in ipairs({ TMP .. "/withlibc", TMP .. "/allfp", "/bin/ls", util.read_cmd("command -v perf"):match("%S+") }) do
      local env = { LD_LIBRARY_PATH = FPDIR }
      -- ldd's "NAME => PATH (ADDRESS)" lines (not the vDSO, not the loader
      -- named by its PT_INTERP path)
      local want = {}
      for line in util.read_cmd("LD_LIBRARY_PATH=" .. q(FPDIR) .. " ldd " .. q(prog)):gmatch("[^\n]+") do
        local name, path = line:match("^%s*(%S+) => (/.-) %(0x%x+%)$")
        if name then want[name] = path end
      end
      local got = {}
      for i, b in ipairs(elf.binaries(prog, env)) do
        if i > 1 and want[b.name] then got[b.name] = b.path end
      end
      assert.same(want, got, prog)
      assert.is_true(next(want) ~= nil, prog)
    end
  end)
end)

describe("lgprof record's unwinding", function()
  it("is frame pointers only when the program and every library keep them", function()
    local unwind, why = record.choose_unwinding(TMP .. "/allfp", nil, { LD_LIBRARY_PATH = FPDIR })
    assert.equal("fp", unwind)
    assert.equal("frame pointers are kept by the 2 binaries " .. TMP .. "/allfp loads (itself and its libraries)",
      why[2])
    unwind, why = record.choose_unwinding(TMP .. "/allfp", nil, { LD_LIBRARY_PATH = NOFPDIR })
    assert.equal("dwarf", unwind)
    assert.same({ "  " .. NOFPDIR .. "/libx.so" }, { why[3], why[4] })
    unwind, why = record.choose_unwinding(TMP .. "/allfp", nil, {})
    assert.equal("dwarf", unwind)
    assert.equal("  libx.so (not found)", why[3])
    -- the C library keeps none
    unwind, why = record.choose_unwinding(TMP .. "/withlibc", nil, {})
    assert.equal("dwarf", unwind)
    assert.truthy(table.concat(why, "\n"):find("/libc.so.6\n", 1, true), table.concat(why, "\n"))
    assert.is_nil(table.concat(why, "\n"):find(TMP .. "/withlibc\n", 1, true))
    -- forced
    assert.equal("dwarf", (record.choose_unwinding(TMP .. "/allfp", "dwarf", { LD_LIBRARY_PATH = FPDIR })))
    assert.equal("fp", (record.choose_unwinding(TMP .. "/withlibc", "fp", {})))
  end)

  local function dry(args, prefix)
    local argv = { "record", "--dry-run" }
    table.move(args, 1, #args, #argv + 1, argv)
    local status, out, err = cmd.lgprof(argv, { cwd = TMP, prefix = prefix })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("", err)
    return out
  end

  it("--dry-run prints the command, then why (shell comments) and the expected size", function()
    local out = dry({ "--", "./allfp" }, "LD_LIBRARY_PATH=" .. q(FPDIR) .. " ")
    assert.equal(table.concat({
      "perf record -q -e cpu-clock -F 999 -g -o " .. out:match(" %-o (%S+) ") .. " -- ./allfp",
      "# unwinding: frame pointers (perf record -g), since every binary keeps frame pointers",
      "# frame pointers are kept by the 2 binaries ./allfp loads (itself and its libraries)",
      -- 200 bytes a sample (record.lua: a frame-pointer chain of about 16 frames) x 999
      "# expected size: about 199.8 KB a second for each busy thread (a chain of return addresses a sample"
        .. " at 999 Hz)",
      "" }, "\n"), out)
    out = dry({ "-F", "99", "--", "./allfp" }, "LD_LIBRARY_PATH=" .. q(NOFPDIR) .. " ")
    assert.equal(table.concat({
      "# unwinding: DWARF (perf record --call-graph dwarf), since not every binary keeps frame pointers",
      "# 1 of the 2 binaries ./allfp loads (itself and its libraries) keep no frame pointers, where perf's"
        .. " frame-pointer chains break:",
      "#   " .. NOFPDIR .. "/libx.so",
      -- (8192 + 300) bytes a sample x 99 = 840708 bytes
      "# expected size: about 840.7 KB a second for each busy thread (8192 bytes of stack copied a sample"
        .. " at 99 Hz)",
      "" }, "\n"), out:match("\n(.*)$"))
    assert.matches(" %-%-call%-graph dwarf %-o ", out)
    -- --fp still forces, and says where the chains will break
    out = dry({ "--fp", "--", "./allfp" }, "LD_LIBRARY_PATH=" .. q(NOFPDIR) .. " ")
    assert.matches("^perf record [^\n]* %-g %-o [^\n]*\n# unwinding: frame pointers %(perf record %-g%), as asked\n", out)
    assert.truthy(out:find("\n#   " .. NOFPDIR .. "/libx.so\n", 1, true), out)
    -- (65528 + 300) x 999 = 65762172 bytes
    out = dry({ "--stack-size=65528", "--", "./allfp" }, "LD_LIBRARY_PATH=" .. q(FPDIR) .. " ")
    assert.matches("\n# unwinding: DWARF %(perf record %-%-call%-graph dwarf%), as asked\n", out)
    assert.matches("\n# expected size: about 65%.8 MB a second for each busy thread %(65528 bytes", out)
  end)

  it("the --dry-run output runs as a shell script (its explanation is comments)", function()
    local out = dry({ "-o", "x.data", "--", "./allfp" })
    local n = 0
    for line in out:gmatch("[^\n]+") do
      n = n + 1
      assert.is_true(n == 1 or line:sub(1, 2) == "# ", line)
    end
    assert.is_true(n >= 3)
  end)
end)

describe("lgprof record's size", function()
  it("is the bytes of a sample times the rate", function()
    assert.equal((8192 + 300) * 999, record.expected_rate({ unwind = "dwarf" }))
    assert.equal((4096 + 300) * 50, record.expected_rate({ unwind = "dwarf", stack_size = 4096, freq = 50 }))
    assert.equal(200 * 999, record.expected_rate({ unwind = "fp" }))
    assert.equal("999 bytes", record.human_size(999))
    assert.equal("1.0 KB", record.human_size(1000))
    assert.equal("8.5 MB", record.human_size(8491508))
    assert.equal("1500.0 GB", record.human_size(1.5e12))
  end)

  -- a stand-in for perf: writes FILE in two steps, then exits with status 3
  local function fake_perf(file)
    return ("sh -c %s"):format(q(("head -c 3000 /dev/zero > %s; sleep 0.6; head -c 3000 /dev/zero >> %s;"
      .. " sleep 0.6; exit 3"):format(q(file), q(file))))
  end

  it("is watched while perf runs: one warning line once the file passes the limit, perf's status kept", function()
    local file = TMP .. "/growing.data"
    os.remove(file)
    local line = "lgprof: " .. record.size_warning(4000, { unwind = "dwarf" })
    assert.is_nil(line:find("\n"))
    assert.matches("^lgprof: warning: the recording passed 4%.0 KB %(DWARF stacks, 8192 bytes", line)
    for _, opt in ipairs({ "--stack-size=BYTES", "-F HZ", "--fp", "--warn-size=MB" }) do
      assert.truthy(line:find(opt, 1, true), opt)
    end
    local status, out, err = cmd.shell(record.watched_command(fake_perf(file), file, 4000, line))
    assert.equal(3, status)
    assert.equal("", out)
    assert.equal(line .. "\n", err)
    -- under the limit, and with none: no line
    os.remove(file)
    status, out, err = cmd.shell(record.watched_command(fake_perf(file), file, 10000, line))
    assert.equal(3, status)
    assert.equal("", err)
    os.remove(file)
    status, out, err = cmd.shell(record.watched_command(fake_perf(file), file, 0, line))
    assert.equal(3, status)
    assert.equal("", err)
  end)

  it("--warn-size takes megabytes, 0 for never", function()
    cmd.one_line_error(2, cmd.lgprof({ "record", "--warn-size=x", "--", "./allfp" }, { cwd = TMP }))
    cmd.one_line_error(2, cmd.lgprof({ "record", "--warn-size=-1", "--", "./allfp" }, { cwd = TMP }))
    assert.equal(0, (cmd.lgprof({ "record", "--dry-run", "--warn-size=0", "--", "./allfp" }, { cwd = TMP })))
  end)
end)

describe("lgprof record -o FILE", function()
  it("in a folder that does not exist says so, before running anything (status 1)", function()
    assert.equal("/missing/dir/x.data: cannot write the recording: no folder /missing/dir",
      cmd.one_line_error(1, cmd.lgprof({ "record", "-o", "/missing/dir/x.data", "--", "true" })))
    assert.equal("no/such/x.data: cannot write the recording: no folder no/such",
      cmd.one_line_error(1, cmd.lgprof({ "record", "-o", "no/such/x.data", "--", "true" }, { cwd = TMP })))
    -- a file where the folder should be
    assert.equal("allfp/x.data: cannot write the recording: no folder allfp",
      cmd.one_line_error(1, cmd.lgprof({ "record", "-o", "allfp/x.data", "--", "true" }, { cwd = TMP })))
  end)

  it("says when perf failed without a word, and how to see why", function()
    local m = record.failure_message("perf", nil, 255)
    assert.equal("perf record failed (exit status 255) and said nothing (perf record -q): the command"
      .. " `lgprof record --dry-run` prints, run without -q, says why", m)
  end)
end)
