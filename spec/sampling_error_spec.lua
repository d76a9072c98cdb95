-- Sampling error: samples and self_error of Functions, Cycles and Lines,
-- Profile.samples, and the same numbers in the JSON and CSV exports.
-- Expected values by hand on synthesized profiles (helpers.synth: one
-- histogram bin per function, so a function's samples are exactly the
-- model's): self_error = sqrt(samples) / hz seconds.
local lgprof = require "lgprof"
local H = require "helpers"
local synth = require "helpers.synth"
local util, cmd = H.util, H.cmd
local HAVE_CJSON, cjson = pcall(require, "cjson")

local TMP = util.mktempdir("lgprof-sampling error")

local MODEL = {
  funcs = { { "main", 0 }, { "work", 400 }, { "x", 9 }, { "y", 16 }, { "rare", 1 } },
  arcs = { { "main", "work", 10 }, { "main", "x", 1 }, { "x", "y", 3 }, { "y", "x", 2 },
           { "main", "rare", 5 } },
}

local function near(want, got, what)
  assert(math.abs(want - got) <= 1e-12 * math.max(1, math.abs(want)),
    ("%s: want %.17g, got %.17g"):format(what, want, got))
end

describe("sampling error", function()
  local exe, gmon, exe2, gmon2
  lazy_setup(function()
    exe, gmon = synth.write(TMP, "se", MODEL)
    local m2 = { funcs = MODEL.funcs, arcs = MODEL.arcs, hz = 1000 }
    exe2, gmon2 = synth.write(TMP, "se1000", m2)
  end)
  lazy_teardown(function() util.rmtree(TMP) end)

  it("functions: samples as sampled, self_error sqrt(samples) sample periods", function()
    for _, c in ipairs { { exe, gmon, 100 }, { exe2, gmon2, 1000 } } do
      local p <close> = assert(lgprof.open(c[1], c[2]))
      assert.equal(426, p.samples)
      assert.equal(1 / c[3], p.sample_period)
      for _, f in ipairs(MODEL.funcs) do
        local fn = assert(p:find(f[1]))
        assert.equal(f[2], fn.samples, f[1])
        near(math.sqrt(f[2]) / c[3], fn.self_error, f[1] .. ".self_error")
        near(f[2] / c[3], fn.flat_self, f[1] .. ".flat_self")
      end
      -- work: 400 samples, 4 s at 100 Hz, error 20 samples = 0.2 s (5%)
      if c[3] == 100 then near(0.2, p:find("work").self_error, "work") end
    end
  end)

  it("cycles: the members' samples summed, and the error of the sum", function()
    local p <close> = assert(lgprof.open(exe, gmon))
    local cyc = assert(p:find("x").cycle)
    assert.equal(25, cyc.samples)
    near(0.05, cyc.self_error, "sqrt(25) / 100")
  end)

  it("lines: a function without line data is one Line with its samples", function()
    local p <close> = assert(lgprof.open(exe, gmon))
    local seen = 0
    for l in p:lines() do
      if l.func and l.func.name == "y" then
        assert.equal(16, l.samples)
        near(0.04, l.self_error, "y's line")
        seen = seen + 1
      end
    end
    assert.equal(1, seen)
  end)

  it("a profile with no samples: zero errors", function()
    local e, g = synth.write(TMP, "empty", { funcs = { { "main", 0 }, { "f", 0 } },
                                               arcs = { { "main", "f", 1 } } })
    local p <close> = assert(lgprof.open(e, g))
    assert.equal(0, p.samples)
    assert.equal(0, p:find("f").self_error)
  end)

  it("json: version 4 carries samples, self_error and the profile's samples", function()
    if not HAVE_CJSON then pending("lua-cjson not installed") return end
    local status, out, err = cmd.lgprof({ "--format=json", exe, gmon })
    assert.equal(0, status, err)
    local j = cjson.decode(out)
    assert.equal(4, j.version)
    assert.equal(426, j.totals.samples)
    local by = {}
    for _, f in ipairs(j.functions) do by[f.name] = f end
    assert.equal(400, by.work.samples)
    near(0.2, by.work.self_error, "json work")
    near(0.03, by.x.self_error, "json x")
    assert.equal(1, #j.cycles)
    assert.equal(25, j.cycles[1].samples)
    near(0.05, j.cycles[1].self_error, "json cycle")
  end)

  it("csv: the columns come last, after version 2's", function()
    local status, out, err = cmd.lgprof({ "--format=csv", exe, gmon })
    assert.equal(0, status, err)
    local header = out:match("^([^\r]*)\r\n")
    assert.equal("rank,name,file,line,address,percent_time,cumulative_seconds,self_seconds,"
      .. "calls,self_calls,children_seconds,total_seconds,index,cycle,samples,self_error_seconds,"
      .. "total_min_seconds,total_max_seconds", header)
    -- work ranks first: 400 samples, 0.2 s of error; its bounds are its own 4 s
    local row = out:match("\r\n(1,work,[^\r]*)\r\n")
    assert.is_not_nil(row, out)
    local f = {}
    for v in (row .. ","):gmatch("([^,]*),") do f[#f + 1] = v end
    assert.equal(18, #f)
    assert.equal("400", f[15])
    assert.equal(0.2, tonumber(f[16]))
    assert.equal(4, tonumber(f[17]))
    assert.equal(4, tonumber(f[18]))
  end)
end)
