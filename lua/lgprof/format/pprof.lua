--- lgprof.pprof: the profile in pprof's format (profile.proto, gzip
-- compressed), for `go tool pprof` and everything that reads its files.
--
--   lgprof.pprof.write(profile, file [, options])   (lgprof.report.pprof)
--   lgprof.pprof.encode(profile [, options])        the message, not compressed
--
-- gmon.out records caller-callee arcs, not stacks: the samples are the
-- estimated stacks of the folded synthesis (lgprof.stacks), one Sample per
-- stack and one Function per frame (a function or a cycle, never a name), with two values, samples/count and time/nanoseconds (for a
-- perf.data event that is not time, EVENT/count: page-faults/count). Their sum is
-- the call graph's total (profile.print_time): the sum of the functions' self
-- times, so that pprof's flat column is each function's self time and its
-- total is what lgprof's call graph divides by. A perf.data's samples are
-- its threads' recorded stacks instead, labelled with their thread
-- (thread_samples below).
--
-- The message is encoded here, in Lua, by a small writer of protobuf's wire
-- format (varints, length-delimited fields, packed repeated integers): the
-- stacks, names and files are already Lua data, the schema is one message
-- type, and a protobuf library would bring generated code and a build step
-- for it. Only the compression is done in C (zlib, lgprof.core.gzip).
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local stacks = require "lgprof.analysis.stacks"

local pprof = {}

local OPTIONS = { max_depth = true, min_weight = true }

local char, concat = string.char, table.concat

-- {=================================================== protobuf wire format

-- Varint: 7 bits a byte, least significant first; a negative int64 is
-- its two's complement, 10 bytes (>> is a logical shift in Lua).
local function varint(n)
  if n >= 0 and n < 0x80 then return char(n) end
  -- up to 4 bytes (lengths, ids, most weights) without a table
  if n > 0 and n < 0x4000 then return char(n & 0x7f | 0x80, n >> 7) end
  if n > 0 and n < 0x200000 then return char(n & 0x7f | 0x80, n >> 7 & 0x7f | 0x80, n >> 14) end
  if n > 0 and n < 0x10000000 then
    return char(n & 0x7f | 0x80, n >> 7 & 0x7f | 0x80, n >> 14 & 0x7f | 0x80, n >> 21)
  end
  local t, i = {}, 0
  repeat
    local b = n & 0x7f
    n = n >> 7
    i = i + 1
    t[i] = char(n ~= 0 and (b | 0x80) or b)
  until n == 0
  return concat(t)
end

-- The key of field f with wire type wt (0 varint, 2 length-delimited).
local function key(f, wt) return varint(f << 3 | wt) end

-- A varint field, left out when 0 (proto3's default).
local function int(f, v)
  if v == 0 then return "" end
  return key(f, 0) .. varint(v)
end

-- A length-delimited field: bytes, a string or an embedded message.
local function bytes(f, s)
  return key(f, 2) .. varint(#s) .. s
end

-- A packed repeated integer field from a list of varints already encoded.
local function packed(f, encoded)
  return bytes(f, concat(encoded))
end

-- }===================================================

-- The string table: string 0 is "", every string once.
local function string_table()
  local list, index = { "" }, { [""] = 0 }
  return list, function(s)
    s = s or ""
    local i = index[s]
    if not i then
      i = #list
      list[i + 1] = s
      index[s] = i
    end
    return i
  end
end

local basename = args.basename

local function check_options(options, what)
  return args.known_options(options, OPTIONS, what)
end

local thread_samples -- (below)

-- A Label (pprof's key = str or key = num).
local function label_str(str, k, v) return bytes(3, int(1, str(k)) .. int(2, str(v))) end
local function label_num(str, k, v) return bytes(3, int(1, str(k)) .. int(3, v)) end

-- The Samples of a perf.data profile: one per distinct stack of functions
-- of each thread (profile:stacks()), its values the samples and their weight
-- (nanoseconds, or the event's count) as recorded, labelled with the
-- thread as perf_to_profile labels them: pid and tid (numbers), comm (the
-- process's command: its main thread's name) and thread_comm (the
-- thread's). o.max_depth keeps the max_depth frames nearest the root.
-- loc(fn): fn's location id, encoded; str(s): s's string index.
thread_samples = function(profile, o, loc, str)
  local comm_of, labels_of = {}, {} -- (a thread's labels: made once)
  for pr in profile:processes() do comm_of[pr.pid] = pr.comm end
  local function thread_labels(st)
    local k = st.pid .. ":" .. st.tid
    local labels = labels_of[k]
    if labels then return labels end
    labels = label_num(str, "pid", st.pid) .. label_num(str, "tid", st.tid)
    if comm_of[st.pid] then labels = labels .. label_str(str, "comm", comm_of[st.pid]) end
    if st.comm then labels = labels .. label_str(str, "thread_comm", st.comm) end
    labels_of[k] = labels
    return labels
  end
  -- the table's stacks are of addresses: several of a thread's are one
  -- list of locations (functions), one Sample
  local order, merged, ids = {}, {}, {}
  for st in profile:stacks() do
    if st.weight > 0 or st.samples > 0 then
      local frames = st.frames
      local n = o.max_depth and math.min(#frames, o.max_depth) or #frames
      for i = 1, n do ids[i] = loc(frames[n + 1 - i]) end
      for i = n + 1, #ids do ids[i] = nil end
      local labels = thread_labels(st)
      local k = labels .. "\0" .. concat(ids)
      local m = merged[k]
      if m then
        m.samples, m.weight = m.samples + st.samples, m.weight + st.weight
      else
        m = { locations = packed(1, ids), labels = labels, samples = st.samples, weight = st.weight }
        merged[k] = m
        order[#order + 1] = m
      end
    end
  end
  local out = {}
  for i, m in ipairs(order) do
    out[i] = bytes(2, m.locations .. packed(2, { varint(m.samples), varint(m.weight) }) .. m.labels)
  end
  return out
end

--- The Profile message of a Profile or view (not compressed), or nil and a
-- message. options: the folded stacks' max_depth and min_weight.
function pprof.encode(profile, options)
  args.check_profile(profile, 1, "pprof.encode")
  local o = check_options(options, "pprof.encode")
  local label = stacks.labeller(profile)
  local strings, str = string_table()
  -- a perf.data event that is not time: values are its counts (pprof's
  -- convention for perf events: the type is the event, the unit "count"),
  -- the period its mean count per sample; else time in nanoseconds
  local event = stacks.event(profile)
  local period = math.floor(profile.sample_period * (event and 1 or 1e9) + 0.5)
  -- the mean period in the stacks' values (stacks.each: microseconds or counts)
  local period_value = profile.sample_period * (event and 1 or 1e6)

  -- one Function and one Location per frame (a Function or Cycle object),
  -- ids from 1 in the order first seen; locations[id] is the location id
  -- already encoded
  local loc_of, locations, functions = {}, {}, {}
  local loc_varint = {}
  local text_start, text_end = profile.text_start, profile.text_end
  local any_file = false
  local function location(obj)
    local id = loc_of[obj]
    if id then return id end
    id = #locations + 1
    loc_of[obj] = id
    local fn = obj.kind == "function" and obj or nil
    local name, suffix = label(obj)
    if fn then name = fn.name .. suffix end -- the readable name; a shared one keeps its address
    local file, line = fn and fn.file, fn and fn.line or 0
    if file then any_file = true end
    -- system_name: the raw symbol; none for a cycle (pprof "demangles" a
    -- name equal to its system_name, and its C++ heuristics would strip
    -- "<cycle 1>" to nothing)
    functions[id] = bytes(5, int(1, id) .. int(2, str(name))
      .. int(3, str(fn and fn.symbol)) .. int(4, str(file)) .. int(5, line))
    local addr = fn and fn.address or 0
    local mapped = fn and addr >= text_start and addr < text_end
    locations[id] = bytes(4, int(1, id) .. int(2, mapped and 1 or 0) .. int(3, addr)
      .. bytes(4, int(1, id) .. int(2, line)))
    loc_varint[id] = varint(id)
    return id
  end

  -- the samples: a perf.data's each thread's own stacks, labelled; else
  -- the estimated stacks, location ids leaf first, values rounded so that
  -- their running sums stay within one unit of the exact ones (the stacks
  -- are integer microseconds, or counts, already, which add up to
  -- print_time)
  local samples, ids = {}, {}
  local cum_value, counted = 0, 0
  if profile.source == "stacks" and not profile.is_view then
    samples = thread_samples(profile, o, function(fn) return loc_varint[location(fn)] end, str)
  else
    for funcs, value in stacks.each(profile, o) do
      cum_value = cum_value + value
      local count = 0
      if period_value > 0 then
        local target = math.floor(cum_value / period_value + 0.5)
        count = target - counted
        counted = target
      end
      if value > 0 or count > 0 then
        local n = #funcs
        for i = 1, n do ids[i] = loc_varint[location(funcs[n + 1 - i])] end
        for i = n + 1, #ids do ids[i] = nil end
        samples[#samples + 1] = bytes(2, packed(1, ids)
          .. packed(2, { varint(count), varint(event and value or value * 1000) }))
      end
    end
  end

  -- the program as the one mapping, so that pprof names it ("File:")
  local mapping = bytes(3, int(1, 1) .. int(2, text_start) .. int(3, text_end)
    .. int(5, str(profile.image)) .. int(7, 1) .. int(8, any_file and 1 or 0)
    .. int(9, any_file and 1 or 0))

  local files = {}
  for i, f in ipairs(profile.files or {}) do files[i] = basename(f) end
  local comments = {
    ("lgprof %s: %s %s"):format(lgprof.VERSION, basename(profile.image), concat(files, " ")),
    profile.source == "stacks" and "stacks are measured: perf.data records each sample's stack"
      or "stacks are estimated: gmon.out records caller-callee arcs, not stacks; each function's "
      .. "time is spread over the paths to it as gprof propagates time",
    event and ("total: %.0f %s events (the event is not time: values are its counts)")
      :format(profile.total_time, event)
      or ("total: the call graph's time (print_time) %.6f s; the histogram's (total_time) %.6f s")
      :format(profile.print_time, profile.total_time),
  }
  local comment_ids = {}
  for i, c in ipairs(comments) do comment_ids[i] = varint(str(c)) end

  local vtype, vunit = event or "time", event and "count" or "nanoseconds"
  local out = {
    bytes(1, int(1, str("samples")) .. int(2, str("count"))),
    bytes(1, int(1, str(vtype)) .. int(2, str(vunit))),
    concat(samples), mapping, concat(locations), concat(functions),
  }
  local tail = bytes(11, int(1, str(event or "cpu")) .. int(2, str(vunit)))
    .. int(12, period) .. packed(13, comment_ids) .. int(14, str(vtype))
  -- the string table last: every index above is taken by now
  for _, s in ipairs(strings) do out[#out + 1] = bytes(6, s) end
  out[#out + 1] = tail
  return concat(out)
end

--- Writes the gzip-compressed message to file (an open Lua file, written
-- and not closed, or a path, created and closed). Returns true, or nil and
-- a message. Misuse (an unknown option, a bad value) raises an error
-- before anything is written.
pprof.write = args.encoded_writer("pprof", check_options, function(profile, options)
  return pprof.encode(profile, options)
end, function(msg) return require("lgprof.core").gzip(msg) end)

return pprof
