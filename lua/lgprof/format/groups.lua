--- lgprof.format.groups: the groups of `lgprof --by=KEYS` (lgprof.analysis.groups)
-- written as text (a table, inner groups indented under their group), JSON
-- (the nested groups) or CSV (one row per innermost group with every key's
-- column, as `perf report --sort comm,dso` prints its rows).
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local groups = require "lgprof.analysis.groups"
local json = require "lgprof.util.json"

local writer = {}

-- What a profile's numbers are: { event (the recorded event's name), unit
-- ("seconds", or the event's name when its samples weigh counts), program
-- (the recorded program's executable), command (its command name) }.
local function about(profile)
  local ev = profile:_stack_evidence()
  return { event = ev.event or "samples", unit = ev.is_time and "seconds" or (ev.event or "count"),
           is_time = ev.is_time, program = profile.image, command = profile.command }
end

--- The recorded program in words: "pigz (/usr/bin/pigz)", its command and
-- executable, or what there is of them ("perf.data" without either).
function writer.program_text(a)
  local exe = a.program ~= "" and a.program or nil
  if a.command and exe and a.command ~= exe:match("[^/]*$") then
    return ("%s (%s)"):format(a.command, exe)
  end
  return exe or a.command or "perf.data"
end

local function pct(x) return ("%.2f%%"):format(100 * x) end

-- A time (seconds) or a count, as the text table prints it.
local function amount(v, is_time)
  return is_time and ("%.3f"):format(v) or ("%.0f"):format(v)
end

local function hottest_text(g)
  local parts = {}
  for _, h in ipairs(g.hottest) do
    parts[#parts + 1] = ("%s (%.1f%%)"):format(h.name, 100 * h.share)
  end
  return table.concat(parts, ", ")
end

--- The text table of the groups of profile by keys (a checked list).
function writer.text(profile, keys, list, o)
  local a = about(profile)
  local total, weight = 0, 0
  for _, g in ipairs(list) do
    total, weight = total + g.samples, weight + g.seconds
  end
  local rows = {}
  local function walk(gs, depth)
    for _, g in ipairs(gs) do
      rows[#rows + 1] = {
        tostring(g.samples), amount(g.seconds, a.is_time), amount(g.error, a.is_time),
        pct(g.share), ("  "):rep(depth) .. g.label, hottest_text(g),
      }
      walk(g.groups, depth + 1)
    end
  end
  walk(list, 0)
  local unit = a.is_time and "seconds" or a.unit
  local head = { "samples", unit, "error", "share", table.concat(keys, " / "), "hottest functions" }
  local w = {}
  for i = 1, #head do w[i] = #head[i] end
  for _, r in ipairs(rows) do
    for i = 1, #r do w[i] = math.max(w[i], #r[i]) end
  end
  local function line(r)
    local s = ("%" .. w[1] .. "s  %" .. w[2] .. "s ± %-" .. w[3] .. "s  %" .. w[4] .. "s  %-"
      .. w[5] .. "s  %s"):format(r[1], r[2], r[3], r[4], r[5], r[6])
    return (s:gsub("%s+$", "")) .. "\n"
  end
  local out = {}
  out[#out + 1] = ("Samples by %s of %s: %s %s of %s.\n"):format(table.concat(keys, ", "),
    writer.program_text(a), tostring(total), total == 1 and "sample" or "samples", a.event)
  if not o.brief then
    out[#out + 1] = ("Each row: its samples, its %s ± one standard error (%s / sqrt(samples)),\n"
      .. "its share of the %s samples, and its hottest functions by samples (their share of\n"
      .. "the row's). A sample's binary is that of its leaf frame, where it was taken.\n%s")
      :format(unit, unit, tostring(total),
        #keys > 1 and "An indented row is a group within the row above it.\n" or "")
  end
  out[#out + 1] = "\n"
  out[#out + 1] = line(head)
  for _, r in ipairs(rows) do out[#out + 1] = line(r) end
  if #rows == 0 then out[#out + 1] = "  (no sample)\n" end
  return table.concat(out)
end

-- the public fields of a group, for JSON (Functions as names)
local function plain(g)
  local hot = {}
  for i, h in ipairs(g.hottest) do
    hot[i] = { name = h.name, dso = h.dso, samples = h.samples, share = h.share }
  end
  local inner = {}
  for i, c in ipairs(g.groups) do inner[i] = plain(c) end
  return { key = g.key, label = g.label, tid = g.tid, pid = g.pid, comm = g.comm, dso = g.dso,
           samples = g.samples, weight = g.weight, seconds = g.seconds, error = g.error,
           share = g.share, hottest = hot, groups = inner }
end

--- The JSON document: { format = "lgprof-groups", version = 1, creator,
-- source = "perf.data", program (the executable), command, event, unit, by,
-- samples, groups }.
function writer.json(profile, keys, list)
  local a = about(profile)
  local total = 0
  local gs = {}
  for i, g in ipairs(list) do
    total = total + g.samples
    gs[i] = plain(g)
  end
  return json.text({
    format = "lgprof-groups", version = 1, creator = "lgprof " .. lgprof.VERSION,
    source = "perf.data", program = a.program, command = a.command, event = a.event, unit = a.unit, by = keys,
    samples = total, groups = gs,
  }) .. "\n"
end

-- A CSV field (RFC 4180: quoted when it holds a comma, a quote or a line end).
local function field(v)
  if v == nil then return "" end
  local s = type(v) == "number" and math.type(v) == "float" and ("%.17g"):format(v) or tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- the key columns of each key
local COLUMNS = { thread = { "tid", "thread_comm" }, process = { "pid", "process_comm" },
                  comm = { "comm" }, dso = { "dso" } }

--- The CSV table: a row per innermost group, the columns of every key,
-- then samples, the amount (seconds or the event's count), its error, the
-- share and the hottest functions ("name share%; ...").
function writer.csv(profile, keys, list)
  local a = about(profile)
  local head = {}
  for _, k in ipairs(keys) do
    for _, c in ipairs(COLUMNS[k]) do head[#head + 1] = c end
  end
  local unit = a.is_time and "seconds" or "count"
  for _, c in ipairs({ "samples", unit, unit == "seconds" and "error_seconds" or "error_count",
                       "share", "hottest" }) do
    head[#head + 1] = c
  end
  local out = { table.concat(head, ",") .. "\n" }
  local function walk(gs, keyvals)
    for _, g in ipairs(gs) do
      local kv = table.move(keyvals, 1, #keyvals, 1, {})
      if g.key == "thread" then kv[#kv + 1] = g.tid; kv[#kv + 1] = g.comm or ""
      elseif g.key == "process" then kv[#kv + 1] = g.pid; kv[#kv + 1] = g.comm or ""
      elseif g.key == "comm" then kv[#kv + 1] = g.comm
      else kv[#kv + 1] = g.dso end
      if #g.groups > 0 then
        walk(g.groups, kv)
      else
        local hot = {}
        for _, h in ipairs(g.hottest) do hot[#hot + 1] = ("%s %.1f%%"):format(h.name, 100 * h.share) end
        local row = {}
        for i, v in ipairs(kv) do row[i] = field(v) end
        for _, v in ipairs({ g.samples, g.seconds, g.error, g.share, table.concat(hot, "; ") }) do
          row[#row + 1] = field(v)
        end
        out[#out + 1] = table.concat(row, ",") .. "\n"
      end
    end
  end
  walk(list, {})
  return table.concat(out)
end

--- Writes the groups of profile by keys (a list or "comm,dso") to file in
-- format fmt ("text", "json" or "csv"); options: brief (text: no legend),
-- hottest (functions a group lists). true, or nil and a message.
function writer.write(profile, file, fmt, keys, options)
  args.check_profile(profile, 1, "groups")
  args.check_output(file, "groups")
  args.check(writer[fmt] ~= nil and fmt ~= "write", 3, "groups", "text, json or csv expected")
  local list, kerr = groups.parse(keys)
  args.check(list ~= nil, 4, "groups", kerr)
  local o = options or {}
  local gs = groups.list(profile, list, { hottest = o.hottest })
  return args.write_output(file, writer[fmt](profile, list, gs, o))
end

return writer
