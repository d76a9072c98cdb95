--- lgprof.diff: compares two profiles function by function.
-- Functions are matched by identity (lgprof.fnkey: demangled name, plus for
-- a static function the shortest suffix of its source path that is unique
-- in both profiles); only functions active in either profile (sampled or
-- called) are listed.
local args = require "lgprof.args"
local fnkey = require "lgprof.fnkey"

local diff = {}

local function measures(entry)
  if not entry then return 0, 0, 0 end
  local fn = entry.fn
  return fn.flat_self, fn.total, fn.calls + fn.self_calls
end

local function share(delta, total)
  if total > 0 then return delta / total end
  return nil
end

local function by_change(a, b)
  local at, bt = math.abs(a.total_delta), math.abs(b.total_delta)
  if at ~= bt then return at > bt end
  local as, bs = math.abs(a.self_delta), math.abs(b.self_delta)
  if as ~= bs then return as > bs end
  if a.name ~= b.name then return a.name < b.name end
  return a.key < b.key
end

--- Compares Profile `new` with Profile `base`.
-- Returns a list of rows sorted by the size of the change (absolute total
-- change, then absolute self change, then name), with the fields
-- base_total and new_total (the profiles' total_time). See README.
function diff.diff(base, new)
  args.check_profile(base, 1, "diff")
  args.check_profile(new, 2, "diff")
  local maps, orders = fnkey.collect_all { base, new }
  local bmap, border, nmap, norder = maps[1], orders[1], maps[2], orders[2]
  local base_total = base.total_time
  local rows = { base_total = base_total, new_total = new.total_time }
  local function add(key, b, n)
    local e = n or b
    local bs, bt, bc = measures(b)
    local ns, nt, nc = measures(n)
    rows[#rows + 1] = {
      key = key, name = e.name, file = e.file, is_static = e.is_static, label = e.label,
      status = not b and "added" or not n and "removed" or "common",
      self_base = bs, self_new = ns, self_delta = ns - bs, self_share = share(ns - bs, base_total),
      total_base = bt, total_new = nt, total_delta = nt - bt,
      total_share = share(nt - bt, base_total),
      calls_base = bc, calls_new = nc, calls_delta = nc - bc,
    }
  end
  for _, key in ipairs(border) do add(key, bmap[key], nmap[key]) end
  for _, key in ipairs(norder) do
    if not bmap[key] then add(key, nil, nmap[key]) end
  end
  table.sort(rows, by_change)
  return rows
end

local function signed(v, fmt)
  if v == nil then return "-" end
  local s = fmt:format(v)
  if s:match("^%-0[%.0]*$") then s = s:sub(2) end -- no "-0.00"
  if s:sub(1, 1) ~= "-" then s = "+" .. s end
  return s
end

--- Writes a diff result as an aligned table to a file handle (default io.stdout).
function diff.write(result, file)
  file = file or io.stdout
  local base, new = result.base_total, result.new_total
  local change = base > 0 and (" (%s%% of base)"):format(signed(100 * (new - base) / base, "%.1f"))
    or ""
  file:write(("base %.2f seconds, new %.2f seconds, change %s seconds%s\n\n"):format(
    base, new, signed(new - base, "%.2f"), change))
  local head1 = { "total change", "", "self change", "", "calls", "", "" }
  local head2 = { "seconds", "% base", "seconds", "% base", "base", "new", "function" }
  local cells = {}
  for i, r in ipairs(result) do
    local label = r.label
    if r.status == "added" then label = label .. " (new)"
    elseif r.status == "removed" then label = label .. " (gone)" end
    cells[i] = {
      signed(r.total_delta, "%.2f"), signed(r.total_share and 100 * r.total_share, "%.1f"),
      signed(r.self_delta, "%.2f"), signed(r.self_share and 100 * r.self_share, "%.1f"),
      tostring(r.calls_base), tostring(r.calls_new), label,
    }
  end
  local width = {}
  for c = 1, 6 do
    local w = #head2[c]
    for _, row in ipairs(cells) do w = math.max(w, #row[c]) end
    width[c] = w
  end
  -- the first header line spans column pairs
  for c = 1, 5, 2 do
    local span = width[c] + 2 + width[c + 1]
    if #head1[c] > span then width[c] = width[c] + #head1[c] - span end
  end
  local function line(row, spans)
    local out = {}
    if spans then
      for c = 1, 5, 2 do
        local span = width[c] + 2 + width[c + 1]
        out[#out + 1] = (" "):rep(span - #row[c]) .. row[c]
      end
      return table.concat(out, "  "):gsub("%s+$", "") .. "\n"
    end
    for c = 1, 6 do out[c] = (" "):rep(width[c] - #row[c]) .. row[c] end
    out[7] = row[7]
    return table.concat(out, "  ") .. "\n"
  end
  file:write(line(head1, true), line(head2))
  for _, row in ipairs(cells) do file:write(line(row)) end
end

return diff
