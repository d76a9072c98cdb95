-- Runs programs for the specs (bin/lgprof, lua5.4 with the checkout's modules,
-- GNU gprof as the oracle, any other command) and captures status, stdout, stderr.
--
--   local cmd = require "helpers.cmd"
--   local status, out, err = cmd.lgprof({ "check", "--max-self=^c$=0.5", exe, gmon })
--   local status, out, err = cmd.lua({ "report.lua", exe, gmon })
--   local status, out, err = cmd.gprof({ "-b", exe, gmon })   -- the oracle
--   assert.equal(0, status, cmd.show(status, out, err))
--
-- Every word is shell-quoted: paths may hold spaces, dashes and quotes.
-- opts.cwd: where to run (default: the checkout); opts.prefix: shell text put
-- before the command (ulimit, timeout, VAR=value ...); opts.timeout: seconds.
local fx = require "helpers.fixtures"
local util = require "helpers.util"

local M = {}
local q = util.q
M.ROOT = fx.root
M.GPROF = "/usr/bin/gprof"
M.HAVE_GPROF = util.have(M.GPROF)

--- The build directory whose lgprof/core.so the specs load: $LGPROF_BUILD
-- (make test-asan) or the checkout's build/.
M.BUILD = os.getenv("LGPROF_BUILD")
if not M.BUILD or M.BUILD == "" then M.BUILD = M.ROOT .. "/build" end

--- The command the specs run: the executable `make` builds, bin/lgprof, or
-- under LGPROF_BUILD (make test-asan) the one built there, BUILD/bin/lgprof.
M.LGPROF = os.getenv("LGPROF_BUILD") and M.BUILD ~= M.ROOT .. "/build"
  and M.BUILD .. "/bin/lgprof" or M.ROOT .. "/bin/lgprof"

--- The compiler line for the C test programs that link the core's library
-- (M.CORE_LIB): under make test-asan (LGPROF_SANITIZER) with the sanitizers
-- the library was built with, which it needs to link.
M.CORE_CC = "cc -std=c99 -Wall -Wextra -Werror -O1 -g -D_POSIX_C_SOURCE=200809L"
  .. (os.getenv("LGPROF_SANITIZER") and " -fsanitize=address,undefined -fno-omit-frame-pointer" or "")
M.CORE_LIB = M.BUILD .. "/liblgprof-core.a"
--- The libraries the core's library needs that not every build has
-- (libdeflate): the Makefile writes them next to it.
M.CORE_EXTRA_LIBS = (util.slurp(M.BUILD .. "/liblgprof-core.libs") or ""):gsub("%s+$", "")

--- Compiles the C test program src (a path) against the core's library into
-- exe (with the core's headers and the libraries it needs); raises with the
-- compiler's output when that fails.
-- Each program is compiled once per build folder, into
-- BUILD/spec-tools/<name>/, and copied to exe: several spec files use the
-- same one (perfstacks.c four). The folder's stamp is the compile command
-- with a digest of the source, the library and the core's headers; the
-- output does not depend on the path it is written to (the copy is the
-- bytes a compile into exe would give).
function M.build_core_program(src, exe)
  local pkg = util.read_cmd("pkg-config --cflags --libs libelf libdw 2>/dev/null"):gsub("%s+$", "")
  local core = M.ROOT .. "/csrc/core"
  local dir = util.mkdir(M.BUILD .. "/spec-tools/" .. src:match("([^/]+)%.c$"))
  local compile = table.concat({ M.CORE_CC, "-I" .. q(core), "-o", q(dir .. "/prog.tmp"), q(src),
    q(M.CORE_LIB), pkg, M.CORE_EXTRA_LIBS, "-lzstd -lz -liberty -lm -ldl" }, " ")
  -- under the folder's lock (spec files run in parallel); the compiler
  -- runs in the root folder, as it always has (DWARF names it)
  local script = table.concat({
    "cd " .. q(dir) .. " || exit 1",
    "{ printf '%s\\n' " .. q(compile) .. " && cat " .. q(src) .. " " .. q(M.CORE_LIB)
      .. " $(find " .. q(core) .. " -name '*.h' | LC_ALL=C sort) | sha1sum; } >want.stamp || exit 1",
    "if ! { [ -f prog ] && cmp -s built.stamp want.stamp; }; then",
    "  rm -f prog built.stamp && (cd " .. q(M.ROOT) .. " && " .. compile .. ") && mv prog.tmp prog && mv want.stamp built.stamp || exit 1",
    "fi",
    "cp prog " .. q(exe),
  }, "\n")
  local line = "sh -c " .. q(script)
  if util.have("flock") then line = "flock " .. q(dir .. "/.lock") .. " " .. line end
  local status, out, err = M.shell(line)
  assert(status == 0, out .. err)
end

--- Runs the shell command line `line` (already quoted) with stdout and
-- stderr captured; opts.cwd, opts.prefix. Returns status (128 + signal
-- number when killed), stdout, stderr.
function M.shell(line, opts)
  opts = opts or {}
  local base = os.tmpname()
  local out, err = base .. ".out", base .. ".err"
  local full = "cd " .. q(opts.cwd or M.ROOT) .. " && { " .. (opts.prefix or "")
    .. line .. " ; } >" .. q(out) .. " 2>" .. q(err) .. " </dev/null"
  local code, how = util.serve(full), "exit"
  if not code then
    local _
    _, how, code = os.execute(full)
  end
  local o, e = util.slurp(out) or "", util.slurp(err) or ""
  os.remove(out); os.remove(err); os.remove(base)
  if how == "signal" then code = 128 + code end
  return code, o, e
end

--- Runs argv (argv[1] is the program); opts as for shell, plus opts.timeout.
function M.run(argv, opts)
  opts = opts or {}
  local line = util.qwords(argv)
  if opts.timeout then line = "timeout " .. opts.timeout .. " " .. line end
  return M.shell(line, opts)
end

-- A copy of opts (nil: none) with `before` and `after` put around its prefix.
local function with_prefix(opts, before, after)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.prefix = before .. (o.prefix or "") .. after
  return o
end

local function with(first, args)
  local argv = { table.unpack(first) }
  table.move(args, 1, #args, #argv + 1, argv)
  return argv
end

--- Runs many argv lists (each as M.run would, opts for all of them) from
-- one shell: a list of { status =, out =, err = } in their order. A loop
-- of M.run starts two processes a run (a shell and the program), this one
-- (the program): a process start costs this machine 4 to 10 ms of CPU.
function M.run_many(argvs, opts)
  opts = opts or {}
  local dir = util.mktempdir("lgprof-runmany")
  local lines = { "cd " .. q(opts.cwd or M.ROOT) .. " || exit 1" }
  for i, argv in ipairs(argvs) do
    local line = util.qwords(argv)
    if opts.timeout then line = "timeout " .. opts.timeout .. " " .. line end
    local base = q(("%s/%d"):format(dir, i))
    lines[#lines + 1] = ("( %s%s ) >%s.out 2>%s.err </dev/null; echo $? >%s.rc"):format(
      opts.prefix or "", line, base, base, base)
  end
  util.spit(dir .. "/run.sh", table.concat(lines, "\n") .. "\n")
  assert(util.exec_ok("sh " .. q(dir .. "/run.sh")), "run_many: the script failed")
  local results = {}
  for i = 1, #argvs do
    local base = ("%s/%d"):format(dir, i)
    results[i] = {
      status = tonumber((util.slurp(base .. ".rc") or ""):match("%d+")),
      out = util.slurp(base .. ".out") or "", err = util.slurp(base .. ".err") or "",
    }
  end
  util.rmtree(dir)
  return results
end

--- bin/lgprof with each of a list of argument lists (run_many).
function M.lgprof_many(arg_lists, opts)
  local argvs = {}
  for i, args in ipairs(arg_lists) do argvs[i] = with({ M.LGPROF }, args) end
  return M.run_many(argvs, opts)
end

--- bin/lgprof with args.
function M.lgprof(args, opts)
  return M.run(with({ M.LGPROF }, args), opts)
end

--- GNU gprof with args, run under the name "gprof" (argv[0] shows in its
-- usage text and messages) with /usr/bin first on PATH, and without address
-- space randomisation where setarch can turn it off: gprof's static call
-- graph (-c) reads something that depends on where things were mapped (one
-- run in about 150 printed an arc more, on the same files), and an oracle
-- must answer the same every time.
local NO_ASLR = os.execute("setarch -R true >/dev/null 2>&1") and "setarch -R " or ""
M.GPROF_PATH = "PATH=" .. q("/usr/bin:" .. (os.getenv("PATH") or "/bin")) .. " "
M.GPROF_ENV = M.GPROF_PATH .. NO_ASLR
-- For a script of many gprof runs: the script's shell is started without
-- randomisation (M.NO_ASLR .. "sh SCRIPT"), which every process it starts
-- inherits, and each line runs M.GPROF_SCRIPT_CMD (or M.GPROF_PATH ..
-- "... gprof"): one exec per run rather than setarch's and gprof's (an exec
-- costs this machine about 3 ms of CPU, and a cold suite runs gprof some
-- 20,000 times).
M.NO_ASLR = NO_ASLR
M.GPROF_SCRIPT_CMD = M.GPROF_PATH .. "gprof"
function M.gprof(args, opts)
  return M.run(with({ "gprof" }, args), with_prefix(opts, "", M.GPROF_ENV))
end

--- The shell words that run lgprof / gprof (for scripts that run many cases).
M.LGPROF_CMD = q(M.LGPROF)
M.GPROF_CMD = M.GPROF_ENV .. "gprof"

--- Shell text setting the module paths of the checkout for lua5.4.
function M.lua_env()
  return ("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s "):format(
    q(M.ROOT .. "/lua/?.lua;" .. M.ROOT .. "/lua/?/init.lua;;"), q(M.BUILD .. "/?.so;;"))
end

--- lua5.4 with args and the checkout's lua/ and build/ on the module paths.
function M.lua(args, opts)
  return M.run(with({ "lua5.4" }, args), with_prefix(opts, M.lua_env(), ""))
end

--- A readable dump of a run, for assertion messages.
function M.show(status, out, err)
  return ("status %s\n--- stdout (%d bytes) ---\n%s\n--- stderr ---\n%s"):format(
    tostring(status), #out, out:sub(1, 1500), err)
end

--- Asserts a failed run: the status, nothing on stdout, exactly one line
-- "lgprof: ..." on stderr (for a usage error, status 2, followed by the
-- pointer "Try 'lgprof[ MODE] --help' for more information."); returns that
-- line without "lgprof: " and "\n".
-- Use: cmd.one_line_error(2, cmd.lgprof({...})).
function M.one_line_error(want_status, status, out, err)
  local ctx = M.show(status, out, err)
  assert(status == want_status, ("expected status %d\n%s"):format(want_status, ctx))
  assert(out == "", "expected no output\n" .. ctx)
  if want_status == 2 then
    local line = err:match("^lgprof: ([^\n]+)\nTry '[^\n]+ %-%-help' for more information%.\n$")
    assert(line, "expected 'lgprof: ...' and a pointer to --help\n" .. ctx)
    return line
  end
  assert(err:match("^lgprof: [^\n]+\n$"), "expected one line 'lgprof: ...'\n" .. ctx)
  return err:sub(9, -2)
end

--- As one_line_error with status 1, and the line must name `file` first:
-- "lgprof: FILE: reason". Returns "FILE: reason".
function M.file_error(file, status, out, err)
  local line = M.one_line_error(1, status, out, err)
  local prefix = file .. ": "
  assert(line:sub(1, #prefix) == prefix and #line > #prefix,
    "expected 'lgprof: " .. prefix .. "reason'\n" .. M.show(status, out, err))
  return line
end

--- Asserts a run's status and, where given, want.out (its stdout, exactly),
-- want.err (its stderr, exactly) or want.err_match (a Lua pattern stderr
-- matches). Returns status, out, err.
function M.expect(want, status, out, err)
  local ctx = M.show(status, out, err)
  assert(status == want.status, ("expected status %s\n%s"):format(tostring(want.status), ctx))
  assert(want.out == nil or out == want.out, ("expected stdout %q\n%s"):format(tostring(want.out), ctx))
  assert(want.err == nil or err == want.err, ("expected stderr %q\n%s"):format(tostring(want.err), ctx))
  assert(want.err_match == nil or err:match(want.err_match),
    ("expected stderr matching %q\n%s"):format(tostring(want.err_match), ctx))
  return status, out, err
end

--- lgprof's stdout for args, asserting it exits 0 and writes nothing to
-- stderr (opts as M.lgprof's).
function M.lgprof_out(args, opts)
  local status, out, err = M.lgprof(args, opts)
  assert(status == 0, M.show(status, out, err))
  assert(err == "", "expected no stderr\n" .. M.show(status, out, err))
  return out
end

--- Writes text to path; returns path.
M.write = util.spit

--- A symbol's name as perf report names one of several symbols at an
-- address: it prefers fewer leading underscores, so compare without them.
function M.perf_alias(name) return (name:gsub("^_+", "")) end

--- perf report's shares of a recording by symbol name: name -> percentage
-- (self with --no-children, or children); o.alias(name) names a symbol
-- (default M.perf_alias), o.user_only leaves the kernel's out.
function M.perf_report_shares(path, children, o)
  o = o or {}
  local alias = o.alias or M.perf_alias
  local args = children and "--children -F overhead_children,sym" or "--no-children -F overhead,sym"
  local status, out = M.shell(("perf report -i %s --stdio -g none --no-inline %s 2>/dev/null")
    :format(util.q(path), args))
  assert(status == 0, "perf report failed on " .. path)
  local t = {}
  for l in out:gmatch("[^\n]+") do
    local pct, kind, name = l:match("^%s*([%d.]+)%%%s+%[([.k])%]%s+(.-)%s*$")
    if pct and (kind == "." or not o.user_only) then
      t[alias(name)] = (t[alias(name)] or 0) + tonumber(pct)
    end
  end
  return t
end

return M
