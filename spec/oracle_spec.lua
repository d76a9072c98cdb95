-- The gprof oracle's server (spec/helpers/gprofserver.c, used by
-- helpers.oracle): gprof's main run in a child forked from one gprof process
-- answers as an exec of gprof does, byte for byte (stdout, stderr, exit
-- status), for what the differential specs ask of it: reports of every kind
-- on a function-level and a line-level program (the static call graph of -c
-- among them, which reads past the end of one of gprof's arrays), usage
-- errors, --help and --version (argv[0] in them), a missing file, several
-- profiles, -y's files in a run's own working directory, and many runs in one server (each child starts from the same
-- state: no run sees what an earlier one did).
local H = require "helpers"
local fx, util, cmd, oracle = H.fixtures, H.util, H.cmd, H.oracle

local OPTIONS = {
  "", "-b", "-p", "-q", "-b -z -c", "-c -l -b", "-l", "-l -b -p", "-A", "-A -x", "-C", "-l -C",
  "-b -i", "-T", "-b -a", "-w 50 -b", "--no-demangle -b", "-b -r",
  "--bogus", "-v", "--help", "-t", "-b -S nonexistent.nm",
}

-- Run in an empty folder of their own, the files they write compared too
-- (-y's FILE-ann).
local WRITING = { "-A -y", "-A -x -y", "-l -A --separate-files", "-b -A -C -y" }

local function cases_of(b, dir, tag)
  local cases = {}
  for k, text in ipairs(WRITING) do
    local args = util.fields(text)
    args[#args + 1] = b.exe
    args[#args + 1] = b.gmon[1]
    local cwd = tag .. k
    util.mkdir(dir .. "/" .. cwd)
    cases[#cases + 1] = { args = args, cwd = cwd, collect = "%-ann$" }
  end
  for _, text in ipairs(OPTIONS) do
    local args = util.fields(text)
    args[#args + 1] = b.exe
    args[#args + 1] = b.gmon[1]
    cases[#cases + 1] = { args = args }
  end
  cases[#cases + 1] = { args = { "-b", b.exe, b.gmon[1], b.gmon[2], b.gmon[3] } }
  cases[#cases + 1] = { args = { "-b", b.exe, b.gmon[1] .. ".missing" } }
  cases[#cases + 1] = { args = {} } -- (a.out and gmon.out in the folder: neither there)
  -- the first case again, last: the server's later children start afresh
  cases[#cases + 1] = { args = cases[1].args }
  return cases
end

describe("the gprof oracle's server", function()
  for _, pv in ipairs { { "classic", "O0g-pie" }, { "lnested", "O2g-pie" } } do
    it("answers as gprof's exec does: " .. pv[1] .. "/" .. pv[2], function()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      if not oracle.served() then return pending("the server could not be built (no cc?) or LGPROF_SPEC_GPROF_EXEC is set") end
      local built = assert(fx.build(pv[1], pv[2]))
      local dir = util.mktempdir("lgprof oracle")
      finally(function() util.rmtree(dir) end)
      local b = fx.snapshot(built, dir)
      local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
      local served = oracle.gprof_many(dir, cases_of(b, dir, "s"), files, { fresh = true })
      local cases = cases_of(b, dir, "e")
      local exec = oracle.gprof_many(dir, cases, files, { fresh = true, exec = true })
      local reports, written = 0, 0
      for i, c in ipairs(cases) do
        local label = "gprof " .. util.qwords(c.args)
        assert.equal(exec[i].rc, served[i].rc, label)
        assert.equal(exec[i].err, served[i].err, label)
        assert.equal(exec[i].out, served[i].out, label)
        if exec[i].rc == 0 and #exec[i].out > 200 then reports = reports + 1 end
        assert.same(exec[i].files, served[i].files, label)
        for _, bytes in pairs(exec[i].files or {}) do
          if #bytes > 0 then written = written + 1 end
        end
      end
      assert.is_true(written >= #WRITING, written .. " files written")
      -- (not vacuous: most cases are reports, and the errors are errors)
      assert.is_true(reports >= 15, reports .. " reports")
      assert.equal(1, exec[#cases - 1].rc)
    end)
  end
end)
