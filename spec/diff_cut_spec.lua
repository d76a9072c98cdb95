-- The differential pictures' stacks cut as one profile's pictures cut
-- theirs (lgprof.analysis.difftree's min_weight), on both sides alike:
-- a subtree is kept where it weighs at least the share of its side's total
-- on SOME side, and one light on every side stays with its top frame on
-- every side, so that a cut never shows as a change.
--
-- perf.data recordings written by hand (helpers.perfwriter, the program
-- of helpers.stackprog), samples of 1 ms each:
--
--   stack (root first)      base samples   new samples
--   main                         50             55
--   main;other                  200            100
--   main;other;leaf               5              6     light on both sides
--   main;middle;leaf             20            100     light in the base only
--
-- Totals: base 275, new 261 samples. min_weight 0.1: the least kept path
-- weighs 27.5 samples in the base, 26.1 in the new profile.
--   main;other;leaf: 5 < 27.5 and 6 < 26.1: cut on both sides, its time
--     other's self: base 200 + 5 = 205, new 100 + 6 = 106; other has no child
--   main;middle: 20 < 27.5 in the base but 100 >= 26.1 in the new profile:
--     kept on both sides (base total 20, new 100), and so is its leaf
--   main's self stays 50 and 55: no time of a cut subtree lands on it.
-- (Cutting each side on its own would have put the base's 20 samples of
-- middle on main's self, 70 against 55: a false shrink of main.)
-- With min_weight 0 nothing is cut: other has the child leaf (5, 6).
local H = require "helpers"
local util = H.util

describe("lgprof --diff's pictures cut their stacks on both sides alike", function()
  if not util.have("cc") then
    pending("cc is needed")
    return
  end
  local lgprof = require "lgprof"
  local difftree = require "lgprof.analysis.difftree"
  local pw = require "helpers.perfwriter"
  local sp = require "helpers.stackprog"
  local MS = 1000000
  local tmp, prog, base, new
  local function periods(n)
    local t = {}
    for i = 1, n do t[i] = MS end
    return t
  end
  local function write(name, main, other, other_leaf, middle_leaf)
    local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
      period = 1000, ids = { 1 } } } })
    sp.write_stacks(f, prog, {
      { frames = { "main" }, periods = periods(main) },
      { frames = { "other", "main" }, periods = periods(other) },
      { frames = { "leaf", "other", "main" }, periods = periods(other_leaf) },
      { frames = { "leaf", "middle", "main" }, periods = periods(middle_leaf) },
    })
    local path = tmp .. "/" .. name
    pw.write(path, f:bytes())
    return path
  end
  setup(function()
    tmp = util.mktempdir("lgprof diff cut")
    prog = sp.shared(tmp)
    base = write("base.data", 50, 200, 5, 20)
    new = write("new.data", 55, 100, 6, 100)
  end)
  teardown(function() util.rmtree(tmp) end)

  local function child(node, name)
    for _, c in ipairs(node.children) do
      if c.name == name then return c end
    end
    return nil
  end

  local function tree(min_weight)
    local b = assert(lgprof.open(prog.exe, base))
    local n = assert(lgprof.open(prog.exe, new))
    local _, root = difftree.compare(b, n, { min_weight = min_weight })
    b:close(); n:close()
    return root
  end

  it("keeps a path heavy on one side on both, and gives a path light on both to its top frame",
    function()
    local root = tree(0.1)
    assert.near(0.275, root.total_base, 1e-9)
    assert.near(0.261, root.total_new, 1e-9)
    local main = assert(child(root, "main"))
    assert.near(0.050, main.self_base, 1e-9)
    assert.near(0.055, main.self_new, 1e-9)
    local other = assert(child(main, "other"))
    assert.near(0.205, other.self_base, 1e-9)
    assert.near(0.106, other.self_new, 1e-9)
    assert.near(0.205, other.total_base, 1e-9)
    assert.near(0.106, other.total_new, 1e-9)
    assert.same({}, other.children)
    local middle = assert(child(main, "middle"))
    assert.near(0.020, middle.total_base, 1e-9)
    assert.near(0.100, middle.total_new, 1e-9)
    local leaf = assert(child(middle, "leaf"))
    assert.near(0.020, leaf.self_base, 1e-9)
    assert.near(0.100, leaf.self_new, 1e-9)
    -- main's self: 50 against 55 samples, within the noise (m = 52.5,
    -- se = sqrt(105) = 10.25, half = 1.96 x 10.25 + 1 = 21.1 > 5): grey
    assert.equal("same", main.change)
  end)

  it("cuts nothing with min_weight 0", function()
    local root = tree(0)
    local other = child(child(root, "main"), "other")
    assert.near(0.200, other.self_base, 1e-9)
    assert.near(0.100, other.self_new, 1e-9)
    local leaf = assert(child(other, "leaf"))
    assert.near(0.005, leaf.self_base, 1e-9)
    assert.near(0.006, leaf.self_new, 1e-9)
  end)
end)
