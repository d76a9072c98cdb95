-- lgprof --diff's "new" and "gone": absent from that build's symbols (after
-- clone matching), not merely idle in that run. Synthesized executables and
-- gmon.out files (helpers.synth): every sample and call is known.
--
-- The base is an -O2-like build where the comparison function exists only as
-- its clone cmp_entry.isra.0 and was neither sampled nor called in the run
-- (reached through qsort, which mcount does not see), and where idle, in both
-- builds, did nothing; the new build has cmp_entry itself, sampled and
-- called, and idle sampled. fresh is only in the new build's symbols, old
-- only in the base's: those two are new and gone, the others are not.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd = H.util, H.cmd
local synth = require "helpers.synth"

describe("lgprof --diff: new and gone mean absent from the build", function()
  local tmp, base_exe, base_gmon, new_exe, new_gmon
  setup(function()
    tmp = util.mktempdir("lgprof-diffstatus")
    base_exe, base_gmon = synth.write(tmp, "base", {
      funcs = { { "main", 10 }, { name = "cmp_entry.isra.0", samples = 0, bind = "local",
                file = "clones.c" }, { "idle", 0 }, { "old", 5 } },
      arcs = { { "main", "old", 2 } },
    })
    new_exe, new_gmon = synth.write(tmp, "new", {
      funcs = { { "main", 10 }, { name = "cmp_entry", samples = 7, bind = "local",
                file = "clones.c" }, { "idle", 3 }, { "fresh", 4 } },
      arcs = { { "main", "cmp_entry", 1637 }, { "main", "idle", 1 }, { "main", "fresh", 1 } },
    })
  end)
  teardown(function() util.rmtree(tmp) end)

  it("the API: only fresh is added and only old removed", function()
    local b <close> = assert(lgprof.open(base_exe, base_gmon))
    local n <close> = assert(lgprof.open(new_exe, new_gmon))
    local status = {}
    for _, r in ipairs(lgprof.diff(b, n)) do status[r.name] = r end
    assert.equal("added", status.fresh.status)
    assert.equal("removed", status.old.status)
    -- in both builds' symbols, idle in the base's run: common, 0 in the base
    assert.equal("common", status.cmp_entry.status)
    assert.equal(0, status.cmp_entry.calls_base)
    assert.equal(1637, status.cmp_entry.calls_new)
    assert.equal(0, status.cmp_entry.self_base)
    assert.equal(0.07, status.cmp_entry.self_new) -- 7 samples at 100 Hz
    assert.equal("common", status.idle.status)
    assert.equal(0.03, status.idle.self_new)
    -- the other way round: idle and cmp_entry are not gone either
    local back = {}
    for _, r in ipairs(lgprof.diff(n, b)) do back[r.name] = r end
    assert.equal("removed", back.fresh.status)
    assert.equal("added", back.old.status)
    assert.equal("common", back.cmp_entry.status)
    assert.equal("common", back.idle.status)
  end)

  it("the table: (new) and (gone) only on fresh and old", function()
    local s, out, err = cmd.lgprof({ "--diff=" .. base_gmon, "--diff-image=" .. base_exe,
      new_exe, new_gmon })
    assert.equal(0, s, cmd.show(s, out, err))
    local marked = {}
    for line in out:gmatch("[^\n]+") do
      local name, mark = line:match("(%S+) %((%a+)%)$")
      if mark == "new" or mark == "gone" then marked[#marked + 1] = name .. " " .. mark end
    end
    table.sort(marked)
    assert.same({ "fresh new", "old gone" }, marked)
    -- (no DWARF: a static is labelled by its name alone)
    assert.truthy(out:find(" cmp_entry\n", 1, true), out)
  end)

  it("--no-clone-match: the clone's origin is not looked for, cmp_entry is new", function()
    local s, out, err = cmd.lgprof({ "--diff=" .. base_gmon, "--diff-image=" .. base_exe,
      "--no-clone-match", new_exe, new_gmon })
    assert.equal(0, s, cmd.show(s, out, err))
    assert.truthy(out:find(" cmp_entry (new)", 1, true), out)
    assert.truthy(out:find("idle\n", 1, true), out)
  end)
end)

-- Two clones of one origin in the base (mix.part.0 and mix.constprop.0),
-- the origin alone in the new build (mix): which one is mix cannot be told,
-- so neither is matched, and every output says so rather than guessing.
describe("lgprof --diff: an ambiguous clone match is said, not guessed", function()
  local tmp, bexe, bgmon, nexe, ngmon
  setup(function()
    tmp = util.mktempdir("lgprof-diffambiguous")
    bexe, bgmon = synth.write(tmp, "base", {
      funcs = { { "main", 10 }, { name = "mix.part.0", samples = 20, bind = "local" },
                { name = "mix.constprop.0", samples = 30, bind = "local" } },
      arcs = { { "main", "mix.part.0", 1 }, { "main", "mix.constprop.0", 1 } },
    })
    nexe, ngmon = synth.write(tmp, "new", {
      funcs = { { "main", 10 }, { name = "mix", samples = 50, bind = "local" } },
      arcs = { { "main", "mix", 2 } },
    })
  end)
  teardown(function() util.rmtree(tmp) end)
  local function run(fmt)
    local s, out, err = cmd.lgprof({ "--diff=" .. bgmon, "--diff-image=" .. bexe,
      "--format=" .. fmt, nexe, ngmon })
    assert.equal(0, s, cmd.show(s, out, err))
    return out
  end

  it("in the SVG, the JSON and the page", function()
    local svg = run("svg")
    assert.truthy(svg:find("Not matched, ambiguous: mix in several clones (", 1, true), svg)
    local doc = require("cjson").decode(run("json"))
    assert.equal("mix", doc.ambiguous[1].origin)
    table.sort(doc.ambiguous[1].functions)
    assert.same({ "mix", "mix.constprop.0", "mix.part.0" }, doc.ambiguous[1].functions)
    local status = {}
    for _, r in ipairs(doc.functions) do status[r.name] = r.status end
    -- each kept apart; in the builds' symbols the origin is there, so none is new or gone
    assert.same({ main = "common", mix = "common", ["mix.part.0"] = "common",
                  ["mix.constprop.0"] = "common" }, status)
    -- the page's data (its script writes the sentence from it)
    local data = require("cjson").decode(run("html"):match(
      '<script type="application/json" id="lgprof%-diff%-data">(.-)</script>'))
    assert.equal("mix", data.ambiguous[1].origin)
  end)
end)
