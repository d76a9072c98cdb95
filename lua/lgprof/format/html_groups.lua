--- lgprof.format.html_groups: two parts of the HTML report (lgprof.format.html).
--
-- The page's state in the URL's fragment, for every page: a list of items
-- joined by "&", each KEY=VALUE (values URI-encoded) or the selected
-- function or cycle as before ("f12", "c3": "#f12" still opens [12]):
--   thread=TID   the thread whose samples the page shows (perf.data)
--   dso=PATH     the binary whose samples the page shows (perf.data)
--   q=TEXT       the search
--   zoom=K       the flame graph's zoomed frame (its position in the data)
-- window.lgprofState.get() gives them as a table ({ sel = "f12", q = ...}),
-- set(t) changes some (nil or "" removes one) as a new history entry,
-- replace(t) in place; other parts of the page may add their own keys.
-- Reloading or sharing the link shows the same view.
--
-- The threads and binaries of a perf.data profile: a table of each (the
-- samples by thread and by the binary of their leaf frame, as lgprof --by
-- gives them: lgprof.analysis.groups), at most MAX_GROUPS rows each. Each
-- row carries the page's data for its samples alone (profile:filter{tid =}
-- or {dso =}: an exact profile), and clicking it draws the whole page -- flame
-- graph, flat profile, call graph -- from that data; clicking it again, or
-- "all samples", draws the whole profile again.
local groups = require "lgprof.analysis.groups"

local M = {}

--- The rows of each table at most (the heaviest first).
M.MAX_GROUPS = 12

--- The state's script, run before the page's own.
M.state_js = [==[
(function () {
  "use strict";
  function parse() {
    var s = {}, h = location.hash.replace(/^#/, "");
    if (!h) return s;
    h.split("&").forEach(function (item) {
      if (!item) return;
      var eq = item.indexOf("=");
      if (eq < 0) { s.sel = item; return; } // f12, c3: the selected function or cycle
      try { s[item.slice(0, eq)] = decodeURIComponent(item.slice(eq + 1)); } catch (e) { /* a bad escape: left out */ }
    });
    return s;
  }
  function text(s) {
    var items = [];
    if (s.sel) items.push(s.sel);
    Object.keys(s).sort().forEach(function (k) {
      if (k !== "sel" && s[k] !== undefined && s[k] !== null && s[k] !== "") {
        // (a comma kept as it is: range=1.25,2.5 reads as it is typed)
        items.push(k + "=" + encodeURIComponent(String(s[k])).replace(/%2C/g, ","));
      }
    });
    return items.join("&");
  }
  function merged(t) {
    var s = parse();
    Object.keys(t).forEach(function (k) { s[k] = t[k]; });
    return s;
  }
  window.lgprofState = {
    get: parse,
    text: text,
    // a new history entry (the hashchange event follows)
    set: function (t) { location.hash = text(merged(t)); },
    // in place: no history entry, no hashchange event
    replace: function (t) {
      var h = text(merged(t));
      history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
    }
  };
})();
]==]

--- The tables' script, run after the page's own (perf.data pages only).
M.js = [==[
(function () {
  "use strict";
  var G = JSON.parse(document.getElementById("lgprof-groups").textContent);
  var dataEl = document.getElementById("lgprof-data"), whole = dataEl.textContent;
  var shown = { thread: "", dso: "" };
  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return ESC[c]; }); }
  var override = null; // the timeline's rows of a time range (lgprofGroups.tables)
  function table(kind, title, rows, current) {
    var h = ["<div class=\"grp\"><h2>" + esc(title) + "</h2><table class=\"groups\" id=\"" + kind +
      "-table\"><thead><tr><th>samples</th><th>" + esc(G.unit) + "</th><th>\u00b1</th><th>share</th>" +
      "<th class=\"name\">" + (kind === "thread" ? "thread (TID:command)" : "binary") + "</th>" +
      "<th class=\"name\">hottest functions</th></tr></thead><tbody>"];
    rows.forEach(function (g) {
      h.push("<tr data-kind=\"" + kind + "\" data-key=\"" + esc(g.key) + "\"" +
        (g.key === current ? " class=\"sel\"" : "") + "><td>" + g.samples + "</td><td>" +
        g.seconds.toFixed(G.decimals) + "</td><td>" + g.error.toFixed(G.decimals) + "</td><td>" +
        (100 * g.share).toFixed(2) + "%</td><td class=\"name\">" + esc(g.label) + "</td><td class=\"name\">" +
        esc(g.hottest) + "</td></tr>");
    });
    h.push("</tbody></table>" + (rows.length < G.counts[kind] ? "<p class=\"note\">" +
      (G.counts[kind] - rows.length) + " lighter ones not listed.</p>" : "") + "</div>");
    return h.join("");
  }
  function drawTables() {
    var sec = document.getElementById("groups-sec");
    if (!sec) {
      sec = document.createElement("section");
      sec.id = "groups-sec";
      var head = document.getElementById("head");
      head.parentNode.insertBefore(sec, head.nextSibling);
    }
    var what = shown.thread ? "thread " + G.label.thread[shown.thread]
      : shown.dso ? "the samples whose leaf is in " + shown.dso : "";
    sec.innerHTML = "<p class=\"note\" id=\"groups-note\">" + (what
      ? "This page shows " + esc(what) + ": the flame graph, the flat profile and the call graph are " +
        "its samples alone. <a href=\"#\" id=\"groups-all\">Show all samples</a>."
      : "Click a thread or a binary to see its samples alone (and again to see all).") + "</p>" +
      "<div class=\"grps\">" + table("thread", "Threads", override ? override.threads : G.threads, shown.thread) +
      table("dso", "Binaries (of the leaf frame)", override ? override.dsos : G.dsos, shown.dso) + "</div>";
  }
  // draws the page from the data of a group ("" for the whole profile)
  function draw(kind, key) {
    var text = whole, el = null;
    // (a group that holds every sample has no data of its own: the whole's)
    if (key) el = document.getElementById("lgprof-" + kind + "-" + G.ids[kind][key]);
    if (el) text = el.textContent;
    shown = { thread: kind === "thread" ? key : "", dso: kind === "dso" ? key : "" };
    if (dataEl.textContent !== text) {
      dataEl.textContent = text;
      document.getElementById("lgprof-page").innerHTML = G.skeleton; // fresh nodes, no old listeners
      window.lgprofMain();
    }
    drawTables();
  }
  function fromState() {
    var s = window.lgprofState.get();
    if (s.thread && G.ids.thread[s.thread] !== undefined) draw("thread", s.thread);
    else if (s.dso && G.ids.dso[s.dso] !== undefined) draw("dso", s.dso);
    else draw("", "");
  }
  document.addEventListener("click", function (e) {
    var all = e.target.closest("#groups-all");
    if (all) {
      e.preventDefault();
      window.lgprofState.set({ thread: "", dso: "", sel: "", zoom: "" });
      return;
    }
    var tr = e.target.closest("table.groups tbody tr");
    if (!tr) return;
    var kind = tr.getAttribute("data-kind"), key = tr.getAttribute("data-key");
    var t = { thread: "", dso: "", sel: "", zoom: "" };
    if (shown[kind] !== key) t[kind] = key; // a second click: all samples again
    window.lgprofState.set(t);
  });
  window.addEventListener("hashchange", function () {
    var s = window.lgprofState.get();
    if ((s.thread || "") !== shown.thread || (s.dso || "") !== shown.dso) fromState();
  });
  fromState();
  // for the timeline (html_timeline): the whole's data, drawing the page
  // of the fragment's thread or binary again, the tables of other rows
  window.lgprofGroups = { G: G, whole: whole, redraw: fromState,
    tables: function (rows, thread, dso) {
      override = rows;
      if (thread !== undefined) shown = { thread: thread || "", dso: dso || "" };
      drawTables();
    } };
  window.lgprofGroupsReady = true;
})();
]==]

M.css = [==[
#groups-sec { padding: 0 16px; }
#groups-sec .grps { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
#groups-sec .grp { flex: 1 1 28em; min-width: 0; }
table.groups tbody tr { cursor: pointer; }
table.groups tbody tr:hover { background: #eef4fb; }
table.groups tbody tr.sel { background: #dbe8f8; font-weight: 600; }
]==]

--- The caps of a row's page (the page's options o, smaller): each row
-- carries a page of its own, so that a page of a dozen threads is not a
-- dozen times the size of the whole's.
M.GROUP_FUNCTIONS, M.GROUP_ARCS = 400, 20
function M.group_options(o)
  local g = {}
  for k, v in pairs(o) do g[k] = v end
  g.max_functions = math.min(o.max_functions, M.GROUP_FUNCTIONS)
  g.max_arcs = math.min(o.max_arcs, M.GROUP_ARCS)
  return g
end

-- "name (62.5%), ..." of a group's hottest functions
local function hottest_text(g)
  local parts = {}
  for _, h in ipairs(g.hottest) do parts[#parts + 1] = ("%s (%.1f%%)"):format(h.name, 100 * h.share) end
  return table.concat(parts, ", ")
end

--- The tables' data of a profile of sampled stacks, and each row's page:
-- page_of(sub) gives the JSON text of the page of a profile. Returns the
-- groups' JSON-able table and the list of { id, text } of the pages; nil
-- for a gmon profile.
function M.collect(profile, page_of, skeleton)
  if profile.source ~= "stacks" then return nil end
  local ev = profile:_stack_evidence()
  local data = {
    unit = ev.is_time and "seconds" or (ev.event or "count"),
    decimals = ev.is_time and 3 or 0,
    threads = {}, dsos = {}, counts = {}, ids = { thread = {}, dso = {} },
    label = { thread = {} }, skeleton = skeleton,
  }
  local pages = {}
  for _, kind in ipairs({ "thread", "dso" }) do
    local list = groups.list(profile, { kind })
    data.counts[kind] = #list
    local rows = kind == "thread" and data.threads or data.dsos
    for i = 1, math.min(#list, M.MAX_GROUPS) do
      local g = list[i]
      local key = kind == "thread" and tostring(g.tid) or g.dso
      rows[i] = { key = key, label = g.label, samples = g.samples, seconds = g.seconds,
                  error = g.error, share = g.share, hottest = hottest_text(g) }
      if kind == "thread" then data.label.thread[key] = g.label end
      data.ids[kind][key] = i
      -- the group's own page, unless it is the whole profile
      if g.share < 1 then
        local sub = kind == "thread" and profile:filter { tid = g.tid } or profile:filter { dso = g.dso }
        if sub then
          local text = page_of(sub)
          sub:close()
          if text then pages[#pages + 1] = { id = "lgprof-" .. kind .. "-" .. i, text = text } end
        end
      else
        pages[#pages + 1] = { id = "lgprof-" .. kind .. "-" .. i, whole = true }
      end
    end
  end
  return data, pages
end

return M
