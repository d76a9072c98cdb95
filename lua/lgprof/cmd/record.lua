--- `lgprof record [options] -- PROGRAM ARGS...`: runs the program under
-- `perf record` (cpu-clock at 999 Hz, stacks by frame pointers or DWARF as
-- the program's code suggests) and prints lgprof's report of the recording,
-- as `lgprof FILE` would. The recording is a temporary file removed after
-- the report, unless -o FILE (or --gmon) keeps it.
-- Exit statuses: 0 success, 1 bad input (perf missing or refused, the
-- program not found, the recording unreadable), 2 usage error, 4 the
-- program failed (exited non-zero or was killed: the report is printed).
local help = require "lgprof.cli.help"
local elf = require "lgprof.util.elfdeps"

local cmd = {}

-- (the usage text is written on first use: the option lists come from the
-- registry, and most runs never print them)
help.lazy_usage(cmd, function()
  return [==[
Usage: lgprof record [options] [report options] -- PROGRAM [ARGS...]
  Runs PROGRAM under perf record and prints the report of its recording
  (the one `lgprof FILE` prints; report options: lgprof --help). PROGRAM is
  looked for on PATH when its name has no slash. Stacks are unwound by
  frame pointers when the program's functions keep them, else with DWARF.
  The recording is removed after the report unless -o FILE or --gmon.
]==] .. help.group("record") .. [==[
  Report options: those of `lgprof FILE` (lgprof --help), but -F.
Exit status: 0 success, 1 bad input (perf missing or refused, PROGRAM not
found), 2 usage error, 4 PROGRAM exited non-zero or was killed (the report
is printed first).
]==]
end)

cmd.PROGRAM_FAILED = 4

--- The path a shell would run for `name`: name itself when it has a slash,
-- else the first executable file of that name in `path` ($PATH's form; an
-- empty entry is the current directory). nil when there is none.
function cmd.find_program(name, path)
  local function runnable(p)
    return os.execute("test -f " .. cmd.quote(p) .. " && test -x " .. cmd.quote(p)) == true
  end
  if name == "" then return nil end
  if name:find("/", 1, true) then return runnable(name) and name or nil end
  for dir in ((path or "") .. ":"):gmatch("([^:]*):") do
    local p = (dir == "" and "." or dir) .. "/" .. name
    if runnable(p) then return p end
  end
  return nil
end

--- A word quoted for sh.
function cmd.quote(word)
  if word:match("^[%w%./_=:,+-]+$") then return word end
  return "'" .. word:gsub("'", "'\\''") .. "'"
end

--- Whether the program at `path` keeps frame pointers: true or false, or
-- nil and why it cannot tell (lgprof.util.elfdeps says how it tells).
function cmd.frame_pointers(path)
  local info, why = elf.inspect(path)
  if not info then return nil, why end
  if info.fp == nil then return nil, info.why end
  return info.fp
end

-- Bytes of a sample beyond its stack copy (DWARF: the header, ip, tid,
-- time, cpu, period, the kernel's part of the chain and the user registers;
-- measured: 8489 bytes a sample with perf's default 8192-byte copy), and of a
-- frame-pointer sample with a chain of about 16 frames.
local DWARF_SAMPLE_EXTRA, FP_SAMPLE_BYTES = 300, 200
cmd.DEFAULT_STACK_SIZE = 8192

--- The expected size of a recording, in bytes a second for each busy
-- thread: o.unwind, o.stack_size, o.freq.
function cmd.expected_rate(o)
  local per_sample = o.unwind == "dwarf" and (o.stack_size or cmd.DEFAULT_STACK_SIZE) + DWARF_SAMPLE_EXTRA
    or FP_SAMPLE_BYTES
  return per_sample * (o.freq or 999)
end

--- A size in bytes as people read it: "812 bytes", "34.5 KB", "8.5 MB", "1.2 GB" (powers of 1000, as perf
-- and ls -h --si).
function cmd.human_size(n)
  if n < 1000 then return ("%d bytes"):format(n) end
  for _, unit in ipairs({ "KB", "MB", "GB" }) do
    n = n / 1000
    if n < 1000 or unit == "GB" then return ("%.1f %s"):format(n, unit) end
  end
end

--- The unwinding for `program` and why: "fp" or "dwarf", and a list of
-- lines (without "# "). forced: "fp" or "dwarf" (--fp, --dwarf,
-- --stack-size) or nil; env as lgprof.util.elfdeps.binaries's.
function cmd.choose_unwinding(program, forced, env)
  local list = elf.binaries(program, env)
  local without = {}
  for _, b in ipairs(list) do
    if b.fp ~= true then
      local why = b.fp == false and "" or not b.path and " (not found)"
        or (" (cannot tell: %s)"):format(b.why or "?")
      without[#without + 1] = (b.path or b.name) .. why
    end
  end
  local loads = #list == 1 and ("the only binary %s loads"):format(program)
    or ("the %d binaries %s loads (itself and its libraries)"):format(#list, program)
  local lines = {}
  local unwind = forced or (#without == 0 and "fp" or "dwarf")
  if #without == 0 then
    lines[1] = ("frame pointers are kept by %s"):format(loads)
  else
    lines[1] = ("%d of %s keep no frame pointers, where perf's frame-pointer chains break:")
      :format(#without, loads)
    for _, w in ipairs(without) do lines[#lines + 1] = "  " .. w end
  end
  local chosen = unwind == "fp" and "frame pointers (perf record -g)" or "DWARF (perf record --call-graph dwarf)"
  if forced then
    table.insert(lines, 1, ("unwinding: %s, as asked"):format(chosen))
  else
    table.insert(lines, 1, ("unwinding: %s, since %s"):format(chosen,
      unwind == "fp" and "every binary keeps frame pointers" or "not every binary keeps frame pointers"))
  end
  return unwind, lines
end

--- The shell command that runs `perf` (a shell command) while a watcher
-- polls the size of `file` and writes `warning` (a line) on standard error
-- once it passes `limit` bytes (none when limit is 0). The shell becomes perf
-- (exec: its status and signals are perf's); the watcher ends within a poll
-- after perf does.
function cmd.watched_command(perf, file, limit, warning)
  if not limit or limit <= 0 then return "exec " .. perf end
  local watcher = ("while sleep 0.25 && kill -0 $$ 2>/dev/null; do"
    .. " if [ \"$(stat -c %%s %s 2>/dev/null || echo 0)\" -gt %d ]; then echo %s >&2; break; fi; done")
    :format(cmd.quote(file), limit, cmd.quote(warning))
  return ("{ %s; } </dev/null >/dev/null & exec %s"):format(watcher, perf)
end

--- The one line (without "lgprof: ") of a recording passing `limit` bytes.
function cmd.size_warning(limit, o)
  local what = o.unwind == "dwarf"
    and ("DWARF stacks, %d bytes copied a sample"):format(o.stack_size or cmd.DEFAULT_STACK_SIZE)
    or "frame-pointer stacks"
  return ("warning: the recording passed %s (%s, %d samples a second for each busy thread): for a smaller"
    .. " one, --stack-size=BYTES (shorter chains), -F HZ (fewer samples) or --fp (no stack copies, when"
    .. " the binaries keep frame pointers); --warn-size=MB to be told later"):format(cmd.human_size(limit), what,
    o.freq or 999)
end

-- The wall clock in seconds (with its fraction, which os.time lacks), or nil.
local function wall_clock()
  local p = io.popen("date +%s.%N 2>/dev/null")
  local s = p and p:read("a")
  if p then p:close() end
  return s and tonumber(s:match("^[%d.]+"))
end

--- The perf command (a list of words): o.event, o.freq, o.unwind ("fp"
-- or "dwarf"), o.stack_size (DWARF: bytes copied per sample, else
-- perf's default), o.output, o.program and o.args; o.switches, for
-- off-CPU time: "tracepoint" (sched:sched_switch, every switch with its
-- stack, beside the switch records) or "records" (the switch records
-- alone: no stacks).
function cmd.perf_command(o)
  local words = { "perf", "record", "-q", "-e", o.event or "cpu-clock", "-F", tostring(o.freq or 999) }
  if o.switches == "tracepoint" then
    -- the sampling rate as a term of cpu-clock's own: a global -F would
    -- sample the tracepoint by frequency too, and lose switches. A thread
    -- leaves the CPU inside the C library's system-call wrappers, which
    -- keep no frame pointers: the switch stacks are unwound with DWARF.
    words = { "perf", "record", "-q", "-e", ("cpu-clock/freq=%d/"):format(o.freq or 999),
      "-e", o.stack_size and ("sched:sched_switch/call-graph=dwarf,stack-size=%d/"):format(o.stack_size)
        or "sched:sched_switch/call-graph=dwarf/", "--switch-events" }
  elseif o.switches == "records" then
    words[#words + 1] = "--switch-events"
  end
  if o.unwind == "dwarf" then
    local how = o.stack_size and ("dwarf,%d"):format(o.stack_size) or "dwarf"
    table.move({ "--call-graph", how }, 1, 2, #words + 1, words)
  else
    words[#words + 1] = "-g"
  end
  table.move({ "-o", o.output, "--", o.program }, 1, 4, #words + 1, words)
  table.move(o.args or {}, 1, #(o.args or {}), #words + 1, words)
  return words
end

--- The one line (without "lgprof: ") that says what went wrong and what to
-- do: kind is "no-perf", "paranoid" (info: the level), "permission"
-- (info: perf's words), "no-program" (info: the name) or "perf" (info:
-- perf's first line of error, status: its exit status).
function cmd.failure_message(kind, info, status)
  if kind == "no-perf" then
    return "perf is not installed (on Debian: apt-get install linux-perf)"
  elseif kind == "paranoid" then
    return ("perf_event_paranoid is %s: run `sysctl kernel.perf_event_paranoid=1` as root, or run"
      .. " lgprof record as root"):format(info)
  elseif kind == "permission" then
    return ("perf record: no permission (%s): run as root, or lower kernel.perf_event_paranoid")
      :format(info)
  elseif kind == "no-program" then
    return ("%s: program not found (not on PATH, or not an executable file)"):format(info)
  end
  if not info or info == "" then
    return ("perf record failed (exit status %d) and said nothing (perf record -q): the command"
      .. " `lgprof record --dry-run` prints, run without -q, says why"):format(status or -1)
  end
  return ("perf record failed (exit status %d): %s"):format(status or -1, info)
end

-- What perf's error output says went wrong: a kind of cmd.failure_message
-- and its info.
local function diagnose(text, paranoid)
  if text:find("perf_event_paranoid", 1, true) then return "paranoid", paranoid or "too strict" end
  local denied = text:match("[^\n]*[Pp]ermission denied[^\n]*") or text:match("[^\n]*not permitted[^\n]*")
  if denied then return "permission", (denied:gsub("^%s+", "")) end
  local first = text:match("[^\n]*%S[^\n]*")
  return "perf", first and (first:gsub("^%s+", ""))
end

local read_file = require("lgprof.util.args").read_file

-- A file's size in bytes, or nil.
local function lfs_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local size = f:seek("end")
  f:close()
  return size
end

local function paranoid_level()
  local s = read_file("/proc/sys/kernel/perf_event_paranoid")
  return s and tonumber(s:match("%-?%d+"))
end

local function is_root()
  local p = io.popen("id -u 2>/dev/null")
  local s = p and p:read("a")
  if p then p:close() end
  return s and s:match("^0%s") ~= nil
end

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, out, err = ctx.opts, ctx.out, ctx.err
  if st.fp and st.dwarf then return ctx:fail(2, "record: --fp and --dwarf cannot be combined") end
  if st.fp and st.stack_size then
    return ctx:fail(2, "record: --stack-size is for DWARF unwinding: it cannot be combined with --fp")
  end
  if #st.operands > 0 then
    return ctx:fail(2, ("record: the program goes after --: lgprof record [options] -- %s ...")
      :format(st.operands[1]))
  end
  local name = st.rest[1]
  if not name then return ctx:fail(2, "record: no program (lgprof record [options] -- PROGRAM ARGS...)") end
  local path = os.getenv("PATH") or "/usr/bin:/bin"
  local program = cmd.find_program(name, path)
  if not program then return ctx:fail(1, cmd.failure_message("no-program", name)) end
  if (st.off_cpu or st.wall) and st.event then
    return ctx:fail(2, "record: --off-cpu and --wall record cpu-clock and the switches: they cannot be"
      .. " combined with --event")
  end
  if st.off_cpu and st.wall then return ctx:fail(2, "record: --off-cpu and --wall cannot be combined") end
  -- off-CPU time: every switch with its stack needs the sched_switch
  -- tracepoint, and so tracefs, root's here; the switch records alone need
  -- no more than a sample does
  local switches = (st.off_cpu or st.wall) and (is_root() and "tracepoint" or "records")
  -- DWARF unless every binary the program loads is known to keep frame
  -- pointers: it works either way
  local unwind, why = cmd.choose_unwinding(program, st.fp and "fp" or (st.dwarf or st.stack_size) and "dwarf",
    { LD_LIBRARY_PATH = os.getenv("LD_LIBRARY_PATH") })
  local rate = cmd.expected_rate({ unwind = unwind, stack_size = st.stack_size, freq = st.freq })
  why[#why + 1] = ("expected size: about %s a second for each busy thread (%s at %d Hz)")
    :format(cmd.human_size(rate), unwind == "dwarf"
      and ("%d bytes of stack copied a sample"):format(st.stack_size or cmd.DEFAULT_STACK_SIZE)
      or "a chain of return addresses a sample", st.freq or 999)
  local keep = st.output or (st.gmon and "perf.data")
  -- perf -q says nothing when it cannot create its file: the folder is
  -- checked here, so that the message says why
  if keep then
    local folder = keep:match("^(.*)/[^/]*$") or "."
    if folder == "" then folder = "/" end
    local q = cmd.quote(folder)
    if os.execute("test -d " .. q) ~= true then
      return ctx:fail(1, ("%s: cannot write the recording: no folder %s"):format(keep, folder))
    elseif os.execute("test -w " .. q .. " && test -x " .. q) ~= true then
      return ctx:fail(1, ("%s: cannot write the recording: the folder %s is not writable"):format(keep, folder))
    end
  end
  -- a temporary recording: its name reserved by os.tmpname (in /tmp, so
  -- that two runs never share one), the file itself in $TMPDIR when that
  -- is a directory
  local reservation = not keep and os.tmpname()
  local data = keep
  if not keep then
    local tmpdir = os.getenv("TMPDIR")
    local probe = tmpdir and tmpdir ~= "" and io.open(tmpdir .. "/.", "rb")
    if probe then probe:close() end
    data = (probe and tmpdir:gsub("/+$", "") .. "/" .. reservation:match("[^/]*$") or reservation)
      .. ".perf.data"
  end
  local words = cmd.perf_command({
    event = st.event, freq = st.freq, unwind = unwind, stack_size = st.stack_size, output = data, program = name,
    switches = switches,
    args = table.move(st.rest, 2, #st.rest, 1, {}),
  })
  local quoted = {}
  for i, w in ipairs(words) do quoted[i] = cmd.quote(w) end
  if st.dry_run then
    if reservation then os.remove(reservation) end
    -- (the explanation as shell comments: the output runs as it is)
    out:write(table.concat(quoted, " "), "\n")
    for _, line in ipairs(why) do out:write("# ", line, "\n") end
    if switches == "tracepoint" then
      out:write("# off-CPU time from sched:sched_switch samples (stacks unwound with DWARF) and the"
        .. " switch records\n")
    elseif switches == "records" then
      out:write("# off-CPU time from the switch records alone, with no stacks (sched:sched_switch"
        .. " needs root)\n")
    end
    return 0
  end
  local function cleanup()
    if reservation then
      os.remove(reservation)
      os.remove(data)
    end
  end
  if not cmd.find_program("perf", path) then
    cleanup()
    return ctx:fail(1, cmd.failure_message("no-perf"))
  end
  local paranoid = paranoid_level()
  if paranoid and paranoid > 2 and not is_root() then
    cleanup()
    return ctx:fail(1, cmd.failure_message("paranoid", paranoid))
  end
  -- a kept FILE from an earlier run must not pass for this run's recording
  -- when perf fails before writing: it becomes FILE.old, as perf would do
  local earlier = keep and io.open(keep, "rb")
  if earlier then
    earlier:close()
    local moved, merr = os.rename(keep, keep .. ".old")
    if not moved then return ctx:fail(1, merr) end
  end
  -- perf's messages (and the program's own stderr) are read back: perf's
  -- failures are said in one line, the program's output is passed on
  local errfile = os.tmpname()
  out:flush()
  local limit = (st.warn_size or 1000) * 1000 * 1000
  local started = wall_clock()
  local _, how, code = os.execute(cmd.watched_command(table.concat(quoted, " ") .. " 2>" .. cmd.quote(errfile),
    data, limit, "lgprof: " .. cmd.size_warning(limit, { unwind = unwind, stack_size = st.stack_size, freq = st.freq })))
  local ended = wall_clock()
  local stderr_text = read_file(errfile) or ""
  os.remove(errfile)
  local lgprof = require "lgprof"
  local recorded = lgprof._core.is_perfdata(data)
  if not recorded then
    cleanup()
    local kind, info = diagnose(stderr_text, paranoid)
    return ctx:fail(1, cmd.failure_message(kind, info, code))
  end
  err:write(stderr_text)
  local size = lfs_size(data)
  if size then
    local seconds = started and ended and ended - started
    err:write(("lgprof: recorded %s%s%s\n"):format(cmd.human_size(size),
      seconds and seconds > 0 and (" in %.2f s (%s a second)"):format(seconds, cmd.human_size(size / seconds)) or "",
      keep and (" in " .. keep) or ""))
  end
  local gmon = st.gmon and io.open("gmon.out", "rb")
  if gmon then gmon:close() end
  if st.gmon and not gmon then
    err:write("lgprof: warning: ", name, " wrote no gmon.out here (was it linked with -pg?)\n")
  end
  if switches then st.event = st.off_cpu and "off-cpu" or "wall" end
  if gmon then -- both files of the run: times from the stacks, calls from gmon.out
    st.exe, st.gmons, st.perf = program, { "gmon.out" }, data
  else
    st.exe, st.gmons = nil, { data }
  end
  local status = require("lgprof.cmd.report").run(ctx)
  cleanup()
  if status ~= 0 then return status end
  if how ~= "exit" or code ~= 0 then
    err:write(("lgprof: %s %s %d\n"):format(name, how == "exit" and "exited with status"
      or "was killed by signal", code))
    return cmd.PROGRAM_FAILED
  end
  return 0
end

return cmd
