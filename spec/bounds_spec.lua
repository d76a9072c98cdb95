-- Attribution bounds: fn.total_min, fn.total_max (and a Cycle's),
-- fn.is_spontaneous, arc.is_estimated, profile:ambiguous().
--
-- Oracles: values derived by hand from the definitions on synthesized
-- profiles (helpers.synth: every sample and call known); a brute-force
-- oracle written here (components by mutual reachability, dominance by
-- removing a unit and walking from the roots, upper bounds by reachability
-- sums) on random small graphs; and the invariant total_min <= total <=
-- total_max on every fixture program, variant and profile, and on views.
local lgprof = require "lgprof"
local H = require "helpers"
local synth = require "helpers.synth"
local prng = require "helpers.prng"
local fx, util = H.fixtures, H.util

local EPS = 1e-9
local HZ = synth.HZ

local TMP = util.mktempdir("lgprof-bounds")
local seq = 0
local function write(model)
  seq = seq + 1
  return synth.write(TMP, "p" .. seq, model)
end

local function open(model, options)
  local exe, gmon = write(model)
  return assert(lgprof.open(exe, gmon, options))
end

local function near(want, got, what)
  assert(math.abs(want - got) <= EPS, ("%s: want %.12g, got %.12g"):format(what, want, got))
end

-- { name = {min, max} } in samples, checked on every function named
local function check_bounds(p, want)
  for name, mm in pairs(want) do
    local fn = assert(p:find(name), name)
    near(mm[1] / HZ, fn.total_min, name .. ".total_min")
    near(mm[2] / HZ, fn.total_max, name .. ".total_max")
  end
end

local function check_invariant(p, what)
  local n = 0
  for e in p:entries() do
    local slack = 1e-9 * math.max(1, e.total)
    assert(e.total_min <= e.total + slack and e.total <= e.total_max + slack,
      ("%s: %s: total %.9g outside [%.9g, %.9g]"):format(what, e.name, e.total, e.total_min,
        e.total_max))
    assert(e.total_min >= -slack and e.total_min <= e.total_max + slack, what .. ": " .. e.name)
    n = n + 1
  end
  for fn in p:symbols() do -- entries leave out what the call graph does not print
    local slack = 1e-9 * math.max(1, fn.total)
    assert(fn.total_min <= fn.total + slack and fn.total <= fn.total_max + slack,
      ("%s: %s: total %.9g outside [%.9g, %.9g]"):format(what, fn.name, fn.total, fn.total_min,
        fn.total_max))
  end
  return n
end

describe("attribution bounds", function()
  lazy_teardown(function() util.rmtree(TMP) end)

  describe("derived by hand", function()
    it("easy() and hard() both call work(): each gets 0 to all of it", function()
      -- gprof splits work's 100 samples 1000 : 1000000 by calls; the data
      -- proves only that each caller holds between none and all of it
      local p = open {
        funcs = { { "main", 0 }, { "easy", 0 }, { "hard", 0 }, { "work", 100 } },
        arcs = { { "main", "easy", 1 }, { "main", "hard", 1 }, { "easy", "work", 1000 },
                 { "hard", "work", 1000000 } },
      }
      check_bounds(p, { main = { 100, 100 }, easy = { 0, 100 }, hard = { 0, 100 },
                        work = { 100, 100 } })
      near(100 / HZ * 1000 / 1001000, p:find("easy").total, "gprof's estimate for easy")
      local est = {}
      for a in p:arcs() do est[a.caller.name .. ">" .. a.callee.name] = a.is_estimated end
      assert.same({ ["main>easy"] = false, ["main>hard"] = false, ["easy>work"] = true,
                    ["hard>work"] = true }, est)
      local amb = p:ambiguous()
      assert.equal(1, #amb)
      assert.equal("work", amb[1].func.name)
      assert.equal(2, amb[1].callers)
      assert.equal(1001000, amb[1].calls)
      near(100 / HZ, amb[1].time, "ambiguous time")
      assert.is_false(p:find("main").is_spontaneous)
    end)

    it("a diamond: the top dominates all, the join dominates below it", function()
      --   main -> a, b;  a, b -> d;  d -> e
      local p = open {
        funcs = { { "main", 0 }, { "a", 10 }, { "b", 20 }, { "d", 30 }, { "e", 40 } },
        arcs = { { "main", "a", 1 }, { "main", "b", 3 }, { "a", "d", 2 }, { "b", "d", 6 },
                 { "d", "e", 8 } },
      }
      check_bounds(p, { main = { 100, 100 }, a = { 10, 80 }, b = { 20, 90 }, d = { 70, 70 },
                        e = { 40, 40 } })
      local amb = p:ambiguous()
      assert.equal(1, #amb)
      assert.equal("d", amb[1].func.name)
      near(70 / HZ, amb[1].time, "d's time")
      -- a view that ignores a: b then leads to everything left
      local v = p:filter { ignore = "^a$" }
      check_bounds(v, { main = { 90, 90 }, b = { 90, 90 }, d = { 70, 70 } })
      assert.same({}, v:ambiguous())
      check_invariant(v, "ignore a")
    end)

    it("a chain: every bound is what lies below", function()
      local p = open {
        funcs = { { "main", 1 }, { "a", 2 }, { "b", 3 }, { "c", 4 } },
        arcs = { { "main", "a", 1 }, { "a", "b", 5 }, { "b", "c", 7 } },
      }
      check_bounds(p, { main = { 10, 10 }, a = { 9, 9 }, b = { 7, 7 }, c = { 4, 4 } })
      assert.same({}, p:ambiguous())
      for a in p:arcs() do assert.is_false(a.is_estimated) end
    end)

    it("a cycle: a unit with bounds, its members their own self and what they reach", function()
      -- main -> x <-> y (cycle), y -> z, main -> w -> z
      local p = open {
        funcs = { { "main", 0 }, { "x", 10 }, { "y", 20 }, { "z", 30 }, { "w", 5 } },
        arcs = { { "main", "x", 1 }, { "x", "y", 5 }, { "y", "x", 4 }, { "y", "z", 3 },
                 { "main", "w", 1 }, { "w", "z", 2 } },
      }
      check_bounds(p, { main = { 65, 65 }, x = { 10, 10 }, y = { 20, 50 }, z = { 30, 30 },
                        w = { 5, 35 } })
      local cyc = assert(p:find("x").cycle)
      near(30 / HZ, cyc.total_min, "cycle total_min")
      near(60 / HZ, cyc.total_max, "cycle total_max")
      check_invariant(p, "cycle")
      local est = {}
      for a in p:arcs() do est[a.caller.name .. ">" .. a.callee.name] = a.is_estimated end
      -- inside the cycle nothing is carried; z has two callers
      assert.same({ ["main>x"] = false, ["x>y"] = false, ["y>x"] = false, ["y>z"] = true,
                    ["main>w"] = false, ["w>z"] = true }, est)
    end)

    it("a spontaneous root: marked, and its callee no longer dominated by main", function()
      -- handler's caller is not profiled (a signal handler, say): no arc into it
      local p = open {
        funcs = { { "main", 0 }, { "a", 30 }, { "handler", 10 }, { "idle", 0 }, { "cb", 0 },
                  { "leaf", 5 } },
        arcs = { { "main", "a", 1 }, { "handler", "a", 2 }, { "cb", "leaf", 1 } },
      }
      check_bounds(p, { main = { 0, 30 }, handler = { 10, 40 }, a = { 30, 30 }, cb = { 5, 5 } })
      assert.is_true(p:find("handler").is_spontaneous)
      assert.is_true(p:find("cb").is_spontaneous)    -- no samples of its own, but it ran
      assert.is_false(p:find("main").is_spontaneous) -- the program's entry
      assert.is_false(p:find("idle").is_spontaneous) -- never ran
      assert.is_false(p:find("a").is_spontaneous)
      assert.is_true(p:find("a").cycle == nil)
      local amb = p:ambiguous()
      assert.equal(1, #amb)
      assert.equal("a", amb[1].func.name)
    end)

    it("ambiguous callees come heaviest first", function()
      local p = open {
        funcs = { { "main", 0 }, { "p", 0 }, { "q", 0 }, { "light", 5 }, { "heavy", 50 },
                  { "mid", 20 } },
        arcs = { { "main", "p", 1 }, { "main", "q", 1 }, { "p", "light", 1 }, { "q", "light", 1 },
                 { "p", "heavy", 1 }, { "q", "heavy", 1 }, { "p", "mid", 1 }, { "q", "mid", 1 } },
      }
      local names = {}
      for i, e in ipairs(p:ambiguous()) do names[i] = e.func.name end
      assert.same({ "heavy", "mid", "light" }, names)
    end)

    it("time tables (-n/-N) scale the bounds with the total", function()
      local model = {
        funcs = { { "main", 0 }, { "a", 10 }, { "b", 20 }, { "d", 30 }, { "e", 40 } },
        arcs = { { "main", "a", 1 }, { "main", "b", 3 }, { "a", "d", 2 }, { "b", "d", 6 },
                 { "d", "e", 8 } },
      }
      for _, o in ipairs { { no_time = { "d" } }, { no_time = { "b" } }, { time = { "a" } },
                           { time = { "d" } }, { no_time = { "main" } } } do
        local p = open(model, o)
        check_invariant(p, next(o) .. " " .. o[next(o)][1])
      end
    end)
  end)

  -- {================================================== brute force

  -- The oracle's reading of a model: units (components by mutual
  -- reachability), timed edges, and the bounds by definition.
  local function oracle(model)
    local names, self, idx = {}, {}, {}
    for i, f in ipairs(model.funcs) do
      names[i], self[i], idx[f[1]] = f[1], f[2], i
    end
    local n = #names
    local out = {}
    for i = 1, n do out[i] = {} end
    for _, a in ipairs(model.arcs) do
      local u, v = idx[a[1]], idx[a[2]]
      if u ~= v and a[3] > 0 then out[u][#out[u] + 1] = v end
    end
    local function reach_from(starts, banned)
      local seen, stack = {}, {}
      for _, s in ipairs(starts) do
        if s ~= banned and not seen[s] then seen[s] = true; stack[#stack + 1] = s end
      end
      while #stack > 0 do
        local u = table.remove(stack)
        for _, v in ipairs(out[u]) do
          if v ~= banned and not seen[v] then seen[v] = true; stack[#stack + 1] = v end
        end
      end
      return seen
    end
    local R = {}
    for i = 1, n do R[i] = reach_from(out[i]) end -- reachable in one step or more
    local comp = {}
    for i = 1, n do
      comp[i] = i
      for j = 1, i - 1 do
        if R[i][j] and R[j][i] then comp[i] = comp[j] break end
      end
    end
    -- the unit graph
    local units, uself, uout, uin = {}, {}, {}, {}
    for i = 1, n do
      local c = comp[i]
      if not uself[c] then units[#units + 1] = c; uself[c], uout[c], uin[c] = 0, {}, 0 end
      uself[c] = uself[c] + self[i]
    end
    local member_out = {}
    for i = 1, n do member_out[i] = {} end
    for _, a in ipairs(model.arcs) do
      local u, v = idx[a[1]], idx[a[2]]
      if a[3] > 0 and comp[u] ~= comp[v] then
        uout[comp[u]][#uout[comp[u]] + 1] = comp[v]
        uin[comp[v]] = uin[comp[v]] + 1
        member_out[u][#member_out[u] + 1] = comp[v]
      end
    end
    local function ureach(starts, banned)
      local seen, stack = {}, {}
      for _, s in ipairs(starts) do
        if s ~= banned and not seen[s] then seen[s] = true; stack[#stack + 1] = s end
      end
      while #stack > 0 do
        local u = table.remove(stack)
        for _, v in ipairs(uout[u]) do
          if v ~= banned and not seen[v] then seen[v] = true; stack[#stack + 1] = v end
        end
      end
      return seen
    end
    local roots = {}
    for _, c in ipairs(units) do if uin[c] == 0 then roots[#roots + 1] = c end end
    local all = ureach(roots)
    local umin, umax, size = {}, {}, {}
    for i = 1, n do size[comp[i]] = (size[comp[i]] or 0) + 1 end
    for _, f in ipairs(units) do
      local without = ureach(roots, f)
      -- a unit's own part is its call-graph self: a cycle that nothing
      -- calls has none in gprof (it gives such a cycle fraction 0), while
      -- what its members pass up counts
      local own = (size[f] > 1 and uin[f] == 0) and 0 or uself[f]
      local lo, below = own, ureach(uout[f])
      for _, d in ipairs(units) do
        if d ~= f and all[d] and not without[d] then lo = lo + uself[d] end
      end
      local hi = own
      for d in pairs(below) do hi = hi + uself[d] end
      umin[f], umax[f] = lo, hi
    end
    local res = { units = units, comp = comp, umin = umin, umax = umax, uin = uin, uself = uself,
                  uout = uout,
                  names = names, fmin = {}, fmax = {} }
    for i = 1, n do
      local c = comp[i]
      local in_cycle = false
      for j = 1, n do if j ~= i and comp[j] == c then in_cycle = true end end
      res.in_cycle = res.in_cycle or {}
      res.in_cycle[i] = in_cycle
      if in_cycle then
        local hi = self[i]
        for d in pairs(ureach(member_out[i])) do hi = hi + uself[d] end
        res.fmin[i], res.fmax[i] = self[i], hi
      else
        res.fmin[i], res.fmax[i] = umin[c], umax[c]
      end
    end
    return res
  end

  local function random_model(rand, n)
    local funcs, arcs, seen = {}, {}, {}
    for i = 1, n do
      funcs[i] = { i == 1 and "main" or ("f" .. i), rand(4) == 0 and 0 or rand(50) }
    end
    local narcs = n + rand(2 * n)
    for _ = 1, narcs do
      local u, v = 1 + rand(n), 1 + rand(n)
      if rand(4) ~= 0 and u > v then u, v = v, u end -- mostly forward: some cycles
      local key = u .. ">" .. v
      if not seen[key] then
        seen[key] = true
        arcs[#arcs + 1] = { funcs[u][1], funcs[v][1], 1 + rand(20) }
      end
    end
    return { funcs = funcs, arcs = arcs }
  end

  it("match a brute-force oracle on 60 random graphs", function()
    local rand = prng.new(16)
    for round = 1, 60 do
      local model = random_model(rand, 3 + rand(8))
      local o = oracle(model)
      local p = open(model)
      local what = ("graph %d"):format(round)
      for i, name in ipairs(o.names) do
        local fn = assert(p:find(name))
        near(o.fmin[i] / HZ, fn.total_min, what .. " " .. name .. ".total_min")
        near(o.fmax[i] / HZ, fn.total_max, what .. " " .. name .. ".total_max")
        assert.is_true(fn.total_max_exact)
        assert.equal(o.in_cycle[i], fn.cycle ~= nil, what .. " " .. name .. " in a cycle")
        -- a root that ran (time or calls out) and does not hold main
        local c = o.comp[i]
        local spont = o.uin[c] == 0 and (o.umax[c] > 0 or #o.uout[c] > 0)
        for k, nm in ipairs(o.names) do
          if o.comp[k] == c and nm == "main" then spont = false end
        end
        assert.equal(spont, fn.is_spontaneous, what .. " " .. name .. ".is_spontaneous")
      end
      for cyc in p:cycles() do
        local member = cyc:members()()
        local c
        for i, name in ipairs(o.names) do if name == member.name then c = o.comp[i] end end
        near(o.umin[c] / HZ, cyc.total_min, what .. " " .. cyc.name .. ".total_min")
        near(o.umax[c] / HZ, cyc.total_max, what .. " " .. cyc.name .. ".total_max")
      end
      -- estimated arcs: timed, into a unit with time below it and two timed callers or more
      local comp_of = {}
      for i, name in ipairs(o.names) do comp_of[name] = o.comp[i] end
      for a in p:arcs() do
        local u, v = comp_of[a.caller.name], comp_of[a.callee.name]
        local want = a.count > 0 and u ~= v and o.uin[v] > 1 and o.umax[v] > 0
        assert.equal(want, a.is_estimated, what .. " " .. tostring(a))
      end
      local amb, want = p:ambiguous(), 0
      for _, c in ipairs(o.units) do
        if o.uin[c] > 1 and o.umax[c] > 0 then want = want + 1 end
      end
      assert.equal(want, #amb, what .. ": ambiguous callees")
      for k, e in ipairs(amb) do
        local c = e.func.kind == "cycle" and comp_of[e.func:members()().name] or comp_of[e.func.name]
        assert.equal(o.uin[c], e.callers, what)
        near(e.func.total, e.time, what)
        if k > 1 then assert.is_true(amb[k - 1].time >= e.time, what .. ": heaviest first") end
      end
      check_invariant(p, what)
      p:close()
    end
  end)

  it("stay sound past the exact sums' work limit, and say so", function()
    -- a chain of 300: the exact sums cost 300^2/2 steps, past 16 passes over
    -- the graph; the leaves' are exact, the top's composed (a chain has no
    -- sharing, so still the suffix sums); a ladder (two callees sharing all
    -- below) then gives composed bounds above the exact sums
    local funcs, arcs, n = {}, {}, 300
    for i = 1, n do funcs[i] = { i == 1 and "main" or ("c" .. i), i % 7 } end
    for i = 1, n - 1 do arcs[i] = { funcs[i][1], funcs[i + 1][1], 1 } end
    local p <close> = open { funcs = funcs, arcs = arcs }
    local suffix, exact_seen, inexact_seen = 0, 0, 0
    for i = n, 1, -1 do
      suffix = suffix + funcs[i][2]
      local fn = p:find(funcs[i][1])
      near(suffix / HZ, fn.total_max, fn.name .. ".total_max")
      near(suffix / HZ, fn.total_min, fn.name .. ".total_min")
      if fn.total_max_exact then exact_seen = exact_seen + 1 else inexact_seen = inexact_seen + 1 end
      if i > n - 10 then assert.is_true(fn.total_max_exact, fn.name) end
    end
    assert.is_false(p:find("main").total_max_exact)
    assert.is_true(exact_seen > 0 and inexact_seen > 0)
    -- the ladder: a_i -> a_{i+1}, b_{i+1}; b_i -> a_{i+1}, b_{i+1}
    funcs, arcs = { { "main", 0 } }, { { "main", "a1", 1 }, { "main", "b1", 1 } }
    local m = 150
    for i = 1, m do
      funcs[#funcs + 1] = { "a" .. i, 1 }
      funcs[#funcs + 1] = { "b" .. i, 2 }
      if i < m then
        for _, x in ipairs { "a", "b" } do
          arcs[#arcs + 1] = { x .. i, "a" .. (i + 1), 1 }
          arcs[#arcs + 1] = { x .. i, "b" .. (i + 1), 1 }
        end
      end
    end
    local q <close> = open { funcs = funcs, arcs = arcs }
    check_invariant(q, "ladder")
    local all = 3 * m
    for i = 1, m do
      local below = 3 * (m - i) -- what a_i reaches besides itself
      local fn = q:find("a" .. i)
      if fn.total_max_exact then
        near((1 + below) / HZ, fn.total_max, fn.name)
      else
        assert.is_true(fn.total_max >= (1 + below) / HZ - EPS and fn.total_max <= all / HZ + EPS)
      end
    end
    assert.is_false(q:find("main").total_max_exact)
    near(all / HZ, q:find("main").total_max, "main: at most everything")
  end)

  -- }==================================================

  describe("total_min <= total <= total_max", function()
    local function heaviest_called(p)
      local best
      for fn in p:flat() do
        if fn.calls > 0 and (not best or fn.flat_self > best.flat_self) then best = fn end
      end
      return best and ("^" .. best.name:gsub("[%^%$%(%)%.%[%]%*%+%?{}|\\]", "\\%0") .. "$")
    end

    local function views(p)
      local list = { { top = 5 }, { node_fraction = 0.05 } }
      local pat = heaviest_called(p)
      if pat then
        list[#list + 1] = { hide = pat }
        list[#list + 1] = { focus = pat }
        list[#list + 1] = { ignore = pat }
        list[#list + 1] = { prune_from = pat, top = 3 }
      end
      return list
    end

    local function each_build(programs, variants, granularity)
      for _, name in ipairs(programs) do
        for _, variant in ipairs(variants) do
          it(("on %s %s%s, every profile and views of it"):format(name, variant,
              granularity and " (" .. granularity .. ")" or ""), function()
            local b = assert(fx.build(name, variant))
            local gmons = { table.unpack(b.gmon) }
            gmons[#gmons + 1] = b.gmon -- the sum of all
            for _, g in ipairs(gmons) do
              local p <close> = assert(lgprof.open(b.exe, g, { granularity = granularity }))
              local n = check_invariant(p, name)
              assert.is_true(n > 0)
              for _, spec in ipairs(views(p)) do
                local v <close> = assert(p:filter(spec))
                check_invariant(v, name .. " view")
              end
            end
          end)
        end
      end
    end

    each_build(fx.programs(), fx.variants)
    each_build(fx.line_programs(), fx.line_variants)
    each_build({ "cycles", "mutrec", "lrec" }, { "O0g-pie" }, "line")
  end)
end)
