--- The lgprof command: a drop-in GNU gprof 2.40 (same options, same output),
-- plus lgprof's own modes; this module picks the mode, parses the command
-- line (lgprof.cli.options, the options of lgprof.cli.registry) and runs
-- the mode's command with a context: run(ctx), ctx = { opts = the typed
-- options, out, err, mode, cli = this module } (ctx:fail(status, msg)).
-- Commands (loaded when used): lgprof.cmd.report (gprof's, and --format
-- through lgprof.cmd.export), check, merge, doctor, record, --script,
-- --diff (lgprof.cmd.check, ...).
-- Exit statuses: 0 success, 1 bad input, 2 usage error, 3 a threshold failed,
-- 4 the program lgprof record ran failed.
local lgprof = require "lgprof"
local getopt = require "lgprof.cli.getopt"
local options = require "lgprof.cli.options"

local cli = {
  parse = options.parse,               -- (args, out, err [, mode]) -> state | nil, status
  open_options = options.open_options, -- (state) -> the options of lgprof.open
}

--- 1 if the command line asks for a file format lgprof cannot read (the
-- message written), else nil.
function cli.refuse_format(st, err)
  if st.format == "prof" then
    err:write("lgprof: sorry, file format `prof' is not yet supported\n")
    return 1
  end
end

--- A usage error (status 2, written) when perf.data's options (--event,
-- --pid...) are given and no profile file is a perf.data; nil otherwise.
function cli.refuse_perf(st, err, gmons)
  local given = options.first_given(st, "perf")
  if not given or st.perf then return nil end -- --perf=FILE: they read FILE
  for _, g in ipairs(gmons) do
    if lgprof._core.is_perfdata(g) then return nil end
  end
  return options.usage_error(err, ("--%s needs a perf.data profile (gmon.out records no"
    .. " events, threads or binaries)"):format(given.long), st.mode)
end

--- Opens the profile of a parsed command line; on failure writes
-- "lgprof: FILE: what is wrong" and returns nil, 1.
function cli.open(st, err, exe, gmons)
  local status = cli.refuse_format(st, err)
  if status then return nil, status end
  local stacks = require "lgprof.cli.stacks"
  local perf = stacks.perf_file(st, gmons or st.gmons)
  status = stacks.refuse(st, err, perf, options)
  if status then return nil, status end
  local opts = options.open_options(st)
  -- a run over line tables (line granularity, annotated source) or over a
  -- perf.data (millions of addresses, each binary's symbols and DWARF) gets
  -- the command's heap for big runs: without it, a sixth of a report of
  -- 50,000 stacks went to page faults (bin/lgprof preloads the module;
  -- under lua5.4 there is none, and nothing is searched for)
  if (opts.granularity == "line" or (st.style or 0) & options.ANNO ~= 0 or perf)
     and package.preload["lgprof.memory"] then
    require("lgprof.memory").big_heap()
  end
  status = cli.refuse_perf(st, err, gmons or st.gmons)
  if status then return nil, status end
  local profile, msg = lgprof.open(exe or st.exe, gmons or st.gmons, opts)
  if not profile then
    -- a range outside the recording is the command line's fault
    if tostring(msg):find(": --time-range=", 1, true) then
      return nil, options.usage_error(err, msg, st.mode)
    end
    err:write("lgprof: ", msg, "\n")
    return nil, 1
  end
  if st.pid or st.tid or st.comm or st.dso then
    local sub, ferr = profile:filter({ pid = st.pid, tid = st.tid, comm = st.comm, dso = st.dso })
    profile:close()
    if not sub then
      err:write("lgprof: ", tostring(ferr), "\n")
      return nil, 1
    end
    return sub
  end
  return profile
end

--- The view of a parsed command line's profile (--focus, --hide, --top...:
-- lgprof.cliview), or the profile itself; nil, 1 on failure (written).
function cli.view(st, profile, err)
  return require("lgprof.cli.views").apply(st, profile, err)
end

-- Which of --script and --diff the command line holds: as gprof's table
-- parses it, so that an option's argument ("-e --diff") is never taken for
-- one. When that parse fails (the mode's own parse will fail too and say
-- why), by the words' exact spellings before "--".
local function extra_mode(args)
  local found = {}
  local opts = getopt.parse(args, options.spec("gprof"))
  for _, o in ipairs(opts or {}) do found[o[1].long or ""] = true end
  if not opts then
    for _, a in ipairs(args) do
      if a == "--" then break end
      found[a:match("^%-%-([%a-]+)=") or a:match("^%-%-([%a-]+)$") or ""] = true
    end
  end
  if found.script and found.diff then return nil, "--script and --diff cannot be combined" end
  return found.script and "script" or found.diff and "diff" or nil
end

-- What every command gets: ctx.opts (the parsed command line: gprof's
-- options as lgprof.cli.options sets them, lgprof's own typed under their
-- registry keys), ctx.out, ctx.err, ctx.mode, ctx.cli (this module).
local Context = {}
Context.__index = Context

--- Writes msg as the command's one error line and returns status: for a
-- usage error (2), with the pointer to the help of `mode` (default: the
-- context's mode); otherwise "lgprof: msg".
function Context:fail(status, msg, mode)
  if status == 2 then return options.usage_error(self.err, msg, mode or self.mode) end
  self.err:write("lgprof: ", msg, "\n")
  return status
end

--- The context of a mode's command line (parsed here), or nil and the
-- exit status (the message or the help written).
function cli.context(args, out, err, mode)
  local st, status = options.parse(args, out, err, mode)
  if not st then return nil, status end
  return setmetatable({ opts = st, out = out, err = err, mode = mode or "gprof", cli = cli }, Context)
end

-- The command of each mode.
local COMMANDS = {
  gprof = "lgprof.cmd.report", diff = "lgprof.cmd.diff", script = "lgprof.cmd.script",
  check = "lgprof.cmd.check", merge = "lgprof.cmd.merge", doctor = "lgprof.cmd.doctor",
  record = "lgprof.cmd.record",
}

--- Runs the command with a list of arguments (@FILE response files
-- expanded first: lgprof.respfile); returns the exit status.
function cli.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local expanded, xerr = require("lgprof.cli.respfile").expand(args) -- @FILE, before anything
  if not expanded then
    err:write("lgprof: ", xerr, "\n")
    return 1
  end
  args = expanded
  local mode
  if args[1] == "check" or args[1] == "merge" or args[1] == "doctor" or args[1] == "record" then
    mode = args[1]
    args = table.move(args, 2, #args, 1, {})
  else
    local merr
    mode, merr = extra_mode(args)
    if merr then return options.usage_error(err, merr) end
    mode = mode or "gprof"
  end
  local ctx, status = cli.context(args, out, err, mode)
  if not ctx then return status end
  return require(COMMANDS[mode]).run(ctx)
end

return cli
