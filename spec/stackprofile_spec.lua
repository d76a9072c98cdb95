-- Profiles of sampled stacks (the perf.data model, stackprofile.h) built
-- from hand-written stack tables through core._profile_from_stacks. Every
-- expected number is derived by hand from the definitions in
-- csrc/core/model/stackprofile.h (the derivation is in the comments);
-- weights are nanoseconds of a time event, so seconds = weight / 1e9.
local lgprof = require "lgprof"
local core = lgprof._core

local EPS = 1e-12
local MS = 1000000 -- ns

local function near(want, got, what)
  assert(type(got) == "number", ("%s: want %.12g, got %s"):format(what, want, tostring(got)))
  assert(math.abs(want - got) <= EPS, ("%s: want %.12g, got %.12g"):format(what, want, got))
end

local function build(t, options)
  t.dsos = t.dsos or { { path = "/bin/prog" } }
  t.threads = t.threads or { { pid = 7, tid = 7, comm = "prog" } }
  t.events = t.events or { { name = "cpu-clock", is_time = true } }
  return assert(core._profile_from_stacks(t, options))
end

-- the function named name (in binary dso, when given)
local function fn(p, name, dso)
  local hit
  for f in p:functions() do
    if f.name == name and (dso == nil or f.dso == dso) then
      assert(hit == nil, "two functions " .. name)
      hit = f
    end
  end
  return assert(hit, name)
end

-- the elements of an iterator, in a list
local function collect(iter)
  local list = {}
  for x in iter do list[#list + 1] = x end
  return list
end

local function arc(p, from, to)
  for a in p:arcs() do
    if a.caller == from and a.callee == to then return a end
  end
  error(("no arc %s -> %s"):format(from.name, to.name))
end

-- { self, total } in ms
local function check_times(p, want)
  for name, w in pairs(want) do
    local f = fn(p, name)
    near(w[1] * MS / 1e9, f.self, name .. ".self")
    near(w[2] * MS / 1e9, f.total, name .. ".total")
    near((w[2] - w[1]) * MS / 1e9, f.children, name .. ".children")
    near(f.total, f.total_min, name .. ".total_min")
    near(f.total, f.total_max, name .. ".total_max")
  end
end

local function check_arc(p, from, to, self, children)
  local a = arc(p, fn(p, from), fn(p, to))
  near(self * MS / 1e9, a.self, from .. "->" .. to .. ".self")
  near(children * MS / 1e9, a.children, from .. "->" .. to .. ".children")
  assert.is_false(a.is_estimated)
  assert.is_nil(a.count)
end

-- functions: 1 main, 2 a, 3 b; frames leaf first
local function recursion()
  return build {
    funcs = { { name = "main", start = 0x1000, ["end"] = 0x10ff }, { name = "a", start = 0x1100, ["end"] = 0x11ff },
              { name = "b", start = 0x1200, ["end"] = 0x12ff } },
    stacks = {
      { frames = { 2, 1 }, samples = 2, weight = 2 * MS },       -- S1 main>a
      { frames = { 3, 2, 1 }, samples = 1, weight = 1 * MS },    -- S2 main>a>b
      { frames = { 2, 2, 2, 1 }, samples = 1, weight = 4 * MS }, -- S3 main>a>a>a
      { frames = { 1 }, samples = 1, weight = 1 * MS },          -- S4 main
    },
  }
end

describe("a profile of sampled stacks", function()
  it("measures self and total, recursion counted once per sample", function()
    local p = recursion()
    -- main: leaf in S4 (1); on every stack (8). a: leaf in S1, S3 (2 + 4);
    -- on S1, S2, S3 once each (2 + 1 + 4). b: S2 only.
    check_times(p, { main = { 1, 8 }, a = { 6, 7 }, b = { 1, 1 } })
    -- samples are counts: a is the leaf of 2 + 1 samples; its error is
    -- sqrt(3) x the mean period (6 ms / 3)
    local a = fn(p, "a")
    assert.equal(3, a.samples)
    near(math.sqrt(3) * 2 * MS / 1e9, a.self_error, "a.self_error")
    assert.equal(0x1100, a.address)
    assert.equal("/bin/prog", a.dso)
    assert.is_false(a.is_inline)
    assert.is_nil(a.cycle)
  end)

  it("puts each sample on the arc into the outermost frame of each function", function()
    local p = recursion()
    -- main->a: S1 (a's run is the leaf: self 2), S3 (run a>a>a holds the
    -- leaf: self 4), S2 (b is the leaf: children 1)
    check_arc(p, "main", "a", 6, 1)
    check_arc(p, "a", "b", 1, 0)
    -- recursion carries no time, as in gprof
    check_arc(p, "a", "a", 0, 0)
    assert.is_true(arc(p, fn(p, "a"), fn(p, "a")).is_recursive)
    -- a's parent lines add up to its total (never a root); main's child
    -- lines to its total less its self
    near(fn(p, "a").total, fn(p, "a").total, "")
  end)

  it("records no calls", function()
    local p = recursion()
    for f in p:functions() do
      assert.is_nil(f.calls)
      assert.is_nil(f.self_calls)
      assert.is_nil(f.member_calls)
    end
    for a in p:arcs() do assert.is_nil(a.count) end
  end)

  it("has exact bounds and nothing ambiguous", function()
    local p = recursion()
    for f in p:functions() do
      assert.equal(f.total, f.total_min)
      assert.equal(f.total, f.total_max)
      assert.is_true(f.total_max_exact)
    end
    for a in p:arcs() do assert.is_false(a.is_estimated) end
    assert.same({}, p:ambiguous())
  end)

  -- functions: 1 main, 2 a, 3 b, 4 c; a and b call each other
  local function cycle()
    return build {
      funcs = { { name = "main" }, { name = "a", start = 16 }, { name = "b", start = 32 },
                { name = "c", start = 48 } },
      stacks = {
        { frames = { 2, 3, 2, 1 }, samples = 1, weight = 1 * MS }, -- S1 main>a>b>a
        { frames = { 3, 2, 1 }, samples = 1, weight = 2 * MS },    -- S2 main>a>b
        { frames = { 4, 3, 2, 1 }, samples = 1, weight = 4 * MS }, -- S3 main>a>b>c
        { frames = { 4, 1 }, samples = 1, weight = 8 * MS },       -- S4 main>c
      },
    }
  end

  it("finds cycles and times them exactly", function()
    local p = cycle()
    -- a: leaf in S1; on S1, S2, S3. b: leaf in S2; on S1, S2, S3.
    -- c: leaf in S3, S4. main: never a leaf, on all.
    check_times(p, { main = { 0, 15 }, a = { 1, 7 }, b = { 2, 7 }, c = { 12, 12 } })
    local cyc = assert(fn(p, "a").cycle)
    assert.equal(cyc, fn(p, "b").cycle)
    assert.is_nil(fn(p, "c").cycle)
    local n = 0
    for _ in p:cycles() do n = n + 1 end
    assert.equal(1, n)
    -- as a whole: self = leaf in a member (S1 1 + S2 2); total = a member
    -- on the stack (S1, S2, S3)
    near(3 * MS / 1e9, cyc.self, "cycle.self")
    near(7 * MS / 1e9, cyc.total, "cycle.total")
    near(4 * MS / 1e9, cyc.children, "cycle.children")
    near(cyc.total, cyc.total_min, "cycle.total_min")
    near(cyc.total, cyc.total_max, "cycle.total_max")
    assert.is_nil(cyc.calls)
    -- main->a enters the cycle: S1 and S2 end in it (self 1 + 2), S3 leaves
    -- it for c (children 4); inside the cycle no time
    check_arc(p, "main", "a", 3, 4)
    check_arc(p, "a", "b", 0, 0)
    check_arc(p, "b", "a", 0, 0)
    assert.is_true(arc(p, fn(p, "a"), fn(p, "b")).in_cycle)
    -- c's parent lines: b->c (S3) and main->c (S4) add up to its total
    check_arc(p, "b", "c", 4, 0)
    check_arc(p, "main", "c", 8, 0)
    assert.same({}, p:ambiguous())
  end)

  -- two binaries with a function f each; three threads in two processes
  local function threads()
    return build {
      dsos = { { path = "/bin/prog" }, { path = "/lib/libm.so" } },
      funcs = { { name = "main", start = 0x100 }, { name = "f", start = 0x200, line = 12, file = 1 },
                { name = "f", dso = 2, start = 0x200, is_inline = 1 } },
      files = { "prog.c" },
      threads = { { pid = 7, tid = 7, comm = "prog" }, { pid = 7, tid = 8, comm = "worker" },
                  { pid = 9, tid = 9, comm = "other" } },
      stacks = {
        { frames = { 2, 1 }, samples = 1, weight = 1 * MS, thread = 1 },    -- S1
        { frames = { 3, 1 }, samples = 2, weight = 2 * MS, thread = 2 },    -- S2
        { frames = { 3, 2, 1 }, samples = 1, weight = 4 * MS, thread = 2 }, -- S3
        { frames = { 1 }, samples = 4, weight = 8 * MS, thread = 3 },       -- S4
      },
    }
  end

  it("keeps a function of the same name in two binaries apart", function()
    local p = threads()
    local f1, f2 = fn(p, "f", "/bin/prog"), fn(p, "f", "/lib/libm.so")
    assert.are_not.equal(f1, f2)
    -- f of prog: leaf in S1; on S1, S3. f of libm: leaf in S2, S3.
    near(1 * MS / 1e9, f1.self, "f1.self")
    near(5 * MS / 1e9, f1.total, "f1.total")
    near(6 * MS / 1e9, f2.self, "f2.self")
    near(6 * MS / 1e9, f2.total, "f2.total")
    assert.is_false(f1.is_inline)
    assert.is_true(f2.is_inline)
    assert.equal("prog.c", f1.file)
    assert.equal(12, f1.line)
    assert.is_nil(f2.file)
    -- S3: f of prog calls f of libm
    local a = arc(p, f1, f2)
    near(4 * MS / 1e9, a.self, "f->f.self")
  end)


  it("orders its functions by binary, then address, then name, whatever order the table has", function()
    -- the order stackprofile.c states: binary (its number), start, name
    -- (strcmp), then the table's order; inlined functions all start at 0
    local p = build {
      dsos = { { path = "/bin/prog" }, { path = "/lib/libm.so" } },
      funcs = {
        { name = "sin", dso = 2, start = 0x900 },
        { name = "zeta", start = 0x2000 },
        { name = "main", start = 0x1000 },
        { name = "cos", dso = 2, start = 0x100 },
        { name = "beta", start = 0x2000 },
        { name = "inl_b", is_inline = 1 },
        { name = "alpha", start = 0x2000 },
        { name = "inl_a", is_inline = 1 },
        { name = "alpha", start = 0x2000, ["end"] = 0x2010 },
        { name = "tan", dso = 2, start = 0x100000000 },
        { name = "exp", dso = 2 },
      },
      stacks = { { frames = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }, samples = 1, weight = MS } },
    }
    -- callgrind's export numbers the functions in the model's order (its
    -- compressed names, fn=(N) NAME, the first time each is written)
    local fh = io.tmpfile()
    assert.is_true(lgprof.report.callgrind(p, fh))
    fh:seek("set")
    local text, got = fh:read("a"), {}
    fh:close()
    for n, name in text:gmatch("\nc?fn=%((%d+)%) ([^\n]+)") do got[tonumber(n)] = name:gsub(" %[0x%x+%]$", "") end
    assert.same({ "inl_a", "inl_b", "main", "alpha", "alpha", "beta", "zeta",
                  "exp", "cos", "sin", "tan" }, got)
  end)
  it("gives threads, processes, binaries and stacks as iterators, as every collection", function()
    local p = threads()
    for _, name in ipairs({ "threads", "processes", "dsos", "stacks" }) do
      local it = p[name](p)
      assert.equal("function", type(it), name)
      local n = 0
      for x in it do
        assert.equal("table", type(x), name)
        n = n + 1
      end
      -- 3 threads, 2 processes, 2 binaries, 4 stacks (threads() above)
      assert.equal(({ threads = 3, processes = 2, dsos = 2, stacks = 4 })[name], n, name)
    end
    -- a stack is made when reached: from a closed profile, an error
    local it = p:stacks()
    assert.is_table(it())
    p:close()
    assert.has_error(function() it() end)
  end)

  it("lists threads, processes and binaries", function()
    local p = threads()
    local t = collect(p:threads())
    assert.equal(3, #t)
    assert.same({ pid = 7, tid = 7, comm = "prog", samples = 1, weight = 1 * MS, seconds = 0.001 }, t[1])
    assert.same({ pid = 7, tid = 8, comm = "worker", samples = 3, weight = 6 * MS, seconds = 0.006 }, t[2])
    assert.same({ pid = 9, tid = 9, comm = "other", samples = 4, weight = 8 * MS, seconds = 0.008 }, t[3])
    local pr = collect(p:processes())
    assert.same({ pid = 7, comm = "prog", threads = 2, samples = 4, weight = 7 * MS, seconds = 0.007 }, pr[1])
    assert.same({ pid = 9, comm = "other", threads = 1, samples = 4, weight = 8 * MS, seconds = 0.008 }, pr[2])
    assert.equal(2, #pr)
    -- a binary's samples: those whose leaf is in it (prog: S1, S4; libm: S2, S3)
    local d = collect(p:dsos())
    assert.equal(2, #d)
    assert.same({ path = "/bin/prog", status = "ok", is_kernel = false, samples = 5, weight = 9 * MS,
                  seconds = 0.009 }, d[1])
    assert.same({ path = "/lib/libm.so", status = "ok", is_kernel = false, samples = 3, weight = 6 * MS,
                  seconds = 0.006 }, d[2])
  end)

  it("names the recorded program as its image, for the exports", function()
    local p = threads()
    -- processes 7 (S1 1 + S2 2 + S3 1) and 9 (S4 4) tie: the lower pid,
    -- whose main thread is "prog", runs /bin/prog
    assert.equal("/bin/prog", p.image)
    assert.equal("prog", p.command)
    for _, format in ipairs({ "json", "csv", "callgrind", "folded" }) do
      local fh = io.tmpfile()
      assert.is_true(lgprof.report[format](p, fh), format)
      fh:close()
    end
  end)

  it("goes through every writer and analysis that takes a Profile", function()
    -- (a function without samples too: idle; none has calls)
    local t = threads()
    local p = build {
      funcs = { { name = "main" }, { name = "work", start = 16 }, { name = "idle", start = 32 } },
      stacks = { { frames = { 2, 1 }, samples = 2, weight = 2 * MS } },
    }
    for _, format in ipairs(lgprof.report.formats) do
      local fh = io.tmpfile()
      assert.is_true(lgprof.report[format](p, fh), format)
      fh:close()
    end
    assert.is_table(lgprof.diff(t, p))
    assert.is_table(lgprof.doctor(p))
    assert.is_table(lgprof.spread({ p, p }))
    -- no calls are counted: a limit on them holds
    assert.is_true((lgprof.check.max_calls(p, "^work$", 0)))
  end)

  it("diffs a name two binaries hold by binary, whatever order the recordings met them in", function()
    -- base: f of prog 10 ms, f of libm 20 ms; new: the binaries met the
    -- other way round, f of prog 10 ms, f of libm 40 ms: libm's f +20 ms,
    -- prog's unchanged; main (one binary) stays "main"
    local function two(dsos, prog_f, libm_f)
      local ip, il = dsos[1].path == "/bin/prog" and 1 or 2, dsos[1].path == "/bin/prog" and 2 or 1
      return build {
        dsos = dsos,
        funcs = { { name = "main", dso = ip, start = 0x100 }, { name = "f", dso = ip, start = 0x200 },
                  { name = "f", dso = il, start = 0x300 } },
        stacks = { { frames = { 2, 1 }, samples = prog_f, weight = prog_f * MS },
                   { frames = { 3, 1 }, samples = libm_f, weight = libm_f * MS } },
      }
    end
    local base = two({ { path = "/bin/prog" }, { path = "/lib/libm.so.6" } }, 10, 20)
    local new = two({ { path = "/lib/libm.so.6" }, { path = "/bin/prog" } }, 10, 40)
    local by = {}
    for _, r in ipairs(lgprof.diff(base, new)) do by[r.label] = r end
    near(20 * MS / 1e9, assert(by["f (libm.so.6)"], "f (libm.so.6)").total_delta, "libm f")
    near(0, assert(by["f (prog)"], "f (prog)").total_delta, "prog f")
    near(20 * MS / 1e9, assert(by["main"], "main").total_delta, "main")
  end)

  it("gives the real stacks, root first", function()
    local p = threads()
    local s = collect(p:stacks())
    assert.equal(4, #s)
    local f1, f2, main = fn(p, "f", "/bin/prog"), fn(p, "f", "/lib/libm.so"), fn(p, "main")
    assert.equal(3, #s[3].frames)
    assert.equal(main, s[3].frames[1])
    assert.equal(f1, s[3].frames[2])
    assert.equal(f2, s[3].frames[3])
    assert.equal(1, s[3].samples)
    assert.equal(4 * MS, s[3].weight)
    assert.equal(4000, s[3].value) -- microseconds, as lgprof.stacks
    assert.equal(8, s[3].tid)
    assert.equal(7, s[3].pid)
    assert.equal("worker", s[3].comm)
    assert.equal("cpu-clock", s[3].event)
    assert.is_false(s[3].truncated)
    assert.same({ main }, s[4].frames)
  end)

  it("filters by thread, process, command and binary into exact new profiles", function()
    local p = threads()
    -- tid 8: S2, S3. f of libm: leaf in both (2 + 4); f of prog on S3 only
    local v = assert(p:filter { tid = 8 })
    near(6 * MS / 1e9, fn(v, "f", "/lib/libm.so").self, "tid8 f2.self")
    near(0, fn(v, "f", "/bin/prog").self, "tid8 f1.self")
    near(4 * MS / 1e9, fn(v, "f", "/bin/prog").total, "tid8 f1.total")
    near(6 * MS / 1e9, fn(v, "main").total, "tid8 main.total")
    assert.equal(1, #collect(v:processes()))
    -- the same by command name
    local c = assert(p:filter { comm = "worker" })
    near(6 * MS / 1e9, fn(c, "main").total, "worker main.total")
    -- leaf in prog: S1, S4. main: leaf in S4 (8), on both (9)
    local d = assert(p:filter { dso = "/bin/prog" })
    near(8 * MS / 1e9, fn(d, "main").self, "prog main.self")
    near(9 * MS / 1e9, fn(d, "main").total, "prog main.total")
    near(0, fn(d, "f", "/lib/libm.so").total, "prog f2.total")
    -- pid 9: S4 only; a list of values keeps either
    near(8 * MS / 1e9, fn(assert(p:filter { pid = 9 }), "main").total, "pid9 main.total")
    near(15 * MS / 1e9, fn(assert(p:filter { pid = { 7, 9 } }), "main").total, "both main.total")
    -- keys combine: pid 7 and binary prog: S1
    near(1 * MS / 1e9, fn(assert(p:filter { pid = 7, dso = "/bin/prog" }), "main").total, "pid7 prog")
    assert.has_error(function() p:filter { tid = "x" } end)
  end)

  it("a selection keeps the profile's symspecs (-P work stays -P work under --tid)", function()
    -- thread 7: main>work 3 samples; thread 8: main>work 1, main alone 2
    local t = {
      funcs = { { name = "main", start = 0x100 }, { name = "work", start = 0x200 } },
      threads = { { pid = 7, tid = 7, comm = "prog" }, { pid = 7, tid = 8, comm = "prog" } },
      stacks = {
        { thread = 1, frames = { 2, 1 }, samples = 3, weight = 30 * MS },
        { thread = 2, frames = { 2, 1 }, samples = 1, weight = 10 * MS },
        { thread = 2, frames = { 1 }, samples = 2, weight = 20 * MS },
      },
    }
    local function flat(p)
      local fh = io.tmpfile()
      p:gprof_report(fh, { brief = true, graph = false })
      fh:seek("set")
      local text = fh:read("a")
      fh:close()
      return text
    end
    local p = build(t, { excl_flat = { "work" } })
    local v = assert(p:filter { tid = 8 })
    local text = flat(v)
    -- thread 8 alone: main's self is 20 ms; work, not listed, is not in
    -- the total either (as gprof's -P does): 100%
    assert.truthy(text:find("\n100.00      0.02     0.02                             main\n", 1, true), text)
    assert.is_nil(text:find("work", 1, true), text)
    assert.is_nil(flat(p):find("work", 1, true))
  end)

  it("prints gprof's report with the calls columns blank", function()
    -- main>work 3 samples (30 ms), main alone 1 sample (10 ms)
    local p = build {
      funcs = { { name = "main", start = 0x100 }, { name = "work", start = 0x200 } },
      stacks = {
        { frames = { 2, 1 }, samples = 3, weight = 30 * MS },
        { frames = { 1 }, samples = 1, weight = 10 * MS },
      },
    }
    local fh = io.tmpfile()
    p:gprof_report(fh, { brief = true })
    fh:seek("set")
    local text = fh:read("a")
    fh:close()
    -- work: 30 of 40 ms is 75%; main 10 ms, 25%, cumulative 0.04. Call
    -- graph: main's total is everything (100%), self 0.01, children
    -- 0.03; its child line work 0.03 self. No calls anywhere.
    local want = table.concat({
      "Flat profile:",
      "",
      "Each sample is a stack of prog from perf.data (cpu-clock): times are measured; a sampler counts no call, so gprof's call columns are blank.",
      "  %   cumulative   self              self     total           ",
      " time   seconds   seconds    calls  Ts/call  Ts/call  name    ",
      " 75.00      0.03     0.03                             work",
      " 25.00      0.04     0.01                             main",
      "\f",
      "\t\t\tCall graph",
      "",
      "",
      "granularity: each sample is one stack from perf.data (cpu-clock) for 25.00% of 0.04 seconds",
      "",
      "index % time    self  children    called     name",
      "                                                 <spontaneous>",
      "[1]    100.0    0.01    0.03                 main [1]",
      "                0.03    0.00                     work [2]",
      "-----------------------------------------------",
      "                0.03    0.00                     main [1]",
      "[2]     75.0    0.03    0.00                 work [2]",
      "-----------------------------------------------",
      "\f",
      "Index by function name",
      "",
      "   [1] main                    [2] work",
      "",
    }, "\n")
    assert.equal(want, text)
  end)

  it("applies the flat profile's symspecs and -z", function()
    local t = {
      funcs = { { name = "main", start = 0x100 }, { name = "work", start = 0x200 },
                { name = "idle", start = 0x300 } },
      stacks = {
        { frames = { 2, 1 }, samples = 3, weight = 30 * MS },
        { frames = { 1 }, samples = 1, weight = 10 * MS },
      },
    }
    local function flat(p, opts)
      local fh = io.tmpfile()
      opts.brief, opts.graph = true, false
      p:gprof_report(fh, opts)
      fh:seek("set")
      local lines = {}
      for line in fh:lines() do
        if line:match("^ *%d") then lines[#lines + 1] = line end
      end
      fh:close()
      return lines
    end
    -- -P work: the flat profile's total is main's 10 ms alone
    assert.same({ "100.00      0.01     0.01                             main" },
      flat(build(t, { excl_flat = { "work" } }), {}))
    -- -z: idle (no sample) too, after the others
    assert.same({ " 75.00      0.03     0.03                             work",
                  " 25.00      0.04     0.01                             main",
                  "  0.00      0.04     0.00                             idle" },
      flat(build(t), { zeros = true }))
  end)

  it("rejects a malformed table with a clear error", function()
    -- a function in no binary: the core's check
    local p, err = core._profile_from_stacks { funcs = { { name = "x" } } }
    assert.is_nil(p)
    assert.matches("bad binary", err)
    assert.has_error(function()
      build { funcs = { { name = "x" } }, stacks = { { frames = { 2 } } } }
    end)
    assert.has_error(function()
      build { funcs = { { name = "x" } }, stacks = { { frames = {} } } }
    end)
  end)

  it("says where its times come from", function()
    local p = recursion()
    assert.equal("profile", lgprof.type(p))
    assert.equal("stacks", p.source)
    assert.equal(5, p.samples) -- 2 + 1 + 1 + 1
    near(8 * MS / 1e9, p.total_time, "total_time")
    -- a gmon profile's views are not done on stacks: nil and why
    local v, err = p:filter { pid = 1, focus = "a" }
    assert.is_nil(v)
    assert.matches("'focus' is not available for sampled stacks", err)
    assert.has_error(function() p:filter { pids = 1 } end)
  end)
end)

describe("lgprof.open of a perf.data file", function()
  local H = require "helpers"
  local pw = require "helpers.perfwriter"
  local TMP = H.util.mktempdir("lgprof-stackprofile")
  local perf = TMP .. "/perf.data"
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.PERIOD, period = 1000000,
                                 ids = { 1 } } } })
  f:comm(42, 42, "prog", 0, true)
  f:sample({ ip = 0x1000, pid = 42, tid = 42, period = 1000000 })
  pw.write(perf, f:bytes())

  it("knows the file by its magic, with or without an executable", function()
    assert.is_true(lgprof._core.is_perfdata(perf))
    assert.is_false(lgprof._core.is_perfdata(H.fixtures.root .. "/README.md"))
    -- whatever the reader says of this file, it is the reader's one line
    -- about it, not the gmon reader's
    for _, exe in ipairs({ false, "a.out" }) do
      local p, err = lgprof.open(exe or nil, perf)
      if p == nil then
        assert.matches("^" .. perf:gsub("%p", "%%%0") .. ": ", err)
        assert.is_nil(err:find("gmon", 1, true))
      else
        assert.equal("stacks", p.source)
      end
    end
  end)

  it("answers at once for a FIFO without a writer (read as empty), a missing file, a directory", function()
    local fifo = TMP .. "/fifo"
    os.remove(fifo)
    assert(os.execute("mkfifo " .. H.util.q(fifo)))
    -- no writer: answered at once (a blocking open would hang here)
    assert.is_false(lgprof._core.is_perfdata(fifo))
    assert.is_false(lgprof._core.is_perfdata(TMP .. "/none"))
    assert.is_false(lgprof._core.is_perfdata(TMP))
    os.remove(fifo)
  end)

  it("refuses what sampled stacks cannot do", function()
    local p, err = lgprof.open(nil, perf, { static_call_graph = true })
    assert.is_nil(p)
    assert.matches("a static call graph is not available", err)
    p, err = lgprof.open(nil, { perf, perf })
    assert.is_nil(p)
    assert.matches("read alone", err)
    p, err = lgprof.open(nil, perf, { exclude_arcs = "a/b" })
    assert.is_nil(p)
    assert.matches("arc specs", err)
  end)

  it("makes -s, -c, -r and -R a usage error of the command", function()
    for _, args in ipairs({ { "-s" }, { "-c" }, { "-r" }, { "-R", "map" } }) do
      local argv = table.move(args, 1, #args, 1, {})
      argv[#argv + 1] = "a.out"
      argv[#argv + 1] = perf
      local status, out, err = H.cmd.lgprof(argv)
      assert.equal(2, status, H.cmd.show(status, out, err))
      assert.equal("", out)
      assert.matches("^lgprof: " .. perf:gsub("%p", "%%%0") .. " records sampled stacks, no calls: "
        .. args[1]:gsub("%p", "%%%0") .. " ", err)
    end
  end)
end)
