--- lgprof.analysis.difftree: the stacks of the base run(s) and of the new
-- profile merged into one tree, frame by frame, for the differential
-- pictures (the flame graph, the comparison page, the two-column folded
-- stacks). A frame is matched to the other side's through the rows of
-- lgprof.analysis.diff (a function by identity, a clone to its origin, a
-- function to its binary): score.constprop.0 in one build and score.isra.0
-- in the other are one frame. Each node carries the self and total time of
-- every side and the test of its self time's change, the same test
-- lgprof.analysis.diff applies to a function's (stats.count_test on sample
-- counts, the bases' spread counted), so a frame is coloured only where the
-- change stands out of the sampling noise at the confidence.
--
-- gmon.out records arcs, not stacks: its stacks are gprof's estimate (the
-- folded synthesis), and so are the frames' times; a perf.data's are
-- measured, each side's read as the tree of its paths that the core builds
-- (profile:_measured_paths: a few hundred thousand entries of integers,
-- not a Lua table per stack and frame), and only the paths kept by the cut
-- become nodes.
local diff = require "lgprof.analysis.diff"
local stacks = require "lgprof.analysis.stacks"
local stats = require "lgprof.analysis.stats"

local difftree = {}

--- The colours: grey within the noise, red a significant growth, blue a
-- significant shrink; a frame with no self time on either side is grey.
difftree.GREY = "rgb(204,204,204)"
difftree.ROOT = "rgb(230,230,230)"

--- The fill of a frame: red (growth) or blue (shrink) when its self
-- change is significant, the saturation growing with the relative size of
-- the change rel = |new - base| / max(base, new) (0 < rel <= 1): the two
-- other channels are round(220 (1 - rel)), so a doubling or a halving
-- (rel 1/2) is rgb(255,110,110) or rgb(110,110,255) and a frame new or gone
-- (rel 1) pure red or blue; grey otherwise.
function difftree.fill(node)
  if node.change == "grew" or node.change == "shrank" then
    local b, n = node.self_base, node.self_new
    local rel = math.abs(n - b) / math.max(b, n)
    local v = math.floor(220 * (1 - rel) + 0.5)
    if node.change == "grew" then return ("rgb(255,%d,%d)"):format(v, v) end
    return ("rgb(%d,%d,255)"):format(v, v)
  end
  return difftree.GREY
end

-- The key of a frame on side i: its row's key, a cycle by its name (gmon's
-- estimated stacks have a cycle as one frame), else its own name.
local function frame_key(key_of, f)
  if f.kind == "cycle" then return "\1" .. f.name end
  return key_of[f] or ("\2" .. f.name)
end

-- One side's stacks as the tree of their paths from the root: { node =
-- { id, ... }, parent = { entry, ... } (0: at the root; parents first),
-- self = { weight of the stacks ending there, ... }, total = { weight of
-- those through it, ... }, funcs = { [id] = Function or Cycle } }, weights in seconds (or counts of an event that is
-- not time). A perf.data's come from the core, uncut; gmon.out's from its
-- estimated stacks (stacks.each, uncut).
local function side_paths(profile, max_depth)
  if profile.source == "stacks" then return profile:_measured_paths(max_depth) end
  local node, parent, self, total, funcs = {}, {}, {}, {}, {}
  local index, ids = { [0] = {} }, {}
  for frames, _, seconds in stacks.each(profile, { max_depth = max_depth, min_weight = 0 }) do
    local e = 0
    for _, f in ipairs(frames) do
      local id = ids[f]
      if not id then
        id = #funcs + 1
        ids[f], funcs[id] = id, f
      end
      local at = index[e]
      local child = at[id]
      if not child then
        child = #node + 1
        node[child], parent[child], self[child], total[child] = id, e, 0, 0
        at[id], index[child] = child, {}
      end
      e = child
      total[e] = total[e] + seconds
    end
    if e > 0 then self[e] = self[e] + seconds end
  end
  return { node = node, parent = parent, self = self, total = total, funcs = funcs }
end

--- Compares base (a Profile or a list of runs) with new, as
-- lgprof.analysis.diff, and merges their stacks. opts: confidence,
-- clone_match (diff's), max_depth (the stacks', default 64), min_weight (a
-- share, default 0: a subtree lighter than that share of its side's total
-- on every side is not broken down: its time stays with its top frame,
-- on every side alike, so that a cut never makes a change), like (the
-- matching of an earlier result on profiles of the same symbols: diff._diff).
-- Returns rows
-- (diff's result) and the tree: root { name = "all", children = { ... } }
-- where every node is { key, name (the frame's label: the new side's name,
-- else the base's), row (the function's diff row, nil for a cycle),
-- parent, children (a list), total_base, total_new, self_base, self_new
-- (seconds, or counts of an event that is not time; base: the runs' mean),
-- self_delta, self_half (the confidence interval's half-width), self_p
-- (two-sided), self_significant, change ("grew", "shrank", "same"), status
-- ("new" or "gone": its function is absent from that build's symbols;
-- "common"), fill (difftree.fill) }. Siblings: heaviest first in the new
-- profile, then in the base, then by name.
function difftree.compare(base, new, opts)
  opts = opts or {}
  local rows = diff._diff(base, new, { confidence = opts.confidence, clone_match = opts.clone_match },
    opts.like)
  local m = rows.matching
  local profiles, k = m.profiles, #m.profiles - 1
  local by_key = {}
  for _, r in ipairs(rows) do by_key[r.key] = r end
  -- values: microseconds, or an event's counts (stacks.each)
  local scale = stacks.event(profiles[k + 1]) and 1 or 1e6
  local root = { key = "", name = "all", children = {}, index = {},
                 tot = {}, self = {} }
  local max_depth = opts.max_depth or 64
  local share = opts.min_weight or 0
  -- each side's paths, their frames' keys and the least weight kept
  local sides = {}
  for i = 1, k + 1 do
    local paths = side_paths(profiles[i], max_depth)
    local key_of, keys, funcs, total = m.key_of[i], {}, paths.funcs, 0
    for id, f in pairs(funcs) do keys[id] = frame_key(key_of, f) end
    for e = 1, #paths.node do
      if paths.parent[e] == 0 then total = total + paths.total[e] end
    end
    sides[i] = { paths = paths, keys = keys, least = share * total, at = { [0] = root } }
  end
  local function child_of(node, key, f)
    local child = node.index[key]
    if not child then
      local row = by_key[key]
      child = { key = key, row = row, name = row and row.frame_label or f.name,
                parent = node, children = {}, index = {}, tot = {}, self = {} }
      node.index[key] = child
      node.children[#node.children + 1] = child
    end
    return child
  end
  -- the tree's nodes: a node per (parent, frame key) whose path weighs at
  -- least the share of its side's total on some side (a path is heavier
  -- than its extensions: its parent is made first)
  for i = 1, k + 1 do
    local sd = sides[i]
    local p, at, least = sd.paths, sd.at, sd.least
    local pnode, pparent, ptotal = p.node, p.parent, p.total
    for e = 1, #pnode do
      local w = ptotal[e]
      if w > 0 and w >= least then
        local id = pnode[e]
        at[e] = child_of(at[pparent[e]], sd.keys[id], p.funcs[id])
      end
    end
  end
  -- every side's weights on them: a path without a node (light on every
  -- side) stays with the nearest node above it, its weight that node's self
  for i = 1, k + 1 do
    local sd = sides[i]
    local p, at, keys = sd.paths, sd.at, sd.keys
    local pnode, pparent, pself, ptotal = p.node, p.parent, p.self, p.total
    local into = {} -- entry -> the node above that takes a light path
    for e = 1, #pnode do
      local parent = pparent[e]
      local up = into[parent]
      local node = not up and at[parent].index[keys[pnode[e]]]
      if node then
        at[e] = node
        node.tot[i] = (node.tot[i] or 0) + ptotal[e] * scale
        local w = pself[e] * scale
        if w > 0 then node.self[i] = (node.self[i] or 0) + w end
        if parent == 0 then root.tot[i] = (root.tot[i] or 0) + ptotal[e] * scale end
      else
        up = up or at[parent]
        into[e] = up
        local w = pself[e] * scale
        if w > 0 then up.self[i] = (up.self[i] or 0) + w end
        if parent == 0 then root.tot[i] = (root.tot[i] or 0) + ptotal[e] * scale end
      end
    end
  end
  local confidence = rows.confidence
  local q = confidence > 0 and stats.quantile((1 + confidence) / 2) or 0
  -- sample counts from values: the period in the values' unit
  local per_sample = rows.period * scale
  local function mean(t)
    local s = 0
    for i = 1, k do s = s + (t[i] or 0) end
    return s / k
  end
  -- the tests, the sort and the index dropped, without recursion
  local todo = { root }
  while #todo > 0 do
    local node = table.remove(todo)
    node.index = nil
    node.total_base, node.total_new = mean(node.tot) / scale, (node.tot[k + 1] or 0) / scale
    node.self_base, node.self_new = mean(node.self) / scale, (node.self[k + 1] or 0) / scale
    node.self_delta = node.self_new - node.self_base
    local counts = {}
    for i = 1, k do counts[i] = per_sample > 0 and (node.self[i] or 0) / per_sample or 0 end
    local ncount = per_sample > 0 and (node.self[k + 1] or 0) / per_sample or 0
    local t = stats.count_test(counts, ncount)
    local half = q > 0 and (q * t.se + t.cc) * rows.period or 0
    node.self_half = half
    node.self_z, node.self_p = t.z, stats.p_two(t.z)
    local d = node.self_delta
    -- (confidence 0: no statistics, any change counts)
    node.self_significant = d - half > 0 or d + half < 0
    node.change = not node.self_significant and "same" or d > 0 and "grew" or "shrank"
    local row = node.row
    node.status = row and (row.status == "added" and "new" or row.status == "removed" and "gone")
      or "common"
    node.fill = node == root and difftree.ROOT or difftree.fill(node)
    node.tot, node.self = nil, nil
    for _, c in ipairs(node.children) do todo[#todo + 1] = c end
  end
  todo = { root }
  while #todo > 0 do
    local node = table.remove(todo)
    table.sort(node.children, function(a, b)
      if a.total_new ~= b.total_new then return a.total_new > b.total_new end
      if a.total_base ~= b.total_base then return a.total_base > b.total_base end
      if a.name ~= b.name then return a.name < b.name end
      return a.key < b.key
    end)
    for _, c in ipairs(node.children) do todo[#todo + 1] = c end
  end
  rows.scale = scale
  return rows, root
end

--- The nodes of a tree in depth-first order (parents first, siblings in
-- their order), as a list, without recursion.
function difftree.nodes(root)
  local list, todo = {}, { root }
  while #todo > 0 do
    local node = table.remove(todo)
    list[#list + 1] = node
    for i = #node.children, 1, -1 do todo[#todo + 1] = node.children[i] end
  end
  return list
end

return difftree
