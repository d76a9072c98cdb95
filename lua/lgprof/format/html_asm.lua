--- lgprof.format.html_asm: the HTML page's disassembly panel
-- (lgprof.format.html). For the hottest functions (by self time, at most
-- MAX of them) the page embeds their instructions (lgprof.format.asm's
-- listings) and source lines; selecting one of them (#fN in the URL, as the
-- page's other panels) shows its source lines and instructions side by
-- side, and a click on a line (#fN&line=K) highlights its instructions.
local asm = require "lgprof.format.asm"
local annotate = require "lgprof.format.annotate"

local M = {}

M.MAX = 20

local function basename(p) return (p:match("[^/]*$")) end

--- The panel's data for the page, for the hottest of candidates (the
-- Functions the page embeds): { [call-graph index] = { n, counts, arch,
-- decoded, lines = { {file, line, text, share} ... }, ins = { {address,
-- offset, samples, share, text, target, line index (0: none), depth,
-- shared} ... } } }, or nil when the profile has no samples to show.
function M.data(profile, candidates, dirs)
  if profile.source == "gmon" and not profile.have_histogram then return nil end
  local fns = {}
  for _, fn in ipairs(candidates) do
    if fn.kind == "function" and not fn.is_inline and fn.self > 0 then fns[#fns + 1] = fn end
  end
  table.sort(fns, function(a, b)
    if a.self ~= b.self then return a.self > b.self end
    return a.index < b.index
  end)
  for k = #fns, M.MAX + 1, -1 do fns[k] = nil end
  if #fns == 0 then return nil end
  local ok, lists = pcall(asm.listings, profile, fns)
  if not ok then return nil end
  local sources = {}
  local function source(path)
    if sources[path] == nil then
      sources[path] = annotate.read_source(path, path, dirs or {}) or false
    end
    return sources[path] or nil
  end
  local out = {}
  for k, l in ipairs(lists) do
    local fn = fns[k]
    local lines, line_id, ins = {}, {}, {}
    for _, i in ipairs(l.instructions) do
      local li = 0
      if i.line then
        local key = i.file .. ":" .. i.line
        li = line_id[key]
        if not li then
          local text = source(i.file)
          lines[#lines + 1] = { f = basename(i.file), l = i.line,
            t = text and text[i.line] or "", w = 0 }
          li = #lines
          line_id[key] = li
        end
        lines[li].w = lines[li].w + i.share
      end
      local inl = {}
      for _, x in ipairs(i.inlined) do inl[#inl + 1] = x.name end
      ins[#ins + 1] = {
        a = ("%x"):format(i.address), o = i.offset, s = i.samples, p = i.share,
        x = (i.mnemonic or "") .. ((i.operands or "") ~= "" and (" " .. i.operands) or ""),
        g = (i.target or i.target_name) and asm.target_text(fn.name, i, l) or nil,
        b = i.back_edge or nil, l = li, d = #i.inlined, inl = #inl > 0 and table.concat(inl, " < ") or nil,
        sh = i.shared_bin or nil,
      }
    end
    out[tostring(fn.index)] = { n = fn.name, counts = l.counts,
      arch = l.code_read and l.arch or "code that was not read", decoded = l.decoded,
      lines = lines, ins = ins }
  end
  return out
end

M.css = [==[
#asm-sec .cols { display: flex; gap: 12px; align-items: flex-start; }
#asm-sec .cols > div { flex: 1; overflow: auto; max-height: 70vh; }
#asm-src div.ln { cursor: pointer; white-space: pre; font-family: monospace; font-size: 12px; }
#asm-src div.ln.sel { background: #dbe8f8; font-weight: 600; }
#asm-ins td { font-family: monospace; font-size: 12px; white-space: pre; }
#asm-ins tr.hl { background: #fff3c4; }
#asm-ins tr.back td.tgt { color: #b8423f; }
]==]

M.body = [==[
<section id="asm-sec">
  <h2>Disassembly</h2>
  <div id="asm"><p class="note">Select one of the hottest functions to see its instructions.</p></div>
</section>
]==]

M.js = [==[
(function () {
  "use strict";
  var el = document.getElementById("lgprof-asm");
  if (!el) return;
  var A = JSON.parse(el.textContent);
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" }[c];
    });
  }
  function pct(p) { return p > 0 ? (100 * p).toFixed(2) + "%" : ""; }
  // the fragment's selected function and line (the page's key=value state,
  // lgprofState, where it has one: #f12&line=3 with other keys beside)
  function selected() {
    if (window.lgprofState) {
      var s = window.lgprofState.get(), f = /^f(\d+)$/.exec(s.sel || "");
      return f && { f: f[1], line: /^\d+$/.test(s.line || "") ? +s.line : 0, group: s.thread || s.dso || s.range };
    }
    var m = /^#f(\d+)(?:&line=(\d+))?$/.exec(location.hash);
    return m && { f: m[1], line: m[2] ? +m[2] : 0 };
  }
  function render() {
    var m = selected();
    var box = document.getElementById("asm");
    if (!m) return;
    if (m.group) {
      // the embedded instructions are the whole profile's, indexed as its
      // functions are; a thread's or binary's page numbers them its own way,
      // and a time range's (the timeline's) holds fewer samples
      box.innerHTML = "<p class=\"note\">The disassembly is of the whole profile: show all samples " +
        "(clear the thread, binary or time range) to see it.</p>";
      return;
    }
    var L = A[m.f], sel = m.line;
    if (!L) {
      box.innerHTML = "<p class=\"note\">No disassembly embedded for this function (the page embeds the " +
        "instructions of the hottest functions by self time).</p>";
      return;
    }
    var h = ["<h3 id=\"asm-title\">" + esc(L.n) + "</h3>"];
    h.push("<p class=\"note\">" + (L.counts === "samples"
      ? "perf.data samples at their exact addresses; a sample lands on or after the instruction that caused it (skid)."
      : "gmon.out's histogram bins spread over the instructions they cover (gprof's rule); * a share of a bin with other code.") +
      (L.decoded ? "" : " Code for " + esc(L.arch) + " is not decoded: sampled addresses and counts only.") +
      " Click a source line to highlight its instructions.</p>");
    h.push("<div class=\"cols\"><div id=\"asm-src\">");
    L.lines.forEach(function (ln, k) {
      h.push("<div class=\"ln" + (k + 1 === sel ? " sel" : "") + "\" data-line=\"" + (k + 1) + "\">" +
        esc(ln.f + ":" + ln.l) + "  " + pct(ln.w) + "  " + esc(ln.t) + "</div>");
    });
    if (!L.lines.length) h.push("<p class=\"note\">No source lines (no DWARF line table).</p>");
    h.push("</div><div><table id=\"asm-ins\"><thead><tr><th>samples</th><th>% func</th><th>address</th>" +
      "<th>offset</th><th>instruction</th><th>target</th><th>inlined</th></tr></thead><tbody>");
    L.ins.forEach(function (i) {
      var cls = (sel && i.l === sel ? "hl" : "") + (i.b ? " back" : "");
      h.push("<tr class=\"" + cls + "\" data-line=\"" + i.l + "\"><td>" + (i.s > 0 ? +i.s.toFixed(2) : "") +
        (i.sh ? "*" : "") + "</td><td>" + pct(i.p) + "</td><td>" + i.a + "</td><td>+0x" + i.o.toString(16) +
        "</td><td>" + esc(i.x) + "</td><td class=\"tgt\">" + (i.g ? esc(i.g) + (i.b ? " (back edge)" : "") : "") +
        "</td><td>" + (i.inl ? esc(i.inl) : "") + "</td></tr>");
    });
    h.push("</tbody></table></div></div>");
    box.innerHTML = h.join("");
  }
  document.getElementById("asm").addEventListener("click", function (e) {
    var d = e.target.closest("div.ln");
    var m = selected();
    if (!d || !m) return;
    if (window.lgprofState) window.lgprofState.set({ line: d.getAttribute("data-line") });
    else location.hash = "f" + m.f + "&line=" + d.getAttribute("data-line");
  });
  window.addEventListener("hashchange", render);
  if (location.hash) render();
})();
]==]

return M
