--- lgprof: a fast, scriptable call-graph profile analyser (GNU gprof model).
-- The analysis runs in C (lgprof.core); this module is the public API.
local core = require "lgprof.core"

local lgprof = {
  VERSION = "0.1.0",
  _core = core,
}

local option_names = {
  no_static = true, functions_only = true, format = true, demangle = true,
  no_srcinfo = true, default_excludes = true, line_arcs = true, zeros = true,
  incl_graph = true, excl_graph = true, incl_arcs = true, excl_arcs = true,
  incl_flat = true, excl_flat = true, incl_time = true, excl_time = true,
  -- gprof-style spellings
  exclude_arcs = true, include_arcs = true, time = true, no_time = true,
  graph = true, no_graph = true, flat = true, no_flat = true,
}

local function list(v, what)
  if v == nil then return {} end
  if type(v) == "string" then return { v } end
  if type(v) ~= "table" then
    error(("option '%s' must be a string or a list of strings"):format(what), 3)
  end
  return v
end

-- Maps the documented option names onto the core's symspec tables.
local function core_options(options)
  local o = {}
  for k, v in pairs(options) do
    if not option_names[k] then
      error(("unknown option '%s'"):format(tostring(k)), 3)
    end
    o[k] = v
  end
  local function add(tab, v, what)
    o[tab] = o[tab] or {}
    for _, s in ipairs(list(v, what)) do o[tab][#o[tab] + 1] = s end
  end
  add("excl_arcs", options.exclude_arcs, "exclude_arcs"); o.exclude_arcs = nil
  add("incl_arcs", options.include_arcs, "include_arcs"); o.include_arcs = nil
  add("incl_time", options.time, "time"); o.time = nil
  add("excl_time", options.no_time, "no_time"); o.no_time = nil
  if type(options.graph) ~= "boolean" then
    add("incl_graph", options.graph, "graph"); o.graph = nil
  end
  if type(options.no_graph) ~= "boolean" then
    add("excl_graph", options.no_graph, "no_graph"); o.no_graph = nil
  end
  if type(options.flat) ~= "boolean" then
    add("incl_flat", options.flat, "flat"); o.flat = nil
  end
  if type(options.no_flat) ~= "boolean" then
    add("excl_flat", options.no_flat, "no_flat"); o.no_flat = nil
  end
  return o
end

--- Opens and analyses a profile.
-- @param exe path of the executable (default "a.out")
-- @param gmon a path or a list of paths (default "gmon.out"); several are summed
-- @param options table of gprof knobs (see README)
-- @return a Profile, or nil and a message "FILE: what is wrong"
function lgprof.open(exe, gmon, options)
  exe = exe or "a.out"
  if type(exe) ~= "string" then
    error("bad argument #1 to 'open' (string expected, got " .. type(exe) .. ")", 2)
  end
  if gmon == nil then gmon = { "gmon.out" } end
  if type(gmon) == "string" then gmon = { gmon } end
  if type(gmon) ~= "table" then
    error("bad argument #2 to 'open' (string or list expected, got " .. type(gmon) .. ")", 2)
  end
  if options ~= nil and type(options) ~= "table" then
    error("bad argument #3 to 'open' (table expected, got " .. type(options) .. ")", 2)
  end
  return core.open(exe, gmon, core_options(options or {}))
end

--- Demangles a C++ (or Rust, D, Ada) symbol name; nil if it is not mangled.
function lgprof.demangle(name, style)
  return core.demangle(name, style)
end

--- Does a function name match a pattern? The one pattern language of lgprof:
-- a POSIX extended regular expression when the core provides it
-- (core.regex_match), otherwise a Lua pattern. A bad pattern raises an error.
function lgprof.match(name, pattern)
  if type(name) ~= "string" then
    error("bad argument #1 to 'match' (string expected, got " .. type(name) .. ")", 2)
  end
  if type(pattern) ~= "string" then
    error("bad argument #2 to 'match' (string expected, got " .. type(pattern) .. ")", 2)
  end
  local regex_match = core.regex_match
  if regex_match then return regex_match(name, pattern) and true or false end
  return name:find(pattern) ~= nil
end

--- Compares two Profiles function by function (see lgprof.diff module).
function lgprof.diff(base, new)
  return require("lgprof.diff").diff(base, new)
end

--- Min, median and max self time of each function over several Profiles.
function lgprof.spread(profiles)
  return require("lgprof.spread").spread(profiles)
end

--- Sums profile files into one file (gprof -s, arcs in a canonical order).
function lgprof.merge(exe, gmons, path, options)
  return require("lgprof.merge").merge(exe, gmons, path, options)
end

--- The profile and arguments of a report script, under `lgprof --script`
-- (`...` is the Profile and the argument list) and standalone under lua5.4
-- (`...` are command-line words: [gprof options] [image [profiles]] [-- args]).
-- Standalone, a usage error exits with status 2 and bad input with status 1.
function lgprof.script(...)
  local first = ...
  local mt = getmetatable(first)
  if type(mt) == "table" and mt.__name == "lgprof.Profile" then
    local args = select(2, ...)
    return first, args or {}
  end
  return require("lgprof.cmd_script").standalone({ ... })
end

-- lgprof.check (the threshold checks) and lgprof.report (the export
-- formats) are loaded on first use.
local LAZY = { check = "lgprof.check", report = "lgprof.report" }
return setmetatable(lgprof, {
  __index = function(t, k)
    if LAZY[k] then
      local m = require(LAZY[k])
      rawset(t, k, m)
      return m
    end
  end,
})
