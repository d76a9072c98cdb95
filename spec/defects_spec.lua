-- Regression specs for the defects of a code review, one describe per
-- defect. Inputs are synthesized (helpers.elfwriter, helpers.gmonwriter), so
-- every number is known by construction; report text is compared with GNU
-- gprof's on the same files. C-level checks that Lua cannot reach (an
-- unknown export format inside the core, the arc limit) are in
-- spec/unit/export.c and spec/unit/arcs.c (run by spec/unit_spec.lua).
local lgprof = require "lgprof"
local ew = require "helpers.elfwriter"
local gw = require "helpers.gmonwriter"
local fx = require "helpers.fixtures"
local cmd = require "helpers.cmd"
local util = require "helpers.util"

local q = fx.shquote

-- The synthesized program: routines of 0x100 bytes from 0x401000; helper
-- is static. Its histogram (glibc's geometry, 100 Hz) gives each routine
-- the ticks below; cb has time but no arc (a callback called from an
-- unprofiled library). gprof's credit to the last routine is undefined (it
-- reads past its table), so the last one, fini, has no samples.
local SYMBOLS = {
  { name = "main", addr = 0x401000, size = 0x100 },
  { name = "a", addr = 0x401100, size = 0x100 },
  { name = "b", addr = 0x401200, size = 0x100 },
  { name = "helper", addr = 0x401300, size = 0x100, bind = "local" },
  { name = "cb", addr = 0x401400, size = 0x100 },
  { name = "fini", addr = 0x401500, size = 0x100 },
}
local TICKS = { main = 2, a = 10, b = 20, helper = 4, cb = 5, fini = 0 }
local ARCS = {
  { from = 0x401010, to = 0x401100, count = 3 },   -- main -> a
  { from = 0x401110, to = 0x401200, count = 5 },   -- a -> b
  { from = 0x401020, to = 0x401300, count = 2 },   -- main -> helper
}

local function histogram()
  local h = gw.glibc_hist(0x401000, 0x402000)
  for _, s in ipairs(SYMBOLS) do h.bins[gw.bin_for(h, s.addr + 0x10)] = TICKS[s.name] end
  return h
end

-- Writes prog, full.out (histogram and arcs), arcs.out and hist.out into a
-- new folder; returns its path.
local function program()
  local dir = util.mktempdir("lgprof-defects")
  ew.write(dir .. "/prog", { symbols = SYMBOLS })
  gw.write(dir .. "/full.out", { hist = { histogram() }, arcs = ARCS })
  gw.write(dir .. "/arcs.out", { arcs = ARCS })
  gw.write(dir .. "/hist.out", { hist = { histogram() } })
  return dir
end

local function names(iter)
  local t = {}
  for fn in iter do t[#t + 1] = fn.name end
  table.sort(t)
  return t
end

--- What gprof_report writes with these options, as a string.
local function report_text(p, opts)
  local f = io.tmpfile()
  local a, b = p:gprof_report(f, opts)
  f:seek("set")
  local s = f:read("a")
  f:close()
  return s, a, b
end

--- GNU gprof's standard output for these arguments, run in dir.
-- gprof's stdout and stderr with args (words) in dir; its status must be
-- want_status (default 0)
local function gprof(dir, args, want_status)
  local status, out, err = cmd.gprof(util.fields(args), { cwd = dir })
  assert.equal(want_status or 0, status, cmd.show(status, out, err))
  return out, err
end

describe("defect 1: an error state passed uninitialised to lgp_profile_srcinfo", function()
  -- Each of the four profiles meets the failure once (it is remembered):
  -- fn.file (lobjects.c), an export (export.c), find with a file (lview.c),
  -- the report's index of statics (report.c).
  local SCRIPT = [[
local lgprof = require "lgprof"
local exe, gmon = arg[1], arg[2]
local p = {}
for i = 1, 4 do p[i] = assert(lgprof.open(exe, gmon)) end
assert(os.execute("touch -d 2001-01-01 '" .. exe:gsub("'", "'\\''") .. "'"))
local fn = assert(p[1]:find("main"))
print("file", fn.file, fn.line)
assert(p[2]:export("json", io.tmpfile()))
print("find", p[3]:find("main", "prog.c"))
assert(p[4]:gprof_report(io.tmpfile(), { brief = true }) ~= nil)
for i = 1, 4 do p[i]:close() end
]]

  it("valgrind finds no uninitialised read when the executable changed since it was opened", function()
    if os.getenv("LGPROF_SANITIZER") then
      pending("valgrind cannot run an ASan-built core (make test-asan)")
      return
    end
    if not util.have("valgrind") then return pending("valgrind not installed") end
    local dir = program()
    finally(function() util.rmtree(dir) end)
    local script = cmd.write(dir .. "/srcinfo.lua", SCRIPT)
    local log = dir .. "/valgrind.log"
    local c = ("cd %s && %svalgrind -q --error-exitcode=99"
      .. " --log-file=%s lua5.4 %s %s %s > %s 2>&1"):format(q(dir), cmd.lua_env(), q(log),
      q(script), q(dir .. "/prog"), q(dir .. "/full.out"), q(dir .. "/out"))
    local ok = util.exec_ok(c)
    local out, vlog = util.slurp(dir .. "/out") or "", util.slurp(log) or ""
    assert.is_true(ok, "valgrind:\n" .. vlog .. "\noutput:\n" .. out)
    assert.equal("", vlog)
    assert.matches("file\tnil\tnil\n", out, 1, true)
  end)

  it("find(name, file) says why when the source information cannot be read", function()
    local dir = program()
    finally(function() util.rmtree(dir) end)
    local exe = dir .. "/prog"
    local p <close> = assert(lgprof.open(exe, dir .. "/full.out"))
    assert(os.execute("touch -d 2001-01-01 " .. q(exe)))
    local fn, err = p:find("main", "prog.c")
    assert.is_nil(fn)
    assert.equal(exe .. ": changed since it was opened: no source information", err)
    assert.is_nil(p:find("main").file) -- README: nil if unknown
  end)
end)

describe("defect 2: options are checked before any file is touched", function()
  local SENTINEL = "sentinel: must survive\n"
  -- bad options per format: each must raise
  local BAD = {
    callgrind = { { bogus = 1 }, { zeros = "yes" } },
    json = { { bogus = 1 }, { zeros = 1 } },
    csv = { { bogus = 1 }, { table = "rows" }, { table = 1 } },
    folded = { { bogus = 1 }, { max_depth = 0 }, { max_depth = 1000001 }, { max_depth = 1.5 },
               { min_weight = 2 }, { zeros = true } },
    dot = { { bogus = 1 }, { node_threshold = 2 }, { max_nodes = -1 }, { skew = 0 } },
    pprof = { { bogus = 1 }, { max_depth = 0 }, { min_weight = 2 }, { zeros = true } },
    speedscope = { { bogus = 1 }, { max_depth = 1.5 }, { min_weight = "x" }, { type = "sampled" } },
    svg = { { bogus = 1 }, { width = 10 }, { colors = "cold" }, { min_width = "1" } },
    html = { { bogus = 1 }, { max_functions = 0 }, { max_arcs = 1.5 }, { min_weight = 2 },
             { max_depth = 1000001 }, { title = 3 }, { findings = "none" } },
    text = { { bogus = 1 }, { noise_floor = -1 }, { noise_floor = "10" }, { brief = 1 } },
  }
  -- what profile:export itself refuses (lgprof.report also checks the types)
  local BAD_EXPORT = {
    callgrind = { { bogus = 1 }, { table = "flat" } },
    json = { { bogus = 1 }, { max_depth = 3 } },
    csv = { { bogus = 1 }, { table = "rows" }, { min_weight = 0.5 } },
    folded = { { bogus = 1 }, { max_depth = 0 }, { max_depth = 1000001 }, { min_weight = 2 },
               { zeros = true } },
  }
  local dir, p
  setup(function()
    dir = program()
    p = assert(lgprof.open(dir .. "/prog", dir .. "/full.out"))
  end)
  teardown(function()
    p:close()
    util.rmtree(dir)
  end)

  local function label(opts)
    local k, v = next(opts)
    return ("{%s = %s}"):format(k, type(v) == "string" and ("%q"):format(v) or tostring(v))
  end

  -- Calls f(target) where target is a path (or, with handle, a file opened
  -- for appending); asserts that it raised and that the file is unchanged.
  local function assert_untouched(what, f, handle)
    local path = cmd.write(dir .. "/sentinel", SENTINEL)
    local target = handle and assert(io.open(path, "a")) or path
    local ok, err = pcall(f, target)
    if handle then target:close() end
    assert.is_false(ok, what .. ": no error")
    assert.is_string(err, what)
    assert.equal(SENTINEL, util.slurp(path), what .. ": the file changed (" .. tostring(err) .. ")")
  end

  for _, fmt in ipairs(lgprof.report.formats) do
    it("lgprof.report." .. fmt .. " with a bad option, on a path and on a file handle", function()
      for _, opts in ipairs(BAD[fmt]) do
        for _, handle in ipairs { false, true } do
          assert_untouched(("%s %s%s"):format(fmt, label(opts), handle and " (handle)" or ""),
            function(target) return lgprof.report[fmt](p, target, opts) end, handle)
        end
      end
    end)

    it("lgprof.report." .. fmt .. " on a closed profile", function()
      local c = assert(lgprof.open(dir .. "/prog", dir .. "/full.out"))
      c:close()
      assert_untouched(fmt .. " closed", function(target) return lgprof.report[fmt](c, target) end)
    end)
  end

  it("profile:export with a bad option writes nothing", function()
    for _, fmt in ipairs { "callgrind", "json", "csv", "folded" } do
      for _, opts in ipairs(BAD_EXPORT[fmt]) do
        assert_untouched(("export %s %s"):format(fmt, label(opts)),
          function(target) return p:export(fmt, target, opts) end, true)
      end
    end
  end)
end)

describe("defect 3: gprof_report refuses a part whose data the profile lacks, as gprof", function()
  local dir
  setup(function() dir = program() end)
  teardown(function() util.rmtree(dir) end)

  it("without a histogram: the flat profile is refused, the call graph is gprof's", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local p <close> = assert(lgprof.open(dir .. "/prog", dir .. "/arcs.out"))
    local out, err = gprof(dir, "-p prog arcs.out", 1)
    assert.equal("", out)
    assert.truthy(err:find("gmon.out file is missing histogram", 1, true), err)
    for _, opts in ipairs { { flat = true }, { flat = true, graph = false }, { flat = true, graph = true } } do
      local text, ok, err = report_text(p, opts)
      assert.equal("", text)
      assert.is_nil(ok)
      assert.equal("gmon.out file is missing histogram", err)
    end
    -- what gprof prints by default (the call graph alone) and with -q
    assert.equal(gprof(dir, "prog arcs.out"), (report_text(p, {})))
    assert.equal(gprof(dir, "-b -q prog arcs.out"), (report_text(p, { brief = true, graph = true })))
  end)

  it("without arcs: the call graph is refused, the flat profile is gprof's", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local p <close> = assert(lgprof.open(dir .. "/prog", dir .. "/hist.out"))
    local out, gerr = gprof(dir, "-q prog hist.out", 1)
    assert.equal("", out)
    assert.truthy(gerr:find("gmon.out file is missing call-graph data", 1, true), gerr)
    local text, ok, err = report_text(p, { graph = true })
    assert.equal("", text)
    assert.is_nil(ok)
    assert.equal("gmon.out file is missing call-graph data", err)
    assert.equal(gprof(dir, "prog hist.out"), (report_text(p, {})))
    assert.equal(gprof(dir, "-b -p prog hist.out"), (report_text(p, { brief = true, flat = true })))
  end)
end)

describe("defect 4: messages say what is wrong", function()
  it("max_depth above its maximum says so", function()
    local dir = program()
    finally(function() util.rmtree(dir) end)
    local p <close> = assert(lgprof.open(dir .. "/prog", dir .. "/full.out"))
    local f = io.tmpfile()
    local ok, err = pcall(function() return p:export("folded", f, { max_depth = 1000001 }) end)
    assert.is_false(ok)
    assert.matches("bad argument #3 to 'export' (option 'max_depth' must be an integer from 1 to 1000000)",
                   err, 1, true)
    ok, err = pcall(function() return p:export("folded", f, { max_depth = 0 }) end)
    assert.is_false(ok)
    assert.matches("bad argument #3 to 'export' (option 'max_depth' must be an integer from 1 to 1000000)",
                   err, 1, true)
    ok, err = pcall(lgprof.report.folded, p, f, { max_depth = 1000001 })
    f:close()
    assert.is_false(ok)
    assert.matches("max_depth", err, 1, true)
    assert.no.matches("at least", err, 1, true)
  end)
end)

describe("defect 7: dead code", function()
  it("no conditional of the C sources has identical branches (gcc -Wduplicated-branches)", function()
    local flags = util.read_cmd("pkg-config --cflags lua5.4 libelf libdw 2>/dev/null"):gsub("%s+$", "")
    local sources = util.read_cmd("cd " .. q(cmd.ROOT) .. " && find csrc -name '*.c' ! -path '*/fuzz/*' | sort")
    -- the core's headers by layer ("model/profile.h"), the others' beside them
    local inc = { "-Icsrc/core", "-Icsrc/lua", "-Icsrc/cli" }
    local failures = {}
    for src in sources:gmatch("[^\n]+") do
      local out = util.read_cmd(("cd %s && gcc -std=c99 -D_POSIX_C_SOURCE=200809L -fsyntax-only"
        .. " -Wduplicated-branches -Wduplicated-cond -Werror %s %s %s 2>&1"):format(
        q(cmd.ROOT), flags, table.concat(inc, " "), q(src)))
      if out ~= "" then failures[#failures + 1] = out end
    end
    assert.equal("", table.concat(failures, "\n"))
  end)
end)

describe("defect 8: hide never lists a function that has neither callers nor callees", function()
  local dir
  setup(function() dir = program() end)
  teardown(function() util.rmtree(dir) end)

  -- hiding `name` in the profile of gmon: it is gone from every listing,
  -- and its ticks leave the view's total
  local function check(gmon, name)
    local p <close> = assert(lgprof.open(dir .. "/prog", dir .. "/" .. gmon))
    local v <close> = p:filter { hide = "^" .. name .. "$" }
    for _, list in ipairs { names(v:functions()), names(v:flat()), names(v:symbols()) } do
      for _, n in ipairs(list) do assert.are_not.equal(name, n) end
    end
    assert.is_nil((v:find(name)))
    local word = "%f[%w_]" .. name .. "%f[^%w_]"
    assert.matches(word, (report_text(p, { brief = true })))
    assert.no.matches(word, (report_text(v, { brief = true })))
    assert.near(p.total_time - TICKS[name] / 100, v.total_time, 1e-12)
    assert.near(p.total_time, v.base_time, 1e-12)
  end

  it("a callback with time and no arcs", function() check("full.out", "cb") end)
  it("main of a profile without arcs", function() check("hist.out", "main") end)
end)
