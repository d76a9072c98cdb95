-- --static-arcs (Lua: static_arcs = true): the arcs lgprof finds by decoding
-- the code, checked against `objdump -d` parsed here:
--   * on every fixture program in every variant and every line program: with
--     a profile without arcs (so every arc is a static one), the (caller,
--     callee) pairs of the arcs equal those of objdump's direct calls
--     (`call ADDR <sym>`) whose target is the start of a symbol of the
--     table, the caller being the table's symbol holding the call; and the
--     tail arcs equal objdump's direct jumps to another symbol's start where
--     no call links the same pair; a call through the PLT (`<puts@plt>`) to
--     an import the table has no symbol of makes no arc;
--   * spec/fixtures/static/calls.c: the backward call never -> early that
--     gprof -c misses (its output checked here) is found;
--   * tails.c at -O2: tail -> leaf is a tail arc; maybe -> leaf (never made)
--     a static one next to the measured arcs, which stay non-static; the
--     flags in the API, the JSON export and the DOT export (dashed);
--   * a non-x86-64 executable: one line, exit 1.
local lgprof = require "lgprof"
local dot = require "lgprof.format.dot"
local H = require "helpers"
local fx, util, cmd, gw, ew = H.fixtures, H.util, H.cmd, H.gmonwriter, H.elfwriter

local sq, exec_ok, read_cmd = util.q, util.exec_ok, util.read_cmd
local HAVE_OBJDUMP = util.have("objdump")
local STATIC_DIR = fx.root .. "/spec/fixtures/static"

-- objdump -d: every direct call and jump as { at =, to =, call = bool }.
local function objdump_branches(exe)
  local t = {}
  for line in read_cmd("objdump -d --no-show-raw-insn " .. sq(exe)):gmatch("[^\n]+") do
    local at, mnem, to = line:match("^%s*(%x+):%s+([%a ]-)%s+(%x+) <[^>]*>%s*$")
    if at then
      mnem = mnem:gsub("^bnd ", ""):gsub("^notrack ", "")
      local call = mnem == "call" or mnem == "callq"
      if call or mnem:match("^j%a+$") then
        t[#t + 1] = { at = tonumber(at, 16), to = tonumber(to, 16), call = call }
      end
    end
  end
  return t
end

-- The table's symbols by address: sorted starts, and start -> name.
local function table_of(p)
  local starts, at = {}, {}
  for fn in p:symbols() do
    starts[#starts + 1] = fn.address
    at[fn.address] = fn.symbol
  end
  table.sort(starts)
  return starts, at
end

-- The symbol holding addr (the last start at or below it), or nil.
local function holder(starts, at, addr)
  local lo, hi = 1, #starts
  local found
  while lo <= hi do
    local mid = (lo + hi) // 2
    if starts[mid] <= addr then found, lo = starts[mid], mid + 1 else hi = mid - 1 end
  end
  return found and at[found]
end

-- Expected call and tail pairs ("caller -> callee" = true) from objdump.
local function expected(exe, starts, at)
  local calls, tails = {}, {}
  for _, b in ipairs(objdump_branches(exe)) do
    local caller, callee = holder(starts, at, b.at), at[b.to]
    if caller and callee then
      local key = caller .. " -> " .. callee
      if b.call then
        calls[key] = true
      elseif b.to ~= nil and at[b.to] and holder(starts, at, b.at) ~= callee then
        tails[key] = true
      end
    end
  end
  for k in pairs(calls) do tails[k] = nil end
  return calls, tails
end

local function found(p)
  local calls, tails, n = {}, {}, 0
  for a in p:arcs() do
    assert.is_true(a.is_static, "an arc from a profile without arcs is static")
    assert.are.equal(0, a.count)
    local key = a.caller.symbol .. " -> " .. a.callee.symbol
    if a.is_tail then tails[key] = true else calls[key] = true end
    n = n + 1
  end
  return calls, tails, n
end

local function keys(set)
  local t = {}
  for k in pairs(set) do t[#t + 1] = k end
  table.sort(t)
  return t
end

local function same_sets(what, want, got)
  local missing, extra = {}, {}
  for _, k in ipairs(keys(want)) do
    if not got[k] then missing[#missing + 1] = k end
  end
  for _, k in ipairs(keys(got)) do
    if not want[k] then extra[#extra + 1] = k end
  end
  if #missing > 0 or #extra > 0 then
    error(("%s: missing %s; not in objdump %s"):format(what, table.concat(missing, ", "),
      table.concat(extra, ", ")), 2)
  end
end

-- A profile of exe with its histogram and no arcs.
local function no_arcs_profile(dir, gmon)
  local data = gw.decode(gw.read(gmon))
  local path = dir .. "/noarcs.gmon"
  gw.write(path, { hist = data.hist })
  return path
end

local function check_objdump(exe, gmon, dir)
  local p <close> = assert(lgprof.open(exe, no_arcs_profile(dir, gmon),
    { static_arcs = true, granularity = "function" }))
  local starts, at = table_of(p)
  local want_calls, want_tails = expected(exe, starts, at)
  local calls, tails, n = found(p)
  assert.is_true(n > 0, "no static arc at all in " .. exe)
  same_sets(exe .. ": calls", want_calls, calls)
  same_sets(exe .. ": tail jumps", want_tails, tails)
  -- without the option: no arc
  local q <close> = assert(lgprof.open(exe, dir .. "/noarcs.gmon"))
  assert.are.equal(0, q.arc_count)
end

describe("--static-arcs against objdump -d", function()
  local function run(b)
    if not HAVE_OBJDUMP then return pending("objdump not installed") end
    local dir = util.mktempdir("lgprof-sarcs")
    finally(function() util.rmtree(dir) end)
    check_objdump(b.exe, b.gmon[1], dir)
  end
  for _, prog in ipairs(fx.programs()) do
    for _, variant in ipairs(fx.variants) do
      it(prog .. " " .. variant, function() run(assert(fx.build(prog, variant))) end)
    end
  end
  for _, prog in ipairs(fx.line_programs()) do
    for _, variant in ipairs(fx.line_variants) do
      it(prog .. " " .. variant, function() run(assert(fx.build(prog, variant))) end)
    end
  end
end)

---------------------------------------------------------------------------
-- The programs of spec/fixtures/static, compiled and run here.

local function build_static(dir, name, flags)
  local exe = dir .. "/" .. name
  assert(exec_ok(("cp %s %s && cd %s && gcc %s -pg -o %s %s.c >build.log 2>&1 && ./%s >/dev/null 2>&1; mv gmon.out %s.gmon")
    :format(sq(STATIC_DIR .. "/" .. name .. ".c"), sq(dir), sq(dir), flags, sq(name), sq(name),
      sq(name), sq(name))), "cannot build and run " .. name .. ".c")
  return exe, exe .. ".gmon"
end

-- The arcs of a profile: "caller -> callee" -> the Arc.
local function arcs_of(p)
  local t = {}
  for a in p:arcs() do t[a.caller.symbol .. " -> " .. a.callee.symbol] = a end
  return t
end

describe("--static-arcs", function()
  local dir
  before_each(function() dir = util.mktempdir("lgprof sarcs") end)
  after_each(function() util.rmtree(dir) end)

  it("finds the backward call gprof -c misses (calls.c)", function()
    local exe, gmon = build_static(dir, "calls", "-O0 -g")
    local p <close> = assert(lgprof.open(exe, gmon, { static_arcs = true }))
    local a = arcs_of(p)
    -- measured: caller -> early, main -> caller, main -> late
    for _, k in ipairs { "caller -> early", "main -> caller", "main -> late" } do
      assert.is_truthy(a[k], k)
      assert.is_false(a[k].is_static, k)
      assert.are.equal(1, a[k].count, k)
    end
    -- found in the code: never -> early (backward), caller -> never
    -- (backward), caller -> fwd_target (forward)
    for _, k in ipairs { "never -> early", "caller -> never", "caller -> fwd_target" } do
      assert.is_truthy(a[k], k)
      assert.is_true(a[k].is_static, k)
      assert.is_false(a[k].is_tail, k)
      assert.are.equal(0, a[k].count, k)
    end
    -- views keep the flags (the structural filters rebuild the arcs)
    for _, spec in ipairs { { ignore = "^late$" }, { hide = "^late$" }, { focus = "^caller$" } } do
      local v <close> = p:filter(spec)
      local va = arcs_of(v)
      assert.is_true(va["caller -> never"].is_static)
      assert.is_false(va["caller -> early"].is_static)
    end
    -- line granularity: a call made at run time is charged to the line of
    -- its (rounded) return address, and its static arc to the same line
    local lp <close> = assert(lgprof.open(exe, gmon, { static_arcs = true, granularity = "line" }))
    local into = {}
    for x in lp:arcs() do
      local k = x.callee.symbol
      into[k] = into[k] or {}
      table.insert(into[k], x)
    end
    assert.are.equal(1, #into.caller)
    assert.is_false(into.caller[1].is_static)
    assert.are.equal(2, #into.early) -- measured from caller, static from never
    assert.are.equal(1, #into.fwd_target)
    assert.is_true(into.fwd_target[1].is_static)
    -- puts@plt: an import without a symbol in the table makes no arc
    for k in pairs(a) do assert.falsy(k:find("puts", 1, true), k) end
    -- gprof -c finds only the forward one
    if cmd.HAVE_GPROF then
      local status, out = cmd.gprof({ "-b", "-q", "-c", exe, gmon })
      assert.are.equal(0, status)
      assert.truthy(out:find("0/0%s+fwd_target"), out)
      assert.falsy(out:find("never", 1, true), out)
    end
    -- the command: -b -q lists never under caller, early under never
    local status, out, err = cmd.lgprof({ "--static-arcs", "-b", "-q", exe, gmon })
    assert.are.equal(0, status, err)
    assert.truthy(out:find("\n%s+0%.00%s+0%.00%s+0/0%s+never %[%d+%]\n"), out)
    assert.truthy(out:find("\n%s+0%.00%s+0%.00%s+0/1%s+never %[%d+%]\n"), out)
    -- without it, no static arc
    local q <close> = assert(lgprof.open(exe, gmon))
    for x in q:arcs() do assert.is_false(x.is_static) end
    assert.are.equal(3, q.arc_count)
  end)

  it("marks tail calls, and flags arcs in the API, JSON and DOT (tails.c -O2)", function()
    local exe, gmon = build_static(dir, "tails", "-O2")
    local p <close> = assert(lgprof.open(exe, gmon, { static_arcs = true }))
    local a = arcs_of(p)
    assert.is_true(a["tail -> leaf"].is_static and a["tail -> leaf"].is_tail)
    assert.is_true(a["maybe -> leaf"].is_static)
    assert.is_false(a["maybe -> leaf"].is_tail)
    assert.is_false(a["main -> maybe"].is_static)
    assert.is_false(a["main -> maybe"].is_tail)
    -- JSON: schema 4 (3 gained "source"), the two flags on every arc, as the API says
    local status, out, err = cmd.lgprof({ "--static-arcs", "--format=json", "-z", exe, gmon })
    assert.are.equal(0, status, err)
    local cjson = require "cjson"
    local j = cjson.decode(out)
    assert.are.equal(4, j.version)
    local by_index = {}
    for _, f in ipairs(j.functions) do by_index[f.index] = f.symbol end
    local seen = 0
    for _, ja in ipairs(j.arcs) do
      local k = by_index[ja.caller] .. " -> " .. by_index[ja.callee]
      assert.are.equal(a[k].is_static, ja.is_static, k)
      assert.are.equal(a[k].is_tail, ja.is_tail, k)
      if ja.is_static then seen = seen + 1 end
    end
    assert.is_true(seen >= 2)
    -- DOT: the static arcs between drawn functions dashed, the others not
    local path = dir .. "/g.dot"
    assert(dot.write(p, path, { node_threshold = 0, edge_threshold = 0 }))
    local text = util.slurp(path)
    local function edge(key)
      return text:match('\n\t"f' .. a[key].caller.index .. '" %-> "f' .. a[key].callee.index
        .. '" (%b[]);')
    end
    local st = edge("maybe -> leaf")
    assert.truthy(st and st:find('style="?dashed'), text)
    local tl = edge("tail -> leaf")
    assert.truthy(tl and tl:find('style="?dashed'), text)
    -- (main is not drawn: no time, no calls) so these are all the edges
    local _, nedges = text:gsub("\n\t\"f%d+\" %->", "")
    assert.are.equal(2, nedges, text)
    -- without the option: no dashed edge
    local q <close> = assert(lgprof.open(exe, gmon))
    assert(dot.write(q, path, { node_threshold = 0, edge_threshold = 0 }))
    assert.falsy(util.slurp(path):find("dashed", 1, true))
  end)

  it("refuses executables of other machines in one line (exit 1)", function()
    local exe, gmon = dir .. "/arm", dir .. "/arm.gmon"
    ew.write(exe, { machine = ew.EM_AARCH64, symbols = {
      { name = "main", addr = 0x401000, type = "func", size = 16 } } })
    gw.write(gmon, { hist = { { low = 0x401000, high = 0x401010, rate = 100, bins = { 1, 0, 0, 0 } } },
                     arcs = { { from = 0x401004, to = 0x401000, count = 1 } } })
    local status, out, err = cmd.lgprof({ "--static-arcs", "-b", exe, gmon })
    assert.are.equal(1, status)
    assert.are.equal("", out)
    assert.are.equal("lgprof: " .. exe .. ": --static-arcs supports x86-64 only\n", err)
    local p, msg = lgprof.open(exe, gmon, { static_arcs = true })
    assert.is_nil(p)
    assert.are.equal(exe .. ": --static-arcs supports x86-64 only", msg)
    -- gprof's -c has no scan there: the report is the one without it
    local s1, out1 = cmd.lgprof({ "-c", "-b", exe, gmon })
    local s2, out2 = cmd.lgprof({ "-b", exe, gmon })
    assert.are.equal(0, s1)
    assert.are.equal(0, s2)
    assert.are.equal(out2, out1)
  end)

  it("checks the Lua options", function()
    local exe, gmon = build_static(dir, "calls", "-O0 -g")
    for _, k in ipairs { "static_arcs", "static_call_graph" } do
      local ok, err = pcall(lgprof.open, exe, gmon, { [k] = "yes" })
      assert.is_false(ok)
      assert.truthy(tostring(err):find("option '" .. k .. "' must be a boolean", 1, true), err)
    end
    -- static_call_graph: gprof -c's arcs (caller -> fwd_target only)
    local p <close> = assert(lgprof.open(exe, gmon, { static_call_graph = true }))
    local n = 0
    for a in p:arcs() do
      if a.is_static then
        n = n + 1
        assert.are.equal("caller -> fwd_target", a.caller.symbol .. " -> " .. a.callee.symbol)
      end
    end
    assert.are.equal(1, n)
  end)
end)
