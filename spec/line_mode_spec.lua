-- Line granularity: gprof -l, -s (which forces it for the reports and for
-- gmon.sum's arcs), --inline-file-names and -L, against GNU gprof 2.40 byte
-- for byte (stdout, stderr less the program name, exit status, and gmon.sum
-- for -s), on small programs the spec builds from spec/fixtures/linemode/ and on
-- the fixture programs' -g builds. The worked example (t.c with a profile
-- written here from fixed records) is also checked against gprof's text,
-- kept below. gprof's answers are kept (helpers.oracle). Without
-- /usr/bin/gprof or gcc every test is pending.

local H = require "helpers"
local util, cmd, fx, oracle, gw = H.util, H.cmd, H.fixtures, H.oracle, H.gmonwriter

local q, slurp, spit = util.q, util.slurp, util.spit
local SRC = fx.root .. "/spec/fixtures/linemode"
local READY = cmd.HAVE_GPROF and util.have("gcc") and util.have("g++")

-- gprof's and lgprof's messages differ in their program name only
local function norm_err(s)
  return (("\n" .. s):gsub("\nl?gprof:", "\nPROG:"))
end

-- Copies src into dir and builds it there (so DWARF names dir); the path of
-- the executable.
local function build(dir, src, compiler, flags)
  local exe = src:match("^[^.]+")
  spit(dir .. "/" .. src, assert(slurp(SRC .. "/" .. src)))
  local line = ("cd %s && %s %s -o %s %s 2>&1"):format(q(dir), compiler, flags, q(exe), q(src))
  local out = util.read_cmd(line .. "; echo rc=$?")
  assert(out:match("rc=0\n?$"), "building " .. src .. " failed:\n" .. out)
  return dir .. "/" .. exe
end

-- Runs exe in dir (its -pg run writes gmon.out); the profile renamed to name.
local function run(dir, exe, name)
  assert(util.exec_ok(("cd %s && %s >/dev/null && mv gmon.out %s"):format(q(dir), q(exe), q(name))),
    "running " .. exe .. " failed")
  return dir .. "/" .. name
end

-- The option sets' words with the files after them.
local function cases_of(sets, files)
  local cases = {}
  for _, s in ipairs(sets) do
    local args = util.fields(s)
    table.move(files, 1, #files, #args + 1, args)
    cases[#cases + 1] = { label = s, args = args }
  end
  return cases
end

local function describe_diff(label, what, a, b)
  return ("%s: %s differs\n--- gprof\n%s\n--- lgprof\n%s"):format(label, what, a:sub(1, 3000),
    b:sub(1, 3000))
end

-- Each option set (a string of words) run on files by both tools in dir;
-- asserts the same stdout, stderr and status, and returns gprof's results.
local function same_as_gprof(dir, sets, files)
  local cases = cases_of(sets, files)
  local g = oracle.gprof_many(dir, cases, files)
  local bad = {}
  for i, c in ipairs(cases) do
    -- (lgprof.cli.main in this process, in dir; the command where it can't)
    local r = H.differ.lgprof_inproc_in(dir, c.args)
    local rc, out, err
    if r then rc, out, err = r.rc, r.out, r.err else rc, out, err = cmd.lgprof(c.args, { cwd = dir }) end
    if out ~= g[i].out then
      bad[#bad + 1] = describe_diff(c.label, "stdout", g[i].out, out)
    elseif norm_err(err) ~= norm_err(g[i].err) or rc ~= g[i].rc then
      bad[#bad + 1] = describe_diff(c.label, "stderr or status",
        g[i].rc .. " " .. g[i].err, rc .. " " .. err)
    end
  end
  assert(#bad == 0, #bad .. " of " .. #cases .. " option sets differ:\n" .. table.concat(bad, "\n"))
  return g
end

-- -s runs: each tool in a folder of its own (gmon.sum goes to the current
-- one); the same stdout, stderr, status and gmon.sum bytes. Returns the
-- gmon.sum lgprof wrote.
local function same_sum(dir, set, files)
  local args = cases_of({ set }, files)[1].args
  local gd, ld = dir .. "/sum gprof", dir .. "/sum lgprof"
  assert(util.exec_ok("rm -rf " .. q(gd) .. " " .. q(ld) .. " && mkdir " .. q(gd) .. " " .. q(ld)))
  local grc, gout, gerr = cmd.gprof(args, { cwd = gd })
  local lrc, lout, lerr = cmd.lgprof(args, { cwd = ld })
  assert(gout == lout, describe_diff(set, "stdout", gout, lout))
  assert(grc == lrc and norm_err(gerr) == norm_err(lerr),
    describe_diff(set, "stderr or status", grc .. " " .. gerr, lrc .. " " .. lerr))
  local gsum, lsum = slurp(gd .. "/gmon.sum"), slurp(ld .. "/gmon.sum")
  assert(gsum ~= nil and gsum == lsum, set .. ": gmon.sum differs from gprof's")
  return lsum
end

-- t.c's profile: 18 samples in burn's loop lines, leaf called 300 times from
-- main's loop, burn 300 times from leaf and once from main.
local T_PROFILE = {
  hist = { { low = 0, high = 0x12c8, rate = 100, n_bins = 1204,
             bins = { [1147] = 1, [1150] = 9, [1151] = 2, [1153] = 3, [1154] = 1 } } },
  arcs = { { from = 0x1220, to = 0x11d7, count = 300 }, { from = 0x1250, to = 0x1218, count = 300 },
           { from = 0x1270, to = 0x11d7, count = 1 } },
}

-- A second profile: samples in main's padding after its last line (bytes no
-- line covers), calls whose callee address is in burn's line 8 (not its
-- first line), and calls from main's first line (its function symbol).
local T_PROFILE2 = {
  hist = { { low = 0, high = 0x12c8, rate = 100, n_bins = 1204,
             bins = { [1150] = 4, [1193] = 7, [1162] = 2 } } },
  arcs = { { from = 0x1270, to = 0x11e5, count = 5 }, { from = 0x1230, to = 0x11d7, count = 2 },
           { from = 0x1240, to = 0x1218, count = 3 } },
}

-- gprof -b -l t gmon.out on T_PROFILE ("\f" is the form feed)
local T_LINES = table.concat({
  "Flat profile:",
  "",
  "Each sample counts as 0.01 seconds.",
  "  %   cumulative   self              self     total           ",
  " time   seconds   seconds    calls  Ts/call  Ts/call  name    ",
  " 81.39      0.13     0.13                             burn (t.c:8 @ 11e3)",
  " 15.65      0.16     0.03                             burn (t.c:7 @ 11fa)",
  "  3.13      0.16     0.01                             burn (t.c:7 @ 11da)",
  "  0.00      0.16     0.00      301     0.00     0.00  burn (t.c:6 @ 11c9)",
  "  0.00      0.16     0.00      300     0.00     0.00  leaf (t.c:12 @ 120a)",
  "\f",
  "\t\t\tCall graph",
  "",
  "",
  "granularity: each sample hit covers 2 byte(s) for 6.24% of 0.16 seconds",
  "",
  "index % time    self  children    called     name",
  "                0.00    0.00       1/301         main (t.c:22 @ 126b) [19]",
  "                0.00    0.00     300/301         leaf (t.c:13 @ 121b) [11]",
  "[4]      0.0    0.00    0.00     301         burn (t.c:6 @ 11c9) [4]",
  "-----------------------------------------------",
  "                0.00    0.00     300/300         main (t.c:20 @ 1248) [16]",
  "[5]      0.0    0.00    0.00     300         leaf (t.c:12 @ 120a) [5]",
  "-----------------------------------------------",
  "\f",
  "Index by function name",
  "",
  "   [4] burn (t.c:6 @ 11c9)     [1] burn (t.c:8 @ 11e3)     [5] leaf (t.c:12 @ 120a)",
  "   [3] burn (t.c:7 @ 11da)     [2] burn (t.c:7 @ 11fa)",
  "",
}, "\n")

describe("line granularity", function()
  if not READY then
    pending("needs /usr/bin/gprof, gcc and g++")
    return
  end

  describe("the worked example t.c (-O0 -g, synthesized profiles)", function()
    local dir, exe, g1, g2
    setup(function()
      dir = util.mktempdir("lgprof line-mode")
      exe = build(dir, "t.c", "gcc", "-pg -g -O0")
      -- laid out as the profiles assume
      local nm = util.read_cmd(util.NM .. " " .. q(exe))
      for _, sym in ipairs({ "00000000000011c9 t burn\n", "000000000000120a T leaf\n",
                             "0000000000001233 T main\n" }) do
        assert(nm:find(sym, 1, true), "t.c is not laid out as the profiles assume:\n" .. nm)
      end
      g1, g2 = dir .. "/g1.out", dir .. "/g2.out"
      gw.write(g1, T_PROFILE)
      gw.write(g2, T_PROFILE2)
    end)
    teardown(function() util.rmtree(dir) end)

    it("-b -l: flat profile, call graph and index as gprof prints them", function()
      -- Ts/call (no called symbol has time), the function symbol standing
      -- for its first line, line 7's two ranges, index gaps, line parents
      -- (the call on line 21 charged to line 20: from_pc is rounded down)
      local rc, out, err = cmd.lgprof({ "-b", "-l", exe, g1 })
      assert.are.equal(0, rc, err)
      assert.are.equal(T_LINES, out)
      assert.are.equal(T_LINES, same_as_gprof(dir, { "-b -l" }, { exe, g1 })[1].out)
    end)

    it("-p'FILE:LINE': the excluded time leaves the total", function()
      local rc, out = cmd.lgprof({ "-b", "-l", "-pt.c:7", exe, g1 })
      assert.are.equal(0, rc)
      assert.truthy(out:find(" 84.08      0.03     0.03                             burn (t.c:7 @ 11fa)\n"
        .. " 16.82      0.03     0.01                             burn (t.c:7 @ 11da)\n", 1, true), out)
    end)

    it("-l -z: data_start leaves the table (its preset end lies below it)", function()
      local _, fn = cmd.lgprof({ "-b", "-z", "-p", exe, g1 })
      local _, ln = cmd.lgprof({ "-b", "-z", "-p", "-l", exe, g1 })
      assert.truthy(fn:find(" data_start\n", 1, true), fn)
      assert.falsy(ln:find("data_start", 1, true), ln)
      assert.truthy(ln:find(" main (t.c:25 @ 1293)\n", 1, true), ln)
      same_as_gprof(dir, { "-b -z -p -l", "-b -z -q -l", "-l -z -T" }, { exe, g1 })
    end)

    it("samples in padding go to the line before; a callee address in a later line to its function", function()
      local rc, out = cmd.lgprof({ "-b", "-l", exe, g2 })
      assert.are.equal(0, rc)
      assert.truthy(out:find("main (t.c:25 @ 1293)\n", 1, true), out)   -- the padding's samples
      assert.truthy(out:find("%s7%s+burn %(t%.c:6 @ 11c9%) %[%d+%]\n"), out) -- 5 + 2, on the function
      assert.truthy(out:find("3/3%s+main %(t%.c:18 @ 1233%) %[%d+%]\n"), out)
      same_as_gprof(dir, { "-b -l", "-b -l -z" }, { exe, g2 })
    end)

    it("every report option with -l, and the name suffixes, as gprof (one and two profiles)", function()
      local sets = {
        "-l", "-b -l", "--line -b", "-b -l -z", "-b -l -p", "-b -l -q", "-b -l -P", "-b -l -Q",
        "-b -l -T", "-b -l -T -z", "-l -T", "-b -l -w 30 -z", "-b -l -w 200", "-b -l -i",
        "-b -l -L", "-b -l --print-path -z", "-b -l --inline-file-names", "-b -l -a", "-b -l -a -z",
        "-b -l -D", "-b -l --no-demangle", "-b -l --demangle",
        "-b --inline-file-names", "-b --inline-file-names -z", "-b --inline-file-names -L",
        "-b --inline-file-names -T", "-b -L", "-b -L -z",
      }
      same_as_gprof(dir, sets, { exe, g1 })
      same_as_gprof(dir, sets, { exe, g1, g2 })
    end)

    it("symspecs match line symbols: names, FILE:LINE, LINE, arcs from calling lines", function()
      local sets = {
        "-b -l -pburn", "-b -l -pt.c:7", "-b -l -pt.c:6", "-b -l -z -pt.c:12", "-b -l -p13",
        "-b -l -P13", "-b -l -Pburn", "-b -l -z -Pt.c:6", "-b -l -pburn -pt.c:7",
        "-b -l -pleaf -pburn", "-b -l -qleaf", "-b -l -Qleaf", "-b -l -q/burn",
        "-b -l -qmain/leaf", "-b -l -qt.c:20/leaf", "-b -l -Q/burn", "-b -l -Qt.c:22/burn",
        "-b -l -k t.c:13/burn", "-b -l -k leaf/burn", "-b -l -k t.c:12/burn", "-b -l -k 13/burn",
        "-b -l -e burn", "-b -l -E burn", "-b -l -f main", "-b -l -F main", "-b -l -n burn",
        "-b -l -N burn", "-b -l -q -n leaf", "-b -l -z -e t.c:20", "-b -l -f t.c:20",
      }
      same_as_gprof(dir, sets, { exe, g1 })
      same_as_gprof(dir, sets, { exe, g1, g2 })
    end)

    it("symspec tables are address ranges looked up by a symbol's address (function mode too)", function()
      -- -pt.c -pleaf: leaf's own entry hides the file's range at main;
      -- -kmain/burn -kmain/leaf: the later spec's entry at main is the one kept
      local _, out = cmd.lgprof({ "-b", "-z", "-pt.c", "-pleaf", exe, g1 })
      assert.falsy(out:find(" main\n", 1, true), out)
      same_as_gprof(dir, { "-b -z -pt.c -pleaf", "-b -kmain/burn -kmain/leaf",
        "-b -kmain/leaf -kmain/burn", "-b -z -pmain -pt.c", "-b -Pt.c -pleaf" }, { exe, g1 })
    end)

    it("-s writes arcs from the calling line symbols, in gprof's order", function()
      local sum = same_sum(dir, "-s", { exe, g1 })
      local arcs = gw.decode(sum).arcs
      assert.are.same({
        { from = 0x121b, to = 0x11c9, count = 300 },
        { from = 0x1248, to = 0x120a, count = 300 },
        { from = 0x126b, to = 0x11c9, count = 1 },
      }, arcs)
      -- a FROM spec naming a line: only the arcs charged to that line go
      arcs = gw.decode(same_sum(dir, "-s -k t.c:13/burn", { exe, g1 })).arcs
      assert.are.same({
        { from = 0x1248, to = 0x120a, count = 300 },
        { from = 0x126b, to = 0x11c9, count = 1 },
      }, arcs)
      same_sum(dir, "-s", { exe, g1, g2 })
      same_sum(dir, "-s -k leaf/burn", { exe, g1, g2 })
      same_sum(dir, "-s -a", { exe, g1, g2 })
    end)

    it("-s alone prints nothing; with a report it works at line granularity", function()
      local rc, out, err = cmd.lgprof({ "-s", exe, g1 }, { cwd = dir })
      assert.are.same({ 0, "", "" }, { rc, out, err })
      local _, lines = cmd.lgprof({ "-b", "-l", "-p", exe, g1 })
      local _, summed = cmd.lgprof({ "-s", "-b", "-p", exe, g1 }, { cwd = dir })
      assert.are.equal(lines, summed)
      for _, set in ipairs({ "-s -b -p", "-s -b -q", "-s -b", "-s -p -z -T", "-s -b -q -a", "-s -i" }) do
        same_sum(dir, set, { exe, g1, g2 })
      end
    end)
  end)

  describe("the Lua API", function()
    local dir, exe, g1
    setup(function()
      dir = util.mktempdir("lgprof line-api")
      exe = build(dir, "t.c", "gcc", "-pg -g -O0")
      g1 = dir .. "/g1.out"
      gw.write(g1, T_PROFILE)
    end)
    teardown(function() util.rmtree(dir) end)

    -- the report of a profile opened with options, into a string
    local function report(open_opts, report_opts)
      local lgprof = require "lgprof"
      local p <close> = assert(lgprof.open(exe, g1, open_opts))
      local f <close> = assert(io.tmpfile())
      assert(p:gprof_report(f, report_opts) ~= nil) -- false: something was written
      f:seek("set")
      return f:read("a")
    end

    it("open's granularity = \"line\" and gprof_report's suffix options", function()
      assert.are.equal(T_LINES, report({ granularity = "line" }, { brief = true }))
      local g = same_as_gprof(dir, { "-b -l -L -z", "-b --inline-file-names -z" }, { exe, g1 })
      assert.are.equal(g[1].out, report({ granularity = "line", zeros = true },
        { brief = true, print_path = true }))
      assert.are.equal(g[2].out, report({ granularity = "function", zeros = true },
        { brief = true, inline_file_names = true }))
      local ok, err = pcall(require("lgprof").open, exe, g1, { granularity = "lines" })
      assert.is_false(ok)
      assert.truthy(err:find("granularity", 1, true), err)
    end)
  end)

  describe("programs run here (compared with gprof on their profiles)", function()
    local dir
    setup(function() dir = util.mktempdir("lgprof line-progs") end)
    teardown(function() util.rmtree(dir) end)

    it("recursion from a later line is a call, not a self arc (r.c)", function()
      local exe = build(dir, "r.c", "gcc", "-pg -g -O0")
      local gmon = run(dir, exe, "r.out")
      local g = same_as_gprof(dir, { "-b -q -l", "-b -l", "-b -l -z -T" }, { exe, gmon })
      assert.truthy(g[1].out:find("%s360%s+fact %(r%.c:4 @ %x+%) %[%d+%]\n"), g[1].out)
      assert.falsy(g[1].out:find("+330", 1, true), g[1].out)
      same_sum(dir, "-s -b -q", { exe, gmon })
    end)

    it("a cycle's members keep their entries, the cycle has none (cyc.c)", function()
      local exe = build(dir, "cyc.c", "gcc", "-pg -g -O0")
      local gmon = run(dir, exe, "cyc.out")
      local g = same_as_gprof(dir, { "-b -q -l", "-b -l -z", "-b -l -T" }, { exe, gmon })
      assert.truthy(g[1].out:find("<cycle 1> [", 1, true), g[1].out)
      assert.falsy(g[1].out:find("as a whole", 1, true), g[1].out)
      assert.truthy(g[1].out:find("%[%d+%] <cycle 1>"), g[1].out) -- the index lists it
    end)

    it("inlined code makes line symbols named after the inlined function (inl.c, -O2 -g)", function()
      local exe = build(dir, "inl.c", "gcc", "-pg -g -O2")
      local gmon = run(dir, exe, "inl.out")
      local g = same_as_gprof(dir, { "-b -l -p -z", "-b -l", "-b -l -padd", "-b -l -T",
        "-b --inline-file-names -z" }, { exe, gmon })
      assert.truthy(g[1].out:find(" add (inl.c:5 @ ", 1, true), g[1].out)
      same_sum(dir, "-s -b", { exe, gmon })
    end)

    -- Built from a top folder as sub/r.c or r.c, the compilation directory
    -- written "h.:TOP" (as old compilers prefixed a host): BFD drops "h.:"
    -- from the compilation directory and puts it before a relative directory
    -- entry, even DWARF 5's entry 0 ("h.:TOP" itself, not absolute):
    -- TOP/sub/r.c, TOP/r.c, TOP/h.:TOP/r.c.
    it("file names joined to a compilation directory written HOST.:PATH (r.c, DWARF 4 and 5)", function()
      local top = dir .. "/hosttop"
      assert(util.exec_ok("mkdir -p " .. q(top .. "/sub")))
      local text = assert(slurp(SRC .. "/r.c"))
      spit(top .. "/sub/r.c", text)
      spit(top .. "/r.c", text)
      local names = {}
      for _, v in ipairs({ 4, 5 }) do
        for _, src in ipairs({ "sub/r.c", "r.c" }) do
          local exe = ("%s/r%d%s"):format(dir, v, src == "r.c" and "top" or "sub")
          local line = ("cd %s && gcc -gdwarf-%d -pg -O0 %s -o %s %s 2>&1"):format(q(top), v,
            q("-fdebug-prefix-map=" .. top .. "=h.:" .. top), q(exe), src)
          local out = util.read_cmd(line .. "; echo rc=$?")
          assert(out:match("rc=0\n?$"), "building " .. src .. " failed:\n" .. out)
          local gmon = run(dir, exe, exe:match("[^/]+$") .. ".out")
          local g = same_as_gprof(dir, { "-C", "-b -l -p -L", "-b --inline-file-names -L -q", "-A",
            "-A -x" }, { exe, gmon })
          names[#names + 1] = g[1].out:match("^(.-):%d+: %(burn:")
        end
      end
      assert.same({ top .. "/sub/r.c", top .. "/r.c", top .. "/sub/r.c", top .. "/h.:" .. top .. "/r.c" },
        names)
    end)

    -- DWARF 4: r.c's file entry patched to name directory 7 of a table of
    -- one ("sub"): BFD gives the entry no directory, TOP/r.c.
    it("a file entry naming a directory past the table has none (r.c, DWARF 4, patched)", function()
      local top = dir .. "/patchtop"
      assert(util.exec_ok("mkdir -p " .. q(top .. "/sub")))
      spit(top .. "/sub/r.c", assert(slurp(SRC .. "/r.c")))
      local exe = dir .. "/rpatched"
      local out = util.read_cmd(("cd %s && gcc -gdwarf-4 -pg -O0 -o %s sub/r.c 2>&1; echo rc=$?")
        :format(q(top), q(exe)))
      assert(out:match("rc=0\n?$"), "building r.c failed:\n" .. out)
      local gmon = run(dir, exe, "rpatched.out")
      local bytes = assert(slurp(exe))
      local entry = "r.c\0\1\0\0" -- name, directory 1, no time, no size
      local at = assert(bytes:find(entry, 1, true), "r.c's file entry")
      assert.is_nil(bytes:find(entry, at + 1, true))
      spit(exe, bytes:sub(1, at + 3) .. "\7" .. bytes:sub(at + 5))
      local g = same_as_gprof(dir, { "-C", "-b -l -p -L", "-A" }, { exe, gmon })
      assert.truthy(g[1].out:find(top .. "/r.c:4: (fact:", 1, true), g[1].out)
    end)

    it("C++: line symbols carry mangled names, printed demangled (p.cc)", function()
      local exe = build(dir, "p.cc", "g++", "-pg -g -O0")
      local gmon = run(dir, exe, "p.out")
      local g = same_as_gprof(dir, { "-b -l -p -z", "-b -l", "-b -l -T", "-b -l --no-demangle",
        "-b -l -p_ZN2ns3Acc3addEi", "-b -l -pp.cc:5" }, { exe, gmon })
      assert.truthy(g[1].out:find(" ns::Acc::add(int) (p.cc:5 @ ", 1, true), g[1].out)
    end)
  end)

  describe("fixture programs", function()
    -- -O0 -g builds; and -O2 builds without DWARF, where line mode has no
    -- line symbols but still finalises the table again (data_start goes)
    local SETS = {
      ["O0g-pie"] = { "-b -l", "-b -l -z -T", "-b -l -a -q", "-b --inline-file-names -z -L" },
      ["O2-nopie"] = { "-b -l -z", "-b -l -q" },
    }
    SETS["O0g-nopie"] = SETS["O0g-pie"]
    for _, prog in ipairs(fx.programs()) do
      for _, variant in ipairs({ "O0g-pie", "O0g-nopie", "O2-nopie" }) do
        it(prog .. "/" .. variant, function()
          local built = assert(fx.build(prog, variant))
          local dir = util.mktempdir("lgprof line-fx")
          finally(function() util.rmtree(dir) end)
          local b = fx.snapshot(built, dir)
          same_as_gprof(dir, SETS[variant], { b.exe, b.gmon[1] })
          same_as_gprof(dir, SETS[variant], { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] })
          same_sum(dir, "-s -b -p", { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] })
        end)
      end
    end
  end)
end)
