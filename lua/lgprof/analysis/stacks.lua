--- lgprof.stacks: a profile's call stacks as Lua data, for the writers
-- that draw them (flame graphs, pprof, speedscope). Each stack is its frames,
-- Function and Cycle objects of the profile (root first), and its weight:
-- functions are told apart by what they are, never by their names, so two
-- functions of one name are two frames and a name holding ';' or blanks is
-- kept whole. gmon.out records arcs, not stacks: its stacks are the
-- estimate of the folded synthesis (lgprof.report.folded, doc/formats.md
-- "Folded stacks: an estimate"), a cycle one frame with its members' self
-- time as leaves below it. A perf.data records stacks: its stacks are
-- those (profile:stacks()), measured.
local args = require "lgprof.util.args"

local stacks = {}

--- A lazy iterator over the stacks of a Profile or view:
--   for frames, value, seconds in stacks.each(profile [, options]) do ... end
-- frames: a new list of Function and Cycle objects, root first; value: its
-- integer microseconds (for a perf.data event that is not time, its count
-- of events: stacks.event), rounded so that the running sum stays within
-- one of the exact one (stacks rounding to 0 are left out, as the folded
-- writer leaves them out); seconds: its exact weight (or count). Order:
-- the folded writer's (depth first from each root, the heaviest call
-- first). options: the folded writer's (max_depth, min_weight). A loop
-- left early frees the walk (the iterator's closing value); misuse raises
-- an error.
function stacks.each(profile, options)
  args.check_profile(profile, 1, "stacks.each")
  args.check(options == nil or type(options) == "table", 2, "stacks.each",
    "table expected, got " .. type(options))
  for k, v in pairs(options or {}) do
    if k == "max_depth" then
      local d = type(v) == "number" and math.tointeger(v)
      args.check(d and d >= 1 and d <= 1000000, 2, "stacks.each",
        "option 'max_depth' must be an integer from 1 to 1000000")
    elseif k == "min_weight" then
      args.check(args.share(v) ~= nil, 2, "stacks.each",
        "option 'min_weight' must be " .. args.share_expected())
    else
      args.check(false, 2, "stacks.each", ("unknown option '%s'"):format(tostring(k)))
    end
  end
  if profile.source == "stacks" then return stacks.measured(profile, options) end
  return args.call(function() return profile:_stacks(options) end)
end

--- The event whose counts the stacks' values are, when a profile of
-- sampled stacks records one that is not time (perf record -e page-faults:
-- its "seconds" are counts), e.g. "page-faults"; nil when the values are
-- microseconds (gmon.out, cpu-clock, task-clock).
function stacks.event(profile)
  args.check_profile(profile, 1, "stacks.event")
  if profile.source ~= "stacks" then return nil end
  local ev = profile:_stack_evidence()
  if ev.is_time or not ev.event then return nil end
  return ev.event
end

--- The recorded stacks of a profile of sampled stacks (a perf.data), as
-- stacks.each gives them: profile:stacks(), measured, not estimated. Of
-- options, max_depth keeps a stack's frames nearest the root, and
-- min_weight (a share of the total) cuts a stack below the first frame
-- whose path from the root weighs less, its weight then charged to the
-- frame above (no weight is lost). Equal stacks after the cuts are one.
function stacks.measured(profile, options)
  local o = options or {}
  -- the tree of paths, the cuts and the merge are the core's (the
  -- table's stacks are many; the cut ones few)
  local order = profile:_measured_stacks(o.max_depth or 64,
    o.min_weight and args.share(o.min_weight) or 1e-4)
  -- microseconds (or counts of an event that is not time) rounded so that
  -- the running sum stays within one of the exact one; stacks rounding to
  -- 0 are left out (as stacks.each's)
  local scale = stacks.event(profile) and 1 or 1e6
  local i, exact, given = 0, 0, 0
  return function()
    while true do
      i = i + 1
      local m = order[i]
      if not m then return nil end
      exact = exact + m.seconds * scale
      local value = math.floor(exact + 0.5) - given
      given = given + value
      if value > 0 then return table.move(m.frames, 1, #m.frames, 1, {}), value, m.seconds end
    end
  end
end

-- Each profile's shared names, asked of the core once (a labeller per
-- picture and one for its tree would ask twice).
local shared_of = setmetatable({}, { __mode = "k" })

--- A function from the frames (Function or Cycle objects) to their labels,
-- the names the folded writer prints: a cycle's name ("<cycle 1>"), a
-- function's printed name with line breaks as blanks and, when another
-- function prints the same name, its address (" [0x401136]"). Unlike the
-- folded text, ';' is kept (a label is shown, never parsed). Its second
-- result is that address suffix ("" when there is none), for writers that
-- show the name as it is.
function stacks.labeller(profile)
  args.check_profile(profile, 1, "stacks.labeller")
  local labels, suffixes, shared = {}, {}, shared_of[profile]
  return function(obj)
    local l = labels[obj]
    if l then return l, suffixes[obj] end
    local suffix = ""
    if obj.kind == "cycle" then
      l = obj.name
    else
      if not shared then
        shared = profile:_shared_names()
        shared_of[profile] = shared
      end
      if shared[obj] then suffix = (" [0x%x]"):format(obj.address) end
      l = obj.name:gsub("[\r\n]", " ") .. suffix
    end
    labels[obj], suffixes[obj] = l, suffix
    return l, suffix
  end
end

--- The stacks as a list of { frames = { label, ... }, funcs = { Function or
-- Cycle, ... } (root first), value (as stacks.each's), seconds } in the order
-- of stacks.each; labels as stacks.labeller's. options: as stacks.each's.
function stacks.list(profile, options)
  args.check_profile(profile, 1, "stacks")
  local label = stacks.labeller(profile)
  local list = {}
  for funcs, value, seconds in stacks.each(profile, options) do
    local frames = {}
    for i, f in ipairs(funcs) do frames[i] = label(f) end
    list[#list + 1] = { frames = frames, funcs = funcs, value = value, seconds = seconds }
  end
  return list
end

-- Siblings: heaviest first, then by label, then functions by address after
-- cycles by number (two objects may share a label only in odd profiles).
local function rank(obj)
  if obj.kind == "cycle" then return -obj.number end
  return obj.address
end

local function by_weight(a, b)
  if a.value ~= b.value then return a.value > b.value end
  if a.name ~= b.name then return a.name < b.name end
  return rank(a.func) < rank(b.func)
end

--- The stacks as a tree: the root { name = "all", value, self = 0,
-- children } where each node is { name (its label), func (the Function or
-- Cycle), value (its stacks' values, as stacks.each's: microseconds or
-- counts; its own and its descendants'),
-- self (the stacks ending at it), children (a list, heaviest first),
-- parent }; a node's children are distinct objects. options: as
-- stacks.each's.
function stacks.tree(profile, options)
  args.check_profile(profile, 1, "stacks")
  local label = stacks.labeller(profile)
  local root = { name = "all", value = 0, self = 0, children = {}, index = {} }
  for funcs, value in stacks.each(profile, options) do
    local node = root
    node.value = node.value + value
    for _, f in ipairs(funcs) do
      local child = node.index[f]
      if not child then
        child = { name = label(f), func = f, value = 0, self = 0, children = {}, index = {},
                  parent = node }
        node.index[f] = child
        node.children[#node.children + 1] = child
      end
      child.value = child.value + value
      node = child
    end
    node.self = node.self + value
  end
  -- sort and drop the indexes, without recursion (stacks can be deep)
  local todo = { root }
  while #todo > 0 do
    local node = table.remove(todo)
    node.index = nil
    table.sort(node.children, by_weight)
    for _, c in ipairs(node.children) do todo[#todo + 1] = c end
  end
  return root
end

-- A name as a frame of the folded stacks prints it: no line breaks, no ';'.
local function frame_name(name)
  return (name:gsub("[\r\n]", " "):gsub(";", ":"))
end

--- For the text of lgprof.report.folded (not needed with the data above):
-- a function from its frame names to what they stand for:
-- the Function (or the Cycle, for "<cycle N>") of the profile or view, or
-- nil for a name no function prints. Names are resolved once each, by
-- profile:find (or profile:lookup for the "name [0xADDR]" of a name several
-- functions share); only a name neither finds (one holding a ';') makes it
-- index every function, once.
function stacks.resolver(profile)
  args.check_profile(profile, 1, "stacks.resolver")
  local cache, cycles, all = {}, nil, nil
  local function index_all()
    local seen = {}
    all = {}
    for f in profile:functions() do
      local name = frame_name(f.name)
      all[("%s [0x%x]"):format(name, f.address)] = f
      seen[name] = (seen[name] or 0) + 1
      all[name] = f
    end
    for name, n in pairs(seen) do
      if n > 1 then all[name] = nil end
    end
  end
  return function(label)
    local r = cache[label]
    if r ~= nil then return r or nil end
    local num = label:match("^<cycle (%d+)>$")
    if num then
      if not cycles then
        cycles = {}
        for c in profile:cycles() do cycles[c.number] = c end
      end
      r = cycles[tonumber(num)]
    else
      local name, addr = label:match("^(.*) %[0x(%x+)%]$")
      addr = addr and tonumber(addr, 16)
      if addr then
        local f = profile:lookup(addr)
        if f and f.address == addr and frame_name(f.name) == name then r = f end
      end
      if not r then
        local f = profile:find(label)
        if f and frame_name(f.name) == label then r = f end
      end
      if not r then
        if not all then index_all() end
        r = all[label]
      end
    end
    cache[label] = r or false
    return r
  end
end

return stacks
