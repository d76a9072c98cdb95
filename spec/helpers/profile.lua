-- Small queries over an lgprof Profile that several specs make the same way:
-- its gprof report as a string, a function by name, its arcs as a table, and
-- whether a fixture's runs sampled what a spec needs.
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

--- The only value an iterator gives (asserts that it gives exactly one).
function M.only(iter)
  local first = iter()
  assert(first ~= nil, "the iterator gives nothing")
  assert(iter() == nil, "the iterator gives more than one value")
  return first
end

--- Asserts that exe with the profile files gmons is refused because of
-- `file`: lgprof.open gives nil and "FILE: reason", and bin/lgprof prints
-- exactly that as its one line "lgprof: FILE: reason" with status 1 and no
-- output. opts are cmd.lgprof's. Returns "FILE: reason".
function M.refused(exe, gmons, file, opts)
  local lgprof, cmd = require "lgprof", require "helpers.cmd"
  if type(gmons) == "string" then gmons = { gmons } end
  local p, msg = lgprof.open(exe, gmons)
  assert(p == nil, "lgprof.open accepted it")
  assert(msg:sub(1, #file + 2) == file .. ": ", "lgprof.open's message names another file: " .. msg)
  local line = cmd.file_error(file, cmd.lgprof({ exe, table.unpack(gmons) }, opts))
  assert(line == msg, ("the command says %q, lgprof.open %q"):format(line, msg))
  return msg
end

--- An accept check for helpers.fixtures.build: fn(profile, run) -> true |
-- nil, why holds for the profile of each of its runs.
function M.every_run(fn)
  return function(b)
    local lgprof = require "lgprof"
    for run, gmon in ipairs(b.gmon) do
      local p <close> = assert(lgprof.open(b.exe, gmon))
      local ok, why = fn(p, run)
      if not ok then return nil, ("run %d: %s"):format(run, why) end
    end
    return true
  end
end

--- An accept check for helpers.fixtures.build: every run's profile gives
-- each named function a share of the flat profile in the given range, in
-- percent: { c = { 5, 99 } } (c has at least 5% and at most 99% of each
-- run's samples), or { c = 5 } (at least 5%). The fixtures run for a fraction
-- of a second: a few dozen samples a run, so a light function can get none.
function M.sampled(percent)
  return M.every_run(function(p)
    for name, range in pairs(percent) do
      local lo, hi = range, math.huge -- (a share can top 100%: gprof prints 100.16%)
      if type(range) == "table" then lo, hi = range[1], range[2] end
      local fn = M.fn(p, name)
      local got = fn and fn.flat_percent
      if not (got and got >= lo and got <= hi) then
        return nil, ("%s has %s%% of the samples, not in [%g, %g]"):format(name,
          got and ("%.2f"):format(got) or "none", lo, hi)
      end
    end
    return true
  end)
end

return M
