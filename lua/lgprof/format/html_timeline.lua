--- lgprof.format.html_timeline: the timeline of the HTML report
-- (lgprof.format.html) of a perf.data profile opened with sample_times =
-- true (the command opens it so for --format=html).
--
-- The page gets every sample (and off-CPU interval) with its time, thread
-- and stack, so that it can draw one lane per thread and a subsecond heat
-- map, and recompute the flame graph, the flat profile, the call graph and
-- the threads and binaries tables of any time range and thread itself
-- (lgprof.format.html_timeline_assets). Compactly, as lists of integers
-- (a recording of 50,000 samples stays a few hundred KB):
--   f    the functions on the stacks: { names }, { profile indexes },
--        { binary (position in dsos) }
--   dsos the binaries' recorded paths
--   files, fl  the functions' source files: triples function, file (its
--        position in files), line, for the functions whose file is known
--   fc   the functions in the profile's cycles: pairs function, cycle
--        number (a selection's caller-callee pairs enter a cycle as a whole,
--        as lgprof's do)
--   meta the page's meta of the whole profile (lgprof.format.html's), which
--        a selection's page starts from
--   th   the threads: { { pid, tid, comm }, ... }, by pid then tid
--   np, nf  the stacks' prefix tree: node k (from 1; 0 is the root above
--        every stack) has parent k - np[k] and function nf[k]
--   sl, st  each stack (profile:stacks() order): its leaf node
--        (delta-coded), its thread
--   sk   the stacks off the CPU: pairs stack, kind (1 S, 2 D, 3 R, 4 B: its
--        leaf frame "[off-cpu: ...]" says which)
--   opts the caps of a selection's page (html_groups' for a row's page)
--   t, s, w  each sample in time order: its time in microseconds from the
--        recording's first sample (delta-coded: each the difference from
--        the one before), its stack (from 0), its weight (nanoseconds, or
--        the event's count; delta-coded); an off-CPU interval comes at its
--        start with its length as weight
--   offs an on-CPU profile of a recording with switches: its off-CPU
--        intervals for the lanes alone (they are not the profile's time):
--        { t (start, delta-coded us), d (length us), th (thread), k (kind) }
-- gmon.out profiles have no timeline (nothing is timed).
local M = {}

-- the leaf frame of an off-CPU interval, and its kind
local KINDS = { S = 1, D = 2, R = 3, B = 4 }
local function off_kind(name)
  if name:sub(1, 9) ~= "[off-cpu:" then return 0 end
  local letter = name:match("%((%u)") or (name:find("blocked", 1, true) and "B")
  if name:find("S or D", 1, true) then letter = "B" end
  return KINDS[letter] or 4
end

-- A list of integers as JSON text, each the difference from the one
-- before when delta is true.
local function ints(list, delta)
  local out, prev = list, 0
  if delta then
    out = {}
    for i = 1, #list do
      local v = list[i]
      out[i] = v - prev
      prev = v
    end
  end
  -- (table.concat writes an integer as %d)
  return { __raw = "[" .. table.concat(out, ",") .. "]" }
end

-- The off-CPU intervals of an on-CPU profile's recording, for the lanes:
-- read again as --event=off-cpu when the recording holds switches. nil
-- when it holds none, or when it cannot be read so (the lanes then show
-- the samples alone).
local function off_intervals(profile, ev, thread_of)
  local time = ev.time or {}
  if time.synthesized or not (time.switch_tracepoint or time.switch_records) then return nil end
  local path = profile.files and profile.files[1]
  if type(path) ~= "string" then return nil end
  local ok, off = pcall(require("lgprof").open, nil, path, { event = "off-cpu", sample_times = true })
  if not ok or not off then return nil end
  local kind_of = {}
  for st in off:stacks() do
    local leaf = st.frames[#st.frames]
    kind_of[#kind_of + 1] = { leaf and off_kind(leaf.name) or 4, thread_of(st.pid, st.tid, st.comm) }
  end
  local first = time.first
  local oev = off:_stack_evidence().time or {}
  -- (the same recording: its first sample is this profile's, unless the
  -- off-CPU profile's first interval starts before the first sample)
  local shift = (oev.first and first) and (oev.first - first) or 0
  local t, d, th, k = {}, {}, {}, {}
  for _, s in ipairs(off:sample_times()) do
    local info = kind_of[s.stack]
    t[#t + 1] = math.floor((s.time + shift) * 1e6 + 0.5)
    d[#d + 1] = math.floor(s.seconds * 1e6 + 0.5)
    th[#th + 1], k[#k + 1] = info[2], info[1]
  end
  off:close()
  return { t = ints(t, true), d = ints(d), th = ints(th), k = ints(k) }
end

--- The timeline's data of a profile (a JSON-able table), or nil: a gmon
-- profile, or one opened without sample_times (then nil and why). o: the
-- page's options (its caps, which the page's recomputed data keeps).
function M.collect(profile, o, meta)
  if profile.source ~= "stacks" then return nil end
  local ok, times = pcall(profile.sample_times, profile)
  if not ok then
    return nil, "no timeline: the profile was opened without the option sample_times (lgprof.open's"
      .. " sample_times = true keeps each sample's time)"
  end
  local ev = profile:_stack_evidence()
  -- (off-CPU stacks only in an --event=off-cpu or wall profile)
  local synthesized = ev.time and ev.time.synthesized
  -- threads: lanes by pid, then tid
  local threads, tkey = {}, {}
  for th in profile:threads() do threads[#threads + 1] = th end
  table.sort(threads, function(a, b)
    if a.pid ~= b.pid then return a.pid < b.pid end
    return a.tid < b.tid
  end)
  local th_rows = {}
  for i, th in ipairs(threads) do
    tkey[(th.pid << 32) + th.tid] = i - 1
    th_rows[i] = { th.pid, th.tid, th.comm or "" }
  end
  local function thread_of(pid, tid, comm)
    local k = (pid << 32) + tid
    if not tkey[k] then -- (a thread of the off-CPU intervals alone)
      th_rows[#th_rows + 1] = { pid, tid, comm or "" }
      tkey[k] = #th_rows - 1
    end
    return tkey[k]
  end

  -- functions, binaries and the stacks' prefix tree
  local fid, names, indexes, fdso = {}, {}, {}, {}
  local dsos, dso_id = {}, {}
  local files, file_id, fl = {}, {}, {} -- each function's source file and line, where known
  local fc = {} -- the functions in cycles: pairs function, cycle number
  -- (the tree's children: key node * 2^26 + function)
  local np, nf, kids, WIDE = {}, {}, {}, 1 << 26
  local sl, st_thread, sk = {}, {}, {}
  for st in profile:stacks() do
    local node = 0
    for _, fn in ipairs(st.frames) do
      local id = fid[fn.index]
      if not id then
        id = #names
        fid[fn.index] = id
        names[id + 1], indexes[id + 1] = fn.name, fn.index
        local d = fn.dso or "[unknown]"
        if not dso_id[d] then
          dsos[#dsos + 1] = d
          dso_id[d] = #dsos - 1
        end
        fdso[id + 1] = dso_id[d]
        if fn.cycle then fc[#fc + 1], fc[#fc + 2] = id, fn.cycle.number end
        local file = fn.file
        if file then
          if not file_id[file] then
            files[#files + 1] = file
            file_id[file] = #files - 1
          end
          fl[#fl + 1], fl[#fl + 2], fl[#fl + 3] = id, file_id[file], fn.line or 0
        end
      end
      local key = node * WIDE + id
      local child = kids[key]
      if not child then
        child = #nf + 1
        np[child], nf[child] = child - node, id
        kids[key] = child
      end
      node = child
    end
    local leaf = st.frames[#st.frames]
    sl[#sl + 1] = node
    st_thread[#st_thread + 1] = thread_of(st.pid, st.tid, st.comm)
    local kind = synthesized and leaf and off_kind(leaf.name) or 0
    if kind ~= 0 then sk[#sk + 1], sk[#sk + 2] = #sl - 1, kind end
  end

  local t, s, w = {}, {}, {}
  local scale = ev.is_time and 1e9 or 1
  for i, e in ipairs(times) do
    t[i] = math.floor(e.time * 1e6 + 0.5)
    s[i] = e.stack - 1
    w[i] = math.floor(e.seconds * scale + 0.5)
  end
  local time = ev.time or {}
  local data = {
    is_time = ev.is_time, event = ev.event,
    span = time.first and time.last and math.floor((time.last - time.first) * 1e6 + 0.5) or 0,
    switches = (time.switch_tracepoint or time.switch_records) and true or false,
    synthesized = time.synthesized and true or false,
    f = { names, ints(indexes), ints(fdso) }, dsos = dsos, files = files, fl = ints(fl), fc = ints(fc),
    np = ints(np), nf = ints(nf), sl = ints(sl, true), st = ints(st_thread), sk = ints(sk),
    t = ints(t, true), s = ints(s), w = ints(w, true),
  }
  data.offs = off_intervals(profile, ev, thread_of)
  data.meta = meta
  -- (a selection's page is drawn in the browser: the caps of a row's page)
  local g = require("lgprof.format.html_groups").group_options(o)
  local function cap(v) return v == math.huge and -1 or v end
  data.opts = { max_functions = cap(g.max_functions), max_arcs = cap(g.max_arcs),
                min_weight = g.min_weight, max_depth = g.max_depth }
  data.th = th_rows
  return data
end

return M
