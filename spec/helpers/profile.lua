-- Small queries over an lgprof Profile that several specs make the same way:
-- its gprof report as a string, a function by name, its arcs as a table.
local M = {}

--- p:gprof_report(file, opts) as a string (opts default: { brief = true }).
function M.report(p, opts)
  local f = assert(io.tmpfile())
  local ok, err = p:gprof_report(f, opts or { brief = true })
  assert(ok ~= nil, err)
  f:seek("set")
  local s = f:read("a")
  f:close()
  return s
end

--- The first function of p:symbols() whose field (default "name") is value.
function M.fn(p, value, field)
  for fn in p:symbols() do
    if fn[field or "name"] == value then return fn end
  end
  return nil
end

--- The arcs as { ["caller>callee"] = count } (counts of one pair summed),
-- the ends named by field (default "symbol").
function M.arc_map(p, field)
  field = field or "symbol"
  local m = {}
  for a in p:arcs() do
    local k = a.caller[field] .. ">" .. a.callee[field]
    m[k] = (m[k] or 0) + a.count
  end
  return m
end

return M
