--- `lgprof [options] [image-file [profile-file...]]`: gprof's own mode (the
-- flat profile, the call graph, -i, -s), or --format=FMT (lgprof.cmd_export).
local options = require "lgprof.cli.options"

local FLAT, GRAPH, INFO, SUM = options.FLAT, options.GRAPH, options.INFO, options.SUM
local EXEC, ANNO = options.EXEC, options.ANNO
local FUNC_ORDER, FILE_ORDER = options.FUNC_ORDER, options.FILE_ORDER

local cmd = {}

local function plural(n, one, many)
  return ("\t%d %s\n"):format(n, n == 1 and one or many)
end

-- -i: what each profile file holds. gprof prints the tagged format's
-- version; BSD files show the last one seen.
local function file_info(profile, out)
  local version = 0
  for _, f in ipairs(profile:file_info()) do
    if f.version >= 0 then version = f.version end
    out:write(("File `%s' (version %d) contains:\n"):format(f.path, version),
      plural(f.histograms, "histogram record", "histogram records"),
      plural(f.arcs, "call-graph record", "call-graph records"),
      plural(f.bb, "basic-block count record", "basic-block count records"))
  end
end

-- gprof keeps basic-block counts only at line granularity; otherwise it
-- reads and drops them, saying so once.
local function warn_blocks(st, profile, err)
  if options.open_options(st).granularity == "line" then return end
  for _, f in ipairs(profile:file_info()) do
    if f.bb > 0 then
      err:write("lgprof: warning: ignoring basic-block exec counts (use -l or --line)\n")
      return
    end
  end
end

-- The source search list: -I's directories, then $GPROF_PATH's.
local function search_dirs(st)
  local dirs = table.move(st.dirs, 1, #st.dirs, 1, {})
  local env = os.getenv("GPROF_PATH")
  if env then
    for dir in (env .. ":"):gmatch("([^:]*):") do dirs[#dirs + 1] = dir end
  end
  return dirs
end

-- -C and -A, after the flat profile and the call graph.
local function source_reports(st, style, profile, out, err, first_output)
  local ok, werr = true, nil
  if style & EXEC ~= 0 then
    ok, werr = profile:exec_counts(out, { zeros = st.zeros, first_output = first_output })
    first_output = ok
  end
  if ok ~= nil and style & ANNO ~= 0 then
    ok, werr = profile:annotate(out, err, {
      dirs = search_dirs(st), all_lines = st.all_lines, separate = st.separate_files,
      zeros = st.zeros, table_length = st.table_length, min_count = st.min_count,
      first_output = first_output,
    })
  end
  if ok == nil then
    err:write("lgprof: ", werr, "\n")
    return 1
  end
  return 0
end

-- The report of a parsed command line, once the profile is open.
local function report(st, profile, out, err)
  local first_output = true
  -- the link orders first (printed last): one that fails prints nothing
  local names, werr
  if st.style & FUNC_ORDER ~= 0 then
    -- (gprof's call graph, printed first, leaves its lists sorted)
    names, werr = profile:function_ordering({ after_graph = st.style & GRAPH ~= 0, zeros = st.zeros })
  elseif st.style & FILE_ORDER ~= 0 then
    names, werr = profile:file_ordering()
  end
  if werr then
    err:write("lgprof: ", werr, "\n")
    return 1
  end
  warn_blocks(st, profile, err)
  if st.style & INFO ~= 0 then
    file_info(profile, out)
    first_output = false
  end
  if st.style & SUM ~= 0 then
    local ok, werr = profile:write_gmon("gmon.sum")
    if not ok then
      err:write("lgprof: ", werr, "\n")
      return 1
    end
  end
  local style = st.style
  if style == 0 then -- what the profile has, less what -p, -P, -q, -Q, -i, -s said
    if profile.have_histogram then style = style | FLAT end
    if profile.have_call_graph then style = style | GRAPH end
    if style == 0 then style = EXEC end -- nothing but basic blocks, at most
    style = style & ~st.user
  end
  if style & (FLAT | GRAPH) ~= 0 then
    local ok, werr = profile:gprof_report(out, {
      traditional = st.traditional, brief = st.brief, zeros = st.zeros,
      width = st.width, flat = style & FLAT ~= 0, graph = style & GRAPH ~= 0,
      first_output = first_output,
      inline_file_names = st.inline_file_names, print_path = st.print_path,
    })
    if ok == nil then
      err:write("lgprof: ", werr, "\n")
      return 1
    end
    first_output = ok
  end
  local status = source_reports(st, style, profile, out, err, first_output)
  if status ~= 0 then return status end
  -- -r, -R: one name a line, after the rest, with no separator
  if names and #names > 0 then
    out:write(table.concat(names, "\n"), "\n")
  end
  return 0
end

-- The usage message when an option given is for other formats than fmt
-- (--format's value; nil: gprof's report): its registry entry's `formats`.
local function format_refusal(st, fmt)
  for _, e in ipairs(st.order) do
    if e.formats then
      local taken = false
      for _, f in ipairs(e.formats) do taken = taken or f == fmt end
      if not taken then return ("--%s is for --format=%s"):format(e.long, table.concat(e.formats, ", ")) end
    end
  end
end

--- The command: ctx.opts is the parsed command line (lgprof.cli.options),
-- ctx.out, ctx.err its streams. Returns the exit status.
function cmd.run(ctx)
  local st, out, err = ctx.opts, ctx.out, ctx.err
  if st.by and not st.output_format then st.output_format = "text" end -- --by's table
  local fmt = st.output_format -- --format=FMT (the last one given)
  local cliview = require "lgprof.cli.views" -- --focus, --hide, --top...: a view
  local verr
  st.view, st.view_description = cliview.take(st)
  verr = format_refusal(st, fmt) -- --title, --inverted, --noise-floor...
  if verr then return ctx:fail(2, verr) end
  verr = st.view and cliview.refuse(st, fmt, st.annotate_lines or st.annotate_asm)
  if verr then return ctx:fail(2, verr) end
  local status = ctx.cli.refuse_format(st, err)
  if status then return status end
  if st.granularity and not (fmt and fmt ~= "gprof") then
    return ctx:fail(2, "--granularity needs --format=json, csv or callgrind")
  end
  if st.clones == "keep" and not (fmt and fmt ~= "gprof") then
    return ctx:fail(2, "--clones=keep is for --format=FMT: gprof's report keeps gprof's rule")
  end
  if st.break_cycles then
    return require("lgprof.cmd.breakcycles").run(ctx, report)
  end
  if st.annotate_asm then return require("lgprof.cmd.asm").run(ctx) end
  if st.annotate_lines then
    if fmt and fmt ~= "gprof" then
      return ctx:fail(2, "--annotate-lines cannot be combined with --format")
    end
    return require("lgprof.cmd.annotate").run(ctx)
  end
  if fmt and fmt ~= "gprof" then
    -- gcc's clones are kept: gprof's rule charges their samples and calls
    -- to the function before them, which draws stacks that never ran
    st.clones = st.clones or "keep"
    return require("lgprof.cmd.export").run(ctx)
  end
  local profile <close>, ostatus = ctx.cli.open(st, err)
  if not profile then return ostatus end
  return report(st, profile, out, err)
end

return cmd
