-- The differential flame graph's noise: 1,000 pairs of profiles of one
-- unchanged workload, drawn from a seeded generator (helpers.prng; the same
-- numbers on every machine, no live run). Each profile is a table of
-- sampled stacks built by hand (core._profile_from_stacks, as a perf.data
-- reader hands them over): 2,000 samples of 1 ms, each put on one of the
-- workload's stacks with its probability. Nothing changed between the two
-- of a pair, so a frame coloured red or blue is a false alarm: their share,
-- over the frames with self time on either side, must be at most what the
-- confidence allows (5% at the default 95%). Measured and printed.
local lgprof = require "lgprof"
local prng = require "helpers.prng"
local difftree = require "lgprof.analysis.difftree"

local MS = 1000000 -- a sample's weight: 1 ms of cpu-clock, in nanoseconds
local FUNCS = { "main", "parse", "lex", "eval", "hash", "alloc", "print", "fmt" }
-- the workload: stacks (function numbers, root first) and their weights
-- (probability = weight / 100), leaves in every function but main's own
local WORKLOAD = {
  { { 1 }, 3 }, { { 1, 2 }, 5 }, { { 1, 2, 3 }, 20 }, { { 1, 2, 6 }, 4 },
  { { 1, 4 }, 10 }, { { 1, 4, 5 }, 25 }, { { 1, 4, 6 }, 8 }, { { 1, 4, 5, 6 }, 5 },
  { { 1, 7 }, 2 }, { { 1, 7, 8 }, 15 }, { { 1, 7, 8, 6 }, 3 },
}
local SAMPLES = 2000

local function draw(rand)
  local cum, total = {}, 0
  for i, s in ipairs(WORKLOAD) do total = total + s[2]; cum[i] = total end
  local counts = {}
  for _ = 1, SAMPLES do
    local r = rand(total)
    for i = 1, #cum do
      if r < cum[i] then counts[i] = (counts[i] or 0) + 1; break end
    end
  end
  local funcs, stacks = {}, {}
  for i, name in ipairs(FUNCS) do
    funcs[i] = { name = name, start = 0x1000 * i, ["end"] = 0x1000 * i + 0xff }
  end
  for i, s in ipairs(WORKLOAD) do
    local n = counts[i]
    if n then
      local leaf_first = {}
      for j = #s[1], 1, -1 do leaf_first[#leaf_first + 1] = s[1][j] end
      stacks[#stacks + 1] = { frames = leaf_first, samples = n, weight = n * MS }
    end
  end
  return assert(lgprof._core._profile_from_stacks({
    dsos = { { path = "/bin/prog" } },
    threads = { { pid = 7, tid = 7, comm = "prog" } },
    events = { { name = "cpu-clock", is_time = true } },
    funcs = funcs, stacks = stacks,
  }))
end

describe("the differential flame graph on unchanged profiles", function()
  it("colours at most 5% of the frames red or blue at 95% (1,000 seeded pairs)", function()
    local rand = prng.new(20261207)
    local tested, coloured, pairs_with = 0, 0, 0
    for _ = 1, 1000 do
      local base, new = draw(rand), draw(rand)
      local _, root = difftree.compare(base, new)
      local any = false
      for _, node in ipairs(difftree.nodes(root)) do
        if node ~= root and (node.self_base > 0 or node.self_new > 0) then
          tested = tested + 1
          if node.change ~= "same" then
            coloured = coloured + 1
            any = true
            assert.is_not.equal(difftree.GREY, node.fill)
          else
            assert.equal(difftree.GREY, node.fill)
          end
        end
      end
      if any then pairs_with = pairs_with + 1 end
      base:close(); new:close()
    end
    local share = coloured / tested
    print(("\n# noise: %d of %d frames with self time coloured red or blue (%.2f%%) over 1000"
      .. " unchanged pairs at 95%%; %d pairs with at least one"):format(coloured, tested,
      100 * share, pairs_with))
    -- every stack of the workload ends in a frame with self time in nearly every draw
    assert.is_true(tested >= 1000 * 10)
    assert.is_true(share <= 0.05, ("%.4f"):format(share))
  end)

  it("the same test flags a real change: eval's own time doubled", function()
    -- (the spec above could pass by colouring nothing)
    local rand = prng.new(7)
    local base = draw(rand)
    WORKLOAD[5][2] = 20 -- main;eval: 10 -> 20 of the weights
    local new = draw(rand)
    WORKLOAD[5][2] = 10
    local _, root = difftree.compare(base, new)
    local eval
    for _, node in ipairs(difftree.nodes(root)) do
      if node.name == "eval" and node.parent == root.children[1] then eval = node end
    end
    assert.equal("grew", eval.change)
  end)
end)
