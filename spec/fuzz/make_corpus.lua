-- spec/fuzz/make_corpus.lua: writes the seed corpora of the fuzz harnesses
-- (spec/fuzz/corpus/<harness>/) from the demo built by `make fuzz-build`
-- (build/fuzz/demo and its demo.gmon.out) and the pure Lua writers.
-- Run from the checkout: lua5.4 spec/fuzz/make_corpus.lua
package.path = "spec/?.lua;" .. package.path
local gw = require "helpers.gmonwriter"
local ew = require "helpers.elfwriter"
local util = require "helpers.util"

local function slurp(path) return (assert(util.slurp(path), "cannot read " .. path)) end
local function put(dir, name, s)
  assert(#s < 65536, name .. " is too big for a seed")
  util.spit(util.mkdir("spec/fuzz/corpus/" .. dir) .. "/" .. name, s)
end

local demo_gmon = slurp("build/fuzz/demo.gmon.out")
local data = gw.decode(demo_gmon)

-- the real profile in every format, for the demo (64-bit little endian)
for _, h in ipairs { "gmon", "profile" } do
  put(h, "demo-tagged", demo_gmon)
  put(h, "demo-bsd44", gw.encode(data, { format = "bsd44" }))
  put(h, "demo-oldbsd", gw.encode(data, { format = "oldbsd" }))
  put(h, "demo-tagged-v0", gw.encode(data, { version = 0 }))
end
-- the real profile with basic-block records at its arcs' addresses (line
-- granularity files them into the symbols' slots), twice over
do
  local blocks = {}
  for k, a in ipairs(data.arcs) do
    blocks[#blocks + 1] = { addr = a.from, count = k }
    blocks[#blocks + 1] = { addr = a.to, count = a.count }
  end
  put("profile", "demo-bb", gw.encode { hist = data.hist, arcs = data.arcs,
    bb = { { blocks = blocks }, { blocks = blocks } } })
  put("profile", "demo-bb-only-v0", gw.encode({ bb = { { blocks = blocks } } }, { version = 0 }))
end
-- small synthetic ones with basic-block records, several histograms and
-- the other widths and byte orders (fuzz_gmon tries all four)
local small = {
  hist = {
    { low = 0x1000, high = 0x1040, rate = 100, dimen = "seconds", abbrev = "s",
      bins = { 0, 3, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9 } },
    { low = 0x2000, high = 0x2020, rate = 100, dimen = "seconds", abbrev = "s",
      bins = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 } },
  },
  arcs = { { from = 0x1010, to = 0x1020, count = 3 }, { from = 0x1024, to = 0x2000, count = 1 } },
  bb = { { blocks = { { addr = 0x1010, count = 7 }, { addr = 0x1012, count = 2 } } } },
}
put("gmon", "small-tagged-be32", gw.encode(small, { bits = 32, endian = "big" }))
put("gmon", "small-tagged-le64", gw.encode(small, {}))
small.hist[2] = nil
small.bb = nil
put("gmon", "small-bsd44-be32", gw.encode(small, { format = "bsd44", bits = 32, endian = "big" }))
put("gmon", "small-oldbsd-le32", gw.encode(small, { format = "oldbsd", bits = 32 }))
-- glibc's LD_PROFILE variant: arcs as offsets from the histogram's low
-- address, from 0 for a caller outside the library; a record unused
local ld = { hist = { small.hist[1] }, slots = 3,
  arcs = { { from = 0, to = 0x10, count = 3 }, { from = 0x14, to = 0x20, count = 1 } } }
put("gmon", "small-ldprofile-le64", gw.encode(ld, { format = "ldprofile" }))
put("gmon", "small-ldprofile-be32", gw.encode(ld, { format = "ldprofile", bits = 32, endian = "big" }))

-- executables: the demo with and without DWARF, and minimal ELFs
local demo = slurp("build/fuzz/demo")
local tmp = util.mktempdir("lgprof-corpus")
assert(util.exec_ok("strip -g -o " .. util.q(tmp .. "/demo-nodebug") .. " build/fuzz/demo"))
local stripped = slurp(tmp .. "/demo-nodebug")
util.rmtree(tmp)
for _, h in ipairs { "elf", "exe" } do
  put(h, "demo", demo)
  put(h, "demo-nodebug", stripped)
end
local syms = {
  { name = "main", addr = 0x401000, bind = "global", type = "func", size = 0x40 },
  { name = "helper.part.0", addr = 0x401040, bind = "local", type = "func" },
  { name = "data_obj", addr = 0x401080, bind = "global", type = "object" },
  { name = "abs_sym", addr = 0x1234, bind = "global", type = "func", section = "abs" },
}
put("elf", "min-le64", ew.build { symbols = syms, text_size = 0x100 })
put("elf", "min-be32-ppc", ew.build { class = 32, endian = "big", machine = ew.EM_PPC,
  text_addr = 0x10000000, text_size = 0x100,
  symbols = { { name = "main", addr = 0x10000000, bind = "global", type = "func" },
              { name = "f.1", addr = 0x10000010, bind = "local", type = "func" } } })

-- source files for fuzz_source (annotated as the deleted demo.c): the real
-- one, shortened (lines past the end), without its final newline, empty,
-- with CR LF ends, a NUL and very long lines
local demo_c = slurp("examples/demo.c")
put("source", "demo.c", demo_c)
put("source", "demo-head.c", demo_c:sub(1, 200))
put("source", "demo-no-final-newline.c", (demo_c:gsub("\n$", "")))
put("source", "empty.c", "")
put("source", "crlf.c", (demo_c:gsub("\n", "\r\n")))
put("source", "nul.c", demo_c:sub(1, 100) .. "\0" .. demo_c:sub(101))
put("source", "long-lines.c", ("x"):rep(5000) .. "\n" .. ("\n"):rep(200) .. ("y"):rep(70000 // 2))

-- symbol files for fuzz_symfile (gprof -S): nm's output on the demo, its
-- variants (0x addresses, types glued to names, defined symbols only) and
-- the corners of the reading (pieces of 1022 characters, bad addresses,
-- NUL bytes, CRLF, lines of fewer than three items)
local nm = util.read_cmd("nm build/fuzz/demo")
put("symfile", "demo-nm", nm)
put("symfile", "demo-nm-0x", (nm:gsub("(%f[%w]%x+) ([tT]) ", "0x%1 %2 ")))
put("symfile", "demo-nm-glued", (nm:gsub("(%x+) (%a) ", "%1 %2")))
put("symfile", "demo-nm-defined", util.read_cmd("nm -n --defined-only build/fuzz/demo"))
put("symfile", "demo-nm-crlf", (nm:gsub("\n", "\r\n")))
put("symfile", "corners", table.concat({
  "zz T first_bad", "1000 T a", "zz T bad_after_good", "-10 T negative", "0x T zero",
  "ffffffffffffffffffff T too_large", "1010", "1010 T", "  1020\tt\tb", "1030 tglued",
  "                 U tolower@GLIBC_2.2.5", "1040 W weak", "1050 D data",
  ("p"):rep(1030) .. " 1060 T second_piece", "1070 t " .. ("n"):rep(1100),
  "1080 T after\0hidden", "", "1000 T a_again",
}, "\n"))
put("symfile", "empty", "")

-- perf.data files (fuzz_perf): the demo mapped as a PIE, samples with call
-- chains through it, the kernel and nowhere, threads, a fork and an exec,
-- overlapping maps out of time order, two events, branch stacks, pipe mode,
-- a cut one and a compressed one, and big-endian ones
do
  local pw = require "helpers.perfwriter"
  local U, K = pw.CONTEXT_USER, pw.CONTEXT_KERNEL
  local ST = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN
  local B, P = 0x555555554000, 100
  local function rec(attrs, order)
    local f = pw.new({ order = order,
      attrs = attrs or { { sample_type = ST, period = 1000, ids = { 1 } } } })
    f:comm(P, P, "demo", 10, true)
    f:mmap2(P, P, B + 0x1000, 0x2000, 0x1000, "/tmp/fuzz/demo", 20)
    return f
  end
  local function chains(order)
    local f = rec(nil, order)
    f:fork(P, P, P + 1, P, 30)
    f:comm(P, P + 1, "worker", 31, false)
    for k = 1, 6 do
      f:sample({ ip = B + 0x1100 + k, pid = P, tid = P + (k % 2), time = 100 + k, period = 1000,
        chain = { U, B + 0x1100 + k, B + 0x1205, B + 0x1305, B + 0x1305 } })
    end
    f:sample({ ip = 0xffffffff81000150, pid = P, tid = P, time = 200, period = 1000, misc = 1,
      chain = { K, 0xffffffff81000150, 0xffffffff81000201, U, B + 0x1100, 0x1234 } })
    f:lost(1, 3, 210):lost_samples(3)
    f:finished_round()
    f:mmap2(P, P, B + 0x1800, 0x1000, 0, "//anon", 150)
    f:fork(P + 2, P, P + 2, P, 160)
    f:comm(P + 2, P + 2, "child", 170, true)
    f:sample({ ip = B + 0x1100, pid = P + 2, tid = P + 2, time = 180, period = 1000, chain = { U, B + 0x1100 } })
    f:feature("buildids", { { id = ("\1"):rep(20), path = "/tmp/fuzz/demo" } })
    return f
  end
  local f = chains()
  put("perf", "chains", f:bytes())
  -- the same from a big-endian machine (read through perfswap.c)
  local be = chains(">")
  put("perf", "chains-be", be:bytes())
  put("perf", "chains-be-pipe", be:bytes({ pipe = true }))
  put("perf", "chains-pipe", f:bytes({ pipe = true }))
  local bytes = f:bytes()
  put("perf", "chains-cut", bytes:sub(1, #bytes - 300))
  put("perf", "chains-killed", f:bytes({ data_size = 0 }))
  -- perf record -z: the same records as one zstd stream in a COMPRESSED and
  -- a COMPRESSED2 record (needs the zstd command)
  do
    local z = pw.new({ attrs = f.attrs })
    z.features = f.features
    local zs = assert(pw.zstd(table.concat(f.records)))
    z:compressed(zs:sub(1, #zs // 2)):finished_round():compressed(zs:sub(#zs // 2 + 1), true)
    z:feature("compressed", {})
    put("perf", "chains-zstd", z:bytes())
  end
  local two = rec({ { sample_type = ST | pw.ID, period = 1000, ids = { 11 }, name = "cpu-clock" },
    { sample_type = ST | pw.ID, period = 500, ids = { 21 }, name = "task-clock", config = 1 } })
  two:sample({ ip = B + 0x1100, pid = P, tid = P, time = 100, period = 500, id = 21, attr = 2,
    chain = { U, B + 0x1100, B + 0x1205 } })
  two:sample({ ip = B + 0x1100, pid = P, tid = P, time = 101, period = 1000, id = 11,
    chain = { U, B + 0x1100, B + 0x1205 } })
  two:feature("event_desc", true)
  put("perf", "two-events", two:bytes())
  local two_be = rec({ { sample_type = ST | pw.ID, period = 1000, ids = { 11 }, name = "cpu-clock" },
    { sample_type = ST | pw.ID, period = 500, ids = { 21 }, name = "task-clock", config = 1 } }, ">")
  two_be:sample({ ip = B + 0x1100, pid = P, tid = P, time = 100, period = 500, id = 21, attr = 2,
    chain = { U, B + 0x1100, B + 0x1205 } })
  two_be:feature("event_desc", true)
  put("perf", "two-events-be", two_be:bytes())
  local lbr = rec({ { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.BRANCH_STACK, period = 1,
    ids = { 1 } } })
  lbr:sample({ ip = B + 0x1100, pid = P, tid = P, time = 100, period = 1,
    branches = { { from = B + 0x1200, to = B + 0x1100 }, { from = B + 0x1300, to = B + 0x1200 } } })
  put("perf", "branch-stack", lbr:bytes())
  -- a user stack copy to unwind (--call-graph dwarf)
  local dw = rec({ { sample_type = ST | pw.REGS_USER | pw.STACK_USER, period = 1, ids = { 1 },
    regs_user = 0xff0fff, stack_user = 64 } })
  local S = 0x7ffff0000000
  dw:sample({ ip = B + 0x1100, pid = P, tid = P, time = 100, period = 1, chain = {},
    regs = { 0, 0, 0, 0, 0, 0, S + 8, S, B + 0x1100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    stack = string.pack("<I8I8I8I8", B + 0x1205, S + 24, B + 0x1305, 0), dyn_size = 32 })
  put("perf", "dwarf-stack", dw:bytes())
end

-- the tracing data of a sched:sched_switch recording (fuzz_tracedata), in
-- both byte orders
do
  local pw = require "helpers.perfwriter"
  local sys = { { "sched", { pw.event_format("sched_switch", 372, pw.SCHED_SWITCH_FIELDS) } } }
  put("tracedata", "sched-switch", pw.tracing_data(sys))
  put("tracedata", "sched-switch-be", pw.tracing_data(sys, ">"))
end

-- a recording of switches for fuzz_perf's off-CPU and wall passes: cpu-clock
-- samples, sched_switch samples with their RAW fields and the tracing data,
-- and switch records (out, out preempted, in), in file and pipe mode
do
  local pw = require "helpers.perfwriter"
  local st = 0x10000 | pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN
  local f = pw.new({ attrs = {
    { type = 1, config = 0, sample_type = st, period = 1000000, ids = { 1 }, flags = 1 << 26 },
    { type = 2, config = 372, sample_type = st | pw.CPU | pw.RAW, period = 1, ids = { 2 } } } })
  f:comm(7, 7, "prog", 10, true)
  local chain = { pw.CONTEXT_USER, 0x401000, 0x401100 }
  for k, state in ipairs({ 1, 0, 2 }) do
    local t = 1000000 * k
    f:sample({ attr = 1, ip = 0x401000, pid = 7, tid = 7 + k % 2, time = t, period = 1000000, chain = chain })
    f:sample({ attr = 2, ip = 0x401000, pid = 7, tid = 7 + k % 2, time = t + 100, period = 1, chain = chain,
      raw = pw.sched_switch_raw({ type = 372, prev_pid = 7 + k % 2, prev_state = state, next_pid = 7 }) })
    f:switch(7, 7 + k % 2, t + 200, { out = true, preempt = state == 0 })
    f:switch(7, 7 + k % 2, t + 500000)
  end
  f:feature("tracing_data", pw.tracing_data({ { "sched",
    { pw.event_format("sched_switch", 372, pw.SCHED_SWITCH_FIELDS) } } }))
  put("perf", "switches", f:bytes())
  put("perf", "switches-pipe", f:bytes({ pipe = true }))
end
