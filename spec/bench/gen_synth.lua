-- spec/bench/gen_synth.lua: synthetic benchmark input for gprof / lgprof.
--
--   lua5.4 spec/bench/gen_synth.lua N_FUNCS N_ARCS BACKEDGE_PERCENT SEED OUTDIR
--
-- Writes OUTDIR/synth.s (x86-64 GNU as: `main` returning 0 and N_FUNCS
-- global functions f0..f{N-1}, 16-byte aligned, 16/32/48 bytes of nops
-- ending in ret), links it with `gcc -no-pie -o OUTDIR/synth OUTDIR/synth.s`
-- (no -g, no DWARF), reads the symbol addresses back with nm, and writes
-- OUTDIR/gmon.out in the GNU tagged format the way glibc would:
--
--   * one histogram over [__executable_start, etext] with glibc's rounding
--     (low down to 4, high up to 4, kcountsize = textsize/2 rounded up to 8
--     bytes), rate 100, ~5 samples in each of ~30% of the functions;
--   * N_ARCS arcs with distinct (caller, callee) pairs, plus arcs main ->
--     f0..f9 (so there are roots; these are extra, not part of N_ARCS).
--     BACKEDGE_PERCENT percent of the N_ARCS arcs go backwards (callee
--     index < caller index) and create cycles; the rest go forwards.  Callees
--     are mostly near the caller (60% of forward / 70% of backward arcs are
--     within 32 functions), else uniform over the allowed range, so there
--     are both small cycles and, with enough long back edges, big ones.
--     from_pc is rounded down to 16 bytes inside the caller (mcount hashes
--     frompc into 16-byte buckets); self_pc = callee + a fixed per-callee
--     offset (mcount's return address in the prologue); count 1..1000.
--     Records are in from_pc bucket order, as glibc's write_call_graph does.
--
-- Deterministic for a given SEED (helpers/prng.lua, not math.random).

local script_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = script_dir .. "/../?.lua;" .. package.path
local gw = require "helpers.gmonwriter"
local prng = require "helpers.prng"
local util = require "helpers.util"

local function usage()
  io.stderr:write("usage: lua5.4 gen_synth.lua N_FUNCS N_ARCS BACKEDGE_PERCENT SEED OUTDIR\n")
  os.exit(2)
end

local N = math.tointeger(tonumber(arg[1] or ""))
local NARCS = math.tointeger(tonumber(arg[2] or ""))
local BACK = tonumber(arg[3] or "")
local SEED = math.tointeger(tonumber(arg[4] or ""))
local OUTDIR = arg[5]
if not (N and NARCS and BACK and SEED and OUTDIR) or N < 1 or NARCS < 0
   or BACK < 0 or BACK > 100 then
  usage()
end

local rand = prng.new(SEED) -- uniform integers in [0, n)

local function sh(cmd)
  local ok, how, code = os.execute(cmd)
  if not ok then
    io.stderr:write(string.format("gen_synth: command failed (%s %s): %s\n",
      tostring(how), tostring(code), cmd))
    os.exit(1)
  end
end

local q = util.q

local t0 = os.clock()
sh("mkdir -p " .. q(OUTDIR))

---------------------------------------------------------------------------
-- 1. assembler source
---------------------------------------------------------------------------
local size = {}           -- size[i] in bytes, i = 0..N-1
local selfoff = {}        -- mcount return-address offset inside f_i
for i = 0, N - 1 do
  size[i] = 16 * (1 + rand(3))
  selfoff[i] = 4 + rand(9)            -- 4..12, < 16 <= size
end

do
  local out = {
    "\t.file\t\"synth.s\"\n",
    "\t.text\n",
    "\t.globl\tmain\n\t.type\tmain, @function\n\t.p2align 4\nmain:\n",
    "\txorl\t%eax, %eax\n\tret\n\t.fill\t13,1,0x90\n\t.size\tmain, .-main\n",
  }
  for i = 0, N - 1 do
    out[#out + 1] = string.format(
      "\t.globl\tf%d\n\t.type\tf%d, @function\n\t.p2align 4\nf%d:\n" ..
      "\t.fill\t%d,1,0x90\n\tret\n\t.size\tf%d, .-f%d\n",
      i, i, i, size[i] - 1, i, i)
  end
  -- Reference the linker-provided symbols glibc's gcrt1.o uses for the
  -- histogram range, so the link defines them and nm shows them.
  out[#out + 1] = "\t.section\t.rodata\n\t.p2align 3\nsynth_text_range:\n" ..
                  "\t.quad\t__executable_start\n\t.quad\tetext\n"
  out[#out + 1] = "\t.section\t.note.GNU-stack,\"\",@progbits\n"
  local f = assert(io.open(OUTDIR .. "/synth.s", "wb"))
  f:write(table.concat(out))
  f:close()
end

sh("gcc -no-pie -o " .. q(OUTDIR .. "/synth") .. " " .. q(OUTDIR .. "/synth.s"))

---------------------------------------------------------------------------
-- 2. symbol addresses
---------------------------------------------------------------------------
local addr = {}
local main_addr, exec_start, etext
do
  local p = assert(io.popen("nm " .. q(OUTDIR .. "/synth")))
  for line in p:lines() do
    local a, t, name = line:match("^(%x+) (%a) (%S+)$")
    if a then
      local v = tonumber(a, 16)
      local idx = name:match("^f(%d+)$")
      if idx then
        addr[tonumber(idx)] = v
      elseif name == "main" then
        main_addr = v
      elseif name == "__executable_start" then
        exec_start = v
      elseif name == "etext" then
        etext = v
      end
    end
  end
  p:close()
end
assert(main_addr and exec_start and etext, "gen_synth: nm output lacks main/__executable_start/etext")
for i = 0, N - 1 do assert(addr[i], "gen_synth: no address for f" .. i) end

---------------------------------------------------------------------------
-- 3. histogram
---------------------------------------------------------------------------
local h = gw.glibc_hist(exec_start, etext, 100)
do
  local bins = h.bins
  for i = 0, N - 1 do
    if rand(100) < 30 then
      local nsamp = 1 + rand(9)                       -- ~5 on average
      for _ = 1, nsamp do
        local pc = addr[i] + rand(size[i])
        local b = gw.bin_for(h, pc)
        bins[b] = (bins[b] or 0) + 1
      end
    end
  end
end

---------------------------------------------------------------------------
-- 4. arcs
---------------------------------------------------------------------------
local AF, AT, AC = {}, {}, {}     -- from_pc, self_pc, count
local na = 0
local function add_arc(from_i, to_i, from_pc)
  na = na + 1
  AF[na] = from_pc
  AT[na] = addr[to_i] + selfoff[to_i]
  AC[na] = 1 + rand(1000)
end

-- roots: main -> f0..f9
for k = 0, math.min(N, 10) - 1 do
  na = na + 1
  AF[na] = main_addr
  AT[na] = addr[k] + selfoff[k]
  AC[na] = 1 + rand(1000)
end

do
  local seen = {}
  local made, attempts = 0, 0
  local max_attempts = 50 * NARCS + 1000
  local nback = math.floor(NARCS * BACK / 100 + 0.5)
  while made < NARCS do
    attempts = attempts + 1
    if attempts > max_attempts then
      io.stderr:write(string.format(
        "gen_synth: could only make %d distinct arcs of %d (too many for %d functions)\n",
        made, NARCS, N))
      os.exit(1)
    end
    local backward = made < nback            -- exact count of back edges
    local i, j
    if backward then
      if N < 2 then goto continue end
      i = 1 + rand(N - 1)                      -- 1..N-1
      local d
      if rand(100) < 70 then d = rand(math.min(i, 32)) else d = rand(i) end
      j = i - 1 - d
    else
      if N < 2 then goto continue end
      i = rand(N - 1)                          -- 0..N-2
      local room = N - 1 - i
      local d
      if rand(100) < 60 then d = rand(math.min(room, 32)) else d = rand(room) end
      j = i + 1 + d
    end
    do
      local key = i * N + j
      if not seen[key] then
        seen[key] = true
        made = made + 1
        local from_pc = addr[i] + 16 * rand(size[i] // 16)
        add_arc(i, j, from_pc)
      end
    end
    ::continue::
  end
end

-- glibc writes arcs in from_pc bucket order (16-byte buckets); counting
-- sort by bucket, keeping generation order inside a bucket.
local order
do
  local low = h.low
  local nb = ((h.high - low) >> 4) + 1
  local cnt = {}
  for b = 0, nb do cnt[b] = 0 end
  local bk = {}
  for k = 1, na do
    local b = (AF[k] - low) >> 4
    bk[k] = b
    cnt[b] = cnt[b] + 1
  end
  local pos, s = {}, 1
  for b = 0, nb do pos[b] = s; s = s + cnt[b] end
  order = {}
  for k = 1, na do
    local b = bk[k]
    order[pos[b]] = k
    pos[b] = pos[b] + 1
  end
end

---------------------------------------------------------------------------
-- 5. gmon.out
---------------------------------------------------------------------------
do
  local head = gw.encode({ hist = { h } }, { format = "gnu", bits = 64, endian = "little" })
  local chunks = { head }
  local fmt = "<BI8I8I4"
  local pack = string.pack
  for n = 1, na do
    local k = order[n]
    chunks[n + 1] = pack(fmt, 1, AF[k], AT[k], AC[k])
  end
  local f = assert(io.open(OUTDIR .. "/gmon.out", "wb"))
  f:write(table.concat(chunks))
  f:close()
end

io.stderr:write(string.format(
  "gen_synth: %d functions, %d arcs (+%d from main), %d bins, text %x..%x, %.2fs cpu\n",
  N, NARCS, math.min(N, 10), h.n_bins, h.low, h.high, os.clock() - t0))
