--- The parse of a command line, over lgprof.cli.getopt, with the options
-- of lgprof.cli.registry: what each of gprof 2.40's options sets in the
-- parsed state, and lgprof's own options' typed values under their keys.
local lgprof = require "lgprof"
local getopt = require "lgprof.cli.getopt"
local registry = require "lgprof.cli.registry"
local help = require "lgprof.cli.help"

local options = {}

-- lgprof --help: lgprof's modes, then the view options and gprof's options
-- (written from the registry: lgprof.cli.help).
-- (the usage text is written on first use: the option lists come from the
-- registry, and most runs never print them)
help.lazy_usage(options, function()
  return [==[
Usage: lgprof [options] [image-file [profile-file...]]
  A drop-in GNU gprof 2.40: the same options and the same reports.
  image-file defaults to a.out, profile-file to gmon.out; several profile
  files are summed.

lgprof's own modes (each prints its own usage with --help):
  lgprof --format=FMT [options] [image-file [profile-file...]]
                      write the profile in another format; FMT: gprof (the
                      default); text (lgprof's flat profile with sampling
                      errors and bounds: --noise-floor=N samples, default
                      10); callgrind, json, csv, csv-arcs, folded, dot;
                      html (an interactive page: open it in a browser);
                      svg (a flame graph: --title=TEXT, --inverted (an
                      icicle), --colors=hash|self, --min-width=PX|P%);
                      pprof (gzipped profile.proto); speedscope;
                      --granularity=line: line-level rows (json, csv,
                      callgrind); --clones=keep|gprof: gcc's clones
                      (f.isra.0, f.cold...) as functions of their own
                      (keep, the default) or, as gprof's report has
                      them, folded into the function before them
  lgprof --static-arcs [options] [image-file [profile-file...]]
                      add every direct call and tail jump found by decoding
                      the code (x86-64) as arcs of count 0 (with --format too)
  lgprof --break-cycles[=N] [options] [image-file [profile-file...]]
                      propose arcs whose removal breaks every cycle of N
                      (default 2) or more members, lightest first; print
                      them, the -k options that delete them, then the
                      report gprof prints with those options
  lgprof --annotate-lines[=FILE] [options] [image-file [profile-file...]]
                      list FILE (or every source file with samples) with
                      each line's count, self seconds and share of the time
  lgprof --annotate-asm[=RE] [options] [image-file [profile-file...]]
                      list the instructions of the functions matching RE (or
                      of the hottest) with their samples, source lines and
                      inlined calls; --format=json too
  lgprof --script FILE.lua [options] [image-file [profile-file...]] [-- args]
                      run a Lua report script with the profile
  lgprof check [options] --max-self=PATTERN=SHARE... [image-file [profile-file...]]
                      fail (exit 3) when a function takes more than a limit,
                      beyond its sampling error (--confidence=C, default 0.95)
  lgprof --diff BASE-PROFILE [--diff BASE-PROFILE]... [options]
                      [image-file [profile-file...]]
                      how each function changed from the base run(s), with
                      the significance of each change (--confidence=C)
  lgprof merge [options] -o OUT image-file profile-file...
                      sum profile files into one (gprof -s)
  lgprof doctor [--format=text|json] [options] [image-file [profile-file...]]
                      what is wrong with a profile, and how to fix it
  lgprof record [--fp|--dwarf] [--stack-size=BYTES] [-F HZ] [-o FILE] [options] -- PROGRAM [ARGS...]
                      run PROGRAM under perf record (cpu-clock, 999 Hz) and
                      print the report of its recording (exit 4: PROGRAM
                      failed)
  lgprof --lua-env    print LUA_PATH/LUA_CPATH lines for standalone scripts

Views, for every --format=FMT, --annotate-lines and --annotate-asm (not gprof's report;
RE: a POSIX extended regular expression; the patterns are repeatable):
]==] .. help.group("views") .. [==[

perf.data (lgprof [options] [image-file] perf.data; the selections
--pid, --tid, --comm, --dso are repeatable and apply to every output):
]==] .. help.group("perf") .. "\ngprof's options:\n" .. help.group("gprof") .. [==[
SPEC: FUNC, FILE, LINE, FILE:FUNC or FILE:LINE (gprof's symspecs).
@FILE (any argument, in every mode): the words of FILE instead (quotes and
backslashes as in a shell; a file that cannot be opened stays @FILE).

Exit status: 0 success, 1 bad input, 2 usage error, 3 a threshold failed
(doctor: an error or a warning found), 4 (record) the program failed.
]==]
end)
--- lgprof's bug-report address (as README.md and doc/lgprof.1 give it).
options.BUGS = "Report bugs to <https://github.com/lgprof/lgprof/issues>.\n"
local VERSION_TEXT = [==[
GNU gprof (GNU Binutils for Debian) 2.40
Based on BSD gprof, copyright 1983 Regents of the University of California.
This program is free software.  This program has absolutely no warranty.
]==]

-- The parts of a gprof report (st.style, st.user).
local FLAT, GRAPH, INFO, SUM, EXEC, ANNO = 1, 2, 4, 8, 16, 32
local FUNC_ORDER, FILE_ORDER = 64, 128 -- -r, -R
options.FLAT, options.GRAPH, options.INFO, options.SUM = FLAT, GRAPH, INFO, SUM
options.EXEC, options.ANNO = EXEC, ANNO
options.FUNC_ORDER, options.FILE_ORDER = FUNC_ORDER, FILE_ORDER

-- The getopt spec of each mode, from the registry: gprof's options (their
-- long names abbreviable) and the mode's own (spelt out). Each getopt key
-- is the registry entry itself.
local SPECS = {}
local function spec_of(mode)
  if SPECS[mode] then return SPECS[mode] end
  local short, long = {}, {}
  for _, e in ipairs(registry.of_mode(mode)) do
    if e.short then short[e.short] = { e, e.arg } end
    if e.long then long[e.long] = { e, e.arg, exact = not e.gprof or nil } end
  end
  SPECS[mode] = { short = short, long = long }
  return SPECS[mode]
end
options.spec = spec_of
-- the modes where the words after "--" are the script's arguments
local SCRIPT_ARGS = { script = true, standalone = true, record = true }

-- How each mode is asked for its help (the pointer of a usage error).
local HELP_COMMAND = {
  gprof = "lgprof --help", check = "lgprof check --help", merge = "lgprof merge --help",
  doctor = "lgprof doctor --help", record = "lgprof record --help",
  diff = "lgprof --diff --help", script = "lgprof --script --help",
}

--- The command that prints a mode's usage: "lgprof check --help", ...; for
-- a standalone script, "lua5.4 SCRIPT --help" with the script's name.
function options.help_command(mode)
  if mode == "standalone" then
    return ("lua5.4 %s --help"):format(arg and arg[0] or "FILE.lua")
  end
  return HELP_COMMAND[mode or "gprof"]
end

--- The usage text of a mode, as -h/--help prints it (with the bug address).
function options.usage(mode)
  local text
  if mode == nil or mode == "gprof" then
    text = options.USAGE
  elseif mode == "standalone" then
    text = require("lgprof.cmd.script").STANDALONE_USAGE
  else
    text = require("lgprof.cmd." .. mode).USAGE
  end
  return text .. options.BUGS
end

--- Writes "lgprof: msg" and a pointer to the mode's --help to err (one line
-- each: the usage text would bury the message); returns 2, the exit status
-- of a usage error.
function options.usage_error(err, msg, mode)
  err:write("lgprof: ", msg, "\nTry '", options.help_command(mode), "' for more information.\n")
  return 2
end

--- Does the argument of --script or --diff ask for help instead of naming a
-- file ("lgprof --script --help")? A file of that name is "./--help".
function options.asks_help(v)
  return v == "--help" or v == "-h"
end

-- What each of gprof's options sets in the state st: handler(st, value,
-- out, err) -> an exit status when the command ends here (help, version, a
-- bad value). The value is the registry's (typed) value, nil when none.
local function add_spec(st, tab, s) st.specs[#st.specs + 1] = { tab, s } end
local function set(field, value) return function(st) st[field] = value end end
local function specs(...)
  local tabs = { ... }
  return function(st, v)
    for _, tab in ipairs(tabs) do add_spec(st, tab, v) end
  end
end
-- -i, -s, -p, -q: a part of the report asked for (with NAME: only NAME's entries)
local function show(part, tab_of)
  return function(st, v)
    if v then add_spec(st, tab_of(v), v) end
    st.style = st.style | part; st.user = st.user | part
  end
end
-- -P, -Q: a part left out (with NAME: only NAME's entries)
local function hide(part, tab_of)
  return function(st, v)
    if v then add_spec(st, tab_of(v), v); st.style = st.style | part
    else st.style = st.style & ~part end
    st.user = st.user | part
  end
end
local function graph_tab(incl, excl)
  return function(v) return v:find("/", 1, true) and incl or excl end
end
local FORMATS = { a = "auto", m = "magic", b = "bsd", ["4"] = "4.4bsd", p = "prof" }

local HANDLERS = {
  h = function(st, _, out)
    out:write(options.usage(st.mode))
    return 0
  end,
  v = function(_, _, out, err)
    out:write(VERSION_TEXT)
    err:write("(lgprof ", lgprof.VERSION, ", a reimplementation of the above)\n")
    return 0
  end,
  a = set("no_static", true), b = set("brief", true), D = set("functions_only", true),
  T = set("traditional", true), z = set("zeros", true), ["no-demangle"] = set("demangle", false),
  l = set("line", true), L = set("print_path", true), c = set("static_call_graph", true),
  S = function(st, v) st.symbol_file = v end,
  ["inline-file-names"] = set("inline_file_names", true),
  B = function(st) st.style = st.style | GRAPH end,
  e = specs("excl_graph"), E = specs("excl_time", "excl_graph"),
  f = specs("incl_graph"), F = specs("incl_time", "incl_graph"),
  k = specs("excl_arcs"), n = specs("incl_time"), N = specs("excl_time"),
  i = show(INFO), s = show(SUM), r = show(FUNC_ORDER),
  R = function(st, v) st.map_file = v; show(FILE_ORDER)(st) end,
  A = show(ANNO, function() return "incl_anno" end), J = hide(ANNO, function() return "excl_anno" end),
  C = show(EXEC, function() return "incl_exec" end), Z = hide(EXEC, function() return "excl_exec" end),
  x = set("all_lines", true), y = set("separate_files", true),
  I = function(st, v)
    for dir in (v .. ":"):gmatch("([^:]*):") do st.dirs[#st.dirs + 1] = dir end
  end,
  -- (-t, -m, -w: the registry converts their values as gprof does)
  t = function(st, v) st.table_length = math.max(0, v) end,
  m = function(st, v) st.min_count = v end,
  p = show(FLAT, function() return "incl_flat" end), P = hide(FLAT, function() return "excl_flat" end),
  q = show(GRAPH, graph_tab("incl_arcs", "incl_graph")), Q = hide(GRAPH, graph_tab("excl_arcs", "excl_graph")),
  O = function(st, v, _, err)
    st.format = FORMATS[v:sub(1, 1)]
    if not st.format then return options.usage_error(err, v .. ": unknown file format", st.mode) end
  end,
  w = function(st, v) st.width = math.max(1, v) end,
  demangle = function(st, v, _, err)
    st.demangle = true
    if v then
      if not pcall(lgprof._core.demangle, "_Z1fv", v) then
        return options.usage_error(err, "unknown demangling style `" .. v .. "'", st.mode)
      end
      st.demangle = v
    end
  end,
}
-- The state's field of lgprof's own option e set to value: appended for a
-- repeatable one, else the last one wins. Returns a usage message if e may
-- be given once only and was given before.
local function store(st, e, value, text)
  st.text[e.key] = text -- as typed, for descriptions ("0.5%")
  if e.list then
    st[e.key] = st[e.key] or {}
    table.insert(st[e.key], value)
  elseif e.once and st[e.key] ~= nil then
    return ("--%s given twice"):format(e.long)
  else
    st[e.key] = value
  end
end

--- Parses a command line. mode: "gprof" (default), "check", "merge",
-- "diff", "doctor", "script" or "standalone" (lgprof.script). Every value is
-- checked against its type here (lgprof.cli.registry), once. Returns the
-- state: gprof's options as the handlers above set them, lgprof's own under
-- their registry keys (typed; lists for repeatable ones), st.rest: the words
-- after "--", the script's arguments (in the other modes they are more
-- files); or nil and an exit status (the message is written; 0 when the
-- help was asked for and written).
function options.parse(args, out, err, mode)
  mode = mode or "gprof"
  local st = {
    specs = {}, style = 0, user = 0, width = 80, demangle = true,
    zeros = false, brief = false, traditional = false, format = "auto",
    dirs = {}, table_length = 10, min_count = 1,
    mode = mode,
    given = {}, -- gprof's options given: letter -> true ("bare": -p/-q/-P/-Q without SPEC)
    order = {}, -- lgprof's own options given, in order: their registry entries
    text = {}, -- lgprof's own options' last values as typed, by key
  }
  local opts, operands, rest = getopt.parse(args, spec_of(mode))
  if not opts then
    local long = operands:match("^unrecognized option '%-%-([^=']+)")
    local views = require "lgprof.cli.views"
    if long and mode ~= "gprof" and views.OPTIONS[long] then
      -- the views are for --format and --annotate-lines (lgprof.cliview)
      operands = views.not_here(long, mode)
    elseif long then -- another mode's option: say which modes take it
      local names = { gprof = "the report", diff = "--diff", script = "--script" }
      local function name(m) return names[m] or "lgprof " .. m end
      local where = {}
      for _, m in ipairs(registry.modes_taking(long)) do where[#where + 1] = name(m) end
      if #where == 1 and where[1] == "--" .. long then -- a mode of its own
        operands = ("--%s cannot be combined with %s"):format(long, name(mode))
      elseif #where > 0 then
        operands = ("--%s does not apply to %s (it is an option of %s)"):format(long, name(mode),
          table.concat(where, ", "))
      end
    end
    return nil, options.usage_error(err, operands, mode)
  end
  for _, o in ipairs(opts) do
    local e, v = o[1], o[2]
    if e.unsupported then
      return nil, options.usage_error(err, ("-%s/--%s: not supported (%s)"):format(e.short, e.long,
        e.unsupported), mode)
    end
    if e.launcher then -- (alone, the launcher answered it)
      return nil, options.usage_error(err, ("--%s takes no other argument"):format(e.long), mode)
    end
    if mode == "gprof" and e.needs and not e.modes.gprof then -- --max-growth without --diff
      return nil, options.usage_error(err, ("--%s needs --%s"):format(e.long, e.needs), e.needs)
    end
    if e.asks_help and v and options.asks_help(v) then -- "lgprof --diff --help"
      out:write(options.usage(mode))
      return nil, 0
    end
    local value, msg = registry.value(e, v)
    if value == nil then return nil, options.usage_error(err, msg, mode) end
    if e.gprof then
      local key = e.short or e.long
      st.given[key] = v == nil and "bare" or true
      local status = HANDLERS[key](st, v ~= nil and value or nil, out, err)
      if status then return nil, status end
    else
      msg = store(st, e, value, v)
      if msg then return nil, options.usage_error(err, msg, mode) end
      st.order[#st.order + 1] = e
    end
  end
  if not SCRIPT_ARGS[mode] then
    table.move(rest, 1, #rest, #operands + 1, operands)
    rest = {}
  end
  if st.style & FUNC_ORDER ~= 0 and st.style & FILE_ORDER ~= 0 then -- gprof's message and status
    err:write("lgprof: Only one of --function-ordering and --file-ordering may be specified.\n")
    return nil, 1
  end
  st.operands, st.rest = operands, rest
  -- (a stream is read only when it is the one operand: before an other,
  -- it is the image, which must be a regular file)
  if operands[1] and lgprof._core.is_perfdata(operands[1], #operands == 1) then
    -- a perf.data file names its binaries: the image is optional, and an
    -- operand that is a perf.data is the profile (st.exe nil)
    st.gmons = table.move(operands, 1, #operands, 1, {})
    return st
  end
  st.exe = operands[1] or "a.out"
  st.gmons = table.move(operands, 2, #operands, 1, {})
  if #st.gmons == 0 then st.gmons[1] = "gmon.out" end
  return st
end

--- The first of lgprof's own options given (command-line order) whose
-- registry entry has group `group`, or nil: the option a message names.
function options.first_given(st, group)
  for _, e in ipairs(st.order or {}) do
    if e.group == group then return e end
  end
end

--- The options of lgprof.open for a parsed command line.
function options.open_options(st)
  local o = {
    no_static = st.no_static, functions_only = st.functions_only,
    format = st.format, demangle = st.demangle, symbol_file = st.symbol_file,
    static_call_graph = st.static_call_graph, static_arcs = st.static_arcs,
    -- gprof -l, and -s (whose gmon.sum holds arcs from line symbols)
    granularity = (st.line or st.style & SUM ~= 0) and "line" or "function",
    map_file = st.style & FILE_ORDER ~= 0 and st.map_file or nil,
    clones = st.clones, -- gcc's clones: "keep", or gprof's rule (nil, "gprof")
    -- perf.data's reader (a gmon profile has none of them: lgprof.cli.main)
    event = st.event, symfs = st.symfs, buildid_dir = st.buildid_dir, search_dirs = st.search_dir,
    no_inline = st.no_inline, off_cpu_state = st.off_cpu_state, time_range = st.time_range,
    sample_times = st.sample_times, -- (--format=html: the page's timeline)
    perf = st.perf, -- combined with the gmon files (lgprof.open's option perf)
    progress = true, -- on stderr, only when it is a terminal (csrc/lua/lsampled.c)
  }
  local order = {}
  for _, s in ipairs(st.specs) do
    o[s[1]] = o[s[1]] or {}
    table.insert(o[s[1]], s[2])
    order[#order + 1] = s[1]
  end
  if #order > 0 then o.spec_order = order end
  return o
end

return options
