-- The command on real recordings (perf record -e cpu-clock -F 999 -g) of a
-- program with three threads and a shared library of its own, built -O1 -g
-- -fno-omit-frame-pointer: `lgprof --format=json`'s self and total shares
-- per symbol equal `perf report --stdio --no-children` / `--children` on
-- the same file within 0.01 point (the oracle: perf itself); --diff of two
-- recordings, check, the selections by thread and binary, and each mode
-- with the perf.data alone and with the image. A live run samples
-- differently each time: only what holds of any run is asserted beyond the
-- comparison with perf on the same file. Pending where perf cannot record.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local HAVE_CJSON, cjson = pcall(require, "cjson")

local TMP = util.mktempdir("lgprof-perfcli-live")
local q = util.q
local alias = cmd.perf_alias

local WORK = [[
volatile unsigned long lib_sink;
__attribute__((noinline)) void lib_hot(long n) { for (long i = 0; i < n; i++) lib_sink += i; }
__attribute__((noinline)) void lib_entry(long n) { lib_hot(n); lib_hot(n / 2); }
]]
local MT = [[
#include <pthread.h>
#include <stdlib.h>
void lib_entry(long n);
volatile unsigned long sink;
__attribute__((noinline)) void spin(long n) { for (long i = 0; i < n; i++) sink ^= i; }
__attribute__((noinline)) void rec(long d, long n) { if (d > 0) rec(d - 1, n); else spin(n); }
__attribute__((noinline)) void *worker(void *arg) {
  long k = (long)arg;
  for (long i = 0; i < 80; i++) { if (k == 1) lib_entry(3000000); else if (k == 2) rec(5, 3000000); else spin(3000000); }
  return NULL;
}
int main(void) {
  pthread_t t[3];
  for (long k = 0; k < 3; k++) pthread_create(&t[k], NULL, worker, (void *)k);
  for (int k = 0; k < 3; k++) pthread_join(t[k], NULL);
  return 0;
}
]]

-- builds the program and records a.data and b.data; nil and why not
local function record()
  if not util.have("perf") then return nil, "perf is not installed" end
  util.spit(TMP .. "/work.c", WORK)
  util.spit(TMP .. "/mt.c", MT)
  local status, out, err = cmd.shell(("cd %s && cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o libwork.so"
    .. " work.c && cc -O1 -g -fno-omit-frame-pointer -o mt mt.c -L. -lwork -Wl,-rpath,%s -lpthread")
    :format(q(TMP), q(TMP)))
  if status ~= 0 then return nil, "cc failed: " .. out .. err end
  for _, name in ipairs({ "a.data", "b.data" }) do
    status, out, err = cmd.shell(("cd %s && perf record -q -N -e cpu-clock -F 999 -g -o %s ./mt")
      :format(q(TMP), name))
    if status ~= 0 then return nil, "perf record does not work here: " .. (out .. err):gsub("\n", " ") end
  end
  return true
end

local function run(argv) return cmd.lgprof(argv, { cwd = TMP }) end

-- perf report's shares of the user-space symbols by name (kernel names:
-- kallsyms aliases are the reader's spec's business)
local function perf_shares(path, children)
  return cmd.perf_report_shares(path, children, { user_only = true })
end

describe("the command on real perf recordings", function()
  local ok, why = record()
  if not ok then
    pending("no recording: " .. tostring(why))
    return
  end

  it("gives --format=json self and total shares equal to perf report's, alone and with the image", function()
    if not HAVE_CJSON then return pending("lua-cjson not installed") end
    local self, children = perf_shares(TMP .. "/a.data", false), perf_shares(TMP .. "/a.data", true)
    local outs = {}
    for _, argv in ipairs({ { "--no-inline", "--format=json", "a.data" },
        { "--no-inline", "--format=json", "mt", "a.data" } }) do
      local status, out, err = run(argv)
      assert.equal(0, status, err)
      outs[#outs + 1] = out
      local j = cjson.decode(out)
      assert.equal("perf.data", j.source)
      local total = j.totals.time
      assert.is_true(total > 0)
      local mine = {}
      for _, f in ipairs(j.functions) do
        local m = mine[alias(f.name)] or { self = 0, total = 0 }
        m.self, m.total = m.self + f.self, m.total + f.total
        mine[alias(f.name)] = m
      end
      local compared = 0
      for _, n in ipairs({ "spin", "lib_hot", "rec", "worker", "start_thread" }) do
        local m = assert(mine[n], n .. " not in lgprof's json")
        local ms, mt = 100 * m.self / total, 100 * m.total / total
        assert.is_true(math.abs((self[n] or 0) - ms) <= 0.01, ("%s: self %.4f%%, perf %s%%"):format(n, ms,
          tostring(self[n])))
        assert.is_true(math.abs((children[n] or 0) - mt) <= 0.01, ("%s: total %.4f%%, perf %s%%"):format(n, mt,
          tostring(children[n])))
        compared = compared + 1
      end
      assert.equal(5, compared)
    end
    assert.equal(outs[1], outs[2])
  end)

  it("runs every mode with the perf.data alone and with the image, to the same output", function()
    for _, m in ipairs({ {}, { "--format=text" }, { "--format=folded" }, { "--format=svg" }, { "--format=pprof" },
        { "--format=speedscope" }, { "--format=html" }, { "--format=csv" }, { "--format=dot" },
        { "--format=callgrind" }, { "doctor" }, { "check", "--max-self=spin=100%" },
        { "--diff", "b.data" } }) do
      local alone = table.move(m, 1, #m, 1, {})
      alone[#alone + 1] = "a.data"
      local with = table.move(m, 1, #m, 1, {})
      with[#with + 1] = "mt"
      with[#with + 1] = "a.data"
      local s1, o1, e1 = run(alone)
      local s2, o2, e2 = run(with)
      local what = table.concat(alone, " ")
      assert.is_true(s1 == 0 or (m[1] == "doctor" and s1 == 3), what .. ": " .. cmd.show(s1, o1, e1))
      assert.is_true(#o1 > 0, what)
      assert.equal(s1, s2, what)
      assert.equal(o1, o2, what)
      assert.equal(e1, e2, what)
    end
  end)

  it("diffs two recordings of the program", function()
    local status, out, err = run({ "--diff", "a.data", "b.data" })
    assert.equal(0, status, err)
    assert.matches("^base [%d.]+ seconds, new [%d.]+ seconds", out)
    for _, n in ipairs({ "spin", "lib_hot" }) do assert.matches(n, out) end
  end)

  it("checks a limit on a recording: exit 3 when spin takes more than 1%, 0 under 100%", function()
    local status, out, err = run({ "check", "--max-self=spin=1%", "a.data" })
    assert.equal(3, status, out .. err)
    status, out, err = run({ "check", "--max-self=spin=100%", "a.data" })
    assert.equal(0, status, out .. err)
  end)

  it("selects a thread's samples (--tid) and a binary's (--dso)", function()
    if not HAVE_CJSON then return pending("lua-cjson not installed") end
    local p = assert(require("lgprof").open(nil, TMP .. "/a.data"))
    local threads = {}
    for t in p:threads() do threads[#threads + 1] = t end
    p:close()
    assert.is_true(#threads >= 3)
    -- the thread whose samples include lib_hot: the library's worker
    local function functions(argv)
      local status, out, err = run(argv)
      assert.equal(0, status, err)
      local set = {}
      for _, f in ipairs(cjson.decode(out).functions) do if f.self > 0 then set[f.name] = true end end
      return set
    end
    local seen_lib = 0
    for _, t in ipairs(threads) do
      local set = functions({ "--format=json", "--tid=" .. t.tid, "a.data" })
      if set.lib_hot then
        seen_lib = seen_lib + 1
        assert.is_nil(set.rec, "one thread runs the library, another rec")
      end
    end
    assert.equal(1, seen_lib)
    -- the library's functions only (a sample can land in lib_entry's own
    -- code, between its calls: rarely, but a live run may have one)
    local set = functions({ "--format=json", "--dso=" .. TMP .. "/libwork.so", "a.data" })
    assert.is_true(set.lib_hot)
    set.lib_hot, set.lib_entry = nil, nil
    -- and, by luck, the library's PLT (no symbol covers it: lgprof names it
    -- libwork.so+0xOFF) or its C runtime code: never a function of the
    -- program or of libc
    local crt = { _init = true, _fini = true, frame_dummy = true, register_tm_clones = true,
                  deregister_tm_clones = true, __do_global_dtors_aux = true }
    for name in pairs(set) do
      assert.truthy(crt[name] or name:find("^libwork%.so%+0x%x+$"), name)
    end
  end)
end)
