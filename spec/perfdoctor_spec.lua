-- lgprof doctor on perf.data files written with helpers.perfwriter: each
-- finding of a recording (no-callchains, broken-stacks, lost-samples,
-- unresolved-dso, kernel-hidden, few-samples, truncated, mixed-events) with a file that
-- must produce it and the clean file that must not.
local lgprof = require "lgprof"
local doctor = require "lgprof.analysis.doctor"
local pw = require "helpers.perfwriter"
local H = require "helpers"

local TMP = H.util.mktempdir("lgprof-perfdoctor")
local U, K = pw.CONTEXT_USER, pw.CONTEXT_KERNEL
local PID = 4242
local CHAIN = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN

-- a recording: n samples (default 200) of the chain chain(k) (default two
-- user frames in no mapping), sample_type st
local function recording(o)
  o = o or {}
  local f = pw.new({ attrs = o.attrs or { { sample_type = o.st or CHAIN, period = 1000000, ids = { 1 } } } })
  f:comm(PID, PID, "prog", 10, true)
  if o.before then o.before(f) end
  for k = 1, o.n or 200 do
    f:sample({ ip = 0x1234, pid = PID, tid = PID, time = 100 + k, period = 1000000,
      chain = o.chain and o.chain(k) or { U, 0x1234, 0x2234 } })
  end
  if o.after then o.after(f) end
  return f
end

local function write(name, f, cut)
  local path = TMP .. "/" .. name
  local bytes = f:bytes()
  pw.write(path, cut and bytes:sub(1, #bytes - cut) or bytes)
  return path
end

local function ids(path, options)
  local p = assert(lgprof.open(nil, path, options or { kallsyms = "" }))
  local set = {}
  for _, f in ipairs(doctor.diagnose(p)) do set[f.id] = f end
  p:close()
  return set
end

local ALL = { "mixed-events", "no-callchains", "broken-stacks", "lost-samples", "unresolved-dso", "kernel-hidden",
              "few-samples", "truncated" }

describe("lgprof doctor on a perf.data", function()
  local clean = write("clean.data", recording())

  it("finds nothing wrong with a clean recording, nor gmon.out's findings", function()
    assert.same({}, ids(clean))
    local status, out, err = H.cmd.lgprof({ "doctor", clean })
    assert.equal(0, status, err)
    assert.equal("lgprof doctor: no problem found\n", out)
  end)

  local cases = {
    ["no-callchains"] = function() return write("nog.data", recording({ st = pw.IP | pw.TID | pw.TIME | pw.PERIOD })) end,
    ["broken-stacks"] = function()
      return write("broken.data", recording({ chain = function(k)
        return k % 2 == 0 and { U, 0x1234 } or { U, 0x1234, 0x2234 } end }))
    end,
    ["lost-samples"] = function()
      return write("lost.data", recording({ after = function(f) f:lost(1, 20, 5000) end }))
    end,
    ["unresolved-dso"] = function()
      return write("missing.data", recording({ before = function(f)
        f:mmap2(PID, PID, 0x1000, 0x2000, 0, TMP .. "/no-such-binary", 20) end }))
    end,
    ["kernel-hidden"] = function()
      return write("kernel.data", recording({ chain = function()
        return { K, 0xffffffff81000150, 0xffffffff81000201, U, 0x1234, 0x2234 } end }))
    end,
    ["few-samples"] = function() return write("few.data", recording({ n = 20 })) end,
    ["truncated"] = function() return write("cut.data", recording(), 8) end,
    ["mixed-events"] = function()
      local st = CHAIN | pw.ID
      return write("mixed.data", recording({
        attrs = { { sample_type = st, period = 1000000, ids = { 11 }, name = "cpu-clock" },
                  { sample_type = st, period = 1000000, ids = { 21 }, name = "task-clock", config = 1 } },
        after = function(f)
          f:feature("event_desc", true)
          f:sample({ ip = 0x1234, pid = PID, tid = PID, time = 900, period = 1000000, id = 21, attr = 2,
            chain = { U, 0x1234, 0x2234 } })
        end }))
    end,
  }

  for _, id in ipairs(ALL) do
    it("finds " .. id .. " where it is, and only there", function()
      local found = ids(cases[id]())
      assert.is_truthy(found[id], id)
      assert.truthy(found[id].message and found[id].advice)
      assert.is_nil(ids(clean)[id])
    end)
  end

  it("advises few-samples without summing runs (perf.data files are not summed)", function()
    local found = ids(cases["few-samples"]())
    assert.is_nil(found["few-samples"].advice:find("sum", 1, true))
    assert.matches("perf record %-F", found["few-samples"].advice)
  end)

  it("reports through the command, with exit status 3 for a warning", function()
    local status, out = H.cmd.lgprof({ "doctor", "--format=json", cases["no-callchains"]() })
    assert.equal(3, status)
    assert.matches('"id":"no%-callchains"', out)
    assert.is_nil(out:find("no-call-graph", 1, true))
  end)
end)
