-- Frame pointers against DWARF unwinding on a real recording (issue 26).
-- A program built -O2 -g -fno-omit-frame-pointer whose hot leaf function
-- has no frame of its own (gcc leaves `push %rbp` out of small leaf
-- functions even so; objdump checks it) and is called from a caller of its
-- own, recorded twice: perf record -g and perf record --call-graph dwarf.
-- In a sample in the leaf, %rbp still points at its caller's frame, so the
-- kernel's frame-pointer walk gives the caller's caller as the leaf's
-- parent; unwinding the stack copy through the CFI gives the true caller.
-- lgprof's children shares on the DWARF file equal `perf report
-- --children` on the same file within 0.01 point (the oracle: perf). A
-- live run samples differently each time: only what holds of any run is
-- asserted. A third recording copies 64 bytes of stack per sample: the
-- leaf's, its caller's, outer's and main's frames (16 bytes each at most,
-- objdump) and no more, so every chain is cut in the C library, which
-- lgprof doctor reports with its reason. Pending, with the reason, where
-- perf cannot record.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd = H.util, H.cmd
local labels = require "helpers.perflabels"

local q = util.q
local TMP = util.mktempdir("lgprof-perfdwarf-live")

local SRC = [[
volatile unsigned long sink;
__attribute__((noinline)) void hot_leaf(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void leaf_caller(long n) { hot_leaf(n); hot_leaf(n / 2); sink ^= 1; }
__attribute__((noinline)) void outer(long n) { for (int k = 0; k < 4; k++) leaf_caller(n); sink ^= 2; }
int main(void) { for (int i = 0; i < 300; i++) outer(1000000); return 0; }
]]

-- builds the program and records fp.data and dwarf.data; nil and why not
local function record()
  if not util.have("perf") then return nil, "perf is not installed" end
  util.spit(TMP .. "/prog.c", SRC)
  local status, out, err = cmd.shell("cc -O2 -g -fno-omit-frame-pointer -o prog prog.c", { cwd = TMP })
  if status ~= 0 then return nil, "cc failed: " .. out .. err end
  for name, how in pairs({ ["fp.data"] = "-g", ["dwarf.data"] = "--call-graph dwarf",
                           ["small.data"] = "--call-graph dwarf,64" }) do
    status, out, err = cmd.shell(("perf record -q -N -e cpu-clock -F 999 %s -o %s ./prog"):format(how, name),
      { cwd = TMP })
    if status ~= 0 then return nil, "perf record does not work here: " .. (out .. err):gsub("\n", " ") end
  end
  return true
end

-- perf report --children's shares of the user-space symbols: name ->
-- percentage, with the children of a label that begins at a return address
-- moved to the function lgprof names (helpers.perflabels: a sample taken
-- while ld.so starts the program has the return address after `call
-- _dl_start` in its `_start`, which perf 6.1 calls _dl_start_user)
-- Names through alias (helpers.perflabels.aliases: one name for the
-- symbols of one address, whichever each tool shows).
local function perf_children(path, alias)
  return labels.apply(cmd.perf_report_shares(path, true, { user_only = true, alias = alias }), labels.moves(path),
    alias)
end

-- The samples whose leaf is hot_leaf, by the name of the frame above it
-- (the cut chains apart): parent -> samples, and their count.
local function leaf_parents(p)
  local by, n, cut = {}, 0, 0
  for s in p:stacks() do
    local fr = s.frames
    if #fr >= 1 and fr[#fr].name == "hot_leaf" then
      n = n + s.samples
      if s.truncated then
        cut = cut + s.samples
      else
        local parent = #fr >= 2 and fr[#fr - 1].name or "(none)"
        by[parent] = (by[parent] or 0) + s.samples
      end
    end
  end
  return by, n, cut
end

describe("frame pointers and DWARF on a leaf function without a frame", function()
  local ok, why = record()
  if not ok then
    pending(why)
    return
  end
  teardown(function() util.rmtree(TMP) end)

  it("the leaf keeps no frame pointer, its caller does", function()
    local dis = util.read_cmd("objdump -d --no-show-raw-insn " .. q(TMP .. "/prog"))
    local function body(fn) return assert(dis:match("\n%x+ <" .. fn .. ">:\n(.-)\n\n"), fn) end
    assert.is_nil(body("hot_leaf"):find("push%s+%%rbp"))
    assert.truthy(body("leaf_caller"):find("push%s+%%rbp"))
  end)

  it("the frame-pointer stacks give the caller's caller as the leaf's parent, DWARF's the caller", function()
    local fp = assert(lgprof.open(nil, TMP .. "/fp.data"))
    local by, n = leaf_parents(fp)
    fp:close()
    assert.is_true(n > 0)
    assert.is_true((by.outer or 0) > n / 2, "fp: " .. n .. " samples, " .. (by.outer or 0) .. " under outer")
    assert.is_nil(by.leaf_caller)
    local dw = assert(lgprof.open(nil, TMP .. "/dwarf.data"))
    local dby, dn, cut = leaf_parents(dw)
    dw:close()
    assert.is_true(dn > 0)
    assert.is_true((dby.leaf_caller or 0) > dn / 2, "dwarf: " .. dn .. " samples, "
      .. (dby.leaf_caller or 0) .. " under leaf_caller")
    -- every complete chain has the true caller
    assert.equal(dn - cut, dby.leaf_caller)
  end)

  it("lgprof's children shares on the DWARF file equal perf report --children's", function()
    local path = TMP .. "/dwarf.data"
    local alias = labels.aliases(path)
    local theirs = perf_children(path, alias)
    -- without frames for inlined functions, as perf report --no-inline: ld.so's
    -- call_init is a function of its own and is inlined elsewhere too, and
    -- a sample under both counted twice by name (one run in several)
    local p = assert(lgprof.open(nil, path, { no_inline = true }))
    local mine = {}
    for f in p:functions() do
      local k = alias(f.name)
      mine[k] = (mine[k] or 0) + 100 * f.total / p.total_time
    end
    p:close()
    -- the program's functions, and the C library's under which perf
    -- unwound them
    for _, name in ipairs({ "main", "outer", "leaf_caller", "hot_leaf" }) do
      assert.truthy(theirs[name], name .. " missing from perf report")
    end
    local compared = 0
    for name, pct in pairs(theirs) do
      if mine[name] then
        assert.is_true(math.abs(mine[name] - pct) <= 0.01 + 1e-9,
          ("%s: lgprof %.4f%%, perf %.2f%%"):format(name, mine[name], pct))
        compared = compared + 1
      end
    end
    assert.is_true(compared >= 4)
  end)

  it("lgprof doctor: no cut chains with perf's default copy; a 64-byte copy cuts them all, and says so", function()
    local doctor = require "lgprof.analysis.doctor"
    local function finding(name)
      local p = assert(lgprof.open(nil, TMP .. "/" .. name))
      local found
      for _, f in ipairs(doctor.diagnose(p)) do
        if f.id == "truncated-stacks" then found = f end
      end
      p:close()
      return found
    end
    local f = finding("dwarf.data")
    assert.is_true(f == nil or f.severity == "info", f and f.message)
    f = finding("small.data")
    assert.truthy(f)
    assert.equal("warning", f.severity)
    assert.equal(64, f.stack_copy_size)
    -- every sample in user space stops for want of stack; a sample in the
    -- kernel may have no user registers, and is not unwound
    assert.is_true(f.reasons.stack_copy > f.samples / 2, f.message)
    assert.truthy(f.advice:find("record with --call-graph dwarf,65528 (lgprof record --stack-size=65528; this recording copied 64 bytes)", 1, true))
  end)
end)
