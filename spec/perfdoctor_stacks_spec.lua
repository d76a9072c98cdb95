-- The doctor's broken-stacks on recordings written here (helpers.perfwriter):
-- frame-pointer chains of one user frame, in a system library's mapping and
-- in the program's. The finding names the binaries the chains end in, with
-- their shares, and its advice fits them: DWARF unwinding (lgprof record
-- --dwarf, perf record --call-graph dwarf) for a system library, which the
-- user cannot rebuild; -fno-omit-frame-pointer only for a binary of theirs
-- built without frame pointers (read from the file).
--
-- Derived by hand from the samples written: 8 samples, each a chain of one
-- user frame (CONTEXT_USER, the PC): 6 in the library's mapping, 2 in the
-- program's leaf -> 8/8 = 100% of the chains one frame deep; the library
-- 6/8 = 75%, the program 2/8 = 25%.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"
local lgprof = require "lgprof"
local doctor = require "lgprof.doctor"

local q = util.q
local MS = 1000000
local LIB = "/usr/lib/x86_64-linux-gnu/liblgprof-spec-absent.so.1"
local LIB_START = 0x7f0000000000

local tmp, fp_prog, nofp_prog

-- The program at exe (stackprog's layout) and LIB mapped; n_lib samples in
-- the library, n_prog in the program's leaf, every chain one frame deep.
local function recording(prog, n_lib, n_prog)
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
    period = 1, ids = { 1 } } } })
  sp.map(f, prog)
  f:mmap2(sp.PID, sp.PID, LIB_START, 0x10000, 0, LIB, 30)
  local t = 1000
  for i = 1, n_lib do
    t = t + 1
    local ip = LIB_START + 0x1000 + 16 * i
    f:sample({ ip = ip, pid = sp.PID, tid = sp.PID, time = t, period = MS, chain = { pw.CONTEXT_USER, ip } })
  end
  for _ = 1, n_prog do
    t = t + 1
    local ip = sp.addr(prog, "leaf", 4)
    f:sample({ ip = ip, pid = sp.PID, tid = sp.PID, time = t, period = MS, chain = { pw.CONTEXT_USER, ip } })
  end
  f:finished_round()
  return f
end

local function broken(path)
  local p = assert(lgprof.open(nil, path, { kallsyms = "" }))
  local found
  for _, f in ipairs(doctor.diagnose(p)) do
    if f.id == "broken-stacks" then found = f end
  end
  p:close()
  return found
end

describe("broken-stacks", function()
  setup(function()
    tmp = util.mktempdir("lgprof-doctor-stacks")
    fp_prog = sp.build(tmp)
    -- the same program without frame pointers, in a folder of its own
    local dir = util.mkdir(tmp .. "/nofp")
    util.spit(dir .. "/prog.c", sp.SRC)
    assert(util.exec_ok(("cc -O1 -g -fomit-frame-pointer -fno-inline -Wl,--build-id -o %s %s")
      :format(q(dir .. "/prog"), q(dir .. "/prog.c"))))
    nofp_prog = { exe = dir .. "/prog", syms = util.code_symbols(dir .. "/prog"), text = util.text_segment(dir .. "/prog") }
  end)
  teardown(function() util.rmtree(tmp) end)

  it("names the binaries the one-frame chains end in, with their shares, most first", function()
    local path = tmp .. "/lib.data"
    pw.write(path, recording(fp_prog, 6, 2):bytes())
    local f = assert(broken(path))
    assert.equal("100% of the call chains are one frame deep: callers are missing and totals are too low;"
      .. " they end in " .. LIB .. " (75%), " .. fp_prog.exe .. " (25%)", f.message)
    assert.equal(2, #f.binaries)
    assert.same({ LIB, 6 }, { f.binaries[1].path, f.binaries[1].samples })
    assert.same({ fp_prog.exe, 2 }, { f.binaries[2].path, f.binaries[2].samples })
  end)

  it("advises DWARF for a system library, and no rebuild of a program that keeps frame pointers", function()
    local path = tmp .. "/lib2.data"
    pw.write(path, recording(fp_prog, 6, 2):bytes())
    local f = assert(broken(path))
    assert.equal("record with DWARF unwinding: lgprof record --dwarf -- PROGRAM (or perf record --call-graph"
      .. " dwarf), as " .. LIB .. " is a system library built without frame pointers, not yours to rebuild",
      f.advice)
    assert.is_nil(f.advice:find("fno-omit-frame-pointer", 1, true))
  end)

  it("advises -fno-omit-frame-pointer for the user's binary built without it", function()
    local path = tmp .. "/own.data"
    pw.write(path, recording(nofp_prog, 0, 4):bytes())
    local f = assert(broken(path))
    assert.equal("100% of the call chains are one frame deep: callers are missing and totals are too low;"
      .. " they end in " .. nofp_prog.exe .. " (100%)", f.message)
    assert.equal("build " .. nofp_prog.exe .. " with -fno-omit-frame-pointer", f.advice)
    -- both kinds: both pieces of advice
    path = tmp .. "/both.data"
    pw.write(path, recording(nofp_prog, 3, 3):bytes())
    f = assert(broken(path))
    assert.matches("^record with DWARF unwinding: lgprof record %-%-dwarf", f.advice)
    assert.matches("; or build " .. nofp_prog.exe:gsub("%p", "%%%0") .. " with %-fno%-omit%-frame%-pointer$",
      f.advice)
  end)

  it("is what lgprof doctor prints", function()
    local path = tmp .. "/cli.data"
    pw.write(path, recording(fp_prog, 6, 2):bytes())
    local status, out = cmd.lgprof({ "doctor", "--format=json", path })
    assert.equal(3, status, out)
    assert.truthy(out:find(LIB .. " (75%)", 1, true), out)
    assert.truthy(out:find("lgprof record --dwarf", 1, true), out)
  end)
end)
