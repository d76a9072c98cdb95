--- Every option of the command, of every mode, in one table: its names, its
-- argument and that argument's type, the modes it belongs to, what it needs,
-- its help line, and where its value goes in the mode's options table.
-- lgprof.cli.options builds the getopt tables and validates the values from
-- it; lgprof.cli.help writes the usage texts, man page entries and Markdown
-- tables from it.
--
-- An entry:
--   short, long   the names: a letter, a long name (gprof's long names may
--                 be abbreviated as getopt_long allows; lgprof's own must be
--                 spelt out, so that gprof's abbreviations keep working)
--   arg           "none", "required" or "optional" (-pSPEC, --demangle=STYLE)
--   type          what the value is (registry.TYPES: the one parse of each)
--   modes         the modes that take it (registry.MODES; gprof's options:
--                 every mode)
--   needs         the mode the option belongs to when it is given in gprof's
--                 mode ("--max-growth needs --diff")
--   key           lgprof's own options: the field of the options table
--   list          repeatable: the values are a list in command-line order
--                 (otherwise the last one given wins, as getopt's options)
--   once          given twice is a usage error
--   nonempty      an empty value is a usage error
--   asks_help     a value of --help or -h prints the mode's usage
--   formats       the --format values that take the option (another one:
--                 a usage error); writer: the writer's option it sets
--   bad           the usage message of a bad value (a format, %s the value)
--   launcher      answered before the parse (bin/lgprof.lua), alone only
--   gprof         one of gprof 2.40's options (handled in lgprof.cli.options)
--   group         the part of the help that lists it
--   metavar, help the argument's name and the one-line help
local args = require "lgprof.util.args"

local registry = {}

--- The modes: gprof's (lgprof [options] ..., --format=FMT and the other
-- lgprof options of that command line), then lgprof's own.
registry.MODES = { "gprof", "diff", "check", "doctor", "merge", "script", "standalone", "record" }

local ALL = {}
for _, m in ipairs(registry.MODES) do ALL[m] = true end
local function modes(...)
  local set = {}
  for _, m in ipairs({ ... }) do set[m] = true end
  return set
end

-- C's conversions, as gprof applies them to its numeric options: blanks, a
-- sign, the digits that follow (none: 0); an overflow gives the limit.
-- Integers wrap as the C conversions do.
local function digits_over(digits, limit)
  digits = digits:gsub("^0+", "")
  return #digits > #limit or (#digits == #limit and digits > limit)
end
local function number_of(digits)
  local n = 0
  for d in digits:gmatch("%d") do n = n * 10 + tonumber(d) end
  return n
end

--- strtoul(v, NULL, 10) as a 64-bit pattern ("-1" is all ones: Lua -1).
function registry.strtoul(v)
  local sign, digits = v:match("^[ \t\n\v\f\r]*([+-]?)(%d*)")
  if digits_over(digits, "18446744073709551615") then return -1 end
  local n = number_of(digits)
  return sign == "-" and -n or n
end

--- atoi(v): strtol (saturated at the long's limits) cut to a 32-bit int.
function registry.atoi(v)
  local sign, digits = v:match("^[ \t\n\v\f\r]*([+-]?)(%d*)")
  local n
  if digits_over(digits, sign == "-" and "9223372036854775808" or "9223372036854775807") then
    n = sign == "-" and math.mininteger or math.maxinteger
  else
    n = number_of(digits)
    if sign == "-" then n = -n end
  end
  n = n & 0xffffffff
  return n >= 0x80000000 and n - 0x100000000 or n
end

-- A decimal integer (digits, an optional sign) from lo to hi, or nil.
local function integer_in(v, lo, hi)
  if not v:match("^[+-]?%d+$") then return nil end
  local n = math.tointeger(tonumber(v))
  if not n or n < lo or n > hi then return nil end
  return n
end

-- A finite decimal number from lo to hi (no hex, nan or inf), or nil.
local function number_in(v, lo, hi)
  if not v:match("^[+-]?%d*%.?%d*[eE]?[+-]?%d*$") or not v:match("%d") then return nil end
  local n = tonumber(v)
  if not n or n ~= n or n < lo or n > hi then return nil end
  return n
end

local PATTERN_HELP = "a POSIX extended regular expression"

--- The value types: each check(v, entry) returns the typed value, or nil
-- and what was expected (the message's end); `describe` says it in words.
-- No value of any option may raise: everything is checked here.
registry.TYPES = {
  string = { describe = "text", check = function(v) return v end },
  path = { describe = "a file name", check = function(v) return v end },
  symspec = { describe = "FUNC, FILE, LINE, FILE:FUNC or FILE:LINE", check = function(v) return v end },
  -- gprof's numbers: as gprof reads them, never refused
  atoi = { describe = "an integer (as C's atoi reads it)", check = registry.atoi },
  strtoul = { describe = "an integer (as C's strtoul reads it)", check = registry.strtoul },
  integer = {
    describe = function(e)
      if e.max == math.maxinteger then return ("an integer >= %d"):format(e.min) end
      return ("an integer from %d to %d"):format(e.min, e.max)
    end,
    check = function(v, e) return integer_in(v, e.min, e.max) end,
  },
  number = {
    describe = function(e) return ("a number from %g to %g"):format(e.min, e.max) end,
    check = function(v, e) return number_in(v, e.min, e.max) end,
  },
  share = {
    describe = function(e) return args.share_expected(e.max) end,
    check = function(v, e) return args.share(v, e.max or 1) end,
  },
  confidence = {
    describe = "a confidence from 0 to 1, 1 excluded (0.95 or 95%; 0: no statistics)",
    check = function(v) return require("lgprof.analysis.stats").confidence(v) end,
  },
  enum = {
    describe = function(e) return table.concat(e.values, ", ") end,
    check = function(v, e)
      for _, x in ipairs(e.values) do if x == v then return v end end
      return nil
    end,
  },
  pattern = {
    describe = PATTERN_HELP,
    check = function(v)
      local perr = args.pattern_error(v)
      if perr then return nil, perr end
      return v
    end,
  },
  -- PATTERN=LIMIT (check's thresholds; PATTERN optional for --max-growth)
  limit = {
    describe = function(e) return "PATTERN=" .. (e.limit == "max_calls" and "N" or "SHARE") end,
    check = function(v, e)
      local pattern, value = args.pattern_value(v)
      if not pattern and e.default_pattern then pattern, value = e.default_pattern, v end
      if not pattern then return nil, ("expected %s, got '%s'"):format(e.metavar, v) end
      local limit, what = require("lgprof.analysis.check").limit(e.limit, value)
      if not limit then return nil, ("'%s' is not %s"):format(value, what) end
      local perr = args.pattern_error(pattern) -- "bad pattern 'PATTERN': why"
      if perr then return nil, perr end
      return { kind = e.limit, pattern = pattern, limit = limit }
    end,
  },
  -- --by: thread, process, comm or dso, a comma list nesting them
  groupkeys = {
    describe = "thread, process, comm or dso (a comma list nests: comm,dso)",
    check = function(v) return require("lgprof.analysis.groups").parse(v) end,
  },
  -- perf.data's --off-cpu-state and --time-range: checked by the reader's own parsers
  offstates = {
    describe = "S, D and R, comma-separated",
    check = function(v) return require("lgprof")._core._off_cpu_state(v) and v or nil end,
  },
  timerange = {
    describe = "FROM,TO (seconds from the first sample, 10%,20%, or perf's timestamps)",
    check = function(v) return require("lgprof")._core._time_range(v) and v or nil end,
  },
  -- --min-width: pixels, or a percent of the picture's width
  width = {
    describe = "pixels (0.1) or a percent of the width (0.05%)",
    check = function(v)
      local px = v:match("^%d+%.?%d*$") and tonumber(v)
      if px and px < math.huge then return px end
      if v:match("%%%s*$") and args.share(v, 1) then return v end
      return nil
    end,
  },
}

local EXPORT_FORMATS = { "gprof", "text", "callgrind", "json", "csv", "csv-arcs", "folded", "dot",
                         "html", "svg", "pprof", "speedscope" }
registry.EXPORT_FORMATS = EXPORT_FORMATS

-- gprof's options: every mode reads the files with them (not_in: but
-- that mode, whose own option has the letter: record's -F HZ).
local function g(e)
  e.gprof, e.modes, e.group = true, ALL, "gprof"
  if e.not_in then
    e.modes = {}
    for m in pairs(ALL) do e.modes[m] = m ~= e.not_in or nil end
  end
  e.arg = e.arg or "none"
  return e
end

registry.OPTIONS = {
  g { short = "a", long = "no-static", help = "ignore static functions" },
  g { short = "b", long = "brief", help = "no explanatory blurbs" },
  g { short = "D", long = "ignore-non-functions", help = "ignore local symbols that are not functions" },
  g { short = "p", long = "flat-profile", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "flat profile (only SPEC's entries)" },
  g { short = "P", long = "no-flat-profile", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "no flat profile (or all but SPEC's)" },
  g { short = "q", long = "graph", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "call graph (only SPEC; FROM/TO: arcs)" },
  g { short = "Q", long = "no-graph", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "no call graph (or all but SPEC)" },
  g { short = "B", help = "the call graph" },
  g { short = "e", arg = "required", type = "symspec", metavar = "NAME",
      help = "hide NAME from the call graph" },
  g { short = "E", arg = "required", type = "symspec", metavar = "NAME",
      help = "hide NAME from the call graph, and its time" },
  g { short = "f", arg = "required", type = "symspec", metavar = "NAME",
      help = "graph only NAME and its descendants" },
  g { short = "F", arg = "required", type = "symspec", metavar = "NAME", not_in = "record",
      help = "graph only NAME and its descendants, and only their time" },
  g { short = "k", arg = "required", type = "symspec", metavar = "FROM/TO",
      help = "delete the arcs from FROM to TO" },
  g { short = "n", long = "time", arg = "required", type = "symspec", metavar = "SPEC",
      help = "propagate time only from SPEC" },
  g { short = "N", long = "no-time", arg = "required", type = "symspec", metavar = "SPEC",
      help = "propagate no time from SPEC" },
  g { short = "z", long = "display-unused-functions", help = "list unused functions too" },
  g { short = "C", long = "exec-counts", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "execution counts (only SPEC's)" },
  g { short = "Z", long = "no-exec-counts", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "no execution counts (or all but SPEC's)" },
  g { short = "A", long = "annotated-source", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "source files with their counts (SPEC's lines)" },
  g { short = "J", long = "no-annotated-source", arg = "optional", type = "symspec", metavar = "SPEC",
      help = "no annotated source (or all but SPEC)" },
  g { short = "I", long = "directory-path", arg = "required", type = "string", metavar = "DIRS",
      help = "where to look for sources (DIR:DIR..., then $GPROF_PATH)" },
  g { short = "x", long = "all-lines", help = "annotate every line of a counted block" },
  g { short = "y", long = "separate-files", help = "annotate each source into BASENAME-ann" },
  g { short = "t", long = "table-length", arg = "required", type = "atoi", metavar = "N",
      help = "rows of the \"Top N Lines\" table (0 or less: none)" },
  g { short = "m", long = "min-count", arg = "required", type = "strtoul", metavar = "N",
      help = "counts below N show as #####" },
  g { short = "T", long = "traditional", help = "BSD layout (call graph first, no demangling)" },
  g { short = "w", long = "width", arg = "required", type = "atoi", metavar = "N",
      help = "width of the index (less than 1: 1)" },
  g { short = "i", long = "file-info", help = "describe the profile files" },
  g { short = "s", long = "sum", help = "write the summed profile to gmon.sum" },
  g { short = "O", long = "file-format", arg = "required", type = "string", metavar = "x",
      help = "profile format: a(uto), m(agic), b(sd), 4(.4bsd)" },
  g { long = "demangle", arg = "optional", type = "string", metavar = "STYLE",
      help = "demangle C++/Rust/D/Ada names (the default)" },
  g { long = "no-demangle", help = "do not demangle names" },
  g { short = "v", long = "version", help = "print the version and exit" },
  g { short = "h", long = "help", help = "print this help and exit" },
  g { short = "l", long = "line", help = "line-by-line profile (symbols are source lines)" },
  g { long = "inline-file-names", help = "file and line after each name" },
  g { short = "L", long = "print-path", help = "full source paths in those names" },
  g { short = "r", long = "function-ordering", help = "suggested function link order" },
  g { short = "R", long = "file-ordering", arg = "required", type = "path", metavar = "MAP",
      help = "suggested .o link order (MAP: the output of nm --extern-only --defined-only -v"
        .. " --print-file-name on the .o files)" },
  g { short = "S", long = "external-symbol-table", arg = "required", type = "path", metavar = "FILE",
      help = "function symbols from FILE (nm output: ADDRESS TYPE NAME, types t and T)" },
  g { short = "c", long = "static-call-graph", help = "add the calls gprof finds in the code (count 0)" },
  g { short = "d", long = "debug", arg = "optional", type = "string", metavar = "N",
      unsupported = "a dump of gprof's own tables",
      help = "not supported, refused with exit status 2 (a dump of gprof's own tables; the Lua API"
        .. " gives the data)" },

  -- gprof's command line, lgprof's own options
  { long = "format", arg = "required", type = "enum", values = EXPORT_FORMATS, key = "output_format",
    modes = modes("gprof"), group = "format", metavar = "FMT", asks_help = true,
    bad = "unknown format '%s' (" .. table.concat(EXPORT_FORMATS, ", ") .. ")",
    help = "write the profile in another format (gprof: the default)" },
  { long = "granularity", arg = "required", type = "enum", values = { "function", "line" },
    key = "granularity", modes = modes("gprof"), group = "format", metavar = "G",
    bad = "--granularity=%s: function or line",
    help = "line: line-level rows (--format=json, csv, callgrind)" },
  { long = "noise-floor", arg = "required", type = "number", min = 0, max = 2 ^ 53,
    key = "noise_floor", modes = modes("gprof"), group = "format", metavar = "N",
    formats = { "text" }, writer = "noise_floor",
    bad = "--noise-floor=%s: a number of samples from 0 to 2^53",
    help = "--format=text: samples below which a function is not ranked (default 10)" },
  { long = "static-arcs", arg = "none", key = "static_arcs", modes = modes("gprof"), group = "lgprof",
    help = "add every direct call and tail jump of the code (x86-64) as arcs of count 0" },
  -- (N up to the core's limit: more members than that no profile has)
  { long = "break-cycles", arg = "optional", type = "integer", min = 2, max = 0xffffffff, default = 2,
    key = "break_cycles", modes = modes("gprof"), group = "lgprof", metavar = "N",
    bad = "--break-cycles=%s: N must be an integer from 2 to 4294967295",
    help = "propose arcs whose removal breaks every cycle of N (default 2) or more members" },
  { long = "annotate-lines", arg = "optional", type = "path", nonempty = true, default = true,
    key = "annotate_lines", modes = modes("gprof"), group = "lgprof", metavar = "FILE",
    help = "list FILE (or every source file with samples) with each line's time" },
  { long = "annotate-asm", arg = "optional", type = "pattern", nonempty = true, default = true,
    key = "annotate_asm", modes = modes("gprof", "diff"), group = "lgprof", metavar = "RE",
    help = "list the instructions of the functions matching RE (or the hottest) with their samples" },
  -- views (profile:filter), for --format and --annotate-lines
  { long = "focus", arg = "required", type = "pattern", list = true, key = "focus",
    modes = modes("gprof", "diff"), group = "views", metavar = "RE",
    help = "keep the paths through functions matching RE" },
  { long = "ignore", arg = "required", type = "pattern", list = true, key = "ignore",
    modes = modes("gprof", "diff"), group = "views", metavar = "RE", help = "drop the functions matching RE" },
  { long = "hide", arg = "required", type = "pattern", list = true, key = "hide",
    modes = modes("gprof", "diff"), group = "views", metavar = "RE",
    help = "hide the functions matching RE (their time goes to their callers)" },
  { long = "prune-from", arg = "required", type = "pattern", list = true, key = "prune_from",
    modes = modes("gprof"), group = "views", metavar = "RE",
    help = "drop the descendants of functions matching RE" },
  { long = "node-fraction", arg = "required", type = "share", max = 1, key = "node_fraction",
    modes = modes("gprof"), group = "views", metavar = "F",
    bad = "--node-fraction=%s: not a share (a fraction from 0 to 1 or a percent: 0.005 or 0.5%%)",
    help = "show the functions with at least F of the time (0.005 or 0.5%)" },
  { long = "edge-fraction", arg = "required", type = "share", max = 1, key = "edge_fraction",
    modes = modes("gprof"), group = "views", metavar = "F",
    bad = "--edge-fraction=%s: not a share (a fraction from 0 to 1 or a percent: 0.005 or 0.5%%)",
    help = "show the arcs with at least F of the time (0.005 or 0.5%)" },
  { long = "top", arg = "required", type = "integer", min = 0, max = math.maxinteger, key = "top",
    modes = modes("gprof"), group = "views", metavar = "N", bad = "--top=%s: not a non-negative integer",
    help = "the N functions with most time" },
  { long = "min-calls", arg = "required", type = "integer", min = 0, max = math.maxinteger,
    key = "min_calls", modes = modes("gprof"), group = "views", metavar = "N",
    bad = "--min-calls=%s: not a non-negative integer", help = "the functions called N times or more" },
  -- perf.data's reading (perf report's spellings); a gmon profile refuses them
  { long = "event", arg = "required", type = "string", key = "event",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf",
    metavar = "NAME", help = "perf.data: the event whose samples are read (default: the first with samples);"
      .. " off-cpu: time off the CPU, wall: on-CPU samples and off-CPU time, from the recorded switches" },
  { long = "off-cpu-state", arg = "required", type = "offstates", key = "off_cpu_state",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf", metavar = "S,D,R",
    help = "perf.data, --event=off-cpu or wall: only the waits of these kinds (S sleeping, D"
      .. " uninterruptible, R preempted while runnable; default all)" },
  { long = "time-range", arg = "required", type = "timerange", list = true, key = "time_range",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf", metavar = "FROM,TO",
    help = "perf.data: only the samples from FROM (included) to TO (excluded): seconds from the first"
      .. " sample, percentages (10%,20%) or perf's timestamps; repeatable" },
  { long = "sample-times", arg = "none", key = "sample_times", modes = modes("gprof"), group = "perf",
    formats = { "json" }, writer = "sample_times",
    help = "perf.data, --format=json: each sample's time and stack, per thread (\"sample_times\")" },
  { long = "symfs", arg = "required", type = "path", key = "symfs",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf",
    metavar = "DIR", help = "perf.data: look for the recorded binaries under DIR" },
  { long = "search-dir", arg = "required", type = "path", list = true, key = "search_dir",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf",
    metavar = "DIR", help = "perf.data: look for binaries and debug files in DIR by build-id or file name"
      .. " (repeatable)" },
  { long = "buildid-dir", arg = "required", type = "path", key = "buildid_dir",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf",
    metavar = "DIR", help = "perf.data: the build-id cache (default ~/.debug)" },
  { long = "no-inline", arg = "none", key = "no_inline",
    modes = modes("gprof", "diff", "check", "doctor", "script"), group = "perf",
    help = "perf.data: no frames for inlined functions" },
  { long = "perf", arg = "required", type = "path", key = "perf",
    modes = modes("gprof", "check", "doctor", "script"), group = "perf", metavar = "FILE",
    help = "the perf.data of gmon.out's run: times from its stacks, calls from gmon.out" },
  -- perf.data's selections (profile:filter{pid, tid, comm, dso}): repeatable,
  -- a sample is kept when it matches one value of every option given
  { long = "pid", arg = "required", type = "integer", min = 0, max = 0xffffffff, list = true,
    key = "pid", modes = modes("gprof", "check"), group = "perf", metavar = "N",
    bad = "--pid=%s: a process id (an integer from 0 to 4294967295)",
    help = "perf.data: only the samples of process N" },
  { long = "tid", arg = "required", type = "integer", min = 0, max = 0xffffffff, list = true,
    key = "tid", modes = modes("gprof", "check"), group = "perf", metavar = "N",
    bad = "--tid=%s: a thread id (an integer from 0 to 4294967295)",
    help = "perf.data: only the samples of thread N" },
  { long = "comm", arg = "required", type = "string", list = true, key = "comm",
    modes = modes("gprof", "diff", "check"), group = "perf", metavar = "NAME",
    help = "perf.data: only the samples of threads named NAME" },
  { long = "dso", arg = "required", type = "path", list = true, key = "dso",
    modes = modes("gprof", "diff", "check"), group = "perf", metavar = "PATH",
    help = "perf.data: only the samples whose leaf is in the binary PATH (as recorded)" },
  { long = "by", arg = "required", type = "groupkeys", list = true, key = "by",
    modes = modes("gprof"), group = "perf", metavar = "KEYS", formats = { "text", "json", "csv", "html" },
    help = "perf.data: the samples by thread, process, comm or dso, a row per group with its"
      .. " time and hottest functions (repeatable; comm,dso nests them, as perf report's sort keys do;"
      .. " default --format=text)" },
  -- the pictures' (flamegraph.pl's spellings)
  { long = "title", arg = "required", type = "string", key = "title", modes = modes("gprof"),
    group = "svg", metavar = "TEXT", formats = { "svg", "dot", "html" }, writer = "title",
    help = "the picture's title (svg, dot, html)" },
  { long = "inverted", arg = "none", key = "inverted", modes = modes("gprof"), group = "svg",
    formats = { "svg" }, writer = "icicle", help = "an icicle graph: roots at the top (svg)" },
  { long = "colors", arg = "required", type = "enum", values = { "hash", "self" }, key = "colors",
    modes = modes("gprof"), group = "svg", metavar = "C", formats = { "svg" }, writer = "colors",
    bad = "--colors=%s: hash or self",
    help = "a warm colour per name, or by the frame's self share (svg)" },
  { long = "min-width", arg = "required", type = "width", key = "min_width", modes = modes("gprof"),
    group = "svg", metavar = "PX", formats = { "svg" }, writer = "min_width",
    bad = "--min-width=%s: pixels (0.1) or a percent of the width (0.05%%)",
    help = "leave out frames narrower than PX pixels or P% of the width (svg)" },

  -- lgprof --diff
  { long = "diff", arg = "required", type = "path", list = true, key = "diff", modes = modes("diff"),
    needs = "diff", group = "diff", metavar = "BASE-PROFILE", asks_help = true,
    help = "a base run; repeatable, or a glob pattern ('base/gmon.*', quoted): several base"
      .. " runs are averaged and their spread counts as error" },
  { long = "diff-image", arg = "required", type = "path", key = "diff_image", modes = modes("diff"),
    needs = "diff", group = "diff", metavar = "EXE",
    help = "the executable of the bases (default: image-file)" },
  { long = "max-growth", arg = "required", type = "limit", limit = "max_growth", default_pattern = ".",
    list = true, key = "max_growth", modes = modes("diff"), needs = "diff", group = "diff",
    metavar = "[PATTERN=]SHARE",
    help = "fail (exit 3) when a function matching PATTERN (default: any) grew by more than SHARE"
      .. " of the base's total time (0.1 or 10%, may exceed 1), significantly" },
  { long = "format", arg = "required", type = "enum",
    values = { "text", "json", "csv", "folded", "svg", "html" }, key = "output_format",
    modes = modes("diff"), group = "diff", metavar = "FMT",
    bad = "--format: expected text, json, csv, folded, svg or html, got '%s'",
    help = "the table (text, the default), the table as data (json, csv), the stacks' two"
      .. " columns of counts (folded: base new), a differential flame graph (svg) or the"
      .. " comparison page (html)" },
  { long = "diff-shape", arg = "required", type = "enum", values = { "new", "base" },
    key = "diff_shape", modes = modes("diff"), needs = "diff", group = "diff", metavar = "new|base",
    bad = "--diff-shape=%s: new or base",
    help = "--format=svg: the frames' widths from the new profile (the default) or from the"
      .. " base (what disappeared shows)" },
  -- lgprof check (its thresholds in one list, in command-line order)
  { long = "max-self", arg = "required", type = "limit", limit = "max_self", list = true,
    key = "limits", modes = modes("check"), group = "check", metavar = "PATTERN=SHARE",
    help = "a function's own time over the total time" },
  { long = "max-total", arg = "required", type = "limit", limit = "max_total", list = true,
    key = "limits", modes = modes("check"), group = "check", metavar = "PATTERN=SHARE",
    help = "a function's time with its children's" },
  { long = "max-calls", arg = "required", type = "limit", limit = "max_calls", list = true,
    key = "limits", modes = modes("check"), group = "check", metavar = "PATTERN=N",
    help = "a function's number of calls (exact)" },
  { long = "thresholds", arg = "required", type = "path", list = true, key = "thresholds",
    modes = modes("check"), group = "check", metavar = "FILE.lua",
    help = "thresholds from a Lua file returning { max_self = { [PATTERN] = SHARE }, ...,"
      .. " confidence = C }" },
  { long = "confidence", arg = "required", type = "confidence", key = "confidence",
    modes = modes("diff", "check"), needs = "diff", group = "stats", metavar = "C",
    bad = "--confidence: '%s' is not a confidence from 0 to 1, 1 excluded (0.95 or 95%%;"
      .. " 0: no statistics)",
    help = "the confidence of the intervals and the gates (default 0.95 or 95%; 0: no"
      .. " statistics, any breach fails)" },
  -- gcc's clones (f.isra.0, f.cold...): lgprof's own formats, --diff and
  -- check keep them (gprof's rule charges their samples and calls to the
  -- function before them); gprof's report keeps gprof's rule
  { long = "clones", arg = "required", type = "enum", values = { "keep", "gprof" }, key = "clones",
    modes = modes("gprof", "diff", "check"), group = "clones", metavar = "keep|gprof",
    bad = "--clones=%s: keep (gcc's clones as functions of their own) or gprof (gprof's rule:"
      .. " folded into the function before them)",
    help = "gcc's clones (f.isra.0, f.cold...) as functions of their own (keep: the default of"
      .. " --format, --diff and check) or folded into the function before them (gprof)" },
  { long = "no-clone-match", arg = "none", key = "no_clone_match", modes = modes("diff", "check"),
    needs = "diff", group = "clones",
    help = "do not match a clone to its origin across builds (by default lookup.constprop.0 and"
      .. " lookup are one row, \"lookup <- lookup.constprop.0\", when the name is unique among"
      .. " the unmatched ones; a pattern matches a clone through its origin's name)" },
  -- lgprof doctor
  { long = "format", arg = "required", type = "enum", values = { "text", "json" }, key = "output_format",
    modes = modes("doctor"), group = "doctor", metavar = "text|json",
    bad = "--format: expected text or json, got '%s'",
    help = "text blocks (the default) or one JSON document" },
  -- lgprof merge
  { short = "o", long = "output", arg = "required", type = "path", key = "output", modes = modes("merge"),
    group = "merge", metavar = "OUT", help = "the file to write" },
  -- lgprof record
  { short = "o", long = "output", arg = "required", type = "path", key = "output", modes = modes("record"),
    group = "record", metavar = "FILE", help = "keep the recording in FILE (an earlier FILE becomes"
      .. " FILE.old, as perf does)" },
  { long = "fp", arg = "none", key = "fp", modes = modes("record"), group = "record",
    help = "unwind the stacks by frame pointers (perf record -g)" },
  { long = "dwarf", arg = "none", key = "dwarf", modes = modes("record"), group = "record",
    help = "unwind the stacks with DWARF (perf record --call-graph dwarf)" },
  { long = "stack-size", arg = "required", type = "integer", min = 8, max = 65528, key = "stack_size",
    modes = modes("record"), group = "record", metavar = "BYTES",
    help = "DWARF unwinding: the bytes of stack perf copies per sample (default 8192, at most 65528;"
      .. " implies --dwarf)" },
  { short = "F", long = "freq", arg = "required", type = "integer", min = 1, max = 1000000, key = "freq",
    modes = modes("record"), group = "record", metavar = "HZ",
    help = "samples a second (default 999)" },
  { long = "event", arg = "required", type = "string", nonempty = true, key = "event",
    modes = modes("record"), group = "record", metavar = "EVENT",
    help = "the event to sample (default cpu-clock, the one that works in virtual machines)" },
  { long = "off-cpu", arg = "none", key = "off_cpu", modes = modes("record"), group = "record",
    help = "record the context switches too, and report the time off the CPU (--event=off-cpu)" },
  { long = "wall", arg = "none", key = "wall", modes = modes("record"), group = "record",
    help = "record the context switches too, and report each thread's whole life (--event=wall)" },
  { long = "gmon", arg = "none", key = "gmon", modes = modes("record"), group = "record",
    help = "a -pg program: keep its gmon.out and the recording (default perf.data) side by side" },
  { long = "warn-size", arg = "required", type = "integer", min = 0, max = 1000000000, key = "warn_size",
    modes = modes("record"), group = "record", metavar = "MB",
    help = "warn once when the recording passes MB megabytes (default 1000; 0: never)" },
  { long = "dry-run", arg = "none", key = "dry_run", modes = modes("record"), group = "record",
    help = "print the perf command and run nothing" },
  -- answered by the launcher (bin/lgprof.lua) when it is the only word
  { long = "lua-env", arg = "none", key = "lua_env", modes = modes("gprof"), group = "launcher",
    launcher = true, help = "print LUA_PATH/LUA_CPATH lines for standalone scripts (the only argument)" },
  -- lgprof --script
  { long = "script", arg = "required", type = "path", key = "script", once = true, modes = modes("script"),
    needs = "script", group = "script", metavar = "FILE.lua", asks_help = true,
    help = "the Lua report script to run with the profile" },
}

-- lgprof record reports its recording as gprof's command line would: it
-- takes that command line's own options too (--format, the views...)
for _, e in ipairs(registry.OPTIONS) do
  if e.modes.gprof and not e.gprof and not e.launcher then e.modes.record = true end
end

--- The entries of a mode: those it takes, and (in gprof's mode) those that
-- say which mode they need. Returns a list in the registry's order.
function registry.of_mode(mode)
  local list = {}
  for _, e in ipairs(registry.OPTIONS) do
    if e.modes[mode] or (mode == "gprof" and e.needs) then list[#list + 1] = e end
  end
  return list
end

--- The modes that take the long option NAME, in registry.MODES's order
-- (empty when no mode does).
function registry.modes_taking(name)
  local taken = {}
  for _, e in ipairs(registry.OPTIONS) do
    if e.long == name and not e.launcher then
      for m in pairs(e.modes) do taken[m] = true end
    end
  end
  local list = {}
  for _, m in ipairs(registry.MODES) do
    if taken[m] and m ~= "standalone" then list[#list + 1] = m end
  end
  return list
end

--- The entries of a group (in the registry's order).
function registry.group(name)
  local list = {}
  for _, e in ipairs(registry.OPTIONS) do
    if e.group == name then list[#list + 1] = e end
  end
  return list
end

--- How entry e's value is written: "--name=VALUE" or "-c VALUE" (name of the
-- option as given: "--foo" or "-f").
function registry.spelling(e)
  return e.long and "--" .. e.long or "-" .. e.short
end

--- The value of entry e given as v (nil: none given: an optional
-- argument's default, else true), typed; or nil and the usage message.
function registry.value(e, v)
  if v == nil then -- no argument, or an optional one left out: its default (true: given)
    if e.default == nil then return true end
    return e.default
  end
  if v == "" and e.nonempty then return nil, ("%s: an empty value"):format(registry.spelling(e)) end
  local t = registry.TYPES[e.type or "string"]
  local ok, typed, why = pcall(t.check, v, e)
  if ok and typed ~= nil then return typed end
  if not ok then why = nil end -- a checker must not raise; say what is expected instead
  if why then return nil, ("%s: %s"):format(registry.spelling(e), why) end
  if e.bad then return nil, e.bad:format(v) end
  local expected = t.describe
  if type(expected) == "function" then expected = expected(e) end
  return nil, ("%s=%s: expected %s"):format(registry.spelling(e), v, expected)
end

return registry
