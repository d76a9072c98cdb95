--- lgprof.analysis.groups: a profile of sampled stacks (perf.data) by
-- thread, process, command name or binary, as `perf report --sort
-- pid|comm|dso` shows it: one group per value with its samples, its time
-- (or the event's count) with one standard error, its share of the
-- profile's samples and its hottest functions. Several keys nest: the
-- groups of {"comm", "dso"} are the command names, each with its binaries
-- under it (perf report --sort comm,dso's rows are the inner groups).
--
-- A sample belongs to its thread (pid, tid, comm) and to the binary of its
-- leaf frame (where the time was spent, as perf report's dso column).
local args = require "lgprof.util.args"

local groups = {}

--- The keys, in the order --by and profile:groups take them.
groups.KEYS = { "thread", "process", "comm", "dso" }
local KNOWN = {}
for _, k in ipairs(groups.KEYS) do KNOWN[k] = true end

--- The functions of a group shown by default (its hottest first).
groups.HOTTEST = 3

-- The value a sample s (a profile:stacks() entry, leaf = its last frame)
-- has for key, and the label of the group it names: perf report's spelling
-- ("TID:comm" for a thread, "PID:comm" for a process).
local function value_of(key, s, leaf)
  if key == "thread" then return s.tid
  elseif key == "process" then return s.pid
  elseif key == "comm" then return s.comm or ""
  end
  return leaf and leaf.dso or "[unknown]"
end

-- A new group of key = value.
local function new_group(key, value)
  return { key = key, value = value, samples = 0, weight = 0, seconds = 0, by_function = {},
           children = {}, order = {} }
end

-- Adds a stack's samples to group g.
local function add(g, s, leaf)
  g.samples = g.samples + s.samples
  g.weight = g.weight + s.weight
  g.seconds = g.seconds + s.seconds
  if leaf then g.by_function[leaf] = (g.by_function[leaf] or 0) + s.samples end
end

-- Most samples first, then most weight, then by value (a stable order for
-- equals: the output is the same on every run).
local function before(a, b)
  if a.samples ~= b.samples then return a.samples > b.samples end
  if a.weight ~= b.weight then return a.weight > b.weight end
  return tostring(a.value) < tostring(b.value)
end

-- The public form of group g (a plain table: documented fields only), its
-- children made the same way; comm_of: pid or tid -> the thread's name.
local function finish(g, total, top, names)
  local hottest = {}
  for f, n in pairs(g.by_function) do hottest[#hottest + 1] = { func = f, samples = n } end
  table.sort(hottest, function(a, b)
    if a.samples ~= b.samples then return a.samples > b.samples end
    if a.func.name ~= b.func.name then return a.func.name < b.func.name end
    return (a.func.dso or "") < (b.func.dso or "")
  end)
  for k = #hottest, top + 1, -1 do hottest[k] = nil end
  for _, h in ipairs(hottest) do
    h.name, h.dso = h.func.name, h.func.dso
    h.share = g.samples > 0 and h.samples / g.samples or 0
  end
  local out = {
    key = g.key, samples = g.samples, weight = g.weight, seconds = g.seconds,
    -- one standard error: sqrt(samples) x the group's mean period
    error = g.samples > 0 and g.seconds / math.sqrt(g.samples) or 0,
    share = total > 0 and g.samples / total or 0,
    hottest = hottest, groups = {},
  }
  if g.key == "thread" then
    out.tid, out.pid, out.comm = g.value, names.pid_of[g.value], names.thread[g.value]
    out.label = ("%d:%s"):format(g.value, out.comm or "")
  elseif g.key == "process" then
    out.pid, out.comm = g.value, names.process[g.value]
    out.label = ("%d:%s"):format(g.value, out.comm or "")
  elseif g.key == "comm" then
    out.comm, out.label = g.value, g.value
  else
    out.dso, out.label = g.value, g.value
  end
  local kids = {}
  for _, v in ipairs(g.order) do kids[#kids + 1] = g.children[v] end
  table.sort(kids, before)
  for i, c in ipairs(kids) do out.groups[i] = finish(c, total, top, names) end
  return out
end

--- The keys of a list or a comma-separated string ("comm,dso"), checked:
-- a list of known keys, each once; or nil and the message.
function groups.parse(spec)
  local list = {}
  if type(spec) == "string" then
    for k in (spec .. ","):gmatch("([^,]*),") do list[#list + 1] = k end
  elseif type(spec) == "table" then
    table.move(spec, 1, #spec, 1, list)
  else
    return nil, "keys expected (a list or \"comm,dso\"), got " .. type(spec)
  end
  if #list == 0 then return nil, "no key: thread, process, comm or dso" end
  local seen = {}
  for _, k in ipairs(list) do
    if not KNOWN[k] then
      return nil, ("'%s' is not a key: thread, process, comm or dso"):format(tostring(k))
    end
    if seen[k] then return nil, ("'%s' is given twice"):format(k) end
    seen[k] = true
  end
  return list
end

--- The groups of profile (a profile of sampled stacks) by keys (a list, or
-- "comm,dso"): a list of groups, most samples first, each { key, label,
-- tid, pid, comm, dso (those of its key), samples, weight, seconds (the
-- event's count when it is not time), error (one standard error of
-- seconds: seconds / sqrt(samples)), share (of the profile's samples),
-- hottest = { { func, name, dso, samples, share (of the group's) }, ... },
-- groups (the next key's groups within it, the same form; {} at the last
-- key) }. options.hottest: how many functions a group lists (default 3).
function groups.list(profile, keys, options)
  args.check_profile(profile, 1, "groups")
  local list, kerr = groups.parse(keys)
  args.check(list ~= nil, 2, "groups", kerr)
  args.check(options == nil or type(options) == "table", 3, "groups",
    "table expected, got " .. type(options))
  local top = (options or {}).hottest or groups.HOTTEST
  args.check(math.type(top) == "integer" and top >= 0, 3, "groups",
    "option 'hottest' must be a non-negative integer")
  args.check(profile.source == "stacks", 1, "groups",
    "a profile of sampled stacks (perf.data) expected: gmon.out records no threads or binaries")
  local names = { thread = {}, pid_of = {}, process = {} }
  for t in profile:threads() do
    names.thread[t.tid], names.pid_of[t.tid] = t.comm, t.pid
  end
  for pr in profile:processes() do names.process[pr.pid] = pr.comm end
  local root, total = new_group(nil, nil), 0
  for s in profile:stacks() do
    local leaf = s.frames[#s.frames]
    total = total + s.samples
    local g = root
    for _, key in ipairs(list) do
      local v = value_of(key, s, leaf)
      local c = g.children[v]
      if not c then
        c = new_group(key, v)
        g.children[v] = c
        g.order[#g.order + 1] = v
      end
      add(c, s, leaf)
      g = c
    end
  end
  return finish(root, total, top, names).groups
end

--- An iterator over groups.list's groups (profile:groups(keys, options)).
function groups.each(profile, keys, options)
  local list = groups.list(profile, keys, options)
  local i = 0
  return function()
    i = i + 1
    return list[i]
  end
end

return groups
