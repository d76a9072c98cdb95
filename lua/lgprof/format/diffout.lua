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

--- Compares bases with new (dopts: lgprof.analysis.diff's options) and
-- writes format fmt. o: shape ("new" or "base"), title. Returns the diff's
-- rows and the text, or nil and a message.
function diffout.write(fmt, bases, new, dopts, o)
  o = o or {}
  if fmt == "json" or fmt == "csv" then
    local rows = diff.diff(bases, new, dopts)
    return rows, diffdata[fmt](rows)
  end
  local rows, root = difftree.compare(bases, new, dopts)
  if fmt == "folded" then return rows, diffdata.folded(rows, root) end
  local gmon = new.source ~= "stacks"
  local image = new.image and basename(new.image)
  if fmt == "svg" then
    return rows, require("lgprof.format.diffsvg").render(rows, root, {
      shape = o.shape, title = o.title, image = image, gmon = gmon })
  end
  if fmt == "html" then
    return rows, require("lgprof.format.diffhtml").render(rows, root, {
      title = o.title, image = image, gmon = gmon, bases = bases, new = new })
  end
  return nil, "unknown format '" .. tostring(fmt) .. "'"
end

return diffout
