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
-- All runs of one variant go through a single shell script (gprof's half and
-- lgprof's half in parallel), so the whole spec stays fast.  gprof is run
-- under the name "gprof" (argv[0] shows in its --help text and messages).
-- Without /usr/bin/gprof every test is reported pending, never passed.

local fx = require "helpers.fixtures"

local ROOT = fx.root
local LGPROF = ROOT .. "/bin/lgprof"
local GPROF = "/usr/bin/gprof"
local sq = fx.shquote

local function exec_ok(cmd)
  local r = os.execute(cmd)
  return r == true or r == 0
end

local HAVE_GPROF = exec_ok("test -x " .. sq(GPROF))
-- run gprof as "gprof" (argv[0] appears in its usage text and messages)
local GPROF_CMD = "PATH=" .. sq("/usr/bin:" .. (os.getenv("PATH") or "/bin")) .. " gprof"
local LGPROF_CMD = sq(LGPROF)

local function read_cmd(cmd)
  local p = assert(io.popen(cmd, "r"))
  local s = p:read("a")
  p:close()
  return s
end

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function mktemp()
  local d = read_cmd("mktemp -d " .. sq((os.getenv("TMPDIR") or "/tmp") .. "/lgprof-diff.XXXXXX"))
  d = d:gsub("%s+$", "")
  assert(d ~= "", "mktemp failed")
  return d
end

local function rmtree(d)
  if d and d:match("^/.+/lgprof%-diff%.") then os.execute("rm -rf " .. sq(d)) end
end

-- The leading program name of each stderr line may differ.
local function norm_err(s)
  s = s or ""
  local out = {}
  for line in (s .. "\n"):gmatch("(.-)\n") do
    out[#out + 1] = (line:gsub("^lgprof:", "PROG:"):gsub("^gprof:", "PROG:"))
  end
  return table.concat(out, "\n")
end

local function udiff(dir, tag, a, b, la, lb)
  local fa, fb = dir .. "/" .. tag .. ".gprof", dir .. "/" .. tag .. ".lgprof"
  spit(fa, a)
  spit(fb, b)
  local d = read_cmd("diff -u --label " .. sq(la) .. " --label " .. sq(lb) .. " "
    .. sq(fa) .. " " .. sq(fb) .. " 2>&1")
  if #d > 6000 then d = d:sub(1, 6000) .. "\n... (diff truncated)\n" end
  return d
end

-- Raw names of the two heaviest functions (flat profile order), from
-- `gprof -b -p --no-demangle exe gmon.1.out`; "main" when there are fewer.
local function heaviest(b)
  local out = read_cmd(GPROF_CMD .. " -b -p --no-demangle " .. sq(b.exe) .. " "
    .. sq(b.gmon[1]) .. " 2>/dev/null")
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

local function split(s)
  local t = {}
  for w in s:gmatch("%S+") do t[#t + 1] = w end
  return t
end

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

local function quote_args(args)
  local q = {}
  for i, a in ipairs(args) do q[i] = sq(a) end
  return table.concat(q, " ")
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

local function result(dir, who, i)
  return {
    out = slurp(("%s/%s.%d.out"):format(dir, who, i)) or "",
    err = slurp(("%s/%s.%d.err"):format(dir, who, i)) or "",
    rc = tonumber((slurp(("%s/%s.%d.rc"):format(dir, who, i)) or ""):match("%d+")),
  }
end

-- Compares one gprof result with one lgprof result; returns nil when equal,
-- else a short description and a diff.
local function compare(dir, label, g, l, tag)
  local what = {}
  local diff
  if g.out ~= l.out then
    what[#what + 1] = "stdout"
    diff = udiff(dir, tag .. ".stdout", g.out, l.out, "gprof " .. label .. " (stdout)",
      "lgprof " .. label .. " (stdout)")
  end
  local ge, le = norm_err(g.err), norm_err(l.err)
  if ge ~= le then
    what[#what + 1] = "stderr"
    diff = diff or udiff(dir, tag .. ".stderr", ge, le, "gprof " .. label .. " (stderr)",
      "lgprof " .. label .. " (stderr)")
  end
  if g.rc ~= l.rc then
    what[#what + 1] = ("exit status %s vs %s"):format(tostring(g.rc), tostring(l.rc))
    diff = diff or ("exit status: gprof %s, lgprof %s\n"):format(tostring(g.rc), tostring(l.rc))
  end
  if #what == 0 then return nil end
  return table.concat(what, ", "), diff
end

local function check_variant(prog, variant)
  local b, err = fx.build(prog, variant)
  assert(b, err)
  local name, name2 = heaviest(b)
  local dir = mktemp()
  finally(function() rmtree(dir) end)

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
  run_cases(dir, cases)

  local failures, first_diff, first_cmd = {}, nil, nil
  for i, c in ipairs(cases) do
    local what, diff = compare(dir, c.label, result(dir, "g", i), result(dir, "l", i), "c" .. i)
    if what then
      failures[#failures + 1] = ("  %s: %s"):format(c.label, what)
      if not first_diff then
        first_diff = diff
        first_cmd = "gprof " .. quote_args(c.args)
      end
    end
  end

  -- -s: each tool writes gmon.sum in its own directory; reports on the sums
  -- must equal the report on the three profiles.
  local gdir, ldir = dir .. "/sum-gprof", dir .. "/sum-lgprof"
  assert(exec_ok("mkdir -p " .. sq(gdir) .. " " .. sq(ldir)))
  local three = sq(b.exe) .. " " .. sq(b.gmon[1]) .. " " .. sq(b.gmon[2]) .. " " .. sq(b.gmon[3])
  local script = table.concat({
    "cd " .. sq(gdir) .. " && " .. GPROF_CMD .. " -s " .. three
      .. " >s.out 2>s.err </dev/null; echo $? >s.rc",
    "cd " .. sq(ldir) .. " && " .. LGPROF_CMD .. " -s " .. three
      .. " >s.out 2>s.err </dev/null; echo $? >s.rc",
    "cd " .. sq(dir),
    GPROF_CMD .. " -b " .. three .. " >ref.out 2>ref.err; echo $? >ref.rc",
    GPROF_CMD .. " -b " .. sq(b.exe) .. " " .. sq(gdir .. "/gmon.sum")
      .. " >gsum.out 2>gsum.err; echo $? >gsum.rc",
    LGPROF_CMD .. " -b " .. sq(b.exe) .. " " .. sq(ldir .. "/gmon.sum")
      .. " >lsum.out 2>lsum.err; echo $? >lsum.rc",
    GPROF_CMD .. " -b " .. sq(b.exe) .. " " .. sq(ldir .. "/gmon.sum")
      .. " >xsum.out 2>xsum.err; echo $? >xsum.rc",
  }, "\n") .. "\n"
  spit(dir .. "/sum.sh", script)
  assert(exec_ok("sh " .. sq(dir .. "/sum.sh")), "running the -s script failed")
  local function res(prefix)
    return {
      out = slurp(prefix .. ".out") or "", err = slurp(prefix .. ".err") or "",
      rc = tonumber((slurp(prefix .. ".rc") or ""):match("%d+")),
    }
  end
  local sum_checks = {
    { "-s " .. "[3 profiles]", res(gdir .. "/s"), res(ldir .. "/s"),
      "gprof -s " .. three },
    { "gprof -b exe gmon.sum(gprof) vs gprof -b exe g1 g2 g3", res(dir .. "/ref"),
      res(dir .. "/gsum"), "gprof -b exe gmon.sum (written by gprof -s)" },
    { "lgprof -b exe gmon.sum(lgprof) vs gprof -b exe g1 g2 g3", res(dir .. "/ref"),
      res(dir .. "/lsum"), "lgprof -b exe gmon.sum (written by lgprof -s)" },
    { "gprof -b exe gmon.sum(lgprof) vs gprof -b exe g1 g2 g3", res(dir .. "/ref"),
      res(dir .. "/xsum"), "gprof -b exe gmon.sum (written by lgprof -s)" },
  }
  for k, sc in ipairs(sum_checks) do
    local what, diff = compare(dir, sc[1], sc[2], sc[3], "sum" .. k)
    if what then
      failures[#failures + 1] = ("  %s: %s"):format(sc[1], what)
      if not first_diff then first_diff, first_cmd = diff, sc[4] end
    end
  end
  if not exec_ok("test -s " .. sq(ldir .. "/gmon.sum")) then
    failures[#failures + 1] = "  -s [3 profiles]: lgprof wrote no gmon.sum"
  end

  if #failures > 0 then
    error(("%s/%s: %d of %d comparisons differ (NAME=%s, NAME2=%s):\n%s\n\nfirst difference (%s):\n%s")
      :format(prog, variant, #failures, #cases + #sum_checks, name, name2,
        table.concat(failures, "\n"), first_cmd, first_diff or ""), 0)
  end
end

for _, prog in ipairs(fx.programs()) do
  describe("gprof vs lgprof: " .. prog, function()
    for _, variant in ipairs(fx.variants) do
      it(variant, function()
        if not HAVE_GPROF then
          pending("gprof not installed")
          return
        end
        check_variant(prog, variant)
      end)
    end
  end)
end

describe("gprof vs lgprof: information options", function()
  for _, args in ipairs { { "--help" }, { "-h" }, { "-v" } } do
    it(table.concat(args, " ") .. " prints the same text on stdout", function()
      if not HAVE_GPROF then
        pending("gprof not installed")
        return
      end
      local dir = mktemp()
      finally(function() rmtree(dir) end)
      run_cases(dir, { { label = args[1], args = args } })
      local g, l = result(dir, "g", 1), result(dir, "l", 1)
      assert.are.equal(g.out, l.out)
      assert.are.equal(g.rc, l.rc)
      assert.is_true(#g.out > 0)
    end)
  end
end)
