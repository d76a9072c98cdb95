--- `lgprof record [options] -- PROGRAM ARGS...`: runs the program under
-- `perf record` (cpu-clock at 999 Hz, stacks by frame pointers or DWARF as
-- the program's code suggests) and prints lgprof's report of the recording,
-- as `lgprof FILE` would. The recording is a temporary file removed after
-- the report, unless -o FILE (or --gmon) keeps it.
-- Exit statuses: 0 success, 1 bad input (perf missing or refused, the
-- program not found, the recording unreadable), 2 usage error, 4 the
-- program failed (exited non-zero or was killed: the report is printed).
local help = require "lgprof.cli.help"

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

-- The ELF64 little-endian file's function symbols with their first bytes:
-- a list of { name, code } (at most `limit`), or nil and why not.
local function function_starts(data, limit)
  if data:sub(1, 4) ~= "\127ELF" then return nil, "not an ELF file" end
  if data:byte(5) ~= 2 or data:byte(6) ~= 1 then return nil, "not a 64-bit little-endian ELF file" end
  if string.unpack("<I2", data, 19) ~= 62 then return nil, "not x86-64 code" end
  local shoff = string.unpack("<I8", data, 41)
  local shentsize, shnum = string.unpack("<I2", data, 59), string.unpack("<I2", data, 61)
  if shoff == 0 or shentsize < 64 or shoff + shnum * shentsize > #data then
    return nil, "no section headers"
  end
  local sections = {}
  for i = 0, shnum - 1 do
    local o = shoff + i * shentsize + 1
    local _, stype, _, addr, off, size, link, _, _, entsize =
      string.unpack("<I4I4I8I8I8I8I4I4I8I8", data, o)
    sections[i] = { type = stype, addr = addr, off = off, size = size, link = link, entsize = entsize }
  end
  local symtab
  for i = 0, shnum - 1 do
    if sections[i].type == 2 then symtab = sections[i] end -- SHT_SYMTAB
  end
  if not symtab or symtab.entsize < 24 or symtab.off + symtab.size > #data then
    return nil, "no symbol table"
  end
  local strtab = sections[symtab.link]
  local found = {}
  for o = symtab.off + 1, symtab.off + symtab.size - 24 + 1, symtab.entsize do
    local nameoff, info, _, shndx, value, size = string.unpack("<I4BBI2I8I8", data, o)
    local sec = sections[shndx]
    -- defined functions of some size in a section with contents (not NOBITS)
    if info & 0xf == 2 and size >= 8 and sec and sec.type == 1 and strtab then
      local name = data:match("^[^%z]*", strtab.off + nameoff + 1) or ""
      local at = sec.off + (value - sec.addr) + 1
      -- the C library's start-up code is no sign of how the program was built
      if not name:match("^_") and name ~= "frame_dummy" and not name:match("_tm_clones$")
         and at >= 1 and at + 8 <= #data then
        found[#found + 1] = { name = name, code = data:sub(at, at + 7) }
        if #found >= limit then break end
      end
    end
  end
  if #found == 0 then return nil, "no functions in its symbol table" end
  return found
end

-- The prologue of a function that keeps a frame pointer (x86-64): push
-- %rbp; mov %rsp,%rbp, after an optional endbr64.
local function keeps_frame_pointer(code)
  if code:sub(1, 4) == "\243\15\30\250" then code = code:sub(5) end
  return code:sub(1, 4) == "\85\72\137\229"
end

--- Whether the program at `path` keeps frame pointers: true or false, or
-- nil and why it cannot tell. The heuristic: the first 64 functions of its
-- symbol table (not the C library's start-up code); frame pointers when at
-- least half of them start with push %rbp; mov %rsp,%rbp (x86-64 only).
function cmd.frame_pointers(path)
  local f, ferr = io.open(path, "rb")
  if not f then return nil, ferr end
  local data = f:read("a")
  f:close()
  -- a cut or corrupt file makes string.unpack raise: the program cannot be
  -- read this way, and perf will say what it makes of it
  local ok, list, why = pcall(function_starts, data or "", 64)
  if not ok then return nil, "a cut or corrupt ELF file" end
  if not list then return nil, why end
  local kept = 0
  for _, fn in ipairs(list) do
    if keeps_frame_pointer(fn.code) then kept = kept + 1 end
  end
  return kept * 2 >= #list
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
  return ("perf record failed (exit status %d): %s"):format(status or -1, info or "no message")
end

-- What perf's error output says went wrong: a kind of cmd.failure_message
-- and its info.
local function diagnose(text, paranoid)
  if text:find("perf_event_paranoid", 1, true) then return "paranoid", paranoid or "too strict" end
  local denied = text:match("[^\n]*[Pp]ermission denied[^\n]*") or text:match("[^\n]*not permitted[^\n]*")
  if denied then return "permission", (denied:gsub("^%s+", "")) end
  local first = text:match("[^\n]*%S[^\n]*") or "no message"
  return "perf", (first:gsub("^%s+", ""))
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
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
  local unwind = st.fp and "fp" or (st.dwarf or st.stack_size) and "dwarf"
  if not unwind then
    -- DWARF when frame pointers are not known to be kept: it works either way
    unwind = cmd.frame_pointers(program) and "fp" or "dwarf"
  end
  local keep = st.output or (st.gmon and "perf.data")
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
    out:write(table.concat(quoted, " "), "\n")
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
  local _, how, code = os.execute(table.concat(quoted, " ") .. " 2>" .. cmd.quote(errfile))
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
