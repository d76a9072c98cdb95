-- The command picks its mode (--script, --diff) from the parsed command
-- line: a word spelt like one of them that is another option's argument is
-- that argument, as gprof reads it (it once crashed lgprof with a Lua error).
local fx = require "helpers.fixtures"
local cmd = require "helpers.cmd"

describe("lgprof's mode", function()
  for _, words in ipairs({
    { "-e", "--diff" }, { "-n", "--script=x.lua" }, { "-N", "--diff=g.out" }, { "--time", "--diff" },
    { "-e", "--script", "-f", "--diff" }, { "-k", "--diff/--script" },
  }) do
    it("is gprof's when " .. table.concat(words, " ") .. " is an option with its argument", function()
      if not cmd.HAVE_GPROF then
        pending("no " .. cmd.GPROF)
        return
      end
      local f = assert(fx.build("cycles", "O0g-pie"))
      local argv = { "-b", table.unpack(words) }
      table.move({ f.exe, f.gmon[1] }, 1, 2, #argv + 1, argv)
      local _, want = cmd.gprof(argv)
      assert.truthy(want:find("Flat profile", 1, true), "gprof's report")
      local status, out, err = cmd.lgprof(argv)
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal(want, out)
      assert.equal("", err)
    end)
  end

  it("is --diff's when --diff is an option", function()
    local f = assert(fx.build("cycles", "O0g-pie"))
    local status, out, err = cmd.lgprof({ "-e", "x", "--diff", f.gmon[2], f.exe, f.gmon[1] })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.truthy(out:match("^base [%d.]+ seconds, new [%d.]+ seconds"), out)
  end)

  it("says --script and --diff cannot be combined when both are options", function()
    assert.equal("--script and --diff cannot be combined",
      cmd.one_line_error(2, cmd.lgprof({ "--script", "x.lua", "--diff=g.out" })))
  end)
end)
