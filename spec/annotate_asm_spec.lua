-- --annotate-asm and Function:instructions() (issue 34) on a hand-assembled
-- executable (helpers.elfwriter) with a hand-written gmon.out and perf.data:
-- every address, count, share and target below is derived by hand.
--
-- The code (.text at 0x401000; bytes assembled by hand, Intel syntax):
--   f1 0x401000  55              push rbp
--      0x401001  48 89 e5        mov rbp, rsp
--      0x401004  31 c0           xor eax, eax
--      0x401006  ff c0           inc eax            <- the loop's head
--      0x401008  83 f8 0a        cmp eax, 0xa
--      0x40100b  75 f9           jne 0x401006       (0x40100d - 7): back edge
--      0x40100d  e8 03 00 00 00  call 0x401015      (0x401012 + 3): call f2
--      0x401012  5d              pop rbp
--      0x401013  c3              ret
--      0x401014  90              nop                (padding up to f2)
--   f2 0x401015  c3              ret                (1 byte, at an odd address)
--   f3 0x401016  31 c0           xor eax, eax
--      0x401018  c3              ret
--      0x401019  90 x 7          nop                (padding up to f4)
--   f4 0x401020  31 c0           xor eax, eax
--      0x401022  31 d2           xor edx, edx
--      0x401024  c3              ret
--      0x401025  90 x 11         nop
--   f5 0x401030  c3              ret                (the last symbol)
--
-- gmon.out: one histogram 0x401000..0x401040, 16 bins: scale = (0x40 / 2) /
-- 16 = 2 units (4 bytes) a bin; bin i covers units [0x200800 + 2i, +2).
-- gprof's rule in 2-byte units (an address halved, rounded down): an
-- instruction holds [addr/2, next/2), and is credited overlap * count / 2.
--   bin 0 (0x401000-3) count 4: push [0x200800,0x200800) is empty (mov at
--     0x401001 starts in the same unit), mov [0x200800,0x200802): 2 units x 4
--     = 8 units = 4 ticks to mov, alone in the bin (not marked).
--   bin 1 (0x401004-7) count 6: xor [802,803), inc [803,804): 6 units = 3
--     ticks each, both marked (they share it).
--   bin 2 (0x401008-b) count 2: cmp [804,805), jne [805,806): 1 tick each,
--     marked.
--   bin 5 (0x401014-7) count 10, spanning f1's nop, f2 and f3: f1 ends at
--     f2's unit 0x20080a (its nop's range is empty); f2's ret [80a,80b): 10
--     units = 5 ticks; f3's xor [80b,80c): 5 ticks; both marked (the bin is
--     wider than either function).
--   bin 8 (0x401020-3) count 3: f4's two xors, 3 units = 1.5 ticks each.
--   Functions (gprof's rule on symbols): f1 4 + 3 + 3 + 1 + 1 = 12, f2 5,
--   f3 5, f4 3; total 25 ticks. Each function's instructions add up to it.
--
-- perf.data (the same file mapped at its addresses): f1: 3 samples at inc
-- (period 100 each), 1 at cmp (200), 1 at jne (500): weight 1000, shares
-- 30%, 20%, 50%; f2: 2 samples at its ret (100 each). Total weight 1200.
local H = require "helpers"
local util, cmd, gw, ew = H.util, H.cmd, H.gmonwriter, H.elfwriter
local pw = require "helpers.perfwriter"
local lgprof = require "lgprof"

local TEXT = 0x401000
local CODE = table.concat({
  "\x55", "\x48\x89\xe5", "\x31\xc0", "\xff\xc0", "\x83\xf8\x0a", "\x75\xf9",
  "\xe8\x03\x00\x00\x00", "\x5d", "\xc3", "\x90",     -- f1
  "\xc3",                                               -- f2
  "\x31\xc0", "\xc3", ("\x90"):rep(7),                  -- f3
  "\x31\xc0", "\x31\xd2", "\xc3", ("\x90"):rep(11),     -- f4
  "\xc3", ("\x90"):rep(15),                             -- f5
})
assert(#CODE == 0x40)
local SYMS = {
  { name = "f1", addr = 0x401000, size = 0x14 }, { name = "f2", addr = 0x401015, size = 1 },
  { name = "f3", addr = 0x401016, size = 3 }, { name = "f4", addr = 0x401020, size = 5 },
  { name = "f5", addr = 0x401030, size = 1 },
}

local tmp, exe, gmon, perfdata

local function elf(path, machine)
  local syms = {}
  for _, s in ipairs(SYMS) do
    syms[#syms + 1] = { name = s.name, addr = s.addr, size = s.size, bind = "global", type = "func" }
  end
  ew.write(path, { text_addr = TEXT, text_data = CODE, symbols = syms, machine = machine })
  return path
end

local function write_gmon(path)
  local bins = {}
  for i = 1, 16 do bins[i] = 0 end
  bins[1], bins[2], bins[3], bins[6], bins[9] = 4, 6, 2, 10, 3
  util.spit(path, gw.encode({ hist = { { low = TEXT, high = TEXT + 0x40, rate = 100,
    dimen = "seconds", abbrev = "s", bins = bins } } }, { format = "gnu" }))
  return path
end

-- the perf.data above: { ip, period[, tid] } per sample (tid: 100 unless given)
local SAMPLES = {
  { 0x401006, 100 }, { 0x401006, 100 }, { 0x401006, 100 }, { 0x401008, 200 }, { 0x40100b, 500 },
  { 0x401015, 100 }, { 0x401015, 100 },
}

local function write_perf(path, exe_path, samples)
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
    period = 100, ids = { 1 } } } })
  local text = assert(util.text_segment(exe_path))
  f:comm(100, 100, "prog", 10, true)
  local start = text.vaddr & ~0xfff
  f:mmap2(100, 100, start, ((text.vaddr + text.filesz + 0xfff) & ~0xfff) - start,
    text.offset & ~0xfff, exe_path, 20)
  local t = 1000
  for _, x in ipairs(samples or SAMPLES) do
    t = t + 1
    f:sample({ ip = x[1], pid = 100, tid = x[3] or 100, time = t, period = x[2],
      chain = { pw.CONTEXT_USER, x[1] } })
  end
  f:finished_round()
  pw.write(path, f:bytes())
  return path
end

-- The instructions of fn as a list, and the listing.
local function listing(fn)
  local it, l = fn:instructions()
  local t = {}
  for i in it do t[#t + 1] = i end
  return t, l
end

local function by_addr(list)
  local t = {}
  for _, i in ipairs(list) do t[i.address] = i end
  return t
end

describe("--annotate-asm", function()
  setup(function()
    tmp = util.mktempdir("lgprof-asm")
    exe = elf(tmp .. "/prog")
    gmon = write_gmon(tmp .. "/gmon.out")
    perfdata = write_perf(tmp .. "/perf.data", exe)
  end)
  teardown(function() util.rmtree(tmp) end)

  it("decodes each function up to the next symbol, with targets and back edges", function()
    local p = assert(lgprof.open(exe, gmon))
    local ins, l = listing(assert(p:find("f1")))
    assert.is_true(l.decoded)
    assert.equal("x86-64", l.arch)
    local addrs, mnems = {}, {}
    for _, i in ipairs(ins) do addrs[#addrs + 1], mnems[#mnems + 1] = i.address, i.mnemonic end
    assert.same({ 0x401000, 0x401001, 0x401004, 0x401006, 0x401008, 0x40100b, 0x40100d, 0x401012,
                  0x401013, 0x401014 }, addrs)
    assert.same({ "push", "mov", "xor", "inc", "cmp", "jne", "call", "pop", "ret", "nop" }, mnems)
    local a = by_addr(ins)
    assert.equal("48 89 e5", a[0x401001].bytes)
    assert.equal(3, a[0x401001].size)
    assert.equal("rbp, rsp", a[0x401001].operands)
    assert.equal(0x401006, a[0x40100b].target)
    assert.equal(6, a[0x40100b].target_offset)
    assert.is_true(a[0x40100b].back_edge and a[0x40100b].is_jump)
    assert.is_nil(a[0x40100b].target_name) -- in f1 itself
    assert.is_true(a[0x40100d].is_call)
    assert.equal("f2", a[0x40100d].target_name)
    assert.equal(0, a[0x40100d].target_offset)
    assert.is_false(a[0x40100d].back_edge)
    assert.is_true(a[0x401013].is_ret)
    p:close()
  end)

  it("spreads gmon.out's bins over instructions by gprof's rule, adding up per function", function()
    local p = assert(lgprof.open(exe, gmon))
    local want = {
      f1 = { [0x401000] = 0, [0x401001] = 4, [0x401004] = 3, [0x401006] = 3, [0x401008] = 1,
             [0x40100b] = 1, [0x40100d] = 0, [0x401012] = 0, [0x401013] = 0, [0x401014] = 0 },
      f2 = { [0x401015] = 5 },
      f3 = { [0x401016] = 5, [0x401018] = 0 },
      f4 = { [0x401020] = 1.5, [0x401022] = 1.5, [0x401024] = 0 },
    }
    local shared = { [0x401004] = true, [0x401006] = true, [0x401008] = true, [0x40100b] = true,
                     [0x401015] = true, [0x401016] = true, [0x401020] = true, [0x401022] = true }
    local fn_ticks = { f1 = 12, f2 = 5, f3 = 5, f4 = 3 }
    for name, rows in pairs(want) do
      local fn = assert(p:find(name))
      local ins, l = listing(fn)
      local sum, units = 0, 0
      for _, i in ipairs(ins) do
        if rows[i.address] then
          assert.equal(rows[i.address], i.samples, ("%s at 0x%x"):format(name, i.address))
          assert.equal(rows[i.address] * 2, i.units)
        end
        assert.equal(shared[i.address] or false, i.shared_bin, ("%s at 0x%x"):format(name, i.address))
        sum, units = sum + i.samples, units + i.units
      end
      -- the function's histogram samples (gprof's arithmetic), exactly
      assert.equal(fn_ticks[name], fn.samples, name)
      assert.equal(fn.samples, sum, name)
      assert.equal(fn.samples, l.samples, name)
      assert.equal(fn_ticks[name] * 2, units, name)
      assert.equal(fn.samples, fn.self * 100, name) -- 100 Hz
    end
    p:close()
  end)

  it("counts perf.data samples at their exact addresses", function()
    local p = assert(lgprof.open(exe, perfdata))
    local ins, l = listing(assert(p:find("f1")))
    assert.equal("samples", l.counts)
    assert.equal(5, l.samples)
    assert.equal(1000, l.weight)
    local a = by_addr(ins)
    assert.equal(3, a[0x401006].samples)
    assert.equal(300, a[0x401006].weight)
    assert.equal(0.3, a[0x401006].share)
    assert.equal(1, a[0x401008].samples)
    assert.equal(0.2, a[0x401008].share)
    assert.equal(0.5, a[0x40100b].share)
    assert.equal(0, a[0x401001].samples)
    local f2 = listing(assert(p:find("f2")))
    assert.equal(1, #f2) -- its symbol's size: 1 byte
    assert.equal(2, f2[1].samples)
    assert.equal(1, f2[1].share)
    p:close()
  end)

  it("writes the listing as text with the totals, targets and Top tables", function()
    local status, out, err = cmd.lgprof({ "--annotate-asm=^f[12]$", exe, gmon })
    assert.equal(0, status, err)
    -- f1: 12 of 25 ticks = 48.00%; mov 4 ticks = 33.33% of f1, 16.00% of all
    assert.truthy(out:find("=== f1 @ 0x401000, 21 bytes: 48.00% of the total (12.00 ticks)", 1, true), out)
    assert.truthy(out:find("      4.00  33.33  16.00       401001      +0x1  mov rbp, rsp\n", 1, true), out)
    assert.truthy(out:find("      3.00  25.00  12.00 *     401006      +0x6  inc eax\n", 1, true), out)
    assert.truthy(out:find("jne 0x401006%s+%-> loop at %+0x6  %(back edge%)\n"), out)
    assert.truthy(out:find("call 0x401015%s+call f2\n"), out)
    assert.truthy(out:find("4 bytes a bin, spread over the instructions", 1, true), out)
    -- Top: the 6 sampled instructions; f2's ret (5) first, then mov (4); no
    -- source lines (no DWARF), so no table of lines
    assert.truthy(out:find("Top 6 instructions:", 1, true), out)
    assert.falsy(out:find("lines:", 1, true), out)
    assert.truthy(out:find("      5.00  20.00     401015  f2+0x0           ret\n      4.00  16.00     401001  f1+0x1           mov rbp, rsp\n", 1, true), out)
    local s2, out2 = cmd.lgprof({ "--annotate-asm=^f1$", exe, perfdata })
    assert.equal(0, s2)
    -- f1: 1000 of 1200 = 83.33%; jne 1 sample, 50% of f1, 41.67% of all
    assert.truthy(out2:find("=== f1 @ 0x401000, 20 bytes: 83.33% of the total (5 samples)", 1, true), out2)
    assert.truthy(out2:find("         1  50.00  41.67       40100b      +0xb  jne 0x401006", 1, true), out2)
    assert.truthy(out2:find("on or after the instruction that caused it", 1, true), out2)
  end)

  it("lists the hottest functions by default and writes JSON", function()
    local status, out = cmd.lgprof({ "--annotate-asm", exe, gmon })
    assert.equal(0, status)
    -- every function with samples, hottest first: f1 (12), f2 and f3 (5, by address), f4 (3)
    local order = {}
    for name in out:gmatch("=== (f%d) @") do order[#order + 1] = name end
    assert.same({ "f1", "f2", "f3", "f4" }, order)
    local s2, js = cmd.lgprof({ "--annotate-asm=^f4$", "--format=json", exe, gmon })
    assert.equal(0, s2)
    assert.truthy(js:find('"format":"lgprof-asm"', 1, true), js)
    assert.truthy(js:find('"address":4198432,', 1, true), js) -- 0x401020
    assert.truthy(js:find('"samples":1.5,', 1, true), js)
    assert.truthy(js:find('"mnemonic":"xor"', 1, true), js)
    assert.truthy(js:find('"total_weight":25', 1, true), js)
  end)

  it("applies the views: --tid keeps that thread's samples", function()
    -- thread 101: one sample at cmp (period 300) and one in f2 (period 100);
    -- thread 100: the samples above. --tid=101: f1 is cmp alone, 300 of 400
    local path = write_perf(tmp .. "/threads.data", exe, {
      { 0x401006, 100 }, { 0x401008, 300, 101 }, { 0x40100b, 500 }, { 0x401015, 100, 101 } })
    local status, out, err = cmd.lgprof({ "--annotate-asm=^f1$", "--tid=101", exe, path })
    assert.equal(0, status, err)
    assert.truthy(out:find("=== f1 @ 0x401000, 20 bytes: 75.00% of the total (1 samples)", 1, true), out)
    assert.truthy(out:find("         1 100.00  75.00       401008      +0x8  cmp eax, 0xa\n", 1, true), out)
    local _, n = out:gsub("\n +%d+ +[%d.]+ +[%d.]+ +%x+ ", "")
    assert.equal(1, n) -- one listed row with samples (the Top row has one share)
  end)

  it("compares two recordings of the same build per instruction (--diff)", function()
    -- new: f1 inc 1 sample (100), jne 1 sample (300): 25% and 75% of f1;
    -- base: inc 30%, cmp 20%, jne 50%. Changes -5.00, -20.00, +25.00 points.
    -- f1's total share: 400 of 400 now (100.00%), 1000 of 1200 in the base
    -- (83.33%): +16.67 points
    local new = write_perf(tmp .. "/new.data", exe, { { 0x401006, 100 }, { 0x40100b, 300 } })
    local status, out, err = cmd.lgprof({ "--annotate-asm=^f1$", "--diff", perfdata, exe, new })
    assert.equal(0, status, err)
    assert.truthy(out:find("=== f1 @ 0x401000: 100.00% of the total, was 83.33% (+16.67 points)", 1,
      true), out)
    assert.truthy(out:find("      30.00       25.00   -5.00     401006      +0x6  inc eax\n", 1, true), out)
    assert.truthy(out:find("      20.00              -20.00     401008      +0x8  cmp eax, 0xa\n", 1,
      true), out)
    assert.truthy(out:find("      50.00       75.00  +25.00     40100b      +0xb  jne 0x401006\n", 1,
      true), out)
    -- another build (f1's code changed): not compared per instruction
    local code2 = CODE:gsub("^\x55", "\x90")
    local other = tmp .. "/prog2"
    local syms = {}
    for _, x in ipairs(SYMS) do
      syms[#syms + 1] = { name = x.name, addr = x.addr, size = x.size, bind = "global", type = "func" }
    end
    ew.write(other, { text_addr = TEXT, text_data = code2, symbols = syms })
    local s2, out2 = cmd.lgprof({ "--annotate-asm=^f1$", "--diff", perfdata, other,
      write_perf(tmp .. "/other.data", other) })
    assert.equal(0, s2)
    assert.truthy(out2:find("the base's code differs (another build): not compared per instruction",
      1, true), out2)
  end)

  it("lists addresses and counts when the binary cannot be read", function()
    -- the recording's binary removed: each sampled address is a function
    -- "[unknown] gone+0xOFF" of its own, listed with its count
    local gone = elf(tmp .. "/gone")
    local path = write_perf(tmp .. "/gone.data", gone, { { 0x401006, 100 }, { 0x401006, 100 } })
    os.remove(gone)
    local status, out, err = cmd.lgprof({ "--annotate-asm", path })
    assert.equal(0, status, err)
    assert.truthy(out:find("The code was not read (the kernel, JIT code or a binary not found):"
      .. " sampled addresses and counts only.", 1, true), out)
    -- (an address of no binary is its offset in the mapped file: .text is at
    -- file offset 0x1000, so 0x401006 is 0x1006)
    assert.truthy(out:find("\n         2 100.00 100.00 +1006 +%+0x0\n"), out)
  end)

  it("lists addresses and counts undecoded on another machine", function()
    local other = elf(tmp .. "/arm", ew.EM_AARCH64)
    local p = assert(lgprof.open(other, gmon))
    local ins, l = listing(assert(p:find("f1")))
    assert.is_false(l.decoded)
    assert.equal("aarch64", l.arch)
    -- one row per sampled bin, at its first address: bins 0, 1, 2
    local addrs, sum = {}, 0
    for _, i in ipairs(ins) do addrs[#addrs + 1], sum = i.address, sum + i.samples end
    assert.same({ 0x401000, 0x401004, 0x401008 }, addrs)
    assert.equal(12, sum)
    p:close()
    local status, out = cmd.lgprof({ "--annotate-asm=^f1$", other, gmon })
    assert.equal(0, status)
    assert.truthy(out:find("Code for aarch64 is not decoded: sampled addresses and counts only.", 1, true), out)
  end)
end)

-- doc/command.md's example of --annotate-asm is this spec's perf.data,
-- as lgprof prints it: the indented block after "<!-- asm example -->".
describe("doc/command.md's --annotate-asm example", function()
  it("is what lgprof prints for the spec's perf.data", function()
    local dir = util.mktempdir("lgprof-asm-doc")
    finally(function() util.rmtree(dir) end)
    local prog = elf(dir .. "/prog")
    local data = write_perf(dir .. "/perf.data", prog)
    local status, out, err = cmd.lgprof({ "--annotate-asm=^f1$", "prog", "perf.data" },
      { cwd = dir })
    assert.equal(0, status, err)
    local doc = assert(util.slurp(cmd.ROOT .. "/doc/command.md"))
    local block = doc:match("<!%-%- asm example %-%->\n\n(.-)\n\n[^ ]")
    assert.is_not_nil(block, "no example block in doc/command.md")
    local lines = {}
    for l in (block .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = (l:gsub("^    ", "")) end
    assert.equal(out, table.concat(lines, "\n") .. "\n")
    assert.is_not_nil(data)
  end)
end)
