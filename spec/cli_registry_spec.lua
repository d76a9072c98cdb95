-- The option registry (lgprof.cli.registry) and what is written from it
-- (lgprof.cli.help): every entry complete and unambiguous in each of its
-- modes, every option named in its mode's --help, the man page's .TP
-- entries and the Markdown table one per option.
local H = require "helpers"
local cmd = H.cmd
local registry = require "lgprof.cli.registry"
local help = require "lgprof.cli.help"

local has_word = require("helpers.util").has_word

describe("the option registry", function()
  it("has, for every entry, its names, argument, type, modes, help and key", function()
    for _, e in ipairs(registry.OPTIONS) do
      local name = registry.spelling(e)
      assert.truthy(e.short or e.long, "an entry without a name")
      assert.truthy(({ none = true, required = true, optional = true })[e.arg], name)
      if e.arg ~= "none" then assert.truthy(registry.TYPES[e.type or "string"], name .. ": type") end
      assert.truthy(type(e.help) == "string" and #e.help > 0, name .. ": help")
      assert.truthy(next(e.modes), name .. ": modes")
      if not e.gprof then
        assert.truthy(e.key, name .. ": key")
        assert.truthy(e.long, name .. ": lgprof's own options are long ones")
      end
      if e.type == "integer" or e.type == "number" then
        assert.truthy(e.min and e.max and e.min <= e.max, name .. ": range")
      end
      if e.type == "enum" then assert.truthy(e.values and #e.values > 0, name .. ": values") end
    end
  end)

  it("gives each name of a mode to one option only", function()
    for _, mode in ipairs(registry.MODES) do
      local seen = {}
      for _, e in ipairs(registry.of_mode(mode)) do
        for _, n in ipairs({ e.short and "-" .. e.short, e.long and "--" .. e.long }) do
          if n then
            assert.is_nil(seen[n], mode .. ": " .. n .. " twice")
            seen[n] = true
          end
        end
      end
    end
  end)

  it("checks values: ranges, shares, enums; a bad one is a message, never an error", function()
    local by = {}
    for _, e in ipairs(registry.OPTIONS) do by[e.long or e.short] = by[e.long or e.short] or e end
    assert.equal(5, registry.value(by.top, "5"))
    assert.is_nil(registry.value(by.top, "1e30"))
    assert.equal(2, registry.value(by["break-cycles"], nil))
    assert.equal(4294967295, registry.value(by["break-cycles"], "4294967295"))
    assert.is_nil(registry.value(by["break-cycles"], "4294967296"))
    assert.equal(0.5, registry.value(by["node-fraction"], "50%"))
    assert.is_nil(registry.value(by["node-fraction"], "150%"))
    assert.equal(2.5, registry.value(by["noise-floor"], "2.5"))
    for _, v in ipairs({ "nan", "inf", "1e19", "-1", "0x10", "" }) do
      local value, msg = registry.value(by["noise-floor"], v)
      assert.is_nil(value, v)
      assert.truthy(msg:find("^%-%-noise%-floor="), msg)
    end
    -- gprof's: as C reads them (atoi cuts strtol's long to an int)
    assert.equal(-2147483648, registry.value(by.width, "2147483648"))
    assert.equal(0, registry.value(by.width, "4294967296"))
    assert.equal(-1, registry.value(by.width, "99999999999999999999"))
    assert.equal(0, registry.value(by.width, "abc"))
    assert.equal(-1, registry.value(by["min-count"], "99999999999999999999"))
    local limit = registry.value(by["max-self"], "^main$=30%")
    assert.same({ kind = "max_self", pattern = "^main$", limit = 0.3 }, limit)
    assert.same({ kind = "max_growth", pattern = ".", limit = 0.1 }, registry.value(by["max-growth"], "10%"))
  end)
end)

describe("the help written from the registry", function()
  it("names every option of gprof's mode in lgprof --help", function()
    local status, out = cmd.lgprof({ "--help" })
    assert.equal(0, status)
    for _, e in ipairs(registry.of_mode("gprof")) do
      -- (the options of --diff, which gprof's mode takes only to say they
      -- need it, are in lgprof --diff --help)
      if not e.modes.gprof then goto next end
      if e.short then assert.is_true(has_word(out, "-" .. e.short), "-" .. e.short) end
      if e.long then assert.is_true(has_word(out, "--" .. e.long), "--" .. e.long) end
      ::next::
    end
  end)

  it("names every option of a mode in that mode's --help", function()
    for _, m in ipairs({ { "check", { "check", "--help" } }, { "diff", { "--diff", "--help" } },
                         { "doctor", { "doctor", "--help" } }, { "merge", { "merge", "--help" } } }) do
      local status, out = cmd.lgprof(m[2])
      assert.equal(0, status)
      for _, e in ipairs(registry.of_mode(m[1])) do
        if not e.gprof then
          assert.truthy(out:find("\n  " .. help.synopsis(e), 1, true), m[1] .. ": " .. e.long)
        end
      end
    end
  end)

  it("wraps its lines at 79 characters, the help at its column", function()
    local text = help.group("gprof")
    for line in text:gmatch("[^\n]+") do
      assert.is_true(#line <= 79 or not line:find(" ", 33, true), line)
      assert.truthy(line:match("^  %-") or line:match("^" .. (" "):rep(32) .. "%S"), line)
    end
  end)

  it("as a man page: one .TP entry per option, minus signs escaped", function()
    local roff = help.roff()
    local n = 0
    for head, body in roff:gmatch("%.TP\n([^\n]*)\n([^\n]*)\n") do
      n = n + 1
      assert.falsy(head:gsub("\\%-", ""):find("-", 1, true), head)
      assert.falsy(body:match("^[.']"), body)
    end
    assert.equal(#registry.OPTIONS, n)
    assert.truthy(roff:find(".TP\n\\fB\\-w\\fR \\fIN\\fR, \\fB\\-\\-width\\fR=\\fIN\\fR\n", 1, true))
  end)

  it("as a Markdown table: a header and one row of three cells per option", function()
    local md = help.markdown()
    local rows = {}
    for line in md:gmatch("[^\n]+") do rows[#rows + 1] = line end
    assert.equal(#registry.OPTIONS + 2, #rows)
    for _, r in ipairs(rows) do
      local cells = select(2, r:gsub("\\|", ""):gsub("|", "|"))
      assert.equal(4, cells, r)
    end
    assert.truthy(md:find("| `--noise-floor=N` | gprof, record |", 1, true))
    assert.truthy(md:find("| `-F NAME` | all but record |", 1, true))
  end)
end)

describe("the commands' context", function()
  -- a stream that keeps what is written
  local function sink()
    local s = { text = "" }
    function s.write(self, ...)
      for _, v in ipairs({ ... }) do self.text = self.text .. v end
      return self
    end
    return s
  end

  it("gives every mode's command the typed options and one way to fail", function()
    local cli = require "lgprof.cli.main"
    local b = assert(H.fixtures.build("classic", "O0g-nopie"))
    local out, err = sink(), sink()
    local ctx = assert(cli.context({ "--max-self=^c$=99%", "--max-calls=^a$=7", "--confidence=90%",
      b.exe, b.gmon[1] }, out, err, "check"))
    assert.equal("check", ctx.mode)
    assert.same({ { kind = "max_self", pattern = "^c$", limit = 0.99 },
                  { kind = "max_calls", pattern = "^a$", limit = 7 } }, ctx.opts.limits)
    assert.equal(0.9, ctx.opts.confidence)
    assert.equal(b.exe, ctx.opts.exe)
    local status = require("lgprof.cmd.check").run(ctx)
    assert.is_true(status == 0 or status == 3)
    assert.truthy(out.text:find("^lgprof check: 2 thresholds, "), out.text)
    assert.equal(2, ctx:fail(2, "why"))
    assert.truthy(err.text:find("lgprof: why\nTry 'lgprof check --help' for more information.\n", 1, true))
    assert.equal(1, ctx:fail(1, "a.out: why"))
    assert.equal("lgprof: a.out: why\n", err.text:sub(-#"lgprof: a.out: why\n"))
  end)

  it("keeps a repeatable option's values in order, and the last of the others", function()
    local cli = require "lgprof.cli.main"
    local ctx = assert(cli.context({ "--format=json", "--focus=a", "--top=3", "--focus=b", "--top=5",
      "--format=csv" }, sink(), sink(), "gprof"))
    assert.same({ "a", "b" }, ctx.opts.focus)
    assert.equal(5, ctx.opts.top)
    assert.equal("csv", ctx.opts.output_format)
  end)
end)

describe("--lua-env (answered by the launcher when it is the only word)", function()
  it("is a usage error with other words, wherever it comes", function()
    for _, argv in ipairs({ { "-b", "--lua-env" }, { "--lua-env", "-b" }, { "--format=json", "--lua-env", "x" } }) do
      assert.equal("--lua-env takes no other argument", cmd.one_line_error(2, cmd.lgprof(argv)))
    end
  end)
end)
