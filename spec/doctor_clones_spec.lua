-- lgprof doctor's static-no-debug where gprof's rule folds one of gcc's
-- clones into the C run-time's start-up code: frame_dummy, the last function
-- of crtbegin.o, comes right before the program's first function, and when
-- that function is a clone (work.part.0) gprof's name filter gives its
-- samples and calls to frame_dummy. frame_dummy has no DWARF (crtbegin.o is
-- no -g object of the program's) and, with the clone's code in its range,
-- seemed to call mcount: the doctor counted it as a static function of the
-- program built without -g, and advised -g on a -g build. The finding is
-- judged with the clones kept: the clone is its own function, with its
-- object's DWARF.
--
-- (a) A synthesized x86-64 image (helpers.elfwriter, no DWARF) and gmon.out
--     (helpers.gmonwriter): every number below is read off the layout.
-- (b) A real -O1 -g -pg build whose first function is a static clone-named
--     work.part.0 (an asm label), with a real run's arcs (exact calls) and a
--     histogram written here: no static-no-debug; real gprof on the same
--     files folds the clone into frame_dummy as lgprof's rule does.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd, gw = H.util, H.cmd, H.gmonwriter
local ew = require "helpers.elfwriter"
local q = util.q

local function by_id(findings)
  local t = {}
  for _, f in ipairs(findings) do t[f.id] = f end
  return t
end

-- gprof -b -p's flat profile: name -> calls (nil: blank), or nil without gprof
local function gprof_calls(exe, gmon)
  if not cmd.HAVE_GPROF then return nil end
  local status, out, err = cmd.gprof({ "-b", "-p", exe, gmon })
  assert(status == 0, err)
  local t = {}
  for line in out:gmatch("[^\n]+") do
    local nums, name = line:match("^%s*([%d.%s]+)%s+(%S+)$")
    if nums and name then
      local words = {}
      for w in nums:gmatch("%S+") do words[#words + 1] = w end
      t[name] = #words >= 4 and tonumber(words[4]) or false
    end
  end
  return t
end

describe("doctor: static-no-debug and a clone folded into the start-up code", function()
  local tmp = util.block_tmpdir("lgprof doctor-clones")

  it("names the clone, not frame_dummy, on a synthesized image without DWARF", function()
    -- .text at 0x401000, filler int3 (CC):
    --   0x000 mcount: ret
    --   0x010 frame_dummy (local, no size, as crtbegin.o's): endbr64; jmp
    --         mcount (9 bytes, no mcount call)
    --   0x020 work.part.0 (local): push %rbp; mov %rsp,%rbp; call mcount; ret
    --   0x040 main: push %rbp; mov %rsp,%rbp; call mcount; call work.part.0; ret
    -- frame_dummy's own bytes call no mcount; the 64 bytes from it, which
    -- the folded range holds, do (work.part.0's call at 0x024).
    local base = 0x401000
    local code = {}
    for i = 0, 0xff do code[i] = 0xcc end
    local function put(off, bytes) for i, b in ipairs(bytes) do code[off + i - 1] = b end end
    local function rel32(from_end, to)
      local v = (to - from_end) & 0xffffffff
      return v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff
    end
    put(0x000, { 0xc3 })
    put(0x010, { 0xf3, 0x0f, 0x1e, 0xfa, 0xe9, rel32(base + 0x019, base) })
    put(0x020, { 0x55, 0x48, 0x89, 0xe5, 0xe8, rel32(base + 0x029, base) })
    put(0x029, { 0xc3 })
    put(0x040, { 0x55, 0x48, 0x89, 0xe5, 0xe8, rel32(base + 0x049, base) })
    put(0x049, { 0xe8, rel32(base + 0x04e, base + 0x20) })
    put(0x04e, { 0xc3 })
    local bytes = {}
    for i = 0, 0xff do bytes[#bytes + 1] = string.char(code[i]) end
    local exe = tmp() .. "/synth"
    ew.write(exe, { text_addr = base, text_data = table.concat(bytes), symbols = {
      { name = "frame_dummy", addr = base + 0x10, bind = "local", type = "func" },
      { name = "work.part.0", addr = base + 0x20, size = 0x20, bind = "local", type = "func" },
      { name = "mcount", addr = base, size = 1, bind = "global", type = "func" },
      { name = "main", addr = base + 0x40, size = 0x20, bind = "global", type = "func" },
    } })
    -- 4-byte bins: 10 samples at 0x024 (work.part.0), 2 at 0x048 (main);
    -- 5 calls from main's call (returning to 0x04e) to work.part.0 (its
    -- mcount call returns to 0x029)
    local gmon = tmp() .. "/synth.gmon"
    gw.write(gmon, { hist = { { low = base, high = base + 0x100, rate = 100, n_bins = 0x40,
      bins = { [0x09 + 1] = 10, [0x12 + 1] = 2 } } },
      arcs = { { from = base + 0x4e, to = base + 0x29, count = 5 } } })
    local p <close> = assert(lgprof.open(exe, gmon))
    -- gprof's rule: frame_dummy took the clone's 10 samples and 5 calls
    local fd = assert(p:find("frame_dummy"))
    assert.same({ 10, 5 }, { fd.samples, fd.calls })
    local g = gprof_calls(exe, gmon)
    if g then
      assert.equal(5, g.frame_dummy)
      assert.is_nil(g["work.part.0"])
    end
    local f = by_id(lgprof.doctor(p))
    assert.truthy(f["merged-clones"])
    assert.equal("frame_dummy", f["merged-clones"].clones[1].into)
    -- the clone is the program's code without DWARF (none in this image):
    -- it, not frame_dummy, is the static function without a source file
    local ids = {}
    for id, x in pairs(f) do ids[#ids + 1] = id .. ": " .. x.message end
    table.sort(ids)
    local s = assert(f["static-no-debug"], table.concat(ids, "\n"))
    assert.same({ { name = "work.part.0" } }, s.functions)
    assert.is_false(s.debug_info)
  end)

  it("finds none on a -g build whose first function, a clone, follows frame_dummy", function()
    if not util.have("gcc") then return pending("gcc is needed") end
    local dir = tmp() .. "/real"
    util.mkdir(dir)
    util.spit(dir .. "/p.c", [[
#include <stdio.h>
volatile unsigned long sink;
static void work_part(long n) __asm__("work.part.0");
__attribute__((noinline)) static void work_part(long n) { for (long i = 0; i < n; i++) sink += i; }
int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < 7; i++) work_part(1000L * argc);
  printf("%lu\n", sink);
  return 0;
}
]])
    local status, out, err = cmd.shell("gcc -O1 -g -pg -fno-pie -no-pie -o p p.c && ./p >/dev/null", { cwd = dir })
    assert(status == 0, out .. err)
    -- the layout this case needs: work.part.0 is the symbol after frame_dummy
    local order, at = {}, {}
    for a, name in util.read_cmd("nm -n " .. q(dir .. "/p")):gmatch("(%x+) [tT] (%S+)") do
      order[#order + 1] = name
      at[name] = tonumber(a, 16)
    end
    local after
    for i, name in ipairs(order) do if name == "frame_dummy" then after = order[i + 1] end end
    if after ~= "work.part.0" then
      return pending("the linker put " .. tostring(after) .. " after frame_dummy, not work.part.0")
    end
    -- the run's arcs (calls are exact), and a histogram of 40 samples all in
    -- work.part.0's first instructions
    local data = gw.decode(gw.read(dir .. "/gmon.out"))
    local h = data.hist[1]
    for k in pairs(h.bins) do h.bins[k] = nil end
    local i = (at["work.part.0"] + 4 - h.low) * h.n_bins // (h.high - h.low)
    h.bins[i + 1] = 40
    local gmon = dir .. "/synth.gmon"
    gw.write(gmon, data)
    local p <close> = assert(lgprof.open(dir .. "/p", gmon))
    local fd = assert(p:find("frame_dummy"))
    -- (gprof's bins are not a whole number of bytes here: a bin's samples
    -- are shared by the functions it overlaps, in proportion)
    assert.is_true(math.abs(fd.samples - 40) < 1, tostring(fd.samples))
    assert.equal(7, fd.calls)
    local g = gprof_calls(dir .. "/p", gmon)
    if g then assert.equal(7, g.frame_dummy) end
    local f = by_id(lgprof.doctor(p, { few_samples = 0 }))
    assert.truthy(f["merged-clones"])
    assert.is_nil(f["static-no-debug"], f["static-no-debug"] and f["static-no-debug"].message)
    -- and the command says nothing of -g
    local s2, o2, e2 = cmd.lgprof({ "doctor", dir .. "/p", gmon })
    assert.is_true(s2 == 0 or s2 == 3, e2)
    assert.is_nil(o2:find("static-no-debug", 1, true), o2)
    assert.is_nil(o2:find("-g", 1, true), o2)
  end)
end)
