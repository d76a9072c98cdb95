-- glibc's shared-library profiles: LD_PROFILE=libfoo.so LD_PROFILE_OUTPUT=DIR
-- makes the dynamic loader write DIR/libfoo.so.profile (a gmon variant of
-- version 0x1ffff, laid out in csrc/core/read/gmon.c), read as a gmon profile
-- of the library: `lgprof libfoo.so DIR/libfoo.so.profile`. GNU gprof refuses
-- these files, so the expected numbers come from the program's own call
-- counts (a real run) or are derived by hand (synthesized files).

local H = require "helpers"
local util, cmd, gw, ew = H.util, H.cmd, H.gmonwriter, H.elfwriter

local lg = cmd.lgprof

-- The flat profile's rows (-b -p): name -> { self = seconds, calls = n or nil }.
local function flat_rows(out)
  local rows, started = {}, false
  for line in out:gmatch("[^\n]*") do
    if line:match("^ time%s+seconds") then
      started = true
    elseif started and line == "" then
      break
    elseif started then
      local self, rest = line:match("^%s*[%d.]+%s+[%d.]+%s+([%d.]+)%s+(.*)$")
      assert(self, "not a flat profile row: " .. line)
      local words = {}
      for w in rest:gmatch("%S+") do words[#words + 1] = w end
      rows[words[#words]] = { self = tonumber(self),
                              calls = #words == 4 and tonumber(words[1]) or nil }
    end
  end
  return rows
end

-- The call graph's entries (-b -q): name -> { pct, self, children, called,
-- parents = { name -> "self children n/m" }, children_of = { ... } }.
local function graph_entries(out)
  local entries, lines = {}, {}
  local body = out:match("index %% time.-\n(.*)$")
  assert(body, "no call graph in:\n" .. out)
  local function flush()
    local primary
    for i, l in ipairs(lines) do
      if l:match("^%[%d+%]") then primary = i end
    end
    if not primary then return end
    local pct, self, children, called, name =
      lines[primary]:match("^%[%d+%]%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)%s+([%d+]*)%s*(%S+) %[%d+%]$")
    assert(name, "not a primary line: " .. lines[primary])
    local e = { pct = tonumber(pct), self = tonumber(self), children = tonumber(children),
                called = called, parents = {}, callees = {} }
    for i, l in ipairs(lines) do
      local s, c, n, m, who = l:match("^%s+([%d.]+)%s+([%d.]+)%s+(%d+)/(%d+)%s+(%S+) %[%d+%]$")
      if who then
        local text = ("%s %s %s/%s"):format(s, c, n, m)
        if i < primary then e.parents[who] = text else e.callees[who] = text end
      end
    end
    entries[name] = e
  end
  for line in body:gmatch("[^\n]*") do
    if line:match("^%-%-%-%-") then
      flush()
      lines = {}
    elseif line:match("^Index by function name") then
      break
    elseif line ~= "" then
      lines[#lines + 1] = line
    end
  end
  flush()
  return entries
end

local function run_ok(args)
  local status, out, err = lg(args)
  assert(status == 0, cmd.show(status, out, err))
  return out
end

---------------------------------------------------------------------------
-- A real run
---------------------------------------------------------------------------

-- The library needs PLT relocations of its own (here: getpid): without
-- them the loader writes no profile. It counts the calls that enter the
-- library's functions through PLT slots (here the program's).
local LIB_C = [[
#include <unistd.h>
int hot1(int n) { volatile int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int hot2(int n) { volatile int s = 0; for (int i = 0; i < 2 * n; i++) s += i; return s + (int)getpid(); }
int cold(int n) { return n + 1; }
]]
local N1, N2 = 3000, 1000
local PROG_C = ([[
int hot1(int); int hot2(int);
int main(void) {
  int t = 0, i;
  for (i = 0; i < %d; i++) t += hot1(20000);
  for (i = 0; i < %d; i++) t += hot2(20000);
  return t == 42;
}
]]):format(N1, N2)

describe("LD_PROFILE: a real run", function()
  local tmp = util.block_tmpdir("ldprofile")

  it("reads the loader's profile of a library: its functions, the program's exact call counts, samples", function()
    if not util.have("gcc") then return pending("gcc not installed") end
    local d = tmp()
    util.spit(d .. "/lib.c", LIB_C)
    util.spit(d .. "/prog.c", PROG_C)
    local status, out, err = cmd.shell(
      "gcc -O1 -fPIC -shared -Wl,-soname,libhot.so -o libhot.so lib.c && " ..
      "gcc -O1 -o prog prog.c -L. -lhot -Wl,-rpath," .. util.q(d) .. " && " ..
      "mkdir out && LD_PROFILE=libhot.so LD_PROFILE_OUTPUT=" .. util.q(d .. "/out") ..
      " ./prog", { cwd = d })
    assert(status == 0, cmd.show(status, out, err))
    local profile = d .. "/out/libhot.so.profile"
    assert(util.slurp(profile), "the loader wrote no " .. profile)
    -- GNU gprof cannot read it: what this reader is for
    if cmd.HAVE_GPROF then
      local gs, _, gerr = cmd.gprof({ d .. "/libhot.so", profile })
      assert.are_not.equal(0, gs)
      assert.truthy(gerr:find("unsupported version 131071", 1, true), gerr)
    end
    local flat = flat_rows(run_ok({ "-b", "-p", d .. "/libhot.so", profile }))
    assert.are.equal(N1, flat.hot1 and flat.hot1.calls)
    assert.are.equal(N2, flat.hot2 and flat.hot2.calls)
    assert.is_nil(flat.cold) -- never called, never sampled
    local seconds = 0
    for _, row in pairs(flat) do seconds = seconds + row.self end
    assert.is_true(seconds > 0, "no samples in the histogram")
    local graph = graph_entries(run_ok({ "-b", "-q", d .. "/libhot.so", profile }))
    -- every call came from the program, outside the library
    assert.are.equal(tostring(N1), graph.hot1.called)
    assert.are.equal(tostring(N2), graph.hot2.called)
    assert.truthy(graph.hot1.parents["<external>"]:find(N1 .. "/" .. N1, 1, true))
    assert.truthy(graph.hot2.parents["<external>"]:find(N2 .. "/" .. N2, 1, true))
    -- the doctor takes neither the loader's arcs nor <external> for trouble
    local _, dout = lg({ "doctor", d .. "/libhot.so", profile })
    for _, id in ipairs({ "wrong-image", "arcs-outside-text", "spontaneous-time" }) do
      assert.is_nil(dout:find(id, 1, true), dout)
    end
  end)
end)

---------------------------------------------------------------------------
-- Synthesized files
---------------------------------------------------------------------------

-- A library whose executable segment is [0x1000, 0x2000): 0x400 bins of 4
-- bytes, bin i (1-based) covering 0x1000 + 4 * (i - 1).
local LIB64 = {
  { name = "_init", addr = 0x1000, bind = "local", type = "func" },
  { name = "alpha", addr = 0x1100, bind = "global", type = "func" },
  { name = "beta", addr = 0x1400, bind = "global", type = "func" },
  { name = "gamma", addr = 0x1800, bind = "global", type = "func" },
  { name = "_fini", addr = 0x1f00, bind = "local", type = "func" },
}

local function make_lib64(path)
  return ew.write(path, { class = 64, text_addr = 0x1000, text_size = 0x1000, symbols = LIB64 })
end

-- 7 samples in alpha (0x1100: bin 65), 5 in beta (0x1400: bin 257, 3;
-- 0x1410: bin 261, 2). Arcs as the file holds them (offsets from 0x1000,
-- from 0 = outside): outside -> alpha 5, outside -> beta 2, alpha -> beta 8
-- (returning to 0x1120), beta -> gamma 4 (returning to 0x1410).
local function lib64_profile(extra)
  local data = {
    hist = { { low = 0x1000, high = 0x2000, n_bins = 0x400, rate = 100,
               bins = { [65] = 7, [257] = 3, [261] = 2 } } },
    arcs = {
      { from = 0, to = 0x100, count = 5 },
      { from = 0, to = 0x400, count = 2 },
      { from = 0x120, to = 0x400, count = 8 },
      { from = 0x410, to = 0x800, count = 4 },
    },
    slots = 10,
  }
  for k, v in pairs(extra or {}) do data[k] = v end
  return gw.encode(data, { format = "ldprofile" })
end

describe("LD_PROFILE: synthesized files", function()
  local tmp = util.block_tmpdir("ldprofile-synth")
  local lib, prof

  before_each(function()
    lib = tmp() .. "/libx.so"
    prof = tmp() .. "/libx.so.profile"
    make_lib64(lib)
    util.spit(prof, lib64_profile())
  end)

  it("flat profile: self times from the samples (0.01 s each), calls from the arcs", function()
    local flat = flat_rows(run_ok({ "-b", "-p", lib, prof }))
    assert.are.same({ self = 0.07, calls = 5 }, flat.alpha)
    assert.are.same({ self = 0.05, calls = 10 }, flat.beta)   -- 2 + 8
    assert.are.same({ self = 0.00, calls = 4 }, flat.gamma)
    assert.is_nil(flat._init)
    assert.is_nil(flat["<external>"])                        -- no time, never called
  end)

  it("call graph: callers outside the library are <external>, times propagate", function()
    local g = graph_entries(run_ok({ "-b", "-q", lib, prof }))
    -- beta: 0.05 s, no time below it (gamma has none); alpha gets 8/10 of
    -- it, <external> 2/10; alpha's total 0.07 + 0.04; all of it 0.12 s
    assert.are.same({ pct = 100.0, self = 0.00, children = 0.12, called = "",
                      parents = {},
                      callees = { alpha = "0.07 0.04 5/5", beta = "0.01 0.00 2/10" } },
                    g["<external>"])
    assert.are.same({ pct = 91.7, self = 0.07, children = 0.04, called = "5",
                      parents = { ["<external>"] = "0.07 0.04 5/5" },
                      callees = { beta = "0.04 0.00 8/10" } }, g.alpha)
    assert.are.same({ pct = 41.7, self = 0.05, children = 0.00, called = "10",
                      parents = { alpha = "0.04 0.00 8/10", ["<external>"] = "0.01 0.00 2/10" },
                      callees = { gamma = "0.00 0.00 4/4" } }, g.beta)
    assert.are.same({ pct = 0.0, self = 0.00, children = 0.00, called = "4",
                      parents = { beta = "0.00 0.00 4/4" }, callees = {} }, g.gamma)
  end)

  it("the same through the Lua API", function()
    local lgprof = require "lgprof"
    local p = assert(lgprof.open(lib, prof))
    local calls = {}
    for a in p:arcs() do calls[a.caller.symbol .. ">" .. a.callee.symbol] = a.count end
    assert.are.same({ ["<external>>alpha"] = 5, ["<external>>beta"] = 2,
                      ["alpha>beta"] = 8, ["beta>gamma"] = 4 }, calls)
  end)

  it("-i: one histogram record and the records in use", function()
    local out = run_ok({ "-i", lib, prof })
    assert.are.equal(("File `%s' (version 131071) contains:\n" ..
                      "\t1 histogram record\n\t4 call-graph records\n" ..
                      "\t0 basic-block count records\n"):format(prof), out)
  end)

  it("several files add up, as gmon.out files do", function()
    local flat = flat_rows(run_ok({ "-b", "-p", lib, prof, prof }))
    assert.are.same({ self = 0.14, calls = 10 }, flat.alpha)
    assert.are.same({ self = 0.10, calls = 20 }, flat.beta)
    assert.are.same({ self = 0.00, calls = 8 }, flat.gamma)
  end)

  it("read from standard input too", function()
    local status, out, err = cmd.shell(cmd.LGPROF_CMD .. " -b -p " .. util.q(lib) ..
                                       " - < " .. util.q(prof))
    assert(status == 0, cmd.show(status, out, err))
    assert.are.same({ self = 0.07, calls = 5 }, flat_rows(out).alpha)
  end)

  it("a callee outside every routine is dropped, as gprof drops such arcs", function()
    util.spit(prof, lib64_profile({ arcs = {
      { from = 0, to = 0x100, count = 5 },
      { from = 0x120, to = 0x2000, count = 9 }, -- 0x3000: past the text
    } }))
    local flat = flat_rows(run_ok({ "-b", "-p", lib, prof }))
    assert.are.same({ self = 0.07, calls = 5 }, flat.alpha)
  end)

  it("lgprof doctor: the loader's arcs and <external> are no sign of a wrong image", function()
    -- the library calls no mcount and the arcs from outside start in no
    -- function: findings about gmon.out's arcs that do not apply here
    local status, out, err = lg({ "doctor", lib, prof })
    assert(status == 3 and err == "", cmd.show(status, out, err)) -- 3: a warning
    -- the one warning: too few samples (alpha's 7)
    assert.truthy(out:find("^few%-samples %(warning%): the hottest function, alpha, has 7 samples:"), out)
    assert.are.equal("lgprof doctor: 0 errors, 1 warning, 0 info\n", out:match("[^\n]*\n$"))
  end)

  it("a gmon.out of the same library has no <external>", function()
    local gmon = tmp() .. "/gmon.out"
    gw.write(gmon, { hist = { { low = 0x1000, high = 0x2000, n_bins = 0x400, bins = { [65] = 7 } } },
                     arcs = { { from = 0x1410, to = 0x1100, count = 3 } } })
    local out = run_ok({ "-b", "-z", lib, gmon })
    assert.is_nil(out:find("<external>", 1, true), out)
    assert.are.same({ self = 0.07, calls = 3 }, flat_rows(run_ok({ "-b", "-p", lib, gmon })).alpha)
  end)

  it("32-bit big-endian: addresses 4 bytes wide, fields in the library's byte order", function()
    local lib32 = tmp() .. "/lib32.so"
    ew.write(lib32, { class = 32, endian = "big", machine = ew.EM_PPC,
                      text_addr = 0x10000000, text_size = 0x1000, symbols = {
        { name = "f", addr = 0x10000100, bind = "global", type = "func" },
        { name = "g", addr = 0x10000200, bind = "global", type = "func" },
        { name = "etext", addr = 0x10001000, bind = "global", type = "notype" },
      } })
    -- f at bin 0x100 / 4 + 1 = 65, g at 0x200 / 4 + 1 = 129; a count whose
    -- four bytes differ, so that a byte-order mistake shows
    util.spit(prof, gw.encode({
      hist = { { low = 0x10000000, high = 0x10001000, n_bins = 0x400, bins = { [65] = 3, [129] = 0x0102 } } },
      arcs = { { from = 0, to = 0x100, count = 0x01020304 }, { from = 0x110, to = 0x200, count = 7 } },
      slots = 3,
    }, { format = "ldprofile", bits = 32, endian = "big" }))
    local flat = flat_rows(run_ok({ "-b", "-p", lib32, prof }))
    assert.are.same({ self = 0.03, calls = 0x01020304 }, flat.f)
    assert.are.same({ self = 2.58, calls = 7 }, flat.g) -- 0x0102 = 258 samples
  end)
end)

---------------------------------------------------------------------------
-- Hostile files
---------------------------------------------------------------------------

describe("LD_PROFILE: files that lie", function()
  local tmp = util.block_tmpdir("ldprofile-bad")

  local function bad(extra, want)
    local d = tmp()
    local lib, prof = d .. "/libx.so", d .. "/bad.profile"
    make_lib64(lib)
    util.spit(prof, type(extra) == "string" and extra or lib64_profile(extra))
    local line = cmd.file_error(prof, lg({ lib, prof }))
    assert.are.equal(prof .. ": " .. want, line)
  end

  -- offsets in the 64-bit file: header 20, tag 4, histogram header 40
  -- (ends at 64), bins 0x800 (end at 2112), tag and count 8 (2120), 20-byte
  -- records
  it("a histogram with more bins than the file holds", function()
    bad({ hist = { { low = 0x1000, high = 0x2000, n_bins = 0x400, hist_size = 0x10000 } } },
        "LD_PROFILE histogram declares 65536 bins but only 2256 bytes are left in the file")
  end)

  it("more arcs in use than the file holds", function()
    bad({ narcs = 11 }, "LD_PROFILE file declares 11 call-graph arcs but only 200 bytes are left in the file")
    bad({ narcs = 0xffffffff },
        "LD_PROFILE file declares 4294967295 call-graph arcs but only 200 bytes are left in the file")
  end)

  it("a partial arc record at the end", function()
    bad({ trailing = "xyz" },
        "corrupt LD_PROFILE file: the 203 bytes of arc records are not whole 20-byte records")
  end)

  it("wrong tags", function()
    bad({ hist_tag = 1 }, "corrupt LD_PROFILE file: histogram tag is 1, not 0")
    bad({ arc_tag = 2 }, "corrupt LD_PROFILE file: call-graph tag is 2, not 1")
  end)

  it("a histogram that cannot be", function()
    bad({ hist = { { low = 0x2000, high = 0x1000, n_bins = 4 } } },
        "corrupt histogram: low address 0x2000 is above high address 0x1000")
    bad({ hist = { { low = 0x1000, high = 0x2000, n_bins = 0 } } }, "corrupt histogram: no bins")
    bad({ hist = { { low = 0x1000, high = 0x2000, n_bins = 4, rate = 0 } } },
        "corrupt histogram: profiling rate is 0")
  end)

  it("with several files, the first bad one is reported, whether unreadable or corrupt", function()
    -- the files are loaded before any is read (lgp_profile_open needs to know of
    -- an LD_PROFILE file before the symbol table): the order stays the
    -- command line's
    local d = tmp()
    local lib, good, cut, missing = d .. "/libx.so", d .. "/good.profile", d .. "/cut.profile",
                                    d .. "/missing.profile"
    make_lib64(lib)
    util.spit(good, lib64_profile())
    util.spit(cut, lib64_profile():sub(1, 30))
    assert.are.equal(cut .. ": truncated LD_PROFILE histogram header",
                     cmd.file_error(cut, lg({ lib, good, cut, missing })))
    assert.are.equal(missing .. ": No such file or directory",
                     cmd.file_error(missing, lg({ lib, good, missing, cut })))
  end)

  it("cut short anywhere: exit 1 and one line naming the file, never a crash", function()
    local whole = lib64_profile({ slots = 4 }) -- every record in use: no prefix is whole
    local want = {
      [8] = "file too short to be a gmon file",
      [20] = "truncated LD_PROFILE histogram header",
      [63] = "truncated LD_PROFILE histogram header",
      [64] = "LD_PROFILE histogram declares 1024 bins but only 0 bytes are left in the file",
      [2111] = "LD_PROFILE histogram declares 1024 bins but only 2047 bytes are left in the file",
      [2112] = "truncated LD_PROFILE file: no call-graph header after the histogram",
      [2119] = "truncated LD_PROFILE file: no call-graph header after the histogram",
      [2120] = "LD_PROFILE file declares 4 call-graph arcs but only 0 bytes are left in the file",
      [2199] = "LD_PROFILE file declares 4 call-graph arcs but only 79 bytes are left in the file",
    }
    assert.are.equal(2200, #whole)
    local d = tmp()
    local lib, prof = d .. "/libx.so", d .. "/cut.profile"
    make_lib64(lib)
    -- every length up to the bins, around each boundary, and in the arcs
    local lengths = {}
    for n = 0, 80 do lengths[#lengths + 1] = n end
    for n = 2100, 2199 do lengths[#lengths + 1] = n end
    for _, n in ipairs(lengths) do
      util.spit(prof, whole:sub(1, n))
      local line = cmd.file_error(prof, lg({ "-b", lib, prof }))
      if want[n] then assert.are.equal(prof .. ": " .. want[n], line, "cut at " .. n) end
    end
  end)
end)
