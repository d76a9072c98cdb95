-- Differential spec: ./bin/lgprof against GNU gprof 2.40 on every fixture
-- program, in every build variant, over a list of option sets.
--
-- For each (program, variant) one `it` runs every option set twice (with the
-- first profile alone and with the three profiles together) through both tools
-- and requires, for each run:
--   * stdout identical byte for byte;
--   * stderr identical once the leading program-name prefix of each line
--     ("gprof:" / "lgprof:") is set aside;
--   * the same exit status.
-- Every differing option set is listed in the failure message, followed by a
-- unified diff (diff -u) of the first difference.
--
-- gprof's answers are kept (helpers.oracle: keyed by gprof's binary, the
-- arguments and the files' bytes), so a warm run only runs lgprof; gprof's
-- runs of one variant go through a single shell script. lgprof's option sets
-- run in this process through lgprof.cli.main, the function the command runs,
-- with its output captured in temporary files: the command itself is run
-- (one process each) for the first option set and for every -s comparison.
-- gprof is run under the name "gprof" (argv[0] shows in its --help text and
-- messages). Without /usr/bin/gprof every test is reported pending, never
-- passed.

local H = require "helpers"
local fx, util, cmd, oracle, differ = H.fixtures, H.util, H.cmd, H.oracle, H.differ

local sq, exec_ok, slurp, spit = util.q, util.exec_ok, util.slurp, util.spit
local result, run_both, compare = differ.result, differ.run_both, differ.compare
local quote_args = util.qwords

-- run gprof as "gprof" (argv[0] appears in its usage text and messages)
local GPROF_CMD, LGPROF_CMD = cmd.GPROF_CMD, cmd.LGPROF_CMD

local function mktemp() return util.mktempdir("lgprof-diff") end

-- Raw names of the two heaviest functions (flat profile order), from
-- `gprof -b -p --no-demangle exe gmon.1.out`; "main" when there are fewer.
local function heaviest(b)
  local out = oracle.gprof_many(b.dir, { { args = { "-b", "-p", "--no-demangle", b.exe, b.gmon[1] } } },
    { b.exe, b.gmon[1] })[1].out
  local names, in_table = {}, false
  for line in out:gmatch("[^\n]+") do
    if line:match("^%s*time%s+seconds%s+seconds") then
      in_table = true
    elseif in_table and line:match("^%s*[%d.]+%s+[%d.]+%s+[%d.]+") then
      local l = line:gsub("%s+$", "")
      l = l:gsub("%s+%[%d+%]$", ""):gsub("%s+<cycle %d+>$", "")
      names[#names + 1] = l:match("(%S+)$")
      if #names == 2 then break end
    end
  end
  return names[1] or "main", names[2] or "main"
end

local split = util.fields

-- Option sets: { label, {args...} }.
local function option_sets(name, name2)
  local sets = {}
  local function add(s)
    s = s:gsub("NAME2", name2):gsub("NAME", name)
    sets[#sets + 1] = { label = s == "" and "(none)" or s, args = split(s) }
  end
  for _, s in ipairs {
    "", "-b", "-p", "-q", "-P", "-Q", "-z", "-a", "-D", "-T", "-T -b", "-w 40 -b",
    "-w 120", "--no-demangle", "--demangle", "--demangle=gnu-v3",
    "-pNAME", "-qNAME", "-PNAME", "-QNAME",
    "-e NAME", "-E NAME", "-f NAME", "-F NAME", "-n NAME", "-N NAME2",
    "-k NAME2/NAME", "-k main/", "-z -b -a", "-i", "-O m -b", "-b -qmain/NAME",
    "-b -Q/NAME", "-T -z",
    "--brief", "--no-static", "--flat-profile=NAME", "--graph", "--no-graph",
    "--display-unused-functions", "--traditional", "--width=60", "--file-info",
    "--ignore-non-functions",
  } do
    add(s)
  end
  return sets
end

-- Runs every case through both tools in dir (one shell, two parallel halves).
-- Case i leaves dir/{g,l}.i.{out,err,rc}.
local function run_cases(dir, cases)
  local g, l = {}, {}
  for i, c in ipairs(cases) do
    local a = quote_args(c.args)
    g[#g + 1] = ("%s %s >g.%d.out 2>g.%d.err </dev/null; echo $? >g.%d.rc"):format(
      GPROF_CMD, a, i, i, i)
    l[#l + 1] = ("%s %s >l.%d.out 2>l.%d.err </dev/null; echo $? >l.%d.rc"):format(
      LGPROF_CMD, a, i, i, i)
  end
  local script = "cd " .. sq(dir) .. " || exit 1\n(\n" .. table.concat(g, "\n")
    .. "\n) &\n(\n" .. table.concat(l, "\n") .. "\n)\nwait\n"
  spit(dir .. "/run.sh", script)
  assert(exec_ok("sh " .. sq(dir .. "/run.sh")), "running the comparison script failed")
end

local function check_variant(prog, variant)
  local built, err = fx.build(prog, variant)
  assert(built, err)
  local dir = mktemp()
  finally(function() util.rmtree(dir) end)
  -- copies, so a concurrent rebuild of the fixture cannot change them
  -- between the gprof and the lgprof runs
  local b = fx.snapshot(built, dir)
  local name, name2 = heaviest(b)

  local cases = {}
  for _, s in ipairs(option_sets(name, name2)) do
    local one, three = {}, {}
    for _, a in ipairs(s.args) do one[#one + 1] = a; three[#three + 1] = a end
    one[#one + 1] = b.exe; one[#one + 1] = b.gmon[1]
    three[#three + 1] = b.exe
    for k = 1, 3 do three[#three + 1] = b.gmon[k] end
    cases[#cases + 1] = { label = s.label .. " [1 profile]", args = one }
    cases[#cases + 1] = { label = s.label .. " [3 profiles]", args = three }
  end
  cases[1].spawn = true
  local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  local gres, lres = run_both(dir, cases, files)

  -- guard against a vacuous comparison (both tools failing the same way)
  local base = gres[1]
  assert(base.rc == 0 and #base.out > 0,
    ("gprof %s gave status %s and %d bytes of output:\n%s"):format(quote_args(cases[1].args),
      tostring(base.rc), #base.out, base.err))

  local failures, first_diff, first_cmd = {}, nil, nil
  for i, c in ipairs(cases) do
    local what, diff = compare(dir, c.label, gres[i], lres[i], "c" .. i)
    if what then
      failures[#failures + 1] = ("  %s: %s"):format(c.label, what)
      if not first_diff then
        first_diff = diff
        first_cmd = "gprof " .. quote_args(c.args) .. "  (and the same with lgprof)"
      end
    end
  end

  -- -s: each tool writes gmon.sum in its own directory (cwd).
  --   * `gprof -s` and `lgprof -s` themselves: same stdout, stderr, status;
  --   * lgprof's report on its gmon.sum equals gprof's report on gprof's
  --     gmon.sum, byte for byte (the same pipeline through either tool), and
  --     gprof reads lgprof's gmon.sum to the same report; lgprof reads gprof's
  --     gmon.sum to the same report too;
  --   * the gmon.sum files are the same bytes (the 12 spare header bytes,
  --     uninitialised in gprof, aside);
  --   * the reports on the sums equal the report on the three profiles.  This
  --     last one is compared as a multiset of lines: gprof itself reorders
  --     tied call-graph lines after -s (it writes the arcs normalised, so the
  --     arc order, the only tie-breaker left, changes), so byte equality does
  --     not hold even for gprof -b exe gmon.sum against gprof -b exe g1 g2 g3.
  -- (gprof through the oracle, its gmon.sum kept with its answer; lgprof in
  -- this process, in its folder)
  local gdir, ldir = dir .. "/sum-gprof", dir .. "/sum-lgprof"
  util.mkdirs({ gdir, ldir })
  local three = sq(b.exe) .. " " .. sq(b.gmon[1]) .. " " .. sq(b.gmon[2]) .. " " .. sq(b.gmon[3])
  local three_args = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  local gsum_path, lsum_path = gdir .. "/gmon.sum", ldir .. "/gmon.sum"
  local results = {}
  results.gs, results.ref = table.unpack(oracle.gprof_many(dir, {
    { args = { "-s", table.unpack(three_args) }, cwd = "sum-gprof", collect = "^gmon%.sum$" },
    { args = { "-b", table.unpack(three_args) } },
  }, files))
  if results.gs.files and results.gs.files["gmon.sum"] then spit(gsum_path, results.gs.files["gmon.sum"]) end
  results.ls = differ.lgprof_inproc_in(ldir, { "-s", table.unpack(three_args) })
  if not results.ls then -- (no LuaFileSystem: the command, in its folder)
    assert(exec_ok(("cd %s && %s -s %s >l.1.out 2>l.1.err </dev/null; echo $? >l.1.rc"):format(sq(ldir),
      LGPROF_CMD, three)))
    results.ls = result(ldir, "l", 1)
  end
  -- (gprof's gmon.sum is compared below, apart from its spare bytes)
  results.gs = { out = results.gs.out, err = results.gs.err, rc = results.gs.rc }
  -- gprof on either gmon.sum (one batch), lgprof on either
  local none = { out = "", err = "(no gmon.sum)", rc = -1 }
  local sums = {}
  for _, path in ipairs { gsum_path, lsum_path } do
    if util.slurp(path) then sums[#sums + 1] = path end
  end
  local on_sum = {}
  for k, r in ipairs(#sums > 0 and oracle.gprof_many(dir, {
    { args = { "-b", b.exe, sums[1] } }, sums[2] and { args = { "-b", b.exe, sums[2] } } or nil,
  }, { b.exe, table.unpack(sums) }) or {}) do
    on_sum[sums[k]] = r
  end
  results.gg, results.gl = on_sum[gsum_path] or none, on_sum[lsum_path] or none
  results.ll = on_sum[lsum_path] and differ.lgprof_inproc({ "-b", b.exe, lsum_path }) or none
  results.lg = on_sum[gsum_path] and differ.lgprof_inproc({ "-b", b.exe, gsum_path }) or none
  local function res(name) return results[name] end
  local G3 = "gprof -b exe g1 g2 g3"
  local GG = "gprof -b exe gmon.sum(by gprof -s)"
  local LL = "lgprof -b exe gmon.sum(by lgprof -s)"
  local GL = "gprof -b exe gmon.sum(by lgprof -s)"
  local LG = "lgprof -b exe gmon.sum(by gprof -s)"
  -- reproduction recipes (A and B: two empty directories)
  local mk = "(cd $A && gprof -s " .. three .. "); (cd $B && lgprof -s " .. three .. "); "
  local function recipe(c1, c2)
    return mk .. "diff -u <(" .. c1 .. ") <(" .. c2 .. ")"
  end
  local exe = sq(b.exe)
  local sum_checks = {
    { label = "-s [3 profiles]", a = res("gs"), b = res("ls"),
      cmd = "(cd $A && gprof -s " .. three .. ") vs (cd $B && lgprof -s " .. three .. ")" },
    { label = LL .. " vs " .. GG, a = res("gg"), b = res("ll"),
      la = GG, lb = LL,
      cmd = recipe("gprof -b " .. exe .. " $A/gmon.sum", "lgprof -b " .. exe .. " $B/gmon.sum") },
    { label = GL .. " vs " .. GG, a = res("gg"), b = res("gl"),
      la = GG, lb = GL,
      cmd = recipe("gprof -b " .. exe .. " $A/gmon.sum", "gprof -b " .. exe .. " $B/gmon.sum") },
    { label = LG .. " vs " .. GG, a = res("gg"), b = res("lg"),
      la = GG, lb = LG,
      cmd = recipe("gprof -b " .. exe .. " $A/gmon.sum", "lgprof -b " .. exe .. " $A/gmon.sum") },
    -- gprof's own summing can round a share differently from reading the
    -- three files (6.2 vs 6.3% seen): the two reports on the sums are then
    -- held to the three-file one up to that rounding (lgprof's is still held
    -- byte for byte to gprof's above); any other difference fails
    { label = GG .. " vs " .. G3 .. " (sorted lines)", a = res("ref"),
      b = res("gg"), la = G3, lb = GG, unordered = true, gprof_only = true,
      cmd = recipe("gprof -b " .. three .. " | sort", "gprof -b " .. exe .. " $A/gmon.sum | sort") },
    { label = LL .. " vs " .. G3 .. " (sorted lines)", a = res("ref"),
      b = res("ll"), la = G3, lb = LL, unordered = true, if_gprof_agrees = true,
      cmd = recipe("gprof -b " .. three .. " | sort", "lgprof -b " .. exe .. " $B/gmon.sum | sort") },
  }
  -- gprof against itself says nothing of lgprof, and how gprof's summed
  -- report differs depends on what the runs sampled (tied entries numbered
  -- the other way have been seen): when it differs beyond rounding, lgprof's
  -- report on its sum is held to gprof's on gprof's sum only (above)
  local gprof_rounds, gprof_differs = false, false
  for k, sc in ipairs(sum_checks) do
    local opts = { la = sc.la, lb = sc.lb, unordered = sc.unordered }
    local what, diff
    if not (sc.if_gprof_agrees and gprof_differs) then
      what, diff = compare(dir, sc.label, sc.a, sc.b, "sum" .. k, opts)
    end
    if what and (sc.gprof_only or (sc.if_gprof_agrees and gprof_rounds)) then
      -- the same comparison, now allowing a last digit rounded the other way
      opts.rounding = true
      what, diff = compare(dir, sc.label, sc.a, sc.b, "sum" .. k, opts)
      if sc.gprof_only and not what then gprof_rounds = true end
    end
    if what and sc.gprof_only then
      gprof_differs, what = true, nil
    end
    if what then
      failures[#failures + 1] = ("  %s: %s"):format(sc.label, what)
      if not first_diff then first_diff, first_cmd = diff, sc.cmd end
    end
  end
  -- the files themselves: the same bytes, apart from the 12 spare header bytes
  -- (gprof leaves them uninitialised)
  local gbytes = slurp(gdir .. "/gmon.sum")
  local lbytes = slurp(ldir .. "/gmon.sum")
  if not lbytes or #lbytes == 0 then
    failures[#failures + 1] = "  -s [3 profiles]: lgprof wrote no gmon.sum"
  elseif gbytes and (gbytes:sub(1, 8) ~= lbytes:sub(1, 8) or gbytes:sub(21) ~= lbytes:sub(21)) then
    local at = 1
    while at <= math.max(#gbytes, #lbytes) and gbytes:byte(at) == lbytes:byte(at) do
      at = at + 1
    end
    failures[#failures + 1] = ("  -s [3 profiles]: gmon.sum differs from gprof's (%d vs %d bytes,"
      .. " first difference at byte offset %d)"):format(#gbytes, #lbytes, at - 1)
    if not first_diff then
      first_diff = "(binary files; compare with cmp -l)\n"
      first_cmd = "(cd $A && gprof -s " .. three .. "); (cd $B && lgprof -s " .. three
        .. "); cmp $A/gmon.sum $B/gmon.sum"
    end
  end

  if #failures > 0 then
    -- name the fixture files where they stay (the snapshot is removed)
    first_cmd = (first_cmd or ""):gsub(dir:gsub("%p", "%%%0"), built.dir)
    error(("%s/%s: %d of %d comparisons differ (NAME=%s, NAME2=%s):\n%s\n\nfirst difference (%s):\n%s")
      :format(prog, variant, #failures, #cases + #sum_checks + 1, name, name2,
        table.concat(failures, "\n"), first_cmd, first_diff or ""), 0)
  end
end

for _, prog in ipairs(fx.programs()) do
  describe("gprof vs lgprof: " .. prog, function()
    for _, variant in ipairs(fx.variants) do
      it(variant, function()
        if not cmd.HAVE_GPROF then return pending("gprof not installed") end
        check_variant(prog, variant)
      end)
    end
  end)
end

-- (--help and -h show lgprof's own usage: spec/messages_spec.lua)
describe("gprof vs lgprof: information options", function()
  for _, args in ipairs { { "-v" }, { "--version" } } do
    it(table.concat(args, " ") .. " prints the same text on stdout", function()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      local dir = mktemp()
      finally(function() util.rmtree(dir) end)
      run_cases(dir, { { label = args[1], args = args } })
      local g, l = result(dir, "g", 1), result(dir, "l", 1)
      assert.are.equal(g.out, l.out)
      assert.are.equal(g.rc, l.rc)
      assert.is_true(#g.out > 0)
    end)
  end
end)
