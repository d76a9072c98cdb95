-- The command line's views (--focus, --ignore, --hide, --prune-from,
-- --node-fraction, --edge-fraction, --top, --min-calls): for every option
-- and for combinations, what `lgprof --format=FMT` (and --annotate-lines)
-- writes must be byte for byte what the Lua API writes for
-- profile:filter{...} on the same files (the API is the oracle: the views
-- are tested against the definitions in view_spec.lua). Then the usage
-- errors: a bad pattern or value (the option named), gprof's report and the
-- options that only shape it, --diff and check.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, synth = H.fixtures, H.util, H.cmd, H.synth

local TMP = util.mktempdir("lgprof cli-views")

-- What the API writes for a format (nil: the profile itself).
local function api_output(p, fmt, options)
  local fh = io.tmpfile()
  local ok, err
  if fmt == "csv-arcs" then
    ok, err = lgprof.report.csv(p, fh, { table = "arcs" })
  else
    ok, err = lgprof.report[fmt](p, fh, options)
  end
  assert(ok, err)
  fh:seek("set")
  local s = fh:read("a")
  fh:close()
  return s
end

local FORMATS = { "json", "csv", "csv-arcs", "callgrind", "folded", "dot", "svg" }

-- cli: the view options as typed; filter: the same for profile:filter;
-- words: the view as the pictures describe it, by hand (the filter's order
-- of application: ignore, prune_from, focus, hide, then the thresholds).
local CASES = {
  { cli = { "--focus=^a$" }, filter = { focus = "^a$" }, words = "focus=^a$" },
  { cli = { "--ignore=^b$" }, filter = { ignore = "^b$" }, words = "ignore=^b$" },
  { cli = { "--hide=^a$", "--hide=^c$" }, filter = { hide = { "^a$", "^c$" } },
    words = "hide=^a$, hide=^c$" },
  { cli = { "--prune-from=^b$" }, filter = { prune_from = "^b$" }, words = "prune_from=^b$" },
  { cli = { "--node-fraction=0.3" }, filter = { node_fraction = 0.3 }, words = "node_fraction=0.3" },
  { cli = { "--node-fraction=30%" }, filter = { node_fraction = "30%" }, words = "node_fraction=30%" },
  { cli = { "--edge-fraction=0.25" }, filter = { edge_fraction = 0.25 }, words = "edge_fraction=0.25" },
  { cli = { "--top=2" }, filter = { top = 2 }, words = "top=2" },
  { cli = { "--top=0" }, filter = { top = 0 }, words = "top=0" },
  { cli = { "--min-calls=2" }, filter = { min_calls = 2 }, words = "min_calls=2" },
  -- a threshold given twice: the last one, as getopt's options
  { cli = { "--top=1", "--top=3" }, filter = { top = 3 }, words = "top=3" },
  -- several at once, typed in another order than the one they apply in
  { cli = { "--top=2", "--hide=^b$", "--focus=main", "--node-fraction=0.5%" },
    filter = { focus = "main", hide = "^b$", top = 2, node_fraction = 0.005 },
    words = "focus=main, hide=^b$, node_fraction=0.5%, top=2" },
  { cli = { "--min-calls=1", "--edge-fraction=1%", "--ignore=^c$", "--prune-from=^a$" },
    filter = { ignore = "^c$", prune_from = "^a$", edge_fraction = 0.01, min_calls = 1 },
    words = "ignore=^c$, prune_from=^a$, edge_fraction=1%, min_calls=1" },
}

local function words_of(t) return table.concat(t, " ") end

-- The same view through the command and through the API, in every format.
local function compare(exe, gmons, case, formats)
  local p = assert(lgprof.open(exe, gmons))
  local v = assert(p:filter(case.filter))
  for _, fmt in ipairs(formats or FORMATS) do
    local argv = { "--format=" .. fmt }
    table.move(case.cli, 1, #case.cli, #argv + 1, argv)
    argv[#argv + 1] = exe
    table.move(gmons, 1, #gmons, #argv + 1, argv)
    local status, out, err = cmd.lgprof(argv)
    local what = words_of(argv)
    assert(status == 0, what .. "\n" .. cmd.show(status, out, err))
    assert(err == "" or err:match("^lgprof: warning: [^\n]*matches no function\n"), what .. "\n" .. err)
    local want = api_output(v, fmt, fmt == "svg" and { view_description = case.words } or nil)
    assert(want == out, what .. ": the command's output differs from the API's\n"
      .. cmd.show(status, out, err) .. "\n--- API ---\n" .. want:sub(1, 1500))
  end
  p:close()
end

describe("lgprof's view options", function()
  lazy_teardown(function() util.rmtree(TMP) end)

  local b = assert(fx.build("classic", "O0g-nopie"))

  for _, case in ipairs(CASES) do
    it("write what the API writes for profile:filter{...}: " .. words_of(case.cli), function()
      compare(b.exe, b.gmon, case)
    end)
  end

  it("apply to --annotate-lines as to lgprof.report.annotate", function()
    for _, case in ipairs { CASES[1], CASES[3], CASES[12] } do
      local argv = { "--annotate-lines" }
      table.move(case.cli, 1, #case.cli, 2, argv)
      argv[#argv + 1] = b.exe
      argv[#argv + 1] = b.gmon[1]
      local status, out, err = cmd.lgprof(argv)
      assert.equal(0, status, cmd.show(status, out, err))
      local p = assert(lgprof.open(b.exe, { b.gmon[1] }))
      local v = assert(p:filter(case.filter))
      assert.equal(api_output(v, "annotate", { directories = {} }), out)
      -- and the view changes the listing (a test that can fail)
      if case == CASES[1] then assert.are_not.equal(api_output(p, "annotate", { directories = {} }), out) end
      p:close()
    end
  end)

  it("apply on a synthesized profile with a cycle, and change what is written", function()
    local exe, gmon = synth.write(TMP, "cyc", {
      funcs = { { "main", 1 }, { "x", 20 }, { "y", 30 }, { "z", 40 }, { "w", 5 } },
      arcs = { { "main", "x", 2 }, { "x", "y", 5 }, { "y", "x", 4 }, { "y", "z", 3 },
               { "main", "w", 1 }, { "w", "z", 1 } },
    })
    local cases = {
      { cli = { "--focus=^w$" }, filter = { focus = "^w$" }, words = "focus=^w$" },
      { cli = { "--hide=^y$" }, filter = { hide = "^y$" }, words = "hide=^y$" },
      { cli = { "--prune-from=^x$", "--top=2" }, filter = { prune_from = "^x$", top = 2 },
        words = "prune_from=^x$, top=2" },
      { cli = { "--edge-fraction=0.2", "--ignore=^w$" }, filter = { ignore = "^w$", edge_fraction = 0.2 },
        words = "ignore=^w$, edge_fraction=0.2" },
    }
    local p = assert(lgprof.open(exe, { gmon }))
    for _, case in ipairs(cases) do
      compare(exe, { gmon }, case)
      -- the view is not the whole profile
      local v = assert(p:filter(case.filter))
      assert.are_not.equal(api_output(p, "json"), api_output(v, "json"))
    end
    p:close()
  end)

  it("apply with --granularity=line as lgprof.report's granularity = \"line\"", function()
    for _, fmt in ipairs { "json", "csv", "callgrind" } do
      local argv = { "--format=" .. fmt, "--granularity=line", "--hide=^a$", "--top=3", b.exe, b.gmon[1] }
      local status, out, err = cmd.lgprof(argv)
      assert.equal(0, status, cmd.show(status, out, err))
      local p = assert(lgprof.open(b.exe, { b.gmon[1] }))
      local v = assert(p:filter { hide = "^a$", top = 3 })
      assert.equal(api_output(v, fmt, { granularity = "line" }), out, fmt)
      p:close()
    end
  end)

  it("warn about a pattern that matches no function", function()
    local status, out, err = cmd.lgprof({ "--format=csv", "--focus=^nothing_here$", "--hide=^a$", b.exe, b.gmon[1] })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("lgprof: warning: --focus=^nothing_here$ matches no function\n", err)
    assert.truthy(out:find("^rank,"))
  end)

  it("go with gprof's analysis options (-pSPEC, -k, -a, -z)", function()
    local argv = { "--format=json", "--top=2", "-pa", "-k", "main/b", "-z", b.exe, b.gmon[1] }
    local status, out, err = cmd.lgprof(argv)
    assert.equal(0, status, cmd.show(status, out, err))
    local p = assert(lgprof.open(b.exe, { b.gmon[1] }, { incl_flat = { "a" }, excl_arcs = { "main/b" },
                                                         spec_order = { "incl_flat", "excl_arcs" } }))
    assert.equal(api_output(assert(p:filter { top = 2 }), "json", { zeros = true }), out)
    p:close()
  end)

  describe("usage errors (status 2, one line naming the option, nothing written)", function()
    local function refused(argv, want)
      local line = cmd.one_line_error(2, cmd.lgprof(argv))
      assert(line:find(want, 1, true), ("%s: %q does not contain %q"):format(words_of(argv), line, want))
      return line
    end

    it("for a bad pattern or value", function()
      for _, c in ipairs {
        { "--focus=(", "--focus: bad pattern '('" }, { "--ignore=a[", "--ignore: bad pattern 'a['" },
        { "--hide=*x", "--hide: bad pattern" }, { "--prune-from=a{1", "--prune-from: bad pattern" },
        { "--node-fraction=1.5", "--node-fraction=1.5: not a share" },
        { "--node-fraction=abc", "--node-fraction=abc: not a share" },
        { "--edge-fraction=-0.1", "--edge-fraction=-0.1: not a share" },
        { "--edge-fraction=101%", "--edge-fraction=101%: not a share" },
        { "--top=-1", "--top=-1: not a non-negative integer" },
        { "--top=1.5", "--top=1.5: not a non-negative integer" },
        { "--top=", "--top=: not a non-negative integer" },
        { "--top=99999999999999999999", "not a non-negative integer" },
        { "--min-calls=x", "--min-calls=x: not a non-negative integer" },
      } do
        refused({ "--format=json", c[1], b.exe, b.gmon[1] }, c[2])
      end
    end)

    it("with gprof's report and the options that only shape it", function()
      refused({ "--focus=a", b.exe, b.gmon[1] }, "--focus: the view options apply to --format=FMT")
      refused({ "--format=gprof", "--top=3", b.exe, b.gmon[1] }, "--top: the view options apply to")
      refused({ "-b", "--hide=a", b.exe, b.gmon[1] }, "not to gprof's report")
      for _, o in ipairs { { "-b" }, { "-T" }, { "-w", "100" }, { "-x" }, { "-y" }, { "-t", "5" },
                           { "-m", "2" }, { "-L" }, { "--inline-file-names" }, { "-r" } } do
        local argv = { "--format=dot", "--node-fraction=0.1" }
        table.move(o, 1, #o, 3, argv)
        argv[#argv + 1] = b.exe
        argv[#argv + 1] = b.gmon[1]
        refused(argv, ("--node-fraction: the view options cannot be combined with %s"):format(o[1]))
      end
      for _, o in ipairs { "-p", "-q", "-P", "-Q" } do
        refused({ "--format=csv", "--top=1", o, b.exe, b.gmon[1] },
          ("cannot be combined with %s without a SPEC"):format(o))
      end
      refused({ "--annotate-lines", "--top=1", "-b", b.exe, b.gmon[1] }, "cannot be combined with -b")
    end)

    it("with --diff and check, where views do not apply", function()
      refused({ "--diff", b.gmon[2], "--top=1", b.exe, b.gmon[1] },
        "--top: the view options other than --focus, --ignore and --hide do not apply to --diff")
      refused({ "check", "--max-self=a=50%", "--min-calls=2", b.exe, b.gmon[1] },
        "--min-calls: the view options do not apply to lgprof check")
      local script = TMP .. "/s.lua"
      util.spit(script, "local lgprof = require 'lgprof'\nlgprof.script(...)\n")
      refused({ "--script", script, "--hide=a", b.exe, b.gmon[1] },
        "--hide: the view options do not apply to a script's command line")
      refused({ "merge", "--top=1", "-o", TMP .. "/sum.out", b.exe, b.gmon[1] },
        "--top: the view options do not apply to lgprof merge")
    end)
  end)
end)
