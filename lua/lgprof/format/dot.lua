-- lgprof.dot: the call graph as a Graphviz DOT file, in gprof2dot's conventions.
--
--   local dot = require "lgprof.format.dot"
--   assert(dot.write(profile_or_view, io.stdout, { node_threshold = 0.01 }))
--
-- What is drawn is profile:select's (the core's selection, shared with
-- profile:filter's thresholds); this module only renders it, on a Profile
-- or a view.
--
-- Definitions (T = profile.print_time, the call graph's time; a share is a
-- number of seconds divided by T, 0 when T is 0):
--   * candidate: a Function (not a Cycle entry) with fn.printed, and some time
--     or some calls (fn.total > 0 or fn.calls + fn.self_calls > 0);
--   * node share: fn.total / T (gprof's "% time" of its graph entry, fn.percent / 100);
--     a cycle member is judged by its own entry, like gprof prints it;
--   * kept nodes: the candidates with share >= node_threshold; if more than
--     max_nodes, the max_nodes with the largest fn.total (ties: lower index);
--   * solid edge: the arcs from a kept node to a kept node, summed per
--     (caller, callee) pair; an arc carrying time is drawn when
--     (arc.self + arc.children) / T >= edge_threshold; an arc inside a cycle
--     (arc.in_cycle) or a recursive arc (arc.is_recursive) carries no time in
--     gprof's model and is always drawn when both ends are kept (label: calls
--     only, colour of the callee);
--   * dashed edge: a static arc (arc.is_static: found in the machine code by
--     --static-arcs or -c, count 0) between kept nodes, always drawn;
--   * dotted edge (options.dotted, default on): a kept A and a kept B (A ~= B)
--     with no solid edge A -> B, linked through dropped functions X by arcs
--     A -> X and X -> B (one hop). The path's share is
--     t(A,X) * t(X,B) / D(X) / T, with t = arc.self + arc.children and D(X)
--     the total of X's cycle if X is in one, else X.total (the part of the time
--     A gives to X that goes on to B, in gprof's proportional model); paths
--     with share > 0 and >= edge_threshold count, and one dotted edge per
--     (A, B) pair carries the sum of its paths. Paths are enumerated heaviest
--     first per X and cut at the threshold, so the work per X is its degree
--     (sorted) plus the paths drawn, at most node_threshold / edge_threshold
--     of them when edge_threshold > 0;
--   * cycles: the kept members of a cycle are drawn in `subgraph "cluster_N"`
--     labelled "<cycle N>" with the cycle's total %, self % and calls;
--   * colours: gprof2dot's default "color" theme (temperature map from dark
--     blue hsl(2/3, 0.8, 0.25) to red hsl(0, 1, 0.5), gamma 1), optionally
--     skewed as gprof2dot's --skew; pen width max(4 w, 0.5), arrow size
--     0.5 sqrt(pen width), font size 10 (gprof2dot's formulas with w the share).

local args = require "lgprof.util.args"

local dot = {}

local MUL = "\u{D7}"          -- U+00D7 MULTIPLICATION SIGN, as gprof2dot
local ELLIPSIS = "\u{2026}"
local MAX_NAME = 4096        -- gprof2dot's cut: dot's lexer limits quoted strings

local DEFAULTS = {
  node_threshold = 0.005,
  edge_threshold = 0.001,
  max_nodes = 200,
  dotted = true,
  legend = true,
  skew = 1.0,
  title = nil,
}

---------------------------------------------------------------------------
-- Colours (gprof2dot's Theme.color / hsl_to_rgb / DotWriter.color)

local HMIN, SMIN, LMIN = 2.0 / 3.0, 0.80, 0.25
local HMAX, SMAX, LMAX = 0.0, 1.0, 0.5

local function hue_to_rgb(m1, m2, h)
  if h < 0.0 then h = h + 1.0 elseif h > 1.0 then h = h - 1.0 end
  if h * 6 < 1.0 then return m1 + (m2 - m1) * h * 6.0
  elseif h * 2 < 1.0 then return m2
  elseif h * 3 < 2.0 then return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0
  else return m1 end
end

local function float2int(f)
  if f <= 0.0 then return 0 end
  if f >= 1.0 then return 255 end
  return math.floor(255.0 * f + 0.5)
end

--- The "#rrggbb" colour of a weight in 0..1 (clamped), gprof2dot's "color" theme.
function dot.color(weight, skew)
  skew = skew or 1.0
  if weight ~= weight then weight = 0.0 end
  weight = math.min(math.max(weight, 0.0), 1.0)
  local h, s, l
  if skew == 1.0 then
    h = HMIN + weight * (HMAX - HMIN)
    s = SMIN + weight * (SMAX - SMIN)
    l = LMIN + weight * (LMAX - LMIN)
  else
    local f = (-1.0 + skew ^ weight) / (skew - 1.0)
    h, s, l = HMIN + (HMAX - HMIN) * f, SMIN + (SMAX - SMIN) * f, LMIN + (LMAX - LMIN) * f
  end
  h = h % 1.0
  s = math.min(math.max(s, 0.0), 1.0)
  l = math.min(math.max(l, 0.0), 1.0)
  local m2 = (l <= 0.5) and l * (s + 1.0) or (l + s - l * s)
  local m1 = l * 2.0 - m2
  local r = hue_to_rgb(m1, m2, h + 1.0 / 3.0)
  local g = hue_to_rgb(m1, m2, h)
  local b = hue_to_rgb(m1, m2, h - 1.0 / 3.0)
  -- gamma 1.0 for this theme: no correction
  return ("#%02x%02x%02x"):format(float2int(r), float2int(g), float2int(b))
end

local function penwidth(w) return math.max(w * 4.0, 0.5) end

---------------------------------------------------------------------------
-- Escaping

-- Text safe for a DOT quoted string used as an escString (label, tooltip):
-- valid UTF-8 (other bytes become HTML character references, Latin-1), '&'
-- written as "&amp;" (Graphviz decodes entities in labels), '\' doubled (so
-- "\n", "\N", ... in names stay literal), '"' escaped, control characters
-- shown as "\x" and two hex digits.
local function text(s)
  s = args.valid_utf8((tostring(s):gsub("&", "&amp;")), function(b) return ("&#%d;"):format(b) end)
  s = s:gsub("\\", "\\\\"):gsub('"', '\\"')
  s = s:gsub("\n", "\\n"):gsub("[%c]", function(c) return ("\\\\x%02X"):format(c:byte()) end)
  return s
end
dot.text = text

--- A DOT double-quoted string whose displayed text is exactly `s`.
function dot.quote(s) return '"' .. text(s) .. '"' end

-- A name cut to MAX_NAME characters (at a character boundary) plus an ellipsis.
local function shorten(name)
  if #name < MAX_NAME then return name end
  local n = utf8.len(name)
  if n and n < MAX_NAME then return name end
  if n then return name:sub(1, utf8.offset(name, MAX_NAME) - 1) .. ELLIPSIS end
  return name:sub(1, MAX_NAME - 1) .. ELLIPSIS
end

local function html(s)
  return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

---------------------------------------------------------------------------
-- Options

local function check_options(options)
  if options == nil then options = {} end
  if type(options) ~= "table" then
    args.error("lgprof.dot: options must be a table")
  end
  local o = {}
  for k, v in pairs(DEFAULTS) do o[k] = v end
  for k, v in pairs(options) do
    if type(k) ~= "string" or (DEFAULTS[k] == nil and k ~= "title") then
      args.error("lgprof.dot: unknown option '" .. tostring(k) .. "'")
    end
    o[k] = v
  end
  for _, k in ipairs { "node_threshold", "edge_threshold" } do
    o[k] = args.share(o[k], 1)
    if not o[k] then args.error("lgprof.dot: " .. k .. " must be " .. args.share_expected(1)) end
  end
  local m = o.max_nodes
  if type(m) ~= "number" or not (m >= 0) or (m ~= math.huge and math.type(m) ~= "integer"
      and m ~= math.floor(m)) then
    args.error("lgprof.dot: max_nodes must be a non-negative integer (or math.huge)")
  end
  for _, k in ipairs { "dotted", "legend" } do
    if type(o[k]) ~= "boolean" then args.error("lgprof.dot: " .. k .. " must be a boolean") end
  end
  if type(o.skew) ~= "number" or not (o.skew > 0) or o.skew == math.huge then
    args.error("lgprof.dot: skew must be a positive number")
  end
  if o.title ~= nil and type(o.title) ~= "string" then
    args.error("lgprof.dot: title must be a string")
  end
  return o
end

---------------------------------------------------------------------------
-- The graph

local function pct(x) return ("%.2f%%"):format(x * 100.0) end

local function calls_text(calls, self_calls)
  calls, self_calls = calls or 0, self_calls or 0
  if self_calls > 0 then return ("%d+%d%s"):format(calls, self_calls, MUL) end
  if calls > 0 then return ("%d%s"):format(calls, MUL) end
  return nil
end

-- The selection (kept nodes, solid and dotted edges) is the core's
-- profile:select, the one the views' thresholds use; exposed here (dot.graph)
-- with the options that made it, so that callers and the specs can see what
-- write() draws.
function dot.graph(profile, options)
  local o = check_options(options)
  local g = profile:select {
    node_fraction = o.node_threshold, edge_fraction = o.edge_threshold,
    max_nodes = o.max_nodes, dotted = o.dotted,
  }
  g.options = o
  return g
end

---------------------------------------------------------------------------
-- Writing

local function attrs(t)
  -- t: list of {name, value-string already in DOT syntax}
  local parts = {}
  for i, kv in ipairs(t) do parts[i] = kv[1] .. "=" .. kv[2] end
  return " [" .. table.concat(parts, ", ") .. "]"
end

local function node_id(fn) return '"f' .. fn.index .. '"' end

local function fnum(x) return ("%.2f"):format(x) end

local function node_label(name, total, self, calls, self_calls)
  local lines = { text(shorten(name)), pct(total), "(" .. pct(self) .. ")" }
  local c = calls_text(calls, self_calls)
  if c then lines[#lines + 1] = c end
  return '"' .. table.concat(lines, "\\n") .. '"'
end

local function render(profile, g)
  local o = g.options
  local T = g.time
  local function share(x) return T > 0 and x / T or 0.0 end
  local out = {}
  local function w(s) out[#out + 1] = s end

  w("digraph {\n")
  w('\ttooltip=" ";\n')
  w("\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];\n")
  w("\tnode [fontcolor=white, fontname=Arial, height=0, shape=box, style=filled, width=0];\n")
  w("\tedge [fontname=Arial];\n")

  local function node(fn, indent)
    local wt = share(fn.total)
    local tip = fn.name
    if fn.file then
      tip = tip .. "\n" .. fn.file .. (fn.line and (":" .. fn.line) or "")
    end
    local col = '"' .. dot.color(wt, o.skew) .. '"'
    w(indent .. node_id(fn) .. attrs {
      { "color", col },
      { "fontcolor", '"#ffffff"' },
      { "fontsize", '"10.00"' },
      { "label", node_label(fn.name, wt, share(fn.self), fn.calls, fn.self_calls) },
      { "tooltip", dot.quote(shorten(tip)) },
    } .. ";\n")
  end

  -- cycles first (by number), their kept members inside, then the other nodes
  local by_cycle, cycles = {}, {}
  for _, fn in ipairs(g.nodes) do
    local c = fn.cycle
    if c then
      if not by_cycle[c.number] then
        by_cycle[c.number] = { cycle = c, members = {} }
        cycles[#cycles + 1] = c.number
      end
      local m = by_cycle[c.number].members
      m[#m + 1] = fn
    end
  end
  table.sort(cycles)
  for _, num in ipairs(cycles) do
    local c = by_cycle[num].cycle
    local wt = share(c.total)
    local col = '"' .. dot.color(wt, o.skew) .. '"'
    w(('\tsubgraph "cluster_%d" {\n'):format(num))
    local lines = { text(c.name), pct(wt), "(" .. pct(share(c.self)) .. ")" }
    local ct = calls_text(c.calls, 0)
    if ct then lines[#lines + 1] = ct end
    w('\t\tlabel="' .. table.concat(lines, "\\n") .. '";\n')
    w("\t\tcolor=" .. col .. ";\n\t\tfontcolor=" .. col .. ";\n")
    w('\t\tfontname=Arial;\n\t\tfontsize="10.00";\n\t\tstyle="rounded,dashed";\n')
    w('\t\ttooltip=' .. dot.quote(("%s: %d of its members shown"):format(
      c.name, #by_cycle[num].members)) .. ";\n")
    for _, fn in ipairs(by_cycle[num].members) do node(fn, "\t\t") end
    w("\t}\n")
  end
  for _, fn in ipairs(g.nodes) do
    if not fn.cycle then node(fn, "\t") end
  end

  -- the legend's total: seconds, or for a perf.data event that is not time
  -- the counts its "seconds" are
  local function legend_total(T)
    local event = profile.source == "stacks" and require("lgprof.analysis.stacks").event(profile)
    if event then
      return ("%.0f %s in the call graph%s"):format(T, event,
        profile.is_view and (" (view of %.0f)"):format(profile.base_time or 0) or "")
    end
    return ("%.2f s of call graph time%s"):format(T,
      profile.is_view and (" (view of %.2f s)"):format(profile.base_time or 0) or "")
  end

  local function edge(e, wt, label, dotted_style, tip)
    local col = '"' .. dot.color(wt, o.skew) .. '"'
    local pw = penwidth(wt)
    local a = {
      { "arrowsize", '"' .. fnum(0.5 * math.sqrt(pw)) .. '"' },
      { "color", col },
      { "fontcolor", col },
      { "fontsize", '"10.00"' },
      { "label", '"' .. label .. '"' },
      { "labeldistance", '"' .. fnum(pw) .. '"' },
      { "penwidth", '"' .. fnum(pw) .. '"' },
    }
    if dotted_style then a[#a + 1] = { "style", dotted_style } end
    if tip then a[#a + 1] = { "tooltip", dot.quote(tip) } end
    w("\t" .. node_id(e.caller) .. " -> " .. node_id(e.callee) .. attrs(a) .. ";\n")
  end

  -- sampled stacks (perf.data) recorded no calls: no count is drawn
  local stacks = profile.source == "stacks"
  local nocalls = stacks and profile.calls_source ~= "gmon" -- perf.data alone
  for _, e in ipairs(g.edges) do
    local ct = calls_text(e.count, 0) or (stacks and "" or "0" .. MUL)
    if e.arc.is_static then -- found in the code (--static-arcs, -c): count 0, dashed
      edge(e, share(e.callee.total), ct, "dashed")
    elseif e.timed and not e.structural then
      edge(e, e.share, pct(e.share) .. (ct ~= "" and "\\n" .. ct or ""))
    else
      edge(e, share(e.callee.total), ct)
    end
  end
  for _, e in ipairs(g.dotted) do
    local n = #e.via
    local tip = ("%s -> %s through %d function%s below the thresholds (%s%s)"):format(
      shorten(e.caller.name), shorten(e.callee.name), n, n == 1 and "" or "s",
      shorten(e.via[1].name), n > 1 and ", ..." or "")
    edge(e, e.share, pct(e.share), "dotted", tip)
  end

  if o.legend then
    local title = o.title or (stacks and require("lgprof.format.groups").program_text({
      program = profile.image, command = profile.command })) or profile.image or "call graph"
    local ncells = 6
    local cells = {}
    for i = 0, ncells - 1 do
      local v = i / (ncells - 1)
      cells[#cells + 1] = ('<td bgcolor="%s"><font color="#ffffff">%s</font></td>'):format(
        dot.color(v, o.skew), html(("%d%%"):format(math.floor(v * 100 + 0.5))))
    end
    local rows = {
      html(title),
      html(legend_total(T)),
      html(("Showing %d of %d functions (total >= %s, at most %s)"):format(
        #g.nodes, g.candidates, pct(o.node_threshold),
        o.max_nodes == math.huge and "all" or tostring(math.floor(o.max_nodes)))),
      html(("and %d %s (>= %s)%s"):format(#g.edges, nocalls and "caller-callee edges" or "arcs",
        pct(o.edge_threshold),
        #g.dotted > 0 and (", %d dotted through hidden functions"):format(#g.dotted) or "")),
      html("node: name / total % (self + callees) / (self %)" .. (stacks and "" or " / calls" .. MUL)),
      html(nocalls and "edge: % of the sampled stacks from the caller to the callee (a sampler counts no call)"
        or stacks and "edge: % of the sampled stacks along the arc (calls counted by gmon.out)"
        or "edge: % of time along the arc / calls" .. MUL),
    }
    local body = {}
    for _, r in ipairs(rows) do
      body[#body + 1] = ('<tr><td colspan="%d">%s</td></tr>'):format(ncells, r)
    end
    body[#body + 1] = "<tr>" .. table.concat(cells) .. "</tr>"
    w('\tsubgraph "cluster_legend" {\n\t\tlabel="";\n\t\tstyle=invis;\n')
    w('\t\t"legend" [shape=plain, style=solid, fontcolor="#000000", fontsize="10.00", label=<'
      .. '<table border="0" cellborder="0" cellspacing="0" cellpadding="2">'
      .. table.concat(body) .. "</table>>];\n")
    w("\t}\n")
  end
  w("}\n")
  return table.concat(out)
end

--- Writes the DOT graph of `profile` (a Profile or a view) to `file` (a file
-- handle, or a path to create). Returns true, or nil and a message when the
-- file cannot be opened or written. Unknown or bad options raise an error.
function dot.write(profile, file, options)
  local mt = getmetatable(profile)
  if not args.is_profile(profile) then
    args.error("lgprof.dot.write: a Profile expected, got " .. (type(mt) == "table"
      and type(mt.__name) == "string" and mt.__name or type(profile)))
  end
  if type(file) ~= "string" and io.type(file) ~= "file"
      and not (type(file) == "table" and type(file.write) == "function") then
    args.error("lgprof.dot.write: a file handle or a path expected, got "
      .. (io.type(file) == "closed file" and "a closed file" or type(file)))
  end
  local g = dot.graph(profile, options)
  local s = render(profile, g)
  return args.write_output(file, s)
end

return dot
