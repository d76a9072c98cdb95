--- The lgprof command: a drop-in GNU gprof 2.40 (same options, same output),
-- plus lgprof's own modes: `check`, `merge`, `--script`, `--diff`
-- (lgprof.cmd_*, loaded when used).
-- Exit statuses: 0 success, 1 bad input, 2 usage error, 3 a threshold failed.
local lgprof = require "lgprof"
local core = lgprof._core

local cli = {}

local USAGE = [==[
Usage: gprof [-[abcDhilLrsTvwxyz]] [-[ABCeEfFJnNOpPqQRStZ][name]] [-I dirs]
	[-d[num]] [-k from/to] [-m min-count] [-t table-length]
	[--[no-]annotated-source[=name]] [--[no-]exec-counts[=name]]
	[--[no-]flat-profile[=name]] [--[no-]graph[=name]]
	[--[no-]time=name] [--all-lines] [--brief] [--debug[=level]]
	[--function-ordering] [--file-ordering] [--inline-file-names]
	[--directory-path=dirs] [--display-unused-functions]
	[--file-format=name] [--file-info] [--help] [--line] [--min-count=n]
	[--no-static] [--print-path] [--separate-files]
	[--static-call-graph] [--sum] [--table-length=len] [--traditional]
	[--version] [--width=n] [--ignore-non-functions]
	[--demangle[=STYLE]] [--no-demangle] [--external-symbol-table=name] [@FILE]
	[image-file] [profile-file...]
]==]
local BUGS = "Report bugs to <https://sourceware.org/bugzilla/>\n"
local VERSION_TEXT = [==[
GNU gprof (GNU Binutils for Debian) 2.40
Based on BSD gprof, copyright 1983 Regents of the University of California.
This program is free software.  This program has absolutely no warranty.
]==]

-- gprof's getopt string: "aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::"
local SHORT = {}
do
  local spec = "aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::"
  local i = 1
  while i <= #spec do
    local c = spec:sub(i, i)
    if spec:sub(i + 1, i + 2) == "::" then
      SHORT[c] = "optional"; i = i + 3
    elseif spec:sub(i + 1, i + 1) == ":" then
      SHORT[c] = "required"; i = i + 2
    else
      SHORT[c] = "none"; i = i + 1
    end
  end
end

-- Long options: name -> { letter or key, argument kind }
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

-- Options of later issues: refused, never ignored.
local UNSUPPORTED = {
  l = "-l/--line", A = "-A/--annotated-source", C = "-C/--exec-counts",
  J = "-J/--no-annotated-source", Z = "-Z/--no-exec-counts", x = "-x/--all-lines",
  y = "-y/--separate-files", I = "-I/--directory-path", L = "-L/--print-path",
  m = "-m/--min-count", t = "-t/--table-length", r = "-r/--function-ordering",
  R = "-R/--file-ordering", c = "-c/--static-call-graph", S = "-S/--external-symbol-table",
  d = "-d/--debug", ["inline-file-names"] = "--inline-file-names",
}

local FLAT, GRAPH, INFO, SUM = 1, 2, 4, 8

-- lgprof's own options, per mode: name -> argument kind. Their long forms
-- must be spelt out (no abbreviation), so gprof's abbreviations keep working.
local EXTRA = {
  gprof = { long = { script = "required", diff = "required", ["diff-image"] = "required",
                     ["max-growth"] = "required", format = "required" } },
  diff = { long = { diff = "required", ["diff-image"] = "required",
                    ["max-growth"] = "required" } },
  check = { long = { ["max-self"] = "required", ["max-total"] = "required",
                     ["max-calls"] = "required", thresholds = "required" } },
  merge = { long = { output = "required" }, short = { o = "output" } },
  script = { long = { script = "required" } },
  standalone = { long = {} },
}
-- the modes where the words after "--" are the script's arguments
local SCRIPT_ARGS = { script = true, standalone = true }

local function usage_error(io_err, msg, mode)
  if mode and mode ~= "gprof" then
    io_err:write("lgprof: ", msg, "\n")
  else
    io_err:write("lgprof: ", msg, "\n", USAGE)
  end
  return 2
end

-- GNU getopt_long with argument permutation: options and operands may mix;
-- "--" ends the options; long options may be abbreviated unambiguously.
-- extra: lgprof's own options (EXTRA[mode]). Returns the options, the
-- operands before "--" and the words after it.
local function getopt(args, extra)
  extra = extra or { long = {} }
  local opts, operands, rest = {}, {}, {}
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--" then
      for j = i + 1, #args do rest[#rest + 1] = args[j] end
      break
    elseif a:sub(1, 2) == "--" then
      local name, value = a:match("^%-%-([^=]*)=(.*)$")
      name = name or a:sub(3)
      local def = LONG[name]
      if extra.long[name] then def = { name, extra.long[name] } end
      if not def then
        local found
        for k, d in pairs(LONG) do
          if k:sub(1, #name) == name then
            if found and found ~= d then
              return nil, ("option '--%s' is ambiguous"):format(name)
            end
            found = d
          end
        end
        def = found
      end
      if not def then return nil, ("unrecognized option '%s'"):format(a) end
      local key, kind = def[1], def[2]
      if kind == "none" and value then
        return nil, ("option '--%s' doesn't allow an argument"):format(name)
      elseif kind == "required" and not value then
        i = i + 1
        value = args[i]
        if value == nil then
          return nil, ("option '--%s' requires an argument"):format(name)
        end
      end
      opts[#opts + 1] = { key, value }
    elseif a:sub(1, 1) == "-" and #a > 1 then
      local j = 2
      while j <= #a do
        local c = a:sub(j, j)
        local key, kind = c, SHORT[c]
        if extra.short and extra.short[c] then
          key = extra.short[c]
          kind = extra.long[key]
        end
        if not kind then return nil, ("invalid option -- '%s'"):format(c) end
        if kind == "none" then
          opts[#opts + 1] = { key }
          j = j + 1
        elseif kind == "optional" then
          local v = a:sub(j + 1)
          opts[#opts + 1] = { key, v ~= "" and v or nil }
          break
        else
          local v = a:sub(j + 1)
          if v == "" then
            i = i + 1
            v = args[i]
            if v == nil then
              return nil, ("option requires an argument -- '%s'"):format(c)
            end
          end
          opts[#opts + 1] = { key, v }
          break
        end
      end
    else
      operands[#operands + 1] = a
    end
    i = i + 1
  end
  return opts, operands, rest
end

--- Parses a command line. mode: "gprof" (default), "check", "merge", "diff",
-- "script" or "standalone" (lgprof.script). Returns the state (st.extra: the
-- lgprof options in order, as {name, value}; st.rest: the words after "--",
-- the script's arguments; in the other modes they are more files), or nil and
-- an exit status (the message is written).
local function parse(args, out, err, mode)
  mode = mode or "gprof"
  local extra = EXTRA[mode]
  local st = {
    specs = {}, style = 0, user = 0, width = 80, demangle = true,
    zeros = false, brief = false, traditional = false, format = "auto",
    extra = {}, mode = mode,
  }
  local function spec(tab, s) st.specs[#st.specs + 1] = { tab, s } end
  local opts, operands, rest = getopt(args, extra)
  if not opts then return nil, usage_error(err, operands, mode) end
  for _, o in ipairs(opts) do
    local k, v = o[1], o[2]
    if extra.long[k] then
      st.extra[#st.extra + 1] = o
    elseif UNSUPPORTED[k] then
      err:write("lgprof: ", UNSUPPORTED[k], ": not supported yet\n")
      return nil, 2
    elseif k == "h" then
      if mode == "gprof" then out:write(USAGE, BUGS) else out:write(cli.usage(mode)) end
      return nil, 0
    elseif k == "v" then
      out:write(VERSION_TEXT)
      err:write("(lgprof ", lgprof.VERSION, ", a reimplementation of the above)\n")
      return nil, 0
    elseif k == "a" then st.no_static = true
    elseif k == "b" then st.brief = true
    elseif k == "B" then st.style = st.style | GRAPH
    elseif k == "D" then st.functions_only = true
    elseif k == "e" then spec("excl_graph", v)
    elseif k == "E" then spec("excl_time", v); spec("excl_graph", v)
    elseif k == "f" then spec("incl_graph", v)
    elseif k == "F" then spec("incl_time", v); spec("incl_graph", v)
    elseif k == "i" then st.style = st.style | INFO; st.user = st.user | INFO
    elseif k == "k" then spec("excl_arcs", v)
    elseif k == "n" then spec("incl_time", v)
    elseif k == "N" then spec("excl_time", v)
    elseif k == "O" then
      local f = ({ a = "auto", m = "magic", b = "bsd", ["4"] = "4.4bsd", p = "prof" })[v:sub(1, 1)]
      if not f then
        err:write("lgprof: ", v, ": unknown file format\n")
        return nil, 2
      end
      st.format = f
    elseif k == "p" then
      if v then spec("incl_flat", v) end
      st.style = st.style | FLAT; st.user = st.user | FLAT
    elseif k == "P" then
      if v then spec("excl_flat", v); st.style = st.style | FLAT
      else st.style = st.style & ~FLAT end
      st.user = st.user | FLAT
    elseif k == "q" then
      if v then spec(v:find("/", 1, true) and "incl_arcs" or "incl_graph", v) end
      st.style = st.style | GRAPH; st.user = st.user | GRAPH
    elseif k == "Q" then
      if v then
        spec(v:find("/", 1, true) and "excl_arcs" or "excl_graph", v)
        st.style = st.style | GRAPH
      else
        st.style = st.style & ~GRAPH
      end
      st.user = st.user | GRAPH
    elseif k == "s" then st.style = st.style | SUM; st.user = st.user | SUM
    elseif k == "T" then st.traditional = true
    elseif k == "w" then st.width = math.max(1, tonumber(v:match("^%s*([+-]?%d+)")) or 0)
    elseif k == "z" then st.zeros = true
    elseif k == "demangle" then
      st.demangle = true
      if v then
        if not pcall(lgprof._core.demangle, "_Z1fv", v) then
          err:write("lgprof: unknown demangling style `", v, "'\n")
          return nil, 2
        end
        st.demangle = v
      end
    elseif k == "no-demangle" then st.demangle = false
    end
  end
  if not SCRIPT_ARGS[mode] then
    for _, w in ipairs(rest) do operands[#operands + 1] = w end
    rest = {}
  end
  st.operands, st.rest = operands, rest
  st.exe = operands[1] or "a.out"
  st.gmons = {}
  for j = 2, #operands do st.gmons[#st.gmons + 1] = operands[j] end
  if #st.gmons == 0 then st.gmons[1] = "gmon.out" end
  return st
end
cli.parse = parse

--- The options of lgprof.open for a parsed command line.
function cli.open_options(st)
  local options = {
    no_static = st.no_static, functions_only = st.functions_only,
    format = st.format, demangle = st.demangle,
    line_arcs = st.style & SUM ~= 0,
  }
  for _, s in ipairs(st.specs) do
    options[s[1]] = options[s[1]] or {}
    table.insert(options[s[1]], s[2])
  end
  return options
end

--- Opens the profile of a parsed command line; on failure writes
-- "lgprof: FILE: what is wrong" and returns nil, 1.
function cli.open(st, err, exe, gmons)
  if st.format == "prof" then
    err:write("lgprof: sorry, file format `prof' is not yet supported\n")
    return nil, 1
  end
  local profile, msg = lgprof.open(exe or st.exe, gmons or st.gmons, cli.open_options(st))
  if not profile then
    err:write("lgprof: ", msg, "\n")
    return nil, 1
  end
  return profile
end

--- The usage text of one of lgprof's own modes (kept by its command module).
function cli.usage(mode)
  if mode == "standalone" then return require("lgprof.cmd_script").STANDALONE_USAGE end
  return require("lgprof.cmd_" .. mode).USAGE
end

local function plural(n, one, many)
  return ("\t%d %s\n"):format(n, n == 1 and one or many)
end

-- Which of --script and --diff the words before "--" name (by their exact
-- spellings; an option argument that looks like one is taken for one).
local function extra_mode(args)
  local found = {}
  for _, a in ipairs(args) do
    if a == "--" then break end
    local name = a:match("^%-%-([%a-]+)=") or a:match("^%-%-([%a-]+)$")
    if name == "script" or name == "diff" then found[name] = true end
  end
  if found.script and found.diff then return nil, "--script and --diff cannot be combined" end
  return found.script and "script" or found.diff and "diff" or nil
end

-- --format=FMT: lgprof.report's writer and its options (csv-arcs: the arcs table).
local EXPORTS = {
  callgrind = { "callgrind", true }, json = { "json", true }, csv = { "csv", true, "flat" },
  ["csv-arcs"] = { "csv", true, "arcs" }, folded = { "folded" }, dot = { "dot" },
}

--- `lgprof --format=FMT [options] [image-file [profile-file...]]`: the
-- analysed profile (gprof's options that shape the analysis apply) written
-- to stdout in another tool's format; -z lists unused functions too.
function cli.export(st, fmt, out, err)
  local e = EXPORTS[fmt]
  if not e then
    return usage_error(err, ("unknown format '%s' (gprof, callgrind, json, csv, csv-arcs, "
      .. "folded, dot)"):format(fmt))
  end
  if st.style & (INFO | SUM) ~= 0 then
    return usage_error(err, "--format cannot be combined with -i or -s")
  end
  local profile, ostatus = cli.open(st, err)
  if not profile then return ostatus end
  local options
  if e[2] then options = { zeros = st.zeros or nil, table = e[3] } end
  -- the writers need a real file; anything else with :write gets a copy
  local fh = io.type(out) == "file" and out or io.tmpfile()
  local pok, ok, werr = pcall(lgprof.report[e[1]], profile, fh, options)
  if pok and ok and fh ~= out then
    fh:seek("set")
    out:write(fh:read("a"))
  end
  if fh ~= out then fh:close() end
  profile:close()
  if not pok then -- misuse, or the dot module missing
    err:write("lgprof: --format=", fmt, ": ", (tostring(ok):gsub("^[^:]*:%d+: ", "")), "\n")
    return 2
  end
  if not ok then
    err:write("lgprof: ", tostring(werr), "\n")
    return 1
  end
  return 0
end

--- Runs the command with a list of arguments; returns the exit status.
function cli.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  if args[1] == "check" or args[1] == "merge" then
    return require("lgprof.cmd_" .. args[1]).run(cli, table.move(args, 2, #args, 1, {}), out, err)
  end
  local mode, merr = extra_mode(args)
  if merr then return usage_error(err, merr, "script") end
  if mode then return require("lgprof.cmd_" .. mode).run(cli, args, out, err) end
  local st, status = parse(args, out, err)
  if not st then return status end
  local fmt -- --format=FMT (the last one given)
  for i = #st.extra, 1, -1 do
    if st.extra[i][1] == "format" then
      fmt = fmt or st.extra[i][2]
      table.remove(st.extra, i)
    end
  end
  if st.extra[1] then
    return usage_error(err, ("--%s needs --diff"):format(st.extra[1][1]), "diff")
  end
  if st.format == "prof" then
    err:write("lgprof: sorry, file format `prof' is not yet supported\n")
    return 1
  end
  if fmt and fmt ~= "gprof" then return cli.export(st, fmt, out, err) end
  if st.style & SUM ~= 0 and st.style & (FLAT | GRAPH) ~= 0 then
    err:write("lgprof: -s with a report needs line granularity (-l): not supported yet\n")
    return 2
  end
  local profile, ostatus = cli.open(st, err)
  if not profile then return ostatus end
  local first_output = true
  if st.style & INFO ~= 0 then
    -- gprof prints the tagged format's version; BSD files show the last one seen
    local version = 0
    for _, f in ipairs(profile:file_info()) do
      if f.version >= 0 then version = f.version end
      out:write(("File `%s' (version %d) contains:\n"):format(f.path, version),
        plural(f.histograms, "histogram record", "histogram records"),
        plural(f.arcs, "call-graph record", "call-graph records"),
        plural(f.bb, "basic-block count record", "basic-block count records"))
    end
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
  if style == 0 then
    if profile.have_histogram then style = style | FLAT end
    if profile.have_call_graph then style = style | GRAPH end
    style = style & ~st.user
  end
  if style & FLAT ~= 0 and not profile.have_histogram then
    err:write("lgprof: gmon.out file is missing histogram\n")
    return 1
  end
  if style & GRAPH ~= 0 and not profile.have_call_graph then
    err:write("lgprof: gmon.out file is missing call-graph data\n")
    return 1
  end
  if style & (FLAT | GRAPH) ~= 0 then
    local ok, werr = profile:gprof_report(out, {
      traditional = st.traditional, brief = st.brief, zeros = st.zeros,
      width = st.width, flat = style & FLAT ~= 0, graph = style & GRAPH ~= 0,
      first_output = first_output,
    })
    if ok == nil then
      err:write("lgprof: ", werr, "\n")
      return 1
    end
  elseif st.style == 0 and not profile.have_histogram and not profile.have_call_graph
      and st.zeros then
    err:write("lgprof: execution counts (-z without profile data) not supported yet\n")
    return 2
  end
  profile:close()
  return 0
end

return cli
