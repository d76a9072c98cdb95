--- lgprof.svg: a flame graph of the estimated call stacks as one SVG file,
-- in the conventions flamegraph.pl made familiar: a frame per stack
-- element, its width its time, callers below callees (or above, as an
-- icicle), warm colours from a hash of the name, a tooltip per frame, and
-- click-to-zoom and search when a browser runs the small inline script.
-- Without the script (an image viewer, a document) the labels are static
-- text, cut to the frame's width with "..".
--
--   local svg = require "lgprof.format.svg"
--   assert(svg.write(profile_or_view, "flame.svg", { icicle = true }))
--
-- The stacks are lgprof.stacks.tree's (the folded synthesis): gmon.out has
-- no stacks, so they are estimated from the arcs, and the image says so.
local args = require "lgprof.util.args"
local stacks = require "lgprof.analysis.stacks"

local svg = {}

-- option -> { kind, default, check } (check: extra test of the value)
local OPTIONS = {
  width = { "pixels", 1200 },           -- image width
  frame_height = { "pixels", 16 },
  font_size = { "pixels", 12 },
  min_width = { "share-or-px", 0.1 },   -- narrower frames are left out: px, or "0.1%" of the width
  icicle = { "boolean", false },        -- roots at the top
  colors = { "enum", "hash", { hash = true, self = true } },
  order = { "enum", "name", { name = true, weight = true } },
  title = { "string", nil },
  subtitle = { "string", nil },
  view_description = { "string", nil }, -- the words of the view, shown under the title
  script = { "boolean", true },         -- the inline zoom and search script
  max_depth = { "integer", nil },       -- the stacks' (lgprof.report.folded's)
  min_weight = { "any", nil },
}
svg.OPTIONS = OPTIONS

local FONT_WIDTH = 0.59 -- a glyph's average width in font sizes (Verdana-like fonts)
local XPAD = 10

local function bad(key, what)
  args.error(("lgprof.svg.write: option '%s' must be %s"):format(key, what))
end

-- The options with their defaults; misuse raises an error.
local function check_options(options)
  if options ~= nil and type(options) ~= "table" then
    args.error("bad argument #3 to 'svg' (table expected, got " .. type(options) .. ")")
  end
  local o = {}
  for k, v in pairs(options or {}) do
    if OPTIONS[k] == nil then args.error(("lgprof.svg.write: unknown option '%s'"):format(tostring(k))) end
    o[k] = v
  end
  for k, d in pairs(OPTIONS) do
    local v, kind = o[k], d[1]
    if v == nil then
      o[k] = d[2]
    elseif kind == "pixels" then
      if math.type(v) ~= "integer" or v <= 0 or v > 1000000 then bad(k, "a whole number of pixels, 1 to 1000000") end
    elseif kind == "integer" then
      if math.type(v) ~= "integer" then bad(k, "an integer") end
    elseif kind == "boolean" then
      if type(v) ~= "boolean" then bad(k, "a boolean") end
    elseif kind == "string" then
      if type(v) ~= "string" then bad(k, "a string") end
    elseif kind == "enum" then
      if not d[3][v] then
        local names = {}
        for n in pairs(d[3]) do names[#names + 1] = "'" .. n .. "'" end
        table.sort(names)
        bad(k, "one of " .. table.concat(names, ", "))
      end
    elseif kind == "share-or-px" then
      if type(v) == "number" then
        if v ~= v or v < 0 or v == math.huge then bad(k, "a width in pixels (>= 0) or a percent string") end
      elseif type(v) ~= "string" or not v:match("%%%s*$") or not args.share(v, 1) then
        bad(k, "a width in pixels (>= 0) or a percent string (\"0.1%\")")
      end
    end
  end
  if o.width < 100 then bad("width", "at least 100 (pixels)") end
  return o
end

---------------------------------------------------------------------------
-- Text

-- Valid UTF-8 and XML characters only: a byte that is not part of a UTF-8
-- sequence becomes \xNN, control characters (XML 1.0 forbids them even
-- escaped) and U+FFFE/U+FFFF become \xNN or \uFFFx too.
local function clean(s)
  s = args.valid_utf8(s, function(b) return ("\\x%02X"):format(b) end)
  s = s:gsub("[%z\1-\8\11\12\14-\31\127]", function(c) return ("\\x%02X"):format(c:byte()) end)
  return (s:gsub("\239\191([\190\191])", function(c) return c == "\190" and "\\uFFFE" or "\\uFFFF" end))
end

local ESC = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }
-- Text for an element's content or an attribute value.
local function xml(s)
  return (clean(s):gsub("[&<>\"']", ESC))
end
svg.escape = xml

-- A picture's opening, the flame graph's and the differential one's: the
-- svg element, its title and style, the background (fill) and the title
-- and subtitle lines.
local function preamble(put, width, height, title, sub, fs, fill)
  put('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n')
  put(('<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"'
    .. ' viewBox="0 0 %d %d">\n'):format(width, height, width, height))
  put(("<title>%s</title>\n"):format(xml(title)))
  put("<style>text{font-family:Verdana,sans-serif;font-size:" .. fs .. "px;fill:rgb(0,0,0)}"
    .. " .f:hover rect{stroke:rgb(0,0,0);stroke-width:0.5} .f{cursor:pointer}"
    .. " #title{font-size:" .. (fs + 5) .. "px} .b{cursor:pointer}</style>\n")
  put(('<rect x="0" y="0" width="%d" height="%d" fill="%s"/>\n'):format(width, height, fill))
  put(('<text id="title" x="%.2f" y="%d" text-anchor="middle">%s</text>\n')
    :format(width / 2, fs * 2, xml(title)))
  put(('<text id="subtitle" x="%.2f" y="%d" text-anchor="middle">%s</text>\n')
    :format(width / 2, fs * 3 + 6, xml(sub)))
end

-- The label that fits in w pixels: the whole name, or its first characters
-- and "..", or nothing when not even three characters fit.
local function label(name, w, font_size)
  local fits = math.floor(w / (font_size * FONT_WIDTH))
  if fits < 3 then return "" end
  local n = utf8.len(name) or #name
  if n <= fits then return name end
  local cut = utf8.offset(name, fits - 1) or (fits - 1)
  return name:sub(1, cut - 1) .. ".."
end

-- Microseconds as people read them.
local function time_text(us)
  if us >= 1e6 then return ("%.3f s"):format(us / 1e6) end
  if us >= 1e3 then return ("%.3f ms"):format(us / 1e3) end
  return ("%d \u{B5}s"):format(us)
end

-- A stack value as people read it: time_text, or for a perf.data event
-- that is not time (the values are its counts) "42 page-faults".
local function value_texter(event)
  if not event then return time_text end
  return function(n) return ("%d %s"):format(n, event) end
end

local function share_text(v, total)
  return ("%.2f%%"):format(total > 0 and 100 * v / total or 0)
end

---------------------------------------------------------------------------
-- Colours

-- FNV-1a over the name's bytes, 32 bits.
local function hash(s)
  local h = 2166136261
  for i = 1, #s do
    h = ((h ~ s:byte(i)) * 16777619) & 0xffffffff
  end
  return h
end

-- A warm colour (reds, oranges, yellows) chosen by the name, the same for a
-- name in every graph: three numbers from 0 to 1 taken from its hash.
local function hash_colour(name)
  local h = hash(name)
  local v1, v2, v3 = (h & 0x3ff) / 1023, ((h >> 10) & 0x3ff) / 1023, ((h >> 20) & 0x3ff) / 1023
  return ("rgb(%d,%d,%d)"):format(205 + math.floor(50 * v3), math.floor(230 * v1), math.floor(55 * v2))
end

-- By the frame's self share (its own time over its width): pale yellow
-- where callees take all of it, deep red where it takes all of it itself.
local function self_colour(self, value)
  local s = value > 0 and self / value or 0
  return ("rgb(%d,%d,%d)"):format(255 - math.floor(25 * s), math.floor(230 - 200 * s), math.floor(120 - 100 * s))
end

local CYCLE_COLOUR = "rgb(200,170,230)"
local ROOT_COLOUR = "rgb(220,220,220)"

---------------------------------------------------------------------------
-- Calls, for the tooltips

-- The calls of a frame's function (its calls and recursive calls) or
-- cycle (calls from outside it); nil when unknown (a profile of sampled
-- stacks counts no calls).
local function calls_of(obj)
  if obj.kind == "cycle" then return obj.calls end
  return obj.calls and obj.calls + obj.self_calls -- (nil: sampled stacks, no calls)
end

---------------------------------------------------------------------------
-- Layout

-- The frames to draw, in drawing order (parents before children): each
-- { node, depth, x (pixels from the plot's left), w }. Returns the frames,
-- the deepest depth drawn, and the count and time of the frames left out.
local function layout(root, pw, min_px, order)
  local frames, max_depth = {}, 0
  local omitted, omitted_time = 0, 0
  if root.value <= 0 then return frames, 0, 0, 0 end
  local scale = pw / root.value
  -- x from the integer microseconds before it: no drift along a row
  local todo = { { root, 0, 0 } } -- node, depth, microseconds left of it
  while #todo > 0 do
    local item = table.remove(todo)
    local node, depth, left = item[1], item[2], item[3]
    local w = node.value * scale
    if w < min_px and node ~= root then
      omitted_time = omitted_time + node.value
      local sub = { node } -- the frames of the subtree, counted without recursion
      while #sub > 0 do
        local n = table.remove(sub)
        omitted = omitted + 1
        for _, c in ipairs(n.children) do sub[#sub + 1] = c end
      end
    else
      frames[#frames + 1] = { node = node, depth = depth, x = left * scale, w = w }
      if depth > max_depth then max_depth = depth end
      local children = node.children
      if order == "name" then
        children = table.move(children, 1, #children, 1, {})
        local pos = {}
        for i, c in ipairs(children) do pos[c] = i end
        table.sort(children, function(a, b)
          if a.name ~= b.name then return a.name < b.name end
          return pos[a] < pos[b] -- two frames of one label: as the tree orders them
        end)
      end
      -- pushed in reverse, so that they are drawn left to right
      local lefts, at = {}, left
      for i, c in ipairs(children) do lefts[i] = at; at = at + c.value end
      for i = #children, 1, -1 do todo[#todo + 1] = { children[i], depth + 1, lefts[i] } end
    end
  end
  return frames, max_depth, omitted, omitted_time
end

---------------------------------------------------------------------------
-- The script: zoom on click, search, details on hover. Written for this
-- file's structure: every frame is <g class="f"><title/><rect/><text/></g>.

local SCRIPT = [==[
(function () {
  "use strict";
  var svg = document.documentElement, NS = "http://www.w3.org/2000/svg";
  var cfg = svg.getElementById("lgprof-config");
  var xpad = +cfg.getAttribute("data-xpad"), pw = +cfg.getAttribute("data-pw");
  var fs = +cfg.getAttribute("data-fs"), icicle = cfg.getAttribute("data-icicle") === "1";
  var total = +cfg.getAttribute("data-total");
  var details = svg.getElementById("details"), matched = svg.getElementById("matched");
  var unzoom = svg.getElementById("unzoom"), search = svg.getElementById("search");
  var frames = [];
  var gs = svg.getElementsByClassName("f");
  for (var i = 0; i < gs.length; i++) {
    var g = gs[i], r = g.getElementsByTagName("rect")[0], t = g.getElementsByTagName("text")[0];
    var title = g.getElementsByTagName("title")[0].textContent;
    frames.push({ g: g, r: r, t: t, x: +r.getAttribute("x"), w: +r.getAttribute("width"),
                  y: +r.getAttribute("y"), fill: r.getAttribute("fill"),
                  name: title.replace(/ \([^()]*\)$/, ""), title: title,
                  us: +g.getAttribute("data-us") });
  }
  function fit(f, w) {
    var n = Math.floor(w / (fs * 0.59));
    if (n < 3) return "";
    var s = Array.from(f.name);
    return s.length <= n ? f.name : s.slice(0, n - 2).join("") + "..";
  }
  function place(f, x, w) {
    f.r.setAttribute("x", x.toFixed(2)); f.r.setAttribute("width", w.toFixed(2));
    f.t.setAttribute("x", (x + 3).toFixed(2)); f.t.textContent = fit(f, w);
  }
  // the state in the address (#s=REGEX&z=FRAME): a zoom or a search can be
  // linked to, and reloading keeps it
  var state = {};
  location.hash.slice(1).split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0) state[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  function keep() {
    var parts = [];
    if (state.s) parts.push("s=" + encodeURIComponent(state.s));
    if (state.z) parts.push("z=" + state.z);
    try { history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname); } catch (e) {}
  }
  function zoom(z) {
    var k = pw / z.w, eps = 0.01;
    state.z = String(frames.indexOf(z)); keep();
    frames.forEach(function (f) {
      var below = icicle ? f.y > z.y : f.y < z.y;
      var inside = f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps;
      var spans = f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps;
      if ((below || f === z) && inside) {
        f.g.style.display = ""; f.g.style.opacity = "";
        place(f, xpad + (f.x - z.x) * k, f.w * k);
      } else if (!below && spans && f !== z) {
        f.g.style.display = ""; f.g.style.opacity = "0.5"; place(f, xpad, pw);
      } else {
        f.g.style.display = "none";
      }
    });
    unzoom.style.display = "";
  }
  function reset() {
    frames.forEach(function (f) {
      f.g.style.display = ""; f.g.style.opacity = ""; place(f, f.x, f.w);
    });
    unzoom.style.display = "none";
    delete state.z; keep();
  }
  function find(re) {
    var hit = [], us = 0;
    frames.forEach(function (f) {
      var m = re !== null && re.test(f.name);
      f.r.setAttribute("fill", m ? "rgb(230,0,230)" : f.fill);
      if (m) hit.push(f);
    });
    // a match inside a matched frame is counted once, by its outermost
    // frame: frames whose spans nest are a frame and its callees, so one
    // sweep left to right (the wider first at one x) finds the outermost
    hit.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
    var end = -1;
    hit.forEach(function (f) {
      if (f.x + f.w > end + 0.01) { us += f.us; end = f.x + f.w; }
    });
    matched.textContent = re === null ? "" : "Matched: " + (total > 0 ? (100 * us / total).toFixed(2) : "0.00") + "%";
    if (re === null) delete state.s; else state.s = re.source;
    keep();
  }
  frames.forEach(function (f) {
    f.g.addEventListener("click", function () { if (f.w >= pw - 0.01 && f.x <= xpad + 0.01) reset(); else zoom(f); });
    f.g.addEventListener("mouseover", function () { details.textContent = f.title; });
    f.g.addEventListener("mouseout", function () { details.textContent = " "; });
  });
  unzoom.addEventListener("click", reset);
  function ask() {
    var p = window.prompt("Search (a regular expression)", "");
    if (p === null || p === "") { find(null); return; }
    try { find(new RegExp(p)); } catch (e) { matched.textContent = "Bad pattern: " + e.message; }
  }
  search.addEventListener("click", ask);
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); ask(); }
    else if (e.key === "Escape") { find(null); reset(); }
  });
  if (state.s) { try { find(new RegExp(state.s)); } catch (e) { matched.textContent = "Bad pattern: " + e.message; } }
  if (state.z && frames[+state.z]) zoom(frames[+state.z]);
})();
]==]

---------------------------------------------------------------------------
-- The document

local function basename(path)
  return (tostring(path):match("([^/]+)$")) or tostring(path)
end

-- The whole SVG document as a string.
local function render(profile, o)
  local root, err = stacks.tree(profile, { max_depth = o.max_depth, min_weight = o.min_weight })
  if not root then return nil, err end
  local width, fh, fs = o.width, o.frame_height, o.font_size
  local pw = width - 2 * XPAD
  local min_px = o.min_width
  if type(min_px) == "string" then min_px = args.share(min_px, 1) * pw end
  local frames, max_depth, omitted, omitted_time = layout(root, pw, min_px, o.order)
  local total = root.value
  local event = stacks.event(profile)
  local value_text = value_texter(event)

  local title = o.title or ((o.icicle and "Icicle graph: " or "Flame graph: ") .. basename(profile.image))
  local sub = o.subtitle or (profile.source == "stacks"
    and "Stacks recorded in perf.data (measured). Total " .. value_text(total)
      .. (event and " (not time: widths are counts of the event)." or ".")
    or "Stacks estimated from gprof's arcs (gmon.out has none):"
    .. " time split over callers by calls. Total " .. time_text(total) .. ".")
  local top = fs * 4 + 10 + (o.view_description and fs + 4 or 0)  -- title, subtitle, view line
  local bottom = fs * 2 + 10 + (omitted > 0 and fs + 4 or 0)
  local height = top + (max_depth + 1) * fh + bottom
  local plot_bottom = height - bottom

  local b = {}
  local function put(s) b[#b + 1] = s end
  preamble(put, width, height, title, sub, fs, "rgb(248,248,238)")
  if o.view_description then
    put(('<text id="view" x="%.2f" y="%d" text-anchor="middle">View: %s</text>\n')
      :format(width / 2, fs * 4 + 10, xml(o.view_description)))
  end
  if o.script then
    put(('<text id="unzoom" class="b" x="%d" y="%d" style="display:none">Reset Zoom</text>\n')
      :format(XPAD, fs * 2))
    put(('<text id="search" class="b" x="%d" y="%d" text-anchor="end">Search</text>\n')
      :format(width - XPAD, fs * 2))
  end
  put(('<text id="details" x="%d" y="%d"> </text>\n'):format(XPAD, height - fs - 4 - (omitted > 0 and fs + 4 or 0)))
  put(('<text id="matched" x="%d" y="%d" text-anchor="end"> </text>\n')
    :format(width - XPAD, height - fs - 4 - (omitted > 0 and fs + 4 or 0)))
  if omitted > 0 then
    put(('<text id="omitted" x="%d" y="%d">%d frame%s narrower than %s px left out (%s of the %s,'
      .. ' drawn as part of their callers).</text>\n'):format(XPAD, height - fs + 2, omitted,
        omitted == 1 and "" or "s", ("%.3g"):format(min_px), share_text(omitted_time, total),
        event and "events" or "time"))
  end
  if total <= 0 then
    put(('<text id="empty" x="%.2f" y="%d" text-anchor="middle">No %s was sampled: nothing to draw.</text>\n')
      :format(width / 2, top + fh, event and "event" or "time"))
  end
  put(('<g id="frames" data-total="%d">\n'):format(total))
  for _, f in ipairs(frames) do
    local node = f.node
    local y = o.icicle and (top + f.depth * fh) or (plot_bottom - (f.depth + 1) * fh)
    local name = node.name
    local fill
    if node == root then fill = ROOT_COLOUR
    elseif node.func.kind == "cycle" then fill = CYCLE_COLOUR
    elseif o.colors == "self" then fill = self_colour(node.self, node.value)
    else fill = hash_colour(name) end
    local parent = node.parent
    local info = value_text(node.value) .. ", " .. share_text(node.value, total)
    if parent and parent ~= root then info = info .. ", " .. share_text(node.value, parent.value) .. " of its caller" end
    info = info .. "; self " .. value_text(node.self)
    local c = node ~= root and calls_of(node.func)
    if c then
      info = info .. (c == 0 and "; no call recorded" or ("; %d call%s in all"):format(c, c == 1 and "" or "s"))
    end
    local x = XPAD + f.x
    put(('<g class="f" data-us="%d"><title>%s (%s)</title>'):format(node.value, xml(name), xml(info)))
    put(('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" rx="2" ry="2"/>')
      :format(x, y, f.w, fh - 1, fill))
    put(('<text x="%.2f" y="%.1f">%s</text></g>\n'):format(x + 3, y + fh - 4.5, xml(label(name, f.w, fs))))
  end
  put("</g>\n")
  if o.script then
    put(('<g id="lgprof-config" data-xpad="%d" data-pw="%d" data-fs="%s" data-icicle="%d" data-total="%d"/>\n')
      :format(XPAD, pw, ("%g"):format(fs), o.icicle and 1 or 0, total))
    put('<script type="text/ecmascript"><![CDATA[\n' .. SCRIPT .. "]]></script>\n")
  end
  put("</svg>\n")
  return table.concat(b)
end

--- Writes the flame graph of a Profile or view to file (an open Lua file,
-- written and left open, or a path, created). Returns true, or nil and a
-- message. Options (an unknown one or a bad value raises an error, before
-- anything is written): width (1200 px), frame_height (16), font_size (12),
-- min_width (0.1 px, or a percent of the width "0.1%": narrower frames are
-- left out, and the image says how many), icicle (false: roots at the
-- bottom), colors ("hash": a warm colour per name; "self": by the frame's
-- self share), order ("name": siblings in name order, as flamegraph.pl;
-- "weight": heaviest first), title, subtitle, view_description (a line under
-- the title), script (true: click-to-zoom and search), max_depth and
-- min_weight (the stacks', as lgprof.report.folded).
function svg.write(profile, file, options)
  args.check_profile(profile, 1, "svg")
  args.check_output(file, "svg")
  local o = check_options(options)
  local s, err = args.call(function()
    local text, rerr = render(profile, o)
    return text, rerr
  end)
  if not s then return nil, err end
  return args.write_output(file, s)
end

-- The pieces the differential flame graph (lgprof.format.diffsvg) draws
-- with: the same layout, script, text and times.
svg._parts = { layout = layout, preamble = preamble, SCRIPT = SCRIPT, label = label, time_text = time_text,
               value_texter = value_texter, XPAD = XPAD, FONT_WIDTH = FONT_WIDTH }

return svg
