--- lgprof.format.diffpage_assets: the comparison page's own CSS (beside the
-- report page's, lgprof.format.html_assets.css), body and JavaScript
-- (lgprof.format.diffhtml inlines them). Hand-written ES5, no library; it
-- reads only the page's JSON data (#lgprof-diff-data).
local assets = {}

assets.css = [==[
#dflame { width: 100%; overflow: hidden; border: 1px solid var(--line); }
#dflame svg { display: block; font: 12px ui-monospace, Menlo, Consolas, monospace; }
#dflame g.fr { cursor: pointer; }
#dflame rect { stroke: #fff; stroke-width: 0.5; }
#dflame g.fr:hover rect { stroke: #000; }
#dflame g.st-new rect { stroke: #000; stroke-width: 1.5; stroke-dasharray: 4 2; }
#dflame g.st-gone rect { stroke: #000; stroke-width: 1.5; stroke-dasharray: 1 2; }
#dflame g.match rect { fill: var(--match); }
#dflame g.above rect { opacity: 0.5; }
#dflame text { pointer-events: none; fill: #000; }
.legend span.sw { display: inline-block; width: 2em; height: 0.9em; vertical-align: middle; margin: 0 4px 0 12px; }
.estimate { border-left: 4px solid var(--warn); background: #fdf6ec; padding: 4px 8px; margin: 8px 0; }
#dtable td.name, #dtable th.name { min-width: 14em; }
#sides td.name { min-width: 7em; }
#dtable tbody tr { cursor: pointer; }
#dtable tbody tr:hover { background: #eef4fb; }
#dtable tbody tr.sel { background: #dbe8f8; }
td.grew { color: #b3261e; } td.shrank { color: #1a5fb4; }
#sides { display: flex; gap: 12px; }
#sides > div { flex: 1 1 0; min-width: 0; }
#sides table th { cursor: default; }
#sides tr.primary { background: #dbe8f8; font-weight: 600; }
#sides tr.sep td { background: var(--alt); color: var(--muted); text-align: left; font-size: 12px; }
]==]

assets.body = [==[
<header id="head"><noscript><p>This page draws itself with JavaScript: enable it to see the comparison.</p></noscript></header>
<div id="toolbar">
  <input id="search" type="search" placeholder="Search functions: text, or /regular expression/" autocomplete="off">
  <label><input id="only-sig" type="checkbox"> only significant changes</label>
  <label><input id="only-newgone" type="checkbox"> only new and gone</label>
  <label>widths: <select id="shape"><option value="new">new profile</option><option value="base">base</option></select></label>
  <span id="matches"></span>
</div>
<section id="flame-sec">
  <h2>Differential flame graph (icicle: callers above callees)</h2>
  <p class="legend" id="legend"></p>
  <p><button id="flame-reset" type="button">Reset zoom</button> <span id="flame-path"></span></p>
  <div id="dflame"></div>
</section>
<div id="main">
  <section id="flat-sec">
    <h2>Changes by function</h2>
    <p class="note" id="table-note"></p>
    <div class="scroll"><table id="dtable"><thead></thead><tbody></tbody></table></div>
  </section>
  <aside id="panel-sec">
    <h2>Base and new, side by side</h2>
    <div id="panel"><p class="note">Click a function (in the table or the flame graph) to see its callers and callees in both profiles.</p></div>
  </aside>
</div>
<footer id="foot"></footer>
]==]

assets.js = [==[
// (a function: the threads and binaries of a perf.data's comparison,
// lgprof.format.diffgroups, run it again on a group's data)
window.lgprofDiffMain = function () {
  "use strict";
  var D = JSON.parse(document.getElementById("lgprof-diff-data").textContent);
  var M = D.meta, F = D.fns, FR = D.frames;
  var conf = M.confidence, pc = (Math.round(conf * 1000) / 10) + "%";
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (attrs.hasOwnProperty(k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function t(v) {
    if (v === null || v === undefined) return "";
    if (M.unit !== "seconds") return v.toFixed(0) + " " + M.unit;
    var a = Math.abs(v);
    if (a >= 1) return v.toFixed(3) + " s";
    if (a >= 1e-3) return (v * 1e3).toFixed(3) + " ms";
    return (v * 1e6).toFixed(0) + " \u00b5s";
  }
  function sg(v) { return (v > 0 ? "+" : v < 0 ? "-" : "+") + t(Math.abs(v)); }
  // the state, in the URL fragment: f (function), z (zoomed frame), s (search),
  // sig, ng (filters), sort (column, "-" for descending), shape; thread,
  // dso (the group whose data is drawn: lgprof.format.diffgroups)
  var S = {};
  function readState() {
    S = {};
    location.hash.slice(1).split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) S[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    });
  }
  function keep() {
    var parts = [];
    ["dso", "f", "ng", "s", "shape", "sig", "sort", "thread", "z"].forEach(function (k) {
      if (S[k] !== undefined && S[k] !== "") parts.push(k + "=" + encodeURIComponent(S[k]));
    });
    try { history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname); } catch (e) {}
  }
  readState();

  // header
  var head = $("head");
  head.appendChild(el("h1", {}, M.title));
  if (M.group) head.appendChild(el("p", { "class": "note", id: "group-title" }, "Only " +
    (M.group.kind === "thread" ? "the threads named " + M.group.key : "the samples whose leaf is in " + M.group.key) + "."));
  var runs = M.base_runs > 1 ? " (mean of " + M.base_runs + " runs)" : "";
  head.appendChild(el("p", { "class": "note" }, "Base " + t(M.base_total) + runs + ", new " + t(M.new_total) +
    ", change " + sg(M.new_total - M.base_total) + ". " + M.functions + " functions compared" +
    (M.listed < M.functions ? " (the " + M.listed + " largest changes listed)" : "") + "."));
  head.appendChild(el("p", { "class": M.gmon ? "estimate" : "note", id: "stacks-note" }, M.gmon
    ? "gmon.out records no stacks: the flame graph's frames are gprof's estimate (each function's time split over its callers by calls), and so are their changes. The table's functions are measured."
    : "The stacks are the ones recorded in perf.data (measured)."));
  D.ambiguous.forEach(function (a) {
    head.appendChild(el("p", { "class": "estimate ambiguous" }, "Not matched, ambiguous: " + a.origin +
      " has several clones (" + a.functions.join(", ") + "); they are shown apart rather than guessed."));
  });
  var lg = $("legend");
  [["rgb(255,110,110)", "red: self time grew significantly (deeper: larger change)"],
   ["rgb(110,110,255)", "blue: self time shrank significantly"],
   ["rgb(204,204,204)", conf > 0 ? "grey: the change of self time is within the noise at " + pc + " confidence (or there is no self time)" : "grey: no change of self time"]
  ].forEach(function (l) {
    var s = el("span", { "class": "sw" }); s.style.background = l[0];
    lg.appendChild(s); lg.appendChild(document.createTextNode(l[1]));
  });
  lg.appendChild(document.createTextNode(". Dashed outline: a function new in the new build; dotted: gone from it. Widths: the time of the profile chosen above."));

  // the frames' tree
  var kids = FR.map(function () { return []; });
  FR.forEach(function (f, i) { if (f[1] >= 0) kids[f[1]].push(i); });
  function width(i) { return S.shape === "base" ? FR[i][2] : FR[i][3]; }
  function tip(i) {
    var f = FR[i], s = f[0];
    if (f[1] < 0) return s + ": base " + t(f[2]) + ", new " + t(f[3]);
    s += "\nself: base " + t(f[4]) + ", new " + t(f[5]) + ", change " + sg(f[5] - f[4]);
    if (conf > 0) s += " \u00b1 " + t(f[6]);
    if (f[4] > 0) s += ", " + (100 * (f[5] - f[4]) / f[4] >= 0 ? "+" : "") + (100 * (f[5] - f[4]) / f[4]).toFixed(1) + "%";
    if (conf > 0) s += (f[8] === "same" ? ", within the noise at " : ", significant at ") + pc + ", p = " + f[7].toPrecision(3);
    s += "\ntotal: base " + t(f[2]) + ", new " + t(f[3]);
    if (f[9] !== "common") s += "\n" + f[9] + " function";
    return s;
  }
  var NS = "http://www.w3.org/2000/svg", FH = 17;
  var searchRe = null;
  function matches(name) { return searchRe !== null && searchRe.test(name); }
  function drawFlame() {
    var box = $("dflame"), W = Math.max(300, box.clientWidth || 1000);
    var z = S.z !== undefined && FR[+S.z] ? +S.z : 0;
    var path = [], a = FR[z][1];
    while (a >= 0) { path.unshift(a); a = FR[a][1]; }
    var rows = [], maxd = 0;
    // the ancestors of the zoomed frame across the top, then its subtree
    path.forEach(function (p, d) { rows.push([p, d, 0, W, true]); });
    var base = path.length, total = width(z), k = total > 0 ? W / total : 0;
    var todo = [[z, base, 0]];
    while (todo.length) {
      var it = todo.pop(), i = it[0], d = it[1], x = it[2], w = width(i) * k;
      if (w < 0.5 && i !== z) continue;
      rows.push([i, d, x, w, false]);
      if (d > maxd) maxd = d;
      var at = x;
      kids[i].forEach(function (c) { todo.push([c, d + 1, at]); at += width(c) * k; });
    }
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("width", W); svg.setAttribute("height", (Math.max(maxd, base) + 1) * FH + 2);
    var hits = 0;
    rows.forEach(function (r) {
      var i = r[0], f = FR[i];
      var g = document.createElementNS(NS, "g");
      var cls = "fr" + (f[9] !== "common" ? " st-" + f[9] : "") + (r[4] ? " above" : "");
      if (matches(f[0])) { cls += " match"; hits++; }
      g.setAttribute("class", cls);
      g.setAttribute("data-i", i); g.setAttribute("data-change", f[8]); g.setAttribute("data-status", f[9]);
      var ti = document.createElementNS(NS, "title"); ti.textContent = tip(i); g.appendChild(ti);
      var rc = document.createElementNS(NS, "rect");
      rc.setAttribute("x", r[2].toFixed(2)); rc.setAttribute("y", r[1] * FH);
      rc.setAttribute("width", Math.max(0, r[3]).toFixed(2)); rc.setAttribute("height", FH - 1);
      rc.setAttribute("fill", f[10]);
      g.appendChild(rc);
      var n = Math.floor((r[3] - 6) / 7.2);
      if (n >= 3) {
        var tx = document.createElementNS(NS, "text");
        tx.setAttribute("x", (r[2] + 3).toFixed(2)); tx.setAttribute("y", r[1] * FH + FH - 5);
        tx.textContent = f[0].length <= n ? f[0] : f[0].slice(0, n - 2) + "..";
        g.appendChild(tx);
      }
      g.addEventListener("click", function () {
        S.z = i === 0 ? undefined : String(i);
        if (f[11] >= 0) S.f = String(f[11]);
        keep(); drawAll();
      });
      svg.appendChild(g);
    });
    box.textContent = ""; box.appendChild(svg);
    $("flame-path").textContent = z ? path.concat([z]).map(function (p) { return FR[p][0]; }).join(" \u2192 ") : "";
    return hits;
  }
  $("flame-reset").addEventListener("click", function () { delete S.z; keep(); drawAll(); });

  // the table
  var COLS = [
    ["name", "function"], ["status", "status"], ["sb", "self base"], ["sn", "self new"],
    ["sd", "self change"], ["sh", "\u00b1"], ["sp", "p"], ["tb", "total base"], ["tn", "total new"],
    ["td", "total change"], ["th", "\u00b1"]];
  if (M.calls) COLS.push(["cb", "calls base"], ["cn", "calls new"]);
  var TIME = { sb: 1, sn: 1, sh: 1, tb: 1, tn: 1, th: 1 };
  function cell(r, c) {
    var v = r[c];
    if (c === "name") return r.name + (r.base_name ? " \u2190 " + r.base_name : "");
    if (c === "sd") return sg(v) + (conf > 0 && r.ss ? " *" : "");
    if (c === "td") return sg(v) + (conf > 0 && r.ts ? " *" : "");
    if (c === "sp") return conf > 0 ? v.toPrecision(3) : "";
    if (TIME[c]) return t(v);
    if (v === null || v === undefined) return "";
    return String(v);
  }
  function drawTable() {
    var thead = $("dtable").tHead, tbody = $("dtable").tBodies[0];
    thead.textContent = ""; tbody.textContent = "";
    var tr = el("tr");
    var sort = S.sort || "-sd_abs";
    COLS.forEach(function (c) {
      var th = el("th", { "class": c[0] === "name" ? "name" : "", "data-col": c[0] }, c[1]);
      if (sort === c[0]) th.className += " sorted-asc";
      if (sort === "-" + c[0]) th.className += " sorted-desc";
      th.addEventListener("click", function () {
        S.sort = sort === "-" + c[0] ? c[0] : "-" + c[0]; keep(); drawTable();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    var ids = [];
    F.forEach(function (r, i) {
      if (S.sig === "1" && !(r.ss || r.ts)) return;
      if (S.ng === "1" && r.status === "common") return;
      if (searchRe !== null && !searchRe.test(r.name)) return;
      ids.push(i);
    });
    var desc = sort.charAt(0) === "-", col = desc ? sort.slice(1) : sort;
    if (col !== "sd_abs") {
      ids.sort(function (a, b) {
        var x = F[a][col], y = F[b][col];
        if (x === y) return a - b;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * (desc ? -1 : 1);
      });
    }
    ids.forEach(function (i) {
      var r = F[i], row = el("tr", { "data-f": i });
      if (String(i) === S.f) row.className = "sel";
      COLS.forEach(function (c) {
        var td = el("td", { "class": c[0] === "name" ? "name" : "" }, cell(r, c[0]));
        if ((c[0] === "sd" && r.ss) || (c[0] === "td" && r.ts)) td.className = r[c[0]] > 0 ? "grew" : "shrank";
        row.appendChild(td);
      });
      row.addEventListener("click", function () { S.f = String(i); keep(); drawTable(); drawPanel(); });
      tbody.appendChild(row);
    });
    $("table-note").textContent = ids.length + " of " + F.length + " functions shown; * significant at " + pc +
      " (the change's interval \u00b1 leaves out 0). Click a column to sort.";
    return ids.length;
  }

  // base and new side by side for the selected function
  function drawPanel() {
    var p = $("panel"), r = F[+S.f];
    if (S.f === undefined || !r) return;
    p.textContent = "";
    p.appendChild(el("h3", { id: "panel-title" }, r.name));
    p.appendChild(el("p", { "class": "note" }, r.status + (r.status === "common" ? ", matched by " +
      r.matched_by.replace("-", " ") : "") + (r.base_name ? " (in the base: " + r.base_name + ")" : "") +
      ". Self " + sg(r.sd) + (conf > 0 ? " \u00b1 " + t(r.sh) + (r.ss ? ", significant" : ", within the noise") : "") +
      "; total " + sg(r.td) + (conf > 0 ? " \u00b1 " + t(r.th) + (r.ts ? ", significant" : ", within the noise") : "") + "."));
    var sides = el("div", { id: "sides" });
    [["base", 2, 4, "Base" + (M.base_runs > 1 ? " (mean of " + M.base_runs + " runs)" : "")],
     ["new", 3, 5, "New"]].forEach(function (s) {
      var box = el("div", { id: "side-" + s[0] });
      box.appendChild(el("h3", {}, s[3]));
      var tb = el("table"), hr = el("tr");
      ["", "time"].concat(M.calls ? ["calls"] : []).concat(s[0] === "new" ? ["change"] : []).forEach(function (h, j) {
        hr.appendChild(el("th", { "class": j === 0 ? "name" : "" }, h));
      });
      tb.appendChild(hr);
      function line(name, time, calls, change, cls, fid) {
        var tr = el("tr", { "class": cls || "" });
        var td = el("td", { "class": "name" });
        if (fid !== undefined && fid >= 0) {
          var a = el("a", { href: "#", "class": "fn" }, name);
          a.addEventListener("click", function (e) { e.preventDefault(); S.f = String(fid); keep(); drawTable(); drawPanel(); });
          td.appendChild(a);
        } else td.textContent = name;
        tr.appendChild(td);
        tr.appendChild(el("td", {}, t(time)));
        if (M.calls) tr.appendChild(el("td", {}, calls === null || calls === undefined ? "" : String(Math.round(calls * 10) / 10)));
        if (s[0] === "new") tr.appendChild(el("td", {}, change === undefined ? "" : sg(change)));
        tb.appendChild(tr);
      }
      function rel(list, label) {
        var sep = el("tr", { "class": "sep" }); sep.appendChild(el("td", { colspan: 4 }, label));
        tb.appendChild(sep);
        (list || []).forEach(function (a) {
          var name = a[0] >= 0 ? F[a[0]].name : a[1];
          line(name, s[0] === "base" ? a[2] : a[3], s[0] === "base" ? a[4] : a[5], a[3] - a[2], "", a[0]);
        });
      }
      rel(r.callers, "callers");
      line(r.name, s[0] === "base" ? r.tb : r.tn, s[0] === "base" ? r.cb : r.cn, r.td, "primary");
      rel(r.callees, "callees");
      box.appendChild(tb);
      sides.appendChild(box);
    });
    p.appendChild(sides);
  }

  function setSearch(v) {
    searchRe = null;
    if (v) {
      var m = /^\/(.*)\/$/.exec(v);
      try { searchRe = m ? new RegExp(m[1]) : new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"); }
      catch (e) { searchRe = null; }
    }
  }
  function drawAll() {
    setSearch(S.s);
    $("search").value = S.s || "";
    $("only-sig").checked = S.sig === "1";
    $("only-newgone").checked = S.ng === "1";
    $("shape").value = S.shape === "base" ? "base" : "new";
    var hits = drawFlame(), rows = drawTable();
    $("matches").textContent = searchRe ? hits + " frames, " + rows + " functions match" : "";
    drawPanel();
  }
  $("search").addEventListener("input", function () { S.s = this.value; keep(); drawAll(); });
  $("only-sig").addEventListener("change", function () { S.sig = this.checked ? "1" : undefined; keep(); drawAll(); });
  $("only-newgone").addEventListener("change", function () { S.ng = this.checked ? "1" : undefined; keep(); drawAll(); });
  $("shape").addEventListener("change", function () { S.shape = this.value === "base" ? "base" : undefined; delete S.z; keep(); drawAll(); });
  // (the window's listeners once: a later run replaces what they call)
  var H = window.lgprofDiffHooks || (window.lgprofDiffHooks = {});
  H.hash = function () { readState(); drawAll(); };
  H.resize = function () { drawFlame(); };
  if (!H.installed) {
    H.installed = true;
    window.addEventListener("hashchange", function () { if (!(H.group && H.group())) H.hash(); });
    window.addEventListener("resize", function () { H.resize(); });
  }
  $("foot").textContent = M.generator + ". Confidence " + pc + ".";
  drawAll();
  window.lgprofReady = true;
};
]==]

return assets
