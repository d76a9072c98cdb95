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
--
-- A perf.data profile opened with its samples' times (sample_times = true;
-- the command opens it so) also gets one "sampled" profile per thread after
-- that one, as speedscope's own import of `perf script` makes them: the
-- thread's samples in time order, each its recorded stack (root first) and
-- its weight (nanoseconds, or the event's count), so that "Time Order"
-- shows what the thread ran when. For time, the time between one sample's
-- end and the next one's start is an empty sample (speedscope draws
-- nothing there), a sample spanning its period up to its time (an off-CPU
-- interval from its time on): every thread's profile spans the recording
-- from its earliest sample's start, on one time axis.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local stacks = require "lgprof.analysis.stacks"

local speedscope = {}

local OPTIONS = { max_depth = true, min_weight = true }

local concat, format = table.concat, string.format

-- A JSON string: the core's (bytes that are not UTF-8 read as Latin-1).
local json_string = require("lgprof.core").json_string

local basename = args.basename

local thread_profiles -- (below)

local function check_options(options, what)
  return args.known_options(options, OPTIONS, what)
end

-- The per-thread "sampled" profiles of a profile of sampled stacks whose
-- samples' times were kept, as JSON text to append to the profiles' list
-- (each preceded by a comma); "" otherwise. frame(fn): fn's frame index.
-- o.max_depth, when given, keeps a stack's max_depth frames nearest its root.
thread_profiles = function(profile, o, frame)
  if profile.source ~= "stacks" or profile.is_view then return "" end
  local ok, each = pcall(profile.sample_times, profile)
  if not ok then return "" end -- opened without the samples' times
  local event = stacks.event(profile) -- counts, not time: no gaps
  local stack_text = {} -- a stack's index -> its frames' JSON list
  local st_list = {}
  for st in profile:stacks() do st_list[#st_list + 1] = st end
  local function stack_json(i)
    local text = stack_text[i]
    if text then return text end
    local ids, frames = {}, st_list[i].frames
    local depth = o.max_depth and math.min(#frames, o.max_depth) or #frames
    for d = 1, depth do ids[d] = frame(frames[d]) end
    text = "[" .. concat(ids, ",") .. "]"
    stack_text[i] = text
    return text
  end
  -- where each sample's time began (ns from the recording's first sample):
  -- a sample's time ends its period; an off-CPU interval's starts it
  local function start_of(smp)
    local t = math.floor(smp.time * 1e9 + 0.5)
    return smp.off_cpu and t or t - smp.weight
  end
  -- one pass: each thread's samples from its first start (th.first), the
  -- axis's 0 (the earliest start of all) put before them at the end
  local by_thread, order = {}, {}
  local origin, last_end
  for smp in each do
    local key = smp.pid .. ":" .. smp.tid
    local th = by_thread[key]
    local start = not event and start_of(smp) or 0
    if not th then
      th = { pid = smp.pid, tid = smp.tid, comm = smp.comm, samples = {}, weights = {},
             first = start, at = start }
      by_thread[key] = th
      order[#order + 1] = th
      if not origin or start < origin then origin = start end
    end
    local n = #th.samples
    if not event and start > th.at then
      th.samples[n + 1], th.weights[n + 1] = "[]", tostring(start - th.at)
      n = n + 1
      th.at = start
    end
    th.at = th.at + smp.weight -- (one overlapping the last starts at its end)
    if not last_end or th.at > last_end then last_end = th.at end
    th.samples[n + 1], th.weights[n + 1] = stack_json(smp.stack), tostring(smp.weight)
  end
  local out = {}
  for i, th in ipairs(order) do
    local name = ("%s pid: %d tid: %d"):format(th.comm or "?", th.pid, th.tid)
    local lead = event and 0 or th.first - origin
    out[i] = concat {
      ',\n{"type":"sampled","name":', json_string(name),
      ',"unit":', event and '"none"' or '"nanoseconds"', ',"startValue":0,',
      format('"endValue":%d,\n', event and th.at or last_end - origin),
      '"samples":[', lead > 0 and "[]," or "", concat(th.samples, ","), '],\n',
      '"weights":[', lead > 0 and lead .. "," or "", concat(th.weights, ","), ']}',
    }
  end
  return concat(out)
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

  local threads = thread_profiles(profile, o, frame)

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
    '"events":[\n', concat(events, ",\n"), '\n]}', threads, ']}\n',
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
