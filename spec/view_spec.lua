-- profile:filter{} views, profile:find, profile:roots, profile.files and
-- core.regex_match. Every expectation is computed from the definitions on the
-- base profile's graph (breadth-first walks written here in Lua) or parsed
-- from GNU gprof's report of the same files; nothing is pasted from lgprof.
local lgprof = require "lgprof"
local core = require "lgprof.core"
local H = require "helpers"
local fx, cmd = H.fixtures, H.cmd

local EPS = 1e-9
local VARIANT = "O0g-nopie"

local builds = {}
local function build(name)
  if not builds[name] then builds[name] = assert(fx.build(name, VARIANT)) end
  return builds[name]
end

local function open(name)
  local b = build(name)
  return assert(lgprof.open(b.exe, b.gmon))
end

-- A function's identity across a base and its views: its address.
local function key(fn) return fn.address end

-- The base's graph: nodes by key, arcs out and in (self arcs kept apart).
local function graph(p)
  local g = { fn = {}, out = {}, inn = {}, count = {}, keys = {} }
  for fn in p:symbols() do
    local k = key(fn)
    g.fn[k] = fn
    g.out[k], g.inn[k] = {}, {}
    g.keys[#g.keys + 1] = k
  end
  for arc in p:arcs() do
    local a, b = key(arc.caller), key(arc.callee)
    g.count[a .. ">" .. b] = (g.count[a .. ">" .. b] or 0) + arc.count
    if a ~= b then
      g.out[a][#g.out[a] + 1] = b
      g.inn[b][#g.inn[b] + 1] = a
    end
  end
  return g
end

-- Keys reachable from the `start` set along out (or in) arcs, not entering `stop`.
local function reach(g, start, up, stop)
  local seen, queue, head = {}, {}, 1
  for k in pairs(start) do seen[k] = true; queue[#queue + 1] = k end
  while queue[head] do
    local v = queue[head]; head = head + 1
    for _, w in ipairs(up and g.inn[v] or g.out[v]) do
      if not seen[w] and not (stop and stop[w]) then
        seen[w] = true
        queue[#queue + 1] = w
      end
    end
  end
  return seen
end

-- Keys whose demangled name matches any of the EREs.
local function matches(g, patterns)
  if type(patterns) == "string" then patterns = { patterns } end
  local m = {}
  for _, k in ipairs(g.keys) do
    for _, pat in ipairs(patterns) do
      if core.regex_match(g.fn[k].name, pat) then m[k] = true end
    end
  end
  return m
end

local function keyset(p)
  local s = {}
  for fn in p:symbols() do s[key(fn)] = true end
  return s
end

local function names_of(g, set)
  local t = {}
  for k in pairs(set) do t[#t + 1] = g.fn[k] and g.fn[k].name or tostring(k) end
  table.sort(t)
  return t
end

local function minus(a, b)
  local r = {}
  for k in pairs(a) do if not b[k] then r[k] = true end end
  return r
end

local function count(set) local n = 0 for _ in pairs(set) do n = n + 1 end return n end

-- The keys matching the patterns (at least one), and the keys reachable from
-- them that the roots (functions without callers, not matching) do not reach
-- around them.
local function cut_at(g, patterns)
  local m = matches(g, patterns)
  assert.is_true(count(m) > 0)
  local roots = {}
  for _, k in ipairs(g.keys) do
    if not m[k] and #g.inn[k] == 0 then roots[k] = true end
  end
  local kept = reach(g, roots, false, m)
  local through = {}
  for k in pairs(reach(g, m, false)) do
    if not kept[k] then through[k] = true end
  end
  return m, through
end


-- The view's functions are exactly the base's functions minus `dropped`.
local function assert_kept(g, view, dropped)
  local expected = {}
  for _, k in ipairs(g.keys) do if not dropped[k] then expected[k] = true end end
  assert.are.same(names_of(g, expected), names_of(g, keyset(view)))
  assert.are.same(expected, keyset(view))
end

-- Sum of the base's self time over a set of keys.
local function self_sum(g, set)
  local s = 0
  for k in pairs(set) do s = s + g.fn[k].self end
  return s
end

local report_text = H.profile.report

-- Every function's calls equal the sum of its non-recursive callers' counts.
local function assert_calls_consistent(p)
  local n = 0
  for fn in p:symbols() do
    local sum, selfc = 0, 0
    for arc in fn:callers() do
      if arc.is_recursive then selfc = selfc + arc.count else sum = sum + arc.count end
    end
    assert.are.equal(sum, fn.calls, fn.name)
    assert.are.equal(selfc, fn.self_calls, fn.name)
    n = n + 1
  end
  return n
end

local function common_view_checks(base, view)
  assert.is_true(view.is_view)
  assert.is_false(base.is_view)
  assert.are.equal(base.total_time, view.base_time)
  assert_calls_consistent(view)
end

-- What a threshold can keep: functions gprof prints with some time or calls.
local function candidate(fn)
  return fn.printed and (fn.total > 0 or fn.calls + fn.self_calls > 0)
end

-- Thresholds only choose what is shown: every survivor keeps its numbers,
-- and the totals stay the source's.
local function threshold_view_checks(src, view)
  assert.is_true(view.is_view)
  assert.are.equal(src.total_time, view.total_time)
  assert.are.equal(src.print_time, view.print_time)
  for fn in view:symbols() do
    local s = assert(src:lookup(fn.address))
    for _, f in ipairs { "self", "children", "total", "calls", "self_calls", "percent", "index" } do
      assert.are.equal(s[f], fn[f], fn.name .. "." .. f)
    end
  end
  -- no shown arc has a removed end
  local shown = keyset(view)
  for arc in view:arcs() do
    assert.is_true(shown[key(arc.caller)] and shown[key(arc.callee)])
  end
end

describe("profile:filter", function()
  setup(function()
    for _, n in ipairs { "classic", "cycles", "hub300", "samename", "cxx_overload",
                         "funcptr", "cycle2callers", "mutrec" } do
      build(n)
    end
  end)

  it("rejects unknown options and bad patterns", function()
    local p <close> = open("classic")
    assert.has_error(function() p:filter { bogus = 1 } end, "bad argument #1 to 'filter' (unknown option 'bogus')")
    assert.has_error(function() p:filter { focus = "a", foucs = "b" } end)
    assert.has_error(function() p:filter { focus = "(" } end)
    assert.has_error(function() p:filter { ignore = { "^a$", "[z" } } end)
    local ok, err = pcall(p.filter, p, { hide = "a{1" })
    assert.is_false(ok)
    assert.matches("bad pattern", err)
    assert.has_error(function() p:filter { node_fraction = 2 } end)
    assert.has_error(function() p:filter { top = -1 } end)
    assert.has_error(function() p:filter { focus = 42 } end)
  end)

  it("a base is not a view; an empty filter keeps everything", function()
    local p <close> = open("cycles")
    assert.is_false(p.is_view)
    local v <close> = p:filter {}
    common_view_checks(p, v)
    assert.are.equal(p.total_time, v.total_time)
    assert_kept(graph(p), v, {})
  end)

  it("ignore drops the matches and whatever is reachable only through them", function()
    for _, case in ipairs {
      { "classic", "^a$" }, { "cycles", "^b1$" }, { "cycles", { "^a2$", "^c3$" } },
      { "cycle2callers", "first_caller" }, { "samename", "^a_work$" }, { "funcptr", "op_twice" },
    } do
      local p <close> = open(case[1])
      local g = graph(p)
      local m, only_through = cut_at(g, case[2])
      local dropped = m
      for k in pairs(only_through) do dropped[k] = true end
      local v <close> = p:filter { ignore = case[2] }
      common_view_checks(p, v)
      assert_kept(g, v, dropped)
      assert.is_true(v.total_time <= p.total_time + EPS)
      -- what remains is clamped at 0 (gprof's credits can exceed the samples)
      assert.near(math.max(0, p.total_time - self_sum(g, dropped)), v.total_time, EPS)
    end
  end)

  it("ignore of a cycle member drops what only the cycle reaches (classic: a -> b, c)", function()
    local p <close> = open("classic")
    local v <close> = p:filter { ignore = "^a$" }
    for _, n in ipairs { "a", "b", "c" } do assert.is_nil(v:find(n)) end
    assert.is_not_nil(v:find("main"))
  end)

  it("prune_from keeps the matches, drops the descendants reachable only through them", function()
    local total_dropped = 0
    for _, case in ipairs {
      { "classic", "^a$" }, { "cycles", "^b2$" }, { "cycle2callers", "first_caller" },
      { "samename", "_work$" }, { "cxx_overload", "^compute\\(int, int\\)$" },
    } do
      local p <close> = open(case[1])
      local g = graph(p)
      local m, only_through = cut_at(g, case[2])
      local dropped = {}
      for k in pairs(only_through) do
        if not m[k] then dropped[k] = true end
      end
      total_dropped = total_dropped + count(dropped)
      local v <close> = p:filter { prune_from = case[2] }
      common_view_checks(p, v)
      assert_kept(g, v, dropped)
      assert.near(math.max(0, p.total_time - self_sum(g, dropped)), v.total_time, EPS)
      -- the matches stay and lose their calls to others
      for k in pairs(m) do
        local fn = assert(v:find(g.fn[k].name, g.fn[k].file))
        for arc in fn:callees() do assert.are.equal(fn, arc.callee) end
      end
    end
    assert.is_true(total_dropped > 0)
  end)

  it("focus keeps exactly the matches, their ancestors and their descendants", function()
    for _, case in ipairs {
      { "classic", "^c$" }, { "classic", "^b$" }, { "cycles", "^leaf$" }, { "cycles", "^b2$" },
      { "cxx_overload", "^compute\\(double\\)$" }, { "hub300", { "^f01[0-9]$", "^f299$" } },
      { "samename", "^b_work$" },
    } do
      local p <close> = open(case[1])
      local g = graph(p)
      local m = matches(g, case[2])
      assert.is_true(count(m) > 0)
      local down, up = reach(g, m, false), reach(g, m, true)
      local dropped = {}
      for _, k in ipairs(g.keys) do
        if not down[k] and not up[k] then dropped[k] = true end
      end
      assert.is_true(count(dropped) > 0)
      local v <close> = p:filter { focus = case[2] }
      common_view_checks(p, v)
      assert_kept(g, v, dropped)
      -- ancestors only keep no self time; a match keeps all of its own; a
      -- descendant keeps the share its calls from the kept paths carry:
      -- share(v) = sum over kept callers a of share(a) * calls(a, v) / calls
      -- into v (gprof's apportioning by call counts). Derived here where no
      -- cycle is involved (inside a cycle the visit order makes it an estimate)
      local share, in_cycle = {}, {}
      for _, k in ipairs(g.keys) do in_cycle[k] = g.fn[k].cycle ~= nil end
      local function share_of(k, depth)
        if share[k] == nil then
          share[k] = { 0, false } -- in progress: a path back here is a cycle
          local total, f, exact = 0, 0, not in_cycle[k]
          for _, a in ipairs(g.inn[k]) do total = total + g.count[a .. ">" .. k] end
          if m[k] or total == 0 then
            f = 1
          else
            for _, a in ipairs(g.inn[k]) do
              if down[a] then
                local sa, ea = share_of(a, depth + 1)
                exact = exact and ea
                f = f + (sa or 0) * g.count[a .. ">" .. k] / total
              end
            end
          end
          share[k] = { math.min(f, 1), exact }
        end
        return share[k][1], share[k][2]
      end
      local zeroed, kept_self = {}, 0
      for fn in v:symbols() do
        local k = key(fn)
        if down[k] then
          local f, exact = share_of(k, 0)
          if exact then
            assert.near(g.fn[k].self * f, fn.self, EPS, fn.name)
          else
            assert.is_true(fn.self >= 0 and fn.self <= g.fn[k].self + EPS, fn.name)
          end
          kept_self = kept_self + (g.fn[k].self - fn.self)
        else
          assert.are.equal(0, fn.self, fn.name)
          zeroed[k] = true
        end
      end
      assert.near(math.max(0, p.total_time - self_sum(g, dropped) - self_sum(g, zeroed) - kept_self),
                  v.total_time, 1e-6)
      -- arcs: exactly those on paths through the matches
      local expected_arcs, got_arcs = {}, {}
      for arc in p:arcs() do
        local a, b = key(arc.caller), key(arc.callee)
        if up[b] or down[a] then expected_arcs[a .. ">" .. b] = arc.count end
      end
      for arc in v:arcs() do got_arcs[key(arc.caller) .. ">" .. key(arc.callee)] = arc.count end
      assert.are.same(expected_arcs, got_arcs)
    end
  end)

  it("hide moves a function's self time into its callers and keeps total_time", function()
    for _, case in ipairs {
      { "cxx_overload", "^compute\\(int, int\\)$", "compute(int, int)" },
      { "classic", "^a$", "a" }, { "classic", "^c$", "c" },
      { "samename", "^helper$", "helper" }, { "hub300", "^hub$", "hub" },
      { "cycles", "^leaf$", "leaf" }, { "funcptr", "^op_twice$", "op_twice" },
    } do
      local p <close> = open(case[1])
      local g = graph(p)
      local m = matches(g, case[2])
      assert.is_true(count(m) > 0)
      local v <close> = p:filter { hide = case[2] }
      common_view_checks(p, v)
      assert.near(p.total_time, v.total_time, EPS)
      assert_kept(g, v, m)
      -- the callers (outside the hidden set) gain exactly the hidden self time
      local hidden_self, callers = 0, {}
      for k in pairs(m) do
        hidden_self = hidden_self + g.fn[k].self
        for _, c in ipairs(g.inn[k]) do if not m[c] then callers[c] = true end end
      end
      assert.is_true(count(callers) > 0)
      local gained = 0
      for fn in v:symbols() do
        local k = key(fn)
        if callers[k] then
          gained = gained + fn.self - g.fn[k].self
        else
          assert.near(g.fn[k].self, fn.self, EPS, fn.name)
        end
      end
      assert.near(hidden_self, gained, EPS)
      -- gone from every listing, from find and from the report
      for fn in v:functions() do assert.are_not.equal(case[3], fn.name) end
      for fn in v:flat() do assert.are_not.equal(case[3], fn.name) end
      assert.is_nil((v:find(case[3])))
      assert.is_not_nil(p:find(case[3]) or p:find(case[3], g.fn[next(m)].file))
      local text = report_text(v)
      for line in text:gmatch("[^\n]+") do
        local name = line:match("%d%s+(.-) %[%d+%]$") or line:match("^%s*[%d.]+%s+[%d.]+%s+[%d.]+%s.-  (%S.*)$")
        if name then
          assert.are_not.equal(case[3], (name:gsub(" <cycle %d+>$", "")), line)
        end
      end
    end
  end)

  it("hide makes the callers call the callees directly (w_c * x_d / W, at least 1)", function()
    for _, case in ipairs {
      { "cxx_overload", "^compute\\(int, int\\)$" }, { "hub300", "^hub$" },
      { "samename", "_work$" }, { "classic", "^b$" },
    } do
      local p <close> = open(case[1])
      local g = graph(p)
      local m = matches(g, case[2])
      local v <close> = p:filter { hide = case[2] }
      -- expected arc counts, hiding one match after the other as defined
      -- (no fixture rounds a count down to 0, so "at least 1" is not exercised)
      local cnt = {}
      for kk, c in pairs(g.count) do cnt[kk] = c end
      local function arcs_of(k, up)
        local t = {}
        for kk, c in pairs(cnt) do
          local a, b = kk:match("^(%d+)>(%d+)$")
          a, b = tonumber(a), tonumber(b)
          if up and b == k and a ~= k then t[#t + 1] = { a, c } end
          if not up and a == k and b ~= k then t[#t + 1] = { b, c } end
        end
        return t
      end
      for _, k in ipairs(g.keys) do
        if m[k] then
          local ins, outs, W = arcs_of(k, true), arcs_of(k, false), 0
          for _, x in ipairs(ins) do W = W + x[2] end
          for _, i in ipairs(ins) do
            for _, o in ipairs(outs) do
              local c = math.floor(i[2] * o[2] / W + 0.5)
              local kk = i[1] .. ">" .. o[1]
              cnt[kk] = (cnt[kk] or 0) + math.max(c, 1)
            end
          end
          for kk in pairs(cnt) do
            local a, b = kk:match("^(%d+)>(%d+)$")
            if tonumber(a) == k or tonumber(b) == k then cnt[kk] = nil end
          end
        end
      end
      local got = {}
      for arc in v:arcs() do
        local kk = key(arc.caller) .. ">" .. key(arc.callee)
        got[kk] = (got[kk] or 0) + arc.count
      end
      assert.are.same(cnt, got)
    end
  end)

  it("hub300: hiding the hub gives main the hub's calls unchanged", function()
    local p <close> = open("hub300")
    local v <close> = p:filter { hide = "^hub$" }
    local hub = assert(p:find("hub"))
    local n = 0
    for arc in hub:callees() do
      local f = assert(v:find(arc.callee.name))
      local sum, from = 0, nil
      for a2 in f:callers() do sum = sum + a2.count; from = a2.caller.name end
      assert.are.equal(arc.count, sum)
      assert.are.equal("main", from)
      n = n + 1
    end
    assert.are.equal(300, n)
  end)

  it("node_fraction keeps exactly the functions with self+children >= fraction * print_time", function()
    for _, case in ipairs { { "hub300", 0.004 }, { "cycles", 0.15 }, { "classic", 0.3 }, { "cxx_overload", 0.05 } } do
      local p <close> = open(case[1])
      local g = graph(p)
      -- the fraction moved to halfway between the two function shares around
      -- it, so that no function sits on the boundary whatever was sampled
      local below, above = 0, math.huge
      for _, k in ipairs(g.keys) do
        local share = (g.fn[k].self + g.fn[k].children) / p.print_time
        if share <= case[2] and share > below then below = share end
        if share > case[2] and share < above then above = share end
      end
      case[2] = above < math.huge and (below + above) / 2 or case[2]
      local limit = case[2] * p.print_time
      local dropped = {}
      for _, k in ipairs(g.keys) do
        local t = g.fn[k].self + g.fn[k].children
        assert.is_true(math.abs(t - limit) > 1e-6, "fraction on a boundary")
        if t < limit or not candidate(g.fn[k]) then dropped[k] = true end
      end
      assert.is_true(count(dropped) > 0 and count(dropped) < #g.keys)
      local v <close> = p:filter { node_fraction = case[2] }
      threshold_view_checks(p, v)
      assert_kept(g, v, dropped)
    end
  end)

  it("top N keeps the first N functions of the index order", function()
    for _, case in ipairs { { "hub300", 25 }, { "cycles", 4 }, { "cxx_overload", 3 } } do
      local p <close> = open(case[1])
      local g = graph(p)
      local dropped, n = {}, 0
      for fn in p:functions() do
        n = n + (candidate(fn) and 1 or 0)
        if n > case[2] or not candidate(fn) then dropped[key(fn)] = true end
      end
      local v <close> = p:filter { top = case[2] }
      threshold_view_checks(p, v)
      assert_kept(g, v, dropped)
      assert.are.equal(case[2], count(keyset(v)))
    end
  end)

  it("min_calls drops called functions with fewer calls (calls + self_calls)", function()
    for _, case in ipairs { { "samename", 10 }, { "cxx_overload", 50000 }, { "selfrec", 150000 },
                            { "funcptr", 80000 } } do
      local p <close> = open(case[1])
      local g = graph(p)
      local dropped = {}
      for _, k in ipairs(g.keys) do
        local fn = g.fn[k]
        if (fn.calls + fn.self_calls < case[2] and #g.inn[k] > 0) or not candidate(fn) then
          dropped[k] = true
        end
      end
      assert.is_true(count(dropped) > 0)
      local v <close> = p:filter { min_calls = case[2] }
      threshold_view_checks(p, v)
      assert_kept(g, v, dropped)
    end
  end)

  it("edge_fraction drops light arcs except arcs inside a cycle and self arcs", function()
    for _, case in ipairs { { "cycles", 0.15 }, { "classic", 0.5 }, { "selfrec", 0.9 },
                            { "cxx_overload", 0.02 }, { "mutrec", 0.5 } } do
      local p <close> = open(case[1])
      -- the fraction moved to halfway between two droppable arcs' shares, the
      -- one at or below it (else the lightest) and the next (else 1), so
      -- that some arc is dropped and none sits on the boundary whatever was
      -- sampled
      local shares = {}
      for arc in p:arcs() do
        local same_cycle = arc.caller.cycle ~= nil and arc.caller.cycle == arc.callee.cycle
        if candidate(arc.caller) and candidate(arc.callee) and arc.caller ~= arc.callee
           and not same_cycle then
          shares[#shares + 1] = (arc.self + arc.children) / p.print_time
        end
      end
      table.sort(shares)
      assert(#shares > 0, case[1] .. ": no arc to drop")
      local lo, hi = shares[1], nil
      for _, x in ipairs(shares) do
        if x <= case[2] then lo = x elseif x > lo then hi = hi or x end
      end
      case[2] = (lo + (hi or 1)) / 2
      local limit = case[2] * p.print_time
      local expected, ndropped = {}, 0
      for arc in p:arcs() do
        local kk = key(arc.caller) .. ">" .. key(arc.callee)
        local same_cycle = arc.caller.cycle ~= nil and arc.caller.cycle == arc.callee.cycle
        if not (candidate(arc.caller) and candidate(arc.callee)) then
          ndropped = ndropped + 0 -- an end is not shown
        elseif arc.caller == arc.callee or same_cycle or arc.self + arc.children >= limit then
          expected[kk] = arc.count
        else
          ndropped = ndropped + 1
        end
      end
      assert.is_true(ndropped > 0, case[1])
      local v <close> = p:filter { edge_fraction = case[2] }
      threshold_view_checks(p, v)
      local got = {}
      for arc in v:arcs() do got[key(arc.caller) .. ">" .. key(arc.callee)] = arc.count end
      assert.are.same(expected, got)
      local inactive = {}
      for fn in p:symbols() do if not candidate(fn) then inactive[key(fn)] = true end end
      assert_kept(graph(p), v, inactive) -- the shown functions stay
    end
  end)

  it("thresholds judge the structurally filtered graph", function()
    local p <close> = open("hub300")
    -- one of the ignored functions is in the base's top 30 (whichever were
    -- sampled most), so that the two top 30s below surely differ
    local top_base <close> = p:filter { top = 30 }
    local first
    for fn in top_base:functions() do
      if not first and fn.name:match("^f%d%d%d$") then first = fn.name end
    end
    assert(first, "no fNNN in the top 30")
    local ignore = "^(f2[0-9][0-9]|" .. first .. ")$"
    local mid <close> = p:filter { ignore = ignore }
    local both <close> = p:filter { ignore = ignore, top = 30 }
    local g = graph(mid)
    local dropped, n = {}, 0
    for fn in mid:functions() do
      n = n + (candidate(fn) and 1 or 0)
      if n > 30 or not candidate(fn) then dropped[key(fn)] = true end
    end
    assert_kept(g, both, dropped)
    threshold_view_checks(mid, both)
    assert.are.equal(p.total_time, both.base_time)
    -- the base's top 30 holds an ignored function: the sets differ
    assert.are_not.same(keyset(top_base), keyset(both))
  end)

  it("a view of a view survives its base and the intermediate view", function()
    local p = open("cycles")
    local v1 = p:filter { ignore = "^b1$" }
    local v2 = v1:filter { hide = "^leaf$", top = 6 }
    local g1 = graph(v1)
    local dropped, n = {}, 0
    -- expected: hide leaf in v1, then top 6 of that
    local hidden <close> = v1:filter { hide = "^leaf$" }
    local gh = graph(hidden)
    for fn in hidden:functions() do
      n = n + (candidate(fn) and 1 or 0)
      if n > 6 or not candidate(fn) then dropped[key(fn)] = true end
    end
    for k in pairs(matches(g1, "^leaf$")) do dropped[k] = true end
    local expected = names_of(g1, minus(keyset(v1), dropped))
    local total = v2.total_time
    assert.are.equal(p.total_time, v2.base_time)
    p:close()
    v1:close()
    p, v1, g1 = nil, nil, nil
    collectgarbage()
    collectgarbage()
    local names = {}
    for fn in v2:symbols() do names[#names + 1] = fn.name end
    table.sort(names)
    assert.are.same(expected, names)
    assert.are.equal(total, v2.total_time)
    assert.matches("Call graph", report_text(v2, { brief = false }))
    local v3 <close> = v2:filter { focus = "^main$" }
    assert.is_true(v3.is_view)
    v2:close()
  end)

  it("closing a base with live views leaves the views readable", function()
    local p = open("classic")
    local v = p:filter { hide = "^c$" }
    local before = {}
    for fn in v:functions() do before[#before + 1] = fn.name .. "/" .. fn.self end
    p:close()
    collectgarbage()
    local after = {}
    for fn in v:functions() do after[#after + 1] = fn.name .. "/" .. fn.self end
    assert.are.same(before, after)
    assert.is_string(report_text(v))
    assert.is_not_nil(v:find("a"))
    v:close()
  end)

  it("gprof_report of a view leaves the removed functions out", function()
    local p <close> = open("cycles")
    local v <close> = p:filter { ignore = "^c1$" }
    local text = report_text(v, { brief = true })
    local seen = {}
    for name in text:gmatch("[%s]([abc]%d) ") do seen[name] = true end
    for name in text:gmatch("[%s]([abc]%d)\n") do seen[name] = true end
    for _, n in ipairs { "c1", "c2", "c3", "c4" } do assert.is_nil(seen[n], n) end
    for _, n in ipairs { "a1", "a2", "a3", "b1", "b2" } do assert.is_true(seen[n], n) end
  end)
end)

describe("profile:find", function()
  it("finds unique names and reports missing ones", function()
    for _, prog in ipairs { "classic", "cycles", "cxx_overload", "samename" } do
      local p <close> = open(prog)
      for fn in p:symbols() do
        local n = 0
        for f2 in p:symbols() do if f2.name == fn.name then n = n + 1 end end
        if n == 1 then assert.are.equal(fn, p:find(fn.name)) end
      end
      local f, msg = p:find("no_such_function_here")
      assert.is_nil(f)
      assert.is_string(msg)
      assert.matches("no_such_function_here", msg)
    end
    local p <close> = open("cxx_overload")
    assert.are.equal("compute(double)", p:find("compute(double)").name)
  end)

  it("tells statics of one name apart by their source file", function()
    local p <close> = open("samename")
    local f, msg = p:find("helper")
    assert.is_nil(f)
    assert.is_string(msg)
    local a = assert(p:find("helper", "a.c"))
    local b = assert(p:find("helper", "samename/b.c"))
    assert.matches("/a%.c$", a.file)
    assert.matches("/b%.c$", b.file)
    assert.are_not.equal(a, b)
    assert.are.equal(a, p:find("helper", a.file))
    assert.is_nil(p:find("helper", "ename/a.c")) -- not at a '/' boundary
    assert.is_nil(p:find("helper", "c.c"))
    -- a.c's helper is the one a.c's a_work calls (the arcs, not what was sampled)
    local a_work, b_work = assert(p:find("a_work")), assert(p:find("b_work"))
    for _, case in ipairs({ { a, a_work }, { b, b_work } }) do
      local n = 0
      for arc in case[1]:callers() do
        assert.are.equal(case[2], arc.caller)
        n = n + 1
      end
      assert.are.equal(1, n)
    end
    -- in a view that hides one of them the other becomes unique
    local v <close> = p:filter { hide = "^b_work$", ignore = "^a_work$" }
    assert.are.equal(b.address, assert(v:find("helper")).address)
  end)
end)

describe("profile:roots and profile.files", function()
  -- gprof -b -q: names of the entries whose parent line is <spontaneous>
  local function gprof_roots(b)
    local _, report = cmd.gprof({ "-b", "-q", b.exe, table.unpack(b.gmon) })
    local roots, spont = {}, false
    for line in report:gmatch("[^\n]*") do
      if line:match("<spontaneous>") then
        spont = true
      elseif line:match("^%-%-%-%-") then
        spont = false
      elseif line:match("^%[%d+%]") then
        if spont then
          local name = line:match("^%[%d+%]%s+[%d.]+%s+[%d.]+%s+[%d.]+%s+[%d+]*%s*(.-) %[%d+%]$")
          roots[#roots + 1] = (name:gsub(" <cycle %d+>$", ""))
        end
        spont = false
      end
    end
    return roots
  end

  it("roots are the entries gprof prints as <spontaneous>, in index order", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    for _, prog in ipairs { "classic", "cycles", "hub300", "samename", "cxx_overload",
                            "funcptr", "mutrec", "cycle2callers" } do
      local b = build(prog)
      local expected = gprof_roots(b)
      assert.is_true(#expected >= 1)
      local p <close> = open(prog)
      local got, prev = {}, 0
      for fn in p:roots() do
        got[#got + 1] = fn.name
        assert.is_true(fn.index > prev)
        prev = fn.index
      end
      assert.are.same(expected, got, prog)
    end
  end)

  it("roots of a view: hiding main makes its callees spontaneous", function()
    local p <close> = open("samename")
    local v <close> = p:filter { hide = "^main$" }
    -- expected: the base's roots (gprof's: see above) but main, plus the
    -- callees of main that no other function calls (a stray sample in
    -- frame_dummy, say, makes it a root of both)
    local main = assert(p:find("main"))
    local want, seen = {}, {}
    for fn in p:roots() do
      if fn.address ~= main.address then want[#want + 1] = fn.name; seen[fn.name] = true end
    end
    for arc in main:callees() do
      local only_main = true
      for a in arc.callee:callers() do
        local from = a.caller.address
        if from ~= main.address and from ~= arc.callee.address then only_main = false end
      end
      if only_main and not seen[arc.callee.name] then
        want[#want + 1] = arc.callee.name
        seen[arc.callee.name] = true
      end
    end
    assert.is_true(seen.a_work and seen.b_work)
    table.sort(want)
    local got = {}
    for fn in v:roots() do got[#got + 1] = fn.name end
    table.sort(got)
    assert.are.same(want, got)
  end)

  it("files lists the gmon paths", function()
    local b = build("classic")
    local p <close> = open("classic")
    assert.are.same(b.gmon, p.files)
    local one <close> = assert(lgprof.open(b.exe, b.gmon[2]))
    assert.are.same({ b.gmon[2] }, one.files)
    local v <close> = p:filter { top = 2 }
    assert.are.same(b.gmon, v.files)
  end)
end)

describe("core.regex_match", function()
  it("matches POSIX EREs anywhere in the name", function()
    assert.is_true(core.regex_match("a", "a|b"))
    assert.is_true(core.regex_match("b", "a|b"))
    assert.is_false(core.regex_match("c", "a|b"))
    assert.is_true(core.regex_match("axxxb", "x+"))
    assert.is_false(core.regex_match("ab", "x+"))
    assert.is_true(core.regex_match("f12", "^f[0-9]{2}$"))
    assert.is_false(core.regex_match("f123", "^f[0-9]{2}$"))
    assert.is_false(core.regex_match("af12", "^f[0-9]{2}$"))
    assert.is_true(core.regex_match("compute(int)", "compute\\(int\\)"))
    assert.is_false(core.regex_match("a|b", "^a\\|c"))
  end)

  it("raises on a bad pattern", function()
    assert.has_error(function() core.regex_match("x", "(") end)
    assert.has_error(function() core.regex_match("x", "[a") end)
    local ok, err = pcall(core.regex_match, "x", "a{2")
    assert.is_false(ok)
    assert.matches("bad pattern", err)
  end)
end)
