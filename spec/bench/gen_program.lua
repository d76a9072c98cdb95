-- spec/bench/gen_program.lua: a real C program for profiling benchmarks.
--
--   lua5.4 spec/bench/gen_program.lua N_FUNCS SEED OUTDIR [TARGET_SECONDS [STATIC_PERCENT]]
--
-- Writes into OUTDIR:
--   prog.c          main(): runs the call tree REPS times, prints a checksum
--   prog.h          prototypes
--   prog_NN.c       the functions p0..p{N-1}, split in parts of <= 1000
--                   functions so the compile runs in parallel
--   build.sh        compiles every .c with `${CC:-gcc} ${CFLAGS:--O1 -g -pg}`
--                   (-c, $(nproc) jobs at once), links OUTDIR/prog; with
--                   `build.sh run` it also runs ./prog in OUTDIR to make
--                   OUTDIR/gmon.out
--
-- The program: every function p_j does a little volatile work (a loop of
-- 8..120 iterations) and calls a few others.  Its calls:
--   * tree edges: every p_j (j > 0) has one parent p_i, i < j (half the time
--     one of the 32 preceding functions, half the time uniform over 0..j-1);
--   * extra forward calls: ~35% of functions get one or two more callers
--     i < j, as long as p_j's calls per repetition stay <= 32 (DAG sharing);
--   * back edges: ~2% of functions call an earlier function (a cycle), and
--     ~1% call themselves (recursion).  These fire only when the depth
--     argument d > 0 and pass d - 1; main passes d = 1, so each back edge
--     fires once per call of its caller and the program always ends.
-- With STATIC_PERCENT (default 0), that share of the functions is static
-- (chosen among those all of whose callers are in their own file, with a
-- generator of their own, so the rest of the program is the same as without):
-- gprof's index then names their files, which needs the DWARF line tables.
-- Everything is `__attribute__((noinline, noclone))` and the results feed a
-- checksum, so -O1 keeps every call.  The number of repetitions REPS is set
-- from the exact call counts (computed here) so that the run takes roughly
-- TARGET_SECONDS (default 2) on a ~3 GHz x86-64 with -pg.
--
-- Note: glibc's mcount gives up (and writes no gmon.out at all) if the
-- number of distinct call sites exceeds textsize * 3 / 100; the program
-- keeps ~1.5 call sites per ~100-byte function, well below that.
--
-- Deterministic for a given SEED (helpers/prng.lua, not math.random).

local script_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = script_dir .. "/../?.lua;" .. package.path
local prng = require "helpers.prng"
local util = require "helpers.util"

local N = math.tointeger(tonumber(arg[1] or ""))
local SEED = math.tointeger(tonumber(arg[2] or ""))
local OUTDIR = arg[3]
local TARGET = tonumber(arg[4] or "2")
local STATIC = tonumber(arg[5] or "0")
if not (N and SEED and OUTDIR and TARGET and STATIC) or N < 1 then
  io.stderr:write("usage: lua5.4 gen_program.lua N_FUNCS SEED OUTDIR [TARGET_SECONDS [STATIC_PERCENT]]\n")
  os.exit(2)
end

local rand = prng.new(SEED) -- uniform integers in [0, n)
local q = util.q
assert(os.execute("mkdir -p " .. q(OUTDIR)))

---------------------------------------------------------------------------
-- Call graph
---------------------------------------------------------------------------
local CAP = 32            -- max calls of one function per repetition (d = 1)
local work = {}           -- loop iterations in p_j
local callees = {}        -- callees[i] = list of forward callees, in call order
local back = {}           -- back[i] = callee index <= i (called when d > 0), or nil
local calls1 = {}         -- calls per repetition with d = 1

for j = 0, N - 1 do
  work[j] = 8 + rand(113)
  callees[j] = {}
end
calls1[0] = 1
for j = 1, N - 1 do
  local p
  if rand(2) == 0 then p = j - 1 - rand(math.min(j, 32)) else p = rand(j) end
  local list = callees[p]
  list[#list + 1] = j
  local c = calls1[p]
  local callers = { [p] = true }
  if rand(100) < 35 then
    for _ = 1, 1 + rand(2) do
      local i = rand(j)
      if not callers[i] and c + calls1[i] <= CAP then
        callers[i] = true
        local l = callees[i]
        l[#l + 1] = j
        c = c + calls1[i]
      end
    end
  end
  calls1[j] = c
end
for j = 0, N - 1 do
  local r = rand(100)
  if r < 1 then
    back[j] = j                               -- self recursion
  elseif r < 3 and j > 0 then
    back[j] = rand(j)                         -- back edge: cycle
  end
end
-- Shuffle call order inside each function a little (deterministically).
for j = 0, N - 1 do
  local l = callees[j]
  for k = #l, 2, -1 do
    local m = 1 + rand(k)
    l[k], l[m] = l[m], l[k]
  end
end

-- Exact call counts per repetition: calls1 (d = 1) as above; calls0 (d = 0)
-- come from back edges, each firing once per d = 1 call of its caller, and
-- propagate along forward edges only.
local calls0 = {}
for j = 0, N - 1 do calls0[j] = 0 end
for j = 0, N - 1 do
  if back[j] then calls0[back[j]] = calls0[back[j]] + calls1[j] end
end
for i = 0, N - 1 do
  local c = calls0[i]
  if c > 0 then
    for _, j in ipairs(callees[i]) do calls0[j] = calls0[j] + c end
  end
end

local total_calls, total_iters, sites = 0, 0, 0
for j = 0, N - 1 do
  local c = calls1[j] + calls0[j]
  total_calls = total_calls + c
  total_iters = total_iters + c * work[j]
  sites = sites + #callees[j] + (back[j] and 1 or 0)
end
-- Cost model (measured on the dev machine, gcc 12 -O1 -pg): ~0.75 ns per
-- volatile loop iteration, ~10 ns per call including mcount (big programs run slower
-- per unit than small ones: i-cache and mcount hash chains).
local NS_ITER, NS_CALL = 0.75, 10
local rep_ns = total_iters * NS_ITER + total_calls * NS_CALL
local REPS = math.max(1, math.floor(TARGET * 1e9 / rep_ns + 0.5))

---------------------------------------------------------------------------
-- Static functions
---------------------------------------------------------------------------
local PER_FILE = 1000
local is_static = {}
if STATIC > 0 then
  local file_of = function(j) return j // PER_FILE end
  local ok = {}
  for j = 1, N - 1 do ok[j] = true end -- p0 is called from main (prog.c)
  for i = 0, N - 1 do
    for _, j in ipairs(callees[i]) do
      if file_of(i) ~= file_of(j) then ok[j] = false end
    end
    if back[i] and file_of(i) ~= file_of(back[i]) then ok[back[i]] = false end
  end
  local cand = {}
  for j = 1, N - 1 do
    if ok[j] then cand[#cand + 1] = j end
  end
  local pick = prng.new(SEED + 7919)
  for k = #cand, 2, -1 do
    local m = 1 + pick(k)
    cand[k], cand[m] = cand[m], cand[k]
  end
  for k = 1, math.min(#cand, math.floor(N * STATIC / 100 + 0.5)) do is_static[cand[k]] = true end
end

---------------------------------------------------------------------------
-- Sources
---------------------------------------------------------------------------
local function wfile(name, text)
  local f = assert(io.open(OUTDIR .. "/" .. name, "wb"))
  f:write(text)
  f:close()
end

do
  local h = { "/* generated by spec/bench/gen_program.lua */\n",
              "#ifndef PROG_H\n#define PROG_H\n",
              "#define NOINL __attribute__((noinline, noclone))\n" }
  for j = 0, N - 1 do
    if not is_static[j] then h[#h + 1] = string.format("long p%d(int d);\n", j) end
  end
  h[#h + 1] = "#endif\n"
  wfile("prog.h", table.concat(h))
end

wfile("prog.c", string.format([[
/* generated by spec/bench/gen_program.lua: N_FUNCS=%d SEED=%d */
#include <stdio.h>
#include "prog.h"

#define REPS %dL  /* %d calls and %d loop iterations per repetition */

int main(void)
{
  long sum = 0;
  for (long r = 0; r < REPS; r++)
    sum += p0(1);
  printf("%%ld\n", sum);
  return 0;
}
]], N, SEED, REPS, total_calls, total_iters))

local files = { "prog.c" }
do
  local part = 0
  for first = 0, N - 1, PER_FILE do
    local out = { "/* generated by spec/bench/gen_program.lua */\n#include \"prog.h\"\n\n" }
    local last = math.min(N - 1, first + PER_FILE - 1)
    local decls = #out
    for j = first, last do
      if is_static[j] then out[#out + 1] = string.format("static long p%d(int d);\n", j) end
    end
    if #out > decls then out[#out + 1] = "\n" end
    for j = first, last do
      local body = {
        string.format("%sNOINL long p%d(int d)\n{\n  volatile long v = %d;\n",
          is_static[j] and "static " or "", j, j),
        string.format("  for (int k = 0; k < %d; k++)\n    v += k;\n  long r = v;\n", work[j]),
      }
      for _, c in ipairs(callees[j]) do
        body[#body + 1] = string.format("  r += p%d(d);\n", c)
      end
      if back[j] then
        body[#body + 1] = string.format("  if (d > 0)\n    r ^= p%d(d - 1);\n", back[j])
      end
      body[#body + 1] = "  return r;\n}\n\n"
      out[#out + 1] = table.concat(body)
    end
    local name = string.format("prog_%02d.c", part)
    wfile(name, table.concat(out))
    files[#files + 1] = name
    part = part + 1
  end
end

wfile("build.sh", string.format([[
#!/bin/sh
# generated by spec/bench/gen_program.lua: compile in parallel, link, and
# with "run" run ./prog here to produce gmon.out.
set -e
cd "$(dirname "$0")"
CC="${CC:-gcc}"
CFLAGS="${CFLAGS:--O1 -g -pg}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
export CC CFLAGS
printf '%%s\n' %s | xargs -P "$JOBS" -n 1 sh -c '$CC $CFLAGS -c "$0"'
$CC $CFLAGS -o prog %s
if [ "$1" = run ]; then
  rm -f gmon.out
  ./prog
fi
]], table.concat(files, " "), (table.concat(files, " "):gsub("%.c", ".o"))))
os.execute("chmod +x " .. q(OUTDIR .. "/build.sh"))

io.stderr:write(string.format(
  "gen_program: %d functions in %d files, %d call sites, %d calls and %d loop iterations per repetition, REPS=%d (~%.1fs)\n",
  N, #files - 1, sites, total_calls, total_iters, REPS, REPS * rep_ns / 1e9))
