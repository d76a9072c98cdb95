--- lgprof: a fast, scriptable call-graph profile analyser (GNU gprof model).
-- The analysis runs in C (lgprof.core); this module is the public API.
local args = require "lgprof.util.args"

-- The C core: without it, one clear line (not require's list of the paths
-- it tried), blaming the line that required lgprof.
local found, core = pcall(require, "lgprof.core")
if not found then
  if not tostring(core):find("module 'lgprof.core' not found", 1, true) then error(core, 0) end
  error("lgprof.core not found: run make first (or set LUA_CPATH: see bin/lgprof --lua-env)", 3)
end

local lgprof = {
  -- the one version string (`lgprof -v`, the exports' creator, the
  -- rockspec's releases) is the core's
  VERSION = core.VERSION,
  -- "profile", "function", "cycle", "arc" or nil, as io.type
  type = core.type,
  _core = core,
}

-- The gprof-style spellings, each with the core's symspec list it adds to.
-- The core checks every option (names and values); this layer maps only.
local SPELLINGS = {
  exclude_arcs = "excl_arcs", include_arcs = "incl_arcs", time = "incl_time",
  no_time = "excl_time", graph = "incl_graph", no_graph = "excl_graph",
  flat = "incl_flat", no_flat = "excl_flat",
}

-- Appends the patterns of an option (a string or a list) to list.
local function append(list, v, what)
  if type(v) == "string" then v = { v } end
  if v ~= nil and type(v) ~= "table" then
    args.error(("bad argument #3 to 'open' (option '%s' must be a string or a list of strings)")
      :format(what))
  end
  table.move(v or {}, 1, #(v or {}), #list + 1, list)
end

-- Maps the documented option names onto the core's symspec lists (new
-- lists: the caller's tables are not changed). Errors blame the user's code.
local function core_options(options)
  local o = {}
  for k, v in pairs(options) do o[k] = v end
  for name, tab in pairs(SPELLINGS) do
    local list = {}
    append(list, options[tab], tab)
    append(list, options[name], name)
    o[tab], o[name] = list, nil
  end
  return o
end

-- The arguments each open Profile was opened with (weak: a Profile's
-- record goes with it).
local opened = setmetatable({}, { __mode = "k" })

-- The arguments each open Profile of sampled stacks was opened with, for
-- profile:slice (weak, as opened).
local sliceable = setmetatable({}, { __mode = "k" })

-- Records how a profile of stacks was opened (the caller's own options,
-- copied); returns the profile (or nil, message) unchanged.
local function recorded(exe, gmon, options, profile, err)
  if profile then
    local o = {}
    for k, v in pairs(options or {}) do o[k] = v end
    sliceable[profile] = { exe = exe, gmon = table.move(gmon, 1, #gmon, 1, {}), options = o }
  end
  return profile, err
end

-- The perf.data file among the profile files (known by its magic), or nil.
local function perf_file(files)
  for _, path in ipairs(files) do
    if type(path) == "string" and core.is_perfdata(path) then return path end
  end
end

--- Opens and analyses a profile.
-- @param exe path of the executable (default "a.out"; for a perf.data file,
-- nil: the binaries the recording names)
-- @param gmon a path or a list of paths (default "gmon.out"); several are
-- summed. A perf.data file (one, alone) gives a profile of sampled stacks.
-- @param options table of gprof knobs (see doc/scripting.md, lgprof.open);
-- options.perf: a perf.data file of the same run as the gmon files, for a
-- combined profile (times from its stacks, calls from gmon.out)
-- @return a Profile, or nil and a message "FILE: what is wrong"
function lgprof.open(exe, gmon, options)
  args.check(exe == nil or type(exe) == "string", 1, "open", "string expected, got " .. type(exe))
  if gmon == nil then gmon = { "gmon.out" } end
  if type(gmon) == "string" then gmon = { gmon } end
  args.check(type(gmon) == "table", 2, "open", "string or list expected, got " .. type(gmon))
  args.check(options == nil or type(options) == "table", 3, "open",
    "table expected, got " .. type(options))
  local o = core_options(options or {})
  local with_perf = o.perf
  o.perf = nil
  args.check(with_perf == nil or type(with_perf) == "string", 3, "open",
    "option 'perf' must be a string")
  local perf = perf_file(gmon)
  if perf and with_perf then
    return nil, perf .. ": option 'perf' combines a perf.data file with gmon files (this is a perf.data)"
  end
  if with_perf then
    return recorded(exe, gmon, options, lgprof._combined(exe or "a.out", gmon, with_perf, o))
  end
  if perf then
    if #gmon > 1 then
      return nil, perf .. ": a perf.data file is read alone (profiles of stacks are not summed;"
        .. " with gmon.out of the same run, give it as the option perf: --perf=FILE)"
    end
    return recorded(exe, gmon, options, args.call(function() return core.open_stacks(exe, perf, o) end))
  end
  -- perf.data's reader's options: progress is only a wish, the others
  -- would be ignored silently
  o.progress = nil
  for _, k in ipairs({ "event", "symfs", "buildid_dir", "search_dirs", "no_inline", "kallsyms" }) do
    if o[k] ~= nil then
      return nil, tostring(gmon[1]) .. ": option '" .. k .. "' is for a perf.data file"
    end
  end
  exe = exe or "a.out"
  local profile, err = args.call(function()
    local p, e = core.open(exe, gmon, o)
    return p, e
  end)
  if profile then
    opened[profile] = { exe = exe, gmon = table.move(gmon, 1, #gmon, 1, {}), options = o }
  end
  return profile, err
end

--- The combined profile of lgprof.open's option perf: the gmon profile
-- (opened with o, less perf.data's reader options) gives its calls to the
-- profile of the perf.data's stacks.
function lgprof._combined(exe, gmons, perf, o)
  if not core.is_perfdata(perf) then
    return nil, perf .. ": not a perf.data file (option 'perf')"
  end
  local go = {}
  for k, v in pairs(o) do go[k] = v end
  for _, k in ipairs({ "event", "symfs", "buildid_dir", "search_dirs", "no_inline", "kallsyms", "progress" }) do
    go[k] = nil
  end
  -- gcc's clones are functions of their own in the stacks: gmon.out's
  -- symbols must have them too for the addresses to match
  go.clones = "keep"
  local calls, err = args.call(function() return core.open(exe, gmons, go) end)
  if not calls then return nil, err end
  local profile, perr = args.call(function() return core.open_stacks(exe, perf, o, calls) end)
  return profile, perr
end

--- How a Profile was opened (exe, gmon, options), or nil (a view, or one
-- opened by lgprof.core directly): lgprof.fnkey.kept reads the files again
-- with gcc's clones kept.
function lgprof._opened(profile)
  return opened[profile]
end

--- Demangles a C++ (or Rust, D, Ada) symbol name; nil if it is not mangled.
function lgprof.demangle(name, style)
  return core.demangle(name, style)
end

--- Does a function name match a pattern? The one pattern language of lgprof:
-- a POSIX extended regular expression, unanchored. A bad pattern raises an error.
function lgprof.match(name, pattern)
  args.check(type(name) == "string", 1, "match", "string expected, got " .. type(name))
  args.check(type(pattern) == "string", 2, "match", "string expected, got " .. type(pattern))
  -- no closure for args.call: check loops call this once per function. The
  -- message has no position to strip (its caller, pcall, is a C function);
  -- args.message would cut a pattern holding ":1: " instead.
  local ok, hit = pcall(core.regex_match, name, pattern)
  if not ok then args.error(hit) end
  return hit and true or false
end

--- Compares two Profiles (or a list of base Profiles and a Profile)
-- function by function (see lgprof.diff module).
function lgprof.diff(base, new, opts)
  return require("lgprof.analysis.diff").diff(base, new, opts)
end

--- Min, median and max self time of each function over several Profiles.
function lgprof.spread(profiles, opts)
  return require("lgprof.analysis.spread").spread(profiles, opts)
end

--- What is wrong with a Profile: a list of findings (see lgprof.doctor module).
function lgprof.doctor(profile, thresholds)
  return require("lgprof.analysis.doctor").diagnose(profile, thresholds)
end

--- Sums profile files into one file (gprof -s, arcs in a canonical order).
function lgprof.merge(exe, gmons, path, options)
  return require("lgprof.analysis.merge").merge(exe, gmons, path, options)
end

--- The profile and arguments of a report script, under `lgprof --script`
-- (`...` is the Profile and the argument list) and standalone under lua5.4
-- (`...` are command-line words: [gprof options] [image [profiles]] [-- args]).
-- Standalone, a usage error exits with status 2 and bad input with status 1.
function lgprof.script(...)
  local first = ...
  if args.is_profile(first) then
    return first, select(2, ...) or {}
  end
  for i = 1, select("#", ...) do
    local w = select(i, ...)
    args.check(type(w) == "string", i, "script", "string or Profile expected, got " .. type(w))
  end
  return require("lgprof.cmd.script").standalone({ ... })
end

--- profile:groups(keys [, options]): an iterator over the groups of a
-- profile of sampled stacks by thread, process, comm or dso (keys: a list
-- or "comm,dso", nesting), as lgprof --by=KEYS (lgprof.analysis.groups).
core._profile_methods.groups = function(profile, keys, options)
  return require("lgprof.analysis.groups").each(profile, keys, options)
end

-- One end of a slice's range as --time-range writes it: "" (open), a
-- number of seconds, or a string "N" or "N%".
local function range_end(v, key, i)
  if v == nil then return "" end
  if math.type(v) == "integer" then v = tostring(v)
  elseif type(v) == "number" then v = ("%.17g"):format(v) end
  args.check(type(v) == "string", 1, "slice",
    ("range %d: '%s' must be a number of seconds or a string such as \"10%%\""):format(i, key))
  return v
end

--- profile:slice(ranges): the profile of the part of the recording in the
-- ranges (a sample is kept when it falls in one), read again from its
-- file with the option time_range (--time-range). ranges: { from =, to = }
-- or a list of them, or --time-range's "FROM,TO" text (or a list); from
-- and to are seconds from the recording's first sample (or perf's
-- timestamps), or "N%" of its length; an absent end is the recording's
-- start or end. FROM is included, TO excluded (a TO at the end includes
-- the last sample). Returns the new Profile, or nil and "FILE:
-- --time-range=FROM,TO: outside the recording, whose samples run from 0
-- to S s (...)".
core._profile_methods.slice = function(profile, ranges)
  args.check_profile(profile, 1, "slice")
  args.check(type(ranges) == "table" or type(ranges) == "string", 1, "slice",
    "table or string expected, got " .. type(ranges))
  local how = sliceable[profile]
  if not how then
    args.error(profile.source == "stacks"
      and "slice: only a profile opened from a perf.data file can be sliced (slice it, then filter the slice)"
      or "slice: a gmon profile has no sample times (slice a perf.data profile)")
  end
  if how.options.time_range ~= nil then
    args.error("slice: this profile is already a part of its recording (option time_range):"
      .. " slice the whole recording's profile")
  end
  if type(ranges) == "string" or ranges.from ~= nil or ranges.to ~= nil or #ranges == 0 then
    ranges = { ranges }
  end
  local texts = {}
  for i, r in ipairs(ranges) do
    local text = r
    if type(r) == "table" then
      for k in pairs(r) do
        args.check(k == "from" or k == "to", 1, "slice", ("range %d: unknown field '%s'"):format(i, tostring(k)))
      end
      text = range_end(r.from, "from", i) .. "," .. range_end(r.to, "to", i)
    end
    args.check(type(text) == "string" and core._time_range(text), 1, "slice",
      ("range %d: not a range (%s): from and to are seconds from the first sample (not negative),"
        .. " or \"N%%\" of the recording"):format(i, tostring(text)))
    texts[i] = text
  end
  local o = {}
  for k, v in pairs(how.options) do o[k] = v end
  o.time_range = texts
  return lgprof.open(how.exe, how.gmon, o)
end

-- lgprof.check (the threshold checks) and lgprof.report (the export
-- formats) are loaded on first use.
local LAZY = { check = "lgprof.analysis.check", report = "lgprof.format.report" }
return setmetatable(lgprof, {
  __index = function(t, k)
    if LAZY[k] then
      local m = require(LAZY[k])
      rawset(t, k, m)
      return m
    end
  end,
})
