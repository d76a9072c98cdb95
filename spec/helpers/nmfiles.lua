-- Files made by nm for the differential specs of -R, -S and their
-- combinations, and gprof run directly (not through helpers.oracle) where
-- its answer depends on its heap:
--   local nmf = require "helpers.nmfiles"
--   local obj, names, empty = nmf.objects(dir, built)
--   local maps = nmf.maps(obj, names, empty)        -- { name = text }
--   nmf.compare_all(dir, cases, what)               -- errors listing differences
local util = require "helpers.util"
local cmd = require "helpers.cmd"
local differ = require "helpers.differ"
local oracle = require "helpers.oracle"

local M = {}
local sq, exec_ok, read_cmd, spit = util.q, util.exec_ok, util.read_cmd, util.spit

local SOURCE_EXT = { c = true, cc = true, cpp = true, cxx = true, C = true }

-- Compiles the program's sources one by one into dir/obj (with the build's
-- compiler and flags) plus an empty C file; returns the object names, in
-- the sources' order, and the empty one's. The objects are compiled once per
-- build, kept in the build's folder (nm-objects/, with the commands that
-- made them) and copied: kept ones are used while the commands are the same
-- and each object is newer than every source (and header) of the build.
-- (What is made of them, nm's lists, does not depend on the folder they
-- were compiled in.) Under the build's lock, as the fixtures are built.
function M.objects(dir, built)
  local obj = util.mkdir(dir .. "/obj")
  local names, compile = {}, {}
  for _, s in ipairs(built.sources) do
    local base, ext = s:match("([^/]+)%.([^./]+)$")
    if base and SOURCE_EXT[ext] then
      names[#names + 1] = base .. ".o"
      compile[#compile + 1] = ("%s %s -c %s -o %s || exit 1"):format(built.compiler, built.flags, sq(s),
        sq(base .. ".o"))
    end
  end
  compile[#compile + 1] = "gcc -c zz_empty.c -o zz_empty.o || exit 1"
  local commands = table.concat(compile, "\n")
  local keep = built.dir .. "/nm-objects"
  local objects = util.qwords(names) .. " zz_empty.o"
  local fresh = { "[ \"$(cat commands 2>/dev/null)\" = " .. sq(commands) .. " ]" }
  for _, o in ipairs(names) do
    for _, s in ipairs(built.sources) do fresh[#fresh + 1] = "[ " .. sq(o) .. " -nt " .. sq(s) .. " ]" end
  end
  local script = table.concat({
    "if ! { cd " .. sq(keep) .. " 2>/dev/null && " .. table.concat(fresh, " && ") .. "; }; then",
    "  rm -rf " .. sq(keep) .. " && mkdir -p " .. sq(keep) .. " && cd " .. sq(keep) .. " || exit 1",
    "  printf '/* nothing */\\n' >zz_empty.c",
    commands,
    "  printf '%s' " .. sq(commands) .. " >commands",
    "fi",
    "cp " .. objects .. " " .. sq(obj) .. "/ && cp zz_empty.c " .. sq(obj) .. "/",
  }, "\n")
  local run = "sh -c " .. sq(script)
  if util.have("flock") then run = "flock " .. sq(built.dir .. "/.lock") .. " " .. run end
  assert(exec_ok(run), "compiling the objects failed")
  return obj, names, "zz_empty.o"
end

-- The map files, made by nm from the objects: { name = text }.
function M.maps(obj, names, empty)
  local objs = util.qwords(names)
  local function nm(args) return read_cmd("cd " .. sq(obj) .. " && " .. util.NM .. " " .. args .. " " .. objs) end
  local proper = nm("--extern-only --defined-only -v --print-file-name")
  assert(proper:match(":%x+ T "), "nm gave no text symbols:\n" .. proper)
  local all = nm("--defined-only -v --print-file-name")
  local lines = {}
  for line in all:gmatch("[^\n]+") do lines[#lines + 1] = line end
  table.sort(lines, function(x, y) -- by symbol name: a file's runs split
    local nx, ny = x:match("(%S+)$"), y:match("(%S+)$")
    if nx ~= ny then return nx < ny end
    return x < y
  end)
  local by_name = table.concat(lines, "\n") .. "\n"
  local none = "No symbols in " .. empty .. "\n"
  local first_file, first_fn = proper:match("^([^:\n]+):%x+ %a (%S+)")
  return {
    proper = proper,
    nm_A = nm("-A"),
    all_defined = all,
    by_name = by_name,
    no_symbols = none .. proper:gsub("\n", "\n" .. none, 1) .. "No symbols in " .. empty,
    indented = "  " .. proper:gsub("\n(.)", "\n   %1"),
    blank_lines = proper:gsub("\n", "\n\n"),
    no_final_newline = proper:gsub("\n$", ""),
    last_line_words = proper .. "foo bar",
    -- refused by gprof: a leading blank line, a line without a colon,
    -- "No symbols in" with a colon
    bad_blank_first = "\n" .. proper,
    bad_no_colon = "foo\n" .. proper,
    bad_no_symbols_colon = proper .. "No symbols in " .. empty .. ":\n",
    -- gprof crashes (SIGSEGV): an empty map, a field 2 without a space, a
    -- last line without colon or space
    crash_empty = "",
    crash_no_space = first_file .. ":" .. first_fn .. "\n",
    crash_last_word = proper .. "foo",
  }
end

M.CRASHES = { crash_empty = true, crash_no_space = true, crash_last_word = true }

-- gprof on every case, in dir, not through helpers.oracle: gprof -R reads
-- an uninitialised flag for the map entries after the first of a run (heap
-- memory: its answers change with MALLOC_PERTURB_); with MALLOC_PERTURB_=1
-- that memory mostly reads as 0, the map's own rule, which lgprof follows,
-- but not always: memory that realloc extends in place is not filled, and
-- keeps what freed blocks left there (on one profile out of many, one run
-- in several). So a case with -R is run a second time with the opposite
-- filling (MALLOC_PERTURB_=254: what malloc hands out reads as 1), as
-- g.N.alt: lgprof must print one of gprof's two answers. Each run is
-- bounded (CPU time, file size): gprof loops for ever on some inputs. (A
-- limit of CPU time, ulimit -t, rather than timeout(1) around each run: one
-- process start less a run, some 3,000 in a suite, and a loaded machine
-- cannot make a slow run look like a loop.)
local NO_END = { [124] = true, [128 + 9] = true, [128 + 24] = true, [128 + 25] = true } -- (timeout, SIGKILL, SIGXCPU, SIGXFSZ)
-- (Through helpers.oracle's server where it can: one server for each
-- filling, ulimit's limits inherited by each run.)
local LIMITS = "ulimit -c 0 && ulimit -f 100000 && ulimit -t 60"
function M.gprof_runs(dir, cases)
  local ones, alts, alt_of = {}, {}, {}
  for i, c in ipairs(cases) do
    ones[#ones + 1] = { args = c.args }
    if M.reads_map(c.args) then
      alts[#alts + 1] = { args = c.args }
      alt_of[i] = #alts
    end
  end
  local g_served = oracle.serve(dir, ones, { env = { MALLOC_PERTURB_ = "1" }, shell = LIMITS })
  local h_served = g_served
    and (#alts == 0 and {} or oracle.serve(dir, alts, { env = { MALLOC_PERTURB_ = "254" }, shell = LIMITS }))
  if not h_served then
    local lines = { "cd " .. sq(dir) .. " || exit 1", "unset GPROF_PATH", "ulimit -c 0",
                    "ulimit -f 100000", "ulimit -t 60" }
    for i, c in ipairs(cases) do
      lines[#lines + 1] = ("MALLOC_PERTURB_=1 %sgprof %s >g.%d.out 2>g.%d.err </dev/null; echo $? >g.%d.rc")
        :format(cmd.GPROF_PATH, util.qwords(c.args), i, i, i)
      if M.reads_map(c.args) then
        lines[#lines + 1] = ("MALLOC_PERTURB_=254 %sgprof %s >h.%d.out 2>h.%d.err </dev/null; echo $? >h.%d.rc")
          :format(cmd.GPROF_PATH, util.qwords(c.args), i, i, i)
      end
    end
    spit(dir .. "/gprof.sh", table.concat(lines, "\n") .. "\n")
    assert(exec_ok(cmd.NO_ASLR .. "sh " .. sq(dir .. "/gprof.sh")), "running gprof failed")
  end
  local g = {}
  for i = 1, #cases do
    g[i] = h_served and g_served[i] or differ.result(dir, "g", i)
    assert(not NO_END[g[i].rc], "gprof did not finish: " .. util.qwords(cases[i].args))
    if M.reads_map(cases[i].args) then
      g[i].alt = h_served and h_served[alt_of[i]] or differ.result(dir, "h", i)
    end
  end
  return g
end

--- Does a gprof command line read a map (-R MAP, --file-ordering)?
function M.reads_map(args)
  for _, a in ipairs(args) do
    if a == "-R" or a:match("^%-R.") or a:match("^%-%-file%-ordering") then return true end
  end
  return false
end

-- Runs the cases through both tools and fails listing every difference.
function M.compare_all(dir, cases, what)
  local g, l = M.gprof_runs(dir, cases), {}
  for i, c in ipairs(cases) do
    if c.spawn then
      assert(exec_ok(("cd %s && %s %s >l.%d.out 2>l.%d.err </dev/null; echo $? >l.%d.rc"):format(
        sq(dir), cmd.LGPROF_CMD, util.qwords(c.args), i, i, i)))
      l[i] = differ.result(dir, "l", i)
    else
      l[i] = differ.lgprof_inproc(c.args)
    end
  end
  local compared = 0
  for i = 1, #cases do
    if g[i].rc == 0 and #g[i].out > 0 then compared = compared + 1 end
  end
  assert(compared > 0, what .. ": gprof printed nothing in any case:\n" .. g[1].err)
  local failures, first = {}, nil
  for i, c in ipairs(cases) do
    local bad, diff
    if c.crash then
      -- gprof dies of a signal; lgprof says what is wrong with the map in one line
      if not (g[i].rc and g[i].rc >= 128) then
        bad = ("gprof did not crash (status %s): compare it instead"):format(tostring(g[i].rc))
      elseif not (l[i].rc == 1 and l[i].out == "" and
                  l[i].err:match("^lgprof: [^\n]*" .. c.crash:gsub("%p", "%%%0") .. ": [^\n]+\n$")) then
        bad = ("lgprof gave status %s, stderr %q"):format(tostring(l[i].rc), l[i].err)
      end
    elseif g[i].err:find("somebody miscounted", 1, true) then
      -- gprof gives up at line granularity (its two counts of line symbols
      -- differ, on some C++ programs at -O2): nothing to compare, lgprof
      -- must give its report
      if l[i].rc ~= 0 then
        bad = ("gprof miscounts, lgprof gave status %s: %s"):format(tostring(l[i].rc), l[i].err)
      end
    else
      bad, diff = differ.compare(dir, c.label, g[i], l[i], "c" .. i)
      -- gprof's other reading of its uninitialised flag (gprof_runs)
      if bad and g[i].alt and not differ.compare(dir, c.label, g[i].alt, l[i], "a" .. i) then
        bad, diff = nil, nil
      end
    end
    if bad then
      failures[#failures + 1] = ("  %s: %s"):format(c.label, bad)
      first = first or ("gprof " .. util.qwords(c.args) .. "\n" .. (diff or ""))
    end
  end
  if #failures > 0 then
    error(("%s: %d of %d comparisons differ:\n%s\n\nfirst difference: %s"):format(what, #failures,
      #cases, table.concat(failures, "\n"), first), 0)
  end
  return #cases
end

return M
