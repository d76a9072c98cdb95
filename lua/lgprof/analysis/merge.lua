--- lgprof.merge: sums profile files into one gmon file.
-- The file is what gprof -s writes (header, summed histograms, summed arcs
-- from gprof's line symbols, basic-block counts), except that the arc
-- records are sorted by (from, to, count). gprof writes them in an order that
-- depends on how the inputs were grouped, so merge(merge(a, b), c) and
-- merge(a, merge(b, c)) would differ in their bytes; sorted, they do not.
-- The core writes the file (profile:write_gmon) and replaces path only
-- once it is complete.
local args = require "lgprof.util.args"

local merge = {}

--- Sums the profile files `gmons` (a path or a list) of the executable `exe`
-- into the file `path`. `options` as for lgprof.open. Returns true, or nil
-- and a message "FILE: what is wrong".
function merge.merge(exe, gmons, path, options)
  args.check(type(path) == "string", 3, "merge", "string expected, got " .. type(path))
  args.check(options == nil or type(options) == "table", 4, "merge",
    "table expected, got " .. type(options))
  local o = { granularity = "line" }
  for k, v in pairs(options or {}) do o[k] = v end
  -- lgprof.open raises its argument errors at the user's line itself
  local profile, err = require("lgprof").open(exe, gmons, o)
  if not profile then return nil, err end
  local ok, werr = profile:write_gmon(path, { canonical = true })
  profile:close()
  return ok, werr
end

return merge
