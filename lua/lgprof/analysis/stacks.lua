--- lgprof.stacks: the estimated call stacks of the folded synthesis
-- (lgprof.report.folded, README "Folded stacks: an estimate") as Lua data,
-- for the writers that draw them (flame graphs, pprof, speedscope).
-- gmon.out records arcs, not stacks: every stack here is an estimate.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"

local stacks = {}

--- The stacks of a Profile or view: a list of { frames = { name, ... }
-- (root first), value = microseconds }, in the folded writer's order
-- (depth first from each root, the heaviest call first). options: the
-- folded writer's (max_depth, min_weight). Returns nil, message on a
-- write error of the temporary file.
function stacks.list(profile, options)
  args.check_profile(profile, 1, "stacks")
  local fh = io.tmpfile()
  local ok, err = lgprof.report.folded(profile, fh, options)
  if not ok then
    fh:close()
    return nil, err
  end
  fh:seek("set")
  local list = {}
  for line in fh:lines() do
    -- the value follows the last blank: names may hold blanks, never ';'
    local path, value = line:match("^(.*) (%d+)$")
    if path then
      local frames = {}
      for name in (path .. ";"):gmatch("([^;]*);") do frames[#frames + 1] = name end
      list[#list + 1] = { frames = frames, value = tonumber(value) }
    end
  end
  fh:close()
  return list
end

local function by_weight(a, b)
  if a.value ~= b.value then return a.value > b.value end
  return a.name < b.name
end

--- The stacks as a tree: the root { name = "all", value, self = 0,
-- children } where each node is { name, value (its stacks' microseconds,
-- its own and its descendants'), self (the stacks ending at it), children
-- (a list, heaviest first), parent }. Returns nil, message as stacks.list.
function stacks.tree(profile, options)
  local list, err = stacks.list(profile, options)
  if not list then return nil, err end
  local root = { name = "all", value = 0, self = 0, children = {}, index = {} }
  for _, s in ipairs(list) do
    local node = root
    node.value = node.value + s.value
    for _, name in ipairs(s.frames) do
      local child = node.index[name]
      if not child then
        child = { name = name, value = 0, self = 0, children = {}, index = {}, parent = node }
        node.index[name] = child
        node.children[#node.children + 1] = child
      end
      child.value = child.value + s.value
      node = child
    end
    node.self = node.self + s.value
  end
  -- sort and drop the name indexes, without recursion (stacks can be deep)
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

--- A function from the frame names of the stacks to what they stand for:
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
