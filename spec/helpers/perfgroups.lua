-- A perf.data of two processes, three threads and two binaries, for the
-- specs of --by and of the texts written about a perf.data profile:
-- helpers.perfwriter's records for two ELF files of helpers.elfwriter (a
-- program and a library, each mapped at its own addresses). Every sample
-- weighs 1 ms of cpu-clock.
--
--   local fx = require("helpers.perfgroups").write(dir)
--   fx.perf, fx.prog, fx.lib, fx.addr, fx.stacks
--
-- The samples (fx.stacks): { n, pid, tid, leaf, caller, ... }
--   S1 3 x main                    pid 100 tid 100 "prog"
--   S2 5 x lib_hot <- work_a <- main   100/100
--   S3 4 x lib_hot <- work_b           100/101 "worker"
--   S4 2 x work_b                      100/101
--   S5 6 x lib_cold <- main            200/200 "other"
--   S6 1 x work_a <- main              200/200
local pw = require "helpers.perfwriter"
local ew = require "helpers.elfwriter"

local M = {}

local MS = 1000000

M.ADDR = { main = 0x401000, work_a = 0x401100, work_b = 0x401200,
           lib_hot = 0x601000, lib_cold = 0x601100 }
M.STACKS = {
  { 3, 100, 100, "main" },                      -- S1
  { 5, 100, 100, "lib_hot", "work_a", "main" }, -- S2
  { 4, 100, 101, "lib_hot", "work_b" },         -- S3
  { 2, 100, 101, "work_b" },                    -- S4
  { 6, 200, 200, "lib_cold", "main" },          -- S5
  { 1, 200, 200, "work_a", "main" },            -- S6
}

--- Writes the program (main, work_a, work_b at 0x401000) and the library
--- (lib_hot, lib_cold at 0x601000) in dir: prog, lib (their paths).
function M.binaries(dir)
  local ADDR = M.ADDR
  local prog, lib = dir .. "/prog", dir .. "/libw.so"
  ew.write(prog, { text_addr = 0x401000, text_size = 0x1000, symbols = {
    { name = "main", addr = ADDR.main, size = 0x100, type = "func" },
    { name = "work_a", addr = ADDR.work_a, size = 0x100, type = "func" },
    { name = "work_b", addr = ADDR.work_b, size = 0x100, type = "func" } } })
  ew.write(lib, { text_addr = 0x601000, text_size = 0x1000, symbols = {
    { name = "lib_hot", addr = ADDR.lib_hot, size = 0x100, type = "func" },
    { name = "lib_cold", addr = ADDR.lib_cold, size = 0x100, type = "func" } } })
  return prog, lib
end

--- The addresses of a stack whose names are stack[first], stack[first + 1]...
--- (leaf first): the leaf's sample address (+8), then each caller's return
--- address (+0x14); a number is an address in no mapping, kept as it is.
function M.frames(stack, first)
  local ADDR, frames = M.ADDR, {}
  for i = first, #stack do
    local v = stack[i]
    frames[#frames + 1] = type(v) == "number" and v or ADDR[v] + (i == first and 8 or 0x14)
  end
  return frames
end

--- Writes prog, libw.so and perf.data in dir: { perf, prog, lib }.
function M.write(dir)
  local prog, lib = M.binaries(dir)
  local perf = dir .. "/perf.data"
  local f = pw.chain_recording(MS)
  f:comm(100, 100, "prog", 10, true)
  f:mmap2(100, 100, 0x401000, 0x1000, 0x1000, prog, 20)
  f:mmap2(100, 100, 0x601000, 0x1000, 0x1000, lib, 21)
  f:comm(100, 101, "worker", 30)
  f:comm(200, 200, "other", 40, true)
  f:mmap2(200, 200, 0x401000, 0x1000, 0x1000, prog, 50)
  f:mmap2(200, 200, 0x601000, 0x1000, 0x1000, lib, 51)
  local t = 101
  for _, s in ipairs(M.STACKS) do
    t = f:chain_samples(s[1], s[2], s[3], M.frames(s, 4), t, 1, MS)
  end
  f:finished_round()
  pw.write(perf, f:bytes())
  return { perf = perf, prog = prog, lib = lib }
end

return M
