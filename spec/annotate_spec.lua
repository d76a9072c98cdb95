-- Differential spec: gprof's annotated source (-A, -J, -I, -x, -y, -t, -m,
-- GPROF_PATH) and execution counts (-C, -Z, the default report of a profile
-- with neither histogram nor arcs, basic-block records), lgprof against GNU
-- gprof 2.40 byte for byte: stdout, stderr (the program name before the
-- first colon of a line set aside), exit status and the -y files.
--
-- The programs are built here with the real compiler, their source paths
-- mapped to a directory that does not exist (-fdebug-prefix-map), so the
-- executables' bytes do not depend on where the spec runs (gprof's answers
-- are kept by helpers.oracle) and the sources are found only through -I or
-- GPROF_PATH. The profiles are written by helpers.gmonwriter from records
-- chosen by hand; no live run's samples are involved.
--
-- t.c: one file (burn static, leaf, main; tn: without -g). m and m2: a.c (no final newline),
-- b.c and h.h, linked as "a.c b.c" and "b.c a.c" (the order of the files'
-- listings and of the execution counts, whose comparator is not a total
-- order, depends on it); mo: the same at -O2 (inlined sq and spin). y.c:
-- two headers met only through line symbols. p.cc: C++.

local H = require "helpers"
local util, cmd, oracle, gw = H.util, H.cmd, H.oracle, H.gmonwriter
local q = util.q

local MAPPED = "/nonexistent-lgprof-anno"

-- the reference program t.c (the line numbers matter), shared with line_mode_spec
local T_C = assert(util.slurp(H.fixtures.root .. "/spec/fixtures/linemode/t.c"))
local H_H = "static inline int sq(int x)\n{\n  return x * x;\n}\n"
local B_C = [[
#include "h.h"
volatile long acc;
static void spin(int n) { for (int i = 0; i < n; i++) acc += sq(i); }
void work(int n)
{
  spin(n);
}
void idle(void) { }
]]
-- two headers met only through line symbols (always_inline at -O0), in the
-- opposite order of their entries in the line table's file list
local H1_H = "static inline __attribute__((always_inline)) int f1(int x)\n{\n  return x * 3 + 1;\n}\n"
local H2_H = "static inline __attribute__((always_inline)) int f2(int x)\n{\n  return x * 7 - 2;\n}\n"
local Y_C = "#include \"h2.h\"\n#include \"h1.h\"\nvolatile int v;\nint main(void)\n{\n"
  .. "  for (int i = 0; i < 100; i++) {\n    v += f2(i);\n    v += f1(v);\n  }\n  return 0;\n}\n"
-- C++: raw (mangled) names in -C
local P_CC = [[
#include <cstdio>
namespace ns {
struct Acc {
  unsigned long v = 0;
  void add(int i) { v += i; }
};
static void spin(Acc &a, int n) { for (int i = 0; i < n; i++) a.add(i); }
template <typename T> T twice(T x) { return x + x; }
}
int main()
{
  ns::Acc a;
  for (int k = 0; k < 40; k++)
    ns::spin(a, 1000000 + ns::twice(k));
  std::printf("%lu\n", a.v);
  return 0;
}
]]
local A_C = "#include \"h.h\"\nvoid work(int);\nvoid idle(void);\nint main(void)\n{\n"
  .. "  for (int i = 0; i < 50; i++)\n    work(200000 + sq(i));\n  idle();\n  return 0;\n}"

-- name -> address of the ELF symbols of exe (statics of one name: a list)
local function symbols(exe)
  local s = {}
  for a, name in util.read_cmd(util.NM .. " " .. q(exe)):gmatch("(%x+) %a (%S+)\n") do
    local list = s[name] or {}
    list[#list + 1] = tonumber(a, 16)
    s[name] = list
  end
  return s
end

local function blocks(list)
  local b = {}
  for i = 1, #list, 2 do b[#b + 1] = { addr = list[i], count = list[i + 1] } end
  return b
end

-- The profiles of t: the records of the worked example (histogram, three
-- arcs), with basic blocks in every way gprof reads them.
local function t_profiles(dir)
  local bins = {}
  for k, v in pairs { [1146] = 1, [1149] = 9, [1150] = 2, [1152] = 3, [1153] = 1 } do bins[k + 1] = v end
  local hist = { { low = 0, high = 0x12c8, n_bins = 1204, rate = 100, bins = bins } }
  local arcs = { { from = 0x1220, to = 0x11d7, count = 300 }, { from = 0x1250, to = 0x1218, count = 300 },
                 { from = 0x1270, to = 0x11d7, count = 1 } }
  local eleven = {}
  for k = 0, 10 do eleven[#eleven + 1] = 0x11e3 + k; eleven[#eleven + 1] = 100 + k end
  local g = {
    out = { hist = hist, arcs = arcs },
    bb = { hist = hist, arcs = arcs, bb = { blocks {
      0x11da, 301, 0x11e3, 2000, 0x11e5, 17, 0x11fa, 2100, 0x121b, 300, 0x1251, 300 } } },
    bbstart = { arcs = arcs, bb = { blocks { 0x11c9, 301, 0x11d0, 9, 0x11da, 301, 0x11e1, 5 } } },
    -- 11 addresses in one line symbol, a block below every symbol, and two
    -- records whose counts add up
    bb11 = { hist = hist, arcs = arcs, bb = { blocks(eleven), blocks { 0x900, 5, 0x11e3, 1, 0x1251, 7 },
      blocks { 0x11e3, 2, 0x11c9, 40 } } },
    bbonly = { bb = { blocks { 0x11da, 301, 0x1251, 300 } } },
    bb0 = { version = 0, arcs = arcs, bb = { blocks { 0x11da, 301, 0x11e3, 2000, 0x121b, 300 } } },
    hdr = {},
    hist = { hist = hist },
    self = { arcs = { arcs[1], arcs[2], { from = 0x1215, to = 0x1218, count = 7 } } },
  }
  local paths = {}
  for name, data in pairs(g) do
    paths[name] = dir .. "/t-" .. name .. ".gmon"
    gw.write(paths[name], data, data.version and { version = data.version } or nil)
  end
  return paths
end

-- A profile of m or m2 (the reference's call counts): addresses from nm.
local function m_profile(exe, path)
  local s = symbols(exe)
  local main, sqs = s.main[1], s.sq
  local near = math.abs(sqs[1] - main) < math.abs(sqs[2] - main) and 1 or 2
  gw.write(path, { arcs = {
    { from = main + 0x10, to = sqs[near], count = 50 }, { from = main + 0x20, to = s.work[1], count = 50 },
    { from = main + 0x30, to = s.idle[1], count = 1 }, { from = s.work[1] + 8, to = s.spin[1], count = 50 },
    { from = s.spin[1] + 0x10, to = sqs[3 - near], count = 10040425 } } })
end

local function norm_err(s)
  return (s:gsub("%f[^\n%z]lgprof:", "gprof:"))
end

local T_OPTS = {
  "-b -A", "-A", "-b -A -x", "-A -x", "-A -m0 -t1", "-A -m301 -t0", "-A -m -1", "-A -m abc",
  "-A -t -3", "-A -t1", "-A -m18446744073709551615", "-A -m 18446744073709551616", "-A -m -18446744073709551615",
  "-A -t 4294967298", "-A -t 99999999999999999999", "-p -A", "-b -q -A", "-C", "-C -z", "-Cleaf", "-Zleaf", "-Z",
  "-Aleaf", "-Jleaf", "-J", "-A -J", "-J -A", "-z -A", "-z", "", "-i", "-b -p -C -A", "-b -C -p",
  "--annotated-source=leaf", "--exec-counts", "--no-exec-counts=leaf", "--no-annotated-source=burn",
  "--all-lines -A", "--min-count=0 -A", "--table-length=2 -A", "-T -A -C", "-b -At.c", "-b -At.c:12",
  "-b -C12", "-b -Ct.c:6", "-b -Zt.c", "-y -C",
}
local T_MORE = { "-b -A", "-b -A -x", "-C", "-C -z", "-z", "", "-A -z", "-i", "-Cburn", "-A -m0" }
-- at line granularity (-l, and -s, which forces it): blocks are kept
local T_LINE = { "-l -b -A", "-l -A -x", "-l -b -A -x -m0", "-l -b -A -m2000", "-l -C", "-l -C -z", "-l -z", "-l",
  "-l -A -z", "-l -Cburn", "-l -Zburn", "-l -At.c:8", "-l -A -t3", "-l -i", "-l -b -p -C", "-s -C -A",
  "-l -a -C -z", "-l -a -A -z", "-l -L -C", "-l -b -A -Jleaf" }
local M_OPTS = { "-b -A", "-A -x", "-A -z", "-C", "-C -z", "-b -p -A", "-Ab.c", "-Ja.c", "-A -t2",
  "-Ca.c", "-Zb.c", "-C -A", "-q -b -C", "-Csq", "-z" }

describe("gprof -A and -C (differential, #gprof)", function()
  local dir, tp, ok_setup
  setup(function()
    if not cmd.HAVE_GPROF or not util.have("gcc") or not util.have("g++") then return end
    dir = util.mktempdir("lgprof anno-spec")
    util.mkdir(dir .. "/src")
    util.spit(dir .. "/src/t.c", T_C)
    util.spit(dir .. "/src/a.c", A_C)
    util.spit(dir .. "/src/b.c", B_C)
    util.spit(dir .. "/src/h.h", H_H)
    util.spit(dir .. "/src/h1.h", H1_H)
    util.spit(dir .. "/src/h2.h", H2_H)
    util.spit(dir .. "/src/y.c", Y_C)
    util.spit(dir .. "/src/p.cc", P_CC)
    -- sources elsewhere: a truncated copy, an empty one, one without its final newline, a directory
    for sub, text in pairs { short = T_C:match("^(.-\n)int leaf") .. "int leaf(int x)\n{\n  burn(x * 1000);\n",
                             empty = "", nonl = T_C:sub(1, -2) } do
      util.mkdir(dir .. "/" .. sub)
      util.spit(dir .. "/" .. sub .. "/t.c", text)
    end
    util.mkdir(dir .. "/isdir")
    util.spit(dir .. "/plain", "not a folder\n") -- plain/t.c: "Not a directory", reported with perror
    util.mkdir(dir .. "/isdir/t.c")
    local map = "-fdebug-prefix-map=" .. dir .. "/src=" .. MAPPED
    for _, b in ipairs { { "t", "t.c", "-O0" }, { "m", "a.c b.c", "-O0" }, { "m2", "b.c a.c", "-O0" },
                         { "mo", "a.c b.c", "-O2" }, { "tn", "t.c", "-O0", "" },
                         { "y", "y.c", "-O0" }, { "p", "p.cc", "-O0", nil, "g++" } } do
      assert(util.exec_ok(("cd %s && %s -pg %s %s %s -o ../%s %s"):format(
        q(dir .. "/src"), b[5] or "gcc", b[4] or "-g", b[3], q(map), b[1], b[2])), "gcc failed")
    end
    local sp = symbols(dir .. "/p")
    local spin, add, twice = sp._ZN2nsL4spinERNS_3AccEi[1], sp._ZN2ns3Acc3addEi[1], sp._ZN2ns5twiceIiEET_S1_[1]
    gw.write(dir .. "/p.gmon", { arcs = { { from = sp.main[1] + 0x28, to = spin, count = 40 },
      { from = spin + 0x17, to = add, count = 40001560 }, { from = sp.main[1] + 0x38, to = twice, count = 40 } },
      bb = { blocks { add + 3, 9, spin + 7, 3 } } })
    local s = symbols(dir .. "/t")
    assert(s.burn[1] == 0x11c9 and s.leaf[1] == 0x120a and s.main[1] == 0x1233,
      "t was laid out differently from the reference build: its profiles would not fit")
    tp = t_profiles(dir)
    m_profile(dir .. "/m", dir .. "/m.gmon")
    m_profile(dir .. "/m2", dir .. "/m2.gmon")
    local so = symbols(dir .. "/mo") -- -O2: spin and sq are inlined
    gw.write(dir .. "/mo.gmon", { arcs = { { from = so.main[1] + 0x10, to = so.work[1], count = 50 },
      { from = so.main[1] + 0x14, to = so.idle[1], count = 1 } } })
    ok_setup = true
  end)
  teardown(function() if dir then util.rmtree(dir) end end)

  local function words(s)
    local w = {}
    for x in s:gmatch("%S+") do w[#w + 1] = x end
    return w
  end

  -- The cases compared through the oracle (stdout, stderr, status): words
  -- relative to the run's directory, the executable, the profiles.
  local cases, by_label = {}, {}
  local function case(label, opts, exe, gmons, fatal)
    local c = { label = label, opts = opts, exe = exe, gmons = gmons, fatal = fatal }
    cases[#cases + 1] = c
    by_label[label] = c
    return c
  end
  for _, o in ipairs(T_OPTS) do case("t out " .. o .. " -I src", o .. " -I src", "t", { "out" }) end
  for _, g in ipairs { "bb", "bbstart", "bb11", "bbonly", "bb0", "hdr", "hist", "self" } do
    for _, o in ipairs(T_MORE) do case("t " .. g .. " " .. o, o .. " -I src", "t", { g }) end
  end
  for _, g in ipairs { "out", "bb", "bbstart", "bb11", "bbonly", "bb0", "hdr", "hist", "self" } do
    for _, o in ipairs(T_LINE) do case("t " .. g .. " " .. o, o .. " -I src", "t", { g }) end
  end
  for _, o in ipairs { "-b -A", "-C", "-C -z", "-l -C", "-l -b -A", "-l -A -x" } do
    case("t bb+bb0 " .. o, o .. " -I src", "t", { "bb", "bb0" })
    case("t out+self " .. o, o .. " -I src", "t", { "out", "self" })
  end
  -- where the source is looked for
  for _, o in ipairs { "-b -A", "-b -A -I nowhere", "-b -A -I nowhere:src", "-b -A -I :src", "-b -A -I src:",
                       "-b -A -I nowhere -I src", "-b -A -I short", "-b -A -I empty", "-b -A -I nonl",
                       "-b -A -I isdir", "-b -A -I isdir:src", "-b -A -x -I short", "-b -p -A -I nowhere",
                       "-b -A -I " .. MAPPED, "-b -A -I plain", "-b -A -I plain:nowhere",
                       "-b -A -I nowhere:plain", "-b -A -I plain:src" } do
    case("t out " .. o, o, "t", { "out" })
  end
  -- the operand pitfall: a spec given as a word of its own is a file name
  case("t -J t.c", "-J t.c", "t", { "out" }, true)
  case("t -C t.c:7", "-C t.c:7", "t", { "out" }, true)
  for _, e in ipairs { "m", "m2" } do
    for _, o in ipairs(M_OPTS) do case(e .. " " .. o, o .. " -I src", e, { e }) end
    case(e .. " -A (no source)", "-b -A", e, { e })
    case(e .. " -A -I nowhere:src", "-b -A -I nowhere:src", e, { e })
    for _, o in ipairs { "-l -b -A", "-l -A -x", "-l -A -z", "-l -C -z" } do
      case(e .. " " .. o, o .. " -I src", e, { e })
    end
  end
  for _, o in ipairs { "-C", "-C -z", "-b -A", "-l -C", "-l -b -A -x", "-C --no-demangle", "-l -C -z" } do
    case("p " .. o, o .. " -I src", "p", { "p" })
  end
  -- files created by line symbols: in address order, listed in reverse
  for _, o in ipairs { "-l -A -z", "-l -b -A -x -z", "-A -z" } do
    case("y hdr " .. o, o .. " -I src", "y", { "hdr" })
  end
  -- no DWARF: nothing to annotate, every row "<unknown>:0:"
  for _, o in ipairs { "-A", "-A -z", "-C -z", "-l -C", "-l -A -z" } do
    case("tn bb " .. o, o .. " -I src", "tn", { "bb" })
  end
  -- -O2: h.h is first met through a line symbol, after every function symbol
  for _, o in ipairs { "-l -b -A", "-l -A -z", "-l -A -x", "-A -z", "-b -A", "-l -C -z", "-C -z" } do
    case("mo " .. o, o .. " -I src", "mo", { "mo" })
  end

  local function paths_of(c)
    local g = {}
    for _, name in ipairs(c.gmons) do g[#g + 1] = tp[name] or dir .. "/" .. name .. ".gmon" end
    return dir .. "/" .. c.exe, g
  end

  -- Every case of the list through lgprof, in one shell (one process each,
  -- in the spec's folder): c.lgprof = { out, err, rc }.
  local function run_lgprof()
    local lines = { "cd " .. q(dir) .. " || exit 1" }
    for i, k in ipairs(cases) do
      lines[#lines + 1] = ("%s %s >l.%d.out 2>l.%d.err </dev/null; echo $? >l.%d.rc"):format(
        cmd.LGPROF_CMD, util.qwords(k.args), i, i, i)
    end
    util.spit(dir .. "/lgprof.sh", table.concat(lines, "\n") .. "\n")
    assert(util.exec_ok("sh " .. q(dir .. "/lgprof.sh")), "running lgprof failed")
    for i, k in ipairs(cases) do
      local base = ("%s/l.%d."):format(dir, i)
      k.lgprof = { out = util.slurp(base .. "out") or "", err = util.slurp(base .. "err") or "",
                   rc = tonumber((util.slurp(base .. "rc") or ""):match("%d+")) }
    end
  end

  local gprof_results
  local function gprof_of(c)
    if not gprof_results then
      local runs, files, seen = {}, {}, {}
      local function file(p) if not seen[p] then seen[p] = true; files[#files + 1] = p end end
      for _, src in ipairs { "src/t.c", "src/a.c", "src/b.c", "src/h.h", "src/y.c", "src/h1.h", "src/h2.h", "src/p.cc",
                             "short/t.c", "empty/t.c", "nonl/t.c" } do
        file(dir .. "/" .. src)
      end
      for i, k in ipairs(cases) do
        local exe, gmons = paths_of(k)
        file(exe)
        for _, g in ipairs(gmons) do file(g) end
        local args = words(k.opts)
        args[#args + 1] = exe
        table.move(gmons, 1, #gmons, #args + 1, args)
        runs[i] = { args = args }
        k.args = args
      end
      gprof_results = oracle.gprof_many(dir, runs, files)
      for i, k in ipairs(cases) do k.gprof = gprof_results[i] end
      run_lgprof()
    end
    return c.gprof
  end

  for _, c in ipairs(cases) do
    it(c.label .. ": as gprof", function()
      if not ok_setup then pending("needs /usr/bin/gprof, gcc and g++") return end
      local g = gprof_of(c)
      local l = c.lgprof
      assert.equal(g.out, l.out)
      assert.equal(g.rc, l.rc)
      if c.fatal then -- lgprof's own wording for fatal errors: one line
        assert.equal(1, select(2, l.err:gsub("\n", "")))
      else
        assert.equal(norm_err(g.err), norm_err(l.err))
      end
    end)
  end
  assert(by_label["t out -b -A -I nowhere"], "the case list lost its missing-source case")

  -- Cases that write files or read the environment: both tools run in
  -- directories of their own (each holding `pre`: name -> text, or true for
  -- a folder), then their outputs and every file they leave are compared.
  -- "@" in opts and in GPROF_PATH (env) stands for the spec's folder.
  local function both(env, opts, exe, gmons, pre)
    local res = {}
    for _, who in ipairs { "gprof", "lgprof" } do
      local run = util.mktempdir("lgprof anno-run")
      for name, text in pairs(pre or {}) do
        if text == true then util.mkdir(run .. "/" .. name) else util.spit(run .. "/" .. name, text) end
      end
      local args = words(opts)
      for i, a in ipairs(args) do args[i] = a:gsub("@", function() return dir end) end
      args[#args + 1] = dir .. "/" .. exe
      for _, g in ipairs(gmons) do args[#args + 1] = g end
      local prog = who == "gprof" and cmd.GPROF_CMD or cmd.LGPROF_CMD
      local prefix = env and "GPROF_PATH=" .. q((env:gsub("@", function() return dir end))) .. " " or ""
      local status, out, err = cmd.shell(prefix .. prog .. " " .. util.qwords(args), { cwd = run })
      local files = {}
      for _, f in ipairs(util.ls(run)) do files[f] = util.slurp(run .. "/" .. f) or "(not a file)" end
      res[who] = { status = status, out = out, err = norm_err(err), files = files }
      util.rmtree(run)
    end
    assert.same(res.gprof, res.lgprof)
    return res.gprof
  end

  local SEPARATE = {
    { "-y -A", "t", { "out" } }, { "-y", "t", { "out" } }, { "-y -A -x", "t", { "bb" } },
    { "-y -A -p -b", "t", { "out" } }, { "-y -A", "m", { "m" } }, { "-y -A", "m2", { "m2" } },
    { "-y -A -I nonl", "t", { "out" } }, { "-y -A -C", "t", { "out" } },
    { "-s", "t", { "bb11" } }, { "-s -b -A", "t", { "bb" } }, { "-s", "t", { "bbonly" } },
    { "-s -C", "t", { "bb+bb0" } }, { "-l -y -A -x", "t", { "bbstart" } },
  }
  for _, s in ipairs(SEPARATE) do
    it(s[1] .. " on " .. s[2] .. ": the same files left (BASENAME-ann, gmon.sum)", function()
      if not ok_setup then pending("needs /usr/bin/gprof, gcc and g++") return end
      local gmons = s[3][1] == "m" and { dir .. "/m.gmon" } or s[3][1] == "m2" and { dir .. "/m2.gmon" }
        or s[3][1] == "bb+bb0" and { tp.bb, tp.bb0 } or { tp[s[3][1]] }
      local opts = s[1]:find("-I", 1, true) and s[1]:gsub("-I (%S+)", "-I @/%1") or s[1] .. " -I @/src"
      local r = both(nil, opts, s[2], gmons)
      if s[1]:find("-y -A", 1, true) or s[1]:find("-s", 1, true) then
        assert.truthy(next(r.files), "no file written")
      end
    end)
  end

  it("-y -A: an existing BASENAME-ann is truncated; one that cannot be created is reported and skipped",
    function()
      if not ok_setup then pending("needs /usr/bin/gprof, gcc and g++") return end
      both(nil, "-y -A -I @/src", "t", { tp.out }, { ["t.c-ann"] = string.rep("x", 5000) })
      local r = both(nil, "-y -A -I @/src", "m", { dir .. "/m.gmon" }, { ["b.c-ann"] = true })
      assert.truthy(r.err:find("b.c-ann: ", 1, true), r.err)
    end)

  it("profile:exec_counts and profile:annotate write what -C and -A print; bad options raise", function()
    if not ok_setup then pending("needs /usr/bin/gprof, gcc and g++") return end
    local lgprof = require "lgprof"
    local p = assert(lgprof.open(dir .. "/t", { tp.bb }, { granularity = "line" }))
    local f = assert(io.tmpfile())
    local e = assert(io.tmpfile())
    local first = p:exec_counts(f, { zeros = false })
    assert.is_false(first)
    assert.is_false(p:annotate(f, e, { dirs = { dir .. "/nowhere", dir .. "/src" }, all_lines = true,
      table_length = 3, min_count = -1, first_output = first }))
    f:seek("set")
    e:seek("set")
    local status, out = cmd.gprof({ "-l", "-C", "-A", "-x", "-t3", "-m-1", "-I", dir .. "/src", dir .. "/t", tp.bb })
    assert.equal(0, status)
    assert.equal(out, f:read("a"))
    assert.equal("", e:read("a"))
    assert.error_matches(function() p:annotate(f, e, { dirs = 3 }) end, "option 'dirs' must be a list")
    assert.error_matches(function() p:annotate(f, e, { table_length = "x" }) end, "table_length")
    assert.error_matches(function() p:exec_counts(f, { bogus = 1 }) end, "bogus")
    assert.error_matches(function() p:annotate(f) end, "bad argument #2")
    p:close()
  end)

  for _, e in ipairs { { "@/src", "-b -A" }, { "nowhere:@/src", "-b -A -I @/short" },
                       { "@/short", "-b -A -I @/src" }, { "", "-b -A" }, { "::@/src", "-C -A" } } do
    it("GPROF_PATH='" .. e[1] .. "' " .. e[2] .. ": the search list ends with GPROF_PATH", function()
      if not ok_setup then pending("needs /usr/bin/gprof, gcc and g++") return end
      both(e[1], e[2], "t", { tp.out })
    end)
  end
end)

describe("--format with -A or -C", function()
  for _, o in ipairs { "-A", "-C", "-Aleaf", "--exec-counts=main" } do
    it("--format=json " .. o .. ": refused, status 2", function()
      local status, out, err = cmd.lgprof({ "--format=json", o, "no-such-exe", "no-such-gmon" })
      cmd.expect({ status = 2, out = "", err = "lgprof: --format cannot be combined with -A or -C\n"
        .. "Try 'lgprof --help' for more information.\n" }, status, out, err)
    end)
  end
end)
