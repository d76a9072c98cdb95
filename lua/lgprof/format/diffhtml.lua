--- lgprof.format.diffhtml: the comparison page of `lgprof --diff
-- --format=html`, one self-contained HTML file (no external URL: it works
-- from disk). It holds the differential flame graph (the stacks of both
-- sides merged frame by frame, lgprof.analysis.difftree: zoom, search, the
-- widths of the new profile or of the base), the diff table (sortable,
-- filtered to the significant changes or to the new and gone functions)
-- and, for the selected function, its callers and callees in the base and
-- in the new profile side by side with their changes. The state (selected
-- function, zoom, search, filters, sort, shape, thread or binary) is in the
-- URL fragment.
-- The page's data is one JSON object; its style is the report page's
-- (lgprof.format.html_assets.css) with a few rules of its own. A perf.data
-- comparison's page also lists its threads and binaries, each with the
-- data of its own comparison (lgprof.format.diffgroups): the script draws
-- the page from the data the fragment's thread= or dso= names.
local html = require "lgprof.format.html"
local diffdata = require "lgprof.format.diffdata"
local diffpage = require "lgprof.format.diffpage_assets"

local diffhtml = {}

-- Text for HTML element content and attribute values.
local function text(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&#39;" }))
end

-- Each row's callers and callees on every side, matched through the rows'
-- keys: { [row key] = { callers = { [far key] = { time[i], calls[i] } }, callees = ... } }
-- for the rows listed (keys), from the arcs of the profiles compared.
local function arcs_by_side(rows, keys)
  local m = rows.matching
  local n = #m.profiles
  local out = {}
  for i = 1, n do
    local key_of = m.key_of[i]
    for fn, key in pairs(key_of) do
      if keys[key] then
        local t = out[key] or { callers = {}, callees = {} }
        out[key] = t
        for _, side in ipairs({ "callers", "callees" }) do
          local far_end = side == "callers" and "caller" or "callee"
          for a in fn[side](fn) do
            local far = a[far_end]
            local fk = far and (key_of[far] or ("\2" .. far.name))
            if fk then
              local e = t[side][fk]
              if not e then
                e = { time = {}, calls = {}, name = far.name }
                t[side][fk] = e
              end
              e.time[i] = (e.time[i] or 0) + a.self + a.children
              e.calls[i] = (e.calls[i] or 0) + (a.count or 0)
            end
          end
        end
      end
    end
  end
  return out
end

--- The page's data (a JSON-able table) of rows and root (difftree.compare's).
-- o: title, image (the new profile's name), gmon (true: the stacks are
-- gprof's estimate), max_functions (the rows embedded with their arcs: the
-- largest changes, default 2000), max_frames (20000: the heaviest frames
-- kept), group ({ kind = "thread" or "dso", key, label }: the data is that
-- group's, lgprof.format.diffgroups).
function diffhtml.data(rows, root, o)
  o = o or {}
  local max_functions = o.max_functions or 2000
  local k = rows.base_runs or 1
  local fns, id_of, keys = {}, {}, {}
  for i, r in ipairs(rows) do
    if i > max_functions then break end
    keys[r.key] = true
    id_of[r.key] = i - 1
    fns[i] = {
      name = r.frame_label, base_name = r.base_name, status = diffdata.STATUS[r.status],
      matched_by = diffdata.matched_by(r),
      sb = r.self_base, sn = r.self_new, sd = r.self_delta,
      sh = (r.self_high - r.self_low) / 2, ss = r.self_significant, sp = r.self_p,
      tb = r.total_base, tn = r.total_new, td = r.total_delta,
      th = (r.total_high - r.total_low) / 2, ts = r.total_significant, tp = r.total_p,
      cb = r.calls_base, cn = r.calls_new,
    }
  end
  local n = k + 1
  local arcs = arcs_by_side(rows, keys)
  for key, t in pairs(arcs) do
    local rec = fns[id_of[key] + 1]
    for _, side in ipairs({ "callers", "callees" }) do
      -- (the sort's keys made once: a function can have thousands of
      -- callers, the unresolved addresses of a perf.data's broken chains)
      local list, heavy, tie = {}, {}, {}
      for fk, e in pairs(t[side]) do
        local b, bc = 0, 0
        for i = 1, k do b, bc = b + (e.time[i] or 0), bc + (e.calls[i] or 0) end
        local x = { id_of[fk] or -1, id_of[fk] and "" or e.name, b / k,
                    e.time[n] or 0, bc / k, e.calls[n] or 0 }
        list[#list + 1] = x
        heavy[x], tie[x] = math.max(x[3], x[4]), x[1] .. x[2]
      end
      table.sort(list, function(x, y)
        local ax, ay = heavy[x], heavy[y]
        if ax ~= ay then return ax > ay end
        return tie[x] < tie[y]
      end)
      rec[side] = list
    end
  end
  -- the frames, parents first: { name, parent, total base, total new, self
  -- base, self new, half, p, change, status, fill, function id }
  local frames = {}
  local todo, head, pos = { { root, -1 } }, 1, 0
  local max_frames = o.max_frames or 20000
  -- (breadth first, a queue: a cut keeps the frames nearest the roots)
  while head <= #todo and #frames < max_frames do
    local item = todo[head]
    head = head + 1
    local node, parent = item[1], item[2]
    frames[#frames + 1] = { node.name, parent, node.total_base, node.total_new, node.self_base,
      node.self_new, node.self_half, node.self_p, node.change, node.status, node.fill,
      node.row and id_of[node.row.key] or -1 }
    local me = pos
    pos = pos + 1
    for _, c in ipairs(node.children) do todo[#todo + 1] = { c, me } end
  end
  local ambiguous = {}
  for i, a in ipairs(rows.ambiguous or {}) do ambiguous[i] = { origin = a.origin, functions = a.labels } end
  local title = o.title or ("lgprof --diff: " .. (o.image or "profiles"))
  local page = {
    meta = {
      title = title, image = o.image, gmon = o.gmon and true or false,
      confidence = rows.confidence, base_runs = k, unit = rows.unit or "seconds",
      base_total = rows.base_total, new_total = rows.new_total,
      calls = rows.calls_recorded ~= false, functions = #rows, listed = #fns,
      frames_left = (function()
        local c = 0
        for j = head, #todo do
          local t = { todo[j][1] }
          while #t > 0 do
            local x = table.remove(t)
            c = c + 1
            for _, ch in ipairs(x.children) do t[#t + 1] = ch end
          end
        end
        return c
      end)(),
      generator = "lgprof " .. require("lgprof").VERSION,
      group = o.group,
    },
    ambiguous = ambiguous, fns = fns, frames = frames,
  }
  return page
end

--- The page (a string) of rows and root (difftree.compare's). o: diffhtml.data's,
-- and groups (lgprof.format.diffgroups.collect's: the threads and binaries
-- of a perf.data's comparison, each with its data).
function diffhtml.render(rows, root, o)
  o = o or {}
  local page = diffhtml.data(rows, root, o)
  local title = page.meta.title
  local groups = o.groups
  local extra, tail = {}, "window.lgprofDiffMain();\n"
  if groups then
    local dg = require "lgprof.format.diffgroups"
    extra = dg.elements(groups)
    tail = dg.js
  end
  local assets = require "lgprof.format.html_assets"
  return table.concat({
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<meta name=\"generator\" content=\"", text(page.meta.generator), "\">\n",
    "<title>", text(title), "</title>\n<style>\n", assets.css, diffpage.css,
    groups and require("lgprof.format.diffgroups").css or "",
    "</style>\n</head>\n<body>\n<div id=\"lgprof-diff-page\">\n", diffpage.body, "</div>\n",
    "<script type=\"application/json\" id=\"lgprof-diff-data\">", html.json(page), "</script>\n",
    table.concat(extra),
    "<script>\n", diffpage.js, tail, "</script>\n</body>\n</html>\n" })
end

return diffhtml
