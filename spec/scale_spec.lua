-- Scale: a 100,000-deep call chain and a single 50,000-member cycle must be
-- analysed correctly (and without deep recursion: the command is run with a
-- 1 MB stack, where a recursive depth-first walk over 100,000 nodes dies).
-- Not timed.
--
-- The executables and profiles are written with helpers.synth (x86-64, .text
-- at 0x401000, every function 16 bytes: main, then f0 .. f<n-1>, then a
-- global NOTYPE "etext" closing the text, since gprof credits no samples to
-- the last symbol of its table; one histogram over [main, etext) at 100 Hz
-- with one 16-byte bin per function, so bin k holds exactly the samples of
-- the k-th function).
--
-- Chain of depth n (calls main -> f0 -> f1 -> ... -> f<n-1>):
--   samples  main 7;  f_i: 1, +2 when i % K == 0, +4 for the last one
--            (K = 1000; 30 in the small version)
--   counts   the arc into f_i is called c_i = 1 + i % 5 times
-- Derived by hand from gprof's definitions: every function has one caller,
-- so each arc carries its callee's whole time (count / ncalls = 1);
--   self(f_i)     = s_i
--   children(f_i) = T_(i+1), where T_i = s_i + s_(i+1) + ... + s_(n-1)
--   main: self 7, children T_0; no caller (<spontaneous>); total time
--   P = 7 + T_0.  Every s_i >= 1, so totals strictly decrease down the chain
--   and the call-graph index (by decreasing total) is main [1], f_i [i + 2];
--   etext (no time, no calls) comes last and has no printed entry.
--
-- Cycle of n members (main -> f0 -> f1 -> ... -> f<n-1> -> f0):
--   samples  main 7;  member f_j: j // G   (groups of G members; G = 1000,
--            30 in the small version)
--   counts   main -> f0: G;  the arc into f_j (from f_(j-1), f0's from
--            f<n-1>) is called c_j = 1 + j % G times
-- Derived:
--   one cycle <cycle 1> of all n members; called G times from outside
--   (main), sum(c_j) times between members ("G+sum" in the report);
--   self = S = sum of member samples, children 0 (no calls leave the cycle);
--   each member: self s_j, children 0, called c_j times (f0: c_0 + G), all
--   from other members except main's G;
--   main: self 7, children S (its arc carries the whole cycle);
--   index: main [1], the cycle [2] (S > any member), then the members by
--   decreasing time, then decreasing calls -- (s_j, calls) is distinct for
--   every member, so the order needs no further tie-breaking; the cycle's
--   member list is in the same order.
--
-- The report lines are built with gprof's printf formats for the GNU style
-- (cg_print.c: "%-6.6s %5.1f %7.2f %7.2f" etc.; note that "%-6.6s" cuts an
-- index like "[50002]" to "[50002" on the entry's own line).  The same
-- generators with n = 300 are small enough for GNU gprof's recursive walk;
-- when /usr/bin/gprof exists, its output is compared with lgprof's byte for
-- byte (also on two variants full of ties) and the hand-derived entries are
-- checked against gprof's own output too.  gprof is never run on the large
-- inputs.

local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd, synth = H.util, H.cmd, H.synth

local sq = util.q

local TEXT = synth.TEXT   -- address of main
local FSIZE = synth.FSIZE -- bytes per function, and per histogram bin
local HZ = synth.HZ
local STACK_KB = 1024 -- stack limit for the command runs

---------------------------------------------------------------------------
-- models: the input, as plain numbers
---------------------------------------------------------------------------

-- model = { kind = "chain"|"cycle", n, s_main, s = {[0..n-1]}, c = {[0..n-1]},
--           m = count of main -> f0 }
-- For a chain c[0] is the count of main -> f0 (= m); for a cycle c[0] is the
-- count of the closing arc f<n-1> -> f0.

local function chain_model(n, k)
  local s, c = {}, {}
  for i = 0, n - 1 do
    s[i] = 1 + (i % k == 0 and 2 or 0) + (i == n - 1 and 4 or 0)
    c[i] = 1 + i % 5
  end
  return { kind = "chain", n = n, s_main = 7, s = s, c = c, m = c[0] }
end

local function cycle_model(n, g)
  local s, c = {}, {}
  for j = 0, n - 1 do
    s[j] = j // g
    c[j] = 1 + j % g
  end
  return { kind = "cycle", n = n, s_main = 7, s = s, c = c, m = g }
end

-- Ties everywhere (for the byte-for-byte comparison with gprof only):
-- one sample every 10th function, 5 in the last, every count 1.
local function sparse_model(kind, n)
  local s, c = {}, {}
  for i = 0, n - 1 do
    s[i] = (i % 10 == 0 and 1 or 0) + (i == n - 1 and 5 or 0)
    c[i] = 1
  end
  return { kind = kind, n = n, s_main = 2, s = s, c = c, m = 1 }
end

local function fname(i) return i < 0 and "main" or "f" .. i end
local function faddr(i) return TEXT + FSIZE * (i + 1) end -- main is i = -1

-- Writes dir/<tag> (executable) and dir/<tag>.gmon; returns both paths.
local function write_model(dir, tag, model)
  local n = model.n
  local funcs = { { "main", model.s_main } }
  for i = 0, n - 1 do funcs[#funcs + 1] = { fname(i), model.s[i] } end
  -- main -> f0, then f_(i-1) -> f_i, and for a cycle f<n-1> -> f0
  local arcs = { { "main", "f0", model.m } }
  for i = 1, n - 1 do arcs[#arcs + 1] = { fname(i - 1), fname(i), model.c[i] } end
  if model.kind == "cycle" then arcs[#arcs + 1] = { fname(n - 1), "f0", model.c[0] } end
  local exe, gmon, addr = synth.write(dir, tag, { funcs = funcs, arcs = arcs })
  assert(addr.main == TEXT and addr[fname(n - 1)] == faddr(n - 1))
  return exe, gmon
end

---------------------------------------------------------------------------
-- expectations, from the definitions (see the header)
---------------------------------------------------------------------------

-- Returns ex = { P (total samples), nodes = { [name] = node }, order = {names
-- by call-graph index} }; node = { name, index, self, child (samples),
-- calls, member_calls, in_cycle }.
local function expect_chain(model)
  local n, s = model.n, model.s
  local T = { [n] = 0 }
  for i = n - 1, 0, -1 do T[i] = s[i] + T[i + 1] end
  local P = model.s_main + T[0]
  local nodes, order = {}, {}
  nodes.main = { name = "main", index = 1, self = model.s_main, child = T[0], calls = 0 }
  order[1] = "main"
  for i = 0, n - 1 do
    nodes[fname(i)] = { name = fname(i), index = i + 2, self = s[i], child = T[i + 1],
                        calls = model.c[i] }
    order[i + 2] = fname(i)
    -- the index order claimed above: strictly decreasing totals
    assert(s[i] >= 1 and T[i] < P, "chain model: totals must strictly decrease")
  end
  return { P = P, T = T, nodes = nodes, order = order }
end

local function expect_cycle(model)
  local n, s, c = model.n, model.s, model.c
  local S, internal = 0, 0
  for j = 0, n - 1 do
    S = S + s[j]
    internal = internal + c[j]
  end
  local P = model.s_main + S
  local nodes = { main = { name = "main", index = 1, self = model.s_main, child = S, calls = 0 } }
  local members = {}
  for j = 0, n - 1 do
    local node = { name = fname(j), j = j, self = s[j], child = 0,
                   calls = c[j] + (j == 0 and model.m or 0), member_calls = c[j],
                   in_cycle = true }
    nodes[node.name] = node
    members[#members + 1] = node
  end
  -- decreasing time, then decreasing calls; the keys must be distinct
  table.sort(members, function(a, b)
    if a.self ~= b.self then return a.self > b.self end
    return a.calls > b.calls
  end)
  local order = { "main", "<cycle 1>" }
  for k, node in ipairs(members) do
    if k > 1 then
      local p = members[k - 1]
      assert(p.self ~= node.self or p.calls ~= node.calls, "cycle model: tied members")
    end
    node.index = k + 2
    order[k + 2] = node.name
  end
  assert(S > members[1].self, "cycle model: the cycle must outweigh its members")
  return { P = P, S = S, internal = internal, nodes = nodes, members = members, order = order }
end

-- The model, what it derives to (expect(model)) and its files dir/<tag>.
local function derive(dir, tag, model, expect)
  return model, expect(model), write_model(dir, tag, model)
end

---------------------------------------------------------------------------
-- the report lines, with gprof's GNU-style formats
---------------------------------------------------------------------------

local SPONT = ("%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>"):format("", "", "", "", "", "")

local function pct(total, P) return 100 * total / P end

-- "[index] %time self children called name" (calls nil: never called)
local function primary_line(node, label, P)
  local line = ("%-6.6s %5.1f %7.2f %7.2f"):format("[" .. node.index .. "]",
    pct(node.self + node.child, P), node.self / HZ, node.child / HZ)
  if node.calls > 0 then
    line = line .. (" %7d %7.7s "):format(node.calls, "")
  else
    line = line .. (" %7.7s %7.7s "):format("", "")
  end
  return line .. label
end

-- a parent or child line of an arc that carries time
local function arc_line(self, child, count, total_calls, label)
  return ("%6.6s %5.5s %7.2f %7.2f %7d/%-7d     "):format("", "", self / HZ, child / HZ,
    count, total_calls) .. label
end

-- a parent or child line of an arc between members of the same cycle
local function sibling_line(count, label)
  return ("%6.6s %5.5s %7.7s %7.7s %7d %7.7s     "):format("", "", "", "", count, "") .. label
end

local function cycle_line(index, self, child, calls, internal, P)
  return ("%-6.6s %5.1f %7.2f %7.2f %7d"):format("[" .. index .. "]", pct(self + child, P),
    self / HZ, child / HZ, calls)
    .. (internal ~= 0 and ("+%-7d"):format(internal) or (" %7.7s"):format(""))
    .. (" <cycle %d as a whole> [%d]"):format(1, index)
end

local function member_line(node, label)
  return ("%6.6s %5.5s %7.2f %7.2f %7d %7.7s     "):format("", "", node.self / HZ,
    node.child / HZ, node.calls, "") .. label
end

local function granularity_line(P)
  return ("granularity: each sample hit covers %d byte(s) for %.2f%% of %.2f seconds")
    :format(FSIZE, 100 / P, P / HZ)
end

-- Call-graph entries, in index order, each a list of lines.
local function chain_blocks(model, ex)
  local n, nodes = model.n, ex.nodes
  local function label(i) return fname(i) .. " [" .. nodes[fname(i)].index .. "]" end
  local blocks = {}
  local f0 = nodes.f0
  blocks[1] = { SPONT, primary_line(nodes.main, "main [1]", ex.P),
                arc_line(f0.self, f0.child, model.c[0], f0.calls, label(0)) }
  for i = 0, n - 1 do
    local node = nodes[fname(i)]
    local b = { arc_line(node.self, node.child, model.c[i], node.calls, label(i - 1)),
                primary_line(node, label(i), ex.P) }
    if i < n - 1 then
      local nx = nodes[fname(i + 1)]
      b[3] = arc_line(nx.self, nx.child, model.c[i + 1], nx.calls, label(i + 1))
    end
    blocks[node.index] = b
  end
  return blocks
end

local function cycle_blocks(model, ex)
  local n, nodes = model.n, ex.nodes
  local function label(j)
    local node = nodes[fname(j)]
    return node.in_cycle and ("%s <cycle 1> [%d]"):format(node.name, node.index)
      or ("%s [%d]"):format(node.name, node.index)
  end
  local blocks = {}
  blocks[1] = { SPONT, primary_line(nodes.main, "main [1]", ex.P),
                arc_line(ex.S, 0, model.m, model.m, label(0)) }
  local cyc = { cycle_line(2, ex.S, 0, model.m, ex.internal, ex.P) }
  for _, node in ipairs(ex.members) do cyc[#cyc + 1] = member_line(node, label(node.j)) end
  blocks[2] = cyc
  for j = 0, n - 1 do
    local node = nodes[fname(j)]
    local prev, nxt = (j - 1) % n, (j + 1) % n
    -- parents: the arc within the cycle sorts before main's
    local b = { sibling_line(model.c[j], label(prev)) }
    if j == 0 then b[#b + 1] = arc_line(ex.S, 0, model.m, model.m, "main [1]") end
    b[#b + 1] = primary_line(node, label(j), ex.P)
    b[#b + 1] = sibling_line(model.c[nxt], label(nxt))
    blocks[node.index] = b
  end
  return blocks
end

---------------------------------------------------------------------------
-- running and parsing
---------------------------------------------------------------------------

-- Runs a shell command line in dir; returns exit status, stdout, stderr.
local function run(cmdline, dir)
  return cmd.shell(cmdline, { cwd = dir })
end

-- lgprof with the stack limited to STACK_KB
local function lgprof_cmd(args)
  return "ulimit -s " .. STACK_KB .. " && " .. cmd.LGPROF_CMD .. " " .. args
end

-- Splits a call-graph report: { head = lines before the entries (up to the
-- column titles), blocks = entries (lists of lines, dashes excluded),
-- tail = text after the last entry }.
local DASHES = "-----------------------------------------------"
local function parse_graph(report)
  local head, blocks, cur = {}, {}, nil
  local pos, len, tail_start = 1, #report, nil
  while pos <= len do
    local nl = report:find("\n", pos, true) or (len + 1)
    local line = report:sub(pos, nl - 1)
    if cur == nil then
      head[#head + 1] = line
      if line:match("^index %% time") then cur = {} end
    elseif line == DASHES then
      blocks[#blocks + 1] = cur
      cur = {}
      tail_start = nl + 1
    else
      cur[#cur + 1] = line
    end
    pos = nl + 1
  end
  return { head = head, blocks = blocks, tail = tail_start and report:sub(tail_start) or "" }
end

-- nil if the report's entries are exactly `want`, else a short message.
local function compare_blocks(got, want)
  local limit = math.max(#got, #want)
  for k = 1, limit do
    local g, w = got[k], want[k]
    if g == nil or w == nil then
      return ("entry %d: %s"):format(k, g == nil and "missing" or "unexpected:\n" .. table.concat(g, "\n"))
    end
    local same = #g == #w
    for i = 1, #w do if g[i] ~= w[i] then same = false end end
    if not same then
      return ("entry %d differs\n--- expected\n%s\n--- got\n%s"):format(k,
        table.concat(w, "\n"), table.concat(g, "\n"))
    end
  end
  return nil
end

-- The "Index by function name" part: { [name] = index }, and the count.
local function parse_index(tail)
  local start = tail:find("Index by function name", 1, true)
  assert(start, "no index by function name")
  local map, count = {}, 0
  for idx, name in tail:sub(start):gmatch("%[(%d+)%] (%S+)") do
    if name == "<cycle" then name = "<cycle 1>" end
    count = count + 1
    if map[name] == nil then map[name] = tonumber(idx) else map[name] = false end
  end
  return map, count
end

-- Checks a `-b -q` report against the derived entries.
local function check_report(out, model, ex, blocks, what)
  local g = parse_graph(out)
  assert.are.equal(granularity_line(ex.P), g.head[4], what .. ": granularity line")
  assert.are.equal(#blocks, #g.blocks, what .. ": number of call-graph entries")
  local msg = compare_blocks(g.blocks, blocks)
  assert(msg == nil, what .. ": " .. tostring(msg))
  -- the index: every printed name once, at its index (etext is not printed)
  local map, count = parse_index(g.tail)
  assert.are.equal(#ex.order, count, what .. ": entries in the index by name")
  for index, name in ipairs(ex.order) do
    if map[name] ~= index then
      error(("%s: index by name gives %s for %s, want [%d]"):format(what,
        tostring(map[name]), name, index))
    end
  end
  assert.is_nil(map.etext, what .. ": etext has no entry")
end

-- Plain checks for the loops over 100,000 objects (luassert is slow there);
-- the message is only built on failure: "<name> <field>: expected ..., got ...".
local function what(name, field)
  return tostring(name) .. (field and " " .. field or "")
end

local function close_to(want, got, name, field, eps)
  if type(got) ~= "number" or math.abs(want - got) > (eps or 1e-6) then
    error(("%s: expected %.9g, got %s"):format(what(name, field), want, tostring(got)), 2)
  end
end

local function eq(want, got, name, field)
  if want ~= got then
    error(("%s: expected %s, got %s"):format(what(name, field), tostring(want), tostring(got)), 2)
  end
end

-- Opens a model's files; checks the sampling rate and the total time.
local function open_model(exe, gmon, ex)
  local p = assert(lgprof.open(exe, gmon))
  assert.are.equal(HZ, p.hz)
  close_to(ex.P / HZ, p.total_time, "total_time")
  close_to(ex.P / HZ, p.print_time, "print_time")
  return p
end

---------------------------------------------------------------------------

describe("scale", function()
  local tmpdir = util.block_tmpdir("lgprof-scale")

  describe("a 100,000-deep call chain", function()
    local N, K = 100000, 1000
    local model, ex, exe, gmon
    setup(function() model, ex, exe, gmon = derive(tmpdir(), "chain", chain_model(N, K), expect_chain) end)

    it("the derivation is what the header says", function()
      -- samples: 7 + 100,000 + 2 * 100 (i = 0, 1000, ..., 99000) + 4
      assert.are.equal(7 + N + 2 * (N // K) + 4, ex.P)
      assert.are.equal(5, ex.T[N - 1])
      assert.are.equal(ex.P - 7 - 3, ex.nodes.f1.child + ex.nodes.f1.self)
      assert.are.equal(N + 1, #ex.order)
    end)

    it("Lua API: times, calls, index order and arcs of every function", function()
      local p = open_model(exe, gmon, ex)
      finally(function() p:close() end)
      assert.is_true(p.have_histogram)
      assert.is_true(p.have_call_graph)
      assert.are.equal(N + 2, p.function_count) -- main, f0..f99999, etext
      assert.are.equal(0, p.cycle_count)
      assert.are.equal(N, p.arc_count)
      local ncycles = 0
      for _ in p:cycles() do ncycles = ncycles + 1 end
      assert.are.equal(0, ncycles)

      local k = 0
      for fn in p:functions() do
        k = k + 1
        local want = ex.nodes[ex.order[k]]
        if k == N + 2 then -- etext last: no time, no calls
          eq("etext", fn.name, "last entry")
          eq(N + 2, fn.index, "etext", "index")
          eq(0, fn.calls, "etext", "calls")
          close_to(0, fn.self + fn.children, "etext time")
        else
          eq(want.name, fn.name, "entry", k)
          eq(k, fn.index, fn.name, "index")
          close_to(want.self / HZ, fn.self, fn.name, "self")
          close_to(want.child / HZ, fn.children, fn.name, "children")
          close_to((want.self + want.child) / HZ, fn.total, fn.name, "total")
          close_to(pct(want.self + want.child, ex.P), fn.percent, fn.name, "percent", 1e-9)
          close_to(want.self / HZ, fn.flat_self, fn.name, "flat_self")
          if fn.calls ~= want.calls or fn.self_calls ~= 0 or fn.cycle ~= nil then
            error(("%s: calls %s self_calls %s cycle %s"):format(fn.name, tostring(fn.calls),
              tostring(fn.self_calls), tostring(fn.cycle)))
          end
          -- one caller (main: none), one callee (the last: none)
          local i = k - 2 -- f_i; main is i = -1
          local ncallers = 0
          for arc in fn:callers() do
            ncallers = ncallers + 1
            eq(fname(i - 1), arc.caller.name, fn.name, "caller")
            eq(model.c[i], arc.count, fn.name, "caller count")
            close_to(want.self / HZ, arc.self, fn.name, "arc self")
            close_to(want.child / HZ, arc.children, fn.name, "arc children")
            eq(false, arc.in_cycle, "arc", "in_cycle")
          end
          eq(i < 0 and 0 or 1, ncallers, fn.name, "callers")
          local ncallees = 0
          for arc in fn:callees() do
            ncallees = ncallees + 1
            eq(fname(i + 1), arc.callee.name, fn.name, "callee")
          end
          eq(i == N - 1 and 0 or 1, ncallees, fn.name, "callees")
        end
      end
      eq(N + 2, k, "functions()", "count")

      -- every arc, in the order read: main -> f0, then f_(i-1) -> f_i
      local a = 0
      for arc in p:arcs() do
        eq(fname(a - 1), arc.caller.name, "arc", a)
        eq(fname(a), arc.callee.name, "arc", a)
        eq(model.c[a], arc.count, "arc count", a)
        a = a + 1
      end
      assert.are.equal(N, a)

      -- get and lookup
      local f50000 = p:get(50002)
      assert.are.equal("f50000", f50000.name)
      assert.are.equal(faddr(50000), f50000.address)
      assert.are.equal("f50000", p:lookup(faddr(50000) + 5).name)
      assert.are.equal("f99999", p:lookup(faddr(N - 1)).name)
      assert.are.equal(N + 1, p:get(N + 1).index)
      assert.are.equal("f99999", p:get(N + 1).name)
      close_to(ex.T[50001] / HZ, f50000.children, "f50000 children")
      close_to(0.05, p:get(N + 1).self, "f99999 self")
    end)

    it("lgprof -b -q prints every entry as derived, within a " .. STACK_KB .. " KB stack",
      function()
        local rc, out, err = run(lgprof_cmd("-b -q " .. sq(exe) .. " " .. sq(gmon)), tmpdir())
        assert.are.equal(0, rc, "exit status " .. rc .. "; stderr: " .. err)
        assert.are.equal("", err)
        check_report(out, model, ex, chain_blocks(model, ex), "chain")
        -- a few lines spelled out: f50000's entry (index 50002, "[50002]" cut
        -- to six characters by gprof's %-6.6s), the last function's, main's
        local P = ex.P
        local T50001, T50002 = ex.T[50001], ex.T[50002]
        local function has(line)
          assert(out:find("\n" .. line .. "\n", 1, true), "missing line: " .. line)
        end
        has(("%6.6s %5.5s %7.2f %7.2f %7d/%-7d     f49999 [50001]"):format("", "",
          3 / HZ, T50001 / HZ, 1, 1)) -- s_50000 = 1 + 2, c_50000 = 1
        has(("[50002 %5.1f %7.2f %7.2f %7d %7s f50000 [50002]"):format(
          100 * (3 + T50001) / P, 0.03, T50001 / HZ, 1, ""))
        has(("%6.6s %5.5s %7.2f %7.2f %7d/%-7d     f50001 [50003]"):format("", "",
          1 / HZ, T50002 / HZ, 2, 2))
        has(("%6.6s %5.5s %7.2f %7.2f %7d/%-7d     f99998 [100000]"):format("", "",
          0.05, 0, 5, 5)) -- c_99999 = 1 + 99999 % 5
        has(("[10000 %5.1f %7.2f %7.2f %7d %7s f99999 [100001]"):format(
          100 * 5 / P, 0.05, 0, 5, ""))
        has("[1]    100.0    0.07 " .. ("%7.2f"):format((P - 7) / HZ)
          .. "                 main [1]")
      end)
  end)

  describe("a single 50,000-member cycle", function()
    local M, G = 50000, 1000
    local model, ex, exe, gmon
    setup(function() model, ex, exe, gmon = derive(tmpdir(), "cycle", cycle_model(M, G), expect_cycle) end)

    it("the derivation is what the header says", function()
      -- 50 groups of 1000 members with 0..49 samples each
      assert.are.equal(1000 * (49 * 50 // 2), ex.S)
      assert.are.equal(50 * (1000 * 1001 // 2), ex.internal)
      assert.are.equal(M + 2, #ex.order)
      assert.are.equal("f49999", ex.order[3]) -- 49 samples, 1000 calls
      assert.are.equal("f49000", ex.order[1002]) -- 49 samples, 1 call
      assert.are.equal("f0", ex.order[49003]) -- 0 samples, 1 + 1000 calls
      assert.are.equal("f1", ex.order[M + 2]) -- 0 samples, 2 calls
    end)

    it("Lua API: one cycle holding every member, with the derived numbers", function()
      local p = open_model(exe, gmon, ex)
      finally(function() p:close() end)
      assert.are.equal(M + 2, p.function_count)
      assert.are.equal(1, p.cycle_count)
      assert.are.equal(M + 1, p.arc_count)

      local cy = H.profile.only(p:cycles()) -- one cycle
      assert.are.equal(1, cy.number)
      assert.are.equal("<cycle 1>", cy.name)
      assert.are.equal(2, cy.index)
      assert.are.equal(model.m, cy.calls)
      assert.are.equal(ex.internal, cy.internal_calls)
      close_to(ex.S / HZ, cy.self, "cycle self")
      close_to(0, cy.children, "cycle children")
      close_to(ex.S / HZ, cy.total, "cycle total")
      close_to(pct(ex.S, ex.P), cy.percent, "cycle percent", 1e-9)

      local nmembers, seen = 0, {}
      for member, received in cy:members() do
        nmembers = nmembers + 1
        local want = ex.nodes[member.name]
        if not (want and want.in_cycle and not seen[member.name]) then
          error("bad or repeated member " .. tostring(member.name))
        end
        seen[member.name] = true
        eq(want.member_calls, received, member.name, "calls from members")
      end
      eq(M, nmembers, "members", "count")

      local k = 0
      for fn in p:entries() do
        k = k + 1
        if k == 2 then
          eq("<cycle 1>", fn.name, "entry", 2)
          eq(2, fn.index, "<cycle 1>", "index")
        elseif k == M + 3 then
          eq("etext", fn.name, "last entry")
          eq(nil, fn.cycle, fn.name, "cycle")
        else
          local want = ex.nodes[ex.order[k]]
          eq(want.name, fn.name, "entry", k)
          eq(k, fn.index, fn.name, "index")
          close_to(want.self / HZ, fn.self, fn.name, "self")
          close_to(want.child / HZ, fn.children, fn.name, "children")
          close_to(pct(want.self + want.child, ex.P), fn.percent, fn.name, "percent", 1e-9)
          eq(want.calls, fn.calls, fn.name, "calls")
          eq(0, fn.self_calls, fn.name, "self_calls")
          if want.in_cycle then
            local cyc = fn.cycle
            eq(2, cyc and cyc.index, fn.name, "cycle index")
            eq(1, cyc.number, fn.name, "cycle number")
            eq(want.member_calls, fn.member_calls, fn.name, "member_calls")
          else
            eq(nil, fn.cycle, fn.name, "cycle")
          end
        end
      end
      eq(M + 3, k, "functions()", "count")

      -- arcs: main -> f0 carries the whole cycle; arcs inside carry nothing
      local a, inside = 0, 0
      for arc in p:arcs() do
        a = a + 1
        if arc.caller.name == "main" then
          eq("f0", arc.callee.name, "main", "callee")
          eq(model.m, arc.count, "main -> f0", "count")
          eq(false, arc.in_cycle, "arc", "in_cycle")
          close_to(ex.S / HZ, arc.self, "main -> f0 self")
          close_to(0, arc.children, "main -> f0 children")
        else
          local i = tonumber(arc.caller.name:match("^f(%d+)$"))
          local j = (i + 1) % M
          eq(fname(j), arc.callee.name, arc.caller.name, "callee")
          eq(model.c[j], arc.count, arc.caller.name, "callee count")
          eq(true, arc.in_cycle, "arc", "in_cycle")
          eq(false, arc.is_recursive, "arc", "is_recursive")
          close_to(0, arc.self + arc.children, "arc inside the cycle")
          inside = inside + arc.count
        end
      end
      assert.are.equal(M + 1, a)
      assert.are.equal(ex.internal, inside)

      local main = p:get(1)
      assert.are.equal("main", main.name)
      close_to(ex.S / HZ, main.children, "main children")
      local f0 = p:lookup(faddr(0) + 3)
      assert.are.equal("f0", f0.name)
      local callers = {}
      for arc in f0:callers() do callers[arc.caller.name] = arc.count end
      assert.are.same({ main = model.m, f49999 = model.c[0] }, callers)
    end)

    it("lgprof -b -q prints <cycle 1 as a whole> and every member as derived, within a "
      .. STACK_KB .. " KB stack", function()
      local rc, out, err = run(lgprof_cmd("-b -q " .. sq(exe) .. " " .. sq(gmon)), tmpdir())
      assert.are.equal(0, rc, "exit status " .. rc .. "; stderr: " .. err)
      assert.are.equal("", err)
      check_report(out, model, ex, cycle_blocks(model, ex), "cycle")
      -- spelled out: the cycle as a whole, 12250.00 s, called 1000+25025000
      local whole = ("[2]    %5.1f %7.2f %7.2f %7d+%-7d <cycle 1 as a whole> [2]"):format(
        100 * 1225000 / (1225000 + 7), 12250, 0, 1000, 25025000)
      assert(out:find("\n" .. whole .. "\n", 1, true), "missing line: " .. whole)
      local _, n_whole = out:gsub("<cycle 1 as a whole>", "")
      assert.are.equal(1, n_whole)
    end)
  end)

  describe("small enough for gprof (300 deep, 300 members)", function()
    local cases = {
      { tag = "chain300", model = chain_model(300, 30), expect = expect_chain, blocks = chain_blocks },
      { tag = "cycle300", model = cycle_model(300, 30), expect = expect_cycle, blocks = cycle_blocks },
      { tag = "chain300-ties", model = sparse_model("chain", 300) },
      { tag = "cycle300-ties", model = sparse_model("cycle", 300) },
    }
    local files = {}

    setup(function()
      for _, c in ipairs(cases) do
        local exe, gmon = write_model(tmpdir(), c.tag, c.model)
        files[c.tag] = { exe = exe, gmon = gmon }
      end
    end)

    for _, c in ipairs(cases) do
      if c.expect then
        it(c.tag .. ": lgprof -b -q prints the derived entries", function()
          local f = files[c.tag]
          local rc, out, err = run(lgprof_cmd("-b -q " .. sq(f.exe) .. " " .. sq(f.gmon)), tmpdir())
          assert.are.equal(0, rc, "exit status " .. rc .. "; stderr: " .. err)
          local ex = c.expect(c.model)
          check_report(out, c.model, ex, c.blocks(c.model, ex), c.tag)
        end)
      end

      it(c.tag .. ": lgprof equals gprof byte for byte", function()
        if not cmd.HAVE_GPROF then return pending("gprof not installed") end
        local f = files[c.tag]
        local paths = " " .. sq(f.exe) .. " " .. sq(f.gmon)
        for _, args in ipairs { "-b", "-b -q", "" } do
          local grc, gout, gerr = run(cmd.GPROF_CMD .. " " .. args .. paths, tmpdir())
          local lrc, lout, lerr = run(lgprof_cmd(args .. paths), tmpdir())
          assert.are.equal(0, grc, "gprof exit status " .. grc .. "; stderr: " .. gerr)
          assert.are.equal(grc, lrc, lerr)
          assert.are.equal(gerr, lerr)
          assert(gout == lout, c.tag .. " " .. args .. ": outputs differ")
          if c.expect and args == "-b -q" then
            -- the hand derivation holds for gprof itself
            local ex = c.expect(c.model)
            check_report(gout, c.model, ex, c.blocks(c.model, ex), c.tag .. " (gprof)")
          end
        end
      end)
    end
  end)
end)
