--- lgprof.report: the analysed profile in other tools' formats.
--
--   lgprof.report.callgrind(profile, file [, options])  KCachegrind, callgrind_annotate
--   lgprof.report.json(profile, file [, options])       lgprof's JSON schema (doc/scripting.md)
--   lgprof.report.csv(profile, file [, options])        the flat profile or the arcs (RFC 4180)
--   lgprof.report.folded(profile, file [, options])     folded stacks (flamegraph.pl, speedscope)
--   lgprof.report.dot(profile, file [, options])        Graphviz (module lgprof.dot)
--   lgprof.report.annotate(profile, file [, options])   annotated source (lgprof.format.annotate)
--   lgprof.report.text(profile, file [, options])       flat profile with errors and bounds (lgprof.textreport)
--   lgprof.report.html(profile, file [, options])       an interactive page (lgprof.html)
--   lgprof.report.svg(profile, file [, options])        a flame graph (module lgprof.svg)
--   lgprof.report.pprof(profile, file [, options])      pprof's profile.proto, gzipped (lgprof.pprof)
--   lgprof.report.speedscope(profile, file [, options]) speedscope's JSON (lgprof.speedscope)
--
-- `profile` is a Profile or a view (profile:filter{...}); `file` an open Lua
-- file (written, not closed) or a path (created, written and closed).
-- Returns true, or nil and a message (a file that cannot be opened, a write
-- error). Misuse (an unknown option, a bad value) raises an error.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"

local report = {}

-- Options are checked once, in C (profile:export), before a file is
-- touched; a path is written by the core and replaced in one step.
local function exporter(fmt)
  return function(profile, file, options)
    args.check_profile(profile, 1, fmt)
    args.check(options == nil or type(options) == "table", 3, fmt,
      "table expected, got " .. type(options))
    local o = { creator = "lgprof " .. lgprof.VERSION }
    for k, v in pairs(options or {}) do o[k] = v end
    return args.call(function()
      local ok, err = profile:export(fmt, file, o)
      return ok, err
    end)
  end
end

report.callgrind = exporter("callgrind")
report.json = exporter("json")
report.csv = exporter("csv")
local folded_gmon = exporter("folded")
--- Folded stacks: a perf.data's are the recorded ones (lgprof.analysis.stacks),
-- written here; gmon.out's are the core's estimate.
function report.folded(profile, file, options)
  args.check_profile(profile, 1, "folded")
  if profile.source ~= "stacks" then return folded_gmon(profile, file, options) end
  args.check_output(file, "folded")
  args.check(options == nil or type(options) == "table", 3, "folded",
    "table expected, got " .. type(options))
  local o = {}
  for k, v in pairs(options or {}) do
    if k == "max_depth" or k == "min_weight" then o[k] = v end
  end
  local stacks = require "lgprof.analysis.stacks"
  local label = stacks.labeller(profile)
  local lines = {}
  for funcs, us in stacks.each(profile, o) do
    local names = {}
    -- a frame's name as the folded text prints it: no line breaks, no ';'
    for i, f in ipairs(funcs) do names[i] = (label(f):gsub(";", ":")) end
    lines[#lines + 1] = table.concat(names, ";") .. " " .. us .. "\n"
  end
  return args.write_output(file, table.concat(lines))
end

--- Graphviz DOT, written by the module lgprof.dot (its own options).
function report.dot(profile, file, options)
  args.check_profile(profile, 1, "dot")
  local ok, dot = pcall(require, "lgprof.format.dot")
  if not ok or type(dot) ~= "table" or type(dot.write) ~= "function" then
    args.error("dot: the module lgprof.dot is not available"
      .. (ok and "" or (": " .. tostring(dot))))
  end
  -- dot.write checks the options and draws before it creates a file
  return dot.write(profile, file, options)
end

-- The formats written by a Lua module of their own (its write(profile,
-- file, options)), loaded when first used.
local function module_writer(module)
  return function(profile, file, options)
    return require(module).write(profile, file, options)
  end
end

report.annotate = module_writer("lgprof.format.annotate")     -- source files annotated line by line
report.text = module_writer("lgprof.format.text")       -- flat profile with errors and bounds
report.html = module_writer("lgprof.format.html")             -- one self-contained interactive page
report.svg = module_writer("lgprof.format.svg")               -- a flame graph of the estimated stacks
report.pprof = module_writer("lgprof.format.pprof")           -- profile.proto, gzip-compressed
report.speedscope = module_writer("lgprof.format.speedscope") -- speedscope's JSON file format

--- The formats, by name, as the command line spells them.
report.formats = { "callgrind", "json", "csv", "folded", "dot", "text", "html", "svg", "pprof", "speedscope" }

return report
