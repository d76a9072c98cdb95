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
end)
