-- Differential spec of gprof's static call graph (-c, --static-call-graph):
-- lgprof against GNU gprof 2.40 on the same files, byte for byte (stdout,
-- stderr once the program name is set aside, exit status, and gmon.sum for
-- -s), for
--   * -c alone (three spellings) and in combinations with -b, -q, -p, -z,
--     -l, -a, -D, -T, -i, -k, -e, -f, -n, -w, --inline-file-names, -s and -r
--     (and -s alone: gmon.sum of one profile),
--     over every fixture program in every build variant (C and C++, -O0 -g
--     and -O2, PIE and not) and the line programs (-O0 -g, -O2 -g, PIE and
--     not; a core list), with one and three profiles;
--   * spec/fixtures/static/calls.c (the forward call gprof finds, and the
--     backward, PLT and indirect calls it misses) and falsepos.c (an E8 byte
--     in skipped data that gprof takes for a call), compiled here as PIE and
--     not, on their real profile and on profiles written here: two histogram
--     records splitting a routine, in both orders (gprof clips each routine
--     to the first record that overlaps it), arcs without a histogram, a
--     histogram without arcs (tagged, and 4.4BSD);
--   * a hand-made executable whose text lies above 4 GiB (gprof's 32-bit test
--     of the target then fails) next to the same code below 4 GiB.
-- gprof's answers are kept in build/gprof-cache (helpers.oracle). Without
-- /usr/bin/gprof every test is reported pending.

local H = require "helpers"
local fx, util, cmd, differ, gw, ew = H.fixtures, H.util, H.cmd, H.differ, H.gmonwriter, H.elfwriter

local sq, exec_ok, read_cmd = util.q, util.exec_ok, util.read_cmd

-- On every build.
local CORE = { "-c", "-b -q -c", "-c -z -b", "-c -l -b -q" }
-- On the fixture programs. {FN}, {FN2}: the two heaviest functions.
local FULL = {
  "--static-call-graph", "--static", "-b -c", "-c -b -q -z", "-c -l -z -b", "-c -l", "-c -b -p",
  "-c -a -b", "-c -D -b", "-c -T", "-c -b -i", "-c -b -q{FN}", "-c -b -Q{FN}",
  "-c -b -k {FN2}/{FN}", "-c -b -e {FN}", "-c -b -f main", "-c -b -n {FN}", "-c -w 60 -b",
  "-c --inline-file-names -b -q", "-c -l -a -b -q", "-c -b -q -p{FN} --no-demangle",
  "-s -c -b -q", "-s -c", "-r -c", "-c -r -a", "-c -l -r -b", "-c -b", "-s",
}
-- With three profiles.
local THREE = { "-c", "-b -q -c", "-c -l -z -b", "-s -c -b -q" }
-- On the programs of spec/fixtures/static and the profiles written for them.
local SMALL = { "-c", "-b -q -c", "-b -q", "-c -z -b", "-c -l -z -b", "-c -l -b -q", "-c -b -p",
                "-c -a -b -q", "-s -c -b -q", "-r -c" }

local STATIC_DIR = fx.root .. "/spec/fixtures/static"

-- gprof's message where its count of line symbols goes wrong.
local MISCOUNTED = "somebody miscounted"

-- Options whose runs write files (gmon.sum) into the working directory.
local WRITES = { ["-s"] = true }

-- The cases: each text of each list, on an executable and profiles.
local function make_cases(dir, lists, subst)
  local cases, dirs = {}, {}
  for _, l in ipairs(lists) do
    for _, text in ipairs(l.texts) do
      local args = util.fields(text)
      for k, a in ipairs(args) do args[k] = a:gsub("{(%w+)}", subst or {}) end
      local writes = false
      for _, a in ipairs(args) do writes = writes or WRITES[a] or false end
      args[#args + 1] = l.exe
      for _, p in ipairs(l.profiles) do args[#args + 1] = p end
      local c = { label = text .. " [" .. l.tag .. "]", args = args }
      if writes then
        local n = #cases + 1
        c.cwd, c.lcwd, c.collect = "g/" .. n, "l/" .. n, "^gmon%.sum$"
        dirs[#dirs + 1], dirs[#dirs + 2] = dir .. "/" .. c.cwd, dir .. "/" .. c.lcwd
      end
      cases[#cases + 1] = c
    end
  end
  util.mkdirs(dirs)
  return cases
end

-- Runs both tools on the cases; fails listing every difference.
local function compare_all(what, dir, cases, files)
  local g, l = differ.run_both(dir, cases, files)
  local compared = 0
  for i = 1, #cases do
    if g[i].rc == 0 and #g[i].out > 0 then compared = compared + 1 end
  end
  assert(compared > 0, what .. ": gprof succeeded on no case: " .. g[1].err)
  local failures, first = {}, nil
  for i, c in ipairs(cases) do
    local why, diff
    if g[i].err:find(MISCOUNTED, 1, true) then
      -- gprof gave up (its line symbols' count goes wrong on some C++ at
      -- -O2): lgprof must succeed, or fail on bad input in one line
      if l[i].rc ~= 0 and not (l[i].rc == 1 and l[i].err:match("^lgprof: [^\n]+\n$")) then
        why, diff = ("gprof miscounts, lgprof gave status %s"):format(tostring(l[i].rc)), l[i].err
      end
    else
      why, diff = differ.compare(dir, c.label, g[i], l[i], "c" .. i)
    end
    if why then
      failures[#failures + 1] = ("  %s: %s"):format(c.label, why)
      first = first or ("gprof " .. util.qwords(c.args) .. "\n" .. diff)
    end
  end
  if #failures > 0 then
    error(("%s: %d of %d comparisons differ:\n%s\n\nfirst difference: %s"):format(what,
      #failures, #cases, table.concat(failures, "\n"), first), 0)
  end
  return g
end

local function check_build(prog, variant, full)
  if not cmd.HAVE_GPROF then return pending("gprof not installed") end
  local built = assert(fx.build(prog, variant))
  local dir = util.mktempdir("lgprof-static")
  finally(function() util.rmtree(dir) end)
  local b = fx.snapshot(built, dir)
  local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  local fn, fn2 = differ.heaviest(dir, b.exe, b.gmon[1], files)
  local lists = {
    { texts = CORE, exe = b.exe, profiles = { b.gmon[1] }, tag = "1 profile" },
    { texts = THREE, exe = b.exe, profiles = b.gmon, tag = "3 profiles" },
  }
  if full then lists[#lists + 1] = { texts = FULL, exe = b.exe, profiles = { b.gmon[1] }, tag = "1 profile" } end
  local cases = make_cases(dir, lists, { FN = fn, FN2 = fn2 })
  cases[1].spawn = true -- once through the command itself
  compare_all(prog .. "/" .. variant, dir, cases, files)
end

for _, prog in ipairs(fx.programs()) do
  describe("gprof -c vs lgprof -c: " .. prog, function()
    for _, variant in ipairs(fx.variants) do
      it(variant, function() check_build(prog, variant, true) end)
    end
  end)
end

for k, prog in ipairs(fx.line_programs()) do
  local variant = fx.line_variants[(k - 1) % #fx.line_variants + 1]
  describe("gprof -c vs lgprof -c, line programs: " .. prog, function()
    it(variant, function() check_build(prog, variant, false) end)
  end)
end

---------------------------------------------------------------------------
-- The programs of spec/fixtures/static, compiled and run here.

-- Symbol addresses from nm: name -> address.
local function symbols(exe)
  local t = {}
  for addr, name in read_cmd(util.NM .. " " .. sq(exe)):gmatch("(%x+) [tT] (%S+)") do
    t[name] = tonumber(addr, 16)
  end
  return t
end

-- Compiles spec/fixtures/static/NAME.c with flags into dir and runs it
-- there; returns the executable's and the profile's paths.
local function build_static(dir, name, flags)
  local exe = dir .. "/" .. name
  assert(exec_ok(("cp %s %s && cd %s && gcc -O0 -g -pg %s -o %s %s.c >build.log 2>&1 && ./%s >/dev/null 2>&1 && mv gmon.out %s.gmon")
    :format(sq(STATIC_DIR .. "/" .. name .. ".c"), sq(dir), sq(dir), flags, sq(name), sq(name),
      sq(name), sq(name))), "cannot build and run " .. name .. ".c")
  return exe, exe .. ".gmon"
end

-- Profiles written from a real one: a histogram of 4-byte bins over its
-- range (a few samples) cut in two at addr (the records in both orders), its
-- arcs alone, its histogram alone.
local function synth_profiles(gmon, addr, prefix)
  local data = gw.decode(gw.read(gmon))
  local h = assert(data.hist[1], "no histogram in " .. gmon)
  local low = h.low - h.low % 4
  local cut = addr - addr % 4
  local high = h.high + (4 - h.high % 4) % 4
  local function part(lo, hi)
    local bins = {}
    for i = 1, (hi - lo) // 4 do bins[i] = i % 7 == 0 and 1 or 0 end
    return { low = lo, high = hi, rate = h.rate, dimen = h.dimen, abbrev = h.abbrev, bins = bins }
  end
  local a, b = part(low, cut), part(cut, high)
  local p = {
    split = prefix .. ".split", rsplit = prefix .. ".rsplit", arcs = prefix .. ".arcs",
    hist = prefix .. ".hist", bsd = prefix .. ".bsd",
  }
  gw.write(p.split, { hist = { a, b }, arcs = data.arcs })
  gw.write(p.rsplit, { hist = { b, a }, arcs = data.arcs })
  gw.write(p.arcs, { arcs = data.arcs })
  gw.write(p.hist, { hist = data.hist })
  gw.write(p.bsd, { hist = data.hist }, { format = "bsd44" }) -- BSD: a call graph, however empty
  return p
end

local function check_static(name, flags, expect)
  if not cmd.HAVE_GPROF then return pending("gprof not installed") end
  local dir = util.mktempdir("lgprof static")
  finally(function() util.rmtree(dir) end)
  local exe, gmon = build_static(dir, name, flags)
  local syms = symbols(exe)
  -- the routine the split runs through: a few bytes into caller (calls.c)
  -- or first (falsepos.c), before their calls
  local at = assert(syms.caller or syms.first) + 8
  local p = synth_profiles(gmon, at, exe)
  local files = { exe, gmon, p.split, p.rsplit, p.arcs, p.hist, p.bsd }
  local lists = {
    { texts = SMALL, exe = exe, profiles = { gmon }, tag = "its profile" },
    { texts = { "-c", "-b -q -c" }, exe = exe, profiles = { gmon, gmon, gmon }, tag = "3 profiles" },
    { texts = { "-b -q -c", "-c -l -b -q" }, exe = exe, profiles = { p.split }, tag = "split histogram" },
    { texts = { "-b -q -c", "-c -l -b -q" }, exe = exe, profiles = { p.rsplit }, tag = "split, reversed" },
    { texts = { "-c", "-b -q -c", "-c -z" }, exe = exe, profiles = { p.arcs }, tag = "arcs only" },
    { texts = { "-c", "-b -c -p", "-b -q -c" }, exe = exe, profiles = { p.hist }, tag = "histogram only" },
    { texts = { "-c -b -q", "-c -z -b -q" }, exe = exe, profiles = { p.bsd }, tag = "4.4BSD, no arcs" },
  }
  local cases = make_cases(dir, lists)
  local g = compare_all(name .. " " .. flags, dir, cases, files)
  -- and what gprof found is what the reference says it finds
  expect(g[2].out, g[#SMALL + 2 + 1].out, g[#SMALL + 2 + 2 + 1].out)
end

-- the static child's line under its parent's entry, "0/N" calls
local function static_line(n, child)
  return "\n%s+0%.00%s+0%.00%s+0/" .. n .. "%s+" .. child .. " %[%d+%]\n"
end

describe("gprof -c vs lgprof -c: spec/fixtures/static", function()
  for _, flags in ipairs { "", "-fno-pie -no-pie" } do
    it("calls.c " .. flags, function()
      check_static("calls", flags, function(out, split, rsplit)
        -- only the forward call caller -> fwd_target is found (0/0: never made)
        assert.truthy(out:find(static_line(0, "fwd_target")), out)
        assert.falsy(out:find("never"), out)
        -- split after caller's start: the first record holds only caller's
        -- first bytes, so the call is missed; reversed, the second part wins
        assert.falsy(split:find(static_line(0, "fwd_target")), split)
        assert.truthy(rsplit:find(static_line(0, "fwd_target")), rsplit)
      end)
    end)
    it("falsepos.c " .. flags, function()
      check_static("falsepos", flags, function(out)
        -- first -> target from the skipped E8 byte; target was called once
        assert.truthy(out:find("first %[%d+%]" .. static_line(1, "target")), out)
      end)
    end)
  end
end)

---------------------------------------------------------------------------
-- Text above 4 GiB: gprof tests the target's low 32 bits against the
-- histogram, so nothing is found there; the same code below 4 GiB.

-- main: call f; f: call h; ret; g: ret; h: ret (h never called at run time)
local function code_bytes()
  local t = {}
  local function put(off, bytes)
    for i, v in ipairs(bytes) do t[off + i] = v end
  end
  for i = 1, 0x40 do t[i] = 0x90 end
  put(0x00, { 0xE8, 0x0B, 0, 0, 0, 0xC3 }) -- main: call f (0x10 = 0x05 + 0x0b)
  put(0x10, { 0xE8, 0x1B, 0, 0, 0, 0xC3 }) -- f: call h (0x30 = 0x15 + 0x1b)
  put(0x20, { 0xC3 })                      -- g
  put(0x30, { 0xC3 })                      -- h
  local s = {}
  for i = 1, #t do s[i] = string.char(t[i]) end
  return table.concat(s)
end

describe("gprof -c vs lgprof -c: text above 4 GiB", function()
  it("finds f -> h below 4 GiB only", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local dir = util.mktempdir("lgprof-static4g")
    finally(function() util.rmtree(dir) end)
    local lists, files = {}, {}
    for _, base in ipairs { 0x401000, 0x100401000 } do
      local tag = ("text at 0x%x"):format(base)
      local exe, gmon = ("%s/t%x"):format(dir, base), ("%s/t%x.gmon"):format(dir, base)
      ew.write(exe, {
        text_addr = base, text_data = code_bytes(),
        symbols = {
          { name = "main", addr = base, type = "func", size = 6 },
          { name = "f", addr = base + 0x10, type = "func", size = 6 },
          { name = "g", addr = base + 0x20, type = "func", size = 1 },
          { name = "h", addr = base + 0x30, type = "func", size = 1 },
        },
      })
      gw.write(gmon, {
        hist = { { low = base, high = base + 0x40, rate = 100, bins = { 0, 0, 0, 0, 0, 0, 0, 0, 3,
                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 } } },
        arcs = { { from = base + 5, to = base + 0x10, count = 2 } },
      })
      files[#files + 1], files[#files + 2] = exe, gmon
      lists[#lists + 1] = { texts = { "-b -q -c", "-c -z -b" }, exe = exe, profiles = { gmon }, tag = tag }
    end
    local cases = make_cases(dir, lists)
    local g = compare_all("text above 4 GiB", dir, cases, files)
    assert.truthy(g[1].out:find(static_line(0, "h")), g[1].out)
    assert.falsy(g[3].out:find("%f[%w]h %["), g[3].out)
  end)
end)
