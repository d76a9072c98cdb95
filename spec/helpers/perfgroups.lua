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

local U = pw.CONTEXT_USER
local MS = 1000000
local CHAIN = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN

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

--- Writes prog, libw.so and perf.data in dir: { perf, prog, lib }.
function M.write(dir)
  local ADDR = M.ADDR
  local prog, lib = dir .. "/prog", dir .. "/libw.so"
  ew.write(prog, { text_addr = 0x401000, text_size = 0x1000, symbols = {
    { name = "main", addr = ADDR.main, size = 0x100, type = "func" },
    { name = "work_a", addr = ADDR.work_a, size = 0x100, type = "func" },
    { name = "work_b", addr = ADDR.work_b, size = 0x100, type = "func" } } })
  ew.write(lib, { text_addr = 0x601000, text_size = 0x1000, symbols = {
    { name = "lib_hot", addr = ADDR.lib_hot, size = 0x100, type = "func" },
    { name = "lib_cold", addr = ADDR.lib_cold, size = 0x100, type = "func" } } })
  local perf = dir .. "/perf.data"
  local f = pw.new({ attrs = { { sample_type = CHAIN, period = MS, ids = { 1 } } } })
  f:comm(100, 100, "prog", 10, true)
  f:mmap2(100, 100, 0x401000, 0x1000, 0x1000, prog, 20)
  f:mmap2(100, 100, 0x601000, 0x1000, 0x1000, lib, 21)
  f:comm(100, 101, "worker", 30)
  f:comm(200, 200, "other", 40, true)
  f:mmap2(200, 200, 0x401000, 0x1000, 0x1000, prog, 50)
  f:mmap2(200, 200, 0x601000, 0x1000, 0x1000, lib, 51)
  local t = 100
  for _, s in ipairs(M.STACKS) do
    for _ = 1, s[1] do
      local chain = { U, ADDR[s[4]] + 8 }
      for i = 5, #s do chain[#chain + 1] = ADDR[s[i]] + 0x14 end -- return addresses
      t = t + 1
      f:sample({ ip = ADDR[s[4]] + 8, pid = s[2], tid = s[3], time = t, period = MS, chain = chain })
    end
  end
  f:finished_round()
  pw.write(perf, f:bytes())
  return { perf = perf, prog = prog, lib = lib }
end

return M
