-- Behaviour unchanged by the restructuring (layers, option registry, one
-- encoder of each kind, stacks as data): bin/lgprof of this checkout against
-- bin/lgprof built from BASE, the last commit before it, over every export,
-- lgprof's own switches and modes and its usage errors, on every fixture
-- program (two variants). Each case runs in a folder of its own with both
-- commands; stdout, stderr, the exit status and every file the case writes
-- must be the same byte for byte.
--
-- gprof's own options (its option matrix, line mode, annotated source,
-- orderings, the static call graph, -s) were compared here too; they are
-- compared with GNU gprof itself, a stronger oracle than an old lgprof, by
-- the differential specs, so this spec no longer runs them: RETIRED lists
-- each such case with the spec that compares it with gprof, and a test
-- checks that the spec still holds that option string.
--
-- The changes made on purpose since BASE are listed in CHANGED with the
-- reason; their cases run with the switch that asks for the old behaviour
-- where there is one, else they are reported pending with the reason (never
-- passed). BASE is built once from `git archive` into build/unchanged/BASE
-- (kept for the next run); without git or without that commit (a shallow
-- clone), every case is pending with the reason.
local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd

local q = util.q

local BASE = "6d94129"

-- What changed on purpose since BASE: a Lua pattern matched against a case's
-- label, and why. (Cases are labelled by their arguments, "EXE" and "GMON"
-- standing for the files.)
local CHANGED = {
  { "^%-%-help", "--help and each mode's usage are generated from the option registry" },
  { "^check %-%-help", "--help and each mode's usage are generated from the option registry" },
  { "%-%-break%-cycles", "--break-cycles no longer prints [index] where gprof's report prints none" },
  { "%-%-format=json", "JSON schema version 4: a \"source\" field says gmon or perf.data" },
  { "^doctor", "the doctor no longer calls merged, summed and shared-library profiles wrong-image, "
      .. "and judges static-no-debug on the program's own units" },
  { "%-%-format=html", "the HTML page's #fN fragments name gprof's index; the doctor's findings it embeds changed" },
  { "^%-%-diff", "--diff's (new) and (gone) mean absent from that build's symbols, not idle in that run "
      .. "(a function both builds hold, with no sample or call in one run, is now common)" },
  -- (only for the program named: cxx_virtual's two destructors of geo::Circle,
  -- D0 and D1, share the demangled name; the old build gave a sampled one's
  -- frame the other one's calls and pprof one name for both. Whether a run
  -- samples ~Circle is luck, so the old output differed in some runs only.)
  { "^%-%-format=svg", "a C++ function that shares its demangled name with another (a destructor's D0 and D1)"
      .. " has its own calls in the flame graph's tooltip", program = "cxx_virtual" },
  { "^%-%-format=pprof", "a C++ function that shares its demangled name with another (a destructor's D0 and"
      .. " D1) has its own mangled name in pprof's functions", program = "cxx_virtual" },
}

-- Why a case changed on purpose (for the program prog; nil: for every one).
local function changed(label, prog)
  for _, c in ipairs(CHANGED) do
    if label:find(c[1]) and (c.program == nil or prog == nil or c.program == prog) then return c[2] end
  end
end

-- The cases this spec ran before, now compared with gprof by a differential
-- spec (the same option string there, with NAME/NAME2 or {FN}/{FN2} for the
-- heaviest functions), on at least the builds they ran on here:
--   gprof_diff_spec: every fixture program in all four variants (O0g-pie
--     and O2-nopie among them), with one and with three profiles;
--   gprof_lines_diff_spec: the line programs in every line variant and each
--     fixture program in one variant, turn about, one profile (and three for
--     every other combination);
--   gprof_static_spec: every fixture program in all four variants;
--   gprof_ordering_spec: each fixture program in one variant, turn about,
--     with one and with three profiles.
local RETIRED = {
  gprof_diff_spec = {
    "", "-b", "-p", "-q", "-P", "-Q", "-z", "-a", "-D", "-T", "-T -b", "-w 40 -b",
    "-w 120", "--no-demangle", "--demangle", "--demangle=gnu-v3",
    "-pNAME", "-qNAME", "-PNAME", "-QNAME",
    "-e NAME", "-E NAME", "-f NAME", "-F NAME", "-n NAME", "-N NAME2",
    "-k NAME2/NAME", "-k main/", "-z -b -a", "-i", "-O m -b", "-b -qmain/NAME",
    "-b -Q/NAME", "-T -z", "--brief", "--no-static", "--flat-profile=NAME", "--graph",
    "--no-graph", "--display-unused-functions", "--traditional", "--width=60", "--file-info",
    "--ignore-non-functions",
  },
  gprof_lines_diff_spec = {
    "-l -b", "-l -p", "-l -q -b", "-C", "-A", "-A -x", "-A -b", "-Z -A",
    "--inline-file-names -b", "-L --inline-file-names -b",
  },
  gprof_ordering_spec = { "-r" },
  -- (-s: one profile here, gmon.sum compared byte for byte; gprof_diff_spec
  -- compares -s on three profiles)
  gprof_static_spec = { "-c -b", "-s" },
}

-- The cases of one program: labels with EXE, GMON (the first profile), GMON2,
-- GMON3 (the others), NAME and NAME2 (its two heaviest functions).
local function cases()
  local list = {}
  local function add(s) list[#list + 1] = s end
  for _, s in ipairs {
    -- lgprof's own formats and switches
    "--format=text", "--format=text -b", "--format=json", "--format=csv", "--format=csv-arcs",
    "--format=callgrind", "--format=folded", "--format=dot", "--format=svg", "--format=pprof",
    "--format=speedscope", "--format=html", "--format=json --granularity=line",
    "--format=csv --granularity=line", "--format=callgrind --granularity=line",
    "--format=json -z", "--format=json --focus=NAME", "--format=folded --hide=NAME",
    "--format=text --top=3", "--format=dot --node-fraction=0.05",
    "--format=svg --inverted --title=T", "--static-arcs -b", "--annotate-lines",
    "--break-cycles -b",
    -- lgprof's modes
    "check --max-self=NAME=0.99", "check --max-self=.=0.01", "check --max-calls=NAME=1",
    "--diff GMON2 EXE GMON", "--diff GMON2 --max-growth=50% EXE GMON",
    "--diff GMON2 --confidence=0 EXE GMON", "doctor EXE GMON", "doctor --format=json EXE GMON",
    "merge -o merged.out EXE GMON GMON2 GMON3",
    -- errors
    "-w", "--format=nope", "check", "-x -y -q --bogus",
  } do
    add(s)
  end
  return list
end

-- The words of a case: the label's words, the files appended where the label
-- names none (gprof's [image [profiles]]).
local function words(label, files, name, name2)
  local w = {}
  local named = label:find("EXE", 1, true) ~= nil
  for word in label:gmatch("%S+") do
    word = word:gsub("NAME2", name2):gsub("NAME", name)
    if word == "EXE" then word = files.exe
    elseif word == "GMON" then word = files.gmon[1]
    elseif word == "GMON2" then word = files.gmon[2]
    elseif word == "GMON3" then word = files.gmon[3] end
    w[#w + 1] = word
  end
  if not named then
    w[#w + 1] = files.exe
    w[#w + 1] = files.gmon[1]
  end
  return w
end

-- bin/lgprof of BASE: built once into build/unchanged/BASE/; its path, or
-- nil and why not.
local function base_lgprof()
  local dir = fx.root .. "/build/unchanged/" .. BASE
  local bin = dir .. "/bin/lgprof"
  if util.exec_ok("test -x " .. q(bin)) then return bin end
  if not util.exec_ok("git -C " .. q(fx.root) .. " cat-file -e " .. BASE .. "^{commit} 2>/dev/null") then
    return nil, "commit " .. BASE .. " is not in this clone (a shallow clone?)"
  end
  local tmp = dir .. ".tmp"
  local script = table.concat({
    "rm -rf " .. q(tmp), "mkdir -p " .. q(tmp),
    "git -C " .. q(fx.root) .. " archive " .. BASE .. " | tar -x -C " .. q(tmp),
    -- (without optimisation or debugging information: its C is the same
    -- program, compiled in about half the CPU time, 12.6 s rather than 23 s)
    "make -C " .. q(tmp) .. " -j2 --no-print-directory CFLAGS=-O0 bin/lgprof >" .. q(tmp .. ".log") .. " 2>&1",
    "rm -rf " .. q(dir), "mv " .. q(tmp) .. " " .. q(dir),
  }, " && ")
  if not util.exec_ok(script) then
    return nil, "building " .. BASE .. " failed (see " .. tmp .. ".log)"
  end
  return bin
end

-- The words of a case for this checkout's command: lgprof's own formats,
-- --diff and check keep gcc's clones by default now, so they are asked for
-- gprof's rule, which BASE applied (the default itself: clones_spec).
local function now_words(argv)
  if argv[1] == "doctor" or argv[1] == "merge" then return argv end
  local own = argv[1] == "check"
  for _, w in ipairs(argv) do
    if w == "--diff" or (w:match("^%-%-format=") and w ~= "--format=gprof") then own = true end
  end
  if not own then return argv end
  local w = { table.unpack(argv) }
  table.insert(w, argv[1] == "check" and 2 or 1, "--clones=gprof")
  return w
end

-- Runs every case with the command lgprof in dir/WHO/N/ (one shell for all):
-- N.status, N.out, N.err in dir/WHO/, files written in N/.
local function run_all(dir, who, lgprof, argvs, transform)
  local lines = { "set +e" }
  for i, argv in ipairs(argvs) do
    if transform then argv = transform(argv) end
    local d = dir .. "/" .. who .. "/" .. i
    util.mkdir(d) -- (here, not by a mkdir process per case)
    lines[#lines + 1] = ("cd %s && { %s %s >../%d.out 2>../%d.err </dev/null; "
      .. "echo $? >../%d.status; }"):format(q(d), q(lgprof), util.qwords(argv), i, i, i)
  end
  util.spit(dir .. "/" .. who .. ".sh", table.concat(lines, "\n") .. "\n")
  assert(util.exec_ok("GPROF_PATH= sh " .. q(dir .. "/" .. who .. ".sh")))
end

-- This checkout's side of run_all: lgprof.cli.main in this process (the
-- function bin/lgprof runs), in each case's folder (helpers.differ), the
-- same files left; the first case through bin/lgprof itself. (A process
-- start costs this machine more than most of these runs.)
local function run_now(dir, argvs)
  -- (both sides run with GPROF_PATH empty: this process's can't be changed)
  if (os.getenv("GPROF_PATH") or "") ~= "" then return run_all(dir, "now", cmd.LGPROF, argvs, now_words) end
  local rest = {}
  for i = 2, #argvs do
    local d = dir .. "/now/" .. i
    util.mkdir(d)
    local r = H.differ.lgprof_inproc_in(d, now_words(argvs[i]))
    if not r then return run_all(dir, "now", cmd.LGPROF, argvs, now_words) end
    rest[i] = r
  end
  run_all(dir, "now", cmd.LGPROF, { argvs[1] }, now_words)
  for i = 2, #argvs do
    local base = ("%s/now/%d."):format(dir, i)
    util.spit(base .. "out", rest[i].out)
    util.spit(base .. "err", rest[i].err)
    util.spit(base .. "status", tostring(rest[i].rc) .. "\n")
  end
end

-- The files a case wrote (name -> bytes).
local function written(d)
  local files = {}
  for _, name in ipairs(util.ls(d)) do files[name] = util.slurp(d .. "/" .. name) end
  return files
end

local function first_difference(a, b)
  local n = 1
  while n <= #a and a:byte(n) == b:byte(n) do n = n + 1 end
  local line = select(2, a:sub(1, n):gsub("\n", "")) + 1
  local function around(s) return s:sub(math.max(1, n - 40), n + 40) end
  return ("first difference at byte %d (line %d):\n  before: %q\n  now:    %q"):format(n, line,
    around(a), around(b))
end

local VARIANTS = { "O0g-pie", "O2-nopie" }

describe("behaviour unchanged since " .. BASE .. " (before/after over the option matrix)", function()
  local old, why = nil, nil
  setup(function() old, why = base_lgprof() end)

  for _, prog in ipairs(fx.programs()) do
    for _, variant in ipairs(VARIANTS) do
      it(prog .. " " .. variant, function()
        if not old then return pending(why) end
        local b = assert(fx.build(prog, variant))
        local dir = util.mktempdir("lgprof-unchanged")
        local files = fx.snapshot(b, dir)
        local name, name2 = H.differ.heaviest(dir, files.exe, files.gmon[1], { files.exe, files.gmon[1] })
        local labels, argvs = {}, {}
        for _, label in ipairs(cases()) do
          if not changed(label, prog) then
            labels[#labels + 1] = label
            argvs[#argvs + 1] = words(label, files, name, name2)
          end
        end
        run_all(dir, "before", old, argvs)
        run_now(dir, argvs)
        local failures = {}
        for i, label in ipairs(labels) do
          for _, part in ipairs({ "status", "out", "err" }) do
            local a = util.slurp(("%s/before/%d.%s"):format(dir, i, part)) or ""
            local c = util.slurp(("%s/now/%d.%s"):format(dir, i, part)) or ""
            if a ~= c then
              failures[#failures + 1] = ("%s: %s differs, %s"):format(label, part, first_difference(a, c))
            end
          end
          local wa = written(("%s/before/%d"):format(dir, i))
          local wc = written(("%s/now/%d"):format(dir, i))
          for f, bytes in pairs(wa) do
            if wc[f] ~= bytes then failures[#failures + 1] = label .. ": file " .. f .. " differs" end
          end
          for f in pairs(wc) do
            if wa[f] == nil then failures[#failures + 1] = label .. ": writes " .. f .. " now" end
          end
        end
        util.rmtree(dir)
        assert(#labels > 20, "too few cases compared") -- (29 cases, less what CHANGED names)
        assert.equal("", table.concat(failures, "\n"))
      end)
    end
  end

  -- the cases compared with gprof instead
  for _, spec in ipairs { "gprof_diff_spec", "gprof_lines_diff_spec", "gprof_ordering_spec",
                          "gprof_static_spec" } do
    it("compares gprof's options with gprof itself in " .. spec .. ".lua, not here", function()
      local text = assert(util.slurp(fx.root .. "/spec/" .. spec .. ".lua"))
      local missing = {}
      for _, label in ipairs(RETIRED[spec]) do
        local there = spec == "gprof_diff_spec" and label or label:gsub("NAME", "{FN}")
        if not text:find('"' .. there .. '"', 1, true) then missing[#missing + 1] = there end
      end
      assert.are.same({}, missing)
    end)
  end

  -- the deliberate changes, not compared here (their own specs check them)
  for _, c in ipairs(CHANGED) do
    it("cases matching '" .. c[1] .. "'" .. (c.program and " of " .. c.program or "") .. " changed on purpose",
      function() pending(c[2]) end)
  end
end)
