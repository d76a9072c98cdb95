--- lgprof.format.diffdata: `lgprof --diff`'s table as data (json, csv) and
-- the two stacks as one two-column folded file (folded), the format
-- Brendan Gregg's difffolded.pl writes and flamegraph.pl reads:
--   frame;frame;frame BASE NEW
-- per stack, the counts in microseconds (or an event's counts).
local html = require "lgprof.format.html"

local diffdata = {}

--- How a row's function was matched across the sides: "clone-origin"
-- (a clone matched to its origin, or two clones of one origin),
-- "binary" (a name two binaries hold, matched with its binary), "name"
-- (by name, and for a static by its file), or "none" (new or gone).
function diffdata.matched_by(r)
  if r.status ~= "common" then return "none" end
  if r.clone_match then return "clone-origin" end
  if r.key:find("\0\0", 1, true) then return "binary" end
  return "name"
end

local STATUS = { common = "common", added = "new", removed = "gone" }
diffdata.STATUS = STATUS

local function measure(r, what)
  return {
    base = r[what .. "_base"], new = r[what .. "_new"], change = r[what .. "_delta"],
    low = r[what .. "_low"], high = r[what .. "_high"],
    share_of_base = r[what .. "_share"],
    significant = r[what .. "_significant"], p = r[what .. "_p"],
  }
end

--- The diff's result as one JSON document (a string): the totals, the
-- confidence, the ambiguous clone groups, and a row per function with
-- its self and total time (base, new, change, the interval low..high,
-- share_of_base, significant, p), calls and how it was matched.
function diffdata.json(result)
  local fns = {}
  for i, r in ipairs(result) do
    fns[i] = {
      name = r.name, label = r.frame_label, file = r.file, base_name = r.base_name,
      status = STATUS[r.status], matched_by = diffdata.matched_by(r),
      self = measure(r, "self"), total = measure(r, "total"),
      calls = r.calls_base and { base = r.calls_base, new = r.calls_new, change = r.calls_delta,
                                 from_calls = r.calls_effect, from_per_call = r.per_call_effect },
    }
  end
  local amb = {}
  for i, a in ipairs(result.ambiguous or {}) do amb[i] = { origin = a.origin, functions = a.labels } end
  return html.json({
    format = "lgprof-diff", version = 1, unit = result.unit or "seconds",
    confidence = result.confidence, base_runs = result.base_runs,
    base_total = result.base_total, new_total = result.new_total,
    base_samples = result.base_samples, new_samples = result.new_samples,
    calls_recorded = result.calls_recorded, ambiguous = amb, functions = fns,
  }) .. "\n"
end

-- A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
local function field(v)
  if v == nil then return "" end
  if type(v) == "boolean" then return v and "1" or "0" end
  if type(v) == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    return ("%.9g"):format(v)
  end
  v = tostring(v)
  if v:find('[,"\r\n]') then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end

diffdata.CSV_COLUMNS = {
  "function", "status", "matched_by", "base_name",
  "self_base", "self_new", "self_change", "self_low", "self_high", "self_significant", "self_p",
  "total_base", "total_new", "total_change", "total_low", "total_high", "total_significant",
  "total_p", "calls_base", "calls_new",
}

--- The diff's result as CSV text (a header line, then a row per function in
-- the table's order; times in the unit of the table, blank calls when none
-- were recorded).
function diffdata.csv(result)
  local out = { table.concat(diffdata.CSV_COLUMNS, ",") .. "\r\n" }
  for _, r in ipairs(result) do
    local v = { r.frame_label, STATUS[r.status], diffdata.matched_by(r), r.base_name,
      r.self_base, r.self_new, r.self_delta, r.self_low, r.self_high, r.self_significant, r.self_p,
      r.total_base, r.total_new, r.total_delta, r.total_low, r.total_high, r.total_significant,
      r.total_p, r.calls_base, r.calls_new }
    local f = {}
    for i = 1, #diffdata.CSV_COLUMNS do f[i] = field(v[i]) end
    out[#out + 1] = table.concat(f, ",") .. "\r\n"
  end
  return table.concat(out)
end

-- A frame's name in folded text: no ';' (the separator), no line break.
local function frame_name(name)
  return (name:gsub("[\r\n]", " "):gsub(";", ":"))
end

--- The merged tree (lgprof.analysis.difftree) as two-column folded text:
-- a line per stack ending in a frame with self time on either side, its
-- frames root first, then the base's and the new profile's counts
-- (integer microseconds, or an event's counts; the base: the runs' mean,
-- rounded). Lines in depth-first order, heaviest first.
function diffdata.folded(rows, root)
  local scale = rows.scale or 1e6
  local out, todo = {}, {}
  for i = #root.children, 1, -1 do todo[#todo + 1] = { root.children[i], "" } end
  while #todo > 0 do
    local item = table.remove(todo)
    local node, prefix = item[1], item[2]
    local path = prefix == "" and frame_name(node.name) or prefix .. ";" .. frame_name(node.name)
    local b = math.floor(node.self_base * scale + 0.5)
    local n = math.floor(node.self_new * scale + 0.5)
    if b > 0 or n > 0 then out[#out + 1] = ("%s %d %d\n"):format(path, b, n) end
    for i = #node.children, 1, -1 do todo[#todo + 1] = { node.children[i], path } end
  end
  return table.concat(out)
end

return diffdata
