-- Two perf.data recordings of one program and library (a base and a new
-- run), for the comparison page's threads and binaries: helpers.perfwriter's
-- records for two ELF files of helpers.elfwriter. Every sample weighs 1 ms
-- of cpu-clock. The threads' ids differ between the runs (as they do): a
-- thread of the comparison is its command name.
--
--   local fx = require("helpers.perfdiffgroups").write(dir)
--   fx.base, fx.new (perf.data paths), fx.prog, fx.lib (the binaries)
--
-- The samples: { n, comm, leaf, caller, ... } (root last; a number is an
-- address in no mapping)
--   base (prog: pid 100 tid 100, worker: 100/101, gone: 300/300)
--     B1 10 x main                          prog
--     B2 20 x lib_hot <- work_a <- main     prog
--     B3 10 x lib_hot <- work_b             worker
--     B4 30 x work_b                        worker
--     B5  5 x work_a                        gone
--     B6  3 x lib_hot <- 0x500000           worker (a caller in no mapping:
--                                           frame-pointer garbage)
--   new (prog: pid 500 tid 500, worker: 500/503, fresh: 700/700)
--     N1 10 x main                          prog
--     N2 60 x lib_hot <- work_a <- main     prog
--     N3 10 x lib_hot <- work_b             worker
--     N4  5 x work_b                        worker
--     N5  4 x lib_cold <- main              fresh
--     N6  2 x lib_hot <- 0x600000           worker (in no mapping)
local pw = require "helpers.perfwriter"
local pg = require "helpers.perfgroups"

local M = {}

local MS = 1000000

-- the binaries and their functions' addresses are helpers.perfgroups'
M.ADDR = pg.ADDR
-- { comm = { pid, tid } } of each run, and its stacks
M.RUNS = {
  base = {
    threads = { prog = { 100, 100 }, worker = { 100, 101 }, gone = { 300, 300 } },
    stacks = {
      { 10, "prog", "main" },
      { 20, "prog", "lib_hot", "work_a", "main" },
      { 10, "worker", "lib_hot", "work_b" },
      { 30, "worker", "work_b" },
      { 5, "gone", "work_a" },
      { 3, "worker", "lib_hot", 0x500000 },
    },
  },
  new = {
    threads = { prog = { 500, 500 }, worker = { 500, 503 }, fresh = { 700, 700 } },
    stacks = {
      { 10, "prog", "main" },
      { 60, "prog", "lib_hot", "work_a", "main" },
      { 10, "worker", "lib_hot", "work_b" },
      { 5, "worker", "work_b" },
      { 4, "fresh", "lib_cold", "main" },
      { 2, "worker", "lib_hot", 0x600000 },
    },
  },
}

local function record(path, run, prog, lib)
  local f = pw.chain_recording(MS)
  local t = 10
  -- (the processes' main threads first, each process's mappings once)
  local names = {}
  for comm in pairs(run.threads) do names[#names + 1] = comm end
  table.sort(names, function(a, b)
    local x, y = run.threads[a], run.threads[b]
    if x[2] ~= y[2] then return x[2] < y[2] end
    return a < b
  end)
  local mapped = {}
  for _, comm in ipairs(names) do
    local pid, tid = run.threads[comm][1], run.threads[comm][2]
    t = t + 1
    f:comm(pid, tid, comm, t, pid == tid)
    if not mapped[pid] then
      mapped[pid] = true
      f:mmap2(pid, tid, 0x401000, 0x1000, 0x1000, prog, t + 1)
      f:mmap2(pid, tid, 0x601000, 0x1000, 0x1000, lib, t + 2)
      t = t + 2
    end
  end
  t = 101
  for _, s in ipairs(run.stacks) do
    local th = run.threads[s[2]]
    t = f:chain_samples(s[1], th[1], th[2], pg.frames(s, 3), t, 1, MS)
  end
  f:finished_round()
  pw.write(path, f:bytes())
end

--- Writes prog, libw.so, base.data and new.data in dir: { base, new, prog, lib }.
function M.write(dir)
  local prog, lib = pg.binaries(dir)
  local base, new = dir .. "/base.data", dir .. "/new.data"
  record(base, M.RUNS.base, prog, lib)
  record(new, M.RUNS.new, prog, lib)
  return { base = base, new = new, prog = prog, lib = lib }
end

return M
