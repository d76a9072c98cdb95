--- lgprof.html_assets: the CSS, the body's skeleton and the JavaScript of
-- the HTML report (lgprof.html), inlined into every page.
--
-- They live in a Lua module, as long strings, because the command embeds
-- exactly the Lua modules of lua/lgprof/ (Makefile LUA_MODS): a .js or .css
-- file beside them would need its own embedding, install rule and search
-- path, for no gain. The JavaScript is hand-written (no library: a table, an
-- SVG icicle and a panel are a few hundred lines), ES5 plus what every
-- browser of the last years has, and reads only the page's JSON data.
local assets = {}

assets.css = [==[
:root { --fg: #1d1f21; --muted: #5f6368; --line: #d0d4d9; --bg: #fff; --alt: #f5f7fa;
  --accent: #1a5fb4; --warn: #a15c00; --bad: #b3261e; --match: #e040e0; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
header, section, footer, #toolbar { padding: 8px 16px; }
h1 { font-size: 20px; margin: 4px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 8px 0 4px; }
h3 { font-size: 15px; margin: 4px 0; overflow-wrap: anywhere; }
.note { color: var(--muted); font-size: 12px; margin: 2px 0 6px; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 24px; margin: 0; }
.facts div { display: flex; gap: 6px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; font-variant-numeric: tabular-nums; word-break: break-all; }
.view { border-left: 4px solid var(--accent); background: #eef4fb; padding: 4px 8px; margin: 8px 0; }
.left { border-left: 4px solid var(--warn); background: #fdf6ec; padding: 4px 8px; margin: 8px 0; }
.findings { list-style: none; padding: 0; margin: 8px 0; }
.findings li { border-left: 4px solid var(--muted); padding: 4px 8px; margin: 4px 0; background: var(--alt); }
.findings li.warning, .findings li.error { border-color: var(--bad); }
.findings li.info { border-color: var(--accent); }
.findings code { font-weight: 600; }
#toolbar { position: sticky; top: 0; z-index: 5; background: var(--bg); border-bottom: 1px solid var(--line);
  display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
#search { width: 28em; max-width: 100%; padding: 4px 6px; font: inherit; }
#matches { color: var(--muted); }
button { font: inherit; padding: 2px 10px; }
#flame { width: 100%; overflow: hidden; border: 1px solid var(--line); }
#flame svg { display: block; font: 12px ui-monospace, Menlo, Consolas, monospace; }
#flame g.fr { cursor: pointer; }
#flame rect { stroke: #fff; stroke-width: 0.5; }
#flame g.fr:hover rect { stroke: #000; }
#flame g.match rect { fill: var(--match); }
#flame g.out rect { opacity: 0.45; }
#flame text { pointer-events: none; fill: #000; }
#flame-path { color: var(--muted); word-break: break-all; }
#main { display: flex; gap: 16px; padding: 0 16px; align-items: flex-start; }
#flat-sec { flex: 3 1 0; min-width: 0; padding: 0; }
#panel-sec { flex: 2 1 0; min-width: 0; position: sticky; top: 48px; max-height: calc(100vh - 56px);
  overflow: auto; }
.scroll { max-height: 70vh; overflow: auto; border: 1px solid var(--line); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 2px 6px; text-align: right; white-space: nowrap; border-bottom: 1px solid #eceff3; }
th { position: sticky; top: 0; background: var(--alt); cursor: pointer; user-select: none; }
th.sorted-desc::after { content: " \25BC"; } th.sorted-asc::after { content: " \25B2"; }
td.name, th.name { text-align: left; white-space: normal; overflow-wrap: anywhere; }
/* (the flat profile's rows are flex boxes of columns set to the widest
   value of each (flatBody), not a table's: a table lays out all its rows
   to size its columns, and these rows are skipped while out of view: the
   scroll box shows 30 of the 200 rows drawn, and a redraw laid out all.
   Its elements carry their table roles, which boxes lose for screen
   readers.) */
#flat, #flat thead, #flat tbody { display: block; }
#flat thead { position: sticky; top: 0; z-index: 1; }
#flat tr { display: flex; align-items: center; border-bottom: 1px solid #eceff3; }
#flat th { position: static; }
#flat th, #flat td { border-bottom: 0; }
#flat th, #flat td { flex: 0 0 auto; }
#flat th.name, #flat td.name { flex: 1 1 0; min-width: 0; }
#flat tbody tr { content-visibility: auto; contain-intrinsic-size: auto 25px; }
#flat .pct { width: var(--w-pct); } #flat .self { width: var(--w-self); } #flat .err { width: var(--w-err); }
#flat .smp { width: var(--w-smp); } #flat .tot { width: var(--w-tot); } #flat .calls { width: var(--w-calls); }
#flat .spc { width: var(--w-spc); } #flat .tpc { width: var(--w-tpc); }
#flat tbody tr { cursor: pointer; }
#flat tbody tr:hover { background: #eef4fb; }
#flat tbody tr.sel { background: #dbe8f8; }
tr.noisy td.self { color: var(--muted); font-style: italic; }
#panel table th { cursor: default; }
#panel tr.primary { background: #dbe8f8; font-weight: 600; }
#panel tr.sep td { background: var(--alt); color: var(--muted); text-align: left; font-size: 12px; }
a.fn { color: var(--accent); text-decoration: none; }
a.fn:hover { text-decoration: underline; }
a.fn.stub { color: var(--muted); }
.cyc { color: #7b3fb8; }
#cycles .cycle { margin: 6px 0 10px; }
#cycles ul { margin: 2px 0; padding-left: 20px; columns: 3 18em; }
footer { color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); margin-top: 16px; }
@media (max-width: 900px) { #main { flex-direction: column; } #panel-sec { position: static; max-height: none; } }
]==]

assets.body = [==[
<header id="head"><noscript><p>This report draws itself with JavaScript: enable it to see the profile.</p></noscript></header>
<div id="toolbar">
  <input id="search" type="search" placeholder="Search functions: text, or /regular expression/" autocomplete="off">
  <span id="matches"></span>
</div>
<section id="flame-sec">
  <h2>Flame graph (icicle: callers above callees)</h2>
  <p class="note" id="flame-note"></p>
  <p><button id="flame-reset" type="button">Reset zoom</button> <span id="flame-path"></span></p>
  <div id="flame"></div>
</section>
<div id="main">
  <section id="flat-sec">
    <h2>Flat profile</h2>
    <p class="note" id="flat-note"></p>
    <div class="scroll"><table id="flat" role="table"><thead role="rowgroup"></thead><tbody role="rowgroup"></tbody></table></div>
    <p class="note" id="flat-more" hidden><button type="button"></button></p>
  </section>
  <aside id="panel-sec">
    <h2>Call graph</h2>
    <div id="panel"><p class="note">Click a function (in the table, the flame graph or here) to see its callers and callees.</p></div>
  </aside>
</div>
<section id="cycles-sec">
  <h2>Cycles</h2>
  <div id="cycles"></div>
</section>
<footer id="foot"></footer>
]==]

assets.js = [==[
(function () {
  "use strict";
  // (a drawing from data the page made itself, the timeline's selection,
  // hands it over as it is: the text in #lgprof-data is the same data)
  var D = window.lgprofPageData || JSON.parse(document.getElementById("lgprof-data").textContent);
  window.lgprofPageData = null;
  var M = D.meta, F = D.fns, CYC = {}, AT = {};
  var NOCALLS = !!M.measured && !M.counted; // perf.data alone: a sampler counts no calls
  // the page may be drawn again (a thread's data: html_groups): the window's
  // listeners of an earlier drawing stand down
  var GEN = window.lgprofGen = (window.lgprofGen || 0) + 1;
  function live() { return GEN === window.lgprofGen; }
  var STATE = window.lgprofState, START = STATE ? STATE.get() : {};
  D.cycles.forEach(function (c) { CYC[c.number] = c; });
  // links and the address name a function by the index the page shows
  // (#f4 for [4]); AT: that index's position in F
  F.forEach(function (f, k) { AT[f.i] = k; });

  function $(id) { return document.getElementById(id); }
  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return ESC[c]; }); }
  function fix(v, d) { return v === null || v === undefined ? "" : v.toFixed(d); }
  function sec(v) { return fix(v, 2); }
  function perCall(t, calls) { return calls > 0 ? nice3(t / calls) : ""; }
  // a perf.data event that is not time: the "seconds" are its counts, and
  // the flame graph's values counts too (else microseconds)
  function count(n) { return Math.round(n) + " " + M.event; }
  var FLAME_PER_SECOND = M.event ? 1 : 1e6;
  function nice3(s) { // seconds with three significant digits and a unit that fits
    if (M.event) return s === 0 ? "0" : s.toPrecision(3) + " " + M.event;
    if (s === 0) return "0";
    var units = [[1, " s"], [1e-3, " ms"], [1e-6, " \u00b5s"], [1e-9, " ns"]];
    for (var i = 0; i < units.length; i++) {
      if (s >= units[i][0] || i === units.length - 1) return (s / units[i][0]).toPrecision(3) + units[i][1];
    }
  }
  function nice(s) { // seconds, with a unit that fits
    if (M.event) return count(s);
    if (s >= 1) return s.toFixed(2) + " s";
    if (s >= 0.001) return (s * 1000).toFixed(2) + " ms";
    return (s * 1e6).toFixed(0) + " \u00b5s";
  }
  function share(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(2) + "%" : "0.00%"; }
  function calls(f) { return (f.calls || 0) + (f.rc || 0); }
  function cycTag(n) { return n === undefined || n === null ? "" : " <cycle " + n + ">"; }
  function fnLink(id) {
    var f = F[id];
    return "<a class=\"fn" + (f.stub ? " stub" : "") + "\" href=\"#f" + f.i + "\" data-fn=\"" + id + "\">" +
      esc(f.n + cycTag(f.cyc)) + " [" + f.i + "]</a>";
  }
  function cycLink(n) {
    return "<a class=\"fn cyc\" href=\"#c" + n + "\" data-cycle=\"" + n + "\">&lt;cycle " + n +
      " as a whole&gt;" + (CYC[n] ? " [" + CYC[n].index + "]" : "") + "</a>";
  }

  // ---- header
  function header() {
    var h = [];
    h.push("<h1>" + esc(M.command || M.program || "profile") + "</h1>");
    // perf.data alone: measured stacks, no call counted (NOCALLS); its
    // texts speak of samples and caller-callee pairs, not of calls and arcs
    var facts = NOCALLS ? [
      ["command", M.command], ["program", M.program], ["profile files", (M.files || []).join(", ")],
      ["total time", nice(M.total_time)], ["samples", fix(M.samples, 0)],
      ["sample period", "mean " + nice(M.sample_period) + " (" + M.hz + " Hz)"],
      ["functions", M.listed + " with samples, of " + M.functions],
      ["caller-callee pairs", M.arc_count], ["cycles", M.cycle_count]
    ].filter(function (p) { return p[1] !== undefined && p[1] !== null; }) : [
      ["program", M.program], ["profile files", (M.files || []).join(", ")],
      ["total time", nice(M.total_time)], ["call-graph time", nice(M.print_time)],
      ["samples", fix(M.samples, M.samples % 1 === 0 ? 0 : 1)],
      ["sample period", (M.measured ? "mean " : "") + nice(M.sample_period) + " (" + M.hz + " Hz)"],
      ["functions", M.listed + " with time or calls, of " + M.functions],
      ["arcs", M.arc_count], ["cycles", M.cycle_count]
    ];
    h.push("<dl class=\"facts\">" + facts.map(function (p) {
      return "<div><dt>" + esc(p[0]) + "</dt><dd>" + esc(p[1]) + "</dd></div>";
    }).join("") + "</dl>");
    if (D.view) {
      h.push("<p class=\"view\" id=\"view\">This page shows a view: <b>" + esc(D.view.description) +
        "</b>. It holds " + nice(D.view.total_time) + " of the profile's " + nice(D.view.base_time) +
        " (" + share(D.view.total_time, D.view.base_time) + ").</p>");
    }
    if (M.left > 0 || M.arcs_left > 0) {
      var l = [];
      if (M.left > 0) l.push(M.left + " functions with " + (NOCALLS ? "samples" : "time or calls") + " (" + nice(M.left_self) +
        " of self time, " + share(M.left_self, M.total_time) + ") are not embedded: only the " +
        M.max_functions + " with the most total time and their heaviest call paths are");
      if (M.arcs_left > 0) l.push(M.arcs_left + (NOCALLS ? " caller-callee pairs" : " arcs") + " are not shown (at most " + M.max_arcs +
        " callers and " + M.max_arcs + " callees per function, the heaviest)");
      h.push("<p class=\"left\" id=\"left-out\">Left out to keep this page small: " + l.join("; ") +
        ". Raise the caps (max_functions, max_arcs) or use a view to see them.</p>");
    }
    if (D.findings && D.findings.length) {
      h.push("<h2>lgprof doctor</h2><ul class=\"findings\" id=\"findings\">" + D.findings.map(function (f) {
        return "<li class=\"" + esc(f.severity) + "\"><code>" + esc(f.id) + "</code> (" + esc(f.severity) +
          "): " + esc(f.message) + (f.advice ? "<br><span class=\"note\">" + esc(f.advice) + "</span>" : "") + "</li>";
      }).join("") + "</ul>");
    } else if (D.findings) {
      h.push("<p class=\"note\" id=\"findings\">lgprof doctor: no finding.</p>");
    } else if (D.doctor_error) {
      h.push("<p class=\"note\" id=\"findings\">lgprof doctor failed: " + esc(D.doctor_error) + "</p>");
    }
    $("head").innerHTML = h.join("");
  }

  // ---- search: "text" (case-insensitive) or "/regex/flags"
  var matcher = null;
  function makeMatcher(q) {
    if (!q) return null;
    var m = /^\/(.*)\/([a-z]*)$/.exec(q);
    if (m) {
      try { var re = new RegExp(m[1], m[2]); return function (s) { return re.test(s); }; }
      catch (e) { return function () { return false; }; }
    }
    q = q.toLowerCase();
    return function (s) { return s.toLowerCase().indexOf(q) >= 0; };
  }

  // ---- flat profile
  var COLS = [
    { k: "pct", t: "% time", v: function (f) { return f.pct; }, s: function (f) { return fix(f.pct, 2); } },
    { k: "self", t: "self s", v: function (f) { return f.self; }, s: function (f) { return sec(f.self); } },
    { k: "err", t: "\u00b1 s", v: function (f) { return f.err; }, s: function (f) { return sec(f.err); },
      h: "sampling error of the self time: sqrt(samples) \u00d7 sample period (perf.data: their mean period)" },
    { k: "smp", t: "samples", v: function (f) { return f.smp; }, s: function (f) { return fix(f.smp, f.smp % 1 === 0 ? 0 : 1); } },
    { k: "tot", t: "total s", v: function (f) { return f.tot; }, s: function (f) { return sec(f.tot); },
      h: NOCALLS ? "seconds of the samples with the function on their stack (measured)"
        : "self + children in the call graph (children estimated from arcs)" },
    { k: "calls", t: "calls", v: calls, s: function (f) { var c = calls(f); return c > 0 ? String(c) : ""; } },
    { k: "spc", t: "self/call", v: function (f) { return calls(f) > 0 ? f.self / calls(f) : -1; },
      s: function (f) { return perCall(f.self, calls(f)); } },
    { k: "tpc", t: "total/call", v: function (f) { return calls(f) > 0 ? f.tot / calls(f) : -1; },
      s: function (f) { return perCall(f.tot, calls(f)); } },
    { k: "name", t: "name", v: function (f) { return f.n; },
      s: function (f) { return esc(f.n + cycTag(f.cyc)) + " [" + f.i + "]"; } }
  ];
  if (NOCALLS) COLS = COLS.filter(function (c) { return ["calls", "spc", "tpc"].indexOf(c.k) < 0; });
  var rows = [], sortKey = "self", sortDir = -1, selected = -1;
  // the table draws its first FLAT_FIRST rows until asked for all: the
  // browser's layout of thousands of rows is most of a redraw's time
  var FLAT_FIRST = 200, flatAll = false;
  F.forEach(function (f, id) { if (!f.stub) rows.push(id); });
  function sortRows() {
    var col = COLS.filter(function (c) { return c.k === sortKey; })[0];
    rows.sort(function (a, b) {
      var x = col.v(F[a]), y = col.v(F[b]);
      if (x < y) return -sortDir;
      if (x > y) return sortDir;
      if (F[a].tot !== F[b].tot) return F[b].tot - F[a].tot;
      return F[a].i - F[b].i;
    });
  }
  function flatHead() {
    $("flat").tHead.innerHTML = "<tr role=\"row\">" + COLS.map(function (c) {
      var cls = c.k + (c.k === sortKey ? (sortDir < 0 ? " sorted-desc" : " sorted-asc") : "");
      var sorted = c.k === sortKey ? " aria-sort=\"" + (sortDir < 0 ? "descending" : "ascending") + "\"" : "";
      return "<th role=\"columnheader\"" + sorted + " data-k=\"" + c.k + "\" class=\"" + cls + "\"" +
        (c.h ? " title=\"" + esc(c.h) + "\"" : "") + ">" +
        esc(c.t) + "</th>";
    }).join("") + "</tr>";
  }
  function flatBody() {
    var html = [], shown = 0, wide = {};
    // (each column as wide as its longest text, in digits' widths: its
    // header's, with room for the sort's arrow, or its widest value)
    COLS.forEach(function (c) { wide[c.k] = c.t.length + (c.k === sortKey ? 2 : 0); });
    rows.forEach(function (id) {
      var f = F[id];
      if (matcher && !matcher(f.n)) return;
      if (++shown > FLAT_FIRST && !flatAll) return;
      var cls = (f.smp < 10 && f.self > 0 ? "noisy" : "") + (id === selected ? " sel" : "");
      html.push("<tr role=\"row\" data-fn=\"" + id + "\" class=\"" + cls + "\"" +
        (f.smp < 10 && f.self > 0 ? " title=\"fewer than 10 samples: the self time is mostly noise\"" : "") + ">" +
        COLS.map(function (c) {
          var text = c.s(f);
          if (text.length > wide[c.k]) wide[c.k] = text.length;
          return "<td role=\"cell\" class=\"" + c.k + "\">" + text + "</td>";
        }).join("") + "</tr>");
    });
    COLS.forEach(function (c) {
      if (c.k !== "name") $("flat").style.setProperty("--w-" + c.k, "calc(" + wide[c.k] + "ch + 12px)");
    });
    $("flat").tBodies[0].innerHTML = html.join("");
    var more = $("flat-more");
    more.hidden = flatAll || shown <= FLAT_FIRST;
    more.firstChild.textContent = "Show all " + shown + " rows (the first " + FLAT_FIRST + " are drawn)";
    $("flat-note").textContent = shown + " of " + rows.length + " embedded functions" +
      (matcher ? " match the search" : "") + ". Self time is sampled (\u00b1: one standard error; " +
      "rows in italics have fewer than 10 samples); " + (NOCALLS
      ? "total time is measured: the samples whose recorded stack holds the function. "
      : M.measured ? "total time is measured from the recorded stacks; call counts are gmon.out's. "
      : "calls are exact; total time is estimated from arcs " +
      "(gprof's model: every call of a function costs the same). ") + "Click a column to sort, a row for its call graph.";
  }
  $("flat").tHead.addEventListener("click", function (e) {
    var th = e.target.closest("th");
    if (!th) return;
    var k = th.getAttribute("data-k");
    if (k === sortKey) sortDir = -sortDir; else { sortKey = k; sortDir = k === "name" ? 1 : -1; }
    sortRows(); flatHead(); flatBody();
  });
  $("flat-more").addEventListener("click", function () { flatAll = true; flatBody(); });
  $("flat").tBodies[0].addEventListener("click", function (e) {
    var tr = e.target.closest("tr");
    if (tr) go("f" + F[+tr.getAttribute("data-fn")].i);
  });

  // ---- flame graph (icicle) of the estimated stacks
  var nodes = D.frames.map(function (r, k) {
    return { k: k, parent: r[0], kind: r[1], ref: r[2], v: r[3], self: r[4], children: [], x0: 0, depth: 0 };
  });
  nodes.forEach(function (n) { if (n.parent >= 0) nodes[n.parent].children.push(n); });
  nodes.forEach(function (n) { // preorder: a parent comes before its children
    var x = n.x0;
    n.children.forEach(function (c) { c.x0 = x; c.depth = n.depth + 1; x += c.v; });
  });
  function nodeName(n) {
    if (n.kind === 0) return F[n.ref].n;
    if (n.kind === 1) return "<cycle " + n.ref + ">";
    return D.labels[n.ref];
  }
  var zoom = nodes[+START.zoom] || nodes[0] || null; // the fragment's zoom=K
  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function colour(n) {
    if (n.kind === 1) return "rgb(177,140,217)";
    if (n.kind === 2) return "rgb(200,200,200)";
    var h = hash(nodeName(n)), v1 = (h & 255) / 255, v2 = ((h >>> 8) & 255) / 255, v3 = ((h >>> 16) & 255) / 255;
    return "rgb(" + (205 + Math.round(50 * v3)) + "," + Math.round(230 * v1) + "," + Math.round(55 * v2) + ")";
  }
  var ROW = 18;
  function flame() {
    var box = $("flame");
    if (!zoom) { box.innerHTML = "<p class=\"note\">No stacks: the profile has no time in its call graph.</p>"; return; }
    // (the width a redraw of the page's parts hands over, read before
    // they were replaced: the box's own width, read here, would lay out the
    // half-drawn page once more before its frame)
    var given = +box.getAttribute("data-width");
    if (given) box.removeAttribute("data-width");
    var W = Math.max(given || box.clientWidth, 300), scale = zoom.v > 0 ? W / zoom.v : 0;
    var out = [], maxDepth = 0, anc = [];
    for (var a = zoom; a; a = a.parent >= 0 ? nodes[a.parent] : null) anc.push(a);
    function frame(n, x, w, dim) {
      var name = nodeName(n), y = n.depth * ROW, label = "";
      var fits = Math.floor((w - 6) / 7);
      if (fits >= 3) label = name.length <= fits ? name : name.slice(0, fits - 1) + "\u2026";
      var m = matcher && n.kind !== 2 && matcher(name);
      out.push("<g class=\"fr" + (m ? " match" : "") + (dim ? " out" : "") + "\" data-node=\"" + n.k + "\">" +
        "<title>" + esc(name) + "\n" + nice(n.v / FLAME_PER_SECOND) + ", " + share(n.v, nodes[0].v) + " of all, self " +
        nice(n.self / FLAME_PER_SECOND) + (n.kind === 1 ? "\n(a cycle: its members' time, as one frame)" : "") + "</title>" +
        "<rect x=\"" + x.toFixed(1) + "\" y=\"" + y + "\" width=\"" + w.toFixed(1) + "\" height=\"" + (ROW - 1) +
        "\" fill=\"" + colour(n) + "\"></rect>" +
        (label ? "<text x=\"" + (x + 3).toFixed(1) + "\" y=\"" + (y + 13) + "\">" + esc(label) + "</text>" : "") + "</g>");
      if (n.depth > maxDepth) maxDepth = n.depth;
    }
    for (var i = anc.length - 1; i > 0; i--) frame(anc[i], 0, W, true);
    var stack = [zoom];
    while (stack.length) {
      var n = stack.pop(), w = n.v * scale;
      if (w < 0.5) continue;
      frame(n, (n.x0 - zoom.x0) * scale, w, false);
      for (var c = n.children.length - 1; c >= 0; c--) stack.push(n.children[c]);
    }
    var H = (maxDepth + 1) * ROW;
    box.innerHTML = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + W + "\" height=\"" + H +
      "\" viewBox=\"0 0 " + W + " " + H + "\">" + out.join("") + "</svg>";
    $("flame-path").textContent = zoom === nodes[0] ? "" :
      "zoomed on " + anc.slice().reverse().map(nodeName).join(" \u2192 ") + " (" + share(zoom.v, nodes[0].v) + ")";
  }
  $("flame").addEventListener("click", function (e) {
    var g = e.target.closest("g.fr");
    if (!g) return;
    var n = nodes[+g.getAttribute("data-node")];
    zoom = n;
    if (STATE) STATE.replace({ zoom: n.k ? String(n.k) : "" });
    flame();
    if (n.kind === 0) go("f" + F[n.ref].i); else if (n.kind === 1) go("c" + n.ref);
  });
  $("flame-reset").addEventListener("click", function () {
    zoom = nodes[0] || null;
    if (STATE) STATE.replace({ zoom: "" });
    flame();
  });
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    if (!live()) return;
    clearTimeout(resizeTimer);
    // (checked again when it fires: a drawing that replaced this one in
    // the meantime, a thread's or a selection's, keeps its flame graph)
    resizeTimer = setTimeout(function () { if (live()) flame(); }, 100);
  });
  $("flame-note").textContent = (M.measured
    ? "These stacks are the ones perf.data recorded (measured). Width is time. Subtrees under "
    : "gmon.out records arcs (caller \u2192 callee with a count), not stacks: these " +
    "stacks are estimated from the arcs with gprof's model (each function's time is split among its callers " +
    "by their calls), so two stacks that look alike may never have happened. Width is time; a cycle is one " +
    "frame <cycle N> (its members' self time below it). Subtrees under ") + (100 * M.min_weight).toFixed(2) +
    "% of the time, or deeper than " + M.max_depth + " frames, stay with their top frame. Click a frame to zoom " +
    "and see its call graph; search highlights frames. Total: " + nice(M.flame_total / FLAME_PER_SECOND) + ".";

  // ---- call-graph panel, as gprof's entry
  function row(cls, cells, id) {
    return "<tr class=\"" + cls + "\"" + (id !== undefined ? " data-fn=\"" + id + "\"" : "") + ">" +
      cells.map(function (c, i) { return "<td" + (i === cells.length - 1 ? " class=\"name\"" : "") + ">" + c + "</td>"; }).join("") + "</tr>";
  }
  var HEAD = "<thead><tr><th>index</th><th>% time</th><th>self</th><th>children</th><th>" +
    (NOCALLS ? "" : "called") + "</th>" +
    "<th class=\"name\">name</th></tr></thead>";
  function arcRows(list, cls, far, self) {
    var html = [];
    list.forEach(function (a) {
      var id = a[0], flags = a[4], g = F[id];
      if (flags & 1) return; // recursive: counted on the primary line
      var called = M.measured ? "" : String(a[3]); // perf.data: calls were not recorded
      if (!(flags & 2) && !M.measured) {
        var total = cls === "caller" ? self.calls : (g.stub ? null : g.calls);
        if (total !== null && total !== undefined) called += "/" + total;
      }
      var inCycle = flags & 2, tag = (flags & 4) ? " <span class=\"note\">(static)</span>" : "";
      html.push(row(cls, ["", "", inCycle ? "" : sec(a[1]), inCycle ? "" : sec(a[2]), called, fnLink(id) + tag], id));
    });
    return html.join("");
  }
  function showFunction(id) {
    var f = F[id], h = [];
    if (!f) return;
    h.push("<h3 id=\"panel-title\">" + esc(f.n) + " [" + f.i + "]</h3>");
    if (f.stub) {
      h.push("<p class=\"note\">This function is not embedded (below the cap of " + M.max_functions +
        " functions): make the report with a larger max_functions, or a view that keeps it.</p>");
      $("panel").innerHTML = h.join("");
      return;
    }
    var where = [];
    if (f.file) where.push(esc(f.file) + (f.line ? ":" + f.line : ""));
    if (f["static"]) where.push("static");
    if (f.cyc !== undefined && f.cyc !== null) where.push("member of " + cycLink(f.cyc));
    h.push("<p class=\"note\">" + where.join(" \u00b7 ") + (where.length ? "<br>" : "") +
      "self " + nice(f.self) + " \u00b1 " + nice(f.err) + " (" + fix(f.smp, f.smp % 1 === 0 ? 0 : 1) +
      " samples), total " + nice(f.tot) + (M.measured ? "" : ", " + calls(f) + " calls") +
      (f.rc ? " (" + f.rc + " recursive)" : "") +
      (calls(f) > 0 ? ", " + perCall(f.tot, calls(f)) + " per call" : "") + "</p>");
    h.push("<table class=\"cg\">" + HEAD + "<tbody>");
    var callers = arcRows(f["in"], "caller", "caller", f);
    if (!callers && f["in"].length === 0) h.push(row("caller spont", ["", "", "", "", "", "&lt;spontaneous&gt;"]));
    h.push(callers);
    if (f.more[0] > 0) h.push(row("sep", ["", "", "", "", "", f.more[0] + " lighter callers not embedded"]));
    var calledText = M.measured ? "" : String(f.calls) + (f.rc ? "+" + f.rc : "");
    h.push(row("primary", ["[" + f.i + "]", fix(f.gpct, 1), sec(f.gself), sec(f.ch), calledText,
      esc(f.n + cycTag(f.cyc)) + " [" + f.i + "]"], id));
    h.push(arcRows(f.out, "callee", "callee", f));
    if (f.more[1] > 0) h.push(row("sep", ["", "", "", "", "", f.more[1] + " lighter callees not embedded"]));
    h.push("</tbody></table><p class=\"note\">Callers above, callees below, as gprof's call graph: self and " +
      (NOCALLS ? "children are the time of the recorded stacks that go from the caller to the callee (measured); " +
      "a sampler counts no call. Caller-callee pairs inside a cycle carry no time.</p>"
      : (M.measured ? "children are the time of the recorded stacks through each arc (measured); calls are " +
      "gmon.out's. " : "children are the time propagated along each arc (estimated: split by calls), called is " +
      "calls along the arc / all calls of the callee. ") + "Arcs inside a cycle carry no time.</p>"));
    $("panel").innerHTML = h.join("");
  }
  function showCycle(n) {
    var c = CYC[n], h = [];
    if (!c) return;
    h.push("<h3 id=\"panel-title\">&lt;cycle " + n + " as a whole&gt; [" + c.index + "]</h3>");
    h.push("<p class=\"note\">A cycle: functions that call each other (directly or not). " + (NOCALLS
      ? "Its members are shown as one entry, as gprof's call graph does: self " + nice(c.self) + ", total " +
        nice(c.total) + ".</p>"
      : "gprof propagates no " +
      "time inside a cycle, so its members are shown as one entry: self " + nice(c.self) + ", total " + nice(c.total) +
      ", " + c.calls + " calls from outside, " + c.internal_calls + " between members.</p>"));
    h.push("<table class=\"cg\">" + HEAD + "<tbody>");
    c.callers.forEach(function (a) {
      h.push(row("caller", ["", "", sec(a[1]), sec(a[2]), String(a[3]), fnLink(a[0]) + " \u2192 " + esc(F[a[4]].n)], a[0]));
    });
    if (c.callers_left > 0) h.push(row("sep", ["", "", "", "", "", c.callers_left + " lighter callers not embedded"]));
    h.push(row("primary", ["[" + c.index + "]", fix(c.percent, 1), sec(c.self), sec(c.children),
      NOCALLS ? "" : c.calls + (c.internal_calls ? "+" + c.internal_calls : ""), "&lt;cycle " + n + " as a whole&gt;"]));
    c.members.forEach(function (m) {
      var g = F[m[0]];
      h.push(row("member", ["", "", g.stub ? "" : sec(g.gself), g.stub ? "" : sec(g.ch),
        NOCALLS ? "" : g.stub ? String(m[1]) : calls(g) + "", fnLink(m[0])], m[0]));
    });
    if (c.members_left > 0) h.push(row("sep", ["", "", "", "", "", c.members_left + " more members not embedded"]));
    h.push("</tbody></table>");
    $("panel").innerHTML = h.join("");
  }
  function go(where) { // the selection is the fragment's item f12 or c3 (lgprofState)
    if (!STATE) { if (location.hash === "#" + where) show(); else location.hash = where; return; }
    if (STATE.get().sel === where) show(); else STATE.set({ sel: where, line: null }); // (line: the disassembly panel's)
  }
  function show() {
    var m = /^([fc])(\d+)$/.exec(STATE ? STATE.get().sel || "" : location.hash.slice(1));
    if (!m) return;
    var k = +m[2];
    if (m[1] === "f") {
      k = AT[k];
      if (k === undefined) return;
      selected = k;
      showFunction(k);
      var old = document.querySelector("#flat tr.sel");
      if (old) old.classList.remove("sel");
      var tr = document.querySelector("#flat tr[data-fn=\"" + k + "\"]");
      if (tr) tr.classList.add("sel");
    } else {
      showCycle(k);
    }
  }
  window.addEventListener("hashchange", function () { if (live()) show(); });
  $("panel").addEventListener("click", function (e) {
    var a = e.target.closest("a.fn");
    if (!a) return;
    e.preventDefault();
    go(a.getAttribute("href").slice(1));
  });

  // ---- cycles
  function cycles() {
    if (!D.cycles.length) {
      $("cycles").innerHTML = "<p class=\"note\">No cycles: " + (NOCALLS ? "no recorded stack comes back to a function " +
        "through others" : "no function calls itself back through others") + ".</p>";
      return;
    }
    $("cycles").innerHTML = D.cycles.map(function (c) {
      return "<div class=\"cycle\" data-cycle=\"" + c.number + "\">" + cycLink(c.number) + ": total " + nice(c.total) +
        " (" + fix(c.percent, 1) + "%), self " + nice(c.self) + (NOCALLS ? ", " : ", " + c.calls + " calls from outside, " +
        c.internal_calls + " between ") + "its " + (c.members.length + c.members_left) + " members:<ul>" +
        c.members.map(function (m) {
          return "<li>" + fnLink(m[0]) + (NOCALLS ? "" : " (" + m[1] + " calls from members)") + "</li>";
        }).join("") +
        (c.members_left ? "<li>\u2026 " + c.members_left + " more</li>" : "") + "</ul></div>";
    }).join("");
    $("cycles").addEventListener("click", function (e) {
      var a = e.target.closest("a.fn");
      if (!a) return;
      e.preventDefault();
      go(a.getAttribute("href").slice(1));
      $("panel-sec").scrollIntoView();
    });
  }

  // ---- search box
  var searchTimer = null;
  $("search").addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () {
      if (!live()) return; // (redrawn since: the new drawing reads the box)
      if (STATE) STATE.replace({ q: $("search").value });
      matcher = makeMatcher($("search").value);
      flatBody();
      flame();
      if (!matcher) { $("matches").textContent = ""; return; }
      var hit = 0, cover = 0;
      F.forEach(function (f) { if (!f.stub && matcher(f.n)) hit++; });
      var stack = nodes.length ? [nodes[0]] : [];
      while (stack.length) { // the time under matched frames, each counted once
        var n = stack.pop();
        if (n.kind !== 2 && matcher(nodeName(n))) { cover += n.v; continue; }
        for (var i = 0; i < n.children.length; i++) stack.push(n.children[i]);
      }
      $("matches").textContent = hit + " functions match; matched frames hold " +
        share(cover, nodes.length ? nodes[0].v : 0) + " of the flame graph";
    }, 120);
  });

  if (START.q) { $("search").value = START.q; matcher = makeMatcher(START.q); } // the fragment's q=
  header();
  sortRows(); flatHead(); flatBody();
  flame();
  cycles();
  $("foot").textContent = "Written by " + M.generator + (M.measured
    ? ". Samples are stacks recorded in perf.data" + (M.command ? " of " + M.command : "") +
      ": self, total, caller-callee times and stacks are measured (sampled: " +
      "\u00b1 is sqrt(samples) \u00d7 sample period); " +
      (M.counted ? "calls are counted by gmon.out." : "a sampler counts no call.")
    : ". Self time and samples come from the histogram " +
    "(sampled: \u00b1 is sqrt(samples) \u00d7 sample period); call counts are exact; children, total time, " +
    "arc times and stacks are gprof's estimates from arcs.");
  if (location.hash) show();
  if (START.q) $("search").dispatchEvent(new Event("input")); // its count of matches
  window.lgprofReady = true;
})();
]==]

return assets
