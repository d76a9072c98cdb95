-- Why a --call-graph dwarf chain stops before its root
-- (csrc/core/read/perf/perfstacks.c), and what lgprof doctor says of it.
--
-- Files written with helpers.perfwriter: samples with user registers and
-- stack copies for a program compiled here (its return addresses taken
-- from objdump, its segment from readelf), so that each sample's chain is
-- known: one that unwinds to main's return address 0 (complete), one whose
-- stack copy ends before main's return address (the copy too small), one
-- whose PC is in a library built without unwind tables (readelf shows it
-- has none), one at an address in no mapping, one in a mapped binary that
-- is missing, one whose frame pointer is below the stack pointer (another
-- failure, in lgprof's words). rbp is 0 in the samples that stop at their first frame, so
-- that libdwfl's frame-pointer fallback cannot go on. Every expected count
-- is counted by hand from the samples written.
local lgprof = require "lgprof"
local doctor = require "lgprof.analysis.doctor"
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"

local q = util.q

local SRC = [[
volatile unsigned long sink;
__attribute__((noinline)) void leaf(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void middle(long n) { leaf(n); leaf(n + 1); }
int main(int argc, char **argv) { (void)argv; middle(argc); return 0; }
]]
local NOEH = [[
volatile unsigned long noeh_sink;
void noeh_leaf(long n) { for (long i = 0; i < n; i++) noeh_sink += i; }
]]

local BIAS = 0x555555554000
local LIB = 0x7f0000000000      -- where the library without unwind tables is mapped
local GONE = 0x7e0000000000     -- a mapping of a binary that does not exist
local PID = 100
local S = 0x7ffff0000000        -- the stack pointer of every sample
local ST = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN | pw.REGS_USER | pw.STACK_USER

local tmp, dump, exe, lib
local syms, text, libsym, libtext = {}, nil, nil, nil

local function fields(line)
  local t = {}
  for f in (line .. "\t"):gmatch("([^\t]*)\t") do t[#t + 1] = f end
  return t
end

-- the dump tool's verdict: the reasons, the binaries' stops, the stacks
local function stacks(path)
  local status, out, err = cmd.shell(q(dump) .. " --no-inline " .. q(path))
  local r = { dsos = {}, shapes = {}, errors = {} }
  for l in out:gmatch("[^\n]+") do
    local f = fields(l)
    if f[1] == "event" then
      r.samples, r.truncated = tonumber(f[3]), tonumber(f[8])
    elseif f[1] == "why" then
      r.unwound, r.size = tonumber(f[2]), tonumber(f[3])
      r.why = { stack_copy = tonumber(f[4]), no_cfi = tonumber(f[5]), no_binary = tonumber(f[6]),
                depth = tonumber(f[7]), other = tonumber(f[8]) }
    elseif f[1] == "unwind_error" then
      r.errors[f[3]] = tonumber(f[2])
    elseif f[1] == "dso" then
      r.dsos[f[2]] = { status = f[3], no_cfi = tonumber(f[5]), no_binary = tonumber(f[6]) }
    elseif f[1] == "stack" then
      local names = {}
      for fr in (f[7] .. ";"):gmatch("([^;]*);") do names[#names + 1] = fr:gsub("@[^@]*$", "") end
      local key = table.concat(names, ";") .. (f[6] == "1" and " (cut)" or "")
      r.shapes[key] = (r.shapes[key] or 0) + tonumber(f[4])
    end
  end
  return status, r, out, err
end

-- the executable segment of an ELF: { offset, vaddr, filesz }
local function text_of(path)
  for off, va, fsz, flg in util.read_cmd("readelf -lW " .. q(path)):gmatch(
      "LOAD%s+0x(%x+)%s+0x(%x+)%s+0x%x+%s+0x(%x+)%s+0x%x+%s+([RWE ]+)") do
    if flg:find("E") then return { offset = tonumber(off, 16), vaddr = tonumber(va, 16), filesz = tonumber(fsz, 16) } end
  end
  error("no executable segment in " .. path)
end

local function symbols(path)
  local t = {}
  for addr, name in util.read_cmd("nm " .. q(path)):gmatch("(%x+) [Tt] ([%w_]+)") do t[name] = tonumber(addr, 16) end
  return t
end

-- maps the executable segment t of path at base (the loader's page rounding)
local function map(f, base, t, path, time)
  local start = base + (t.vaddr & ~0xfff)
  local len = ((t.vaddr + t.filesz + 0xfff) & ~0xfff) - (t.vaddr & ~0xfff)
  f:mmap2(PID, PID, start, len, t.offset & ~0xfff, path, time)
end

-- where the call of callee in fn returns: the instruction after it (objdump)
local function after_call(dis, fn, callee)
  local body = dis:match("\n%x+ <" .. fn .. ">:\n(.-)\n\n")
  local lines = {}
  for l in (body .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  for k, l in ipairs(lines) do
    if l:find("call%s+%x+ <" .. callee .. ">") then return tonumber(lines[k + 1]:match("^%s*(%x+):"), 16) end
  end
  error("no call of " .. callee .. " in " .. fn)
end

-- perf's x86 register mask 0xff0fff: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8-R15
local function regs(ip, bp)
  return { 0, 0, 0, 0, 0, 0, bp, S, ip, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
end

-- The recording: per kind, how many samples (hand-counted below).
local N = { complete = 2, cut = 3, no_cfi = 4, nowhere = 1, gone = 1, below = 1 }

local function recording()
  local dis = util.read_cmd("objdump -d --no-show-raw-insn " .. q(exe))
  local ret_middle = BIAS + after_call(dis, "middle", "leaf")
  local ret_main = BIAS + after_call(dis, "main", "middle")
  -- at leaf's first instruction: its return address at the stack pointer;
  -- middle keeps a frame pointer (rbp = S + 8: the saved rbp, then the
  -- return address into main); main's saved rbp and return address 0 end
  -- the chain
  local stack = string.pack("<I8I8I8I8I8", ret_middle, S + 24, ret_main, 0, 0)
  local f = pw.new({ attrs = { { sample_type = ST, period = 1000, ids = { 1 }, regs_user = 0xff0fff,
    stack_user = 8192 } } })
  f:comm(PID, PID, "prog", 10, true)
  map(f, BIAS, text, exe, 20)
  map(f, LIB, libtext, lib, 21)
  f:mmap2(PID, PID, GONE, 0x1000, 0, tmp .. "/no-such-lib.so", 22)
  local t = 100
  local function sample(ip, bp, bytes, dyn)
    t = t + 1
    f:sample({ ip = ip, pid = PID, tid = PID, time = t, period = 1000, chain = {},
      regs = regs(ip, bp), stack = bytes, dyn_size = dyn })
  end
  local leaf = BIAS + syms.leaf
  for _ = 1, N.complete do sample(leaf, S + 8, stack, #stack) end
  -- 16 bytes: leaf's return address and middle's saved rbp; main's return
  -- address (at S + 16) is past the copy
  for _ = 1, N.cut do sample(leaf, S + 8, stack .. ("\0"):rep(24), 16) end
  for _ = 1, N.no_cfi do sample(LIB + libsym + 4, 0, stack, #stack) end
  for _ = 1, N.nowhere do sample(0x1234, 0, stack, #stack) end
  for _ = 1, N.gone do sample(GONE + 0x10, 0, stack, #stack) end
  -- at middle's call of leaf (its frame made: the return address at rbp +
  -- 8), with rbp below the stack pointer: a read the copy cannot answer
  -- that no bigger copy would
  for _ = 1, N.below do sample(ret_middle - 5, S - 64, stack, #stack) end
  return f
end

describe("why --call-graph dwarf chains stop", function()
  local path

  setup(function()
    tmp = util.mktempdir("lgprof perf-unwind")
    dump = tmp .. "/perfstacks"
    cmd.build_core_program(cmd.ROOT .. "/spec/unit/perfstacks.c", dump)
    exe, lib = tmp .. "/prog", tmp .. "/libnoeh.so"
    util.spit(tmp .. "/prog.c", SRC)
    util.spit(tmp .. "/noeh.c", NOEH)
    local status, out, err = cmd.shell(("cc -O1 -g -fno-omit-frame-pointer -fno-inline -o %s %s"):format(
      q(exe), q(tmp .. "/prog.c")))
    assert(status == 0, out .. err)
    -- no -g: gcc would write .debug_frame instead
    status, out, err = cmd.shell(("cc -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -shared -fPIC"
      .. " -nostdlib -o %s %s"):format(q(lib), q(tmp .. "/noeh.c")))
    assert(status == 0, out .. err)
    syms, text = symbols(exe), text_of(exe)
    libsym, libtext = symbols(lib).noeh_leaf, text_of(lib)
    assert(syms.leaf and syms.middle and syms.main and libsym)
    path = tmp .. "/dwarf.data"
    pw.write(path, recording():bytes())
  end)
  teardown(function() util.rmtree(tmp) end)

  it("the library really has no unwind tables, the program has them", function()
    local frames = util.read_cmd("readelf -wf " .. q(lib) .. " 2>&1")
    assert.is_nil(frames:find("FDE", 1, true), frames)
    assert.truthy(util.read_cmd("readelf -wf " .. q(exe) .. " 2>&1"):find("FDE", 1, true))
  end)

  it("counts each reason in samples, and the binaries the chains stopped in", function()
    local status, r, out, err = stacks(path)
    assert.equal(0, status, err)
    assert.same({
      ["leaf;middle;main"] = N.complete,
      ["leaf;middle (cut)"] = N.cut,
      ["noeh_leaf (cut)"] = N.no_cfi,
      ["[unknown] 0x1234 (cut)"] = N.nowhere,
      ["[unknown] no-such-lib.so+0x10 (cut)"] = N.gone,
      ["middle (cut)"] = N.below,
    }, r.shapes, out)
    assert.equal(12, r.samples)
    assert.equal(12, r.unwound)
    assert.equal(8192, r.size)
    assert.equal(3 + 4 + 1 + 1 + 1, r.truncated)
    assert.same({ stack_copy = 3, no_cfi = 4, no_binary = 2, depth = 0, other = 1 }, r.why)
    assert.same({ ["unwinding read memory below the stack pointer"] = 1 }, r.errors)
    assert.same({ status = "ok", no_cfi = 4, no_binary = 0 }, r.dsos[lib])
    assert.same({ status = "missing", no_cfi = 0, no_binary = 1 }, r.dsos[tmp .. "/no-such-lib.so"])
    assert.same({ status = "unknown", no_cfi = 0, no_binary = 1 }, r.dsos["[unknown]"])
    assert.same({ status = "ok", no_cfi = 0, no_binary = 0 }, r.dsos[exe])
  end)

  it("counts a frame-pointer chain of 127 frames as cut at perf's depth limit, not shorter ones", function()
    local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
      period = 1000, ids = { 1 } } } })
    f:comm(PID, PID, "prog", 10, true)
    map(f, BIAS, text, exe, 20)
    local leaf, ret_middle = BIAS + syms.leaf, BIAS + syms.middle + 4
    for k, depth in ipairs({ 127, 126 }) do
      local chain = { pw.CONTEXT_USER, leaf }
      for _ = 2, depth do chain[#chain + 1] = ret_middle end
      f:sample({ ip = leaf, pid = PID, tid = PID, time = 100 + k, period = 1000, chain = chain })
    end
    local deep = tmp .. "/deep.data"
    pw.write(deep, f:bytes())
    local status, r, out, err = stacks(deep)
    assert.equal(0, status, err)
    assert.equal(1, r.truncated, out)
    assert.same({ stack_copy = 0, no_cfi = 0, no_binary = 0, depth = 1, other = 0 }, r.why)
    assert.equal(0, r.unwound)
  end)

  describe("lgprof doctor", function()
    local function finding(file, id)
      local p = assert(lgprof.open(nil, file, { kallsyms = "" }))
      local found
      for _, f in ipairs(doctor.diagnose(p)) do
        if f.id == id then found = f end
      end
      p:close()
      return found
    end

    it("gives the share of cut chains, each reason's share and what to do for it", function()
      local f = finding(path, "truncated-stacks")
      assert.truthy(f)
      assert.equal("warning", f.severity)
      assert.equal(10, f.truncated)
      assert.equal(12, f.samples)
      assert.same({ stack_copy = 3, no_cfi = 4, no_binary = 2, depth = 0, other = 1 }, f.reasons)
      -- 10/12 = 83.3%; 3/12 = 25.0%, 4/12 = 33.3%, 2/12 = 16.7%, 1/12 = 8.3%
      assert.truthy(f.message:find("83.3% of the call chains (10 of 12 samples) stop before their root", 1, true), f.message)
      assert.truthy(f.message:find("25.0% because unwinding needed more of the stack than the 8192 bytes", 1, true), f.message)
      assert.truthy(f.message:find("33.3% at code without unwind tables (" .. lib .. ")", 1, true), f.message)
      assert.truthy(f.message:find("16.7% at code in no binary", 1, true), f.message)
      assert.truthy(f.message:find("8.3% where unwinding failed (unwinding read memory below the stack pointer)", 1, true), f.message)
      assert.truthy(f.advice:find("record with --call-graph dwarf,65528 (lgprof record --stack-size=65528; this recording copied 8192 bytes)", 1, true), f.advice)
      assert.truthy(f.advice:find("build with -fasynchronous-unwind-tables", 1, true), f.advice)
      assert.truthy(f.advice:find("binary " .. tmp .. "/no-such-lib.so missing: give it with --symfs", 1, true), f.advice)
      assert.same({ { name = lib, path = lib, status = "ok", samples = 4 } }, f.no_cfi)
      -- the DWARF chains are not frame-pointer chains of one frame
      assert.is_nil(finding(path, "broken-stacks"))
    end)

    it("keeps the reasons in a selection of the recording (a copy of the reader's counters)", function()
      local p = assert(lgprof.open(nil, path, { kallsyms = "" }))
      local sub = assert(p:filter({ tid = PID }))
      p:close()
      local found
      for _, f in ipairs(doctor.diagnose(sub)) do
        if f.id == "truncated-stacks" then found = f end
      end
      sub:close()
      assert.truthy(found)
      assert.same({ stack_copy = 3, no_cfi = 4, no_binary = 2, depth = 0, other = 1 }, found.reasons)
      assert.same({ { what = "unwinding read memory below the stack pointer", samples = 1 } }, found.errors)
    end)

    it("makes a note of a few cut chains, and says nothing of complete ones", function()
      local g = pw.new({ attrs = { { sample_type = ST, period = 1000, ids = { 1 }, regs_user = 0xff0fff,
        stack_user = 65528 } } })
      g:comm(PID, PID, "prog", 10, true)
      map(g, BIAS, text, exe, 20)
      local dis = util.read_cmd("objdump -d --no-show-raw-insn " .. q(exe))
      local stack = string.pack("<I8I8I8I8I8", BIAS + after_call(dis, "middle", "leaf"), S + 24,
        BIAS + after_call(dis, "main", "middle"), 0, 0)
      local function sample(k, dyn)
        g:sample({ ip = BIAS + syms.leaf, pid = PID, tid = PID, time = 100 + k, period = 1000, chain = {},
          regs = regs(BIAS + syms.leaf, S + 8), stack = stack, dyn_size = dyn })
      end
      for k = 1, 30 do sample(k, #stack) end
      local clean = tmp .. "/clean.data"
      pw.write(clean, g:bytes())
      assert.is_nil(finding(clean, "truncated-stacks"))
      sample(31, 16) -- 1 of 31 cut: 3.2%, below the 5% of a warning
      local few = tmp .. "/few.data"
      pw.write(few, g:bytes())
      local f = finding(few, "truncated-stacks")
      assert.equal("info", f.severity)
      assert.truthy(f.message:find("3.2% of the call chains (1 of 31 samples)", 1, true), f.message)
      -- the copies were perf's largest already
      assert.truthy(f.advice:find("the stack copies are perf's largest (65528 bytes)", 1, true), f.advice)
    end)
  end)
end)
