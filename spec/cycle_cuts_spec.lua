-- profile:cycle_cuts{...} and `lgprof --break-cycles[=N]`: the arcs whose
-- removal breaks every cycle of N or more members.
--
-- Oracles:
--   * an independent strongly-connected-component search written here (an
--     iterative Tarjan over profile:arcs(), recursive arcs left out, as
--     gprof's cycles leave them out): the arcs minus the cuts hold no
--     component of N or more members; the counts before are its counts;
--     every cut lies inside a component of N or more members (cycles below
--     N are left alone);
--   * GNU gprof: the report after the list is byte for byte what gprof
--     prints with the -k options the list gives (the -k line pasted into a
--     shell as printed), on every fixture program with cycles and on a
--     program built here whose cut goes between two static functions of
--     the same name (FILE:NAME);
--   * hand-derived exact cut sets on small synthesized graphs (weights
--     chosen so that the lightest choice is the only optimal one), and
--     counts that follow from the definitions (a complete digraph of k
--     nodes needs exactly k(k-1)/2 cuts: one arc of each pair);
--   * the 50,000-member cycle of the scale spec: one cut, of 1 call, in
--     well under a second.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, synth, prng = H.fixtures, H.util, H.cmd, H.synth, H.prng

local sq = util.q

---------------------------------------------------------------------------
-- the independent check
---------------------------------------------------------------------------

-- Strongly connected components of nodes 1..n over arcs {from, to}
-- (recursive arcs skipped): the component of each node and their sizes.
local function scc(n, arcs)
  local adj = {}
  for v = 1, n do adj[v] = {} end
  for _, a in ipairs(arcs) do
    if a[1] ~= a[2] then table.insert(adj[a[1]], a[2]) end
  end
  local index, low, onstack, stack, comp, sizes = {}, {}, {}, {}, {}, {}
  local counter = 0
  for r = 1, n do
    if not index[r] then
      local call = { { r, 1 } }
      counter = counter + 1
      index[r], low[r] = counter, counter
      stack[#stack + 1] = r
      onstack[r] = true
      while #call > 0 do
        local top = call[#call]
        local v, i = top[1], top[2]
        local u = adj[v][i]
        if u then
          top[2] = i + 1
          if not index[u] then
            counter = counter + 1
            index[u], low[u] = counter, counter
            stack[#stack + 1] = u
            onstack[u] = true
            call[#call + 1] = { u, 1 }
          elseif onstack[u] and index[u] < low[v] then
            low[v] = index[u]
          end
        else
          call[#call] = nil
          if low[v] == index[v] then
            local c = #sizes + 1
            sizes[c] = 0
            repeat
              local x = table.remove(stack)
              onstack[x] = nil
              comp[x] = c
              sizes[c] = sizes[c] + 1
            until x == v
          end
          local parent = call[#call]
          if parent and low[v] < low[parent[1]] then low[parent[1]] = low[v] end
        end
      end
    end
  end
  return comp, sizes
end

local function counts(sizes, n)
  local cycles, large, largest = 0, 0, 0
  for _, s in ipairs(sizes) do
    if s >= 2 then
      cycles = cycles + 1
      if s >= n then large = large + 1 end
      largest = math.max(largest, s)
    end
  end
  return cycles, large, largest
end

-- The profile's graph as numbers: node of each function (by address), and
-- the arcs {from, to, arc handle}.
local function graph_of(p)
  local node, n = {}, 0
  for fn in p:symbols() do
    n = n + 1
    node[fn.address] = n
  end
  local arcs = {}
  for a in p:arcs() do
    arcs[#arcs + 1] = { node[a.caller.address], node[a.callee.address], a }
  end
  return n, arcs
end

-- Checks cuts (profile:cycle_cuts's result) against the search above.
local function check_cuts(p, cuts, n, what)
  what = what or ""
  local nodes, arcs = graph_of(p)
  local comp, sizes = scc(nodes, arcs)
  local cycles, large, largest = counts(sizes, n)
  assert.are.equal(cycles, cuts.cycles_before, what .. "cycles before")
  assert.are.equal(large, cuts.large_before, what .. "large cycles before")
  assert.are.equal(largest, cuts.largest_before, what .. "largest before")
  assert.are.equal(n, cuts.min_members)
  local cut, calls = {}, 0
  for i, a in ipairs(cuts) do
    assert.are.equal("arc", lgprof.type(a))
    assert.is_nil(cut[a], what .. "an arc cut twice")
    cut[a] = true
    calls = calls + a.count
    if i > 1 then assert(cuts[i - 1].count <= a.count, what .. "cuts lightest first") end
  end
  assert.are.equal(calls, cuts.calls)
  local left = {}
  for _, a in ipairs(arcs) do
    if cut[a[3]] then
      -- inside one component of n or more members: smaller cycles are left alone
      assert(a[1] ~= a[2], what .. "a recursive arc cut")
      assert(comp[a[1]] == comp[a[2]] and sizes[comp[a[1]]] >= n,
        what .. "a cut outside the cycles of " .. n .. " or more members")
    else
      left[#left + 1] = a
    end
  end
  local _, after = scc(nodes, left)
  local c2, l2, big2 = counts(after, n)
  assert.are.equal(0, l2, what .. "a cycle of " .. n .. " or more members is left")
  assert.are.equal(c2, cuts.cycles_after, what .. "cycles after")
  assert.are.equal(0, cuts.large_after)
  assert.are.equal(big2, cuts.largest_after, what .. "largest after")
  return sizes
end

-- Each cut as "caller/callee" (symbol names), sorted.
local function pairs_of(cuts)
  local t = {}
  for _, a in ipairs(cuts) do t[#t + 1] = a.caller.symbol .. "/" .. a.callee.symbol end
  table.sort(t)
  return t
end

---------------------------------------------------------------------------

describe("cycle cuts", function()
  local tmpdir = util.block_tmpdir("lgprof-cycle-cuts")

  local function write(tag, model)
    local exe, gmon = synth.write(tmpdir(), tag, model)
    return exe, gmon
  end

  describe("on synthesized graphs", function()
    -- a -> b -> c -> a (10, 10, 1) and c <-> d (5 and 2): one component
    -- {a, b, c, d}. N = 2: c -> a and d -> c (3 calls; any other pair of
    -- cuts breaking both cycles weighs more). N = 3: c -> a alone (c <-> d
    -- is a cycle of 2). N = 5: nothing (4 members).
    local NESTED = {
      funcs = { { "main", 1 }, { "a", 2 }, { "b", 3 }, { "c", 4 }, { "d", 5 } },
      arcs = { { "main", "a", 1 }, { "a", "b", 10 }, { "b", "c", 10 }, { "c", "a", 1 },
               { "c", "d", 5 }, { "d", "c", 2 } },
    }

    it("the lightest arcs, an exact set for each N", function()
      local exe, gmon = write("nested", NESTED)
      local p <close> = assert(lgprof.open(exe, gmon))
      local c2 = p:cycle_cuts()
      check_cuts(p, c2, 2)
      assert.are.same({ "c/a", "d/c" }, c2.specs) -- lightest first
      assert.are.same({ true, true }, c2.exact)
      assert.are.equal(3, c2.calls)
      assert.is_true(c2.minimal)
      assert.are.equal(0, c2.crowded)
      local c3 = p:cycle_cuts { min_members = 3 }
      check_cuts(p, c3, 3)
      assert.are.same({ "c/a" }, pairs_of(c3))
      assert.are.equal(1, c3.cycles_after) -- c <-> d, below the threshold
      assert.are.equal(2, c3.largest_after)
      local c5 = p:cycle_cuts { min_members = 5 }
      check_cuts(p, c5, 5)
      assert.are.equal(0, #c5)
      assert.are.equal(0, c5.large_before)
      -- the Lua API's counts alone
      local only = p:cycle_cuts { count_only = true, min_members = 3 }
      assert.are.same({ min_members = 3, cycles_before = 1, large_before = 1, largest_before = 4 }, only)
    end)

    it("keeps the heavy arcs of a ring whatever its order in the symbol table", function()
      -- f1 -> f2 -> f3 -> f4 -> f5 -> f1, all 50 calls but f3 -> f4 (3):
      -- the symbols' order would cut f5 -> f1 (50)
      local exe, gmon = write("ring5", {
        funcs = { { "main", 1 }, { "f1", 1 }, { "f2", 1 }, { "f3", 1 }, { "f4", 1 }, { "f5", 1 } },
        arcs = { { "main", "f1", 1 }, { "f1", "f2", 50 }, { "f2", "f3", 50 }, { "f3", "f4", 3 },
                 { "f4", "f5", 50 }, { "f5", "f1", 50 } },
      })
      local p <close> = assert(lgprof.open(exe, gmon))
      local c = p:cycle_cuts()
      check_cuts(p, c, 2)
      assert.are.same({ "f3/f4" }, pairs_of(c))
    end)

    it("a complete digraph of 8 needs 28 cuts, one arc of each pair", function()
      local funcs, arcs, rand = { { "main", 1 } }, {}, prng.new(7)
      for i = 1, 8 do funcs[#funcs + 1] = { "k" .. i, i } end
      arcs[1] = { "main", "k1", 1 }
      for i = 1, 8 do
        for j = 1, 8 do
          if i ~= j then arcs[#arcs + 1] = { "k" .. i, "k" .. j, 1 + rand(100) } end
        end
      end
      local exe, gmon = write("clique", { funcs = funcs, arcs = arcs })
      local p <close> = assert(lgprof.open(exe, gmon))
      local c = p:cycle_cuts { one_per_caller = false }
      check_cuts(p, c, 2)
      assert.is_true(c.minimal)
      assert.are.equal(28, #c)
      local pair = {}
      for _, a in ipairs(c) do
        local key = a.caller.name < a.callee.name and a.caller.name .. a.callee.name
          or a.callee.name .. a.caller.name
        assert.is_nil(pair[key], "both arcs of a pair cut")
        pair[key] = true
      end
      -- with gprof's -k in mind, one cut per caller cannot be had here
      local g = p:cycle_cuts()
      check_cuts(p, g, 2, "one per caller: ")
      local status, out, err = cmd.lgprof({ "-b", "-q", "--break-cycles", exe, gmon })
      assert.are.equal(0, status, err)
      local note = out:find("Note: gprof keeps one -k per calling function", 1, true)
      assert.are.equal(g.crowded > 0, note ~= nil)
      -- the cycles the options leave, as the report below shows them
      local q <close> = assert(lgprof.open(exe, gmon, { exclude_arcs = g.specs }))
      assert.truthy(out:find(("Cycles of 2 or more members: 1 before %%(the largest has 8 members%%), %d after%%."):format(
        q.cycle_count)))
    end)

    it("random graphs with many cycles: valid for every N; the -k specs delete the cuts", function()
      local crowded = 0
      for seed = 1, 6 do
        local rand = prng.new(seed)
        local n, m = 40 + 10 * seed, 150 + 60 * seed
        local funcs, arcs, seen = { { "main", 1 } }, { { "main", "r1", 1 } }, {}
        for i = 1, n do funcs[#funcs + 1] = { "r" .. i, rand(5) } end
        while #arcs < m do
          local i, j = 1 + rand(n), 1 + rand(n)
          -- mostly short arcs, so that there are many small cycles too
          if rand(3) > 0 then j = math.min(n, math.max(1, i + rand(9) - 4)) end
          local key = i .. ">" .. j
          if not seen[key] then
            seen[key] = true
            arcs[#arcs + 1] = { "r" .. i, "r" .. j, 1 + rand(1000) }
          end
        end
        local exe, gmon = write("random" .. seed, { funcs = funcs, arcs = arcs })
        local p <close> = assert(lgprof.open(exe, gmon))
        for _, N in ipairs { 2, 3, 5, 8 } do
          for _, opc in ipairs { true, false } do
            local c = p:cycle_cuts { min_members = N, one_per_caller = opc }
            check_cuts(p, c, N, ("seed %d N %d one_per_caller %s: "):format(seed, N, opc))
            if opc and c.crowded == 0 then
              -- reopened with the specs as gprof's -k: no cycle of N or more
              local q <close> = assert(lgprof.open(exe, gmon, { exclude_arcs = c.specs }))
              local again = q:cycle_cuts { min_members = N, count_only = true }
              assert.are.equal(0, again.large_before)
              assert.are.equal(p.arc_count - #c, q.arc_count)
            end
          end
        end
        -- the report after the list is gprof's with the printed -k options
        -- (the command deletes the arcs by their functions, each caller's
        -- last option winning as in gprof's table: callers with several
        -- cuts among them)
        crowded = crowded + p:cycle_cuts().crowded
        if cmd.HAVE_GPROF then
          local status, out, err = cmd.shell(sq(cmd.LGPROF) .. " -b --break-cycles " .. sq(exe) .. " "
            .. sq(gmon))
          assert.are.equal(0, status, err)
          local kline = out:match("\n(%-k [^\n]*)\n") or ""
          assert.are_not.equal("", kline)
          local gstatus, gout, gerr = cmd.shell(cmd.GPROF_ENV .. "gprof -b " .. kline .. " " .. sq(exe)
            .. " " .. sq(gmon))
          assert.are.equal(0, gstatus, gerr)
          assert(#out > #gout and out:sub(-#gout) == gout,
            "seed " .. seed .. ": the report after the list is not gprof's with " .. kline)
        end
      end
      assert(crowded > 0, "no caller with several cuts")
    end)

    it("a name with a dot is named FILE:NAME, or flagged when there is no file", function()
      local exe, gmon = write("dots", {
        funcs = { { "main", 1 }, { "a.part.0", 5 }, { "b", 3 } },
        arcs = { { "main", "a.part.0", 2 }, { "a.part.0", "b", 10 }, { "b", "a.part.0", 4 } },
      })
      local p <close> = assert(lgprof.open(exe, gmon))
      local c = p:cycle_cuts()
      check_cuts(p, c, 2)
      assert.are.same({ "b/a.part.0" }, c.specs)
      assert.are.same({ false }, c.exact) -- gprof reads a.part.0 as a file name
      local status, out, err = cmd.lgprof({ "-b", "-q", "--break-cycles", exe, gmon })
      assert.are.equal(0, status, err)
      assert.truthy(out:find("Cycles of 2 or more members: 1 before (the largest has 2 members), 1 after.",
        1, true))
      assert.truthy(out:find("Note: gprof's symspecs cannot name some of these functions alone", 1, true))
    end)

    it("the 50,000-member cycle of the scale spec: one arc of 1 call, well under a second", function()
      local n, g = 50000, 1000
      local funcs, arcs = { { "main", 7 } }, { { "main", "f0", g } }
      for j = 0, n - 1 do funcs[#funcs + 1] = { "f" .. j, j // g } end
      for j = 1, n - 1 do arcs[#arcs + 1] = { "f" .. (j - 1), "f" .. j, 1 + j % g } end
      arcs[#arcs + 1] = { "f" .. (n - 1), "f0", 1 }
      local exe, gmon = write("ring50k", { funcs = funcs, arcs = arcs })
      local p <close> = assert(lgprof.open(exe, gmon))
      local t0 = os.clock()
      local c = p:cycle_cuts()
      local cpu = os.clock() - t0
      -- (CPU time, not wall; under ASan or on a loaded machine's shared
      -- caches a linear pass stays far below, a quadratic one far above)
      assert(cpu < 2, ("cycle_cuts took %.3f s of CPU"):format(cpu))
      check_cuts(p, c, 2)
      assert.are.equal(1, #c)
      assert.are.equal(1, c[1].count)
      assert.are.equal(50000, c.largest_before)
      -- the command, within a 1 MB stack like the scale spec's
      -- (its CPU time, from the shell's `times`, not the wall clock, which a
      -- loaded machine stretches; a quadratic walk of the ring would take
      -- minutes, so the bound has room for a slow machine and sanitizers)
      local status, out, err = cmd.shell("ulimit -s 1024; " .. sq(cmd.LGPROF)
        .. " -b -p --break-cycles " .. sq(exe) .. " " .. sq(gmon) .. "; s=$?; times >&2; exit $s")
      assert.are.equal(0, status, err)
      local um, us, sm, ss = err:match("\n(%d+)m([%d.]+)s (%d+)m([%d.]+)s%s*$")
      assert(um, "no times in: " .. err)
      local child_cpu = um * 60 + us + sm * 60 + ss
      assert(child_cpu <= 5, ("the command took %.2f s of CPU"):format(child_cpu))
      assert.truthy(out:find("Cycles of 2 or more members: 1 before (the largest has 50000 members), 0 after.",
        1, true))
    end)

    it("a component of over 262,144 arcs: the order by id alone, cuts valid for N = 2 and 3", function()
      -- 30,000 functions, each calling the next ten (mostly forward by id)
      -- and every other one calling a random earlier one: one component
      -- whose order by id cuts about 5% of its arcs, the case where the
      -- other layouts are left out and the put-back searches run out of
      -- budget
      local rand = prng.new(7)
      local n = 30000
      local funcs, arcs = { { "main", 1 } }, { { "main", "g1", 5 } }
      for i = 1, n do funcs[#funcs + 1] = { "g" .. i, 1 } end
      for i = 1, n do
        for d = 1, 10 do
          if i + d <= n then arcs[#arcs + 1] = { "g" .. i, "g" .. (i + d), 1 + rand(1000) } end
        end
        if i % 2 == 0 then arcs[#arcs + 1] = { "g" .. i, "g" .. (1 + rand(i - 1)), 1 + rand(1000) } end
      end
      arcs[#arcs + 1] = { "g" .. n, "g1", 1 }
      local exe, gmon = write("big", { funcs = funcs, arcs = arcs })
      local p <close> = assert(lgprof.open(exe, gmon))
      assert(p.arc_count > 262144, "arcs: " .. p.arc_count)
      for _, N in ipairs { 2, 3 } do
        local c = p:cycle_cuts { min_members = N }
        check_cuts(p, c, N, "N " .. N .. ": ")
        assert.are.equal(n, c.largest_before)
        assert(#c < p.arc_count / 10, "cuts: " .. #c)
      end
    end)

    it("a profile with no cycles says so, and its report is unchanged", function()
      local exe, gmon = write("chain", {
        funcs = { { "main", 1 }, { "a", 2 }, { "b", 3 } },
        arcs = { { "main", "a", 1 }, { "a", "a", 4 }, { "a", "b", 2 } }, -- a recursive arc is no cycle
      })
      local p <close> = assert(lgprof.open(exe, gmon))
      local c = p:cycle_cuts()
      check_cuts(p, c, 2)
      assert.are.equal(0, #c)
      assert.are.equal(0, c.cycles_before)
      local s1, plain = cmd.lgprof({ "-b", exe, gmon })
      local s2, out, err = cmd.lgprof({ "-b", "--break-cycles", exe, gmon })
      assert.are.equal(0, s1)
      assert.are.equal(0, s2, err)
      assert.are.equal("The call graph has no cycles: there is nothing to break.\n\n" .. plain, out)
    end)

    it("bad values of N and options it cannot go with are usage errors (exit 2)", function()
      local exe, gmon = write("nested2", NESTED)
      for _, v in ipairs { "=1", "=0", "=x", "=-3", "=2.5", "=", "=1e3" } do
        local status, out, err = cmd.lgprof({ "--break-cycles" .. v, exe, gmon })
        assert.are.equal(2, status, v .. ": " .. err)
        assert.are.equal("", out)
        assert.truthy(err:find("^lgprof: [^\n]*\nTry 'lgprof %-%-help' for more information%.\n$"), err)
      end
      for _, args in ipairs { { "--format=json" }, { "-l" }, { "-c" }, { "--static-arcs" },
                              { "-qa/b" }, { "--annotate-lines" }, { "-s" } } do
        local argv = { "--break-cycles" }
        table.move(args, 1, #args, 2, argv)
        argv[#argv + 1], argv[#argv + 2] = exe, gmon
        local status, out, err = cmd.lgprof(argv, { cwd = tmpdir() })
        assert.are.equal(2, status, table.concat(args, " ") .. ": " .. err)
        assert.are.equal("", out)
      end
      local p <close> = assert(lgprof.open(exe, gmon))
      assert.has_error(function() p:cycle_cuts { min_members = 1 } end)
      assert.has_error(function() p:cycle_cuts { bogus = true } end)
      assert.has_error(function() p:cycle_cuts { one_per_caller = 1 } end)
    end)
  end)

  ---------------------------------------------------------------------------
  -- gprof, the oracle of the report after the list
  ---------------------------------------------------------------------------

  -- Runs lgprof opts --break-cycles... on exe gmon and gprof opts + the
  -- printed -k line; lgprof's output must be a header ending in gprof's.
  local function against_gprof(exe, gmon, opts, n, what)
    local bc = "--break-cycles" .. (n and "=" .. n or "")
    local status, out, err = cmd.shell(sq(cmd.LGPROF) .. " " .. opts .. " " .. bc .. " "
      .. sq(exe) .. " " .. sq(gmon))
    assert.are.equal(0, status, what .. ": " .. err)
    assert.are.equal("", err)
    local kline = out:match("\n(%-k [^\n]*)\n") or ""
    local gstatus, gout, gerr = cmd.shell(cmd.GPROF_ENV .. "gprof " .. opts .. " " .. kline .. " "
      .. sq(exe) .. " " .. sq(gmon))
    assert.are.equal(0, gstatus, what .. ": gprof: " .. gerr)
    assert(#out > #gout and out:sub(-#gout) == gout,
      what .. ": the report after the list is not gprof's with " .. kline)
    local header = out:sub(1, #out - #gout)
    assert.truthy(header:find("\n\n$"), what .. ": a blank line ends the list")
    return header, kline
  end

  describe("the list's names", function()
    -- main -> A (1), A -> B (1), B -> A (5), all the time in main: the cut
    -- is A -> B, after which B has no calls and no time, so gprof's call
    -- graph prints no entry for B; yet B's print flag stays set, and gprof
    -- names it "B [3]" among A's callers (print_name: "(3)" is only for an
    -- entry the graph leaves out by its flag). The list names the cut's
    -- ends as gprof's report names them.
    it("are those of gprof's report with the printed -k options", function()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      local exe, gmon = write("zero-end", {
        funcs = { { "main", 10 }, { "A", 0 }, { "B", 0 } },
        arcs = { { "main", "A", 1 }, { "A", "B", 1 }, { "B", "A", 5 } },
      })
      local status, out, err = cmd.lgprof({ "-b", "-q", "--break-cycles", exe, gmon })
      assert.are.equal(0, status, err)
      local kline = out:match("\n(%-k [^\n]*)\n")
      assert.are.equal("-k A/B", kline)
      local gstatus, gout, gerr = cmd.gprof({ "-b", "-q", "-k", "A/B", exe, gmon })
      assert.are.equal(0, gstatus, gerr)
      local from, to = out:match("\t(.-) to (.-) with 1 calls\n")
      assert.are.equal("A [2]", from)
      assert.are.equal("B [3]", to)
      -- as gprof's report prints them, at the end of a call graph line
      for _, name in ipairs({ from, to }) do
        assert.truthy(("\n" .. gout):find(" " .. name:gsub("%p", "%%%0") .. "\n"), name)
      end
    end)
  end)

  describe("on every fixture program with cycles", function()
    local builds = {}
    setup(function()
      for _, name in ipairs(fx.programs()) do
        for _, variant in ipairs { "O0g-pie", "O2-nopie" } do
          local b = assert(fx.build(name, variant))
          local dir = tmpdir() .. "/" .. name .. "-" .. variant
          assert(util.mkdir(dir))
          builds[#builds + 1] = { name = name .. "/" .. variant, files = fx.snapshot(b, dir) }
        end
      end
    end)

    it("cuts leave no cycle of N or more members; cycles below N stay", function()
      local with_cycles = 0
      for _, b in ipairs(builds) do
        for run = 1, 3 do
          local p <close> = assert(lgprof.open(b.files.exe, b.files.gmon[run]))
          local c2 = p:cycle_cuts()
          local sizes = check_cuts(p, c2, 2, b.name .. " run " .. run .. ": ")
          assert.are.equal(p.cycle_count, c2.cycles_before, b.name .. ": gprof's cycles")
          if c2.cycles_before > 0 then
            with_cycles = with_cycles + 1
            assert(#c2 > 0)
            local _, _, largest = counts(sizes, 2)
            for N = 3, largest + 1 do
              check_cuts(p, p:cycle_cuts { min_members = N }, N, b.name .. " N=" .. N .. ": ")
            end
          end
        end
      end
      assert(with_cycles >= 8, "fixture profiles with cycles: " .. with_cycles)
    end)

    it("the report after the list is gprof's with the printed -k options, byte for byte", function()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      local compared = 0
      for _, b in ipairs(builds) do
        local p <close> = assert(lgprof.open(b.files.exe, b.files.gmon[1]))
        local c = p:cycle_cuts()
        if c.cycles_before > 0 then
          -- (with a -k of its own, the command reads the files again: the
          -- cuts' specs join the command line's, the last per caller wins)
          -- (-r: gprof's function ordering copies the -k tables' symbols)
          for _, opts in ipairs { "", "-b", "-b -q -z", "-b -k main/", "-r" } do
            local header, kline = against_gprof(b.files.exe, b.files.gmon[1], opts, nil,
              b.name .. " [" .. opts .. "]")
            assert.are_not.equal("", kline)
            assert.truthy(header:find("^The following arcs were deleted from the propagation calculation\n"
              .. "to reduce the maximum cycle size to 1:\n"))
            assert.truthy(header:find("\nCycles of 2 or more members: %d+ before %(the largest has %d+ members%), 0 after%.\n"))
            compared = compared + 1
          end
          if c.largest_before >= 3 then
            against_gprof(b.files.exe, b.files.gmon[1], "-b", c.largest_before, b.name .. " N")
          end
        end
      end
      assert(compared >= 8, "reports compared: " .. compared)
    end)

    it("the list names each cut arc, its calls and its ends' indexes in the report", function()
      local b
      for _, x in ipairs(builds) do if x.name == "cycles/O2-nopie" then b = x end end
      local p <close> = assert(lgprof.open(b.files.exe, b.files.gmon[1]))
      local c = p:cycle_cuts()
      local status, out, err = cmd.lgprof({ "-b", "--break-cycles", b.files.exe, b.files.gmon[1] })
      assert.are.equal(0, status, err)
      local q <close> = assert(lgprof.open(b.files.exe, b.files.gmon[1], { exclude_arcs = c.specs }))
      local lines = {}
      for _, a in ipairs(c) do
        local from, to = q:find(a.caller.name), q:find(a.callee.name)
        lines[#lines + 1] = ("\t%s [%d] to %s [%d] with %d calls\n"):format(from.name, from.index,
          to.name, to.index, a.count)
      end
      assert.truthy(out:find(table.concat(lines), 1, true))
      assert.are.equal(3, #c) -- the program's three cycles, one arc each
      assert.are.equal(3, c.cycles_before)
    end)
  end)

  describe("static functions of the same name", function()
    -- a ring a_go -> step (a.c) -> b_go -> step (b.c) -> a_go: a_go and
    -- b_go call their step twice (the second call goes no further), so
    -- b.c's step -> a_go has half the calls of every other arc of the
    -- ring; it is the cut, and -k can only name it as b.c:step
    local SRC = {
      ["a.c"] = [[
void b_go(int n);
static __attribute__((noinline)) void step(int n) { b_go(n - 1); }
void a_go(int n) { if (n > 0) { step(n); step(0); } }
int main(void) { for (int i = 0; i < 50; i++) a_go(40); return 0; }
]],
      ["b.c"] = [[
void a_go(int n);
static __attribute__((noinline)) void step(int n) { if (n >= 0) a_go(n - 1); }
void b_go(int n) { if (n > 0) { step(n); step(-1); } }
]],
    }
    local dir, exe, built
    setup(function()
      dir = tmpdir() .. "/static"
      assert(util.mkdir(dir))
      for name, text in pairs(SRC) do util.spit(dir .. "/" .. name, text) end
      built = util.exec_ok("cd " .. sq(dir) .. " && gcc -O0 -g -pg -fno-inline -o prog a.c b.c"
        .. " >/dev/null 2>&1 && ./prog")
      exe = dir .. "/prog"
    end)

    it("names the cut FILE:NAME, and gprof -k with it gives the same report", function()
      if not built then return pending("gcc -pg could not build and run the program") end
      local gmon = dir .. "/gmon.out"
      local p <close> = assert(lgprof.open(exe, gmon))
      local c = p:cycle_cuts()
      check_cuts(p, c, 2)
      assert.are.same({ "b.c:step/a_go" }, c.specs)
      assert.are.same({ true }, c.exact)
      assert.are.equal(1000, c[1].count) -- 20 a call of main's, 50 of them
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      local _, kline = against_gprof(exe, gmon, "-b", nil, "static step")
      assert.are.equal("-k b.c:step/a_go", kline)
    end)
  end)
end)
