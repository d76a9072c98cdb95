-- -l and -A on perf.data (issue 25), and profile:lines() of a perf.data
-- profile: the samples grouped by their leaf frame's (function, file,
-- line). The program is compiled here with gcc -g; the samples written
-- with helpers.perfwriter sit at addresses taken from the compiler's line
-- table (objdump --dwarf=decodedline), and which function and line each
-- address is in comes from addr2line -f -i: every expected number below
-- is counted by hand from the samples written. A live recording (pending
-- when perf cannot record) is checked for consistency only: each
-- function's line samples add up to its self samples.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local lgprof = require "lgprof"

local q = util.q

local SRC = [[
volatile unsigned long sink;
static inline __attribute__((always_inline)) void add(unsigned long v)
{
  sink += v;
}
__attribute__((noinline)) void work(long n)
{
  for (long i = 0; i < n; i++)
    add((unsigned long)i);
  sink ^= (unsigned long)n;
}
int main(void)
{
  work(100);
  return 0;
}
]]

local BIAS = 0x555555554000
local PID = 100
local PERIOD = 10000000 -- ns: 0.01 s a sample
local ST = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN

local tmp, exe, rows, text, at

-- the compiler's line table of prog.c: { addr, line } in address order
local function line_table(path)
  local t = {}
  for line, addr in util.read_cmd("objdump --dwarf=decodedline " .. q(path)):gmatch(
      "\nprog%.c%s+(%d+)%s+0x(%x+)") do
    t[#t + 1] = { addr = tonumber(addr, 16), line = tonumber(line) }
  end
  table.sort(t, function(a, b) return a.addr < b.addr end)
  return t
end

-- the rows of line n, in address order
local function rows_of(n)
  local r = {}
  for _, row in ipairs(rows) do if row.line == n then r[#r + 1] = row.addr end end
  return r
end

-- addr2line -f -i: the innermost function and its line at addr
local function where(addr)
  local out = util.read_cmd(("addr2line -f -i -e %s 0x%x"):format(q(exe), addr))
  local fn, line = out:match("^(%S+)\n[^\n]*:(%d+)")
  return fn, tonumber(line)
end

local function recording(samples, opts)
  opts = opts or {}
  local f = pw.new({ attrs = { { sample_type = ST, period = PERIOD, ids = { 1 } } } })
  f:comm(PID, PID, "prog", 10, true)
  if opts.other_thread then f:comm(PID, PID + 1, "helper", 11) end
  local start = BIAS + (text.vaddr & ~0xfff)
  local len = ((text.vaddr + text.filesz + 0xfff) & ~0xfff) - (text.vaddr & ~0xfff)
  f:mmap2(PID, PID, start, len, text.offset & ~0xfff, exe, 20)
  local t = 1000
  for _, s in ipairs(samples) do
    for _ = 1, s.n do
      t = t + 1
      local tid = s.tid or PID
      -- called from main: a return address inside it
      f:sample({ ip = BIAS + s.addr, pid = PID, tid = tid, time = t, period = PERIOD,
        chain = { pw.CONTEXT_USER, BIAS + s.addr, BIAS + at.main_ret } })
    end
  end
  f:finished_round()
  return f
end

local function write(name, f)
  local path = tmp .. "/" .. name
  pw.write(path, f:bytes())
  return path
end

local function run(argv, opts)
  return cmd.lgprof(argv, opts or { cwd = tmp })
end

-- gprof's flat profile row (calls blank)
local function flat_row(pct, cum, self, name)
  return ("%6.2f %9.2f %8.2f %8s %8s %8s  %s"):format(pct, cum, self, "", "", "", name)
end

describe("-l and -A on perf.data", function()
  local data, SAMPLES
  setup(function()
    tmp = util.mktempdir("lgprof-perflines")
    exe = tmp .. "/prog"
    util.spit(tmp .. "/prog.c", SRC)
    local status, out, err = cmd.shell(("cd %s && cc -O0 -g -fno-omit-frame-pointer -o prog prog.c")
      :format(q(tmp)))
    assert(status == 0, out .. err)
    rows = line_table(exe)
    text = util.text_segment(exe)
    assert(text, "no executable segment")
    -- the places sampled: two addresses of line 4 (add, inlined in work),
    -- two of line 8 (the loop, before and after its body), one of line 10
    local l4, l8, l10, l14 = rows_of(4), rows_of(8), rows_of(10), rows_of(14)
    assert(#l4 >= 1 and #l8 >= 2 and #l10 >= 1 and #l14 >= 1, "unexpected line table")
    at = {
      add_lo = l4[1], add_hi = l4[1] + 4,
      loop_lo = l8[1] + 2, loop_hi = l8[#l8],
      tail = l10[1],
      main_ret = l14[1] + 5,
    }
    -- what addr2line says of them: the expectations rest on it
    local want = {
      add_lo = { "add", 4 }, add_hi = { "add", 4 }, loop_lo = { "work", 8 },
      loop_hi = { "work", 8 }, tail = { "work", 10 }, main_ret = { "main", 14 },
    }
    for k, w in pairs(want) do
      local fn, line = where(at[k])
      assert(fn == w[1] and line == w[2], ("%s at 0x%x: addr2line says %s:%s"):format(k, at[k],
        tostring(fn), tostring(line)))
    end
    -- add line 4: 3 + 1 = 4 samples; work line 8: 1 + 1 = 2; work line 10: 1
    SAMPLES = {
      { addr = at.add_hi, n = 3 }, { addr = at.add_lo, n = 1 },
      { addr = at.loop_hi, n = 1 }, { addr = at.loop_lo, n = 1 },
      { addr = at.tail, n = 1 },
    }
    data = write("perf.data", recording(SAMPLES))
  end)
  teardown(function() util.rmtree(tmp) end)

  local function hex(a) return ("%x"):format(a) end

  describe("-l", function()
    it("prints a flat profile row per sampled line, at its lowest sampled address", function()
      local status, out, err = run({ "-b", "-p", "-l", "perf.data" })
      assert.equal(0, status, err)
      assert.equal("", err)
      -- 7 samples of 0.01 s; add's 4, then work's 2 and 1, by time
      local want = {
        flat_row(400 / 7, 0.04, 0.04, ("add (prog.c:4 @ %s)"):format(hex(at.add_lo))),
        flat_row(200 / 7, 0.06, 0.02, ("work (prog.c:8 @ %s)"):format(hex(at.loop_lo))),
        flat_row(100 / 7, 0.07, 0.01, ("work (prog.c:10 @ %s)"):format(hex(at.tail))),
      }
      local got = util.lines(out)
      assert.equal("A line's row holds the samples whose leaf frame is on it; @ is the lowest "
        .. "address sampled there.", got[4])
      assert.same(want, { got[7], got[8], got[9] }, out)
      assert.equal(9, #got, out)
    end)

    it("lists every function with -z, at its start address and declaration line", function()
      local status, out, err = run({ "-b", "-p", "-l", "-z", "perf.data" })
      assert.equal(0, status, err)
      local nm = {}
      for addr, name in util.read_cmd("nm " .. q(exe)):gmatch("(%x+) T (%w+)") do nm[name] = tonumber(addr, 16) end
      -- (the source's lines 2, 6 and 12); inlined add has no address of
      -- its own: the lowest sampled in it
      local got = util.lines(out)
      assert.same({
        flat_row(0, 0.07, 0, ("add (prog.c:2 @ %s)"):format(hex(at.add_lo))),
        flat_row(0, 0.07, 0, ("main (prog.c:12 @ %s)"):format(hex(nm.main))),
        flat_row(0, 0.07, 0, ("work (prog.c:6 @ %s)"):format(hex(nm.work))),
      }, { got[10], got[11], got[12] }, out)
      assert.equal(12, #got, out)
    end)

    it("keeps the functions' call graph, its names with their first line", function()
      local status, out, err = run({ "-b", "-q", "-l", "perf.data" })
      assert.equal(0, status, err)
      -- work: all 7 samples, 3 its own (lines 8 and 10), 4 its inlined add's
      local work = out:match("\n(%[%d+%][^\n]*work %(prog%.c:6 @ %x+%) %[%d+%])\n")
      assert.truthy(work, out)
      assert.matches("^%[%d+%]%s+100%.0%s+0%.03%s+0%.04%s+work", work)
      local add = out:match("\n(%[%d+%][^\n]*add %(prog%.c:2 @ " .. hex(at.add_lo) .. "%) %[%d+%])\n")
      assert.truthy(add, out)
      assert.matches("^%[%d+%]%s+57%.1%s+0%.04%s+0%.00%s+add", add)
      -- no entry for a line
      assert.falsy(out:find("\n%[%d+%][^\n]*work %(prog%.c:8 "), out)
    end)

    it("folds inlined code into its caller's lines with --no-inline", function()
      local status, out, err = run({ "-b", "-p", "-l", "--no-inline", "perf.data" })
      assert.equal(0, status, err)
      -- the line table still says line 4 at add's addresses; the function is work
      local got = util.lines(out)
      assert.equal(flat_row(400 / 7, 0.04, 0.04, ("work (prog.c:4 @ %s)"):format(hex(at.add_lo))), got[7], out)
      assert.equal(flat_row(200 / 7, 0.06, 0.02, ("work (prog.c:8 @ %s)"):format(hex(at.loop_lo))), got[8], out)
    end)

    it("selects the rows with -p NAME and -P NAME as for gmon's line mode", function()
      local status, out, err = run({ "-b", "-l", "-pwork", "perf.data" })
      assert.equal(0, status, err)
      local got = util.lines(out)
      -- work's two rows; the percentages of what -p keeps (3 samples)
      assert.equal(flat_row(200 / 3, 0.02, 0.02, ("work (prog.c:8 @ %s)"):format(hex(at.loop_lo))), got[7], out)
      assert.equal(flat_row(100 / 3, 0.03, 0.01, ("work (prog.c:10 @ %s)"):format(hex(at.tail))), got[8], out)
      assert.equal(8, #got, out)
      status, out = run({ "-b", "-l", "-Padd", "-p", "perf.data" })
      assert.equal(0, status)
      assert.falsy(out:find("add (", 1, true), out)
    end)

    it("leaves samples without a line on their function's row, named as without -l", function()
      local start = tonumber(util.read_cmd("nm " .. q(exe)):match("(%x+) T _start\n"), 16)
      assert(start, "nm lists no _start")
      -- crt code: no line there
      assert.matches("^%?%?:", util.read_cmd(("addr2line -e %s 0x%x"):format(q(exe), start + 4)))
      local path = write("noline.data", recording({ { addr = at.add_hi, n = 2 }, { addr = start + 4, n = 1 } }))
      local status, out, err = run({ "-b", "-p", "-l", "noline.data" })
      assert.equal(0, status, err)
      local got = util.lines(out)
      assert.same({
        flat_row(200 / 3, 0.02, 0.02, ("add (prog.c:4 @ %s)"):format(hex(at.add_hi))),
        flat_row(100 / 3, 0.03, 0.01, "_start"),
      }, { got[7], got[8] }, out)
      assert.equal(8, #got, out)
      local p <close> = assert(lgprof.open(nil, path))
      local fn = assert(p:find("_start"))
      local n = 0
      for l in fn:lines() do
        n = n + 1
        assert.is_nil(l.file)
        assert.is_nil(l.line)
        assert.equal(1, l.samples)
        assert.equal(start, l.address)
      end
      assert.equal(1, n)
    end)

    it("keeps line granularity through --tid", function()
      local two = write("two.data", recording({
        { addr = at.add_hi, n = 2 }, { addr = at.tail, n = 3, tid = PID + 1 },
      }, { other_thread = true }))
      local status, out, err = run({ "-b", "-p", "-l", "--tid=" .. PID, "two.data" })
      assert.equal(0, status, err)
      local got = util.lines(out)
      assert.equal(flat_row(100, 0.02, 0.02, ("add (prog.c:4 @ %s)"):format(hex(at.add_hi))), got[7], out)
      assert.equal(7, #got, out)
    end)
  end)

  describe("-A", function()
    -- the listing expected: the line's samples before it, 16 columns
    local function listing(counts)
      local t = {}
      local n = 0
      for line in (SRC):gmatch("([^\n]*)\n") do
        n = n + 1
        local c = counts[n]
        t[#t + 1] = (c and ("%12d -> "):format(c) or (" "):rep(16)) .. line
      end
      return table.concat(t, "\n") .. "\n"
    end

    it("annotates the source with each line's samples, a Top table and a summary", function()
      local status, out, err = run({ "-A", "perf.data" })
      assert.equal(0, status, err)
      assert.equal("", err)
      local want = "*** File " .. tmp .. "/prog.c:\n"
        .. "*** perf.data (cpu-clock): the count before a line is the samples whose leaf frame is on it\n"
        .. listing({ [4] = 4, [8] = 2, [10] = 1 })
        .. "\n\nTop 10 Lines:\n\n     Line    Samples\n\n"
        .. "        4          4\n        8          2\n       10          1\n"
        .. "\nSample Summary:\n\n        3   Lines with samples in this file\n"
        .. "        7   Samples on them\n   100.00   Percent of the profile's samples\n"
      assert.equal(want, out)
    end)

    it("takes -Aspec, -t, -m and -y as for gmon", function()
      local status, out, err = run({ "-Awork", "-t1", "-m2", "perf.data" })
      assert.equal(0, status, err)
      -- work's lines only; line 10's 1 sample is under -m 2
      assert.truthy(out:find(listing({ [8] = 2, [10] = 1 }):gsub("        1 %-> ", "    ##### -> "), 1, true), out)
      assert.truthy(out:find("\n\nTop 1 Lines:\n\n     Line    Samples\n\n        8          2\n\n", 1, true), out)
      assert.truthy(out:find("        3   Samples on them\n    42.86   Percent", 1, true), out)
      status, out, err = run({ "-A", "-y", "perf.data" })
      assert.equal(0, status, err)
      assert.equal("", out)
      assert.truthy(util.slurp(tmp .. "/prog.c-ann"):find(listing({ [4] = 4, [8] = 2, [10] = 1 }), 1, true))
    end)

    it("finds the source through -I when the recorded path is gone", function()
      local moved = tmp .. "/moved"
      util.mkdir(moved)
      assert(os.rename(tmp .. "/prog.c", moved .. "/prog.c"))
      local s1, o1, e1 = run({ "-A", "perf.data" })
      local s2, o2, e2 = run({ "-A", "-I", moved, "perf.data" })
      assert(os.rename(moved .. "/prog.c", tmp .. "/prog.c"))
      assert.equal(0, s1, e1)
      assert.equal("", o1)
      assert.equal("lgprof: could not locate `" .. tmp .. "/prog.c'\n", e1)
      assert.equal(0, s2, e2)
      assert.truthy(o2:find(listing({ [4] = 4, [8] = 2, [10] = 1 }), 1, true), o2)
    end)
  end)

  describe("--annotate-lines", function()
    it("lists each line's self time and share, inlined code marked", function()
      local status, out, err = run({ "--annotate-lines=prog.c", "perf.data" })
      assert.equal(0, status, err)
      local function row(self, share, mark, n, text)
        return (" "):rep(10) .. ("%10.3f%7.2f%%"):format(self, share) .. mark .. ("%5d  "):format(n) .. text
      end
      local got = util.lines(out)
      assert.equal(("*** %s/prog.c: 0.070 s, 100.00%% of 0.070 s"):format(tmp), got[1])
      assert.equal(row(0.04, 400 / 7, " i", 4, "  sink += v;"), got[2 + 4], out)
      assert.equal(row(0.02, 200 / 7, "  ", 8, "  for (long i = 0; i < n; i++)"), got[2 + 8], out)
      assert.equal(row(0.01, 100 / 7, "  ", 10, "  sink ^= (unsigned long)n;"), got[2 + 10], out)
      assert.equal((" "):rep(30) .. "   14  " .. "  work(100);", got[2 + 14], out)
    end)
  end)

  describe("profile:lines()", function()
    it("gives each sampled line its samples, and the rest to its function", function()
      for _, g in ipairs({ "function", "line" }) do
        local p <close> = assert(lgprof.open(nil, data, { granularity = g }))
        local got = {}
        for l in p:lines() do
          if l.samples > 0 then
            got[#got + 1] = ("%s %s:%s %x %d %.2f %s"):format(l.func.name, l.file and l.file:match("[^/]*$"),
              tostring(l.line), l.address, l.samples, l.self, tostring(l.is_inlined))
          end
        end
        assert.same({
          ("add prog.c:4 %x 4 0.04 true"):format(at.add_lo),
          ("work prog.c:8 %x 2 0.02 false"):format(at.loop_lo),
          ("work prog.c:10 %x 1 0.01 false"):format(at.tail),
        }, got, g)
        if g == "function" then -- inlined add has no address: its lowest frame's
          assert.equal(at.add_lo, assert(p:find("add")).address)
        end
        local l10 = assert(p:line("prog.c", 10))
        assert.equal(1, #l10)
        assert.equal(1, l10[1].samples)
        assert.is_nil(l10[1].calls)
      end
    end)
  end)

  it("still refuses what needs call counts, saying why", function()
    for _, args in ipairs({ { "-A", "-x" }, { "-C" }, { "-s" }, { "-l", "--static-arcs" },
        { "--format=csv", "-l" } }) do
      local argv = table.move(args, 1, #args, 1, {})
      argv[#argv + 1] = "perf.data"
      local status, out, err = run(argv)
      assert.equal(2, status, cmd.show(status, out, err))
      assert.equal("", out)
      assert.matches("^lgprof: perf.data records sampled stacks, no calls: "
        .. args[#args]:gsub("%p", "%%%0") .. " [^\n]*cannot be used\nTry 'lgprof %-%-help'", err)
    end
  end)
end)

describe("-l on a live perf recording", function()
  local ltmp = util.mktempdir("lgprof-perflines-live")
  teardown(function() util.rmtree(ltmp) end)
  util.spit(ltmp .. "/prog.c", SRC:gsub("work%(100%)", "for (int k = 0; k < 3000; k++) work(100000)"))
  local built = util.exec_ok(("cd %s && cc -O1 -g -fno-omit-frame-pointer -o prog prog.c"):format(q(ltmp)))
  local recorded = built and util.have("perf") and util.exec_ok(("cd %s && perf record -q -e cpu-clock"
    .. " -F 999 -g -o perf.data ./prog >/dev/null 2>&1"):format(q(ltmp)))
  if not recorded then
    pending("no recording: " .. (built and "perf record cannot run here" or "cc failed"))
    return
  end

  it("gives each function's lines samples that add up to its self samples", function()
    local base <close> = assert(lgprof.open(nil, ltmp .. "/perf.data"))
    local lines <close> = assert(lgprof.open(nil, ltmp .. "/perf.data", { granularity = "line" }))
    local sum, n = {}, 0
    for l in base:lines() do
      local name = l.func.name
      sum[name] = (sum[name] or 0) + l.samples
      n = n + l.samples
    end
    assert.is_true(n > 0)
    local flat = 0
    for l in lines:lines() do flat = flat + l.samples end
    assert.equal(n, flat)
    for fn in base:functions() do
      assert.equal(fn.samples, sum[fn.name] or 0, fn.name)
    end
  end)
end)
