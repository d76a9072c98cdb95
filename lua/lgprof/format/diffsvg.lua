--- lgprof.format.diffsvg: the differential flame graph of `lgprof --diff
-- --format=svg`. The frames are the new profile's stacks (or the base's,
-- shape "base", where what disappeared shows) merged with the other side's
-- frame by frame (lgprof.analysis.difftree); a frame's width is its time on
-- that side; its colour says how its self time changed: red a significant
-- growth, blue a significant shrink (deeper as the change is larger), grey
-- a change within the noise at the confidence. A frame whose function is
-- new in the new build has a dashed outline, one gone from it a dotted one;
-- both are listed under the graph, with the clones that could not be
-- matched. The zoom, search and tooltips are lgprof.format.svg's.
local svg = require "lgprof.format.svg"
local difftree = require "lgprof.analysis.difftree"

local diffsvg = {}

local P = svg._parts
local xml = svg.escape

-- A change as people read it: "+1.000 ms".
local function signed(text, v)
  if v < 0 then return "-" .. text(-v) end
  return "+" .. text(v)
end

local function percent(c)
  return (("%.1f"):format(100 * c):gsub("%.0$", "")) .. "%"
end

--- The tooltip's text of a node (no parentheses: the script takes the
-- last parenthesised group of a title as the details): self base, new,
-- change +- the interval's half-width and its share of the base, the
-- significance and p-value, the totals, and new or gone.
function diffsvg.info(node, value_text, confidence)
  local b, n, d = node.self_base, node.self_new, node.self_delta
  local s = ("self: base %s, new %s, change %s"):format(value_text(b), value_text(n),
    signed(value_text, d))
  if confidence > 0 then s = s .. " \u{B1} " .. value_text(node.self_half) end
  if b > 0 then s = s .. (", %+.1f%%"):format(100 * d / b) end
  if confidence > 0 then
    s = s .. (node.self_significant and ", significant at " or ", within the noise at ")
      .. percent(confidence) .. (", p = %.3g"):format(node.self_p)
  end
  s = s .. ("; total: base %s, new %s"):format(value_text(node.total_base),
    value_text(node.total_new))
  if node.status == "new" then s = s .. "; new function"
  elseif node.status == "gone" then s = s .. "; gone function" end
  return s
end

-- The tree as drawn: copies of the nodes whose width on the side is not
-- zero, value the side's total in integer units (microseconds or counts),
-- self its self; node.d is the difftree node.
local function shaped(root, side, scale)
  local function copy(d, parent)
    local v = d["total_" .. side] * scale
    return { name = d.name, value = math.floor(v + 0.5),
             self = math.floor(d["self_" .. side] * scale + 0.5), d = d, parent = parent,
             children = {} }
  end
  local top = copy(root)
  local todo = { top }
  while #todo > 0 do
    local node = table.remove(todo)
    for _, c in ipairs(node.d.children) do
      if c["total_" .. side] > 0 then
        local cc = copy(c, node)
        if cc.value > 0 then
          node.children[#node.children + 1] = cc
          todo[#todo + 1] = cc
        end
      end
    end
  end
  return top
end

-- The new and gone functions of the rows, by label.
local function new_and_gone(rows)
  local added, removed = {}, {}
  for _, r in ipairs(rows) do
    if r.status == "added" then added[#added + 1] = r.frame_label
    elseif r.status == "removed" then removed[#removed + 1] = r.frame_label end
  end
  table.sort(added); table.sort(removed)
  return added, removed
end

-- A list of names cut to max of them: "a, b, c and 4 more".
local function names(list, max)
  if #list <= max then return table.concat(list, ", ") end
  return table.concat(list, ", ", 1, max) .. (" and %d more"):format(#list - max)
end

local OUTLINE = { new = ' stroke="rgb(0,0,0)" stroke-width="1.5" stroke-dasharray="4,2"',
                  gone = ' stroke="rgb(0,0,0)" stroke-width="1.5" stroke-dasharray="1,2"' }
diffsvg.OUTLINE = OUTLINE

--- The SVG document (a string) of rows and root (difftree.compare's).
-- o: shape ("new" or "base"), title, width (1200), frame_height (16),
-- font_size (12), min_width (0.1 px), image (the new profile's image
-- name for the title), gmon (true: the stacks are gprof's estimate),
-- view_description (the view of both sides, lgprof.cliview.describe's words).
function diffsvg.render(rows, root, o)
  o = o or {}
  local side = o.shape == "base" and "base" or "new"
  local width, fh, fs = o.width or 1200, o.frame_height or 16, o.font_size or 12
  local XPAD = P.XPAD
  local pw = width - 2 * XPAD
  local scale = rows.scale or 1e6
  local event = rows.unit
  local value_text = event and function(v) return ("%.0f %s"):format(v, event) end
    or function(v) return P.time_text(math.floor(v * 1e6 + 0.5)) end
  local top_node = shaped(root, side, scale)
  local frames, max_depth, omitted, omitted_time = P.layout(top_node, pw, o.min_width or 0.1, "name")
  local total = top_node.value
  local confidence = rows.confidence or 0
  local added, removed = new_and_gone(rows)
  local title = o.title or ("Differential flame graph: " .. (o.image or "the new profile"))
  local runs = (rows.base_runs or 1) > 1 and (" (mean of %d runs)"):format(rows.base_runs) or ""
  local sub = ("Widths: the %s profile's time. Base %s%s, new %s. %s"):format(side,
    value_text(rows.base_total), runs, value_text(rows.new_total),
    o.gmon and "Stacks estimated from gprof's arcs (gmon.out has none)."
      or "Stacks recorded in perf.data (measured).")
  local grey_means = confidence > 0
    and ("grey: the self time's change is within the noise at %s confidence (or there is"
      .. " no self time)"):format(percent(confidence))
    or "grey: no change of self time (--confidence=0: every change is coloured)"
  local legend = {
    { "rgb(255,110,110)", "red: self time grew significantly (deeper: larger change)" },
    { "rgb(110,110,255)", "blue: self time shrank significantly" },
    { difftree.GREY, grey_means },
  }
  local lines = {}
  if #added > 0 then lines[#lines + 1] = { "newlist", "New (dashed outline): " .. names(added, 30) } end
  if #removed > 0 then
    lines[#lines + 1] = { "gonelist", "Gone (dotted outline" .. (side == "new"
      and ", not drawn: see --diff-shape=base): " or "): ") .. names(removed, 30) }
  end
  if o.view_description then -- (--focus, --ignore, --hide: one view of every side)
    lines[#lines + 1] = { "view", "View (of both sides): " .. o.view_description }
  end
  for _, a in ipairs(rows.ambiguous or {}) do
    lines[#lines + 1] = { "ambiguous", ("Not matched, ambiguous: %s in several clones (%s)")
      :format(a.origin, table.concat(a.labels, ", ")) }
  end
  local top = fs * 4 + 10
  local bottom = fs * 2 + 10 + (omitted > 0 and fs + 4 or 0) + (#legend + #lines) * (fs + 4)
  local height = top + (max_depth + 1) * fh + bottom
  local plot_bottom = top + (max_depth + 1) * fh

  local b = {}
  local function put(s) b[#b + 1] = s end
  svg._parts.preamble(put, width, height, title, sub, fs, "rgb(248,248,248)")
  put(('<text id="unzoom" class="b" x="%d" y="%d" style="display:none">Reset Zoom</text>\n')
    :format(XPAD, fs * 2))
  put(('<text id="search" class="b" x="%d" y="%d" text-anchor="end">Search</text>\n')
    :format(width - XPAD, fs * 2))
  local y = plot_bottom + fs + 4
  put(('<text id="details" x="%d" y="%d"> </text>\n'):format(XPAD, y))
  put(('<text id="matched" x="%d" y="%d" text-anchor="end"> </text>\n'):format(width - XPAD, y))
  if omitted > 0 then
    y = y + fs + 4
    put(('<text id="omitted" x="%d" y="%d">%d frame%s narrower than %s px left out (%.2f%% of'
      .. ' the width).</text>\n'):format(XPAD, y, omitted, omitted == 1 and "" or "s",
        ("%.3g"):format(o.min_width or 0.1), total > 0 and 100 * omitted_time / total or 0))
  end
  put('<g id="legend">\n')
  for _, l in ipairs(legend) do
    y = y + fs + 4
    put(('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/><text x="%d" y="%d">%s</text>\n')
      :format(XPAD, y - fs + 2, fs * 2, fs - 1, l[1], XPAD + fs * 2 + 6, y, xml(l[2])))
  end
  for _, l in ipairs(lines) do
    y = y + fs + 4
    put(('<text id="%s" x="%d" y="%d">%s</text>\n'):format(l[1], XPAD, y, xml(l[2])))
  end
  put('</g>\n')
  if total <= 0 then
    put(('<text id="empty" x="%.2f" y="%d" text-anchor="middle">No time in the %s profile:'
      .. ' nothing to draw.</text>\n'):format(width / 2, top + fh, side))
  end
  put(('<g id="frames" data-total="%d" data-shape="%s">\n'):format(total, side))
  for _, f in ipairs(frames) do
    local node = f.node
    local d = node.d
    local fy = plot_bottom - (f.depth + 1) * fh
    local info = node == top_node and ("base %s, new %s"):format(value_text(d.total_base),
      value_text(d.total_new)) or diffsvg.info(d, value_text, confidence)
    local x = XPAD + f.x
    put(('<g class="f" data-us="%d" data-change="%s" data-status="%s"><title>%s (%s)</title>')
      :format(node.value, d.change, d.status, xml(node.name), xml(info)))
    put(('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" rx="2" ry="2"%s/>')
      :format(x, fy, f.w, fh - 1, d.fill, OUTLINE[d.status] or ""))
    put(('<text x="%.2f" y="%.1f">%s</text></g>\n'):format(x + 3, fy + fh - 4.5,
      xml(P.label(node.name, f.w, fs))))
  end
  put("</g>\n")
  put(('<g id="lgprof-config" data-xpad="%d" data-pw="%d" data-fs="%s" data-icicle="0"'
    .. ' data-total="%d"/>\n'):format(XPAD, pw, ("%g"):format(fs), total))
  put('<script type="text/ecmascript"><![CDATA[\n' .. P.SCRIPT .. "]]></script>\n")
  put("</svg>\n")
  return table.concat(b)
end

return diffsvg
