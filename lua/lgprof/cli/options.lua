--- The command's options: gprof 2.40's (what each one sets in the parsed
-- state) and lgprof's own per mode, and the parse of a command line.
local lgprof = require "lgprof"
local getopt = require "lgprof.cli.getopt"

local options = {}

-- lgprof --help: lgprof's modes, then gprof's options (every one that the
-- parse accepts: spec/messages_spec.lua checks the list against spec("gprof")).
options.USAGE = [==[
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
  lgprof --lua-env    print LUA_PATH/LUA_CPATH lines for standalone scripts

Views, for every --format=FMT and --annotate-lines (not gprof's report):
  --focus=RE, --ignore=RE, --hide=RE, --prune-from=RE   (repeatable) keep the
                      paths through, drop, hide (time to the callers), drop
                      the descendants of the functions matching RE (POSIX ERE)
  --node-fraction=F, --edge-fraction=F   show functions/arcs with at least F
                      of the time (0.005 or 0.5%)
  --top=N, --min-calls=N   the N functions with most time; called >= N times

gprof's options:
  -a, --no-static               ignore static functions
  -b, --brief                   no explanatory blurbs
  -D, --ignore-non-functions    ignore local symbols that are not functions
  -p[SPEC], --flat-profile[=SPEC]      flat profile (only SPEC's entries)
  -P[SPEC], --no-flat-profile[=SPEC]   no flat profile (or all but SPEC's)
  -q[SPEC], --graph[=SPEC]             call graph (only SPEC; FROM/TO: arcs)
  -Q[SPEC], --no-graph[=SPEC]          no call graph (or all but SPEC)
  -B                            the call graph
  -e NAME, -E NAME              hide NAME from the call graph (-E: its time too)
  -f NAME, -F NAME              graph only NAME and its descendants
  -k FROM/TO                    delete the arcs from FROM to TO
  -n SPEC, --time=SPEC          propagate time only from SPEC
  -N SPEC, --no-time=SPEC       propagate no time from SPEC
  -z, --display-unused-functions   list unused functions too
  -C[SPEC], --exec-counts[=SPEC]       execution counts (only SPEC's)
  -Z[SPEC], --no-exec-counts[=SPEC]    no execution counts (or all but SPEC's)
  -A[SPEC], --annotated-source[=SPEC]  source files with their counts (SPEC's lines)
  -J[SPEC], --no-annotated-source[=SPEC]   no annotated source (or all but SPEC)
  -I DIRS, --directory-path=DIRS  where to look for sources (DIR:DIR..., then
                                $GPROF_PATH)
  -x, --all-lines               annotate every line of a counted block
  -y, --separate-files          annotate each source into BASENAME-ann
  -t N, --table-length=N        rows of the "Top N Lines" table (0: none)
  -m N, --min-count=N           counts below N show as #####
  -T, --traditional             BSD layout (call graph first, no demangling)
  -w N, --width=N               width of the index
  -i, --file-info               describe the profile files
  -s, --sum                     write the summed profile to gmon.sum
  -O x, --file-format=x         profile format: a(uto), m(agic), b(sd), 4(.4bsd)
  --demangle[=STYLE], --no-demangle   demangle C++/Rust/D/Ada names (or not)
  -v, --version                 print the version and exit
  -h, --help                    print this help and exit
  -l, --line                    line-by-line profile (symbols are source lines)
  --inline-file-names           file and line after each name
  -L, --print-path              full source paths in those names
  -r, --function-ordering       suggested function link order
  -R MAP, --file-ordering=MAP   suggested .o link order (MAP: the output of
                                nm --extern-only --defined-only -v
                                --print-file-name on the .o files)
  -S FILE, --external-symbol-table=FILE   function symbols from FILE (nm
                                output: ADDRESS TYPE NAME, types t and T)
  -c, --static-call-graph       add the calls gprof finds in the code (count 0)
  Not supported (refused with exit status 2): -d/--debug (a dump of gprof's
  own tables; the Lua API gives the data).
SPEC: FUNC, FILE, LINE, FILE:FUNC or FILE:LINE (gprof's symspecs).
@FILE (any argument, in every mode): the words of FILE instead (quotes and
backslashes as in a shell; a file that cannot be opened stays @FILE).

Exit status: 0 success, 1 bad input, 2 usage error, 3 a threshold failed
(doctor: an error or a warning found).
]==]
--- lgprof's bug-report address (as the README gives it).
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

-- gprof's getopt string and long options: name -> { letter or key, argument kind }
local SHORT = getopt.short("aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::")
local LONG = {
  ["line"] = { "l", "none" }, ["no-static"] = { "a", "none" },
  ["ignore-non-functions"] = { "D", "none" }, ["display-unused-functions"] = { "z", "none" },
  ["file-ordering"] = { "R", "required" }, ["function-ordering"] = { "r", "none" },
  ["directory-path"] = { "I", "required" }, ["no-demangle"] = { "no-demangle", "none" },
  ["demangle"] = { "demangle", "optional" }, ["print-path"] = { "L", "none" },
  ["inline-file-names"] = { "inline-file-names", "none" },
  ["flat-profile"] = { "p", "optional" }, ["no-flat-profile"] = { "P", "optional" },
  ["graph"] = { "q", "optional" }, ["no-graph"] = { "Q", "optional" },
  ["exec-counts"] = { "C", "optional" }, ["no-exec-counts"] = { "Z", "optional" },
  ["annotated-source"] = { "A", "optional" }, ["no-annotated-source"] = { "J", "optional" },
  ["all-lines"] = { "x", "none" }, ["brief"] = { "b", "none" }, ["debug"] = { "d", "optional" },
  ["help"] = { "h", "none" }, ["file-info"] = { "i", "none" }, ["min-count"] = { "m", "required" },
  ["separate-files"] = { "y", "none" }, ["sum"] = { "s", "none" },
  ["table-length"] = { "t", "required" }, ["time"] = { "n", "required" },
  ["no-time"] = { "N", "required" }, ["traditional"] = { "T", "none" },
  ["version"] = { "v", "none" }, ["width"] = { "w", "required" },
  ["file-format"] = { "O", "required" }, ["static-call-graph"] = { "c", "none" },
  ["external-symbol-table"] = { "S", "required" },
}

-- Options lgprof refuses (never ignores): only gprof's dump of its own tables.
local UNSUPPORTED = {
  d = "-d/--debug",
}

-- lgprof's own options, per mode: name -> argument kind. Their long forms
-- must be spelt out (no abbreviation), so gprof's abbreviations keep working.
-- The parse collects them in st.extra for the mode to interpret.
local EXTRA = {
  gprof = { long = {
    script = "required", diff = "required", ["diff-image"] = "required",
    ["max-growth"] = "required", format = "required", ["annotate-lines"] = "optional",
    granularity = "required", ["static-arcs"] = "none",
    confidence = "required",        -- --diff's significance
    ["break-cycles"] = "optional",  -- arcs whose removal breaks the cycles
    -- views (profile:filter) for --format and lgprof's own reports
    focus = "required", ignore = "required", hide = "required", ["prune-from"] = "required",
    ["node-fraction"] = "required", ["edge-fraction"] = "required", top = "required",
    ["min-calls"] = "required",
    -- --format=svg's (flamegraph.pl's spellings)
    title = "required", inverted = "none", colors = "required", ["min-width"] = "required",
    ["noise-floor"] = "required",   -- --format=text: samples below which self is noise
    clones = "required",            -- keep|gprof: gcc's clones in lgprof's own formats
  } },
  diff = { long = {
    diff = "required", ["diff-image"] = "required", ["max-growth"] = "required",
    confidence = "required",
    clones = "required", ["no-clone-match"] = "none",
  } },
  check = { long = {
    ["max-self"] = "required", ["max-total"] = "required", ["max-calls"] = "required",
    thresholds = "required",
    confidence = "required",
    clones = "required", ["no-clone-match"] = "none",
  } },
  doctor = { long = {
    format = "required",
  } },
  merge = { long = { output = "required" }, short = { o = "output" } },
  script = { long = { script = "required" } },
  standalone = { long = {} },
}
-- the modes where the words after "--" are the script's arguments
local SCRIPT_ARGS = { script = true, standalone = true }

--- The lgprof.getopt spec of a mode: gprof's options plus the mode's own.
local SPECS = {}
local function spec_of(mode)
  if SPECS[mode] then return SPECS[mode] end
  local extra = EXTRA[mode]
  local short, long = {}, {}
  for c, d in pairs(SHORT) do short[c] = d end
  for name, d in pairs(LONG) do long[name] = d end
  for name, kind in pairs(extra.long) do long[name] = { name, kind, exact = true } end
  for c, name in pairs(extra.short or {}) do short[c] = { name, extra.long[name] } end
  SPECS[mode] = { short = short, long = long }
  return SPECS[mode]
end
options.spec = spec_of

-- How each mode is asked for its help (the pointer of a usage error).
local HELP_COMMAND = {
  gprof = "lgprof --help", check = "lgprof check --help", merge = "lgprof merge --help",
  doctor = "lgprof doctor --help",
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

-- What each option sets in the state st: handler(st, value, out, err) -> an
-- exit status when the command ends here (help, version, a bad value).
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
-- How gprof reads -m (strtoul) and -t (atoi: strtol cut to an int): blanks,
-- a sign, the digits that follow (none: 0); an overflow gives the limit
-- (strtol: LONG_MAX or LONG_MIN). Integers wrap, as the C conversions do:
-- strtoul's "-1" is the 64-bit pattern of all ones (Lua -1).
local function digits_over(digits, limit)
  digits = digits:gsub("^0+", "")
  return #digits > #limit or (#digits == #limit and digits > limit)
end
local function number_of(digits)
  local n = 0
  for d in digits:gmatch("%d") do n = n * 10 + tonumber(d) end
  return n
end
function options.strtoul(v)
  local sign, digits = v:match("^[ \t\n\v\f\r]*([+-]?)(%d*)")
  if digits_over(digits, "18446744073709551615") then return -1 end
  local n = number_of(digits)
  return sign == "-" and -n or n
end
function options.atoi(v)
  local sign, digits = v:match("^[ \t\n\v\f\r]*([+-]?)(%d*)")
  local n
  if digits_over(digits, sign == "-" and "9223372036854775808" or "9223372036854775807") then
    n = sign == "-" and math.mininteger or math.maxinteger
  else
    n = number_of(digits)
    if sign == "-" then n = -n end
  end
  n = n & 0xffffffff -- the int's 32 bits, signed
  return n >= 0x80000000 and n - 0x100000000 or n
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
  t = function(st, v) st.table_length = math.max(0, options.atoi(v)) end,
  m = function(st, v) st.min_count = options.strtoul(v) end,
  p = show(FLAT, function() return "incl_flat" end), P = hide(FLAT, function() return "excl_flat" end),
  q = show(GRAPH, graph_tab("incl_arcs", "incl_graph")), Q = hide(GRAPH, graph_tab("excl_arcs", "excl_graph")),
  O = function(st, v, _, err)
    st.format = FORMATS[v:sub(1, 1)]
    if not st.format then return options.usage_error(err, v .. ": unknown file format", st.mode) end
  end,
  w = function(st, v) st.width = math.max(1, tonumber(v:match("^%s*([+-]?%d+)")) or 0) end,
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
for k, name in pairs(UNSUPPORTED) do
  HANDLERS[k] = function(st, _, _, err)
    return options.usage_error(err, name .. ": not supported (a dump of gprof's own tables)", st.mode)
  end
end

--- Parses a command line. mode: "gprof" (default), "check", "merge", "diff",
-- "script" or "standalone" (lgprof.script). Returns the state (st.extra: the
-- lgprof options in order, as {name, value}; st.rest: the words after "--",
-- the script's arguments; in the other modes they are more files), or nil and
-- an exit status (the message is written).
function options.parse(args, out, err, mode)
  mode = mode or "gprof"
  local extra = EXTRA[mode]
  local st = {
    specs = {}, style = 0, user = 0, width = 80, demangle = true,
    zeros = false, brief = false, traditional = false, format = "auto",
    dirs = {}, table_length = 10, min_count = 1,
    extra = {}, mode = mode,
    given = {}, -- gprof's options given: letter -> true ("bare": -p/-q/-P/-Q without SPEC)
  }
  local opts, operands, rest = getopt.parse(args, spec_of(mode))
  if not opts then
    -- the views are for --format and --annotate-lines (lgprof.cliview)
    local view = mode ~= "gprof" and operands:match("^unrecognized option '%-%-([^=']+)")
    if view and require("lgprof.cli.views").OPTIONS[view] then
      operands = require("lgprof.cli.views").not_here(view, mode)
    end
    return nil, options.usage_error(err, operands, mode)
  end
  for _, o in ipairs(opts) do
    if extra.long[o[1]] then
      st.extra[#st.extra + 1] = o
    else
      st.given[o[1]] = o[2] == nil and "bare" or true
      local status = HANDLERS[o[1]](st, o[2], out, err)
      if status then return nil, status end
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
  st.exe = operands[1] or "a.out"
  st.gmons = table.move(operands, 2, #operands, 1, {})
  if #st.gmons == 0 then st.gmons[1] = "gmon.out" end
  return st
end

--- Takes the entries of st.extra whose names are keys of `names` out of it,
-- in place (the others keep their order). Returns them as a list of
-- {name, value}, in command-line order.
function options.take_extra(st, names)
  local taken, n, len = {}, 0, #st.extra
  for i = 1, len do
    local o = st.extra[i]
    if names[o[1]] then
      taken[#taken + 1] = o
    else
      n = n + 1
      st.extra[n] = o
    end
  end
  for i = len, n + 1, -1 do st.extra[i] = nil end
  return taken
end

--- The value of --clones: "keep" or "gprof"; nil and the usage message
-- for another.
function options.clones(v)
  if v == "keep" or v == "gprof" then return v end
  return nil, ("--clones=%s: keep (gcc's clones as functions of their own) or gprof "
    .. "(gprof's rule: folded into the function before them)"):format(v)
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
    clones = st.clones, -- gcc's clones: "keep" or gprof's rule (nil, "gprof")
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
