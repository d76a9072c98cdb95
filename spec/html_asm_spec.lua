-- The HTML page's disassembly panel (issue 34) in headless Chromium: a
-- program compiled here at -O2 -g (a loop with an inlined function) with a
-- hand-written gmon.out whose histogram gives the loop's function all its
-- samples. Opened with #fN (N: the function's call-graph index) the panel
-- shows the function's instructions (objdump's addresses, in order) and its
-- source lines (addr2line's, each once); #fN&line=K highlights exactly the
-- instructions of line K; a click on a line sets that fragment. No script
-- error. Skipped where Chromium is not installed.
local H = require "helpers"
local util, cmd, gw = H.util, H.cmd, H.gmonwriter
local chromium = require "helpers.chromium"
local lgprof = require "lgprof"

local q, read_cmd = util.q, util.read_cmd

local SRC = [[
#include <stdio.h>
static inline __attribute__((always_inline)) long sq(long x) { return x * x + 3; }
__attribute__((noinline)) long loop(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += sq(i) ^ (s >> 3);
  return s;
}
int main(void) { printf("%ld\n", loop(1000)); return 0; }
]]

local function url(path)
  return "file://" .. path:gsub("[^%w/%-%._~]", function(c) return ("%%%02X"):format(c:byte()) end)
end

-- objdump's addresses of function name, in order.
local function objdump_addrs(exe, name)
  local t, inside = {}, false
  for line in read_cmd("objdump -d --no-show-raw-insn " .. q(exe)):gmatch("[^\n]*") do
    local head = line:match("^%x+ <([^>]+)>:$")
    if head then inside = head == name
    elseif inside then
      local at = line:match("^%s*(%x+):")
      if at then t[#t + 1] = at end
    end
  end
  return t
end

describe("the HTML page's disassembly panel", function()
  local tmp, browser, exe, page_path, index, addrs
  setup(function()
    tmp = util.mktempdir("lgprof html asm")
    exe = tmp .. "/prog"
    util.spit(tmp .. "/prog.c", SRC)
    local status, out, err = cmd.shell("cc -O2 -g -o " .. q(exe) .. " " .. q(tmp .. "/prog.c"))
    assert(status == 0, out .. err)
    -- one histogram over loop's code, a bin of 2 bytes each (scale 1), 5
    -- samples in every bin: every instruction of loop gets samples
    local syms = util.code_symbols(exe)
    local lo, size = syms.loop.addr, syms.loop.size
    local bins = {}
    for i = 1, (size + 1) // 2 do bins[i] = 5 end
    util.spit(tmp .. "/gmon.out", gw.encode({ hist = { { low = lo, high = lo + 2 * #bins,
      rate = 100, dimen = "seconds", abbrev = "s", bins = bins } } }, { format = "gnu" }))
    local p <close> = assert(lgprof.open(exe, tmp .. "/gmon.out"))
    index = assert(p:find("loop")).index
    page_path = tmp .. "/page.html"
    assert(lgprof.report.html(p, page_path))
    addrs = objdump_addrs(exe, "loop")
    if chromium.available() then browser = assert(chromium.start(tmp, { timeout = 300 })) end
  end)
  teardown(function()
    if browser then browser:close() end
    util.rmtree(tmp)
  end)

  it("shows the function's instructions and lines, and highlights a line's instructions", function()
    if not browser then
      print("skipped: " .. chromium.BINARY .. " is not installed")
      return
    end
    local page = browser:open(url(page_path) .. "#f" .. index)
    assert.is_true(page:eval("window.lgprofReady === true"))
    assert.equal("loop", page:eval("document.getElementById('asm-title').textContent"))
    -- objdump's instructions come first, in order (the listing runs on to
    -- the next symbol: padding after them)
    local shown = require("cjson").decode(page:eval([[JSON.stringify(Array.from(
      document.querySelectorAll('#asm-ins tbody tr')).map(function (tr) { return tr.cells[2].textContent; }))]]))
    assert.is_true(#shown >= #addrs and #addrs > 5)
    for k, a in ipairs(addrs) do assert.equal(a, shown[k]) end
    -- the lines: addr2line's for those addresses, each once, in order of
    -- first appearance
    local words = {}
    for k, a in ipairs(addrs) do words[k] = "0x" .. a end
    local want, seen = {}, {}
    for line in read_cmd("addr2line -e " .. q(exe) .. " " .. table.concat(words, " ")):gmatch("[^\n]+") do
      local f, n = line:match("([^/]+):(%d+)")
      if f and n ~= "0" and not seen[f .. ":" .. n] then
        seen[f .. ":" .. n] = true
        want[#want + 1] = f .. ":" .. n
      end
    end
    local lines = require("cjson").decode(page:eval([[JSON.stringify(Array.from(
      document.querySelectorAll('#asm-src div.ln')).map(function (d) { return d.textContent.split(' ')[0]; }))]]))
    for k, l in ipairs(want) do assert.equal(l, lines[k]) end
    assert.truthy(seen["prog.c:2"], "sq's line (inlined) is listed")
    -- a click on sq's line: the fragment says so, and exactly the
    -- instructions of that line are highlighted
    local k = 0
    for j, l in ipairs(lines) do if l == "prog.c:2" then k = j end end
    page:settle(([[document.querySelector('#asm-src div.ln[data-line="%d"]').click()]]):format(k))
    assert.equal(("#f%d&line=%d"):format(index, k), page:eval("location.hash"))
    local hl = require("cjson").decode(page:eval([[JSON.stringify(Array.from(
      document.querySelectorAll('#asm-ins tbody tr.hl')).map(function (tr) { return tr.cells[2].textContent; }))]]))
    local of_line = {}
    local a2l = read_cmd("addr2line -e " .. q(exe) .. " " .. table.concat(words, " "))
    local n = 0
    for line in a2l:gmatch("[^\n]+") do
      n = n + 1
      if line:match("prog%.c:2$") or line:match("prog%.c:2 ") then of_line[#of_line + 1] = addrs[n] end
    end
    assert.is_true(#of_line > 0)
    assert.same(of_line, hl)
    assert.equal(1, page:eval("document.querySelectorAll('#asm-src div.ln.sel').length"))
    -- the call-graph panel still shows the function
    assert.truthy(page:eval("document.getElementById('panel-title').textContent"):find("^loop"))
    assert.are.same({}, page.errors)
    page:close()
  end)
end)
