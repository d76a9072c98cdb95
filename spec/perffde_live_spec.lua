-- Functions of a stripped system library on a real recording (issue 31,
-- section 1): a program compressing with the system's libz.so.1 (Debian's
-- has no .symtab and no debug file) in two threads, recorded by `lgprof
-- record --dwarf` (libz keeps no frame pointers). A live run samples
-- differently each time, so only what holds of any run is asserted: every
-- libz row without a symbol is an FDE function whose start is an FDE start
-- of `readelf --debug-dump=frames`, there are at most as many libz rows as
-- FDEs sampled, the compressing thread function's total is at least 90 % of
-- the samples (its stacks reach it through libz's CFI), and each function's
-- self share equals `perf report --no-children`'s on the same file, an FDE
-- function's being the sum of perf's rows of the addresses inside it (perf
-- names each sampled address of stripped code on its own). Where they
-- differ: perf names each entry of the PLT after its relocation
-- (memcpy@plt), lgprof has the PLT's one FDE as one function, so perf's
-- @plt rows of libz count for that FDE. Pending, with the reason, where
-- perf cannot record or libz is not the stripped one.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd = H.util, H.cmd

local q = util.q
local TMP = util.mktempdir("lgprof-perffde-live")

local SRC = [[
#include <pthread.h>
#include <stdlib.h>
#include <zlib.h>
static unsigned char input[1 << 20];
__attribute__((noinline)) static void *compress_loop(void *arg) {
  static unsigned char out[2 << 20];
  unsigned long total = 0;
  (void)arg;
  for (int round = 0; round < 6; round++) {
    uLongf len = sizeof out;
    if (compress2(out, &len, input, sizeof input, 6) != Z_OK) abort();
    total += len;
  }
  return (void *)total;
}
int main(void) {
  unsigned int x = 12345;
  for (size_t i = 0; i < sizeof input; i++) {
    x = x * 1103515245 + 12345;
    input[i] = "abcdefgh  \n"[(x >> 16) % 11];
  }
  pthread_t t[2];
  for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, compress_loop, NULL);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  return 0;
}
]]

-- the program's libz (ldd), or nil and why not
local function libz_of(exe)
  local path = util.read_cmd("ldd " .. q(exe)):match("libz%.so%.1 => (%S+)")
  if not path then return nil, "ldd finds no libz.so.1" end
  path = util.read_cmd("readlink -f " .. q(path)):gsub("\n$", "")
  if util.read_cmd("readelf -S " .. q(path)):find("%.symtab") then
    return nil, "this system's libz has a .symtab: nothing anonymous to show"
  end
  return path
end

local function record()
  if not util.have("perf") then return nil, "perf is not installed" end
  util.spit(TMP .. "/zprog.c", SRC)
  local status, out, err = cmd.shell("cc -O1 -g -fno-omit-frame-pointer -o zprog zprog.c -lz -lpthread",
    { cwd = TMP })
  if status ~= 0 then return nil, "cc failed (zlib1g-dev?): " .. out .. err end
  local libz, why = libz_of(TMP .. "/zprog")
  if not libz then return nil, why end
  status, out, err = cmd.lgprof({ "record", "--dwarf", "-o", "z.data", "--", "./zprog" }, { cwd = TMP })
  if status ~= 0 then return nil, "lgprof record does not work here: " .. (out .. err):gsub("\n", " ") end
  return libz
end

-- readelf's FDEs of a file, by start: { { start, finish } ... } sorted
local function readelf_fdes(path)
  local t = {}
  for s, e in util.read_cmd("readelf --debug-dump=frames " .. q(path)):gmatch("FDE cie=%x+ pc=(%x+)%.%.(%x+)") do
    t[#t + 1] = { start = tonumber(s, 16), finish = tonumber(e, 16) }
  end
  table.sort(t, function(a, b) return a.start < b.start end)
  return t
end

describe("functions of a stripped system library on a live recording", function()
  local libz, why = record()
  if not libz then
    pending(why)
    return
  end
  local base = libz:match("[^/]*$")
  local fdes = readelf_fdes(libz)
  local starts = {}
  for _, f in ipairs(fdes) do starts[f.start] = f end
  local function fde_of(addr)
    for _, f in ipairs(fdes) do
      if addr >= f.start and addr < f.finish then return f end
    end
  end
  local path = TMP .. "/z.data"
  -- the FDE that covers libz's .plt (perf's X@plt rows)
  local plt = util.read_cmd("readelf -SW " .. q(libz)):match("%] %.plt%s+PROGBITS%s+(%x+)")
  local plt_fde = plt and fde_of(tonumber(plt, 16))
  teardown(function() util.rmtree(TMP) end)

  it("makes each libz function without a symbol an FDE function, and keeps its thread's stacks", function()
    local p = assert(lgprof.open(nil, path))
    local rows, anonymous, thread_total, all = 0, 0, nil, 0
    for t in p:threads() do all = all + t.weight end
    for fn in p:functions() do
      if fn.kind == "function" and fn.dso == libz and fn.samples > 0 then
        rows = rows + 1
        if fn.is_anonymous then
          anonymous = anonymous + 1
          local start = tonumber(fn.name:match("^" .. base:gsub("%p", "%%%0") .. "%+0x(%x+)$") or "", 16)
          assert.truthy(start and starts[start], fn.name .. " does not start at an FDE of " .. libz)
          assert.equal(start, fn.address)
        end
        -- per address only where no FDE covers it (.init, say)
        local at = fn.name:match("^%[unknown%] .-%+0x(%x+)$")
        if at then assert.is_nil(fde_of(tonumber(at, 16)), fn.name .. " is in an FDE") end
      end
      if fn.kind == "function" and fn.name == "compress_loop" then thread_total = fn.total end
    end
    assert.is_true(rows >= 1 and anonymous >= 1, "no sample in libz's functions without a symbol")
    assert.is_true(rows <= #fdes, ("%d libz rows, %d FDEs"):format(rows, #fdes))
    local d
    for x in p:dsos() do if x.path == libz then d = x end end
    assert.equal("stripped", d.status)
    -- seconds: the thread function's total against every sample's
    assert.is_true(thread_total / (all / 1e9) >= 0.90,
      ("compress_loop's total is %.1f%% of the samples"):format(100 * thread_total / (all / 1e9)))
    p:close()
  end)

  it("gives each function perf report's self share, an FDE function its addresses' sum", function()
    local status, out = cmd.shell(("perf report -i %s --stdio -g none --no-inline --no-children "
      .. "--sort dso,sym -F overhead,dso,sym 2>/dev/null"):format(q(path)))
    assert.equal(0, status)
    -- perf's rows: a name, or an address of stripped code (the binary's)
    local perf, rows_in = {}, {}
    for l in out:gmatch("[^\n]+") do
      local pct, dso, kind, sym = l:match("^%s*([%d.]+)%%%s+(%S+)%s+%[([.k])%]%s+(.-)%s*$")
      if pct and kind == "." then
        local key = sym
        local addr = sym:match("^0x(%x+)$")
        if addr and dso == base then
          local f = fde_of(tonumber(addr, 16))
          key = f and ("%s+0x%x"):format(base, f.start) or ("[unknown] %s+0x%x"):format(base, tonumber(addr, 16))
        elseif dso == base and sym:find("@plt$") and plt_fde then
          key = ("%s+0x%x"):format(base, plt_fde.start)
        end
        perf[key] = (perf[key] or 0) + tonumber(pct)
        rows_in[key] = (rows_in[key] or 0) + 1
      end
    end
    local p = assert(lgprof.open(nil, path, { no_inline = true }))
    local all = 0
    for t in p:threads() do all = all + t.weight end
    local compared = 0
    for fn in p:functions() do
      if fn.kind == "function" and fn.dso == libz and (fn.samples > 0 or perf[fn.name]) then
        local mine = 100 * fn.self / (all / 1e9)
        -- perf prints each row to 0.01: the sum of k rows is within k * 0.005
        local tolerance = 0.01 + 0.005 * (rows_in[fn.name] or 1)
        assert.is_true(math.abs((perf[fn.name] or 0) - mine) <= tolerance,
          ("%s: self %.4f%%, perf %s%% (%d rows)"):format(fn.name, mine, tostring(perf[fn.name]),
            rows_in[fn.name] or 0))
        compared = compared + 1
      end
    end
    assert.is_true(compared >= 1)
    p:close()
  end)
end)
