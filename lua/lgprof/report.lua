--- lgprof.report: the analysed profile in other tools' formats.
--
--   lgprof.report.callgrind(profile, file [, options])  KCachegrind, callgrind_annotate
--   lgprof.report.json(profile, file [, options])       lgprof's JSON schema (README)
--   lgprof.report.csv(profile, file [, options])        the flat profile or the arcs (RFC 4180)
--   lgprof.report.folded(profile, file [, options])     folded stacks (flamegraph.pl, speedscope)
--   lgprof.report.dot(profile, file [, options])        Graphviz (module lgprof.dot)
--
-- `profile` is a Profile or a view (profile:filter{...}); `file` an open Lua
-- file (written, not closed) or a path (created, written and closed).
-- Returns true, or nil and a message (a file that cannot be opened, a write
-- error). Misuse (an unknown option, a bad value) raises an error.
local lgprof = require "lgprof"
local args = require "lgprof.args"

local report = {}

-- options each format accepts
local OPTIONS = {
  callgrind = { zeros = "boolean" },
  json = { zeros = "boolean" },
  csv = { zeros = "boolean", table = "string" },
  folded = { max_depth = "number", min_weight = "number" },
}

local function check_options(fmt, options)
  if options == nil then return {} end
  if type(options) ~= "table" then
    error(("bad argument #3 to '%s' (table expected, got %s)"):format(fmt, type(options)), 3)
  end
  local allowed, o = OPTIONS[fmt], {}
  for k, v in pairs(options) do
    local want = allowed[k]
    if not want then
      error(("%s: unknown option '%s'"):format(fmt, tostring(k)), 3)
    end
    if type(v) ~= want then
      error(("%s: option '%s' must be a %s"):format(fmt, k, want), 3)
    end
    o[k] = v
  end
  if o.table ~= nil and o.table ~= "flat" and o.table ~= "arcs" then
    error(("%s: option 'table' must be \"flat\" or \"arcs\""):format(fmt), 3)
  end
  if o.max_depth ~= nil and (math.type(o.max_depth) ~= "integer" or o.max_depth < 1) then
    error(("%s: option 'max_depth' must be an integer >= 1"):format(fmt), 3)
  end
  if o.min_weight ~= nil and not (o.min_weight >= 0 and o.min_weight <= 1) then
    error(("%s: option 'min_weight' must be between 0 and 1"):format(fmt), 3)
  end
  return o
end

-- Calls write(fh) on the file handle, or on a file opened at the path.
local function with_file(file, fname, write)
  if io.type(file) == "file" then return write(file) end
  if io.type(file) == "closed file" then
    error(("bad argument #2 to '%s' (attempt to use a closed file)"):format(fname), 3)
  end
  if type(file) ~= "string" then
    error(("bad argument #2 to '%s' (file or path expected, got %s)"):format(fname, type(file)), 3)
  end
  local fh, err = io.open(file, "wb")
  if not fh then return nil, err end
  local ok, werr = write(fh)
  local cok, cerr = fh:close()
  if not ok then return nil, (file .. ": " .. tostring(werr)) end
  if not cok then return nil, (file .. ": " .. tostring(cerr)) end
  return true
end

local function exporter(fmt)
  return function(profile, file, options)
    args.check_profile(profile, 1, fmt)
    local o = check_options(fmt, options)
    o.creator = "lgprof " .. lgprof.VERSION
    return with_file(file, fmt, function(fh)
      return profile:export(fmt, fh, o)
    end)
  end
end

report.callgrind = exporter("callgrind")
report.json = exporter("json")
report.csv = exporter("csv")
report.folded = exporter("folded")

--- Graphviz DOT, written by the module lgprof.dot (its own options).
function report.dot(profile, file, options)
  args.check_profile(profile, 1, "dot")
  local ok, dot = pcall(require, "lgprof.dot")
  if not ok or type(dot) ~= "table" or type(dot.write) ~= "function" then
    error("dot: the module lgprof.dot is not available"
      .. (ok and "" or (": " .. tostring(dot))), 2)
  end
  return with_file(file, "dot", function(fh)
    return dot.write(profile, fh, options)
  end)
end

--- The formats, by name, as the command line spells them.
report.formats = { "callgrind", "json", "csv", "folded", "dot" }

return report
