--- lgprof.speedscope: the profile in speedscope's file format (JSON,
-- https://www.speedscope.app/file-format-schema.json).
--
--   lgprof.speedscope.write(profile, file [, options])   (lgprof.report.speedscope)
--   lgprof.speedscope.encode(profile [, options])        the JSON text
--
-- The estimated call tree of the folded synthesis (lgprof.stacks.tree) as
-- one "evented" profile: each node of the tree opens once and closes once,
-- its children laid out from its start, heaviest first, its own time after
-- them; times in integer microseconds from 0 to the call graph's total
-- (profile.print_time); for a perf.data event that is not time, its
-- counts, unit "none". An evented profile is the tree itself: speedscope's
-- "Time Order" view draws it exactly (an icicle of the estimated tree),
-- every node's width is its time, and the file grows with the tree's nodes
-- (two events each) where a "sampled" profile would repeat every stack's
-- whole path. gmon.out records arcs, not stacks: the file's and the
-- profile's names say the stacks are estimated.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local stacks = require "lgprof.analysis.stacks"

local speedscope = {}

local OPTIONS = { max_depth = true, min_weight = true }

local concat, format = table.concat, string.format

-- A JSON string: the core's (bytes that are not UTF-8 read as Latin-1).
local json_string = require("lgprof.core").json_string

local basename = args.basename

local function check_options(options, what)
  return args.known_options(options, OPTIONS, what)
end

--- The JSON text of a Profile or view, or nil and a message. options: the
-- folded stacks' max_depth and min_weight.
function speedscope.encode(profile, options)
  args.check_profile(profile, 1, "speedscope.encode")
  local o = check_options(options, "speedscope.encode")
  local root, err = args.call(function() return stacks.tree(profile, o) end)
  if not root then return nil, err end
  local label = stacks.labeller(profile)

  -- one frame per function or cycle, indexes from 0 in the order first seen
  local frame_of, frames = {}, {}
  local function frame(obj)
    local i = frame_of[obj]
    if i then return i end
    i = #frames
    frame_of[obj] = i
    local fn = obj.kind == "function" and obj or nil
    local name, suffix = label(obj)
    if fn then name = fn.name .. suffix end -- the readable name; a shared one keeps its address
    local f = { '{"name":', json_string(name) }
    if fn and fn.file then
      f[#f + 1] = ',"file":' .. json_string(fn.file)
      if fn.line then f[#f + 1] = format(',"line":%d', fn.line) end
    end
    f[#f + 1] = "}"
    frames[i + 1] = concat(f)
    return i
  end

  -- the events, depth first without recursion (the tree may be deep): an
  -- entry is a node to open, or (close = true) one to close at its end
  local events, n = {}, 0
  local todo = {}
  for i = #root.children, 1, -1 do todo[#todo + 1] = { node = root.children[i], at = 0 } end
  local t = 0
  while #todo > 0 do
    local e = table.remove(todo)
    local node = e.node
    if e.close then
      t = e.at + node.value
      n = n + 1
      events[n] = format('{"type":"C","frame":%d,"at":%d}', e.frame, t)
    else
      local f = frame(node.func)
      n = n + 1
      events[n] = format('{"type":"O","frame":%d,"at":%d}', f, t)
      todo[#todo + 1] = { node = node, close = true, frame = f, at = t }
      for i = #node.children, 1, -1 do todo[#todo + 1] = { node = node.children[i] } end
    end
  end

  local program = basename(profile.image)
  local event = stacks.event(profile)
  local title = program .. (event and (" (lgprof: stacks recorded in perf.data, counts of %s)"):format(event)
    or profile.source == "stacks" and " (lgprof: stacks recorded in perf.data)"
    or " (lgprof: stacks estimated from gmon.out's call arcs)")
  return concat {
    '{"$schema":"https://www.speedscope.app/file-format-schema.json",\n',
    '"name":', json_string(title), ',\n',
    '"exporter":', json_string("lgprof@" .. lgprof.VERSION), ',\n',
    '"activeProfileIndex":0,\n',
    '"shared":{"frames":[\n', concat(frames, ",\n"), '\n]},\n',
    '"profiles":[{"type":"evented","name":', json_string(title),
    ',"unit":', event and '"none"' or '"microseconds"', ',"startValue":0,', format('"endValue":%d,', root.value), '\n',
    '"events":[\n', concat(events, ",\n"), '\n]}]}\n',
  }
end

--- Writes the JSON to file (an open Lua file, written and not closed, or a
-- path, created and closed). Returns true, or nil and a message. Misuse
-- (an unknown option, a bad value) raises an error before anything is
-- written.
speedscope.write = args.encoded_writer("speedscope", check_options, function(profile, options)
  return speedscope.encode(profile, options)
end)

return speedscope
