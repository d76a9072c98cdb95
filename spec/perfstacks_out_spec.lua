-- The pictures of a profile of sampled stacks (a perf.data) draw the
-- recorded stacks (profile:stacks()), not gprof's estimate from arcs, and
-- say so; the JSON says which source its samples are from. The profile is
-- built by hand through core._profile_from_stacks (weights in nanoseconds
-- of a time event: seconds = weight / 1e9), so every number is known:
--   S1 main>a>c>leaf  3 ms      S2 main>b>c  1 ms
-- Measured: the stack main;a;c;leaf weighs 3 ms. gprof's estimate would
-- split c's 4 ms over its callers a (3 ms along a>c) and b (1 ms), giving
-- main;a;c;leaf 3 x 3/4 = 2.25 ms and main;b;c;leaf 0.75 ms, a stack that
-- never ran.
local lgprof = require "lgprof"
local stacks = require "lgprof.analysis.stacks"
local H = require "helpers"
local MS = 1000000

local function profile()
  return assert(lgprof._core._profile_from_stacks({
    dsos = { { path = "/bin/prog" } },
    threads = { { pid = 7, tid = 7, comm = "prog" } },
    events = { { name = "cpu-clock", is_time = true } },
    funcs = { { name = "main", start = 0x1000, ["end"] = 0x10ff }, { name = "a", start = 0x1100, ["end"] = 0x11ff },
              { name = "b", start = 0x1200, ["end"] = 0x12ff }, { name = "c", start = 0x1300, ["end"] = 0x13ff },
              { name = "leaf", start = 0x1400, ["end"] = 0x14ff } },
    stacks = {
      { frames = { 5, 4, 2, 1 }, samples = 3, weight = 3 * MS }, -- S1 (leaf first)
      { frames = { 4, 3, 1 }, samples = 1, weight = 1 * MS },    -- S2
    },
  }))
end

local function folded_of(list)
  local got = {}
  for _, s in ipairs(list) do got[table.concat(s.frames, ";")] = s.value end
  return got
end

describe("the stacks of a perf.data profile", function()
  it("are the recorded ones, in microseconds", function()
    local p = profile()
    assert.same({ ["main;a;c;leaf"] = 3000, ["main;b;c"] = 1000 }, folded_of(stacks.list(p)))
    local tree = stacks.tree(p)
    assert.equal(4000, tree.value)
  end)

  it("keep max_depth frames nearest the root, and charge what min_weight cuts to the frame above", function()
    local p = profile()
    assert.same({ ["main;a"] = 3000, ["main;b"] = 1000 }, folded_of(stacks.list(p, { max_depth = 2 })))
    -- main;b weighs 1/4 of the total: under 0.3, cut below main
    assert.same({ ["main;a;c;leaf"] = 3000, ["main"] = 1000 },
      folded_of(stacks.list(p, { min_weight = 0.3 })))
  end)

  it("are drawn as measured by svg, speedscope and html", function()
    local p = profile()
    local function written(fmt)
      local path = os.tmpname()
      assert(lgprof.report[fmt](p, path))
      local text = H.util.slurp(path)
      os.remove(path)
      return text
    end
    local svg = written("svg")
    assert.matches("Stacks recorded in perf.data %(measured%)", svg)
    assert.is_nil(svg:find("estimated", 1, true))
    local ss = written("speedscope")
    assert.matches("stacks recorded in perf.data", ss)
    assert.is_nil(ss:find("estimated", 1, true))
    assert.matches('"measured":true', written("html"))
  end)

  it("are the folded text's", function()
    local p = profile()
    local path = os.tmpname()
    assert(lgprof.report.folded(p, path))
    local text = H.util.slurp(path)
    os.remove(path)
    local got = {}
    for line in text:gmatch("[^\n]+") do got[#got + 1] = line end
    table.sort(got)
    assert.same({ "main;a;c;leaf 3000", "main;b;c 1000" }, got)
  end)

  it("says in the text report that samples are measured stacks", function()
    local text = assert(require("lgprof.format.text").render(profile()))
    assert.matches("Samples are stacks recorded in perf.data: self and total are measured", text, 1, true)
    assert.is_nil(text:find("gprof's estimate", 1, true))
  end)

  it("says in JSON that the samples are perf.data's, schema version 4", function()
    local p = profile()
    local path = os.tmpname()
    assert(lgprof.report.json(p, path))
    local text = H.util.slurp(path)
    os.remove(path)
    assert.matches('^{"format":"lgprof%-profile","version":4,"creator":"[^"]*","source":"perf.data",', text)
    assert.matches('"propagated_times_are_estimates":false', text)
    assert.matches('"samples":4,', text)
  end)

  it("cut and merge as the tree of profile:stacks() does, on many random stacks", function()
    -- the oracle: the cut and the merge written out over profile:stacks()
    -- (lgprof.stacks' former Lua), against the core's, on 2,000 stacks of
    -- 12 functions up to 20 deep (recursion included), several cuts
    local rand = require("helpers.prng").new(25)
    local funcs, list = {}, {}
    for k = 1, 12 do
      funcs[k] = { name = "f" .. k, start = 0x1000 * k, ["end"] = 0x1000 * k + 0xff }
    end
    for _ = 1, 2000 do
      local frames = {}
      for d = 1, 1 + rand(20) do frames[d] = 1 + rand(d == 1 and 3 or 12) end
      list[#list + 1] = { frames = frames, samples = 1, weight = (1 + rand(1000)) * 1000 }
    end
    local p = assert(lgprof._core._profile_from_stacks({
      dsos = { { path = "/bin/prog" } }, threads = { { pid = 7, tid = 7, comm = "prog" } },
      events = { { name = "cpu-clock", is_time = true } }, funcs = funcs, stacks = list }))
    local function oracle(q, max_depth, share)
      local all, total = {}, 0
      for st in q:stacks() do all[#all + 1] = st end
      for _, st in ipairs(all) do total = total + st.seconds end
      local least = share * total
      local root = { kids = {}, weight = 0 }
      for _, st in ipairs(all) do
        local node = root
        for d = 1, math.min(#st.frames, max_depth) do
          local f = st.frames[d]
          local kid = node.kids[f] or { kids = {}, weight = 0 }
          node.kids[f] = kid
          kid.weight = kid.weight + st.seconds
          node = kid
        end
      end
      local merged, order = {}, {}
      for _, st in ipairs(all) do
        local node, frames = root, {}
        for d = 1, math.min(#st.frames, max_depth) do
          local kid = node.kids[st.frames[d]]
          if kid.weight < least then break end
          frames[d], node = st.frames[d], kid
        end
        if #frames > 0 then
          local m = merged[node]
          if not m then
            m = { frames = frames, seconds = 0 }
            merged[node], order[#order + 1] = m, m
          end
          m.seconds = m.seconds + st.seconds
        end
      end
      return order
    end
    -- (and on the 3 ms + 1 ms profile, where a quarter is main;b's weight
    -- exactly: kept, a cut is below the least weight)
    for _, c in ipairs({ { 64, 1e-4 }, { 3, 1e-4 }, { 64, 0.01 }, { 5, 0.05 }, { 1, 0 }, { 64, 2 },
                         { 64, 0.25, profile() } }) do
      local q = c[3] or p
      local want, got = oracle(q, c[1], c[2]), q:_measured_stacks(c[1], c[2])
      if c[3] then assert.equal(2, #got) end
      assert.equal(#want, #got)
      for i, m in ipairs(want) do
        assert.equal(m.seconds, got[i].seconds)
        assert.equal(#m.frames, #got[i].frames)
        for d, f in ipairs(m.frames) do assert.equal(f, got[i].frames[d]) end
      end
    end
  end)
end)
