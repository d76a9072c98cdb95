-- The command's help and messages: --help shows lgprof (its modes, gprof's
-- options, lgprof's bug address), each mode prints its own usage, a usage
-- error is one line and a pointer to the right --help (status 2), a bad
-- pattern is named once (CLI and Lua API).
local lgprof = require "lgprof"
local options = require "lgprof.cli.options"
local H = require "helpers"
local util, cmd, synth = H.util, H.cmd, H.synth

local BUGS = "Report bugs to <https://github.com/lgprof/lgprof/issues>.\n"
-- glibc's regerror text for an unmatched parenthesis
local BAD = "bad pattern 'bu(rn': Unmatched ( or \\("

local function pointer(help) return ("Try '%s' for more information.\n"):format(help) end

-- (options as whole words: "-a", "--brief")
local has_word = require("helpers.util").has_word

describe("the help", function()
  for _, flag in ipairs({ "--help", "-h", "--format=--help" }) do
    it(flag .. " shows lgprof's usage, modes and bug address on stdout, status 0", function()
      local status, out, err = cmd.lgprof({ flag })
      cmd.expect({ status = 0, err = "" }, status, out, err)
      assert.equal("Usage: lgprof [options] [image-file [profile-file...]]\n", out:match("^[^\n]*\n"))
      for _, mode in ipairs({ "lgprof --format=FMT ", "lgprof --script FILE.lua ", "lgprof check ",
                              "lgprof --diff BASE-PROFILE ", "lgprof merge " }) do
        assert.truthy(out:find("\n  " .. mode, 1, true), mode)
      end
      for _, fmt in ipairs({ "gprof", "callgrind", "json", "csv", "csv-arcs", "folded", "dot" }) do
        assert.is_true(has_word(out, fmt), fmt)
      end
      assert.truthy(out:find("\n  lgprof --lua-env    print LUA_PATH/LUA_CPATH lines for standalone scripts\n",
        1, true), "--lua-env")
      assert.equal(BUGS, out:sub(-#BUGS))
      assert.falsy(out:find("sourceware", 1, true))
      assert.falsy(out:find("Usage: gprof", 1, true))
    end)
  end

  it("lists every gprof option that the command line accepts", function()
    local _, out = cmd.lgprof({ "--help" })
    local spec = options.spec("gprof")
    for c in pairs(spec.short) do assert.is_true(has_word(out, "-" .. c), "-" .. c) end
    for name, d in pairs(spec.long) do
      if not d.exact then assert.is_true(has_word(out, "--" .. name), "--" .. name) end
    end
  end)

  it("gives the README's bug address", function()
    local readme = assert(util.slurp(cmd.ROOT .. "/README.md"))
    assert.truthy(readme:find(BUGS:match("<(.*)>"), 1, true))
  end)

  -- each mode: the words that ask for its help, its usage's first words,
  -- the options of its own that the usage must name
  for _, m in ipairs({
    { { "--script", "--help" }, "lgprof --script FILE.lua ", { "script" } },
    { { "--script", "x.lua", "-h" }, "lgprof --script FILE.lua ", {} },
    { { "check", "--help" }, "lgprof check ", { "max-self", "max-total", "max-calls", "thresholds", "confidence" } },
    { { "check", "-h" }, "lgprof check ", {} },
    { { "--diff", "--help" }, "lgprof --diff BASE-PROFILE ", { "diff", "diff-image", "max-growth", "confidence" } },
    { { "--diff", "-h" }, "lgprof --diff BASE-PROFILE ", {} },
    { { "merge", "--help" }, "lgprof merge ", { "output" } },
  }) do
    it(table.concat(m[1], " ") .. " prints that mode's usage on stdout, status 0", function()
      local status, out, err = cmd.lgprof(m[1])
      cmd.expect({ status = 0, err = "" }, status, out, err)
      assert.equal("Usage: " .. m[2], out:sub(1, #m[2] + 7))
      for _, name in ipairs(m[3]) do assert.is_true(has_word(out, "--" .. name), name) end
      assert.equal(BUGS, out:sub(-#BUGS))
    end)
  end

  it("-v: gprof's version text on stdout, lgprof's version on stderr", function()
    local status, out, err = cmd.lgprof({ "-v" })
    assert.equal(0, status)
    assert.truthy(out:find("^GNU gprof [^\n]* 2%.40\n"), out)
    assert.equal("(lgprof " .. lgprof.VERSION .. ", a reimplementation of the above)\n", err)
  end)
end)

describe("a usage error", function()
  local tmp, script
  setup(function()
    tmp = util.mktempdir("lgprof messages")
    script = cmd.write(tmp .. "/top.lua", "local lgprof = require 'lgprof'\nlgprof.script(...)\n")
  end)
  teardown(function() util.rmtree(tmp) end)

  -- { words, the message (glibc's getopt wording for its errors), the help that the pointer names }
  local CASES = {
    { { "--bogus", "a.out" }, "unrecognized option '--bogus'", "lgprof --help" },
    { { "-Y" }, "invalid option -- 'Y'", "lgprof --help" },
    { { "-w" }, "option requires an argument -- 'w'", "lgprof --help" },
    { { "-d" }, "-d/--debug: not supported (a dump of gprof's own tables)", "lgprof --help" },
    { { "-Oz" }, "z: unknown file format", "lgprof --help" },
    { { "--format=png" }, "unknown format 'png' (gprof, text, callgrind, json, csv, csv-arcs, folded, dot, html, svg, pprof, speedscope)",
      "lgprof --help" },
    { { "--max-growth=0.1" }, "--max-growth needs --diff", "lgprof --diff --help" },
    { { "--script", "x.lua", "--diff=g.out" }, "--script and --diff cannot be combined", "lgprof --help" },
    { { "--script" }, "option '--script' requires an argument", "lgprof --script --help" },
    { { "--script", "x.lua", "--bogus" }, "unrecognized option '--bogus'", "lgprof --script --help" },
    { { "--script", "x.lua", "--script", "y.lua" }, "--script given twice", "lgprof --script --help" },
    { { "check" }, "check: no thresholds (--max-self, --max-total, --max-calls, --thresholds)",
      "lgprof check --help" },
    { { "check", "--max-self=c" }, "--max-self: expected PATTERN=SHARE, got 'c'", "lgprof check --help" },
    { { "check", "-d" }, "-d/--debug: not supported (a dump of gprof's own tables)", "lgprof check --help" },
    { { "--diff" }, "option '--diff' requires an argument", "lgprof --diff --help" },
    { { "--diff", "g1", "--confidence=1" },
      "--confidence: '1' is not a confidence from 0 to 1, 1 excluded (0.95 or 95%; 0: no statistics)",
      "lgprof --diff --help" },
    { { "--confidence=0.9" }, "--confidence needs --diff", "lgprof --diff --help" },
    { { "merge", "a.out", "gmon.out" }, "merge: no output file (-o OUT)", "lgprof merge --help" },
    { { "merge", "-o" }, "option requires an argument -- 'o'", "lgprof merge --help" },
    -- another mode's option names the modes that take it
    { { "--diff", "g1", "--perf=perf.data", "a.out", "gmon.out" },
      "--perf does not apply to --diff (it is an option of the report, lgprof check, lgprof doctor, --script,"
        .. " lgprof record)", "lgprof --diff --help" },
    { { "doctor", "--fp", "perf.data" }, "--fp does not apply to lgprof doctor (it is an option of lgprof record)",
      "lgprof doctor --help" },
    { { "--output=x", "a.out" }, "--output does not apply to the report (it is an option of lgprof merge,"
        .. " lgprof record)", "lgprof --help" },
    { { "check", "--diff=g1", "a.out" }, "--diff cannot be combined with lgprof check", "lgprof check --help" },
  }
  for _, c in ipairs(CASES) do
    it(table.concat(c[1], " ") .. ": one line and a pointer to " .. c[3] .. ", status 2", function()
      cmd.expect({ status = 2, out = "", err = "lgprof: " .. c[2] .. "\n" .. pointer(c[3]) }, cmd.lgprof(c[1]))
    end)
  end

  it("names a help that works", function()
    local seen = {}
    for _, c in ipairs(CASES) do
      if not seen[c[3]] then
        seen[c[3]] = true
        local words = {}
        for w in c[3]:gmatch("%S+") do words[#words + 1] = w end
        assert.equal("lgprof", table.remove(words, 1))
        local status, out = cmd.lgprof(words)
        assert.equal(0, status, c[3])
        assert.truthy(out:find("^Usage: lgprof"), c[3])
      end
    end
  end)

  it("of a standalone script points to the script's --help", function()
    cmd.expect({ status = 2, out = "",
      err = "lgprof: unrecognized option '--bogus'\n" .. pointer("lua5.4 " .. script .. " --help") },
      cmd.lua({ script, "--bogus" }))
    local status, out = cmd.lua({ script, "--help" })
    assert.equal(0, status)
    assert.truthy(out:find("^Usage: lua5.4 FILE.lua "), out)
  end)
end)

describe("a bad pattern", function()
  local tmp, exe, gmon
  setup(function()
    tmp = util.mktempdir("lgprof messages")
    exe, gmon = synth.write(tmp, "prog", {
      funcs = { { "main", 2 }, { "burn", 8 } }, arcs = { { "main", "burn", 1 } } })
  end)
  teardown(function() util.rmtree(tmp) end)

  it("is named once by check's and --diff's options", function()
    for _, opt in ipairs({ "--max-self", "--max-total", "--max-calls" }) do
      cmd.expect({ status = 2, out = "", err = ("lgprof: %s: %s\n"):format(opt, BAD) .. pointer("lgprof check --help") },
        cmd.lgprof({ "check", opt .. "=bu(rn=1", exe, gmon }))
    end
    cmd.expect({ status = 2, out = "", err = "lgprof: --max-growth: " .. BAD .. "\n" .. pointer("lgprof --diff --help") },
      cmd.lgprof({ "--diff", gmon, "--max-growth=bu(rn=0.1", exe, gmon }))
    -- a pattern that looks like a position ("x:3: ") is not cut at it
    cmd.expect({ status = 2, out = "", err = "lgprof: --max-self: bad pattern 'x:3: (': Unmatched ( or \\(\n"
      .. pointer("lgprof check --help") }, cmd.lgprof({ "check", "--max-self=x:3: (=1", exe, gmon }))
  end)

  it("is named once in a thresholds file", function()
    local file = cmd.write(tmp .. "/t.lua", "return { max_self = { ['bu(rn'] = 0.5 } }\n")
    cmd.expect({ status = 1, out = "", err = ('lgprof: %s: max_self["bu(rn"]: %s\n'):format(file, BAD) },
      cmd.lgprof({ "check", "--thresholds=" .. file, exe, gmon }))
  end)

  it("is named once by the Lua API", function()
    local p <close> = assert(lgprof.open(exe, gmon))
    for what, f in pairs({
      match = function() return lgprof.match("burn", "bu(rn") end,
      filter = function() return p:filter({ focus = "bu(rn" }) end,
      max_self = function() return lgprof.check.max_self(p, "bu(rn", 0.5) end,
      max_growth = function() return lgprof.check.max_growth(lgprof.diff(p, p), "bu(rn", 0.5) end,
    }) do
      local ok, msg = pcall(f)
      assert.is_false(ok, what)
      msg = tostring(msg)
      -- at the end, or inside "bad argument #n to 'f' (...)"
      assert.is_truthy(msg:sub(-#BAD) == BAD or msg:sub(-#BAD - 1) == BAD .. ")", what .. ": " .. msg)
      assert.equal(1, select(2, msg:gsub("bad pattern", "")), what .. ": " .. msg)
    end
  end)
end)
