--- lgprof.html: the analysed profile as one self-contained interactive HTML
-- page (lgprof.report.html, `lgprof --format=html`).
--
--   local html = require "lgprof.format.html"
--   assert(html.write(profile_or_view, "report.html", { max_functions = 2000 }))
--
-- The page holds its data as one JSON object in a
-- <script type="application/json"> element and draws it with the CSS and
-- JavaScript of lgprof.html_assets, inlined: no external URL, so it works
-- from file:// offline. What is embedded is capped so that a profile of
-- 100,000 functions still gives a page a browser opens in a few seconds:
--   * the max_functions Functions with the most total time (ties: lower
--     call-graph index), plus, for each, its heaviest call path from a root
--     (the caller that gives it the most time, and so on up), plus every
--     function of the flame graph;
--   * each embedded function's callers and callees, the max_arcs heaviest
--     on each side (their far ends are embedded as names only when not
--     embedded in full);
--   * the flame graph: lgprof.stacks.tree with min_weight and max_depth.
-- The page says what was left out (functions and their self time, arcs).
local lgprof = require "lgprof"
local args = require "lgprof.util.args"

local html = {}

local OPTIONS = {
  max_functions = "number", max_arcs = "number", min_weight = "any", max_depth = "number",
  title = "string", view_description = "string", findings = "table", doctor = "boolean",
}

local DEFAULTS = { max_functions = 2000, max_arcs = 100, min_weight = 0.0005, max_depth = 64 }

---------------------------------------------------------------------------
-- JSON (a writer of what this module embeds: tables with string keys,
-- lists, strings, numbers, booleans)

-- A string as JSON text safe inside <script>: the core's JSON string
-- (core.json_string: bytes that are not UTF-8 read as Latin-1), with '<',
-- '>' and '&' written \u003c ..., so no "</script" or "<!--" can end or
-- change the element (outside escapes, they only occur as themselves).
local ESC = { ["<"] = "\\u003c", [">"] = "\\u003e", ["&"] = "\\u0026" }
local core_json_string = require("lgprof.core").json_string
local function json_string(s)
  return (core_json_string(s):gsub("[<>&]", ESC))
end

-- Numbers to 9 significant digits: far more than the page shows (times to
-- the hundredth of a second, or 3 digits), and a third of the size of
-- exact ones on a page of a million numbers.
local NUMBER = "%.9g"
local function json_number(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v - v ~= 0 then return "null" end -- NaN, infinities
  return NUMBER:format(v)
end
html.json_number = json_number

-- Encodes v into the list buf. Recursive: the depth is the page's own
-- layout (at most 5 levels: page, list, record, arc list, arc), never the
-- profile's; the stacks are flat lists of frames with parent numbers.
local function json_encode(v, buf)
  local t = type(v)
  if t == "table" then
    if v.__raw then
      buf[#buf + 1] = v.__raw
      return
    end
    local n = #v
    if n > 0 or next(v) == nil then
      buf[#buf + 1] = "["
      for i = 1, n do
        if i > 1 then buf[#buf + 1] = "," end
        json_encode(v[i], buf)
      end
      buf[#buf + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys)
      for i, k in ipairs(keys) do
        buf[#buf + 1] = (i > 1 and "," or "{") .. json_string(k) .. ":"
        json_encode(v[k], buf)
      end
      buf[#buf + 1] = "}"
    end
  elseif t == "string" then
    buf[#buf + 1] = json_string(v)
  elseif t == "number" then
    buf[#buf + 1] = json_number(v)
  elseif t == "boolean" then
    buf[#buf + 1] = tostring(v)
  else
    buf[#buf + 1] = "null"
  end
end
html.json_string = json_string

local function json(v)
  local buf = {}
  json_encode(v, buf)
  return table.concat(buf)
end
html.json = json -- (the one encoder of the pages and of --diff's JSON)

-- Text for HTML element content and attribute values.
local function text(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&#39;" }))
end

---------------------------------------------------------------------------
-- The doctor's findings

-- The findings of lgprof.doctor (a list of { id, severity, message,
-- advice }), or nil and what went wrong: the page then says the doctor
-- failed rather than failing itself.
local function doctor_findings(profile)
  local ok, findings = pcall(function() return require("lgprof.analysis.doctor").diagnose(profile) end)
  if not ok then return nil, args.message(findings) end
  if type(findings) ~= "table" then return nil end
  return findings
end

-- The findings as the page shows them (strings only).
local function clean_findings(list)
  local out = {}
  for _, f in ipairs(list) do
    if type(f) == "table" then
      out[#out + 1] = { id = tostring(f.id or ""), severity = tostring(f.severity or ""),
        message = tostring(f.message or ""), advice = tostring(f.advice or "") }
    end
  end
  return out
end

---------------------------------------------------------------------------
-- What is embedded

local function arc_time(a) return a.self + a.children end

local function heavier_arc(a, b)
  local ta, tb = arc_time(a), arc_time(b)
  if ta ~= tb then return ta > tb end
  if a.count ~= b.count then return a.count > b.count end
  return false
end

-- The data of the page: see the module's comment for what is kept.
local function collect(profile, o)
  -- the flame graph first: its frames name functions to keep
  local tree, terr = require("lgprof.analysis.stacks").tree(profile,
    { min_weight = o.min_weight, max_depth = o.max_depth })
  if not tree then return nil, terr end

  local candidates, totals, index_of = {}, {}, {}
  local nfunctions = 0
  for fn in profile:functions() do
    nfunctions = nfunctions + 1
    local total = fn.total
    if total > 0 or fn.flat_self > 0 or (fn.calls or 0) > 0 or (fn.self_calls or 0) > 0 then
      candidates[#candidates + 1] = fn
      totals[#totals + 1] = total
    end
  end
  -- the max_functions with the most total time (ties: lower index),
  -- heaviest first: a numeric sort finds the cut, then only those are
  -- sorted (field reads in a comparator over 100,000 functions are slow)
  local top = {}
  if #candidates <= o.max_functions then
    top = candidates
  else
    local sorted = table.move(totals, 1, #totals, 1, {})
    table.sort(sorted)
    local cut = sorted[#sorted - o.max_functions + 1]
    for k, fn in ipairs(candidates) do
      if totals[k] >= cut then top[#top + 1] = fn end
    end
  end
  local key = {}
  for _, fn in ipairs(top) do key[fn] = { fn.total, fn.index } end
  table.sort(top, function(a, b)
    local ka, kb = key[a], key[b]
    if ka[1] ~= kb[1] then return ka[1] > kb[1] end
    return ka[2] < kb[2]
  end)
  for k = #top, o.max_functions + 1, -1 do top[k] = nil end

  local fns, kept = {}, {}  -- the embedded functions; kept: embedded in full
  local function embed(fn, full)
    local id = index_of[fn.index]
    if not id then
      id = #fns + 1
      index_of[fn.index] = id
      fns[id] = fn
    end
    if full then kept[id] = true end
    return id - 1 -- the page counts from 0
  end

  for _, fn in ipairs(top) do embed(fn, true) end
  -- each one's heaviest call path from a root: up the arc that brings it
  -- the most time, until a function already kept. Arcs inside a cycle
  -- bring none (the cycle's entry, drawn in the flame graph, stands for
  -- them); at most max_functions functions are added so.
  local added = 0
  for _, start in ipairs(top) do
    local fn = start
    while added < o.max_functions do
      local best
      for a in fn:callers() do
        if not a.in_cycle and a.caller ~= fn and arc_time(a) > 0
            and (best == nil or heavier_arc(a, best)) then
          best = a
        end
      end
      if not best then break end
      local id = index_of[best.caller.index]
      if id and kept[id] then break end
      embed(best.caller, true)
      added = added + 1
      fn = best.caller
    end
  end

  local cycles_of_frames = {}
  local frames, labels = {}, {}
  -- preorder, with an explicit stack: { node, parent position }
  local todo = { { tree, -1 } }
  while #todo > 0 do
    local item = table.remove(todo)
    local node, parent = item[1], item[2]
    local pos = #frames
    local kind, ref
    local obj = node.func -- nil for the root
    if obj and obj.kind == "cycle" then
      kind, ref = 1, obj.number
      cycles_of_frames[ref] = true
    elseif obj then
      kind, ref = 0, embed(obj, true)
    else
      kind, ref = 2, #labels
      labels[#labels + 1] = node.name
    end
    frames[#frames + 1] = { parent, kind, ref, node.value, node.self }
    for i = #node.children, 1, -1 do todo[#todo + 1] = { node.children[i], pos } end
  end

  -- each kept function's arcs; their far ends embedded at least as names
  local function side(iter, fn, far)
    local list, key = {}, {}
    for a in iter(fn) do
      list[#list + 1] = a
      key[a] = { a.self + a.children, a.count, a[far].index }
    end
    table.sort(list, function(a, b)
      local ka, kb = key[a], key[b]
      if ka[1] ~= kb[1] then return ka[1] > kb[1] end
      if ka[2] ~= kb[2] then return ka[2] > kb[2] end
      return ka[3] < kb[3]
    end)
    local out = {}
    for i = 1, math.min(#list, o.max_arcs) do
      local a = list[i]
      local flags = (a.is_recursive and 1 or 0) | (a.in_cycle and 2 or 0) | (a.is_static and 4 or 0)
      -- (written as JSON text here: a page can hold 100,000 of them)
      out[i] = ("[%d,%s,%s,%d,%d]"):format(embed(a[far], false), json_number(a.self),
        json_number(a.children), a.count or 0, flags) -- (nil: sampled stacks, no calls)
    end
    return { __raw = "[" .. table.concat(out, ",") .. "]" }, #list - #out
  end
  local rows, arcs_left = {}, 0
  local nkept = #fns -- the far ends added below are not kept
  for id = 1, nkept do
    local fn = fns[id]
    local callers, cmore = side(fn.callers, fn, "caller")
    local callees, emore = side(fn.callees, fn, "callee")
    arcs_left = arcs_left + cmore + emore
    rows[id] = { fn = fn, callers = callers, callees = callees, more = { cmore, emore } }
  end

  -- the cycles, their members (capped as arcs are) and the calls into them
  local cycles = {}
  for cyc in profile:cycles() do
    local members, n = {}, 0
    for member, from_members in cyc:members() do
      n = n + 1
      if n <= o.max_functions then members[#members + 1] = { embed(member, false), from_members } end
    end
    local callers = {}
    for a in cyc:callers() do callers[#callers + 1] = a end
    table.sort(callers, heavier_arc)
    local cin = {}
    for i = 1, math.min(#callers, o.max_arcs) do
      local a = callers[i]
      cin[i] = { embed(a.caller, false), a.self, a.children, a.count, embed(a.callee, false) }
    end
    cycles[#cycles + 1] = {
      number = cyc.number, index = cyc.index, self = cyc.self, children = cyc.children,
      total = cyc.total, percent = cyc.percent, calls = cyc.calls,
      internal_calls = cyc.internal_calls, samples = cyc.samples, self_error = cyc.self_error,
      members = members, members_left = n - #members, callers = cin,
      callers_left = #callers - #cin,
    }
  end

  local left, left_self = 0, 0
  for _, fn in ipairs(candidates) do
    local id = index_of[fn.index]
    if not (id and kept[id]) then
      left = left + 1
      left_self = left_self + fn.flat_self
    end
  end
  return {
    fns = fns, kept = kept, rows = rows, frames = frames, labels = labels, cycles = cycles,
    tree = tree, candidates = #candidates, functions = nfunctions, left = left,
    left_self = left_self, arcs_left = arcs_left,
  }
end

-- One embedded function as the page reads it (short keys: 2,000 of them
-- and their far ends).
local function fn_record(fn, row)
  if not row then -- only named (JSON text: there may be many)
    return { __raw = ('{"i":%d,"n":%s,"stub":true}'):format(fn.index, json_string(fn.name)) }
  end
  local r = { n = fn.name, i = fn.index }
  r.file, r.line = fn.file, fn.line
  r.self, r.err, r.smp = fn.flat_self, fn.self_error, fn.samples
  r.pct = fn.flat_percent
  r.gself, r.ch, r.tot, r.gpct = fn.self, fn.children, fn.total, fn.percent
  r.calls, r.rc = fn.calls, fn.self_calls
  r.mc = fn.member_calls
  r.cyc = fn.cycle and fn.cycle.number or nil
  r.flat = fn.in_flat
  r.static = fn.is_static
  r["in"], r.out = row.callers, row.callees
  r.more = row.more
  return r
end

local function basename(path) return (tostring(path):match("[^/]*$")) end

---------------------------------------------------------------------------
-- The page

local function check_options(options)
  args.check(options == nil or type(options) == "table", 3, "html",
    "table expected, got " .. type(options))
  local o = {}
  for k, v in pairs(DEFAULTS) do o[k] = v end
  for k, v in pairs(options or {}) do
    local want = OPTIONS[k]
    args.check(want ~= nil, 3, "html", ("unknown option '%s'"):format(tostring(k)))
    if want ~= "any" then
      args.check(type(v) == want, 3, "html", ("option '%s' must be a %s"):format(k, want))
    end
    o[k] = v
  end
  for _, k in ipairs({ "max_functions", "max_arcs", "max_depth" }) do
    local v = o[k]
    args.check(v == math.huge or (math.type(v) == "integer" or v == math.floor(v)) and v >= 1, 3,
      "html", ("option '%s' must be an integer >= 1 (or math.huge)"):format(k))
    if v ~= math.huge then o[k] = math.tointeger(v) end
  end
  -- (the folded synthesis's own limit on frames)
  if o.max_depth == math.huge then o.max_depth = 1000000 end
  args.check(o.max_depth <= 1000000, 3, "html", "option 'max_depth' must be at most 1000000")
  local ok, share = pcall(args.share, o.min_weight)
  args.check(ok and share ~= nil, 3, "html", "option 'min_weight' must be " .. args.share_expected())
  o.min_weight = share
  return o
end

local page_data -- (below)

--- Writes the HTML report of a Profile or view to file (an open Lua file,
-- written and flushed, left open; or a path, created and closed).
-- options (all optional):
--   max_functions (2000): functions embedded in full, by total time (plus
--     their heaviest call paths and the flame graph's functions);
--   max_arcs (100): callers and callees embedded per function, heaviest first;
--   min_weight (0.0005): the flame graph's smallest subtree, a share of the
--     total (lgprof.report.folded's option); max_depth (64): its frames;
--   title: the page's title (default: the program's file name);
--   view_description: which filter made the view, shown in the page (the
--     command passes its view options);
--   findings: a list of { id, severity, message, advice } to show instead
--     of lgprof.doctor's; doctor = false: none.
-- Returns true, or nil and a message. Misuse raises an error.
function html.write(profile, file, options)
  args.check_profile(profile, 1, "html")
  args.check(type(file) == "string" or io.type(file) == "file", 2, "html",
    "file or path expected, got " .. type(file))
  local o = check_options(options)

  local page, derr, pdata = page_data(profile, o)
  if not page then return nil, derr end

  local findings, ferr
  if o.findings then
    findings = clean_findings(o.findings)
  elseif o.doctor ~= false then
    findings, ferr = doctor_findings(profile)
    if findings then findings = clean_findings(findings) end
  end

  local view
  if profile.is_view or o.view_description then
    view = {
      description = o.view_description or "a view (profile:filter{...}; its filter was not described)",
      total_time = profile.total_time, base_time = profile.base_time,
      print_time = profile.print_time, base_print_time = profile.base_print_time,
    }
  end
  page.view, page.findings, page.doctor_error = view, findings, ferr
  -- a perf.data's threads and binaries, each with its page (html_groups)
  local html_groups = require "lgprof.format.html_groups"
  local assets = require "lgprof.format.html_assets"
  local gdata, gpages = html_groups.collect(profile, function(sub)
    local p = page_data(sub, html_groups.group_options(o))
    return p and json(p)
  end, assets.body)
  -- a perf.data's timeline (html_timeline): each sample's time, thread and stack
  local tdata = require("lgprof.format.html_timeline").collect(profile, o, page.meta)
  local tassets = tdata and require "lgprof.format.html_timeline_assets"
  local asm_panel = require "lgprof.format.html_asm" -- the disassembly panel
  local asm_data = asm_panel.data(profile, pdata.fns)
  -- (a perf.data's: the recorded command, whose executable the header names)
  local title = o.title or ("lgprof: " .. (profile.command or basename(profile.image or "profile")))

  -- a path is written beside it and renamed over it once complete, so a
  -- failure leaves no partial page (and an old page as it was)
  local out, err, tmp = file, nil, nil
  if type(file) == "string" then
    tmp = file .. ".lgprof-tmp"
    out, err = io.open(tmp, "w")
    if not out then return nil, (err:gsub("%.lgprof%-tmp:", ":", 1)) end
  end
  local parts = {
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<meta name=\"generator\" content=\"", text(page.meta.generator), "\">\n",
    "<title>", text(title), "</title>\n<style>\n", assets.css, gdata and html_groups.css or "", asm_panel.css,
    tassets and tassets.css or "",
    "</style>\n</head>\n<body>\n<div id=\"lgprof-page\">\n",
    assets.body,
    -- (outside the page's div, which a thread's or binary's rows draw again)
    "</div>\n", asm_panel.body, "<script type=\"application/json\" id=\"lgprof-data\">", json(page), "</script>\n",
    asm_data and ("<script type=\"application/json\" id=\"lgprof-asm\">" .. json(asm_data) .. "</script>\n") or "",
  }
  if gdata then
    parts[#parts + 1] = "<script type=\"application/json\" id=\"lgprof-groups\">" .. json(gdata) .. "</script>\n"
    for _, gp in ipairs(gpages) do
      if gp.text then
        parts[#parts + 1] = ('<script type="application/json" id="%s">'):format(gp.id) .. gp.text .. "</script>\n"
      end
    end
  end
  if tdata then
    parts[#parts + 1] = "<script type=\"application/json\" id=\"lgprof-timeline\">" .. json(tdata) .. "</script>\n"
  end
  -- the fragment's state first; the page's script a function, so that a
  -- thread's or binary's rows can draw the page again from their data
  parts[#parts + 1] = "<script>\n" .. html_groups.state_js .. "window.lgprofMain = function () {\n"
  parts[#parts + 1] = assets.js
  parts[#parts + 1] = "};\nwindow.lgprofMain();\n" .. (gdata and html_groups.js or "") .. asm_panel.js
    .. (tassets and tassets.js or "") .. "</script>\n</body>\n</html>\n"
  local ok, werr = out:write(table.concat(parts))
  if ok then ok, werr = out:flush() end
  if tmp then
    local cok, cerr = out:close()
    ok, werr = ok and cok, werr or cerr
    if ok then ok, werr = os.rename(tmp, file) end
    if not ok then os.remove(tmp) end
  end
  if not ok then return nil, werr or "write error" end
  return true
end

-- The page's data of a profile (meta, fns, cycles, frames, labels), or nil
-- and a message; third, what it was made from (collect's: the Functions).
page_data = function(profile, o)
  local data, derr = collect(profile, o)
  if not data then return nil, derr end
  local fns = {}
  for id, fn in ipairs(data.fns) do
    fns[id] = fn_record(fn, data.kept[id] and data.rows[id] or nil)
  end
  local files = {}
  for i, f in ipairs(profile.files or {}) do files[i] = f end
  return {
    meta = {
      program = profile.image, command = profile.command, files = files, total_time = profile.total_time,
      print_time = profile.print_time, samples = profile.samples, hz = profile.hz,
      sample_period = profile.sample_period, have_histogram = profile.have_histogram,
      have_call_graph = profile.have_call_graph, functions = data.functions,
      listed = data.candidates, left = data.left, left_self = data.left_self,
      arcs_left = data.arcs_left, arc_count = profile.arc_count, cycle_count = profile.cycle_count,
      max_functions = o.max_functions == math.huge and -1 or o.max_functions,
      max_arcs = o.max_arcs == math.huge and -1 or o.max_arcs,
      min_weight = o.min_weight, max_depth = o.max_depth,
      flame_total = data.tree.value, generator = "lgprof " .. lgprof.VERSION,
      measured = profile.source == "stacks", -- perf.data's recorded stacks
      -- the event whose counts the "seconds" are, when it is not time (absent otherwise)
      event = require("lgprof.analysis.stacks").event(profile),
      -- and gmon.out's calls (absent otherwise: the other pages stay as they were)
      counted = (profile.source == "stacks" and profile.calls_source == "gmon") or nil,
    },
    fns = fns, cycles = data.cycles, frames = data.frames, labels = data.labels,
  }, nil, data
end

--- A view's filter table as the page's description, in Lua's syntax:
-- 'profile:filter{focus="^work", node_fraction=0.01}' (keys sorted).
function html.describe_filter(filter)
  args.check(type(filter) == "table", 1, "describe_filter", "table expected, got " .. type(filter))
  local keys = {}
  for k in pairs(filter) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = filter[k]
    local function lua(x) return type(x) == "string" and ("%q"):format(x) or tostring(x) end
    if type(v) == "table" then
      local items = {}
      for i, x in ipairs(v) do items[i] = lua(x) end
      v = "{" .. table.concat(items, ", ") .. "}"
    else
      v = lua(v)
    end
    parts[#parts + 1] = ("%s=%s"):format(k, v)
  end
  return "profile:filter{" .. table.concat(parts, ", ") .. "}"
end

return html
