-- Build and run the -pg fixture programs in spec/fixtures/progs/.
--
--   local fixtures = require "helpers.fixtures"
--   for _, name in ipairs(fixtures.programs()) do ... end
--   local fx, err = fixtures.build("classic", "O0g-nopie")
--   -- fx.exe, fx.gmon[1..3], fx.dir, fx.sources
--
-- Each program lives in its own directory spec/fixtures/progs/<name>/ (.c, .cc, .cpp,
-- .cxx sources plus optional headers).  It is compiled into
-- build/fixtures/<name>/<variant>/<name> and run three times there with the run
-- number (1, 2, 3) as argv[1]; each run's gmon.out is renamed gmon.<run>.out.
-- Results are cached: nothing is redone while the executable and the three
-- profiles exist and are newer than the sources, and the build was made by the
-- same compile command (the first line of its build.log): changing this file
-- rebuilds only the builds whose command it changes (FIXTURES_FORCE=1 for a
-- change to how the programs are run).
-- opts.force (or FIXTURES_FORCE=1 in the environment) rebuilds and reruns anyway.
-- Concurrent builds of the same program/variant are serialised with flock(1).
-- Failures (compiler missing or failing, non-zero exit, no gmon.out) give nil, message;
-- the build directory keeps build.log and run.<n>.log.
-- Headers in spec/fixtures/progs/ itself (shared by several programs) count as
-- sources of every program.
--
-- The programs of line mode and annotated source (gprof -l, -A, -C) live in
-- spec/fixtures/lines/<name>/ instead, so that the specs iterating over
-- programs() do not build them: line_programs() lists them, and the specs
-- built on them take line_variants (-g at -O0 and -O2, PIE and not).
-- build() finds a name in either directory. A program listed in MOVED is
-- compiled from copies of its sources in <build dir>/orig/, which is then
-- renamed <build dir>/src/: the paths in its DWARF name files that no longer
-- exist, and gprof finds the sources only through -I (fx.src_dir).
-- A program listed in LAYOUT is built from a top folder, <build dir>/tree/top,
-- as projects are built (gcc -c sub/m.c): its sources are copied into the
-- tree and named relative to the top folder (or by their absolute path), so
-- DWARF names them relative to the compilation directory; fx.src_dir is the
-- folder of its first source. line_variants_of() adds DWARF 4 variants.
--
-- What a -pg run samples varies: what a spec needs of a build's profiles
-- beyond "they exist" is listed in needs() below, and a cached build that
-- fails it is run again and, if it never passes, deleted, so no later run of
-- the suite inherits it.

local util = require "helpers.util"

local M = {}

M.variants = { "O0g-pie", "O0g-nopie", "O2-pie", "O2-nopie" }
M.line_variants = { "O0g-pie", "O2g-pie", "O2g-nopie" }

local OPT_FLAGS = {
  O0g = "-O0 -g -pg", O2 = "-O2 -pg", O2g = "-O2 -g -pg",
  O0g4 = "-O0 -gdwarf-4 -pg", O2g4 = "-O2 -gdwarf-4 -pg",
}
local MOVED = { lmoved = true }
-- Where each source goes under tree/: a folder of the top folder ("." is the
-- top folder itself, named "./m.c"), "../x" (a sibling of it), or "/" (tree/abs,
-- named by its absolute path). include: a folder of the top folder given
-- with -I (the build's flags name it by its absolute path, for compiling
-- its sources elsewhere); map: the top folder's name in DWARF
-- (-fdebug-prefix-map), a relative one here.
local LAYOUT = {
  lrel = { include = "inc", dirs = {
    ["main.c"] = "sub", ["h.h"] = "sub", ["i.h"] = "inc", ["o.c"] = ".", ["p.c"] = "../x", ["q.c"] = "/",
  } },
  lreldot = { include = ".", map = ".", dirs = { ["d.c"] = "src", ["e.c"] = ".", ["f.h"] = "sub" } },
}
local PIE_FLAGS = { pie = "-fPIE -pie", nopie = "-fno-pie -no-pie" }
local C_EXT = { c = true }
local CXX_EXT = { cc = true, cpp = true, cxx = true, ["c++"] = true, C = true }
local HDR_EXT = { h = true, hh = true, hpp = true, hxx = true }
local NRUNS = 3 -- the run loop in start() is written for exactly 3

local shquote = util.q
M.shquote = shquote

local read_cmd, exec_ok = util.read_cmd, util.exec_ok

local function normalize(path)
  local parts = {}
  for seg in path:gmatch("[^/]+") do
    if seg == ".." then
      if #parts > 0 then parts[#parts] = nil end
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  return "/" .. table.concat(parts, "/")
end

local function dirname(path)
  return (path:match("^(.*)/[^/]*$")) or "."
end

-- Repository root, found from this file's own location (spec/helpers/fixtures.lua).
local function find_root()
  local src = debug.getinfo(1, "S").source
  assert(src:sub(1, 1) == "@", "fixtures.lua: cannot determine its own path")
  local path = src:sub(2)
  if path:sub(1, 1) ~= "/" then
    local cwd = read_cmd("pwd")
    cwd = cwd and cwd:gsub("%s+$", "") or os.getenv("PWD") or "."
    path = cwd .. "/" .. path
  end
  path = normalize(path)
  return dirname(dirname(dirname(path))), path
end

local ROOT = find_root()
M.root = ROOT
M.progs_dir = ROOT .. "/spec/fixtures/progs"
M.lines_dir = ROOT .. "/spec/fixtures/lines"
M.build_dir = ROOT .. "/build/fixtures"

local function ext_of(file)
  return file:match("%.([^./]+)$")
end

-- The folders of spec/fixtures/ are listed once per process (every spec
-- file that requires this module lists them all at load time: a shell and
-- an ls each were some hundred processes per spec file).
local listed = {}
local function list_dir(dir)
  if not listed[dir] then listed[dir] = util.ls(dir) end
  return listed[dir]
end

-- (opening "PATH/" succeeds for a folder only: no shell)
local function is_dir(path)
  local f = io.open(path .. "/")
  if f then f:close() end
  return f ~= nil
end

-- Headers shared by the programs: spec/fixtures/progs/*.h
local function shared_headers()
  local all = {}
  for _, f in ipairs(list_dir(M.progs_dir)) do
    local e = ext_of(f)
    if e and HDR_EXT[e] then all[#all + 1] = M.progs_dir .. "/" .. f end
  end
  return all
end

-- The directory holding a program's sources, and whether it is a line program.
local function program_dir(name)
  if is_dir(M.progs_dir .. "/" .. name) then return M.progs_dir .. "/" .. name, false end
  if is_dir(M.lines_dir .. "/" .. name) then return M.lines_dir .. "/" .. name, true end
  return nil
end

-- Sources of one program: { all = {abs...}, compile = {abs...}, cxx = bool }
local function program_sources(name)
  local dir, line = program_dir(name)
  local all, compile, cxx = line and {} or shared_headers(), {}, false
  for _, f in ipairs(list_dir(dir)) do
    local e = ext_of(f)
    if e and (C_EXT[e] or CXX_EXT[e] or HDR_EXT[e]) then
      local abs = dir .. "/" .. f
      all[#all + 1] = abs
      if C_EXT[e] then
        compile[#compile + 1] = { path = abs, lang = "c" }
      elseif CXX_EXT[e] then
        compile[#compile + 1] = { path = abs, lang = "c++" }
        cxx = true
      end
    end
  end
  return { all = all, compile = compile, cxx = cxx }
end

local function programs_in(top)
  local names = {}
  for _, n in ipairs(list_dir(top)) do
    if not n:match("^%.") and is_dir(top .. "/" .. n) and #program_sources(n).compile > 0 then
      names[#names + 1] = n
    end
  end
  table.sort(names)
  return names
end

--- Sorted list of fixture program names.
function M.programs() return programs_in(M.progs_dir) end

--- Sorted list of the line-mode fixture programs (spec/fixtures/lines/).
function M.line_programs() return programs_in(M.lines_dir) end

--- The variants a spec over every line variant builds a line program in:
-- line_variants, and DWARF 4 ones for a program built from a top folder.
function M.line_variants_of(name)
  if not LAYOUT[name] then return M.line_variants end
  local list = { table.unpack(M.line_variants) }
  list[#list + 1], list[#list + 2] = "O0g4-pie", "O2g4-nopie"
  return list
end

-- A LAYOUT program's source (its path in the fixtures): its copy in the
-- build's tree, and the name it is compiled by (nil for a header).
local function layout_place(layout, dir, path)
  local base = path:match("[^/]+$")
  local where = assert(layout.dirs[base], "fixtures: LAYOUT does not place " .. base)
  local copy = where == "/" and dir .. "/tree/abs/" .. base
    or (where == "../x" and dir .. "/tree/x/" .. base)
    or dir .. "/tree/top/" .. (where == "." and "" or where .. "/") .. base
  local named = where == "/" and copy or (where == "." and "./" or where .. "/") .. base
  return copy, named
end

--- Compiler flags of a variant ("-O0 -g -pg -fno-pie -no-pie"), or nil.
function M.flags(variant)
  local opt, pie = tostring(variant):match("^([^-]+)%-(.+)$")
  if not (opt and OPT_FLAGS[opt] and PIE_FLAGS[pie]) then return nil end
  return OPT_FLAGS[opt] .. " " .. PIE_FLAGS[pie]
end

local tool_cache = {}
local function have_tool(tool)
  if tool_cache[tool] == nil then
    tool_cache[tool] = exec_ok("command -v " .. shquote(tool) .. " >/dev/null 2>&1")
  end
  return tool_cache[tool]
end

local function read_file(path, max)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  if max and #s > max then s = "...\n" .. s:sub(-max) end
  return s
end

-- The shell command running script under the lock of the build in dir
-- (when flock(1) exists).
local function under_lock(dir, script)
  local command = "sh -c " .. shquote(script)
  if have_tool("flock") then command = "flock " .. shquote(dir .. "/.lock") .. " " .. command end
  return command
end

-- A whole build, seen without a shell: its stamp (written after the third
-- run, removed first by a rebuild) names the same compile command, the
-- executable and the profiles are there, and every source is older than the
-- executable by a whole second (lfs gives seconds). Anything else, and the
-- build script decides under the build's lock, as before. (Four to five
-- process starts a call, and the specs call build() per test.)
local have_lfs, lfs = pcall(require, "lfs")
local function up_to_date(dir, exe, gmon, sources, stamp)
  if not have_lfs or (os.getenv("FIXTURES_FORCE") or "") ~= "" then return false end
  if read_file(dir .. "/built.stamp") ~= stamp then return false end
  local t = lfs.attributes(exe, "modification")
  if not t then return false end
  for _, g in ipairs(gmon) do
    if (lfs.attributes(g, "size") or 0) == 0 then return false end
  end
  for _, f in ipairs(sources) do
    local ts = lfs.attributes(f, "modification")
    if not ts or ts >= t then return false end
  end
  return true
end

-- Start one build (asynchronously, through io.popen). Returns a job table or nil, msg.
local function start(name, variant, opts)
  opts = opts or {}
  if type(name) ~= "string" or name == "" or name:find("/", 1, true) or name:match("^%.") then
    return nil, "fixtures: bad program name " .. tostring(name)
  end
  local flags = M.flags(variant)
  if not flags then
    return nil, "fixtures: unknown variant " .. tostring(variant)
      .. " (expected one of " .. table.concat(M.variants, ", ") .. ")"
  end
  if not program_dir(name) then
    return nil, "fixtures: no such program " .. name .. " in " .. M.progs_dir .. " or " .. M.lines_dir
  end
  local src = program_sources(name)
  if #src.compile == 0 then
    return nil, "fixtures: program " .. name .. " has no C/C++ sources"
  end
  local cc = src.cxx and "g++" or "gcc"
  if not have_tool(cc) then
    return nil, "fixtures: " .. cc .. " not found in PATH (install it: apt-get install "
      .. cc .. ")"
  end

  local dir = M.build_dir .. "/" .. name .. "/" .. variant
  local exe = dir .. "/" .. name
  local gmon = {}
  for r = 1, NRUNS do gmon[r] = dir .. "/gmon." .. r .. ".out" end

  -- compile command (a MOVED program: from copies in orig/, renamed src/
  -- after; a LAYOUT one: from copies in tree/, in tree/top)
  local moved, layout = MOVED[name], LAYOUT[name]
  local cmd = { cc, flags, "-o", shquote(exe .. ".tmp") }
  if layout then
    cmd[#cmd + 1] = "-I" .. layout.include
    flags = flags .. " " .. shquote("-I" .. dir .. "/tree/top/" .. layout.include)
    if layout.map then
      cmd[#cmd + 1] = shquote("-fdebug-prefix-map=" .. dir .. "/tree/top=" .. layout.map)
    end
  end
  for _, s in ipairs(src.compile) do
    if src.cxx then cmd[#cmd + 1] = "-x " .. s.lang end
    local path = s.path
    if moved then path = dir .. "/orig/" .. s.path:match("[^/]+$") end
    if layout then path = select(2, layout_place(layout, dir, s.path)) end
    cmd[#cmd + 1] = shquote(path)
  end
  local compile = table.concat(cmd, " ")
  local copy, rename = "true", "true"
  if moved then
    copy = "rm -rf orig src && mkdir orig && cp " .. util.qwords(src.all) .. " orig/"
    rename = "mv orig src"
  end
  local sources, src_dir = src.all, nil
  if layout then
    local steps = { "rm -rf tree" }
    sources = {}
    for k, s in ipairs(src.all) do
      sources[k] = layout_place(layout, dir, s)
      steps[#steps + 1] = "mkdir -p " .. shquote(dirname(sources[k])) .. " && cp " .. shquote(s)
        .. " " .. shquote(sources[k])
    end
    copy = table.concat(steps, " && ")
    compile = "(cd " .. shquote(dir .. "/tree/top") .. " && " .. compile .. ")"
    src_dir = dirname(layout_place(layout, dir, src.compile[1].path))
  elseif moved then
    src_dir, sources = dir .. "/src", {}
    for k, s in ipairs(src.all) do sources[k] = src_dir .. "/" .. s:match("[^/]+$") end
  end

  -- up-to-date test: outputs exist, made by the same compile command, exe
  -- newer than every source, every profile newer than the exe
  local fresh = { "[ -z \"${FIXTURES_FORCE:-}\" ]", "[ -f " .. shquote(exe) .. " ]",
    "[ \"$(head -n 1 build.log 2>/dev/null)\" = " .. shquote("$ " .. compile) .. " ]" }
  if moved then fresh[#fresh + 1] = "[ -d src ] && [ ! -e orig ]" end
  if layout then fresh[#fresh + 1] = "[ -d tree ]" end
  for _, d in ipairs(src.all) do
    fresh[#fresh + 1] = "[ " .. shquote(exe) .. " -nt " .. shquote(d) .. " ]"
  end
  for _, g in ipairs(gmon) do
    fresh[#fresh + 1] = "[ -s " .. shquote(g) .. " ] && [ " .. shquote(g) .. " -nt "
      .. shquote(exe) .. " ]"
  end

  local script = table.concat({
    "cd " .. shquote(dir) .. " || exit 90",
    "if " .. table.concat(fresh, " && ") .. "; then [ -f built.stamp ] || echo '$ '"
      .. shquote(compile) .. " >built.stamp; exit 0; fi",
    "rm -f " .. shquote(exe) .. " " .. shquote(exe .. ".tmp") .. " gmon.out gmon.*.out run.*.log built.stamp",
    "echo '$ '" .. shquote(compile) .. " >build.log",
    copy .. " || exit 91",
    compile .. " >>build.log 2>&1 || { echo 'compilation failed' >>build.log; exit 91; }",
    rename .. " || exit 91",
    "mv -f " .. shquote(exe .. ".tmp") .. " " .. shquote(exe) .. " || exit 91",
    "unset GMON_OUT_PREFIX",
    "for r in 1 2 3; do",
    "  rm -f gmon.out",
    "  ./" .. shquote(name) .. " \"$r\" >run.$r.log 2>&1 </dev/null; rc=$?",
    "  if [ $rc -ne 0 ]; then echo \"run $r exited with status $rc\" >>build.log;"
      .. " cat run.$r.log >>build.log; exit 92; fi",
    "  if [ ! -s gmon.out ]; then echo \"run $r produced no gmon.out\" >>build.log; exit 93; fi",
    "  mv -f gmon.out gmon.$r.out || exit 93",
    "done",
    "echo '$ '" .. shquote(compile) .. " >built.stamp",
    "exit 0",
  }, "\n")

  if not opts.force and up_to_date(dir, exe, gmon, src.all, "$ " .. compile .. "\n") then
    return { done = 0, name = name, variant = variant, dir = dir, exe = exe, gmon = gmon,
      sources = sources, src_dir = src_dir, compiler = cc, flags = flags,
      relative = layout ~= nil and layout.map ~= nil or nil }
  end
  local body = under_lock(dir, script)
  if opts.force then body = "FIXTURES_FORCE=1 " .. body end
  -- the exit status travels in the output (io.popen's close() loses it on Lua 5.1)
  local shell = "{ if mkdir -p " .. shquote(dir) .. "; then " .. body
    .. "; else (exit 90); fi; } 2>&1; echo \"__fixtures_rc=$?\""

  local p = io.popen(shell, "r")
  if not p then return nil, "fixtures: cannot start shell" end
  return {
    pipe = p, name = name, variant = variant, dir = dir, exe = exe, gmon = gmon,
    sources = sources, src_dir = src_dir, compiler = cc, flags = flags,
    relative = layout ~= nil and layout.map ~= nil or nil,
  }
end

local FAIL = {
  [90] = "cannot create/enter build directory",
  [91] = "compilation failed",
  [92] = "program exited with non-zero status",
  [93] = "program did not produce gmon.out",
}

-- Wait for a job started by start(); returns the result table or nil, msg.
local function finish(job)
  if job.done then
    return {
      name = job.name, variant = job.variant, dir = job.dir, exe = job.exe,
      gmon = job.gmon, sources = job.sources, src_dir = job.src_dir, compiler = job.compiler,
      flags = job.flags, relative = job.relative,
    }
  end
  local out = job.pipe:read("*a") or ""
  job.pipe:close()
  local code = tonumber(out:match("__fixtures_rc=(%d+)%s*$"))
  out = out:gsub("__fixtures_rc=%d+%s*$", "")
  if code ~= 0 then
    local what = FAIL[code] or ("build script failed (status " .. tostring(code) .. ")")
    local log = read_file(job.dir .. "/build.log", 3000) or ""
    return nil, string.format("fixtures: %s/%s: %s\n%s%s", job.name, job.variant, what,
      out or "", log)
  end
  return {
    name = job.name, variant = job.variant, dir = job.dir, exe = job.exe,
    gmon = job.gmon, sources = job.sources, src_dir = job.src_dir, compiler = job.compiler,
    flags = job.flags, relative = job.relative,
  }
end

-- Runs a shell command under the build's lock; did it succeed?
local function locked(b, command)
  return exec_ok(under_lock(b.dir, command))
end

--- Deletes a build's profiles (under its lock), so that the next build of
-- it, in this run or a later one, compiles and runs the program again.
function M.discard(b)
  locked(b, "rm -f " .. util.qwords({ b.exe, table.unpack(b.gmon) }))
end

-- What the specs need of some builds' profiles, beyond their existence,
-- kept here rather than in each spec: every build of that program and
-- variant, by any spec, must pass all of them. A build that some spec would
-- reject and rebuild could otherwise be rebuilt under another spec, running
-- in another process (make test runs spec files in parallel), while that
-- one reads it. Each is a helpers.profile.sampled range (percent of every
-- run's samples) or a function(build) -> true | nil, why.
-- Made on first use (helpers.profile loads lgprof), then kept.
local needs_table
local function needs()
  if needs_table then return needs_table end
  local prof = require "helpers.profile"
  local function b_heavy(b)
    -- the dot spec draws b with c through it: b's total over 5% of the graph
    local lgprof = require "lgprof"
    local p <close> = assert(lgprof.open(b.exe, b.gmon, { no_graph = { "b" } }))
    local fb = assert(p:find("b"))
    return fb.total / p.print_time > 0.05, "b has too little time"
  end
  local every_run = prof.every_run
  local has_samples = every_run(function(p)
    return p.total_time > 0, "no sample"
  end)
  local a_work_children = every_run(function(p)
    -- the examples spec's callers.lua charges main with a_work's children
    local fn = assert(p:find("a_work"))
    return fn.children > 0, "a_work has no children time"
  end)
  local function runs_differ(b)
    local lgprof = require "lgprof"
    local selfs = {}
    for run, gmon in ipairs(b.gmon) do
      local p <close> = assert(lgprof.open(b.exe, gmon))
      for fn in p:symbols() do
        local s = selfs[fn.address] or {}
        s[run], selfs[fn.address] = fn.flat_self, s
      end
    end
    for _, s in pairs(selfs) do
      if (s[1] or 0) ~= (s[2] or 0) or (s[1] or 0) ~= (s[3] or 0) then return true end
    end
    return nil, "every function has the same self time in every run"
  end
  needs_table = {
    -- gates put thresholds 0.001 around c's share: c sampled, and not alone
    ["classic/O0g-nopie"] = { prof.sampled({ c = { 10, 99 } }), b_heavy },
    -- the gmon formats spec's run 1 has samples
    ["classic/O0g-pie"] = { has_samples },
    -- the diff spec: some function's self time varies, run 1 has samples
    ["cycles/O0g-nopie"] = { has_samples, runs_differ },
    -- README's `hotspots.lua ... 0.4   # exit 3`: helper above 40% self
    ["readme/O0g-pie"] = { prof.sampled({ helper = 41 }) },
    ["samename/O0g-nopie"] = { a_work_children },
    ["selfrec/O0g-nopie"] = { prof.sampled({ fib = 1 }) },
  }
  return needs_table
end

--- The accept check of a program and variant's needs (nil when it has none).
local function accept_check(name, variant)
  local list = needs()[name .. "/" .. variant]
  if not list then return nil end
  return function(b)
    for _, f in ipairs(list) do
      local ok, why = f(b)
      if not ok then return nil, why end
    end
    return true
  end
end

--- Build (or reuse) one program in one variant.
-- opts.force = true rebuilds and reruns even if the cache is fresh.
-- A build of a program and variant listed in needs() that fails them is run
-- again, up to 3 times in all; when none passes, its profiles are deleted
-- (see discard) and build returns nil, why.
-- Returns { exe=, gmon={g1,g2,g3}, dir=, sources={...}, name=, variant=, compiler=, flags=,
-- src_dir= (a MOVED program: where its sources are now; a LAYOUT one: its
-- first source's folder), relative= (true: DWARF names its sources relative
-- to the working directory) }
-- or nil, message.
function M.build(name, variant, opts)
  opts = opts or {}
  local accept = accept_check(name, variant)
  local tries, why = accept and 3 or 1, nil
  local o = { force = opts.force }
  for try = 1, tries do
    local job, err = start(name, variant, o)
    if not job then return nil, err end
    local b, ferr = finish(job)
    if not b then return nil, ferr end
    local ok = true
    if accept then ok, why = accept(b) end
    if ok then return b end
    if try == tries then M.discard(b) end
    o.force = true
  end
  return nil, ("fixtures: %s/%s: no usable profiles in %d builds: %s"):format(name, variant,
    tries, tostring(why))
end

--- Copies a build's executable and profiles into dir under the build's lock,
-- so that a concurrent rebuild (another spec run) cannot change them while a
-- spec compares two tools on them. Returns { exe=, gmon={...}, dir= } there.
function M.snapshot(b, dir)
  -- (flock runs cp itself: no shell between them)
  local copy = "cp -p " .. util.qwords({ b.exe, table.unpack(b.gmon) }) .. " " .. shquote(dir)
  if have_tool("flock") then copy = "flock " .. shquote(b.dir .. "/.lock") .. " " .. copy end
  assert(exec_ok(copy), "cannot copy the fixture files into " .. dir)
  local s = { exe = dir .. "/" .. b.exe:match("[^/]+$"), gmon = {}, dir = dir }
  for k, g in ipairs(b.gmon) do s.gmon[k] = dir .. "/" .. g:match("[^/]+$") end
  return s
end

--- The profile of one run of a build (default: run 1) as gmonwriter decodes
-- it, and its bytes.
function M.gmon_data(b, run)
  local gw = require "helpers.gmonwriter"
  local bytes = gw.read(b.gmon[run or 1])
  return gw.decode(bytes), bytes
end

local function nproc()
  local out = read_cmd("nproc 2>/dev/null")
  local n = tonumber(out and out:match("%d+"))
  return (n and n > 0) and n or 2
end

--- Build every program in every listed variant (default: all variants), running
-- up to opts.jobs (default: nproc) builds in parallel.
-- Returns a list (program-major order) of
--   { name=, variant=, result=<build table or nil>, err=<message or nil> }
-- plus a second value: the number of failures.
function M.build_all(variant_list, opts)
  opts = opts or {}
  variant_list = variant_list or M.variants
  local jobs_max = opts.jobs or nproc()
  local todo = {}
  for _, name in ipairs(opts.programs or M.programs()) do
    for _, v in ipairs(variant_list) do
      todo[#todo + 1] = { name = name, variant = v }
    end
  end
  local results, running, failures = {}, {}, 0
  local function reap()
    local entry = table.remove(running, 1)
    if entry.job then
      entry.rec.result, entry.rec.err = finish(entry.job)
      -- a build with needs is checked (and redone) as M.build does it
      if entry.rec.result and needs()[entry.rec.name .. "/" .. entry.rec.variant] then
        entry.rec.result, entry.rec.err = M.build(entry.rec.name, entry.rec.variant)
      end
    end
    if not entry.rec.result then failures = failures + 1 end
  end
  for i, t in ipairs(todo) do
    while #running >= jobs_max do reap() end
    local rec = { name = t.name, variant = t.variant }
    results[i] = rec
    local job, err = start(t.name, t.variant, opts)
    rec.err = err
    running[#running + 1] = { job = job, rec = rec }
  end
  while #running > 0 do reap() end
  return results, failures
end

return M
