-- --annotate-asm on compiled code (issue 34), against binutils and perf:
--   * a program compiled here at -O2 -g with always_inline functions nested
--     two deep in a loop: every instruction's address and mnemonic are
--     objdump's (-M intel), and its source line and inline chain are
--     `addr2line -i -f`'s for the same address (innermost first: the line,
--     then each inlined function with the line it was called from);
--   * a live `perf record` of its hot loop: each instruction's share of the
--     function equals `perf annotate --stdio`'s (percent: local period)
--     within 0.01 point. Skipped, with the reason, where perf cannot record.
--     (Only what holds of any run is asserted: the counts themselves vary.)
local H = require "helpers"
local util, cmd = H.util, H.cmd
local lgprof = require "lgprof"

local q, read_cmd = util.q, util.read_cmd

local SRC = [[
#include <stdio.h>
#include <stdlib.h>
static inline __attribute__((always_inline)) long mix(long x) {
  return (x * 2654435761L) ^ (x >> 7);
}
static inline __attribute__((always_inline)) long step(long s, long i) {
  long m = mix(i + s);
  return s + (m & 1023);
}
__attribute__((noinline)) long hot(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s = step(s, i);
  return s;
}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  printf("%ld\n", hot(n));
  return 0;
}
]]

local tmp, exe

-- objdump -d -M intel of one function: { [addr] = mnemonic }, in order too.
local function objdump_fn(path, name)
  local out = read_cmd("objdump -d -M intel --no-show-raw-insn " .. q(path))
  local t, order, inside = {}, {}, false
  for line in out:gmatch("[^\n]*") do
    local head = line:match("^%x+ <([^>]+)>:$")
    if head then
      inside = head == name
    elseif inside then
      local at, mnem = line:match("^%s*(%x+):%s+(%S+)")
      if at then
        t[tonumber(at, 16)] = mnem
        order[#order + 1] = tonumber(at, 16)
      end
    end
  end
  return t, order
end

-- addr2line -i -f for each address: { [addr] = { {func, line}, ... } }.
local function addr2line(path, addrs)
  local words = {}
  for i, a in ipairs(addrs) do words[i] = ("0x%x"):format(a) end
  local out = read_cmd("addr2line -i -f -a -e " .. q(path) .. " " .. table.concat(words, " "))
  local t, cur, fname = {}, nil, nil
  for line in out:gmatch("[^\n]+") do
    local a = line:match("^0x(%x+)$")
    if a then
      cur = {}
      t[tonumber(a, 16)] = cur
      fname = nil
    elseif not fname then
      fname = line
    else
      cur[#cur + 1] = { func = fname, line = tonumber(line:match(":(%d+)")) }
      fname = nil
    end
  end
  return t
end

describe("--annotate-asm on compiled code", function()
  setup(function()
    tmp = util.mktempdir("lgprof-asm-live")
    exe = tmp .. "/prog"
    util.spit(tmp .. "/prog.c", SRC)
    local status, out, err = cmd.shell("cc -O2 -g -o " .. q(exe) .. " " .. q(tmp .. "/prog.c"))
    assert(status == 0, out .. err)
  end)
  teardown(function() util.rmtree(tmp) end)

  it("has objdump's instructions and addr2line's lines and inline chains", function()
    -- a gmon.out is not needed for the code: a perf.data of no samples
    -- would do as well; open the executable with an empty histogram
    local gw = H.gmonwriter
    local syms = util.code_symbols(exe)
    local lo = syms.hot.addr & ~0xf
    util.spit(tmp .. "/gmon.out", gw.encode({ hist = { { low = lo, high = lo + 0x400, rate = 100,
      dimen = "seconds", abbrev = "s", bins = { 1 } } } }, { format = "gnu" }))
    local p = assert(lgprof.open(exe, tmp .. "/gmon.out"))
    local it, l = assert(p:find("hot")):instructions()
    assert.is_true(l.decoded)
    local mnems, order = objdump_fn(exe, "hot")
    assert.is_true(#order > 5)
    local ins = {}
    for i in it do ins[#ins + 1] = i end
    -- the listing runs to the next symbol (the padding too): objdump's
    -- instructions are its first ones
    for k, a in ipairs(order) do
      assert.equal(a, ins[k].address)
      local want = mnems[a]:gsub("^bnd$", "bnd jmp")
      assert.equal(want, ins[k].mnemonic, ("at 0x%x"):format(a))
    end
    local addrs = {}
    for k = 1, #order do addrs[k] = ins[k].address end
    local a2l = addr2line(exe, addrs)
    local inlined_seen, nested_seen = false, false
    for k = 1, #order do
      local i, chain = ins[k], a2l[ins[k].address]
      if chain[1].line and chain[1].line > 0 then
        assert.equal(chain[1].line, i.line, ("line at 0x%x"):format(i.address))
        assert.equal(#chain - 1, #i.inlined, ("inline depth at 0x%x"):format(i.address))
        for d = 1, #chain - 1 do
          assert.equal(chain[d].func, i.inlined[d].name, ("inlined #%d at 0x%x"):format(d, i.address))
          assert.equal(chain[d + 1].line, i.inlined[d].call_line,
            ("call line #%d at 0x%x"):format(d, i.address))
        end
        inlined_seen = inlined_seen or #i.inlined >= 1
        nested_seen = nested_seen or #i.inlined >= 2
      end
    end
    assert.is_true(inlined_seen, "no inlined instruction")
    assert.is_true(nested_seen, "no instruction of mix inlined in step inlined in hot")
    p:close()
  end)

  it("decodes a stripped binary's functions, named as perf.data's reader names them", function()
    -- built with -rdynamic (hot and main in .dynsym) and stripped of .symtab;
    -- a hand-written recording (helpers.perfwriter) maps it at its own
    -- addresses (a PIE at 0x555555554000) with 3 samples (period 100) at
    -- hot's 3rd instruction and 1 (period 900) at its 5th, from objdump of
    -- the unstripped build (strip moves no code): 3 and 1 samples there,
    -- weights 300 and 900 of 1200,
    -- shares 25% and 75%; one sample at main's first instruction, so that
    -- main is a function of the recording: its call to hot is named hot
    local pw = require "helpers.perfwriter"
    local full, stripped = tmp .. "/dyn", tmp .. "/dyn-stripped"
    local status, out, err = cmd.shell(("cc -O2 -rdynamic -o %s %s && strip -s -o %s %s"):format(
      q(full), q(tmp .. "/prog.c"), q(stripped), q(full)))
    assert(status == 0, out .. err)
    assert.falsy(read_cmd("readelf -S " .. q(stripped)):find("%.symtab"))
    local _, order = objdump_fn(full, "hot")
    local _, main_order = objdump_fn(full, "main")
    local text = assert(util.text_segment(stripped))
    local BIAS = 0x555555554000
    local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
      period = 100, ids = { 1 } } } })
    f:comm(100, 100, "dyn", 10, true)
    local start = BIAS + (text.vaddr & ~0xfff)
    f:mmap2(100, 100, start, ((text.vaddr + text.filesz + 0xfff) & ~0xfff) - (text.vaddr & ~0xfff),
      text.offset & ~0xfff, stripped, 20)
    local t = 1000
    for _, x in ipairs { { order[3], 100 }, { order[3], 100 }, { order[3], 100 }, { order[5], 900 },
                          { main_order[1], 100 } } do
      t = t + 1
      f:sample({ ip = BIAS + x[1], pid = 100, tid = 100, time = t, period = x[2],
        chain = { pw.CONTEXT_USER, BIAS + x[1] } })
    end
    f:finished_round()
    local data = tmp .. "/dyn.data"
    pw.write(data, f:bytes())
    local p = assert(lgprof.open(stripped, data))
    local it, l = assert(p:find("hot")):instructions()
    assert.is_true(l.decoded)
    local at = {}
    for i in it do at[i.address] = i end
    assert.equal(3, at[order[3]].samples)
    assert.equal(0.25, at[order[3]].share)
    assert.equal(1, at[order[5]].samples)
    assert.equal(0.75, at[order[5]].share)
    p:close()
    local st2, listing = cmd.lgprof({ "--annotate-asm=^(hot|main)$", stripped, data })
    assert.equal(0, st2)
    assert.truthy(listing:find("call hot\n", 1, true) or listing:find("-> hot\n", 1, true), listing)
  end)

  it("gives each instruction perf annotate's share (percent: local period)", function()
    local why
    if not util.have("perf") then
      why = "perf is not installed"
    elseif not util.exec_ok("cd " .. q(tmp) .. " && perf record -q -o check.data -e cpu-clock -- true"
                            .. " >/dev/null 2>&1") then
      why = "perf cannot record here (perf_event_paranoid, or no perf events)"
    end
    if why then
      print("skipped: " .. why)
      return
    end
    local data = tmp .. "/perf.data"
    assert(util.exec_ok(("cd %s && perf record -q -o %s -e cpu-clock -F 2000 -- %s 200000000"
      .. " >/dev/null 2>&1"):format(q(tmp), q(data), q(exe))))
    local p = assert(lgprof.open(exe, data))
    local it, l = assert(p:find("hot")):instructions()
    assert.is_true(l.samples > 0)
    local mine = {}
    for i in it do mine[i.address] = 100 * i.share end
    local out = read_cmd(("perf annotate --stdio -i %s hot 2>/dev/null"):format(q(data)))
    local n = 0
    for pct, at in out:gmatch("\n%s*([%d.]+)%s*:%s+(%x+):") do
      local a = tonumber(at, 16)
      assert.is_not_nil(mine[a], ("perf annotates 0x%x, not listed"):format(a))
      assert.is_true(math.abs(mine[a] - tonumber(pct)) <= 0.01,
        ("0x%x: perf %s%%, lgprof %.4f%%"):format(a, pct, mine[a]))
      n = n + 1
    end
    assert.is_true(n > 5, out)
    p:close()
  end)
end)
