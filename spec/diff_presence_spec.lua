-- lgprof --diff of perf.data recordings: "new" and "gone" mean absent from
-- that build's binaries (their symbol tables), not absent from that run's
-- samples. A perf.data profile lists only the functions its frames met, so
-- the binaries' symbols decide.
--
-- Two builds of one program (base/prog and new/prog, no build-id: matched
-- by file name) and a library libw.so (the same file in both runs); libo.so
-- is in the base run's samples only, libn.so in the new run's only
-- (helpers.elfwriter's ELF files, helpers.perfwriter's recordings, one
-- thread, every sample 1 ms of cpu-clock). Symbols:
--   base/prog: main, work, idle, old, score
--   new/prog:  main, work, idle, fresh, score.isra.0 (gcc's clone of score)
--   libw.so:   lib_hot, lib_cold          libo.so: o_fn       libn.so: n_fn
-- Samples (leaf <- callers):
--   base: 10 main; 20 work <- main; 5 idle <- main; 6 old <- main;
--         8 lib_hot <- main; 3 o_fn <- main                      (52 ms)
--   new:  10 main; 20 work <- main; 7 fresh <- main; 8 lib_hot <- main;
--         4 lib_cold <- main; 2 n_fn <- main; 3 score.isra.0 <- main (54 ms)
-- By hand:
--   idle: in both builds' symbols, sampled in the base only: common, self
--     5 ms -> 0 (not gone).
--   lib_cold: libw.so defines it in both runs, sampled in the new only:
--     common, self 0 -> 4 ms (not new).
--   old: only base/prog defines it: gone (6 ms -> 0); fresh: only new/prog:
--     new (0 -> 7 ms).
--   o_fn: libo.so is in no frame of the new run: gone (3 ms -> 0);
--     n_fn: libn.so in none of the base run's: new (0 -> 2 ms).
--   score.isra.0: its origin score is in base/prog (unsampled): with the
--     clones matched, common (0 -> 3 ms); with --no-clone-match, new (the
--     name score.isra.0 is not in base/prog).
--   main, work, lib_hot: sampled in both, common.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local ew = require "helpers.elfwriter"

local MS = 1000000
local ADDR = { main = 0x401000, work = 0x401100, idle = 0x401200, old = 0x401300, fresh = 0x401300,
               score = 0x401400, ["score.isra.0"] = 0x401400,
               lib_hot = 0x601000, lib_cold = 0x601100, o_fn = 0x701000, n_fn = 0x801000 }
local RUNS = {
  base = { { 10, "main" }, { 20, "work", "main" }, { 5, "idle", "main" }, { 6, "old", "main" },
           { 8, "lib_hot", "main" }, { 3, "o_fn", "main" } },
  new = { { 10, "main" }, { 20, "work", "main" }, { 7, "fresh", "main" },
          { 8, "lib_hot", "main" }, { 4, "lib_cold", "main" }, { 2, "n_fn", "main" },
          { 3, "score.isra.0", "main" } },
}

local function elf(path, text, names)
  local symbols = {}
  for _, n in ipairs(names) do
    symbols[#symbols + 1] = { name = n, addr = ADDR[n], size = 0x100, type = "func" }
  end
  ew.write(path, { text_addr = text, text_size = 0x1000, symbols = symbols })
end

local function record(path, stacks, maps)
  local f = pw.chain_recording(MS)
  f:comm(100, 100, "prog", 1, true)
  for i, m in ipairs(maps) do f:mmap2(100, 100, m[1], 0x1000, 0x1000, m[2], 1 + i) end
  local t = 101
  for _, s in ipairs(stacks) do
    local frames = { ADDR[s[2]] + 8 }
    for i = 3, #s do frames[#frames + 1] = ADDR[s[i]] + 0x14 end
    t = f:chain_samples(s[1], 100, 100, frames, t, 1, MS)
  end
  f:finished_round()
  pw.write(path, f:bytes())
end

describe("lgprof --diff of perf.data: new and gone mean absent from the build's binaries", function()
  local tmp, base, new

  setup(function()
    tmp = util.mktempdir("lgprof diff-presence")
    assert(os.execute("mkdir -p '" .. tmp .. "/base' '" .. tmp .. "/new'"))
    local bprog, lib = tmp .. "/base/prog", tmp .. "/libw.so"
    local newprog = tmp .. "/new/prog"
    elf(bprog, 0x401000, { "main", "work", "idle", "old", "score" })
    elf(newprog, 0x401000, { "main", "work", "idle", "fresh", "score.isra.0" })
    elf(lib, 0x601000, { "lib_hot", "lib_cold" })
    elf(tmp .. "/libo.so", 0x701000, { "o_fn" })
    elf(tmp .. "/libn.so", 0x801000, { "n_fn" })
    base, new = tmp .. "/base.data", tmp .. "/new.data"
    record(base, RUNS.base, { { 0x401000, bprog }, { 0x601000, lib }, { 0x701000, tmp .. "/libo.so" } })
    record(new, RUNS.new, { { 0x401000, newprog }, { 0x601000, lib }, { 0x801000, tmp .. "/libn.so" } })
  end)
  teardown(function() util.rmtree(tmp) end)

  local function run(...)
    local a = { "--diff=" .. base, ... }
    -- (no image: an image given would name both runs' prog, by file name)
    a[#a + 1] = new
    local s, out, err = cmd.lgprof(a)
    assert.equal(0, s, cmd.show(s, out, err))
    return out
  end

  local EXPECTED = { main = "common", work = "common", lib_hot = "common", idle = "common",
                     lib_cold = "common", old = "gone", o_fn = "gone", fresh = "new", n_fn = "new",
                     ["score.isra.0"] = "common" }

  it("the text table: (new) on fresh and n_fn, (gone) on old and o_fn only", function()
    local out = run()
    local marked, names = {}, {}
    for line in out:gmatch("[^\n]+") do
      local name, mark = line:match("(%S+) %((%a+)%)$")
      if mark == "new" or mark == "gone" then marked[#marked + 1] = name .. " " .. mark end
      local plain = line:match("%s(%S+)$")
      if plain then names[plain] = true end
    end
    table.sort(marked)
    assert.same({ "fresh new", "n_fn new", "o_fn gone", "old gone" }, marked)
    -- idle and lib_cold are rows of their own, unmarked
    assert.truthy(names.idle, out); assert.truthy(names.lib_cold, out)
  end)

  it("JSON: the status and the times derived by hand", function()
    local doc = require("cjson").decode(run("--format=json"))
    local status, by = {}, {}
    for _, r in ipairs(doc.functions) do
      status[r.name] = r.status
      by[r.name] = r
    end
    assert.same(EXPECTED, status)
    local function near(want, got, what) assert(math.abs(want - got) < 1e-9, what .. ": " .. got) end
    near(0.005, by.idle.self.base, "idle base"); near(0, by.idle.self.new, "idle new")
    near(0, by.lib_cold.self.base, "lib_cold base"); near(0.004, by.lib_cold.self.new, "lib_cold new")
    near(0.006, by.old.self.base, "old base"); near(0.007, by.fresh.self.new, "fresh new")
    near(0.003, by.o_fn.self.base, "o_fn base"); near(0.002, by.n_fn.self.new, "n_fn new")
  end)

  it("SVG: the frames' marks and the list of new and gone functions", function()
    -- the new profile's stacks: fresh and n_fn marked new, lib_cold not
    local svg = run("--format=svg")
    local frame_status = {}
    for status, name in svg:gmatch('data%-status="(%a*)"><title>([^<(]-) %(') do
      frame_status[name] = status
    end
    assert.equal("new", frame_status.fresh, svg)
    assert.equal("new", frame_status.n_fn, svg)
    assert.are_not.equal("new", frame_status.lib_cold, svg)
    assert.truthy(frame_status.lib_cold, svg)
    -- the lists under the graph (sorted): neither idle nor lib_cold
    assert.truthy(svg:find("New (dashed outline): fresh, n_fn<", 1, true), svg)
    assert.truthy(svg:find("Gone (dotted outline, not drawn: see --diff-shape=base): o_fn, old<", 1, true), svg)
    -- the base's stacks (--diff-shape=base): old and o_fn gone, idle not
    svg = run("--format=svg", "--diff-shape=base")
    frame_status = {}
    for status, name in svg:gmatch('data%-status="(%a*)"><title>([^<(]-) %(') do
      frame_status[name] = status
    end
    assert.equal("gone", frame_status.old, svg)
    assert.equal("gone", frame_status.o_fn, svg)
    assert.truthy(frame_status.idle, svg)
    assert.are_not.equal("gone", frame_status.idle, svg)
  end)

  it("the comparison page's data agrees", function()
    local html = run("--format=html")
    local data = require("cjson").decode(html:match(
      '<script type="application/json" id="lgprof%-diff%-data">(.-)</script>'))
    local status = {}
    for _, r in ipairs(data.fns) do
      if r.name then status[r.name] = r.status end
    end
    assert.same(EXPECTED, status)
  end)

  it("--no-clone-match: the names alone, score.isra.0 is new", function()
    local doc = require("cjson").decode(run("--format=json", "--no-clone-match"))
    local status = {}
    for _, r in ipairs(doc.functions) do status[r.name] = r.status end
    local want = {}
    for k, v in pairs(EXPECTED) do want[k] = v end
    want["score.isra.0"] = "new"
    assert.same(want, status)
  end)
end)

-- Functions of stripped code (named after their FDE, BINARY+0xSTART): the
-- same function only in the same build of its binary. A shared library
-- compiled here twice (the second build adds a statement to alpha: another
-- build-id), stripped (.dynsym keeps alpha; beta, static, is its FDE's
-- "libfde.so+0xSTART"). Recordings written by hand (helpers.perfwriter),
-- the library's MMAP2 with the build-id readelf -n gives:
--   a.data: build 1, 3 x beta <- alpha, 2 x alpha
--   b.data: build 1, 2 x alpha                (beta unsampled, same build)
--   c.data: build 2, 2 x alpha                (another build)
-- By hand: a -> b: beta's row common (3 ms -> 0: the same build-id holds
-- the same FDE); a -> c: beta's row gone (another build: its name is
-- another function's there); alpha common in both (.dynsym names it).
describe("lgprof --diff of perf.data: a function of stripped code (FDE)", function()
  if not (util.have("gcc") and util.have("strip") and util.have("readelf")) then
    pending("gcc, strip and readelf are needed")
    return
  end
  local q = util.q
  local BIAS, PID = 0x7f0000000000, 4242
  local SRC = [[
volatile unsigned long sink;
__attribute__((noinline)) static void beta(long n) { for (long i = 0; i < n; i++) sink += i; }
void alpha(long n) { beta(n); EXTRA }
]]
  local tmp, syms, text, datas = nil, nil, nil, {}

  local function build_id(path)
    local hex = util.read_cmd("readelf -n " .. q(path)):match("Build ID: (%x+)")
    assert(hex, "no build-id in " .. path)
    return (hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end))
  end

  local function build(dir, extra)
    local full, lib = tmp .. "/" .. dir .. "/full/libfde.so", tmp .. "/" .. dir .. "/libfde.so"
    util.spit(tmp .. "/" .. dir .. ".c", (SRC:gsub("EXTRA", extra)))
    assert(cmd.shell(("mkdir -p %s && gcc -O1 -shared -fPIC -fasynchronous-unwind-tables "
      .. "-Wl,--build-id -o %s %s && strip -o %s %s"):format(q(tmp .. "/" .. dir .. "/full"), q(full),
      q(tmp .. "/" .. dir .. ".c"), q(lib), q(full))) == 0)
    return full, lib
  end

  local function record(name, lib, stacks)
    local f = pw.chain_recording(MS)
    f:comm(PID, PID, "fdeprog", 10, true)
    local t = text[lib]
    local start = BIAS + (t.vaddr & ~0xfff)
    local len = ((t.vaddr + t.filesz + 0xfff) & ~0xfff) - (t.vaddr & ~0xfff)
    f:mmap2(PID, PID, start, len, t.offset & ~0xfff, lib, 20, { buildid = build_id(lib) })
    local time = 101
    for _, s in ipairs(stacks) do
      local frames = {}
      for i = 2, #s do frames[#frames + 1] = BIAS + syms[lib][s[i]].addr + (i == 2 and 2 or 5) end
      time = f:chain_samples(s[1], PID, PID, frames, time, 1, MS)
    end
    f:finished_round()
    local path = tmp .. "/" .. name
    pw.write(path, f:bytes())
    return path
  end

  setup(function()
    tmp = util.mktempdir("lgprof diff-presence fde")
    local full1, lib1 = build("one", "")
    local full2, lib2 = build("two", "sink ^= n;")
    syms, text = { [lib1] = util.code_symbols(full1), [lib2] = util.code_symbols(full2) }, {}
    text[lib1], text[lib2] = util.text_segment(lib1), util.text_segment(lib2)
    assert.are_not.equal(build_id(lib1), build_id(lib2))
    -- what the derivation rests on: beta has no symbol once stripped
    assert(not util.read_cmd("nm -D " .. q(lib1)):find(" beta\n", 1, true))
    datas.a = record("a.data", lib1, { { 3, "beta", "alpha" }, { 2, "alpha" } })
    datas.b = record("b.data", lib1, { { 2, "alpha" } })
    datas.c = record("c.data", lib2, { { 2, "alpha" } })
  end)
  teardown(function() util.rmtree(tmp) end)

  local function statuses(base, new)
    local s, out, err = cmd.lgprof({ "--diff=" .. datas[base], "--format=json", datas[new] })
    assert.equal(0, s, cmd.show(s, out, err))
    local t = {}
    for _, r in ipairs(require("cjson").decode(out).functions) do
      t[r.name:match("^libfde%.so%+0x") and "beta" or r.name] = r.status
    end
    return t
  end

  it("the same build: common, 0 on the side that did not sample it", function()
    assert.same({ alpha = "common", beta = "common" }, statuses("a", "b"))
  end)

  it("another build of the binary: gone", function()
    assert.same({ alpha = "common", beta = "gone" }, statuses("a", "c"))
  end)
end)
