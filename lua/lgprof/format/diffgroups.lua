--- lgprof.format.diffgroups: the threads and binaries of the comparison
-- page (lgprof.format.diffhtml) of two perf.data profiles.
--
-- A thread of one run is not a thread of the other (the ids differ): a
-- thread of the comparison is a command name (comm), all the threads of
-- that name in each run, as `lgprof --diff --comm=NAME` compares them; a
-- binary is the binary of the samples' leaf frame (where the time was
-- spent), as `--diff --dso=PATH`. The page lists the threads and the
-- binaries of both runs (the heaviest MAX_GROUPS of each: the base's
-- samples, the mean of its runs, plus the new run's; the rest named in a
-- note), each with its samples and time in the base and in the new run and
-- the change with its interval, or "new" or "gone" when one side has none,
-- and its functions whose self time changed most (in its comparison).
-- Each row carries the comparison of its samples alone (every side
-- profile:filter{comm =} or {dso =}, compared as --diff --comm or --dso
-- compares them, the functions' keys taken from the whole comparison:
-- diff._diff's like), and clicking it draws the whole page -- flame graph,
-- table, side by side -- from that data; clicking it again, or "all
-- samples", draws the whole comparison again. The fragment holds the
-- choice: thread=NAME or dso=PATH, so a view is a link.
local difftree = require "lgprof.analysis.difftree"
local stats = require "lgprof.analysis.stats"
local html = require "lgprof.format.html"

local M = {}

--- The rows of each table at most (the heaviest first).
M.MAX_GROUPS = 20
--- The caps of a group's data (diffhtml.data's max_functions, max_frames):
-- smaller than the whole's, so that the page's size stays bounded.
M.GROUP_FUNCTIONS, M.GROUP_FRAMES = 400, 5000
--- The names of the groups not listed, in the note, at most.
M.MAX_NAMED = 40

-- each table: its kind (the fragment's key) and profile:filter's key
local KINDS = { { kind = "thread", by = "comm" }, { kind = "dso", by = "dso" } }

-- The groups of each kind over the profiles (the bases, then the new one):
-- { comm = list, dso = list }, each a list of { key, samples = { per
-- profile }, seconds = { per profile } }, heaviest first (the bases' mean
-- plus the new run's samples, then the key). (From each profile's threads
-- and binaries, as lgprof.analysis.groups counts them: the threads of one
-- name summed, a binary's samples those whose leaf is in it.)
local function union(profiles)
  local out = {}
  local byKey = { comm = {}, dso = {} }
  for _, by in ipairs({ "comm", "dso" }) do out[by] = {} end
  local function add(by, key, i, samples, seconds)
    local e = byKey[by][key]
    if not e then
      e = { key = key, samples = {}, seconds = {} }
      byKey[by][key] = e
      out[by][#out[by] + 1] = e
    end
    e.samples[i] = (e.samples[i] or 0) + samples
    e.seconds[i] = (e.seconds[i] or 0) + seconds
  end
  for i, p in ipairs(profiles) do
    for t in p:threads() do
      if t.samples > 0 then add("comm", t.comm or "", i, t.samples, t.seconds) end
    end
    for d in p:dsos() do
      if d.samples > 0 then add("dso", d.path, i, d.samples, d.seconds) end
    end
  end
  local k = #profiles - 1
  for _, list in pairs(out) do
    local weight = {}
    for _, e in ipairs(list) do
      local b = 0
      for i = 1, k do b = b + (e.samples[i] or 0) end
      weight[e] = b / k + (e.samples[k + 1] or 0)
    end
    table.sort(list, function(x, y)
      if weight[x] ~= weight[y] then return weight[x] > weight[y] end
      return x.key < y.key
    end)
  end
  return out
end

--- The functions of a group's row: its largest self changes, at most.
M.TOP = 3

-- The largest changes of self time of a comparison's rows (diff's): a list
-- of { name, change (seconds), significant }, at most M.TOP, the largest
-- first (ties: the rows' order), none that did not change.
local function top_changes(rows)
  local list = {}
  for i, r in ipairs(rows) do
    if r.self_delta ~= 0 then list[#list + 1] = { i = i, r = r, a = math.abs(r.self_delta) } end
  end
  table.sort(list, function(x, y)
    if x.a ~= y.a then return x.a > y.a end
    return x.i < y.i
  end)
  local out = {}
  for j = 1, math.min(M.TOP, #list) do
    local r = list[j].r
    out[j] = { r.frame_label, r.self_delta, r.self_significant }
  end
  return out
end

--- The threads and binaries of the comparison of bases (a list of
-- Profiles) with new, and each one's data: nil for gmon profiles. rows:
-- the whole comparison's (difftree.compare's, on these profiles); topts:
-- its options (confidence, clone_match, min_weight); o: diffhtml.data's
-- options of the whole page (image). Returns { data = the tables' JSON-able
-- table, pages = { { id, text } } }, or nil and a message (a profile:filter
-- failed).
function M.collect(bases, new, rows, topts, o)
  if require("lgprof.util.args").is_profile(bases) then bases = { bases } end
  if new.source ~= "stacks" then return nil end
  for _, b in ipairs(bases) do
    if b.source ~= "stacks" then return nil end
  end
  local diffhtml = require "lgprof.format.diffhtml"
  local profiles = {}
  for i, b in ipairs(bases) do profiles[i] = b end
  local k = #bases
  profiles[k + 1] = new
  local ev = new:_stack_evidence()
  local period = rows.period or 0
  local confidence = rows.confidence
  local q = confidence > 0 and stats.quantile((1 + confidence) / 2) or 0
  local data = {
    unit = ev.is_time and "seconds" or (ev.event or "count"),
    decimals = ev.is_time and 3 or 0, base_runs = k,
    threads = {}, dsos = {}, counts = {}, ids = { thread = {}, dso = {} }, rest = {},
  }
  local pages = {}
  local lists = union(profiles)
  for _, K in ipairs(KINDS) do
    local kind = K.kind
    local list = lists[K.by]
    data.counts[kind] = #list
    local out = kind == "thread" and data.threads or data.dsos
    local rest = {}
    for j = M.MAX_GROUPS + 1, math.min(#list, M.MAX_GROUPS + M.MAX_NAMED) do rest[#rest + 1] = list[j].key end
    data.rest[kind] = rest
    for j = 1, math.min(#list, M.MAX_GROUPS) do
      local e = list[j]
      local sb, tb, present, whole = 0, 0, 0, true
      local counts = {}
      for i = 1, k do
        local s = e.samples[i] or 0
        counts[i] = s
        sb, tb = sb + s, tb + (e.seconds[i] or 0)
        if s > 0 then present = present + 1 end
        whole = whole and s == profiles[i].samples
      end
      local sn, tn = e.samples[k + 1] or 0, e.seconds[k + 1] or 0
      whole = whole and sn == new.samples
      -- (the same test as a function's samples: lgprof.analysis.diff)
      local t = stats.count_test(counts, sn)
      local half = q > 0 and (q * t.se + t.cc) * period or 0
      local d = tn - tb / k
      local row = {
        key = e.key, status = present == 0 and "new" or sn == 0 and "gone" or "common",
        sb = sb / k, sn = sn, tb = tb / k, tn = tn, td = d, th = half,
        ts = confidence > 0 and (d - half > 0 or d + half < 0) or (confidence == 0 and d ~= 0),
      }
      out[j] = row
      -- (a group of every sample: the whole's changes)
      if whole then row.top = top_changes(rows) end
      data.ids[kind][e.key] = j
      if not whole then
        -- the group's own comparison: every side filtered, as --diff --comm
        -- or --dso filters them
        local sel = { [K.by] = { e.key } }
        local fbases, opened, ferr = {}, {}, nil
        for i = 1, k + 1 do
          local f, why = profiles[i]:filter(sel)
          if not f then
            ferr = why
            break
          end
          opened[#opened + 1] = f
          if i <= k then fbases[i] = f end
        end
        if not ferr then
          local gtopts = { confidence = topts.confidence, clone_match = topts.clone_match,
                           min_weight = topts.min_weight, like = rows.matching }
          local grows, groot = difftree.compare(fbases, opened[k + 1], gtopts)
          row.top = top_changes(grows)
          local label = kind == "thread" and "thread " .. e.key or "binary " .. e.key
          local page = diffhtml.data(grows, groot, {
            title = o.title, image = o.image, gmon = false,
            max_functions = M.GROUP_FUNCTIONS, max_frames = M.GROUP_FRAMES,
            group = { kind = kind, key = e.key, label = label } })
          pages[#pages + 1] = { id = "lgprof-diff-" .. kind .. "-" .. j, text = html.json(page) }
        end
        for i = #opened, 1, -1 do opened[i]:close() end
        if ferr then return nil, tostring(ferr) end
      end
    end
  end
  return { data = data, pages = pages }
end

--- The page's elements of collect's result: the tables' data
-- (#lgprof-diff-groups) and each group's (#lgprof-diff-KIND-N), a list of
-- strings.
function M.elements(g)
  local parts = { "<script type=\"application/json\" id=\"lgprof-diff-groups\">", html.json(g.data),
                  "</script>\n" }
  for _, p in ipairs(g.pages) do
    parts[#parts + 1] = "<script type=\"application/json\" id=\"" .. p.id .. "\">" .. p.text .. "</script>\n"
  end
  return parts
end

M.css = [==[
#dgroups-sec .grps { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
#dgroups-sec .grp { flex: 1 1 46em; min-width: 0; overflow-x: auto; }
table.dgroups td.name, table.dgroups th.name { min-width: 12em; }
table.dgroups td, table.dgroups th { white-space: nowrap; }
table.dgroups td.name { white-space: normal; }
table.dgroups tbody tr { cursor: pointer; }
table.dgroups tbody tr:hover { background: #eef4fb; }
table.dgroups tbody tr.sel { background: #dbe8f8; font-weight: 600; }
table.dgroups td.grew { color: #b3261e; } table.dgroups td.shrank { color: #1a5fb4; }
]==]

--- The tables' script, after the page's (diffpage_assets.js): it draws the
-- page from the data of the fragment's thread= or dso= (or the whole's).
M.js = [==[
(function () {
  "use strict";
  var G = JSON.parse(document.getElementById("lgprof-diff-groups").textContent);
  var dataEl = document.getElementById("lgprof-diff-data"), whole = dataEl.textContent;
  var pageEl = document.getElementById("lgprof-diff-page"), skeleton = pageEl.innerHTML;
  var shown = { thread: "", dso: "" };
  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return ESC[c]; }); }
  function parse() {
    var s = {}, h = location.hash.replace(/^#/, "");
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) { try { s[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* left out */ } }
    });
    return s;
  }
  // a new history entry with t's keys changed ("" removes one)
  function set(t) {
    var s = parse(), parts = [];
    Object.keys(t).forEach(function (k) { s[k] = t[k]; });
    Object.keys(s).sort().forEach(function (k) {
      if (s[k] !== undefined && s[k] !== "") parts.push(k + "=" + encodeURIComponent(s[k]));
    });
    location.hash = parts.join("&");
  }
  function num(v) {
    if (G.unit !== "seconds") return v.toFixed(0);
    return v.toFixed(G.decimals);
  }
  // a signed change, no "-0.000" for a change that rounds to nothing
  function signed(v) {
    var a = num(Math.abs(v));
    return (v < 0 && Number(a) !== 0 ? "-" : "+") + a;
  }
  function table(kind, title, rows, current) {
    var h = ["<div class=\"grp\"><h2>" + esc(title) + "</h2><table class=\"dgroups\" id=\"d" + kind +
      "-table\"><thead><tr><th class=\"name\">" + (kind === "thread" ? "thread (command)" : "binary (of the leaf frame)") +
      "</th><th>status</th><th>samples base</th><th>samples new</th><th>base " + esc(G.unit) + "</th><th>new " +
      esc(G.unit) + "</th><th>change</th><th>\u00b1</th><th class=\"name\">largest self changes</th></tr></thead><tbody>"];
    rows.forEach(function (g) {
      var cls = g.ts ? (g.td > 0 ? "grew" : "shrank") : "";
      h.push("<tr data-kind=\"" + kind + "\" data-key=\"" + esc(g.key) + "\"" +
        (g.key === current ? " class=\"sel\"" : "") + "><td class=\"name\">" + esc(g.key) + "</td><td>" +
        esc(g.status) + "</td><td>" + (Math.round(g.sb * 10) / 10) + "</td><td>" + g.sn + "</td><td>" +
        num(g.tb) + "</td><td>" + num(g.tn) + "</td><td class=\"" + cls + "\">" + signed(g.td) + (g.ts ? " *" : "") + "</td><td>" + num(g.th) + "</td><td class=\"name\">" +
        esc((g.top || []).map(function (c) { return c[0] + " " + signed(c[1]) + (c[2] ? " *" : ""); }).join(", ")) +
        "</td></tr>");
    });
    h.push("</tbody></table>");
    var more = G.counts[kind] - rows.length;
    if (more > 0) {
      var named = G.rest[kind];
      h.push("<p class=\"note\" id=\"d" + kind + "-rest\">" + more + " lighter ones not listed: " +
        esc(named.join(", ")) + (named.length < more ? ", ..." : "") + ".</p>");
    }
    h.push("</div>");
    return h.join("");
  }
  function drawTables() {
    var sec = document.getElementById("dgroups-sec");
    if (!sec) {
      sec = document.createElement("section");
      sec.id = "dgroups-sec";
      var head = document.getElementById("head");
      head.parentNode.insertBefore(sec, head.nextSibling);
    }
    var what = shown.thread ? "the threads named " + shown.thread
      : shown.dso ? "the samples whose leaf is in " + shown.dso : "";
    sec.innerHTML = "<p class=\"note\" id=\"dgroups-note\">" + (what
      ? "This comparison is of " + esc(what) + " in both runs (as lgprof --diff --" +
        (shown.thread ? "comm" : "dso") + " compares them): the flame graph, the table and the side by side are " +
        "their samples alone. <a href=\"#\" id=\"dgroups-all\">Compare all samples</a>."
      : "Click a thread (matched by its command name: thread ids differ between runs) or a binary to compare its samples alone (and again to compare all).") +
      "</p><div class=\"grps\">" + table("thread", "Threads", G.threads, shown.thread) +
      table("dso", "Binaries", G.dsos, shown.dso) + "</div>";
  }
  // draws the page from a group's data ("" for the whole comparison)
  function draw(kind, key) {
    var text = whole, el = null;
    // (a group that holds every sample on every side has no data of its own)
    if (key) el = document.getElementById("lgprof-diff-" + kind + "-" + G.ids[kind][key]);
    if (el) text = el.textContent;
    shown = { thread: kind === "thread" ? key : "", dso: kind === "dso" ? key : "" };
    dataEl.textContent = text;
    pageEl.innerHTML = skeleton; // fresh nodes, no old listeners
    window.lgprofDiffMain();
    drawTables();
  }
  // the group the fragment names, when it is one of the tables' (an unknown
  // name: the whole comparison)
  function wanted() {
    var s = parse();
    if (s.thread && G.ids.thread[s.thread] !== undefined) return { kind: "thread", key: s.thread };
    if (s.dso && G.ids.dso[s.dso] !== undefined) return { kind: "dso", key: s.dso };
    return { kind: "", key: "" };
  }
  function fromState() {
    var w = wanted();
    draw(w.kind, w.key);
  }
  document.addEventListener("click", function (e) {
    if (e.target.closest("#dgroups-all")) {
      e.preventDefault();
      set({ thread: "", dso: "", f: "", z: "" });
      return;
    }
    var tr = e.target.closest("table.dgroups tbody tr");
    if (!tr) return;
    var kind = tr.getAttribute("data-kind"), key = tr.getAttribute("data-key");
    var t = { thread: "", dso: "", f: "", z: "" };
    if (shown[kind] !== key) t[kind] = key; // a second click: all samples again
    set(t);
  });
  // (the page's hashchange asks first: a change of group draws it anew)
  (window.lgprofDiffHooks || (window.lgprofDiffHooks = {})).group = function () {
    var w = wanted();
    if ((w.kind === "thread" ? w.key : "") === shown.thread && (w.kind === "dso" ? w.key : "") === shown.dso) return false;
    draw(w.kind, w.key);
    return true;
  };
  fromState();
})();
]==]

return M
