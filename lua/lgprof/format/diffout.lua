--- lgprof.format.diffout: the outputs of `lgprof --diff --format=FMT` other
-- than the text table: json and csv (the table as data), folded (the two
-- stacks' counts per stack), svg (the differential flame graph) and html
-- (the comparison page).
local diff = require "lgprof.analysis.diff"
local difftree = require "lgprof.analysis.difftree"
local diffdata = require "lgprof.format.diffdata"

local diffout = {}

local function basename(path)
  return (tostring(path):match("([^/]+)$")) or tostring(path)
end

--- The share of the total below which a subtree of the pictures is not
-- broken down (on every side alike: lgprof.analysis.difftree): the SVG
-- flame graph's (lgprof.report.folded's default) and the report page's.
diffout.MIN_WEIGHT = { svg = 1e-4, html = 0.0005 }

--- Compares bases with new (dopts: lgprof.analysis.diff's options) and
-- writes format fmt. o: shape ("new" or "base"), title, view_description
-- (svg: the words of the view both sides were read with). Returns the diff's
-- rows and the text, or nil and a message.
function diffout.write(fmt, bases, new, dopts, o)
  o = o or {}
  if fmt == "json" or fmt == "csv" then
    local rows = diff.diff(bases, new, dopts)
    return rows, diffdata[fmt](rows)
  end
  -- the pictures' stacks cut as the single profile's pictures cut theirs
  -- (the flame graph's and the page's default shares); folded is every stack
  local topts = { confidence = dopts.confidence, clone_match = dopts.clone_match,
                  min_weight = diffout.MIN_WEIGHT[fmt] or 0 }
  local rows, root = difftree.compare(bases, new, topts)
  if fmt == "folded" then return rows, diffdata.folded(rows, root) end
  local gmon = new.source ~= "stacks"
  local image = new.image and basename(new.image)
  if fmt == "svg" then
    return rows, require("lgprof.format.diffsvg").render(rows, root, {
      shape = o.shape, title = o.title, image = image, gmon = gmon,
      view_description = o.view_description })
  end
  if fmt == "html" then
    -- (a perf.data's threads and binaries, each compared alone)
    local groups, gerr
    if not gmon then
      groups, gerr = require("lgprof.format.diffgroups").collect(bases, new, rows, topts,
        { title = o.title, image = image })
      if gerr then return nil, gerr end
    end
    return rows, require("lgprof.format.diffhtml").render(rows, root, {
      title = o.title, image = image, gmon = gmon, bases = bases, new = new, groups = groups })
  end
  return nil, "unknown format '" .. tostring(fmt) .. "'"
end

return diffout
