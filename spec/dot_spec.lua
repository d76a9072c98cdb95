-- lgprof.dot: the DOT export. Every graph is rendered by Graphviz (`dot -Tsvg`,
-- which must exit 0 and print nothing on stderr) and read back from the SVG:
-- the node set, the solid and dotted edge sets and every label are compared
-- with what the definitions (lua/lgprof/format/dot.lua's header) give when computed
-- here from the API by other routes (p:symbols() and p:arcs() instead of
-- p:functions() and fn:callees(); dotted edges by brute force over every
-- dropped function). Colours are checked against values computed with
-- gprof2dot's own Theme.color code.
local lgprof = require "lgprof"
local dot = require "lgprof.format.dot"
local H = require "helpers"
local fx, util, synth, cmd = H.fixtures, H.util, H.synth, H.cmd

local VARIANT = "O0g-nopie"
local MUL = "\u{D7}"
local HAVE_DOT = util.have("dot")
local DEFAULTS = { node_threshold = 0.005, edge_threshold = 0.001, max_nodes = 200,
                   dotted = true, legend = true }

local TMP
local seq = 0

local function open(name)
  local b = assert(fx.build(name, VARIANT))
  return assert(lgprof.open(b.exe, b.gmon))
end

---------------------------------------------------------------------------
-- Graphviz and its SVG

local function xml_unescape(s)
  s = s:gsub("&#[xX](%x+);", function(h)
    local c = tonumber(h, 16)
    return c == 160 and " " or utf8.char(c)
  end)
  s = s:gsub("&#(%d+);", function(d)
    local c = tonumber(d)
    return c == 160 and " " or utf8.char(c)
  end)
  return (s:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&apos;", "'")
           :gsub("&amp;", "&"))
end

-- { nodes = {[id] = {texts...}}, edges = {["fA->fB"] = {texts=, dotted=}},
--   clusters = {[name] = {texts...}} }
local function parse_svg(svg)
  local heads = {}
  for pos, class in svg:gmatch('()<g id="[^"]+" class="([^"]+)">') do
    heads[#heads + 1] = { pos = pos, class = class }
  end
  local r = { nodes = {}, edges = {}, clusters = {}, nedges = 0 }
  for i, h in ipairs(heads) do
    local chunk = svg:sub(h.pos, heads[i + 1] and heads[i + 1].pos - 1 or #svg)
    local title = xml_unescape(chunk:match("<title>(.-)</title>") or "")
    local texts = {}
    for t in chunk:gmatch("<text[^>]*>(.-)</text>") do texts[#texts + 1] = xml_unescape(t) end
    if h.class == "node" then
      assert(r.nodes[title] == nil, "node twice: " .. title)
      r.nodes[title] = texts
    elseif h.class == "edge" then
      assert(r.edges[title] == nil, "edge twice: " .. title)
      r.edges[title] = { texts = texts, dotted = chunk:find("stroke%-dasharray") ~= nil }
      r.nedges = r.nedges + 1
    elseif h.class == "cluster" then
      r.clusters[title] = texts
    end
  end
  return r
end

-- Writes the graph with dot.write (or takes DOT text) and renders it.
-- Returns { dot = text, svg = parsed }.
local function render(p, opts)
  seq = seq + 1
  local base = ("%s/g%d"):format(TMP, seq)
  assert(dot.write(p, base .. ".dot", opts))
  local ok = util.exec_ok(("dot -Tsvg %s -o %s 2>%s"):format(util.q(base .. ".dot"),
    util.q(base .. ".svg"), util.q(base .. ".err")))
  local err = util.slurp(base .. ".err")
  assert.is_true(ok, "dot failed: " .. tostring(err))
  assert.are.equal("", err)
  local text = util.slurp(base .. ".dot")
  return { dot = text, svg = parse_svg(assert(util.slurp(base .. ".svg"))) }
end

---------------------------------------------------------------------------
-- The expected graph, from the definitions

local function pct(x) return ("%.2f%%"):format(x * 100) end

local function calls_lines(t, calls, self_calls)
  if self_calls > 0 then t[#t + 1] = ("%d+%d%s"):format(calls, self_calls, MUL)
  elseif calls > 0 then t[#t + 1] = ("%d%s"):format(calls, MUL) end
  return t
end

local function expect(p, opts)
  local o = {}
  for k, v in pairs(DEFAULTS) do o[k] = v end
  for k, v in pairs(opts or {}) do o[k] = v end
  local T = p.print_time
  local function sh(x) return T > 0 and x / T or 0 end

  local all, cands = {}, {}
  for fn in p:symbols() do
    all[#all + 1] = fn
    if fn.printed and (fn.total > 0 or fn.calls + fn.self_calls > 0) then
      if sh(fn.total) >= o.node_threshold then cands[#cands + 1] = fn end
    end
  end
  table.sort(cands, function(a, b)
    if a.total ~= b.total then return a.total > b.total end
    return a.index < b.index
  end)
  local kept, nodes = {}, {}
  for i = 1, math.min(#cands, o.max_nodes) do
    kept[cands[i].index] = cands[i]
    nodes["f" .. cands[i].index] = cands[i]
  end

  local pairs_ = {}
  for arc in p:arcs() do
    local a, b = arc.caller.index, arc.callee.index
    if kept[a] and kept[b] then
      local k = ("f%d->f%d"):format(a, b)
      local e = pairs_[k] or { count = 0, time = 0, structural = false, callee = arc.callee }
      pairs_[k] = e
      e.count = e.count + arc.count
      if arc.in_cycle or arc.is_recursive or a == b then
        e.structural = true
      else
        e.time = e.time + arc.self + arc.children
      end
    end
  end
  local solid = {}
  for k, e in pairs(pairs_) do
    if e.structural or sh(e.time) >= o.edge_threshold then
      solid[k] = e
      if e.structural then
        e.texts = { ("%d%s"):format(e.count, MUL) }
      else
        e.texts = { pct(sh(e.time)), ("%d%s"):format(e.count, MUL) }
      end
    end
  end

  local dotted = {}
  if o.dotted and T > 0 then
    for _, x in ipairs(all) do
      local d = x.cycle and x.cycle.total or x.total
      if not kept[x.index] and d > 0 then
        for ain in x:callers() do
          local a = ain.caller
          local ta = ain.self + ain.children
          if kept[a.index] and ta > 0 then
            for aout in x:callees() do
              local b = aout.callee
              local tb = aout.self + aout.children
              local k = ("f%d->f%d"):format(a.index, b.index)
              local v = ta * tb / d
              if kept[b.index] and b.index ~= x.index and tb > 0 and a.index ~= b.index
                 and not solid[k] and v > 0 and v >= o.edge_threshold * T then
                dotted[k] = (dotted[k] or 0) + v
              end
            end
          end
        end
      end
    end
  end
  return { nodes = nodes, solid = solid, dotted = dotted, T = T, ncands = #cands, o = o }
end

local function keys(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return r
end

-- Checks one rendering against the expectation; returns counts.
local function check(p, opts)
  local e = expect(p, opts)
  local g = render(p, opts)
  local svg = g.svg
  local T = e.T
  local function sh(x) return T > 0 and x / T or 0 end

  -- nodes
  local got_nodes = {}
  for id in pairs(svg.nodes) do if id ~= "legend" then got_nodes[id] = true end end
  assert.are.same(keys(e.nodes), keys(got_nodes))
  assert.are.equal(e.o.legend, svg.nodes.legend ~= nil)
  for id, fn in pairs(e.nodes) do
    local lines = { fn.name, pct(sh(fn.total)), "(" .. pct(sh(fn.self)) .. ")" }
    assert.are.same(calls_lines(lines, fn.calls, fn.self_calls), svg.nodes[id], fn.name)
  end

  -- edges
  local got_solid, got_dotted = {}, {}
  for k, ed in pairs(svg.edges) do
    if ed.dotted then got_dotted[k] = ed else got_solid[k] = ed end
  end
  assert.are.same(keys(e.solid), keys(got_solid))
  for k, ed in pairs(e.solid) do assert.are.same(ed.texts, got_solid[k].texts, k) end
  assert.are.same(keys(e.dotted), keys(got_dotted))
  -- a dotted edge's value is a sum, which lgprof may add up in another
  -- order: its text is the rounding of the sum or of a neighbour within
  -- the float error (a value on a rounding boundary prints either way)
  for k, v in pairs(e.dotted) do
    local text = got_dotted[k].texts
    local lo, hi = pct(sh(v * (1 - 1e-12))), pct(sh(v * (1 + 1e-12)))
    if #text == 1 and text[1] == hi then lo = hi end
    assert.are.same({ lo }, text, k)
  end

  -- cycles: clusters holding exactly the kept members
  local want = {}
  for id, fn in pairs(e.nodes) do
    if fn.cycle then
      local n = fn.cycle.number
      want[n] = want[n] or {}
      table.insert(want[n], id)
      local lines = { fn.cycle.name, pct(sh(fn.cycle.total)), "(" .. pct(sh(fn.cycle.self)) .. ")" }
      assert.are.same(calls_lines(lines, fn.cycle.calls, 0), svg.clusters["cluster_" .. n])
      assert.are.equal(("<cycle %d>"):format(n), svg.clusters["cluster_" .. n][1])
    end
  end
  local got = {}
  for n, body in g.dot:gmatch('\n\tsubgraph "cluster_(%d+)" {(.-)\n\t}') do
    n = tonumber(n)
    got[n] = {}
    for id in body:gmatch('\n\t\t"(f%d+)" %[') do table.insert(got[n], id) end
  end
  for _, t in pairs(want) do table.sort(t) end
  for _, t in pairs(got) do table.sort(t) end
  assert.are.same(want, got)
  local nclusters = 0
  for name in pairs(svg.clusters) do
    if name ~= "cluster_legend" then nclusters = nclusters + 1 end
  end
  assert.are.equal(#keys(want), nclusters)

  return { nodes = #keys(e.nodes), solid = #keys(e.solid), dotted = #keys(e.dotted),
           ncands = e.ncands, clusters = nclusters, dot = g.dot, svg = svg }
end

---------------------------------------------------------------------------

describe("lgprof.format.dot", function()
  setup(function()
    TMP = util.mktempdir("lgprof-dot")
    fx.build_all({ VARIANT })
  end)
  teardown(function() util.rmtree(TMP) end)

  local totals = { nodes = 0, solid = 0, dotted = 0, clusters = 0 }
  for _, name in ipairs(fx.programs()) do
    it(name .. ": Graphviz renders it silently; nodes, edges, labels and cycles as defined",
      function()
        if not HAVE_DOT then pending("Graphviz dot not installed") return end
        local p <close> = open(name)
        local r = check(p)
        -- (a profile without samples draws nothing)
        if p.print_time > 0 then assert.is_true(r.nodes > 0, "no node at all") end
        for k in pairs(totals) do totals[k] = totals[k] + r[k] end
      end)
  end

  it("keeps the max_nodes heaviest functions, ties to the lower index", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    -- synthesized: main calls f01..f20; f01..f05 have 10 samples, f06..f15
    -- 5 (a run of ties), f16..f20 1; a cap of 12 keeps main, f01..f05 and
    -- 6 of the 10 tied functions, so it cuts inside the run of ties
    local funcs, arcs = { { "main", 0 } }, {}
    for i = 1, 20 do
      local name = ("f%02d"):format(i)
      funcs[#funcs + 1] = { name, i <= 5 and 10 or i <= 15 and 5 or 1 }
      arcs[#arcs + 1] = { "main", name, 1 }
    end
    local exe, gmon = synth.write(TMP, "ties", { funcs = funcs, arcs = arcs })
    local p <close> = assert(lgprof.open(exe, gmon))
    local g = dot.graph(p, { max_nodes = 12, node_threshold = 0 })
    assert.are.equal(12, #g.nodes)
    local r = check(p, { max_nodes = 12, node_threshold = 0 })
    assert.are.equal(12, r.nodes)
    local kept, tied = {}, {}
    for id in pairs(r.svg.nodes) do kept[id] = true end
    for fn in p:symbols() do
      local i = tonumber(fn.name:match("^f(%d+)$"))
      if fn.name == "main" or (i and i <= 5) then
        assert.is_true(kept["f" .. fn.index], fn.name)
      elseif i and i <= 15 then
        tied[#tied + 1] = fn
      end
    end
    -- the kept ones of the tie are the 6 of lowest index
    table.sort(tied, function(a, b) return a.index < b.index end)
    assert.are.equal(10, #tied)
    for k, fn in ipairs(tied) do
      assert.are.equal(k <= 6, kept["f" .. fn.index] == true, fn.name)
    end
  end)

  it("leaves out what gprof does not print (open's no_graph, gprof -Q)", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    -- b must weigh more than the default node threshold (b's time, and c's
    -- through b, over 5% of the call graph's time): a need of this build
    -- (helpers/fixtures.lua)
    local b = assert(fx.build("classic", VARIANT))
    local p <close> = assert(lgprof.open(b.exe, b.gmon, { no_graph = { "b" } }))
    local fb = assert(p:find("b"))
    assert.is_false(fb.printed)
    local r = check(p)
    assert.is_nil(r.svg.nodes["f" .. fb.index])
    assert.is_true(r.nodes >= 3)
  end)

  it("draws a view: profile:filter{hide=...}", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    for _, case in ipairs {
      { "classic", "^(b|c)$" },
      { "cxx_templates", "^(std|__gnu_cxx)::|^bool __gnu_cxx|^void std::" },
      { "cycles", "^leaf$" },
      { "hub300", "^hub$" },
    } do
      local p <close> = open(case[1])
      local v <close> = p:filter { hide = case[2] }
      assert.is_true(v.is_view)
      local r = check(v)
      assert.is_true(r.nodes > 0)
      for id, lines in pairs(r.svg.nodes) do
        if id ~= "legend" then
          assert.is_false(lgprof.match(lines[1], case[2]), lines[1])
        end
      end
      -- the legend says it is a view
      assert.matches("view of", table.concat(r.svg.nodes.legend, "\n"), 1, true)
      -- and the same view drawn with thresholds
      check(v, { node_threshold = 0.05, edge_threshold = 0.01 })
    end
  end)

  it("C++ names with <, >, &, operators and commas survive into the SVG", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    local seen = {}
    for _, name in ipairs { "cxx_overload", "cxx_templates", "cxx_virtual" } do
      local p <close> = open(name)
      local r = check(p, { node_threshold = 0, edge_threshold = 0, max_nodes = math.huge })
      for id, lines in pairs(r.svg.nodes) do
        if id ~= "legend" then
          for _, ch in ipairs { "<", ">", "&", "operator", ",", "::", "*", "[" } do
            if lines[1]:find(ch, 1, true) then seen[ch] = true end
          end
        end
      end
    end
    for _, ch in ipairs { "<", ">", "&", "operator", ",", "::", "*", "[" } do
      assert.is_true(seen[ch], "no name with " .. ch)
    end
  end)

  -- Real profiles written by helpers.synth, at hz = 100 (a sample is
  -- 0.01 s) and 10000 samples in all (T = 100 s, a sample is 0.01% of T).
  -- Returns the open Profile, its Functions by (shown) name, a lookup of a
  -- Function by its symbol name as written (before demangling), and the paths.
  local function synthesized(tag, spec, exe_name)
    local exe, gmon, addr = synth.write(TMP, exe_name or tag,
      { funcs = spec.functions, arcs = spec.arcs, hz = spec.hz })
    local p = assert(lgprof.open(exe, gmon))
    local by_name, by_addr = {}, {}
    for fn in p:symbols() do by_name[fn.name] = fn; by_addr[fn.address] = fn end
    return p, by_name, function(name) return by_addr[addr[name]] end, exe, gmon
  end

  local function edge_texts(g)
    local solid, dotted = {}, {}
    for k, e in pairs(g.svg.edges) do
      if e.dotted then dotted[k] = e.texts else solid[k] = e.texts end
    end
    return solid, dotted
  end

  -- gprof -b -q's call graph: arc times (self + children, in samples) by
  -- "caller->callee" from the callers' entries, entry totals by name.
  local function gprof_graph(exe, gmon)
    local _, out = cmd.gprof({ "-b", "-q", exe, gmon })
    local arcs, entries, caller, narcs = {}, {}, nil, 0
    for line in out:gmatch("[^\n]+") do
      if line:match("^%-%-%-") then
        caller = nil
      elseif line:match("^%[%d+%]") then
        local s, c, rest = line:match("^%[%d+%]%s+[%d.]+%s+([%d.]+)%s+([%d.]+)%s+(.*)$")
        local name = rest and not rest:find("as a whole", 1, true)
          and rest:match("(%S+) [<[]")
        if name then
          caller = name
          entries[name] = math.floor((tonumber(s) + tonumber(c)) * 100 + 0.5)
        end
      elseif caller then
        local s, c, n, name = line:match("^%s+([%d.]+)%s+([%d.]+)%s+(%d+)/%d+%s+(%S+) [<[]")
        if s then
          arcs[caller .. "->" .. name] = { t = math.floor((tonumber(s) + tonumber(c)) * 100 + 0.5),
                                          count = tonumber(n) }
          narcs = narcs + 1
        end
      end
    end
    return arcs, entries, narcs
  end

  -- The arithmetic of lua/lgprof/format/dot.lua's header, on numbers derived here by
  -- hand. Self samples: main 5756, C 104, B 3000, D 1000, E 100, X 10, V 10,
  -- L 20, Y Z W P Q K 0. Calls:
  --   main -> C 99, W -> C 1;  C -> B 2896, X -> B 30, Y -> B 35, Z -> B 9, Q -> B 30;
  --   C -> D 49, K -> D 1;  main -> X 1, C -> X 1;  main -> Y, Z, W, P, E, K: 1 each;
  --   P -> Q 1;  E -> V -> E (a cycle);  K -> L -> K (another cycle).
  -- gprof's propagation: an arc into f carries f's total * count / f's calls;
  -- into a cycle, the cycle's total * count / the calls from outside it;
  -- arcs inside a cycle carry nothing. In samples:
  --   B: 3000 over 3000 calls: t(C,B) 2896, t(X,B) 30, t(Y,B) 35, t(Z,B) 9, t(Q,B) 30
  --   D: 1000 over 50 calls: t(C,D) 980, t(K,D) 20
  --   X: 10 + 30 = 40 over 2 calls: t(main,X) = t(C,X) = 20
  --   C: 104 + 2896 + 980 + 20 = 4000 over 100 calls: t(main,C) 3960, t(W,C) 40
  --   Y, Z, W, Q, P (one caller each): t(main,Y) 35, t(main,Z) 9, t(main,W) 40,
  --      t(P,Q) 30, t(main,P) 30
  --   cycle {E, V}: 100 + 10 = 110 = t(main,E); E's own entry: 100, V's 10
  --   cycle {K, L}: 0 + 20 + t(K,D) 20 = 40 = t(main,K); K's own entry 20, L's 20
  --   main: 5756 + 3960 + 20 + 35 + 9 + 40 + 30 + 110 + 40 = 10000 = T
  -- Nodes (>= 0.5% of T = 50 samples): main 100%, C 40%, B 30%, D 10%, E 1%;
  -- dropped: X W 0.40%, Y 0.35%, P Q 0.30%, K L 0.20%, V 0.10%, Z 0.09%.
  -- Solid edges: main->C 39.60%, C->B 28.96%, C->D 9.80%, main->E 1.10%.
  -- Dotted, share t(A,X) * t(X,B) / D(X) / T, each path kept when >= 0.1% (10):
  --   main->X->B 20*30/40 = 15 + main->Y->B 35*35/35 = 35: main->B 50 = 0.50%;
  --   main->Z->B 9*9/9 = 9 < 10: cut (at edge_threshold 0.05% it counts: 0.59%);
  --   main->K->D with D(K) = its cycle's 40: 40*20/40 = 20 = 0.20% (K's own
  --      20 would give 0.40%);
  --   C->X->B 20*30/40 = 15 but C->B is solid; main->W->C 40 but main->C is
  --      solid; main->P->Q->B is two hops; E->V->E has the same ends (and in a
  --      real profile is a cycle, whose arcs carry no time): none of them.
  local DOTTED_PROFILE = {
    functions = {
      { "main", 5756 }, { "C", 104 }, { "B", 3000 }, { "D", 1000 }, { "E", 100 },
      { "X", 10 }, { "Y", 0 }, { "Z", 0 }, { "W", 0 }, { "P", 0 }, { "Q", 0 },
      { "V", 10 }, { "K", 0 }, { "L", 20 },
    },
    arcs = {
      { "main", "C", 99 }, { "W", "C", 1 },
      { "C", "B", 2896 }, { "X", "B", 30 }, { "Y", "B", 35 }, { "Z", "B", 9 }, { "Q", "B", 30 },
      { "C", "D", 49 }, { "K", "D", 1 }, { "main", "X", 1 }, { "C", "X", 1 },
      { "main", "Y", 1 }, { "main", "Z", 1 }, { "main", "W", 1 }, { "main", "P", 1 },
      { "P", "Q", 1 }, { "main", "E", 1 }, { "E", "V", 1 }, { "V", "E", 1 },
      { "main", "K", 1 }, { "K", "L", 1 }, { "L", "K", 1 },
    },
  }
  -- the hand-derived arc times (samples) and entry totals above
  local DERIVED_ARCS = {
    ["main->C"] = 3960, ["W->C"] = 40, ["C->B"] = 2896, ["X->B"] = 30, ["Y->B"] = 35,
    ["Z->B"] = 9, ["Q->B"] = 30, ["C->D"] = 980, ["K->D"] = 20, ["main->X"] = 20,
    ["C->X"] = 20, ["main->Y"] = 35, ["main->Z"] = 9, ["main->W"] = 40, ["P->Q"] = 30,
    ["main->P"] = 30, ["main->E"] = 110, ["main->K"] = 40,
  }
  local DERIVED_TOTALS = {
    main = 10000, C = 4000, B = 3000, D = 1000, E = 100, X = 40, W = 40, Y = 35,
    P = 30, Q = 30, K = 20, L = 20, V = 10, Z = 9,
  }

  it("dotted edges: one hop through dropped functions, summed per pair, cut per path", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    local p <close>, fn, _, exe, gmon = synthesized("dotted", DOTTED_PROFILE)
    -- the oracle agrees with the derivation: every timed arc, every entry
    if cmd.HAVE_GPROF then
      local arcs, entries, narcs = gprof_graph(exe, gmon)
      for k, t in pairs(DERIVED_ARCS) do
        assert.is_not_nil(arcs[k], k)
        assert.are.equal(t, arcs[k].t, k)
      end
      assert.are.equal(#keys(DERIVED_ARCS), narcs)
      assert.are.same(DERIVED_TOTALS, entries)
    end
    assert.are.equal(100, p.print_time)
    local function id(name) return "f" .. fn[name].index end
    local function e(a, b) return id(a) .. "->" .. id(b) end

    local g = render(p)
    local nodes = {}
    for k in pairs(g.svg.nodes) do if k ~= "legend" then nodes[#nodes + 1] = k end end
    table.sort(nodes)
    local want = { id "main", id "C", id "B", id "D", id "E" }
    table.sort(want)
    assert.are.same(want, nodes)
    local solid, dotted = edge_texts(g)
    assert.are.same({ [e("main", "C")] = { "39.60%", "99" .. MUL },
                      [e("C", "B")] = { "28.96%", "2896" .. MUL },
                      [e("C", "D")] = { "9.80%", "49" .. MUL },
                      [e("main", "E")] = { "1.10%", "1" .. MUL } }, solid)
    assert.are.same({ [e("main", "B")] = { "0.50%" }, [e("main", "D")] = { "0.20%" } }, dotted)
    -- the same with a lower edge threshold: Z's path counts too
    g = render(p, { edge_threshold = 0.0005 })
    solid, dotted = edge_texts(g)
    assert.are.same({ [e("main", "B")] = { "0.59%" }, [e("main", "D")] = { "0.20%" } }, dotted)
    assert.are.equal(4, #keys(solid))
    -- and none with dotted = false
    g = render(p, { dotted = false })
    solid, dotted = edge_texts(g)
    assert.are.same({}, dotted)
    assert.are.equal(4, #keys(solid))
    -- and the brute-force expectation (labels, E's cluster) agrees
    local r = check(p)
    assert.are.equal(1, r.clusters)
    assert.are.equal(2, r.dotted)
  end)

  -- What a live run samples differs from run to run, so the assertions that
  -- a case was exercised at all count the synthesized DOTTED_PROFILE too:
  -- with it, every kind of edge, a cluster, the cap and the edge threshold
  -- are exercised whatever the fixtures sampled.
  it("the fixtures exercise solid edges, dotted edges and clusters", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    local p <close> = synthesized("dotted-totals", DOTTED_PROFILE)
    local r = check(p)
    assert.is_true(totals.nodes + r.nodes > 5, "nothing rendered")
    assert.is_true(totals.solid + r.solid > 0, "no solid edge")
    assert.is_true(totals.dotted + r.dotted > 0, "no dotted edge")
    assert.is_true(totals.clusters + r.clusters > 0, "no cluster")
  end)

  it("honours custom thresholds, the node cap and dotted = false", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    local dotted, capped, dropped_edges = 0, 0, 0
    local cases = {}
    for _, name in ipairs { "classic", "cycles", "hub300", "cxx_templates", "deeprec",
                            "funcptr", "libcheavy", "mutrec" } do
      cases[#cases + 1] = function() return open(name) end
    end
    cases[#cases + 1] = function() return (synthesized("dotted-thresholds", DOTTED_PROFILE)) end
    for _, open_case in ipairs(cases) do
      local p <close> = open_case()
      local option_sets = {
        { node_threshold = 0.1, edge_threshold = 0.05 },
        { node_threshold = 0.2, edge_threshold = 0 },
        { node_threshold = 0.03, edge_threshold = 0.02 },
        { node_threshold = 0, edge_threshold = 0, max_nodes = math.huge },
        { max_nodes = 5 },
        { max_nodes = 0 },
        { node_threshold = 0.02, dotted = false, legend = false },
        { node_threshold = 1 },
      }
      -- and thresholds just above each of the heaviest functions, which drop
      -- that function and keep the heavier ones around it: the usual way a
      -- dotted edge appears, whatever the run sampled
      local shares = {}
      for fn in p:functions() do
        if fn.kind == "function" and fn.printed and fn.total > 0 then shares[#shares + 1] = fn.total / p.print_time end
      end
      table.sort(shares, function(x, y) return x > y end)
      local sets = {}
      for _, o in ipairs(option_sets) do sets[#sets + 1] = o end
      for i = 2, math.min(#shares, 8) do
        if shares[i] < shares[i - 1] then
          sets[#sets + 1] = { node_threshold = (shares[i] + shares[i - 1]) / 2, edge_threshold = 0 }
        end
      end
      for _, opts in ipairs(sets) do
        local r = check(p, opts)
        dotted = dotted + r.dotted
        if r.ncands > r.nodes then capped = capped + 1 end
        if opts.dotted == false then assert.is_nil(r.dot:find("style=dotted", 1, true)) end
        if opts.max_nodes == 0 then assert.are.equal(0, r.nodes) end
      end
      -- a stricter edge threshold never adds solid edges between the same nodes
      local loose = expect(p, { node_threshold = 0.01, edge_threshold = 0 })
      local strict = expect(p, { node_threshold = 0.01, edge_threshold = 0.2 })
      for k in pairs(strict.solid) do assert.is_truthy(loose.solid[k]) end
      dropped_edges = dropped_edges + #keys(loose.solid) - #keys(strict.solid)
    end
    assert.is_true(dotted > 0, "no dotted edge in any case")
    assert.is_true(capped > 0, "the node cap never bit")
    assert.is_true(dropped_edges > 0, "the edge threshold never dropped an edge")
  end)

  it("escapes every name: quotes, backslashes, escapes, entities, bad UTF-8, long names", function()
    if not HAVE_DOT then pending("Graphviz dot not installed") return end
    local long = ("x"):rep(5000)
    -- { symbol name, the label's name lines }
    local cases = {
      { 'say "hi"', { 'say "hi"' } },
      { "back\\slash\\", { "back\\slash\\" } },
      { "\\N \\G \\E \\T \\H \\L \\l \\r", { "\\N \\G \\E \\T \\H \\L \\l \\r" } },
      { "two\nlines", { "two", "lines" } },
      { "tab\there", { "tab\\x09here" } },
      { "&amp; &lt;x&gt; &#65; &", { "&amp; &lt;x&gt; &#65; &" } },
      { "a < b > c && d", { "a < b > c && d" } },
      { "node", { "node" } }, { "graph", { "graph" } }, { "0x1f", { "0x1f" } },
      { "edge -> x; { } [ ] = ,", { "edge -> x; { } [ ] = ," } },
      { "bad\xffbyte\xc3", { "bad\u{ff}byte\u{c3}" } },
      { "\u{fc}n\u{ef}c\u{f6}d\u{e9} \u{2603}", { "\u{fc}n\u{ef}c\u{f6}d\u{e9} \u{2603}" } },
      { long, { ("x"):rep(4095) .. "\u{2026}" } },
      { "<b>html?</b>", { "<b>html?</b>" } },
      { "std::map<int, char*>::operator[](int const&)",
        { "std::map<int, char*>::operator[](int const&)" } },
      -- mangled, shown demangled: operator+ (pl) of A const& (RK1A) and the
      -- same again (S1_, the third substitution)
      { "_ZplRK1AS1_", { "operator+(A const&, A const&)" } },
    }
    -- main, then every name with 100 samples (1% of T) and one call from main
    local spec = { functions = { { "main", 10000 - 100 * #cases } }, arcs = {} }
    for _, c in ipairs(cases) do
      spec.functions[#spec.functions + 1] = { c[1], 100 }
      spec.arcs[#spec.arcs + 1] = { "main", c[1], 1 }
    end
    -- the executable's path is the legend's title
    local title = 'fake "prog" <&> \\'
    local p <close>, _, sym = synthesized("names", spec, title)
    local g = render(p, { node_threshold = 0 })
    for _, c in ipairs(cases) do
      local lines = g.svg.nodes["f" .. sym(c[1]).index]
      assert.is_not_nil(lines, c[1])
      local want = {}
      for _, l in ipairs(c[2]) do want[#want + 1] = l end
      want[#want + 1] = "1.00%"
      want[#want + 1] = "(1.00%)"
      want[#want + 1] = "1" .. MUL
      assert.are.same(want, lines)
    end
    -- the title too (HTML label)
    assert.are.equal(TMP .. "/" .. title, g.svg.nodes.legend[1])
    assert.are.equal('"a\\"b\\\\"', dot.quote('a"b\\'))
  end)

  it("colours, pen widths and arrow sizes are gprof2dot's", function()
    -- computed with gprof2dot's TEMPERATURE_COLORMAP (Theme.color, DotWriter.color)
    for _, c in ipairs {
      { 0, "#0d0d73" }, { 0.001, "#0d0d73" }, { 0.005, "#0d0f73" }, { 0.1, "#0d3b80" },
      { 0.25, "#0c9393" }, { 0.3333, "#0b9f6e" }, { 0.5, "#0ab60a" }, { 0.75, "#dada06" },
      { 0.9, "#f06102" }, { 1.0, "#ff0000" }, { 1.5, "#ff0000" }, { -0.2, "#0d0d73" },
    } do
      assert.are.equal(c[2], dot.color(c[1]), tostring(c[1]))
    end
    for _, c in ipairs {
      { 0.1, 0.1, "#0c8591" }, { 0.1, 0.5, "#dbd305" }, { 0.1, 0.9, "#fb1d01" },
      { 3.0, 0.1, "#0d267a" }, { 3.0, 0.5, "#0ba35d" }, { 3.0, 0.9, "#e79204" },
    } do
      assert.are.equal(c[3], dot.color(c[2], c[1]), c[1] .. " " .. c[2])
    end
    -- in the file: an edge of share w has gprof2dot's penwidth, arrowsize and colour
    local p <close> = open("cxx_overload")
    local g = dot.graph(p)
    local text = assert(util.slurp((function()
      local path = TMP .. "/colours.dot"
      assert(dot.write(p, path))
      return path
    end)()))
    local n = 0
    for _, e in ipairs(g.edges) do
      if e.timed and not e.structural then
        local w = e.share
        local pw = math.max(w * 4, 0.5)
        local line = text:match('\n\t"f' .. e.caller.index .. '" %-> "f' .. e.callee.index
          .. '" %[([^\n]*)')
        assert.is_not_nil(line)
        assert.matches(('arrowsize="%.2f"'):format(0.5 * math.sqrt(pw)), line, 1, true)
        assert.matches(('penwidth="%.2f"'):format(pw), line, 1, true)
        assert.matches(('color="%s"'):format(dot.color(w)), line, 1, true)
        n = n + 1
      end
    end
    assert.is_true(n > 3)
    for _, fn in ipairs(g.nodes) do
      local line = text:match('\n\t+"f' .. fn.index .. '" %[([^\n]*)')
      assert.matches(('color="%s"'):format(dot.color(fn.total / p.print_time)), line, 1, true)
    end
  end)

  it("options: unknown or bad ones raise, files and handles, determinism", function()
    local p <close> = open("classic")
    assert.has_error(function() dot.write(p, io.stdout, { bogus = 1 }) end,
      "lgprof.dot: unknown option 'bogus'")
    assert.has_error(function() dot.write(p, io.stdout, { node_thresold = 0.1 }) end)
    for _, bad in ipairs {
      { node_threshold = -0.1 }, { node_threshold = 2 }, { edge_threshold = "tenth" },
      { node_threshold = "150%" }, { edge_threshold = "0x1p-3" },
      { max_nodes = -1 }, { max_nodes = 2.5 }, { dotted = 1 }, { legend = "no" },
      { skew = 0 }, { title = 3 }, { edge_threshold = 0 / 0 },
    } do
      assert.has_error(function() dot.write(p, io.stdout, bad) end)
    end
    assert.has_error(function() dot.write(p, io.stdout, "fast") end)
    assert.has_error(function() dot.write(p, nil) end)

    local ok, err = dot.write(p, TMP .. "/no/such/dir/x.dot")
    assert.is_nil(ok)
    assert.matches("no/such/dir", err, 1, true)

    local path = TMP .. "/det.dot"
    assert.is_true(dot.write(p, path))
    local a = util.slurp(path)
    local f = assert(io.tmpfile())
    assert.is_true(dot.write(p, f))
    f:seek("set")
    assert.are.equal(a, f:read("a"))
    f:close()
    assert.is_true(dot.write(p, path))
    assert.are.equal(a, util.slurp(path))
    -- a fresh open gives the same bytes
    local q <close> = open("classic")
    assert.is_true(dot.write(q, path))
    assert.are.equal(a, util.slurp(path))
    -- nodes are written in index order
    local last = 0
    for idx in a:gmatch('\n\t"f(%d+)" %[') do
      assert.is_true(tonumber(idx) > last)
      last = tonumber(idx)
    end
    assert.is_true(last > 0)
    -- legend and title
    assert.is_true(dot.write(p, path, { legend = false }))
    assert.is_nil(util.slurp(path):find("legend", 1, true))
    assert.is_true(dot.write(p, path, { title = "my <prog>" }))
    assert.matches("my &lt;prog&gt;", util.slurp(path), 1, true)
  end)
end)
