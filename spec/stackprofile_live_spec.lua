-- A real `perf record -g` run through lgprof.open (the reader, then the
-- model of stackprofile.h). A live run samples differently each time: no
-- number is asserted, only what the definitions make true of any sampling:
-- self times add up to the total; a function's total is at least its self;
-- the bounds are the total; an entry's parent lines add up to its total
-- less the stacks it is the root of, its child lines to its total less its
-- self (functions in no cycle); threads and binaries split the samples.
-- Pending where perf cannot record or this build reads no perf.data.
local lgprof = require "lgprof"
local util = require "helpers.util"

local EPS = 1e-9
local TMP = util.mktempdir("lgprof-stacklive")
local SRC = [[
#include <stdio.h>
static volatile double sink;
__attribute__((noinline)) void leaf(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; sink += s; }
__attribute__((noinline)) void b(int d);
__attribute__((noinline)) void a(int d) { leaf(20000); if (d > 0) b(d - 1); }
__attribute__((noinline)) void b(int d) { leaf(10000); if (d > 0) a(d - 1); }
__attribute__((noinline)) int fact(int n) { leaf(5000); return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) { for (int i = 0; i < 2000; i++) { a(4); fact(5); } printf("%g\n", sink); return 0; }
]]

-- the profile of a recording, or nil and why not
local function record()
  util.spit(TMP .. "/prog.c", SRC)
  local q = util.q
  if not util.exec_ok(("cd %s && gcc -O1 -g -fno-omit-frame-pointer -o prog prog.c"):format(q(TMP))) then
    return nil, "gcc failed"
  end
  if not util.have("perf") or not util.exec_ok(("cd %s && perf record -q -e cpu-clock -g -o perf.data ./prog"
      .. " >/dev/null 2>&1"):format(q(TMP))) then
    return nil, "perf record cannot run here"
  end
  return lgprof.open(nil, TMP .. "/perf.data")
end

describe("a live perf recording", function()
  local p, why = record()
  if not p then
    pending("no profile of stacks: " .. tostring(why))
    return
  end

  it("adds the self times up to the total, and bounds every total exactly", function()
    assert.equal("stacks", p.source)
    local sum = 0
    for f in p:functions() do
      sum = sum + f.self
      assert.is_true(f.total >= f.self - EPS, f.name)
      assert.equal(f.total, f.total_min)
      assert.equal(f.total, f.total_max)
      assert.is_nil(f.calls)
    end
    assert.is_true(math.abs(sum - p.total_time) < EPS)
    assert.is_true(p.total_time > 0)
    assert.same({}, p:ambiguous())
  end)

  it("adds an entry's parent and child lines up to its total", function()
    local root = {} -- the weight of the stacks each function is the root of
    local weight = 0
    for s in p:stacks() do
      root[s.frames[1]] = (root[s.frames[1]] or 0) + s.seconds
      weight = weight + s.seconds
    end
    assert.is_true(math.abs(weight - p.total_time) < EPS)
    local checked = 0
    for f in p:functions() do
      if not f.cycle then
        local up, down = 0, 0
        for a in f:callers() do
          assert.is_false(a.is_estimated)
          up = up + a.self + a.children
        end
        for a in f:callees() do down = down + a.self + a.children end
        assert.is_true(math.abs(up - (f.total - (root[f] or 0))) < EPS, f.name .. " parents")
        assert.is_true(math.abs(down - f.children) < EPS, f.name .. " children")
        checked = checked + 1
      end
    end
    assert.is_true(checked > 0)
  end)

  it("splits the samples between threads and between binaries", function()
    local n = 0
    for t in p:threads() do n = n + t.samples end
    assert.equal(p.samples, n)
    n = 0
    for d in p:dsos() do n = n + d.samples end
    assert.equal(p.samples, n)
    local total = 0
    for t in p:threads() do total = total + assert(p:filter { tid = t.tid }).total_time end
    assert.is_true(math.abs(total - p.total_time) < EPS)
  end)
end)
