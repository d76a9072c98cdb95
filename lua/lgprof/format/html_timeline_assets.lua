--- lgprof.format.html_timeline_assets: the CSS and JavaScript of the HTML
-- report's timeline (data: lgprof.format.html_timeline), run after the
-- page's own script and the threads' and binaries' tables'
-- (lgprof.format.html_groups, whose design it follows: the page is drawn
-- again from data put in the lgprof-data element).
--
-- The timeline: one lane per thread, grouped by process, with its on-CPU
-- samples' density and its off-CPU intervals coloured by why (sleeping S,
-- waiting D, preempted R, blocked S or D); below it a subsecond heat map of
-- the whole recording (as FlameScope draws it: a column per second, or per
-- tenth or hundredth of one in a short recording, 50 rows of its fiftieths,
-- the colour the samples in each). Dragging across the lanes or the heat
-- map selects a time range, clicking a lane its thread; the selection is
-- the fragment's range=FROM,TO (seconds from the first sample, FROM
-- included, TO excluded, as --time-range; a TO at the end includes the last
-- sample) with html_groups' thread= and dso=. Of a range (or a thread or
-- binary without a page of its own) the page recomputes, from the
-- samples' stacks, the flame graph, the flat profile, the call graph and
-- the tables, as lgprof computes them (functions' self and total, the
-- caller-callee pairs of measured stacks, the flame graph's cuts), and
-- shows them as a view; cycles are not recomputed (none are listed).
local M = {}

M.css = [==[
#tl-sec { padding: 0 16px; }
#tl-sec .tl-bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
#tl-lanes, #tl-heat { border: 1px solid var(--line); overflow-x: auto; overflow-y: hidden; }
#tl-lanes canvas, #tl-heat canvas { display: block; cursor: crosshair; will-change: transform; }
#tl-lanes, #tl-heat { position: relative; }
#tl-sec .tl-over { position: absolute; pointer-events: none; display: none; background: rgba(26,95,180,0.15); }
#tl-sec .tl-over.tl-range { border: 1px solid #1a5fb4; }
#tl-sec .tl-over.tl-thread { background: rgba(26,95,180,0.12); }
#tl-sec .tl-over.tl-cells { background: rgba(26,95,180,0.35); }
#tl-legend { display: flex; gap: 12px; flex-wrap: wrap; font-size: 12px; color: var(--muted); }
#tl-legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: middle; }
#tl-sel { font-variant-numeric: tabular-nums; }
/* (the parts below the timeline are laid out and painted only in or near
   the view: a selection draws them all again, and off screen that work was
   most of a redraw's) */
#tl-sec ~ #flame-sec, #tl-sec ~ #main, #tl-sec ~ #cycles-sec {
  content-visibility: auto; contain-intrinsic-size: auto 500px; }
/* (and the threads and binaries tables above it, once the timeline is
   scrolled to the top of the view, where a drag selects: the tables are
   drawn again into the same element) */
#groups-sec { content-visibility: auto; contain-intrinsic-size: auto 460px; }
]==]

M.js = [==[
(function () {
  "use strict";
  var el = document.getElementById("lgprof-timeline");
  if (!el || !window.lgprofState) return;
  var T = JSON.parse(el.textContent), STATE = window.lgprofState;
  var GR = window.lgprofGroups || null;
  var dataEl = document.getElementById("lgprof-data");
  // the text of a selection's page data is written just after the frame
  // that shows the selection (its JSON, 0.4 MB for half of P1's
  // recording, was a tenth of a selection's work before that frame); a
  // read of the element's text before then writes it first, so that every
  // reader sees the data the page shows
  var TEXT = Object.getOwnPropertyDescriptor(Node.prototype, "textContent"), unwritten = null;
  function writeData() {
    if (!unwritten) return;
    var d = unwritten;
    unwritten = null;
    TEXT.set.call(dataEl, JSON.stringify(d));
  }
  Object.defineProperty(dataEl, "textContent", { configurable: true,
    get: function () { writeData(); return TEXT.get.call(dataEl); },
    set: function (text) { unwritten = null; TEXT.set.call(dataEl, text); } });
  var SCALE = T.is_time ? 1e9 : 1, SPAN = Math.max(T.span, 1);
  function undelta(a) { var p = 0; for (var i = 0; i < a.length; i++) { p += a[i]; a[i] = p; } return a; }
  // (typed arrays: a selection's loops over them run as fast loops of
  // numbers, where the JSON's arrays would keep the engine's generic paths)
  var TIME = undelta(Float64Array.from(T.t)), STK = Int32Array.from(T.s), WT = undelta(Float64Array.from(T.w));
  var NSAMP = TIME.length;
  var NAMES = T.f[0], FIDX = T.f[1], FDSO = Int32Array.from(T.f[2]), NF = NAMES.length;
  var FILE = new Int32Array(NF).fill(-1), LINE = new Int32Array(NF);
  for (var fi = 0; fi + 2 < T.fl.length; fi += 3) { FILE[T.fl[fi]] = T.fl[fi + 1]; LINE[T.fl[fi]] = T.fl[fi + 2]; }
  var NNODE = T.nf.length, PARENT = new Int32Array(NNODE + 1), NFUNC = new Int32Array(NNODE + 1);
  var DEPTH = new Int32Array(NNODE + 1);
  for (var k = 1; k <= NNODE; k++) {
    PARENT[k] = k - T.np[k - 1]; NFUNC[k] = T.nf[k - 1]; DEPTH[k] = DEPTH[PARENT[k]] + 1;
  }
  var NSTACK = T.st.length, LEAF = undelta(Int32Array.from(T.sl)), SK = new Uint8Array(NSTACK), ST = Int32Array.from(T.st);
  for (var s = 0; s + 1 < T.sk.length; s += 2) SK[T.sk[s]] = T.sk[s + 1];
  // the tree's children, then a walk of it that marks each node whose
  // function is on no node above it (OUTER: where a stack enters that
  // function), and each node whose function's group (the function, or its
  // cycle as a whole) is on no node above it: there the stack enters the
  // group, through the caller-callee pair numbered ARC
  var GRP = new Int32Array(NF), NGRP = NF, CYCLE_GRP = {};
  for (var gi = 0; gi < NF; gi++) GRP[gi] = gi;
  for (gi = 0; gi + 1 < T.fc.length; gi += 2) {
    if (CYCLE_GRP[T.fc[gi + 1]] === undefined) CYCLE_GRP[T.fc[gi + 1]] = NGRP++;
    GRP[T.fc[gi]] = CYCLE_GRP[T.fc[gi + 1]];
  }
  var OUTER = null, ARC, ARC_FROM, ARC_TO, NARC = 0, BY_TIME, SPANNING, TIMES;
  // (once: after the first frame, or at a first selection made before)
  function walkTree() {
    if (OUTER) return;
    var k;
    var KSTART = new Int32Array(NNODE + 2), KIDS = new Int32Array(NNODE);
    for (k = 1; k <= NNODE; k++) KSTART[PARENT[k] + 1]++;
    for (k = 1; k <= NNODE + 1; k++) KSTART[k] += KSTART[k - 1];
    var KFILL = KSTART.slice(0, NNODE + 1);
    for (k = 1; k <= NNODE; k++) KIDS[KFILL[PARENT[k]]++] = k;
    OUTER = new Uint8Array(NNODE + 1); ARC = new Int32Array(NNODE + 1).fill(-1);
    ARC_FROM = []; ARC_TO = []; var ARC_ID = new Map(), ONPATH = new Int32Array(NF), walk = [];
    var GONPATH = new Int32Array(NGRP);
    for (k = KSTART[1] - 1; k >= KSTART[0]; k--) walk.push(KIDS[k]);
    while (walk.length) { // (a node, then -node when its subtree is done)
      var at = walk.pop();
      if (at < 0) { ONPATH[NFUNC[-at]]--; GONPATH[GRP[NFUNC[-at]]]--; continue; }
      var fn = NFUNC[at], up = PARENT[at];
      if (!ONPATH[fn]) OUTER[at] = 1;
      if (!GONPATH[GRP[fn]] && up) {
        var key = NFUNC[up] * NF + fn, id = ARC_ID.get(key);
        if (id === undefined) { id = ARC_FROM.length; ARC_ID.set(key, id); ARC_FROM.push(NFUNC[up]); ARC_TO.push(fn); }
        ARC[at] = id;
      }
      ONPATH[fn]++; GONPATH[GRP[fn]]++;
      walk.push(-at);
      for (k = KSTART[at + 1] - 1; k >= KSTART[at]; k--) walk.push(KIDS[k]);
    }
    NARC = ARC_FROM.length;
    allocate();
    // the samples in time order (a range's are then one run of them, found
    // by bisection), but for the off-CPU intervals, which a range may cut
    var n = 0;
    for (k = 0; k < NSAMP; k++) if (!(SK[STK[k]] && T.is_time)) n++;
    BY_TIME = new Int32Array(n); SPANNING = new Int32Array(NSAMP - n);
    var m = 0;
    n = 0;
    for (k = 0; k < NSAMP; k++) if (SK[STK[k]] && T.is_time) SPANNING[m++] = k; else BY_TIME[n++] = k;
    // (a recording's samples mostly come in time order: then no sort)
    for (k = 1; k < n && TIME[BY_TIME[k - 1]] <= TIME[BY_TIME[k]]; k++);
    if (k < n) BY_TIME.sort(function (x, y) { return TIME[x] - TIME[y] || x - y; });
    TIMES = new Float64Array(n);
    for (k = 0; k < n; k++) TIMES[k] = TIME[BY_TIME[k]];
  }
  function firstAt(t) { // the first position of BY_TIME at or after time t
    var lo = 0, hi = TIMES.length;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (TIMES[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  var OFF = T.offs ? { t: undelta(T.offs.t), d: T.offs.d, th: T.offs.th, k: T.offs.k } : null;
  var KIND = [null, ["S", "sleeping", "#8fb3d9"], ["D", "waiting (I/O)", "#e8a33d"],
    ["R", "preempted", "#d9534f"], ["B", "blocked (S or D)", "#b8b8b8"]];
  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };
  function esc(x) { return String(x).replace(/[&<>"']/g, function (c) { return ESC[c]; }); }
  function $(id) { return document.getElementById(id); }
  function secText(us) { return (us / 1e6).toFixed(6).replace(/0+$/, "").replace(/\.$/, ""); }
  function threadLabel(i) { return T.th[i][1] + ":" + T.th[i][2]; }
  var THREAD_AT = {}; T.th.forEach(function (th, i) { THREAD_AT[String(th[1])] = i; });
  var DSO_AT = {}; T.dsos.forEach(function (p, i) { DSO_AT[p] = i; });

  // ---- the selection of the fragment: range=FROM,TO (seconds), thread=, dso=
  function selection() {
    var st = STATE.get(), sel = { from: null, to: null, thread: -1, dso: -1, text: "" };
    var m = /^\s*([0-9.eE+-]*)\s*,\s*([0-9.eE+-]*)\s*$/.exec(st.range || "");
    if (m) {
      var a = m[1] === "" ? 0 : parseFloat(m[1]), b = m[2] === "" ? SPAN / 1e6 : parseFloat(m[2]);
      if (isFinite(a) && isFinite(b) && b > a) { sel.from = Math.round(a * 1e6); sel.to = Math.round(b * 1e6); }
    }
    if (st.thread !== undefined && THREAD_AT[st.thread] !== undefined) sel.thread = THREAD_AT[st.thread];
    if (st.dso !== undefined && DSO_AT[st.dso] !== undefined) sel.dso = DSO_AT[st.dso];
    sel.key = [sel.from, sel.to, sel.thread, sel.dso].join(" ");
    return sel;
  }

  // ---- a selection's sums, in arrays allocated once (a selection allocates
  // no array of the size of the tree: the collector's work for them cost
  // more than the sums)
  var IS_TIME = !!T.is_time, SW, SN, RW, RN, LEAFW, LEAFN, NODEW, NODEN, RUNW, SELF, TOT, SMP;
  var KEPT, ARCS, ARCC, ARCN, ACC, TOUCHED, SAMEGRP, BY_CALLEE, BY_CALLER, BY_THREAD, TH_START, BY_DSO, DSO_START;
  function allocate() {
    SW = new Float64Array(NSTACK); SN = new Float64Array(NSTACK); RW = new Float64Array(NSTACK); RN = new Float64Array(NSTACK);
    LEAFW = new Float64Array(NNODE + 1); LEAFN = new Float64Array(NNODE + 1);
    NODEW = new Float64Array(NNODE + 1); NODEN = new Float64Array(NNODE + 1); RUNW = new Float64Array(NNODE + 1);
    KEPT = new Uint8Array(NNODE + 1);
    SELF = new Float64Array(NF); TOT = new Float64Array(NF); SMP = new Float64Array(NF);
    ARCS = new Float64Array(NARC); ARCC = new Float64Array(NARC); ARCN = new Float64Array(NARC);
    ACC = new Float64Array(NF); TOUCHED = new Int32Array(NF);
    // each node whose function's group is its parent's (RUNW goes up to it)
    SAMEGRP = new Uint8Array(NNODE + 1);
    for (var k = 1; k <= NNODE; k++) SAMEGRP[k] = PARENT[k] && GRP[NFUNC[PARENT[k]]] === GRP[NFUNC[k]] ? 1 : 0;
    // each function's pairs as callee, and as caller (counting sorts, in
    // the pairs' order): a selection goes through the embedded functions'
    // pairs alone
    function pairsBy(end) {
      var start = new Int32Array(NF + 1), list = new Int32Array(NARC), id;
      for (id = 0; id < NARC; id++) start[end[id] + 1]++;
      for (var f = 0; f < NF; f++) start[f + 1] += start[f];
      var fill = start.slice(0, NF);
      for (id = 0; id < NARC; id++) list[fill[end[id]]++] = id;
      return [list, start];
    }
    BY_CALLEE = pairsBy(ARC_TO); BY_CALLER = pairsBy(ARC_FROM);
    // the stacks by thread, and by their leaf's binary (a counting sort):
    // the tables' rows add up each group's run of them
    function order(groupOf, n) {
      var start = new Int32Array(n + 1), list = new Int32Array(NSTACK), s;
      for (s = 0; s < NSTACK; s++) start[groupOf(s) + 1]++;
      for (var g = 0; g < n; g++) start[g + 1] += start[g];
      var fill = start.slice(0, n);
      for (s = 0; s < NSTACK; s++) list[fill[groupOf(s)]++] = s;
      return [list, start];
    }
    var o = order(function (s) { return ST[s]; }, T.th.length);
    BY_THREAD = o[0]; TH_START = o[1];
    o = order(function (s) { return FDSO[NFUNC[LEAF[s]]]; }, T.dsos.length);
    BY_DSO = o[0]; DSO_START = o[1];
  }
  // the samples list[lo..hi) (or lo..hi themselves) by stack: SW, SN those
  // of the selection, RW, RN of its range alone (every thread and binary)
  function sumSamples(list, lo, hi, sel) {
    var ranged = sel.from !== null, from = sel.from, to = sel.to, atEnd = ranged && to >= T.span;
    var thread = sel.thread, dso = sel.dso;
    for (var j = lo; j < hi; j++) {
      var i = list ? list[j] : j, s = STK[i], t = TIME[i], w = WT[i];
      if (ranged) {
        if (SK[s] && IS_TIME) { // an off-CPU interval: its part inside the range
          var a = Math.max(t, from), b = Math.min(t + w / 1000, to);
          if (b <= a) continue;
          w = Math.min(w, Math.round((b - a) * 1000));
        } else if (t < from || (t >= to && !atEnd)) continue;
        RW[s] += w; RN[s] += 1;
      }
      if (thread >= 0 && ST[s] !== thread) continue;
      if (dso >= 0 && FDSO[NFUNC[LEAF[s]]] !== dso) continue;
      SW[s] += w; SN[s] += 1;
    }
  }
  // by node of the stacks' tree: the weight of the stacks ending there
  // (LEAFW), of those through it (NODEW), and of those ending in the run
  // of its group's frames that starts there (RUNW); then a function's self:
  // the stacks ending in it; its total: those through the nodes where
  // stacks enter it; the pair where a stack enters its group carries the
  // stack: as self when its leaf is in that run of the group's frames, else
  // as children (pairs inside a cycle carry none). Returns [total, samples,
  // the pairs with samples].
  function sumTree() {
    var total = 0, samples = 0, pairs = 0, s, k;
    LEAFW.fill(0); LEAFN.fill(0);
    for (s = 0; s < NSTACK; s++) {
      if (!SN[s]) continue;
      var lf = LEAF[s];
      LEAFW[lf] += SW[s]; LEAFN[lf] += SN[s]; total += SW[s]; samples += SN[s];
    }
    NODEW.set(LEAFW); NODEN.set(LEAFN); RUNW.set(LEAFW);
    for (k = NNODE; k >= 1; k--) {
      var up = PARENT[k];
      NODEW[up] += NODEW[k]; NODEN[up] += NODEN[k];
      if (SAMEGRP[k]) RUNW[up] += RUNW[k];
    }
    SELF.fill(0); TOT.fill(0); SMP.fill(0); ARCS.fill(0); ARCC.fill(0); ARCN.fill(0);
    for (k = 1; k <= NNODE; k++) {
      if (!NODEN[k]) continue;
      var f = NFUNC[k];
      SELF[f] += LEAFW[k]; SMP[f] += LEAFN[k];
      if (OUTER[k]) TOT[f] += NODEW[k];
      var id = ARC[k];
      if (id >= 0) {
        if (!ARCN[id]) pairs++;
        ARCS[id] += RUNW[k]; ARCC[id] += NODEW[k] - RUNW[k]; ARCN[id] += NODEN[k];
      }
    }
    return [total, samples, pairs];
  }
  // the flame graph's nodes: those of least weight or more, max_depth
  // frames deep at most, under kept nodes; a Map of each one's kept children
  function keptTree(least, maxDepth) {
    var kids = new Map([[0, []]]);
    KEPT.fill(0);
    for (var k = 1; k <= NNODE; k++) {
      var w = NODEW[k], up = PARENT[k];
      if (w > 0 && w >= least && DEPTH[k] <= maxDepth && (up === 0 || KEPT[up])) {
        KEPT[k] = 1;
        kids.set(k, []);
        kids.get(up).push(k);
      }
    }
    return kids;
  }
  // pair a before pair b of a function's callers (farOf: ARC_FROM) or
  // callees (ARC_TO): the heavier, the more samples, the lower index
  function heavier(a, b, farOf) {
    return (ARCS[b] + ARCC[b]) - (ARCS[a] + ARCC[a]) || ARCN[b] - ARCN[a] || FIDX[farOf[a]] - FIDX[farOf[b]];
  }
  // pair id of function f's side (a Map's { top, n }): counted, and kept
  // when among the k heaviest (every one when k < 0: sorted later)
  function keepPair(map, f, id, farOf, k) {
    var kept = map.get(f);
    if (!kept) { kept = { top: [], n: 0 }; map.set(f, kept); }
    kept.n++;
    var top = kept.top;
    if (k < 0) { top.push(id); return; }
    if (top.length >= k) {
      if (k === 0 || heavier(top[k - 1], id, farOf) <= 0) return;
      top.pop();
    }
    var j = top.length;
    while (j > 0 && heavier(top[j - 1], id, farOf) > 0) { top[j] = top[j - 1]; j--; }
    top[j] = id;
  }
  // a table's rows of a range: each group (thread, or leaf's binary) with
  // samples in it, its three hottest leaves, by samples
  function groupRows(list, start, keyOf, labelOf, all) {
    var out = [], g, j;
    function before(a, b) {
      return ACC[b] - ACC[a] || (NAMES[a] < NAMES[b] ? -1 : NAMES[a] > NAMES[b] ? 1 : 0);
    }
    for (g = 0; g + 1 < start.length; g++) {
      var W = 0, N = 0, nt = 0;
      for (j = start[g]; j < start[g + 1]; j++) {
        var s = list[j], n = RN[s];
        if (!n) continue;
        var f = NFUNC[LEAF[s]];
        W += RW[s]; N += n;
        if (!ACC[f]) TOUCHED[nt++] = f;
        ACC[f] += n;
      }
      if (!N) continue;
      var hs = []; // (one pass over the leaves, not a sort of them all)
      for (j = 0; j < nt; j++) {
        var x = TOUCHED[j];
        if (hs.length === 3 && before(hs[2], x) <= 0) continue;
        if (hs.length === 3) hs.pop();
        var at = hs.length;
        while (at > 0 && before(hs[at - 1], x) > 0) { hs[at] = hs[at - 1]; at--; }
        hs[at] = x;
      }
      var hottest = hs.map(function (x) { return NAMES[x] + " (" + (100 * ACC[x] / N).toFixed(1) + "%)"; }).join(", ");
      for (j = 0; j < nt; j++) ACC[TOUCHED[j]] = 0;
      out.push({ key: keyOf(g), label: labelOf(g), samples: N, seconds: W / SCALE,
        error: N > 0 ? W / SCALE / Math.sqrt(N) : 0, share: all > 0 ? N / all : 0, hottest: hottest, w: W });
    }
    out.sort(function (a, b) { return b.samples - a.samples || b.w - a.w || (a.key < b.key ? -1 : 1); });
    return out;
  }

  // the k-th smallest of the numbers a (from 0; a reordered; Infinity past
  // the end), in linear time on average where a sort of them all took a
  // tenth of a selection's work: Hoare's selection about a median of three,
  // its part left sorted after 2 log2(n) rounds (never quadratic)
  function kth(a, k) {
    if (k >= a.length) return Infinity;
    var lo = 0, hi = a.length - 1, rounds = 2 * Math.ceil(Math.log2(a.length + 1));
    while (lo < hi) {
      if (rounds-- <= 0) { a.subarray(lo, hi + 1).sort(); break; }
      var x = a[lo], y = a[(lo + hi) >>> 1], z = a[hi];
      var p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
      var i = lo, j = hi;
      do { // (a[lo..j] <= p <= a[i..hi] after it, and p between them)
        while (a[i] < p) i++;
        while (p < a[j]) j--;
        if (i <= j) { var t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
      } while (i <= j);
      if (j < k) lo = i;
      if (k < i) hi = j;
    }
    return a[k];
  }

  // ---- the page's data of a selection, as lgprof.format.html's page_data
  // makes it, from the samples' stacks
  function compute(sel) {
    var O = T.opts, k, f, i, s, id;
    walkTree();
    var from = sel.from, to = sel.to, ranged = from !== null, atEnd = ranged && to >= T.span;
    SW.fill(0); SN.fill(0);
    if (ranged) { // (the intervals, then the run of the samples in the range)
      RW.fill(0); RN.fill(0);
      sumSamples(SPANNING, 0, SPANNING.length, sel);
      sumSamples(BY_TIME, firstAt(from), atEnd ? BY_TIME.length : firstAt(to), sel);
    } else {
      sumSamples(null, 0, NSAMP, sel);
    }
    var sums = sumTree(), total = sums[0], samples = sums[1];
    var nodeW = NODEW, nodeN = NODEN, self = SELF, tot = TOT, smp = SMP, arcS = ARCS, arcC = ARCC, arcN = ARCN;
    // the flame graph: the stacks' prefix tree, cut as lgprof's (min_weight
    // of the total, max_depth frames): a frame lighter than the cut stays
    // with the frame above it
    var kids = keptTree(O.min_weight * total, O.max_depth);
    var unit = T.is_time ? 1000 : 1; // the flame graph's values: microseconds, or counts
    // the functions embedded: the max_functions with the most total time,
    // and the flame graph's
    // (a selection finds the cut; only the functions above it are sorted
    // by a comparator)
    var cand = [], ncand = 0, cut = 0;
    for (f = 0; f < NF; f++) if (tot[f] > 0) ncand++;
    if (O.max_functions >= 0 && ncand > O.max_functions) {
      var tots = new Float64Array(ncand);
      for (f = 0, i = 0; f < NF; f++) if (tot[f] > 0) tots[i++] = tot[f];
      cut = kth(tots, ncand - O.max_functions);
    }
    for (f = 0; f < NF; f++) if (tot[f] > 0 && tot[f] >= cut) cand.push(f);
    cand.sort(function (a, b) { return tot[b] - tot[a] || FIDX[a] - FIDX[b]; });
    var pos = new Int32Array(NF).fill(-1), full = [], fns = [];
    function embed(f, inFull) {
      if (pos[f] < 0) { pos[f] = fns.length; fns.push(f); full.push(false); }
      if (inFull) full[pos[f]] = true;
      return pos[f];
    }
    var maxF = O.max_functions < 0 ? cand.length : Math.min(O.max_functions, cand.length);
    for (i = 0; i < maxF; i++) embed(cand[i], true);
    // preorder, heaviest child first (ties: by name), with an explicit stack
    var frames = [], todo = [[0, -1]], byWeight = function (x, y) {
      return nodeW[y] - nodeW[x] || (NAMES[NFUNC[x]] < NAMES[NFUNC[y]] ? -1 : NAMES[NFUNC[x]] > NAMES[NFUNC[y]] ? 1 : 0);
    };
    while (todo.length) {
      var it = todo.pop(), node = it[0], at = frames.length, ch = kids.get(node), under = 0;
      ch.sort(byWeight);
      for (var c = 0; c < ch.length; c++) under += nodeW[ch[c]];
      frames.push(node ? [it[1], 0, embed(NFUNC[node], true), Math.round(nodeW[node] / unit),
        Math.max(0, Math.round((nodeW[node] - under) / unit))] : [-1, 2, 0, Math.round(under / unit), 0]);
      for (c = ch.length - 1; c >= 0; c--) todo.push([ch[c], at]);
    }
    var rootV = frames[0][3];
    // each embedded function's pairs, heaviest first, max_arcs a side: the
    // heaviest kept as the pairs come, by their numbers (no array per pair,
    // no sort of a function's thousands of them)
    var K = O.max_arcs, callers = new Map(), callees = new Map(), narcs = sums[2];
    function pairsOf(f, by, map, farOf) {
      for (var j = by[1][f], end = by[1][f + 1]; j < end; j++) {
        var a = by[0][j];
        if (arcN[a]) keepPair(map, f, a, farOf, K);
      }
    }
    for (i = 0; i < fns.length; i++) {
      if (!full[i]) continue;
      pairsOf(fns[i], BY_CALLEE, callers, ARC_FROM);
      pairsOf(fns[i], BY_CALLER, callees, ARC_TO);
    }
    function side(kept, farOf) {
      if (!kept) return [[], 0];
      var top = kept.top, out = [];
      if (K < 0) top.sort(function (a, b) { return heavier(a, b, farOf); });
      for (var j = 0; j < top.length; j++) {
        var a = top[j];
        out.push([embed(farOf[a], false), arcS[a] / SCALE, arcC[a] / SCALE, arcN[a], 0]);
      }
      return [out, kept.n - out.length];
    }
    var arcsLeft = 0;
    var nkept = fns.length, recs = [];
    for (i = 0; i < nkept; i++) {
      f = fns[i];
      if (!full[i]) continue;
      var ins = side(callers.get(f), ARC_FROM), outs = side(callees.get(f), ARC_TO);
      arcsLeft += ins[1] + outs[1];
      var r = { n: NAMES[f], i: FIDX[f], self: self[f] / SCALE, smp: smp[f],
        err: smp[f] > 0 ? self[f] / SCALE / Math.sqrt(smp[f]) : 0,
        pct: total > 0 ? 100 * self[f] / total : 0, gself: self[f] / SCALE, ch: (tot[f] - self[f]) / SCALE,
        tot: tot[f] / SCALE, gpct: total > 0 ? 100 * tot[f] / total : 0, flat: true,
        "in": ins[0], out: outs[0], more: [ins[1], outs[1]] };
      if (FILE[f] >= 0) { r.file = T.files[FILE[f]]; if (LINE[f]) r.line = LINE[f]; }
      recs[i] = r;
    }
    for (i = 0; i < fns.length; i++) if (!recs[i]) recs[i] = { i: FIDX[fns[i]], n: NAMES[fns[i]], stub: true };
    var left = 0, leftSelf = 0;
    for (f = 0; f < NF; f++) if (tot[f] > 0 && (pos[f] < 0 || !full[pos[f]])) { left++; leftSelf += self[f]; }
    var M = {};
    Object.keys(T.meta).forEach(function (key2) { M[key2] = T.meta[key2]; });
    M.total_time = M.print_time = total / SCALE;
    M.samples = samples;
    M.sample_period = samples > 0 ? total / SCALE / samples : 0;
    M.listed = ncand; M.left = left; M.left_self = leftSelf / SCALE; M.arcs_left = arcsLeft;
    M.arc_count = narcs;
    M.cycle_count = 0; M.flame_total = rootV;
    M.max_functions = O.max_functions; M.max_arcs = O.max_arcs;
    var what = [];
    if (ranged) what.push("from " + secText(from) + " s to " + secText(to) + " s");
    if (sel.thread >= 0) what.push("of thread " + threadLabel(sel.thread));
    if (sel.dso >= 0) what.push("whose leaf is in " + T.dsos[sel.dso]);
    var D = { meta: M, fns: recs, cycles: [], frames: frames, labels: ["all"],
      view: { description: "the samples " + what.join(", ") + " (the timeline's selection; cycles are not " +
        "recomputed)", total_time: total / SCALE, base_time: T.meta.total_time,
        print_time: total / SCALE, base_print_time: T.meta.print_time } };
    // the tables: the range's threads and binaries
    var inRange = 0;
    if (ranged) for (s = 0; s < NSTACK; s++) inRange += RN[s];
    var tables = ranged ? {
      threads: groupRows(BY_THREAD, TH_START, function (g) { return String(T.th[g][1]); }, threadLabel, inRange),
      dsos: groupRows(BY_DSO, DSO_START, function (g) { return T.dsos[g]; }, function (g) { return T.dsos[g]; }, inRange)
    } : null;
    return { D: D, tables: tables };
  }
  // ---- the section: lanes, legend, heat map
  var sec = document.createElement("section");
  sec.id = "tl-sec";
  var kinds = {};
  for (var si = 0; si < NSTACK; si++) if (SK[si]) kinds[SK[si]] = true;
  if (OFF) OFF.k.forEach(function (x) { kinds[x] = true; });
  var legend = "<span><i style=\"background:#1a5fb4\"></i>on the CPU (samples per pixel)</span>" +
    [1, 2, 3, 4].filter(function (x) { return kinds[x]; }).map(function (x) {
      return "<span><i style=\"background:" + KIND[x][2] + "\"></i>off the CPU: " + KIND[x][1] + " (" + KIND[x][0] + ")</span>";
    }).join("");
  sec.innerHTML = "<h2>Timeline</h2><p class=\"note\" id=\"tl-note\">Each thread's samples over the recording (" +
    secText(T.span) + " s), grouped by process" + (T.switches ? "; off the CPU, the intervals the recorded " +
    "switches give, coloured by why" + (OFF ? " (read from the recording: an on-CPU profile's time does not " +
    "include them)" : "") : "; the recording holds no context switches (lgprof record --off-cpu records them)") +
    ". Drag across the lanes or the heat map to select a time range; click a lane to select its thread. " +
    "The flame graph, the flat profile, the call graph and the tables then show the selection alone.</p>" +
    "<div class=\"tl-bar\"><button id=\"tl-clear\" type=\"button\">Clear selection</button>" +
    "<span id=\"tl-sel\"></span></div><div id=\"tl-legend\">" + legend + "</div>" +
    "<div id=\"tl-lanes\"></div><h3>Subsecond heat map</h3><p class=\"note\" id=\"tl-heat-note\"></p>" +
    "<div id=\"tl-heat\"></div>";

  var LABEL = 170, AXIS = 20, LANE = 20, PROC = 16;
  // lanes: each process a header, then its threads
  var layout = [], procs = {}, order = [];
  T.th.forEach(function (th, i) {
    if (!procs[th[0]]) { procs[th[0]] = []; order.push(th[0]); }
    procs[th[0]].push(i);
  });
  order.sort(function (a, b) { return a - b; });
  var y = AXIS;
  order.forEach(function (pid) {
    var list = procs[pid], main = list.filter(function (i) { return T.th[i][1] === pid; })[0];
    layout.push({ proc: pid, y: y, h: PROC, label: "process " + pid + " (" + T.th[main !== undefined ? main : list[0]][2] + ")" });
    y += PROC;
    list.forEach(function (i) { layout.push({ thread: i, y: y, h: LANE, label: threadLabel(i) }); y += LANE; });
  });
  var LANES_H = y + 2;
  var laneOf = {}; layout.forEach(function (L) { if (L.thread !== undefined) laneOf[L.thread] = L; });

  var lanesCanvas = document.createElement("canvas"), heatCanvas = document.createElement("canvas");
  lanesCanvas.setAttribute("data-lanes", layout.filter(function (L) { return L.thread !== undefined; })
    .map(function (L) { return L.label; }).join("|"));
  var plotW = 0, current = null, drag = null;
  function xOf(us) { return LABEL + us / SPAN * plotW; }
  function usOf(x) { return Math.max(0, Math.min(SPAN, (x - LABEL) / plotW * SPAN)); }
  function niceStep(span) { // a tick step of 1, 2 or 5 times a power of ten (us), ~8 ticks
    var raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
  }
  // the canvases are drawn once (the lanes again when the width changes);
  // the selection is drawn over them, in boxes of their own: a selection
  // then changes no canvas (copying a canvas again, and the compositor's
  // upload of it, cost more than the rest of a redraw's painting)
  function overlay(box, cls) {
    var d = document.createElement("div");
    d.className = "tl-over " + cls;
    box.appendChild(d);
    return d;
  }
  function putBox(d, x, y, w, h) {
    if (w <= 0 || h <= 0) { d.style.display = "none"; return; }
    d.style.cssText = "display:block;left:" + x + "px;top:" + y + "px;width:" + w + "px;height:" + h + "px";
  }
  var lanesW = 0, laneThread = null, laneRange = null;
  function drawLanes() {
    var box = $("tl-lanes");
    if (!box) return;
    // (the box's width read only when the window's changes: a read after
    // the page's parts were drawn again would lay the page out once more)
    if (!lanesW) lanesW = Math.max(box.clientWidth - 2, LABEL + 200);
    var W = lanesW;
    plotW = W - LABEL - 8;
    if (lanesCanvas.width !== W || lanesCanvas.height !== LANES_H) drawLanesBase(W);
    if (!lanesCanvas.parentNode) {
      box.appendChild(lanesCanvas);
      laneThread = overlay(box, "tl-thread"); laneRange = overlay(box, "tl-range");
    }
    var sel = current || selection(), L = sel.thread >= 0 && laneOf[sel.thread];
    if (L) putBox(laneThread, 0, L.y, W, L.h); else putBox(laneThread, 0, 0, 0, 0);
    // the range
    var r = drag && drag.where === "lanes" && drag.moved ? [Math.min(drag.a, drag.b), Math.max(drag.a, drag.b)]
      : sel.from !== null ? [sel.from, sel.to] : null;
    if (r) {
      var x0 = Math.round(xOf(r[0])), x1 = Math.round(xOf(Math.min(SPAN, r[1])));
      putBox(laneRange, x0, AXIS, Math.max(1, x1 - x0) + 1, LANES_H - AXIS);
    } else {
      putBox(laneRange, 0, 0, 0, 0);
    }
  }
  // a canvas drawn once: drawn off the page, then shown as a bitmap (a 2D
  // canvas of the page is copied for the compositor at each of the page's
  // frames: 10-25 ms a frame for these two in Chromium without a GPU)
  function paintOnce(canvas, W, H, draw) {
    canvas.width = W; canvas.height = H;
    var off = typeof OffscreenCanvas === "function" && new OffscreenCanvas(W, H);
    var shown = off && canvas.getContext("bitmaprenderer"), g = shown && off.getContext("2d");
    if (g) {
      draw(g);
      shown.transferFromImageBitmap(off.transferToImageBitmap());
    } else {
      draw(canvas.getContext("2d"));
    }
  }
  function drawLanesBase(W) { paintOnce(lanesCanvas, W, LANES_H, function (g) { drawLanesOn(g, W); }); }
  function drawLanesOn(g, W) {
    g.font = "11px system-ui, sans-serif"; g.textBaseline = "middle";
    // the time axis
    var step = niceStep(SPAN);
    g.fillStyle = "#5f6368"; g.strokeStyle = "#e3e6ea";
    for (var t = 0; t <= SPAN; t += step) {
      var x = Math.round(xOf(t)) + 0.5;
      g.beginPath(); g.moveTo(x, AXIS - 4); g.lineTo(x, LANES_H); g.stroke();
      g.fillText(secText(t) + " s", x + 2, 8);
    }
    // the density: samples per pixel column, per lane
    var cols = Math.max(1, Math.ceil(plotW)), i, s, bins = {}, maxBin = 1;
    for (i = 0; i < NSAMP; i++) {
      s = STK[i];
      if (SK[s]) continue;
      var th = ST[s], b = bins[th] || (bins[th] = new Uint32Array(cols + 1));
      var c = Math.min(cols, Math.floor(TIME[i] / SPAN * plotW));
      if (++b[c] > maxBin) maxBin = b[c];
    }
    layout.forEach(function (L) {
      if (L.proc !== undefined) {
        g.fillStyle = "#f5f7fa"; g.fillRect(0, L.y, W, L.h);
        g.fillStyle = "#1d1f21"; g.font = "600 11px system-ui, sans-serif";
        g.fillText(L.label, 4, L.y + L.h / 2);
        g.font = "11px system-ui, sans-serif";
        return;
      }
      g.fillStyle = "#1d1f21";
      g.fillText(L.label.length > 26 ? L.label.slice(0, 25) + "\u2026" : L.label, 12, L.y + L.h / 2);
      g.strokeStyle = "#eceff3"; g.beginPath(); g.moveTo(0, L.y + L.h - 0.5); g.lineTo(W, L.y + L.h - 0.5); g.stroke();
    });
    // off-CPU intervals under the samples
    function offRect(th, t0, len, kind) {
      var L = laneOf[th];
      if (!L) return;
      var x0 = xOf(t0), x1 = Math.max(x0 + 1, xOf(Math.min(SPAN, t0 + len)));
      g.fillStyle = KIND[kind] ? KIND[kind][2] : "#b8b8b8";
      g.fillRect(x0, L.y + 5, x1 - x0, L.h - 10);
    }
    if (OFF) {
      for (i = 0; i < OFF.t.length; i++) offRect(OFF.th[i], OFF.t[i], OFF.d[i], OFF.k[i]);
    }
    for (i = 0; i < NSAMP; i++) {
      s = STK[i];
      if (SK[s]) offRect(ST[s], TIME[i], T.is_time ? WT[i] / 1000 : 0, SK[s]);
    }
    g.fillStyle = "#1a5fb4";
    Object.keys(bins).forEach(function (th2) {
      var L = laneOf[th2], b2 = bins[th2];
      if (!L) return;
      for (var c2 = 0; c2 <= cols; c2++) {
        if (!b2[c2]) continue;
        var h = Math.max(2, Math.round((L.h - 4) * b2[c2] / maxBin));
        g.fillRect(LABEL + c2, L.y + L.h - 2 - h, 1, h);
      }
    });
  }

  // ---- the heat map: columns of COL us (a second, or less in a short
  // recording: at least 5 columns), 50 rows of COL/50 each
  var COL = 1e6;
  while (COL > 1000 && SPAN / COL < 5) COL /= 10;
  var ROWS = 50, CELL_W = 14, CELL_H = 5, NCOL = Math.floor(T.span / COL) + 1, HEAT_TOP = 16, HEAT_LEFT = 44;
  var heat = new Uint32Array(NCOL * ROWS), heatMax = 0, onCount = 0;
  for (var hi = 0; hi < NSAMP; hi++) if (!SK[STK[hi]]) onCount++;
  for (hi = 0; hi < NSAMP; hi++) {
    if (onCount > 0 && SK[STK[hi]]) continue; // (an off-CPU profile: the intervals' starts)
    var col = Math.floor(TIME[hi] / COL), row = Math.floor((TIME[hi] - col * COL) / (COL / ROWS));
    var cell = col * ROWS + Math.min(ROWS - 1, row);
    if (++heat[cell] > heatMax) heatMax = heat[cell];
  }
  function cellAt(ev) {
    var rect = heatCanvas.getBoundingClientRect();
    var c = Math.floor((ev.clientX - rect.left - HEAT_LEFT) / CELL_W), r = Math.floor((ev.clientY - rect.top - HEAT_TOP) / CELL_H);
    if (c < 0 || c >= NCOL || r < 0 || r >= ROWS) return null;
    return c * COL + r * COL / ROWS;
  }
  var HEAT_W = HEAT_LEFT + NCOL * CELL_W + 4, HEAT_H = HEAT_TOP + ROWS * CELL_H + 2, heatCells = null;
  function drawHeat() {
    var box = $("tl-heat");
    if (!box) return;
    if (!heatCanvas.parentNode) {
      drawHeatBase();
      box.appendChild(heatCanvas);
      heatCells = [overlay(box, "tl-cells"), overlay(box, "tl-cells"), overlay(box, "tl-cells")];
    }
    var sel = current || selection();
    var r0 = drag && drag.where === "heat" ? [Math.min(drag.a, drag.b), Math.max(drag.a, drag.b) + COL / ROWS]
      : sel.from !== null ? [sel.from, sel.to] : null;
    // the cells of the range (its columns only): the first column's run
    // of them, the columns whole between, the last column's run
    var c0 = 0, c1 = -1;
    if (r0) { c0 = Math.max(0, Math.floor(r0[0] / COL)); c1 = Math.min(NCOL - 1, Math.floor(r0[1] / COL)); }
    function run(c) { // [first, last] cell of column c in the range
      var a = -1, b = -1;
      for (var r = 0; r < ROWS; r++) {
        var t0 = c * COL + r * COL / ROWS;
        if (t0 + COL / ROWS > r0[0] && t0 < r0[1]) { if (a < 0) a = r; b = r; }
      }
      return [a, b];
    }
    function cells(d, ca, cb, ra, rb) { // columns ca..cb, rows ra..rb
      if (cb < ca || ra < 0 || rb < ra) { putBox(d, 0, 0, 0, 0); return; }
      putBox(d, HEAT_LEFT + ca * CELL_W, HEAT_TOP + ra * CELL_H, (cb - ca + 1) * CELL_W - 1, (rb - ra + 1) * CELL_H - 1);
    }
    var first = c1 >= c0 ? run(c0) : [-1, -1], last = c1 > c0 ? run(c1) : [-1, -1];
    cells(heatCells[0], c0, c0, first[0], first[1]);
    cells(heatCells[1], c0 + 1, c1 - 1, 0, ROWS - 1);
    cells(heatCells[2], c1, c1, last[0], last[1]);
  }
  function drawHeatBase() { paintOnce(heatCanvas, HEAT_W, HEAT_H, drawHeatOn); }
  function drawHeatOn(g) {
    g.font = "10px system-ui, sans-serif"; g.fillStyle = "#5f6368"; g.textBaseline = "top";
    var every = Math.max(1, Math.ceil(40 / CELL_W));
    for (var c = 0; c < NCOL; c += every) g.fillText(secText(c * COL), HEAT_LEFT + c * CELL_W, 2);
    g.textBaseline = "middle";
    [0, 10, 20, 30, 40].forEach(function (r) {
      g.fillText("+" + secText(r * COL / ROWS), 2, HEAT_TOP + r * CELL_H + CELL_H / 2);
    });
    // the empty cells in one colour, then the others by count (white,
    // through yellow and orange, to red), each colour set once
    var shade = [];
    g.fillStyle = "#f5f7fa";
    for (c = 0; c < NCOL; c++) {
      for (var r = 0; r < ROWS; r++) {
        var n = heat[c * ROWS + r];
        if (n) (shade[n] || (shade[n] = [])).push(c, r);
        else g.fillRect(HEAT_LEFT + c * CELL_W, HEAT_TOP + r * CELL_H, CELL_W - 1, CELL_H - 1);
      }
    }
    shade.forEach(function (cells, n2) {
      var v = n2 / heatMax;
      g.fillStyle = "rgb(" + Math.round(255 - 75 * v) + "," + Math.round(235 - 200 * v) + "," + Math.round(180 - 160 * v) + ")";
      for (var j = 0; j < cells.length; j += 2) {
        g.fillRect(HEAT_LEFT + cells[j] * CELL_W, HEAT_TOP + cells[j + 1] * CELL_H, CELL_W - 1, CELL_H - 1);
      }
    });
  }

  // ---- interaction
  function rangeText(a, b) { return secText(a) + "," + secText(b); }
  lanesCanvas.addEventListener("mousedown", function (ev) {
    var rect = lanesCanvas.getBoundingClientRect(), x = ev.clientX - rect.left;
    drag = { where: "lanes", x: x, a: usOf(x), b: usOf(x), y: ev.clientY - rect.top, moved: false };
    ev.preventDefault();
  });
  heatCanvas.addEventListener("mousedown", function (ev) {
    var t = cellAt(ev);
    if (t === null) return;
    drag = { where: "heat", a: t, b: t };
    ev.preventDefault();
  });
  window.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    if (drag.where === "lanes") {
      var x = ev.clientX - lanesCanvas.getBoundingClientRect().left;
      if (Math.abs(x - drag.x) >= 3) drag.moved = true;
      drag.b = usOf(x);
      drawLanes();
    } else {
      var t = cellAt(ev);
      if (t !== null) { drag.b = t; drawHeat(); }
    }
  });
  window.addEventListener("mouseup", function () {
    if (!drag) return;
    var d = drag;
    drag = null;
    if (d.where === "heat") {
      var a = Math.min(d.a, d.b), b = Math.max(d.a, d.b) + COL / ROWS;
      STATE.set({ range: rangeText(a, b), zoom: "" });
    } else if (d.moved) {
      STATE.set({ range: rangeText(Math.min(d.a, d.b), Math.max(d.a, d.b)), zoom: "" });
    } else { // a click: the lane's thread (again: all threads)
      var L = layout.filter(function (l) { return l.thread !== undefined && d.y >= l.y && d.y < l.y + l.h; })[0];
      if (!L) { drawLanes(); return; }
      var tid = String(T.th[L.thread][1]), now = STATE.get().thread;
      STATE.set({ thread: now === tid ? "" : tid, dso: "", zoom: "", sel: "" });
    }
  });
  sec.addEventListener("click", function (ev) {
    if (ev.target.id === "tl-clear") STATE.set({ range: "", thread: "", dso: "", zoom: "", sel: "" });
  });

  // ---- drawing the page of the selection
  function place() { // the section (kept across the page's drawings) above the flame graph
    var bar = $("toolbar");
    if (bar && sec.parentNode !== bar.parentNode) bar.parentNode.insertBefore(sec, bar);
    else if (bar && sec.nextSibling !== bar) bar.parentNode.insertBefore(sec, bar);
  }
  // the page's parts anew (fresh nodes: no listeners of the drawing
  // before), each in its place: the section and the tables stay attached
  // (taken out and put back, the canvases would be painted again)
  var LAZY = { "flame-sec": 1, main: 1, "cycles-sec": 1 }; // (those of the css above)
  function freshPage() {
    var page = $("lgprof-page"), tmp = document.createElement("div");
    // (the flame graph's width, as drawn: no layout to read it)
    var drawn = document.querySelector("#flame > svg"), width = drawn && drawn.getAttribute("width");
    tmp.innerHTML = GR.G.skeleton;
    Array.prototype.slice.call(tmp.children).forEach(function (n) {
      var old = n.id && document.getElementById(n.id);
      // (the parts below the timeline keep their element, with fresh
      // contents: an element of content-visibility: auto is skipped off
      // screen once a frame has found it there, a new one only after its
      // first frame, in which it would be laid out and painted whole)
      if (old && old.parentNode === page && LAZY[n.id]) old.replaceChildren.apply(old, Array.prototype.slice.call(n.childNodes));
      else if (old && old.parentNode === page) page.replaceChild(n, old); else page.appendChild(n);
    });
    if (width && $("flame")) $("flame").setAttribute("data-width", width);
  }
  var pageMain = window.lgprofMain;
  window.lgprofMain = function () { pageMain(); place(); };
  var computed = false, applied = null;
  function apply() {
    var sel = selection();
    current = sel;
    if (sel.key !== applied) {
      applied = sel.key;
      var st = STATE.get();
      var own = GR && ((st.thread && GR.G.ids.thread[st.thread] === undefined) || (st.dso && GR.G.ids.dso[st.dso] === undefined));
      if (sel.from !== null || own || !GR) {
        if (sel.from !== null || sel.thread >= 0 || sel.dso >= 0) {
          var r = compute(sel);
          if (sel.thread >= 0 && GR) GR.G.label.thread[String(T.th[sel.thread][1])] = threadLabel(sel.thread);
          unwritten = r.D;
          requestAnimationFrame(function () { setTimeout(writeData, 0); });
          if (GR) freshPage();
          window.lgprofPageData = r.D; // (the data as it is: its text comes later)
          window.lgprofMain();
          if (GR) GR.tables(sel.from !== null ? r.tables : null, st.thread || "", st.dso || "");
          computed = true;
        }
      } else if (computed) { // back to the page of the whole, the thread or the binary
        computed = false;
        dataEl.textContent = "";
        GR.redraw();
        GR.tables(null);
      }
    }
    var txt = [];
    if (sel.from !== null) txt.push("range " + secText(sel.from) + " s to " + secText(sel.to) + " s");
    if (sel.thread >= 0) txt.push("thread " + threadLabel(sel.thread));
    if (sel.dso >= 0) txt.push("binary " + T.dsos[sel.dso]);
    $("tl-sel").textContent = txt.length ? "Selected: " + txt.join(", ") + "." : "Nothing selected: all samples.";
    drawLanes();
    drawHeat();
  }
  place();
  $("tl-heat-note").textContent = "A column per " + secText(COL) + " s, " + ROWS + " rows of " + secText(COL / ROWS) +
    " s: the " + (onCount > 0 ? "on-CPU samples" : "off-CPU intervals' starts") + " in each (most: " + heatMax +
    "). Click a cell, or drag across cells, to select their time.";
  window.addEventListener("hashchange", apply);
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { lanesW = 0; drawLanes(); }, 100);
  });
  apply();
  // (the tree's walk right after the first frame: not before the page
  // shows, and done before a first selection has to wait for it; then, in
  // a task of its own, the page of a sixth of the recording (its third to
  // its half), its result unused: the engine compiles a selection's loops
  // then, not in the first selection; a range of one millisecond left the
  // loops over a range's samples and functions cold)
  requestAnimationFrame(function () {
    setTimeout(function () {
      walkTree();
      setTimeout(function () {
        compute({ from: Math.round(SPAN / 3), to: Math.round(SPAN / 2), thread: -1, dso: -1 });
      }, 0);
    }, 0);
  });
  window.lgprofTimelineReady = true;
})();
]==]

return M
