-- lgprof --diff with addresses in no mapping (frame-pointer garbage, code
-- of no binary): each such address is a function "[unknown] 0xADDR" of its
-- own in a recording, and the addresses differ from run to run, so --diff
-- matches them all as one function "[unknown]" on each side rather than
-- listing every address as new or gone.
--
-- perf.data recordings written by hand (helpers.perfwriter, the program of
-- helpers.stackprog), one thread; samples of 1 ms. The garbage addresses
-- (U*) are far below the program's mapping (0x555555554000 + ...):
--
--   stack (root first)          base samples         new samples
--   main;middle;leaf                 100                  100
--   U2;U1;leaf                        40 (0x500000,        40 (0x600000,
--                                         0x500100)            0x600100)
--   U3 (the sampled pc)               10 (0x510000)        30 (0x610000)
--
-- [unknown] by hand: self = the samples whose pc is unmapped: base 10 ms,
-- new 30 ms; total = the samples with an unmapped frame anywhere, counted
-- once however many it has: base 40 + 10 = 50 ms, new 40 + 30 = 70 ms
-- (each address alone would have given 40 + 40 + 10 = 90 ms in base).
-- The folded stacks (two columns, microseconds): U2;U1 is [unknown];[unknown]
--   main;middle;leaf                 100000 100000
--   [unknown];[unknown];leaf          40000  40000
--   [unknown]                         10000  30000
--   [unknown] prog+0xOFF               5000   5000 (IN, below)
-- An address inside the program's mapping that no symbol nor FDE covers
-- (IN: the mapping's last byte, past the text's end in its last page)
-- keeps its per-binary name "[unknown] prog+0xOFF", the same address in
-- both: 5 samples (5 ms) on each side, one common row of its own.
local H = require "helpers"
local util, cmd = H.util, H.cmd

describe("lgprof --diff with addresses in no mapping", function()
  if not util.have("cc") then
    pending("cc is needed")
    return
  end
  local pw = require "helpers.perfwriter"
  local sp = require "helpers.stackprog"
  local MS = 1000000
  local tmp, prog, base, new, inside

  local function write(name, u1, u2, u3, nself)
    local f = pw.chain_recording(1000)
    sp.map(f, prog)
    local t = 5000000000
    local function put(frames, n) t = f:chain_samples(n, sp.PID, sp.PID, frames, t, MS, MS) end
    put({ sp.addr(prog, "leaf", 4), sp.addr(prog, "middle", 8), sp.addr(prog, "main", 8) }, 100)
    put({ sp.addr(prog, "leaf", 4), u1, u2 }, 40)
    put({ u3 }, nself)
    put({ inside }, 5)
    f:finished_round()
    local path = tmp .. "/" .. name
    pw.write(path, f:bytes())
    return path
  end

  setup(function()
    tmp = util.mktempdir("lgprof diff unknown")
    prog = sp.shared(tmp)
    local text = prog.text
    local first = sp.BIAS + (text.vaddr & ~0xfff)
    local len = ((text.vaddr + text.filesz + 0xfff) & ~0xfff) - (text.vaddr & ~0xfff)
    inside = first + len - 1
    assert(inside >= sp.BIAS + text.vaddr + text.filesz, "the text ends at a page's end")
    base = write("base.data", 0x500100, 0x500000, 0x510000, 10)
    new = write("new.data", 0x600100, 0x600000, 0x610000, 30)
  end)
  teardown(function() util.rmtree(tmp) end)

  local function run(...)
    local a = { "--diff=" .. base, ... }
    a[#a + 1] = new
    local s, out, err = cmd.lgprof(a, { cwd = tmp })
    assert.equal(0, s, cmd.show(s, out, err))
    return out
  end

  it("each recording alone names every address", function()
    local s, out, err = cmd.lgprof({ "--format=csv", base }, { cwd = tmp })
    assert.equal(0, s, cmd.show(s, out, err))
    -- (the pc as recorded; a return address less 1, the call's last byte)
    assert.truthy(out:find("[unknown] 0x510000", 1, true))
    assert.truthy(out:find("[unknown] 0x4fffff", 1, true))
    assert.truthy(out:find("[unknown] 0x5000ff", 1, true))
  end)

  it("the text table has one [unknown] row, neither new nor gone", function()
    local out = run()
    local rows = {}
    for line in out:gmatch("[^\n]+") do
      if line:find("[unknown]", 1, true) and not line:find("prog+", 1, true) then
        rows[#rows + 1] = line
      end
    end
    assert.equal(1, #rows, out)
    assert.matches("%s%[unknown%]$", rows[1])
    assert.falsy(out:find("0x5", 1, true))
    assert.falsy(out:find("0x6", 1, true))
  end)

  it("JSON gives its self and total as derived by hand", function()
    local doc = require("cjson").decode(run("--format=json"))
    local found
    for _, r in ipairs(doc.functions) do
      assert.falsy(tostring(r.name):find("^%[unknown%] 0x"), r.name)
      if r.name == "[unknown]" then found = r end
    end
    assert.truthy(found)
    local function near(want, got) assert.is_true(math.abs(want - got) < 1e-9, tostring(got)) end
    near(0.010, found.self.base); near(0.030, found.self.new)
    near(0.050, found.total.base); near(0.070, found.total.new)
    assert.equal("common", found.status)
  end)

  it("the folded stacks merge the addresses frame by frame", function()
    local got = {}
    for line in run("--format=folded"):gmatch("[^\n]+") do
      local stack, b, n = line:match("^(.-) (%d+) (%d+)$")
      if stack:find("^%[unknown%] prog%+0x%x+$") then
        assert.same({ 5000, 5000 }, { tonumber(b), tonumber(n) })
      else
        got[stack] = { tonumber(b), tonumber(n) }
      end
    end
    assert.same({ ["main;middle;leaf"] = { 100000, 100000 },
                  ["[unknown];[unknown];leaf"] = { 40000, 40000 },
                  ["[unknown]"] = { 10000, 30000 } }, got)
  end)

  it("an address in the program no symbol covers keeps its name, common to both", function()
    local doc = require("cjson").decode(run("--format=json"))
    local found = {}
    for _, r in ipairs(doc.functions) do
      if r.name:find("^%[unknown%] prog%+0x") then found[#found + 1] = r end
    end
    assert.equal(1, #found)
    assert.equal("common", found[1].status)
    assert.is_true(math.abs(found[1].self.base - 0.005) < 1e-9)
    assert.is_true(math.abs(found[1].self.new - 0.005) < 1e-9)
  end)

  it("the comparison page has one [unknown] function, and its callees", function()
    local out = run("--format=html")
    assert.truthy(out:find("[unknown]", 1, true))
    assert.falsy(out:find("[unknown] 0x", 1, true))
  end)

  it("the flame graph has no new or gone frame", function()
    local out = run("--format=svg")
    assert.falsy(out:find("0x5", 1, true))
    assert.truthy(out:find("[unknown]", 1, true))
  end)
end)
