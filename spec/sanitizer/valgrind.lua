-- make test-valgrind: bin/lgprof under valgrind memcheck over every fixture
-- program (spec/fixtures/progs/, built by helpers.fixtures): the report of
-- the three runs summed, -T, --format=json, -s and the static call graphs
-- (-c --static-arcs: Capstone), --break-cycles, the HTML page of a view;
-- and API_SCRIPT, the Lua
-- API end to end (views, every export, DWARF read on demand, find, close,
-- line-level data). The line-granularity programs (spec/fixtures/lines/,
-- built -O2 -g) run -l, annotated source with execution counts, and
-- lgprof's own annotated listing. A perf.data recording of a program whose
-- separate debug file is compressed runs the report and -l.
-- A run passes when memcheck finds no error and no definite leak
-- (--errors-for-leak-kinds=definite; Lua and libdw keep some memory
-- reachable at exit, which is not reported). Prints "ok"/"not ok" lines,
-- then "N passed, N failed".
local STARTED = os.time() -- the run's length is printed before the summary
-- the helpers, and lgprof itself (the fixtures' needs open profiles), as
-- .busted sets them: the checkout's lua/ and $LGPROF_BUILD or build/
local build = os.getenv("LGPROF_BUILD")
if not build or build == "" then build = "build" end
package.path = "spec/?.lua;lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = build .. "/?.so;" .. package.cpath
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local cmd = require "helpers.cmd"
local q = util.q

local VALGRIND = "valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite"
  .. " --errors-for-leak-kinds=definite --track-fds=no"
local variants = { arg[1] or "O0g-pie" }

-- lua5.4 API_SCRIPT exe gmon...: fails (status 1) on any unexpected result.
local API_SCRIPT = [==[
local lgprof = require "lgprof"
local exe, gmons = arg[1], { table.unpack(arg, 2) }
local p = assert(lgprof.open(exe, gmons))
local views = {
  assert(p:filter { node_fraction = 0.01, edge_fraction = 0.001 }),
  assert(p:filter { hide = "^main$", top = 5 }),
}
local first = p:get(1)
if first and first.name then
  local name = first.name:gsub("[][().*+?^$|{}\\]", "\\%0")
  views[#views + 1] = assert(p:filter { focus = "^" .. name .. "$", min_calls = 1 })
end
views[#views + 1] = assert(views[1]:filter { ignore = "^_" }) -- a view of a view
local named = 0
for _, q in ipairs { p, table.unpack(views) } do
  for fn in q:functions() do
    if fn.address then -- a Function: file and line come from DWARF, read now
      local file, line = fn.file, fn.line
      assert(file == nil or type(file) == "string")
      assert(line == nil or math.type(line) == "integer")
      if file and named < 20 then
        local found = q:find(fn.symbol, file)
        assert(found == nil or found.address)
        named = named + 1
      end
      for arc in fn:callers() do assert(arc.count >= 0 and arc.is_estimated ~= nil) end
      assert(fn.total_min <= fn.total_max + 1e-9)
    end
  end
  for _, a in ipairs(q:ambiguous()) do assert(a.func and a.callers) end
  assert(q:cycle_cuts { min_members = 2 })
  for _, fmt in ipairs(lgprof.report.formats) do
    local f = io.tmpfile()
    assert(lgprof.report[fmt](q, f))
    f:close()
  end
  local f = io.tmpfile()
  assert(lgprof.report.csv(q, f, { table = "arcs" }))
  assert(q:gprof_report(f, {}) ~= nil)
  f:close()
end
assert(p:find("main"))
-- the lines share out the functions' samples
local nlines, self, fself = 0, 0, 0
for l in p:lines() do nlines = nlines + 1; self = self + l.self end
for f in p:functions() do fself = fself + f.self end
assert(nlines > 0 and math.abs(self - fself) <= 1e-9 * math.max(1, fself))
for _, v in ipairs(views) do for _ in v:lines() do end end
for _, q in ipairs { p, views[1] } do -- the doctor's evidence: files and code read again
  for _, d in ipairs(lgprof.doctor(q)) do assert(d.id and d.severity) end
end
local f = io.tmpfile()
lgprof.report.annotate(p, f, {}) -- nil, message when a source is missing: fine here
assert(lgprof.report.json(p, f, { granularity = "line" }))
f:close()
for i = #views, 1, -1 do views[i]:close() end
p:close()
]==]
local passed, failed = 0, 0
local tmp = util.mktempdir("lgprof-valgrind")

-- Runs `env VALGRIND --log-file=LOG program` in tmp and prints its TAP line
-- (with valgrind's log when it fails).
local function check(label, env, program)
  local log = tmp .. "/log"
  if util.exec_ok(("cd %s && %s%s --log-file=%s %s >/dev/null 2>&1"):format(q(tmp), env, VALGRIND, q(log),
      program)) then
    passed = passed + 1
    print("ok - " .. label)
  else
    failed = failed + 1
    print("not ok - " .. label)
    for line in (util.slurp(log) or ""):gmatch("[^\n]+") do print("# " .. line) end
  end
end
local api = util.spit(tmp .. "/api.lua", API_SCRIPT)
local runs = {}
for _, name in ipairs(fx.programs()) do
  runs[#runs + 1] = { name, variants[1], { "", "-b -T", "--format=json", "-s", "-b -c --static-arcs",
    "-b --break-cycles", "--format=html --hide=^main$", "api" } }
end
for _, name in ipairs(fx.line_programs()) do
  runs[#runs + 1] = { name, "O2g-pie", { "-b -l", "-l -C -A -x -t3", "-z -l -A -y", "--annotate-lines", "api" } }
end
-- a perf.data recording of a -O2 -g program whose separate debug file's
-- DWARF is compressed (read from an inflated in-memory copy), also with a
-- compressed section whose size lies (read as it is)
local function perf_debugcopy()
  local pw = require "helpers.perfwriter"
  local dir = tmp .. "/perf"
  local src = dir .. "/prog.c"
  local function sh(line) return util.exec_ok(line .. " >/dev/null 2>&1") end
  if not (sh("mkdir -p " .. q(dir .. "/lie")) and util.spit(src, [[
volatile unsigned long sink;
static inline __attribute__((always_inline)) void mix(unsigned long i) { sink += i * 7; }
__attribute__((noinline)) void outer(long n) { for (long i = 0; i < n; i++) mix(i); }
int main(void) { outer(100); return 0; }
]]) and sh("cd " .. q(dir) .. " && cc -O2 -g -Wl,--build-id -o full prog.c")
      and sh("cd " .. q(dir) .. " && objcopy --only-keep-debug --compress-debug-sections=zlib full prog.debug")
      and sh("cd " .. q(dir) .. " && objcopy --strip-debug --add-gnu-debuglink=prog.debug full prog")) then
    return nil, "could not build the program and its compressed debug file"
  end
  local seg, syms = util.text_segment(dir .. "/prog"), util.code_symbols(dir .. "/full")
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD, period = 1, ids = { 1 } } } })
  local bias = 0x555555554000
  f:comm(7, 7, "prog", 1, true)
  f:mmap2(7, 7, bias + (seg.vaddr & ~0xfff), 0x1000 + seg.filesz, seg.offset & ~0xfff, dir .. "/prog", 2)
  for k = 0, 15 do
    f:sample({ ip = bias + syms.outer.addr + k, pid = 7, tid = 7, time = 5 + k, period = 1 })
  end
  pw.write(dir .. "/perf.data", f:bytes())
  -- the lie: .debug_info's Chdr says a byte more (Elf64_Chdr: type, reserved, size)
  local bytes = util.slurp(dir .. "/prog.debug")
  local off = util.read_cmd("readelf -SW " .. q(dir .. "/prog.debug") .. " 2>/dev/null")
    :match("%] %.debug_info%s+%S+%s+%x+%s+(%x+)")
  if not off then return nil, "no .debug_info in the debug file" end
  off = tonumber(off, 16)
  local size = string.unpack("<I8", bytes, off + 9)
  util.spit(dir .. "/lie/prog.debug", bytes:sub(1, off + 8) .. string.pack("<I8", size + 1) .. bytes:sub(off + 17))
  sh("cp " .. q(dir .. "/prog") .. " " .. q(dir .. "/lie/prog"))
  f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD, period = 1, ids = { 1 } } } })
  f:comm(7, 7, "prog", 1, true)
  f:mmap2(7, 7, bias + (seg.vaddr & ~0xfff), 0x1000 + seg.filesz, seg.offset & ~0xfff, dir .. "/lie/prog", 2)
  f:sample({ ip = bias + syms.outer.addr, pid = 7, tid = 7, time = 5, period = 1 })
  pw.write(dir .. "/lie/perf.data", f:bytes())
  return { { "perf.data, compressed debug file", q(dir .. "/prog") .. " " .. q(dir .. "/perf.data") },
           { "perf.data, a compressed size that lies", q(dir .. "/lie/prog") .. " " .. q(dir .. "/lie/perf.data") } }
end
do
  local cases, err = perf_debugcopy()
  if not cases then
    failed = failed + 1
    print("not ok - perf.data fixture: " .. err)
  end
  for _, c in ipairs(cases or {}) do
    for _, opts in ipairs({ "", "-l" }) do
      check(("%s lgprof %s"):format(c[1], opts), "", ("%s %s --buildid-dir=%s %s"):format(
        q(fx.root .. "/bin/lgprof"), opts, q(tmp .. "/no-cache"), c[2]))
    end
  end
end
for _, run in ipairs(runs) do
  local name, variant, optsets = run[1], run[2], run[3]
  do
    local b, err = fx.build(name, variant)
    if not b then
      failed = failed + 1
      print(("not ok - %s %s: fixture: %s"):format(name, variant, err))
    else
      local files = q(b.exe) .. " " .. util.qwords(b.gmon)
      for _, opts in ipairs(optsets) do
        -- the command is an executable (no lua5.4 in between); the API script runs in lua5.4
        local env, program, label = "", q(fx.root .. "/bin/lgprof") .. " " .. opts,
          ("%s %s lgprof %s"):format(name, variant, opts)
        if opts == "api" then
          env, program, label = cmd.lua_env(), "lua5.4 " .. q(api),
            ("%s %s Lua API script"):format(name, variant)
        end
        check(label, env, program .. " " .. files)
      end
    end
  end
end
util.rmtree(tmp)
print(("# %d s"):format(os.time() - STARTED))
print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and passed > 0 and 0 or 1)
