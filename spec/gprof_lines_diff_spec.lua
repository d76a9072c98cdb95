-- Differential spec of gprof's line-level and source modes: lgprof against
-- GNU gprof 2.40 on the same files, byte for byte (stdout, stderr once the
-- program name that starts its lines is set aside, exit status, and the
-- FILE-ann files -y writes), for
--   * every option of line mode, annotated source and execution counts alone
--     (-l, --inline-file-names, -A[SPEC], -J[SPEC], -I, -x, -y, -L, -t, -m,
--     -C[SPEC], -Z[SPEC], -s with a report) and in combinations with each
--     other and with the function-level options (COMBOS);
--   * over the line programs (spec/fixtures/lines: split and alternating
--     lines, recursion, inlining, C++ templates in a header, the h.h/a.c/b.c
--     pair whose a.c has no final newline, sources moved away from their
--     DWARF path, programs built from a top folder with names relative to it:
--     sub/m.c, ./o.c, ../x/p.c, an absolute one, a header through -Iinc, and a
--     compilation directory mapped to ".") in every line variant (-O0 -g,
--     -O2 -g, -O2 -g -no-pie; those built from a top folder also in DWARF 4), and
--     the function-level programs (spec/fixtures/progs) in one of their
--     variants each, turn about, so every variant is met;
--   * with one and with three profiles; over profiles written here from a
--     real one plus basic-block records (tag 2, versions 1 and 0, two records
--     that add up, eleven blocks in one function, a block outside every
--     symbol, a blocks-only profile) and over a header-only profile (-z).
-- Where gprof gives up at line granularity with "somebody miscounted" (its
-- count of line symbols goes wrong on some C++ programs at -O2), nothing can
-- be compared: lgprof must then succeed (or fail on bad input, in one line).
-- Cases that write files (-y, -s) run in working directories of their own,
-- one for each tool; lgprof runs in this process (lgprof.cli.main), in the
-- case's working directory, or in the comparison's directory when DWARF names
-- files relative to the working directory, as gprof does; the first case of
-- each build runs the command itself.
-- gprof's answers are kept in build/gprof-cache (helpers.oracle).
-- Every differing case is listed in the failure message, followed by a
-- unified diff of the first difference. Without /usr/bin/gprof every test is
-- reported pending, never passed.

local H = require "helpers"
local fx, util, cmd, oracle, differ, gw = H.fixtures, H.util, H.cmd, H.oracle, H.differ, H.gmonwriter

local sq, exec_ok, quote_args = util.q, util.exec_ok, util.qwords

-- Each option alone. {FN}, {FN2}: the two heaviest functions (raw names);
-- {SRC}: the directory holding the program's sources now.
local SINGLES = {
  "-l", "--line", "--inline-file-names",
  "-A", "-A{FN}", "--annotated-source", "--annotated-source={FN}",
  "-J", "-J{FN}", "--no-annotated-source={FN}",
  "-I {SRC}", "--directory-path={SRC}", "-x", "--all-lines", "-y", "--separate-files",
  "-L", "--print-path", "-t 3", "--table-length=3", "-m 2", "--min-count=2",
  "-C", "-C{FN}", "--exec-counts", "--exec-counts={FN}", "-Z", "-Z{FN}", "--no-exec-counts={FN}",
  "-s -p", "-s -q",
}

-- Combinations with each other and with the function-level options. {FL}: the
-- FILE:LINE of the heaviest line (gprof -b -l -p's first row).
local COMBOS = {
  "-l -b", "-l -b -p", "-l -b -q", "-l -P", "-l -Q -b", "-l -b -p{FN}", "-l -b -p{FL}", "-l -b -q{FN}",
  "-l -b -P{FN}", "-l -b -Q{FN}", "-l -b -qmain/{FN}", "-l -b -Q/{FN}", "-l -z -b", "-l -a -b",
  "-l -D -b", "-l -T -b", "-l -T", "-l -w 60 -b", "-l -b -e {FN}", "-l -b -E {FN}", "-l -b -f {FN}",
  "-l -b -F {FN}", "-l -b -k {FN2}/{FN}", "-l -b -n {FN}", "-l -b -N {FN}", "-l --no-demangle -b",
  "-l --demangle -b -p", "-l -L -b", "-l --inline-file-names -b", "--inline-file-names -b",
  "--inline-file-names -b -T", "-l -A", "-l -A -x", "-A -x", "-A -m0 -t1", "-A -m 400 -t0",
  "-A -m abc", "-A -t -3", "-p -A", "-b -A -C", "-l -C", "-l -C -z", "-C -z", "-A -z",
  "-l -A -x -y", "-A -y -I {SRC}", "-A -I {SRC} -L", "-A -I{SRC}:/nonexistent",
  "-A -I /nonexistent: -I {SRC}", "-b -J{FN} -A", "-l -A{FN} -x", "-l -b -C{FN}", "-l -Z{FN}",
  "-l -b -i", "-s -l -b -q", "-l -b -a -z", "--line --brief --flat-profile={FN}",
  "-l -b -p -q -A -C -y", "-b -q -p{FN} -A --inline-file-names", "-l -b -p -Z -C",
  "-l -A -y -I ../../src", -- relative to the working directory: DIR/src, a copy of {SRC}
  "-l -p", "-l -q -b", "-A -b", "-Z -A", "-L --inline-file-names -b",
}

-- On the profiles with basic-block records.
local BB_SETS = {
  "", "-l", "-l -C", "-l -C -z", "-l -A", "-l -A -x", "-l -A -x -m0", "-C", "-A", "-l -b -p",
  "-l -b -q", "-i", "-l -A -y", "-s -l -b -p", "-l -C{FN}",
}

-- On the header-only profile.
local EMPTY_SETS = { "", "-z", "-C", "-z -C", "-l -z", "-l -z -C", "-z -p", "-A -z", "-z -A -x", "-s -z" }

-- gprof's message where its line symbols' count goes wrong.
local MISCOUNTED = "somebody miscounted"

-- Options whose runs write files into the working directory.
local WRITES = { ["-y"] = true, ["--separate-files"] = true, ["-s"] = true }

local function mktemp() return util.mktempdir("lgprof-lines") end

-- FILE:LINE of gprof -b -l -p's first row with one ("main" when none).
-- (Asked with the heaviest functions' run, in one server of gprof.)
local function heaviest_line(dir, b, files)
  local out = oracle.gprof_many(dir, {
    { args = { "-b", "-p", "--no-demangle", b.exe, b.gmon[1] } },
    { args = { "-b", "-l", "-p", b.exe, b.gmon[1] } },
  }, files)[2].out
  local file, line = out:match("%(([^%s():]+):(%d+) @ %x+%)")
  return file and file .. ":" .. line or "main"
end

-- The profiles with basic-block records, made from run 1's profile and the
-- addresses of its arcs (call sites and callees, so they fall in lines with
-- code), written into dir. Returns { name = path }.
local function bb_profiles(dir, b)
  local data = fx.gmon_data(b, 1)
  local blocks, eleven = {}, {}
  for k, a in ipairs(data.arcs) do
    if k > 8 then break end
    blocks[#blocks + 1] = { addr = a.from, count = a.count * 2 + k }
    blocks[#blocks + 1] = { addr = a.to, count = a.count }
  end
  local first = data.arcs[1]
  if first then
    -- eleven distinct addresses before one call site: one slot too many
    for k = 0, 10 do eleven[#eleven + 1] = { addr = first.from - k, count = 100 + k } end
  end
  blocks[#blocks + 1] = { addr = 0x10, count = 5 } -- outside every symbol
  local again = {}
  for k = 1, math.min(3, #blocks) do again[k] = { addr = blocks[k].addr, count = 1000 } end
  local v1 = { hist = data.hist, arcs = data.arcs,
               bb = { { blocks = blocks }, { blocks = eleven }, { blocks = again } } }
  local paths = {
    bb1 = dir .. "/gmon.bb1", bb0 = dir .. "/gmon.bb0", bbonly = dir .. "/gmon.bbonly",
    empty = dir .. "/gmon.empty",
  }
  gw.write(paths.bb1, v1)
  gw.write(paths.bb0, v1, { version = 0 })
  gw.write(paths.bbonly, { bb = { { blocks = blocks } } })
  gw.write(paths.empty, {})
  return paths
end

-- The cases of one build: { label, args, cwd, lcwd, collect }.
local function build_cases(dir, b, sets, subst)
  local cases, dirs = {}, {}
  local function add(text, profiles, tag)
    -- (placeholders are put in each word: a path may hold blanks)
    local args = util.fields(text)
    for k, a in ipairs(args) do args[k] = a:gsub("{(%w+)}", subst) end
    local writes = false
    for _, a in ipairs(args) do writes = writes or WRITES[a] or false end
    args[#args + 1] = b.exe
    for _, p in ipairs(profiles) do args[#args + 1] = p end
    local c = { label = (text == "" and "(none)" or text) .. " [" .. tag .. "]", args = args }
    if writes then
      -- two sibling directories, so relative paths mean the same in both
      local n = #cases + 1
      c.cwd, c.lcwd, c.collect = "g/" .. n, "l/" .. n, "%-ann$"
      dirs[#dirs + 1], dirs[#dirs + 2] = dir .. "/" .. c.cwd, dir .. "/" .. c.lcwd
    end
    cases[#cases + 1] = c
  end
  for _, set in ipairs(sets) do
    for k, text in ipairs(set.list) do
      add(text, set.profiles, set.tag)
      if set.three and k % 2 == 1 then add(text, set.three, "3 profiles") end
    end
  end
  util.mkdirs(dirs)
  return cases
end

local function check(prog, variant, with_synth)
  if not cmd.HAVE_GPROF then return pending("gprof not installed") end
  local built = assert(fx.build(prog, variant))
  local dir = mktemp()
  finally(function() util.rmtree(dir) end)
  local b = fx.snapshot(built, dir)
  local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  for _, s in ipairs(built.sources) do files[#files + 1] = s end
  local src = built.src_dir or built.sources[1]:match("^(.*)/[^/]*$")
  assert(exec_ok("cp -R " .. sq(src) .. " " .. sq(dir .. "/src")))
  local fl = heaviest_line(dir, b, files)
  local fn, fn2 = differ.heaviest(dir, b.exe, b.gmon[1], files)
  local subst = { FN2 = fn2, FN = fn, FL = fl, SRC = src }

  local sets = {
    { list = { "-l" }, profiles = { b.gmon[1] }, tag = "1 profile, the command" },
    { list = SINGLES, profiles = { b.gmon[1] }, tag = "1 profile" },
    { list = COMBOS, profiles = { b.gmon[1] }, tag = "1 profile", three = b.gmon },
  }
  if with_synth then
    local p = bb_profiles(dir, b)
    for _, k in ipairs { "bb1", "bb0", "bbonly", "empty" } do files[#files + 1] = p[k] end
    sets[#sets + 1] = { list = BB_SETS, profiles = { p.bb1 }, tag = "bb records v1" }
    sets[#sets + 1] = { list = BB_SETS, profiles = { p.bb0 }, tag = "bb records v0" }
    sets[#sets + 1] = { list = BB_SETS, profiles = { p.bbonly }, tag = "bb records only" }
    sets[#sets + 1] = { list = EMPTY_SETS, profiles = { p.empty }, tag = "header only" }
  end
  local cases = build_cases(dir, b, sets, subst)
  cases[1].spawn = true
  -- names relative to the working directory: lgprof runs in dir, as gprof
  for _, c in ipairs(built.relative and cases or {}) do c.indir = true end
  local g, l = differ.run_both(dir, cases, files)

  -- guard against a vacuous comparison (both tools failing the same way)
  local compared = 0
  for i = 1, #cases do
    if g[i].rc == 0 and #g[i].out > 0 then compared = compared + 1 end
  end
  assert(compared > 0, ("gprof %s gave status %s and %d bytes, and no case did better:\n%s")
    :format(quote_args(cases[1].args), tostring(g[1].rc), #g[1].out, g[1].err))

  local failures, first_diff, first_cmd = {}, nil, nil
  for i, c in ipairs(cases) do
    local what, diff
    if g[i].err:find(MISCOUNTED, 1, true) then
      -- (or reports bad input as it would without the miscount: -p without a histogram)
      local bad_input = l[i].rc == 1 and l[i].err:match("^lgprof: [^\n]+\n$")
      if l[i].rc ~= 0 and not bad_input then
        what, diff = ("gprof miscounts, lgprof gave status %s"):format(tostring(l[i].rc)), l[i].err
      end
    else
      what, diff = differ.compare(dir, c.label, g[i], l[i], "c" .. i)
    end
    if what then
      failures[#failures + 1] = ("  %s: %s"):format(c.label, what)
      if not first_diff then
        first_diff = diff
        first_cmd = (c.cwd and "(in an empty directory) " or "") .. "gprof " .. quote_args(c.args)
      end
    end
  end
  if #failures > 0 then
    first_cmd = first_cmd:gsub(dir:gsub("%p", "%%%0"), built.dir)
    error(("%s/%s: %d of %d comparisons differ (FN=%s, FN2=%s, FL=%s):\n%s\n\nfirst difference (%s):\n%s")
      :format(prog, variant, #failures, #cases, fn, fn2, subst.FL, table.concat(failures, "\n"),
        first_cmd, first_diff or ""), 0)
  end
end

for _, prog in ipairs(fx.line_programs()) do
  describe("gprof vs lgprof, line modes: " .. prog, function()
    for _, variant in ipairs(fx.line_variants_of(prog)) do
      it(variant, function() check(prog, variant, true) end)
    end
  end)
end

-- the function-level programs: one variant each, turn about (they are
-- built in every variant already), and the profiles with blocks every
-- other one
for k, prog in ipairs(fx.programs()) do
  local variant = fx.variants[(k - 1) % #fx.variants + 1]
  describe("gprof vs lgprof, line modes: " .. prog, function()
    it(variant, function() check(prog, variant, k % 2 == 0) end)
  end)
end
