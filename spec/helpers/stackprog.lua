-- spec/helpers/stackprog.lua: a small C program (leaf, other, middle,
-- main), compiled in a spec's directory with frame pointers and no
-- inlining, and its sampled stacks written into a perf.data one sample at
-- a time (helpers.perfwriter): process PID, the PIE's text mapped at BIAS,
-- each caller frame a return address 8 bytes into its function, the leaf
-- 4 bytes in. Every number a spec expects follows from the stacks it
-- writes.
local util = require "helpers.util"
local cmd = require "helpers.cmd"
local pw = require "helpers.perfwriter"

local M = {}

M.BIAS = 0x555555554000
M.PID = 100

M.SRC = [[
volatile unsigned long sink;
__attribute__((noinline)) void leaf(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void other(long n) { for (long i = 0; i < n; i++) sink ^= i; }
__attribute__((noinline)) void middle(long n) { leaf(n); leaf(n + 1); }
int main(int argc, char **argv) {
  (void)argv;
  for (long i = 0; i < argc; i++) { middle(1000); other(1000); }
  return 0;
}
]]

M.CC = "cc -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id"

local function described(exe)
  local prog = { exe = exe, syms = util.code_symbols(exe), text = util.text_segment(exe) }
  local s = prog.syms
  assert(prog.text and s.leaf and s.other and s.middle and s.main)
  return prog
end

--- Compiles the program into dir/prog (with a GNU build-id): { exe, syms
-- (util.code_symbols), text (util.text_segment) }.
function M.build(dir)
  local exe = dir .. "/prog"
  util.spit(dir .. "/prog.c", M.SRC)
  local status, out, err = cmd.shell(M.CC .. " -o " .. util.q(exe) .. " " .. util.q(dir .. "/prog.c"))
  assert(status == 0, out .. err)
  return described(exe)
end

--- As build, but the program is compiled once per build folder, in
-- build/fixtures/stackprog/ (again when M.SRC or M.CC changes: the folder's
-- stamp holds both), and copied into dir/prog, with its source in
-- dir/prog.c. The copy's DWARF names the source in that folder; every
-- spec using it writes its own samples, so one compile serves them all
-- (a compile and link cost about 0.2 s of CPU, a dozen spec files use it).
function M.shared(dir)
  local exe = dir .. "/prog"
  util.spit(dir .. "/prog.c", M.SRC)
  local cache = cmd.ROOT .. "/build/fixtures/stackprog"
  assert(util.mkdir(cache), "cannot create " .. cache)
  local want = os.tmpname()
  util.spit(want, M.CC .. "\n" .. M.SRC)
  -- under the folder's lock (spec files run in parallel): compile unless
  -- the stamp matches, then copy
  local script = table.concat({
    "cd " .. util.q(cache) .. " || exit 1",
    "if ! { [ -f prog ] && cmp -s built.stamp " .. util.q(want) .. "; }; then",
    "  rm -f prog built.stamp && cp " .. util.q(dir .. "/prog.c") .. " prog.c &&",
    "  " .. M.CC .. " -o prog.tmp prog.c && mv prog.tmp prog && cp " .. util.q(want) .. " built.stamp || exit 1",
    "fi",
    "cp prog " .. util.q(exe),
  }, "\n")
  local line = "sh -c " .. util.q(script)
  if util.have("flock") then line = "flock " .. util.q(cache .. "/.lock") .. " " .. line end
  local status, out, err = cmd.shell(line)
  os.remove(want)
  assert(status == 0, out .. err)
  return described(exe)
end

--- The address off bytes (default 4) into the function name, as mapped.
function M.addr(prog, name, off)
  return M.BIAS + prog.syms[name].addr + (off or 4)
end

--- Writes into f (a perfwriter file) the program's process (COMM) and
-- its text's mapping (MMAP2) at BIAS. Returns f.
function M.map(f, prog)
  local text = prog.text
  f:comm(M.PID, M.PID, "prog", 10, true)
  local start = M.BIAS + (text.vaddr & ~0xfff)
  local len = ((text.vaddr + text.filesz + 0xfff) & ~0xfff) - (text.vaddr & ~0xfff)
  f:mmap2(M.PID, M.PID, start, len, text.offset & ~0xfff, prog.exe, 20)
  return f
end

--- Writes into f the program's mapping (M.map) and the samples of stacks:
-- a list of { frames = names, leaf first; periods = one per sample, each
-- times unit (default 1) }, then a finished round. Returns f.
function M.write_stacks(f, prog, stacks, unit)
  M.map(f, prog)
  local t = 1000
  for _, s in ipairs(stacks) do
    for _, period in ipairs(s.periods) do
      local chain = { pw.CONTEXT_USER }
      for k, name in ipairs(s.frames) do chain[#chain + 1] = M.addr(prog, name, k == 1 and 4 or 8) end
      t = t + 1
      f:sample({ ip = chain[2], pid = M.PID, tid = M.PID, time = t, period = period * (unit or 1),
                 chain = chain })
    end
  end
  f:finished_round()
  return f
end

return M
