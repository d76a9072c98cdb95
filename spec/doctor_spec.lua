-- lgprof doctor and lgprof.doctor: every finding provoked by a real -pg
-- program (spec/fixtures/doctor/, compiled and run here, in a temporary
-- folder whose name has a space and a dash) and absent from a healthy one;
-- the two that no program of this toolchain produces (arcs outside the
-- text, a PIE's run-time addresses) by synthesized profiles against a real
-- executable. Real programs whose profiles are fine must have no finding:
-- summed runs (lgprof merge, lgprof -s, gprof -s), a -pg shared library of
-- the program's own (a note), -g builds. Runs sample differently each time: the assertions are on
-- which findings are present, with the programs' CPU time chosen far from
-- each threshold; exact numbers only where a profile is synthesized.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, gw = H.fixtures, H.util, H.cmd, H.gmonwriter
local q = util.q

local SRC = fx.root .. "/spec/fixtures/doctor"
local HAVE_CC = util.have("gcc")
local PG = "-O0 -g -pg -fno-pie -no-pie"

local dir -- the temporary folder: one subfolder per program

-- Runs a shell line in folder at, failing the test with its output.
local function sh(line, at)
  local status, out, err = cmd.shell(line, { cwd = at or dir })
  assert(status == 0, ("`%s` failed (%d):\n%s%s"):format(line, status, out, err))
  return out
end

-- Compiles sources (names in spec/fixtures/doctor) into dir/NAME/NAME with
-- flags; each source may be { file, flags } to give it flags of its own
-- (compiled to an object first); link: flags of the link. Returns the
-- executable's path.
local function build(name, sources, flags, link)
  local at = util.mkdir(dir .. "/" .. name)
  local objs = {}
  for i, s in ipairs(sources) do
    local file, own = s, flags
    if type(s) == "table" then file, own = s[1], s[2] end
    local obj = ("%s/%d.o"):format(at, i)
    sh(("gcc -c %s -I %s -o %s %s"):format(own, q(SRC), q(obj), q(SRC .. "/" .. file)))
    objs[#objs + 1] = q(obj)
  end
  local exe = at .. "/" .. name
  sh(("gcc %s -o %s %s"):format(link or flags, q(exe), table.concat(objs, " ")))
  return exe
end

local function samples_in(gmon)
  local n = 0
  for _, h in ipairs(gw.decode(gw.read(gmon)).hist or {}) do
    for _, c in pairs(h.bins or {}) do n = n + c end
  end
  return n
end

-- Runs the program built as name (in its folder) with a shell prefix (env)
-- and arguments; returns the path its gmon.out would have.
local function run(name, argstr, prefix)
  local at = dir .. "/" .. name
  os.remove(at .. "/gmon.out")
  sh(("%stimeout 120 ./%s %s >/dev/null"):format(prefix or "", q(name), argstr or ""), at)
  return at .. "/gmon.out"
end

-- run(name) for the healthy program's default 1.5 s of CPU time (about 150
-- samples, few-samples' threshold 100 far below), run again (3 tries) when
-- the histogram holds under 120 samples: the profiling timer lost ticks on
-- a loaded machine, and such a run is no test of the thresholds. Returns
-- the path, and why a test of thresholds must not judge it (nil if it may)
local function full_run(name, least)
  least = least or 120
  local gmon, n
  for _ = 1, 3 do
    gmon = run(name)
    n = samples_in(gmon)
    if n >= least then return gmon end
  end
  return gmon, ("%s: 3 runs lost timer ticks (the last had %d samples, under %d)"):format(name, n, least)
end

local function diagnose(exe, gmon)
  local p <close> = assert(lgprof.open(exe, gmon))
  return lgprof.doctor(p)
end

local function by_id(findings)
  local t = {}
  for _, f in ipairs(findings) do t[f.id] = f end
  return t
end

local function ids(findings)
  local t = {}
  for _, f in ipairs(findings) do t[#t + 1] = f.id end
  return table.concat(t, " ")
end

-- Every finding has the documented shape.
local function well_formed(findings)
  local sev = { error = true, warning = true, info = true }
  for _, f in ipairs(findings) do
    assert.is_true(type(f.id) == "string" and f.id:match("^[a-z][a-z-]+$") ~= nil, f.id)
    assert.is_true(sev[f.severity], f.severity)
    for _, k in ipairs({ "message", "advice" }) do
      assert.is_true(type(f[k]) == "string" and #f[k] > 0 and not f[k]:find("\n"), k)
    end
  end
end

local function doctor_cmd(args)
  return cmd.lgprof(table.move(args, 1, #args, 2, { "doctor" }))
end

-- A JSON document checked by Python's parser and jsonschema (the oracle).
local SCHEMA = [[{
  "type": "object",
  "required": ["format", "version", "image", "profiles", "status", "summary", "findings"],
  "properties": {
    "format": {"const": "lgprof-doctor"}, "version": {"const": 1},
    "image": {"type": "string"}, "profiles": {"type": "array", "items": {"type": "string"}},
    "status": {"enum": [0, 3]},
    "summary": {"type": "object", "required": ["error", "warning", "info"],
      "additionalProperties": {"type": "integer", "minimum": 0}},
    "findings": {"type": "array", "items": {"type": "object",
      "required": ["id", "severity", "message", "advice"],
      "properties": {"id": {"type": "string", "pattern": "^[a-z][a-z-]+$"},
        "severity": {"enum": ["error", "warning", "info"]},
        "message": {"type": "string"}, "advice": {"type": "string"}}}}
  }
}]]
local function validate_json(text)
  local doc = dir .. "/doc.json"
  util.spit(doc, text)
  util.spit(dir .. "/schema.json", SCHEMA)
  local script = "import json,sys,jsonschema\n"
    .. "d=json.load(open(sys.argv[1]))\n"
    .. "jsonschema.validate(d, json.load(open(sys.argv[2])))\n"
    .. "print(d['status'], ' '.join(f['id'] for f in d['findings']))\n"
  util.spit(dir .. "/check.py", script)
  return sh(("/usr/bin/python3 %s %s %s"):format(q(dir .. "/check.py"), q(doc),
    q(dir .. "/schema.json")))
end

describe("lgprof doctor #doctor", function()
  if not HAVE_CC then
    pending("gcc is needed to build the doctor's fixtures")
    return
  end

  local healthy, healthy_gmon, healthy_short, other_gmon
  setup(function()
    dir = util.mktempdir("lgprof doc-tor")
    healthy = build("healthy", { "healthy.c" }, PG)
    healthy_gmon, healthy_short = full_run("healthy")
    build("other", { "other.c" }, PG)
    other_gmon = run("other")
  end)
  teardown(function() util.rmtree(dir) end)

  describe("a healthy profile", function()
    it("has no finding (no-PIE and PIE), and the command says so with status 0", function()
      if healthy_short then return pending(healthy_short) end
      assert.same({}, diagnose(healthy, healthy_gmon))
      local pie = build("healthy-pie", { "healthy.c" }, "-O0 -g -pg -fPIE -pie")
      local gmon, short = full_run("healthy-pie")
      if short then return pending(short) end
      assert.same({}, diagnose(pie, gmon))
      local status, out, err = doctor_cmd({ healthy, healthy_gmon })
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal("lgprof doctor: no problem found\n", out)
      status, out = doctor_cmd({ "--format=json", healthy, healthy_gmon })
      assert.equal(0, status)
      assert.equal("0 \n", validate_json(out))
    end)

    it("meets every threshold it is checked against (the numbers the findings use)", function()
      if healthy_short then return pending(healthy_short) end
      local p <close> = assert(lgprof.open(healthy, healthy_gmon))
      local step = assert(p:find("step"))
      assert.is_true(step.samples >= 100, "step has enough samples")
      local ev = p:_evidence()
      assert.is_true(ev.arcs_read and ev.code_known and ev.mcount_known)
      assert.equal(0, ev.callee_bad)
      assert.equal(0, ev.caller_bad)
      assert.equal(ev.arc_records, ev.callee_checked)
      assert.equal(0, ev.arcs_outside)
      assert.is_false(ev.uses_threads)
      -- every sampled function of the program's own object calls mcount; a
      -- tick of the C runtime's start-up code (_init, _start: no mcount) is
      -- bare, rightly, and whether a run has one is luck
      assert.truthy(tostring(step.file):find("healthy.c", 1, true))
      for _, fn in ipairs(ev.bare) do
        assert.is_falsy(fn.file and tostring(fn.file):find("healthy.c", 1, true), fn.name)
      end
    end)
  end)

  describe("wrong-image", function()
    it("another program's profile read with this executable", function()
      local f = by_id(diagnose(healthy, other_gmon))
      assert.is_truthy(f["wrong-image"])
      assert.equal("error", f["wrong-image"].severity)
      assert.is_true(f["wrong-image"].callee_bad >= 2)
      -- its samples and arcs describe another program: no claim about them
      assert.is_nil(f["few-samples"])
      assert.is_nil(f["spontaneous-time"])
      local status, out = doctor_cmd({ healthy, other_gmon })
      assert.equal(3, status)
      assert.truthy(out:find("wrong-image (error): ", 1, true))
      -- the report itself is gprof's, meaningless and accepted (status 0)
      assert.equal(0, (cmd.lgprof({ "-b", "-p", healthy, other_gmon })))
    end)

    it("an executable rebuilt after the run, its functions moved: wrong-image and stale-profile", function()
      local exe = build("rebuilt", { "rebuilt.c" }, PG)
      local gmon = run("rebuilt")
      assert.same({}, (function()
        local list = {}
        for _, f in ipairs(diagnose(exe, gmon)) do
          if f.id == "wrong-image" or f.id == "stale-profile" then list[#list + 1] = f.id end
        end
        return list
      end)())
      build("rebuilt", { "rebuilt.c" }, PG .. " -DBIGGER")
      sh(("touch -m -d '10 seconds ago' %s"):format(q(gmon)))
      local f = by_id(diagnose(exe, gmon))
      assert.is_truthy(f["wrong-image"], ids(diagnose(exe, gmon)))
      assert.is_truthy(f["stale-profile"])
      assert.equal("warning", f["stale-profile"].severity)
    end)

    it("an executable rebuilt identically: stale-profile alone", function()
      local exe = build("same", { "rebuilt.c" }, PG)
      local gmon = run("same")
      build("same", { "rebuilt.c" }, PG)
      sh(("touch -m -d '10 seconds ago' %s"):format(q(gmon)))
      local f = by_id(diagnose(exe, gmon))
      assert.is_truthy(f["stale-profile"])
      assert.is_nil(f["wrong-image"])
    end)

    it("a histogram far outside the text: pie-mismatch (a PIE's run-time addresses) or wrong-image", function()
      local pie = dir .. "/healthy-pie/healthy-pie"
      if not io.open(pie) then pie = build("healthy-pie", { "healthy.c" }, "-O0 -g -pg -fPIE -pie") end
      local p <close> = assert(lgprof.open(pie, run("healthy-pie", "0.01")))
      local lo, hi = p.text_start, p.text_end
      local function gmon_at(base, name)
        local path = dir .. "/" .. name
        gw.write(path, { hist = { { low = base + lo, high = base + hi, rate = 100,
          n_bins = (hi - lo) // 4, bins = { [3] = 5 } } } })
        return path
      end
      local status, out = doctor_cmd({ pie, gmon_at(0x555555554000, "runtime.gmon") })
      assert.equal(3, status)
      assert.truthy(out:find("pie-mismatch (error): ", 1, true), out)
      status, out = doctor_cmd({ pie, gmon_at(0x10000000, "far.gmon") })
      assert.equal(3, status)
      assert.truthy(out:find("wrong-image (error): ", 1, true), out)
    end)
  end)

  -- Profiles with nothing wrong that the doctor once called wrong: summed
  -- runs (its own advice), calls into a -pg shared library of the program's
  -- own, the C run-time's start-up code in -g builds. Each is a real program
  -- that must have no finding (or only the note it deserves), beside the
  -- other programs' profiles that must still be called wrong.
  describe("no false alarm", function()
    -- Runs the program built as name n times for seconds each, keeping the
    -- profiles as NAME/run.1 ...; returns their paths.
    -- n runs of name, each of the given seconds of CPU time; with least,
    -- each run again (3 tries) while its histogram holds fewer samples (the
    -- timer lost ticks): returns the paths, and why a test of thresholds
    -- must not judge them (nil if it may)
    local function runs(name, n, seconds, least)
      local list, why = {}, nil
      for i = 1, n do
        local path = ("%s/%s/run.%d"):format(dir, name, i)
        local gmon, got
        for _ = 1, least and 3 or 1 do
          gmon = run(name, seconds)
          got = samples_in(gmon)
          if not least or got >= least then break end
        end
        if least and got < least then
          why = ("%s: 3 runs lost timer ticks (the last had %d samples, under %d)"):format(name, got, least)
        end
        assert(os.rename(gmon, path))
        list[i] = path
      end
      return list, why
    end

    -- The files summing runs of exe makes, in exe's folder: lgprof merge's,
    -- lgprof -s's and gprof -s's (the oracle's bytes, which lgprof cannot
    -- shape).
    local function sums(exe, list)
      local at = exe:match("^(.*)/[^/]*$")
      local merged = at .. "/all.gmon"
      local status, out, err = cmd.lgprof({ "merge", "-o", merged, exe, table.unpack(list) })
      assert.equal(0, status, cmd.show(status, out, err))
      local found = { ["lgprof merge"] = merged }
      for _, tool in ipairs({ "gprof", "lgprof" }) do
        if tool == "lgprof" or cmd.HAVE_GPROF then
          status, out, err = cmd[tool]({ "-s", exe, table.unpack(list) }, { cwd = at })
          assert.equal(0, status, cmd.show(status, out, err))
          local path = ("%s/%s.sum"):format(at, tool)
          assert(os.rename(at .. "/gmon.sum", path))
          found[tool .. " -s"] = path
        end
      end
      return found
    end

    for _, variant in ipairs({
      { "sum-nopie", PG, "-g, no PIE" },
      { "sum-pie", "-O0 -g -pg -fPIE -pie", "-g, PIE" },
      { "sum-nog", "-O0 -pg -fno-pie -no-pie", "no -g: callers at their functions' start" },
    }) do
      local name, flags, what = variant[1], variant[2], variant[3]
      it(("summed runs (lgprof merge, lgprof -s, gprof -s) have no finding, nor the HTML page (%s)")
        :format(what), function()
        local exe = build(name, { "healthy.c" }, flags)
        -- two runs of about 100 samples each (at least 80: 160 summed, far
        -- above few-samples' 100)
        local list, short = runs(name, 2, "1.0", 80)
        if short then return pending(short) end
        assert.equal("", ids(diagnose(exe, list)))
        local summed = sums(exe, list)
        for tool, path in pairs(summed) do
          assert.equal("", ids(diagnose(exe, path)), tool)
          -- every record in the summed form, checked as such and found right
          local p <close> = assert(lgprof.open(exe, path))
          local ev = p:_evidence()
          assert.is_true(ev.arc_records >= 2, tool)
          assert.same({ ev.arc_records, ev.arc_records, 0, ev.arc_records, 0, 0 },
            { ev.arcs_summed, ev.callee_checked, ev.callee_bad, ev.caller_checked,
              ev.caller_bad, ev.arcs_outside }, tool)
          local status, out, err = doctor_cmd({ exe, path })
          assert.equal(0, status, cmd.show(status, out, err))
          assert.equal("lgprof doctor: no problem found\n", out)
        end
        -- a summed file and a run together; the HTML page's findings
        local all = summed["lgprof merge"]
        assert.equal("", ids(diagnose(exe, { all, list[1] })))
        local status, page, err = cmd.lgprof({ "--format=html", exe, all })
        assert.equal(0, status, cmd.show(status, page, err))
        local data = page:match('<script type="application/json" id="lgprof%-data">(.-)</script>')
        assert.is_truthy(data)
        assert.truthy(data:find('"findings":[]', 1, true), data:match('"findings":.-%]'))
      end)
    end

    it("another program's summed runs are still wrong-image", function()
      local exe = build("sum-other", { "other.c" }, PG)
      for tool, path in pairs(sums(exe, runs("sum-other", 1, "0.5"))) do
        local f = by_id(diagnose(healthy, path))
        assert.is_truthy(f["wrong-image"], tool)
        assert.is_true(f["wrong-image"].callee_bad >= 2, tool)
      end
    end)

    -- The library's own functions call mcount: glibc records the calls into
    -- them from the executable (two call sites in work), with the library's
    -- addresses, and drops the calls inside it (their callers lie outside
    -- the executable).
    for _, variant in ipairs({
      { "solib-nopie", "-fno-pie -no-pie" },
      { "solib-pie", "-fPIE -pie" },
    }) do
      local name, pie = variant[1], variant[2]
      it(("a program with a -pg shared library of its own: arcs-outside-text, a note (%s)"):format(pie), function()
        local at = util.mkdir(dir .. "/" .. name)
        sh(("gcc -O0 -g -pg -fPIC -shared -I %s -o %s %s"):format(q(SRC),
          q(at .. "/libdocsolib.so"), q(SRC .. "/solib.c")))
        local exe = at .. "/" .. name
        sh(("gcc -O0 -g -pg %s -I %s -o %s %s -L %s -ldocsolib -Wl,-rpath,%s"):format(pie, q(SRC),
          q(exe), q(SRC .. "/solibmain.c"), q(at), q(at)))
        -- (about 150 samples, few-samples' threshold 100 on step)
        local gmon, short = full_run(name)
        if short then return pending(short) end
        local list = diagnose(exe, gmon)
        well_formed(list)
        assert.equal("arcs-outside-text", ids(list))
        local f = list[1]
        assert.equal("info", f.severity)
        assert.same({ 2, 0 }, { f.arcs_shared, f.arcs_outside })
        assert.truthy(f.message:find("shared librar", 1, true), f.message)
        local status, out, err = doctor_cmd({ exe, gmon })
        assert.equal(0, status, cmd.show(status, out, err))
        assert.truthy(out:find("lgprof doctor: 0 errors, 0 warnings, 1 info", 1, true), out)
      end)
    end

    it("static-no-debug: not the C run-time's start-up code of a -g build, even with zeros", function()
      local exe = build("statics-g", { "staticsmain.c", "statics1.c", "statics2.c" }, PG)
      local gmon = run("statics-g")
      for _, zeros in ipairs({ false, true }) do
        local p <close> = assert(lgprof.open(exe, gmon, { zeros = zeros }))
        -- a short run: few-samples is its due
        assert.equal("", ids(lgprof.doctor(p, { few_samples = 0 })), tostring(zeros))
      end
    end)

    it("static-no-debug: not the start-up code when a sample lands in it (synthesized into a real run's profile)", function()
      -- a bin shared by frame_dummy and a sampled neighbour gives it part of
      -- a sample now and then: put one sample in a bin of its own
      local data = gw.decode(gw.read(healthy_gmon))
      local p0 <close> = assert(lgprof.open(healthy, healthy_gmon))
      local fd = assert(p0:find("frame_dummy"))
      assert.is_true(fd.is_static and fd.file == nil)
      local h = data.hist[1]
      -- bin i (from 0) starts at low + i * (high - low) / n_bins: the first
      -- that starts in frame_dummy (bins[] counts from 1)
      local i = math.ceil((fd.address - h.low) * h.n_bins / (h.high - h.low))
      h.bins[i + 1] = (h.bins[i + 1] or 0) + 1
      local path = dir .. "/frame-dummy.gmon"
      gw.write(path, data)
      local p <close> = assert(lgprof.open(healthy, path))
      assert.is_true(assert(p:find("frame_dummy")).samples > 0)
      assert.equal("", ids(lgprof.doctor(p)))
    end)

    it("static-no-debug in a -g build: only the object built without -g, and no advice to build with -g", function()
      local exe = build("statics-mixed", { "staticsmain.c", "statics1.c",
        { "statics2.c", "-O0 -pg -fno-pie" } }, PG)
      local gmon = run("statics-mixed")
      local p <close> = assert(lgprof.open(exe, gmon, { zeros = true }))
      local f = by_id(lgprof.doctor(p))["static-no-debug"]
      assert.is_truthy(f)
      assert.equal("info", f.severity)
      assert.same({ { name = "step" } }, f.functions)
      assert.is_true(f.debug_info)
      assert.is_nil(f.advice:find("build with -g", 1, true), f.advice)
    end)
  end)

  it("counts the evidence exactly on a synthesized x86-64 image (calls of every encoding)", function()
    -- .text at 0x401000: mcount (a ret), f and g whose prologues call it
    -- (E8 rel32), and in h call sites of every form, 32 bytes apart in NOPs
    -- (a caller address is checked over the 16 bytes from it), then three
    -- that are no call. The arcs pair them; the expected counts are read
    -- off this layout.
    local ew = require "helpers.elfwriter"
    local base, size = 0x401000, 0x300
    local code = {}
    for i = 0, size - 1 do code[i] = 0x90 end
    local function put(off, bytes) for i, b in ipairs(bytes) do code[off + i - 1] = b end end
    local function rel32(from_end, to)
      local v = (to - from_end) & 0xffffffff
      return v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff
    end
    put(0x000, { 0xc3 })                                              -- mcount: ret
    put(0x010, { 0x55, 0x48, 0x89, 0xe5, 0xe8, rel32(base + 0x019, base) }) -- f
    put(0x040, { 0x55, 0x48, 0x89, 0xe5, 0xe8, rel32(base + 0x049, base) }) -- g
    put(0x100, { 0xe8, 0, 0, 0, 0 })                   -- call rel32 (to the next byte)
    put(0x120, { 0xff, 0xd0 })                         -- call *%rax
    put(0x140, { 0x41, 0xff, 0xd3 })                   -- call *%r11
    put(0x160, { 0xff, 0x15, 0, 0, 0, 0 })             -- call *0(%rip)
    put(0x180, { 0xff, 0x54, 0x24, 0x08 })             -- call *8(%rsp)
    put(0x1a0, { 0xff, 0x94, 0x24, 0, 1, 0, 0 })       -- call *0x100(%rsp)
    put(0x1c0, { 0xff, 0x14, 0x25, 0, 0x10, 0x40, 0 }) -- call *0x401000
    put(0x200, { 0xff, 0xe0 })                         -- jmp *%rax: no call
    put(0x220, { 0x48, 0x89, 0xe5 })                   -- mov: no call
    local bytes = {}
    for i = 0, size - 1 do bytes[#bytes + 1] = string.char(code[i]) end
    local exe = dir .. "/synth-x86"
    ew.write(exe, { text_addr = base, text_data = table.concat(bytes), symbols = {
      { name = "mcount", addr = base }, { name = "f", addr = base + 0x10 },
      { name = "g", addr = base + 0x40 }, { name = "h", addr = base + 0x100 },
      { name = "pthread_create", addr = base + 0x2f0 },
    } })
    local F, G = base + 0x019, base + 0x049
    local arcs = {}
    for _, a in ipairs({
      { 0x105, F }, { 0x122, G }, { 0x143, F }, { 0x166, F }, { 0x184, F }, { 0x1a7, F },
      { 0x1c7, F },                          -- 7 callers after a call, callees after mcount's
      { 0x1e0, base + 0x105 },               -- caller in NOPs; callee after a call, not mcount's
      { 0x202, base + 0x122 },               -- caller after a jmp; callee after call *%rax
      { 0x223, F },                          -- caller after a mov
      { 0x400, F },                          -- caller past the text: outside, not checked
    }) do arcs[#arcs + 1] = { from = base + a[1], to = a[2], count = 1 } end
    local gmon = dir .. "/synth-x86.gmon"
    -- 4-byte bins over 0x401000-0x401400: 5 samples in g, 7 past the text
    gw.write(gmon, { hist = { { low = base, high = base + 0x400, rate = 100, n_bins = 0x100,
      bins = { [0x10 + 1] = 5, [0xf0 + 1] = 7 } } }, arcs = arcs })
    local p <close> = assert(lgprof.open(exe, gmon))
    local ev = p:_evidence()
    assert.same({ true, true, true, 11, 1, 11, 2, 10, 3, 12, 7, true },
      { ev.arcs_read, ev.code_known, ev.mcount_known, ev.arc_records, ev.arcs_outside,
        ev.callee_checked, ev.callee_bad, ev.caller_checked, ev.caller_bad, ev.samples,
        ev.samples_outside, ev.uses_threads })
    local f = by_id(lgprof.doctor(p))
    assert.is_truthy(f["wrong-image"]) -- 2 of 11 callees, 3 of 10 callers, 7 of 12 samples
    assert.equal(2, f["wrong-image"].callee_bad)
    assert.is_truthy(f.threads)
  end)

  it("counts a summed file's records exactly on a synthesized x86-64 image", function()
    -- gprof -s and lgprof merge write a callee's start and its caller's
    -- line (or function) start: the callee must call mcount in its
    -- prologue, and a call other than mcount's must end after the caller's
    -- address in its routine (give or take the 16-byte grain), looked for
    -- over 512 bytes. Filler int3 (CC), which no call's bytes end in.
    local ew = require "helpers.elfwriter"
    local base, size = 0x401000, 0x400
    local code = {}
    for i = 0, size - 1 do code[i] = 0xcc end
    local function put(off, bytes) for i, b in ipairs(bytes) do code[off + i - 1] = b end end
    local function rel32(from_end, to)
      local v = (to - from_end) & 0xffffffff
      return v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff
    end
    local function prologue(off) -- push %rbp; mov %rsp,%rbp; call mcount
      put(off, { 0x55, 0x48, 0x89, 0xe5, 0xe8, rel32(base + off + 9, base) })
    end
    put(0x000, { 0xc3 })                  -- mcount
    prologue(0x010)                       -- f: calls mcount,
    put(0x030, { 0xe8, 0, 0, 0, 0 })      --   and at 0x30 another function
    prologue(0x080)                       -- g: calls mcount alone
    put(0x0e0, { 0xff, 0xd0 })            -- h: no mcount; call *%rax at 0xe0
    prologue(0x100)                       -- k: calls mcount; its other call
    put(0x3f0, { 0xe8, 0, 0, 0, 0 })      --   is 0x2f0 bytes in
    local bytes = {}
    for i = 0, size - 1 do bytes[#bytes + 1] = string.char(code[i]) end
    local exe = dir .. "/synth-summed"
    ew.write(exe, { text_addr = base, text_data = table.concat(bytes), symbols = {
      { name = "mcount", addr = base }, { name = "f", addr = base + 0x10 },
      { name = "g", addr = base + 0x80 }, { name = "h", addr = base + 0xc0 },
      { name = "k", addr = base + 0x100 }, { name = "tail", addr = base + 0x3f8 },
    } })
    local arcs = {}
    for _, a in ipairs({
      { 0x010, 0x080 }, -- f's start -> g: the call at 0x30 follows; g calls mcount
      { 0x030, 0x080 }, -- a line of f holding the call
      { 0x050, 0x010 }, -- no call after 0x50 in f (nor g's mcount call past it): caller bad
      { 0x080, 0x0c0 }, -- g calls mcount alone: caller bad; h calls no mcount: callee bad
      { 0x0c0, 0x010 }, -- h's call *%rax
      { 0x100, 0x010 }, -- k's call lies beyond 512 bytes: caller unknown
      { 0x035, 0x019 }, -- as a run records it: after f's call, after f's call to mcount
    }) do arcs[#arcs + 1] = { from = base + a[1], to = base + a[2], count = 1 } end
    local gmon = dir .. "/synth-summed.gmon"
    gw.write(gmon, { hist = { { low = base, high = base + size, rate = 100, n_bins = size // 4,
      bins = { [0x10 // 4 + 1] = 3 } } }, arcs = arcs })
    local p <close> = assert(lgprof.open(exe, gmon))
    local ev = p:_evidence()
    assert.same({ 7, 6, 0, 0, 7, 1, 6, 2 },
      { ev.arc_records, ev.arcs_summed, ev.arcs_outside, ev.arcs_shared, ev.callee_checked,
        ev.callee_bad, ev.caller_checked, ev.caller_bad })
  end)

  it("arcs-outside-text: one arc beyond the text, synthesized into a real run's profile", function()
    local data = gw.decode(gw.read(healthy_gmon))
    local p <close> = assert(lgprof.open(healthy, healthy_gmon))
    local n = #data.arcs
    -- past the code sections (gprof's last symbols, etext and so on, run on)
    data.arcs[n + 1] = { from = p.text_end + 0x100, to = p.text_end + 0x200, count = 1 }
    data.records = nil -- the records in their usual order, the new arc too
    local path = dir .. "/outside.gmon"
    gw.write(path, data)
    local f = by_id(diagnose(healthy, path))
    assert.is_truthy(f["arcs-outside-text"])
    assert.equal("warning", f["arcs-outside-text"].severity) -- no call into a library
    assert.equal(0, f["arcs-outside-text"].arcs_shared)
    assert.equal(1, f["arcs-outside-text"].arcs_outside)
    assert.equal(n + 1, f["arcs-outside-text"].arc_records)
    assert.is_nil(f["wrong-image"]) -- one arc is no proof of another program
  end)

  describe("samples", function()
    it("no-samples: a run too short to be sampled", function()
      build("short", { "healthy.c" }, PG)
      local gmon
      for _ = 1, 8 do -- a millisecond's run is sampled now and then: run it again
        gmon = run("short", "0")
        if samples_in(gmon) == 0 then break end
      end
      assert.equal(0, samples_in(gmon))
      local f = by_id(diagnose(dir .. "/short/short", gmon))
      assert.is_truthy(f["no-samples"])
      assert.equal("error", f["no-samples"].severity)
      assert.is_nil(f["few-samples"])
    end)

    it("few-samples: a run of about 30 samples", function()
      local gmon = run("healthy", "0.3")
      local f = by_id(diagnose(healthy, gmon))
      assert.is_truthy(f["few-samples"])
      assert.equal("step", f["few-samples"]["function"])
      assert.is_true(f["few-samples"].samples < 100)
      assert.is_nil(f["no-samples"])
    end)

    it("thresholds can be changed per call", function()
      local p <close> = assert(lgprof.open(healthy, healthy_gmon))
      assert.is_truthy(by_id(lgprof.doctor(p, { few_samples = 1e9 }))["few-samples"])
      assert.has_error(function() lgprof.doctor(p, { bogus = 1 }) end)
      assert.has_error(function() lgprof.doctor("gmon.out") end)
    end)
  end)

  describe("the call graph", function()
    it("no-call-graph: compiled without -pg, linked with it", function()
      local exe = build("nocg", { { "healthy.c", "-O0 -g -fno-pie" } }, PG, PG)
      local f = by_id(diagnose(exe, run("nocg", "0.3")))
      assert.is_truthy(f["no-call-graph"])
    end)

    it("spontaneous-time and uninstrumented-time: a library built without -pg", function()
      local exe = build("lib", { "libmain.c", { "lib.c", "-O0 -g -fno-pie" } }, PG)
      local gmon = run("lib")
      local list = diagnose(exe, gmon)
      well_formed(list)
      local f = by_id(list)
      assert.is_truthy(f["spontaneous-time"], ids(list))
      assert.equal("lib_apply", f["spontaneous-time"].roots[1].name)
      assert.is_truthy(f["uninstrumented-time"], ids(list))
      assert.equal("lib_spin", f["uninstrumented-time"].functions[1].name)
      -- found in the code: the library's two functions, and no function of
      -- the program's -pg object (work, main); a tick of start-up code
      -- (_init, _start: no mcount) may be listed too, by luck
      local listed = {}
      for _, fn in ipairs(f["uninstrumented-time"].functions) do listed[fn.name] = true end
      assert.is_true(listed.lib_spin)
      assert.is_nil(listed.work); assert.is_nil(listed.main)
      local p <close> = assert(lgprof.open(exe, gmon))
      for name in pairs(listed) do
        if name ~= "lib_spin" and name ~= "lib_apply" then
          local fn = assert(p:find(name), name)
          assert.is_nil(fn.file, name) -- compiled without -g: the C runtime's
        end
      end
    end)

    it("big-cycle: a -> b -> c -> a holding the time", function()
      local exe = build("cycle", { "cycle.c" }, PG)
      local f = by_id(diagnose(exe, run("cycle")))
      assert.is_truthy(f["big-cycle"])
      assert.equal(3, f["big-cycle"].members)
      assert.is_true(f["big-cycle"].share > 0.25)
    end)
  end)

  it("threads: a program that starts a thread", function()
    local exe = build("threads", { "threads.c" }, PG .. " -pthread")
    local f = by_id(diagnose(exe, run("threads")))
    assert.is_truthy(f.threads)
    assert.equal("warning", f.threads.severity)
  end)

  it("static-no-debug: two static functions named step, no -g", function()
    local flags = "-O0 -pg -fno-pie -no-pie"
    local exe = build("statics", { "staticsmain.c", "statics1.c", "statics2.c" }, flags)
    local f = by_id(diagnose(exe, run("statics")))
    assert.is_truthy(f["static-no-debug"])
    assert.equal("warning", f["static-no-debug"].severity)
    assert.equal("step", f["static-no-debug"].ambiguous)
  end)

  describe("missing-profile", function()
    it("a program that leaves through _exit", function()
      local exe = build("exit", { "exit.c" }, PG)
      local gmon = run("exit")
      assert.is_nil(io.open(gmon))
      local status, out, err = doctor_cmd({ exe, gmon })
      assert.equal(3, status, cmd.show(status, out, err))
      assert.truthy(out:find("missing-profile (error): " .. gmon .. " does not exist", 1, true), out)
      assert.truthy(out:find("_exit", 1, true))
      assert.truthy(out:find("glibc.gmon.maxarcs", 1, true))
      status, out = doctor_cmd({ "--format=json", exe, gmon })
      assert.equal(3, status)
      assert.equal("3 missing-profile\n", validate_json(out))
    end)

    it("GMON_OUT_PREFIX: the PREFIX.PID file it wrote is named", function()
      local gmon = run("healthy", "0.01", "GMON_OUT_PREFIX=myrun ")
      assert.is_nil(io.open(gmon))
      local written = util.ls(dir .. "/healthy")
      local pidfile
      for _, name in ipairs(written) do pidfile = pidfile or name:match("^myrun%.%d+$") end
      assert.is_truthy(pidfile, table.concat(written, " "))
      local f = require("lgprof.analysis.doctor").missing(gmon)
      assert.same({ dir .. "/healthy/" .. pidfile }, f.found)
      local status, out = doctor_cmd({ healthy, gmon })
      assert.equal(3, status)
      assert.truthy(out:find(dir .. "/healthy/" .. pidfile .. " exists beside it", 1, true), out)
      os.remove(dir .. "/healthy/" .. pidfile)
    end)
  end)

  describe("the command's input", function()
    it("usage errors exit 2, bad input 1", function()
      local status, _, err = doctor_cmd({ "--format=xml", healthy, healthy_gmon })
      assert.equal(2, status)
      assert.truthy(err:find("--format: expected text or json", 1, true))
      status, _, err = doctor_cmd({ dir .. "/nonexistent", healthy_gmon })
      assert.equal(1, status)
      assert.truthy(err:match("^lgprof: [^\n]*nonexistent"))
      local junk = dir .. "/junk.out"
      util.spit(junk, "not a profile")
      status, _, err = doctor_cmd({ healthy, junk })
      assert.equal(1, status)
      assert.truthy(err:find("not a gmon.out file", 1, true))
      status = doctor_cmd({ "--help" })
      assert.equal(0, status)
    end)
  end)
end)
