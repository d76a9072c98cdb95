-- C unit tests of the core (spec/unit/*.c, one file per module under test):
-- each is compiled with CC against the core sources it needs, then run; it
-- prints "not ok - FILE:LINE: ..." for each failed check and exits 0 only
-- when every check passed (spec/unit/unit.h).
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local cmd = require "helpers.cmd"

local q = fx.shquote

-- The core's headers (included as "layer/name.h") and its static library,
-- which `make` builds (make test builds first).
local CORE = "csrc/core"
local CORE_LIB = cmd.CORE_LIB
local CC = cmd.CORE_CC
local PKGS = "libelf libdw"
local LIBS = "-lz -liberty -lm -ldl"
-- Each test: its file in spec/unit/; sources compiled in front of the
-- library (their definitions win over its copies), extra flags.
local UNITS = {
  { test = "util.c" },
  { test = "bytes.c" },
  { test = "symtab.c" },
  { test = "staticcg.c" },
  { test = "source.c" },
  { test = "export.c" },
  { test = "stacks.c" },
  -- the arc limit, lowered to where a test reaches it: the arc table compiled
  -- with it, ahead of the library's
  { test = "arcs.c", flags = "-DLGP_ARCS_MAX=2",
    sources = { "model/arcs.c", "read/gmon.c", "model/profile.c", "model/staticcg.c", "model/view.c" } },
}

describe("C unit tests", function()
  local tmp, pkg
  setup(function()
    tmp = util.mktempdir("lgprof-unit")
    pkg = util.read_cmd("pkg-config --cflags --libs " .. PKGS .. " 2>/dev/null"):gsub("%s+$", "")
  end)
  teardown(function() util.rmtree(tmp) end)

  for _, u in ipairs(UNITS) do
    it(u.test, function()
      local exe = tmp .. "/" .. u.test:gsub("%.c$", "")
      local words = { CC, u.flags or "", "-I" .. q(cmd.ROOT .. "/" .. CORE),
        "-I" .. q(cmd.ROOT .. "/spec/unit"), "-o", q(exe), q(cmd.ROOT .. "/spec/unit/" .. u.test) }
      for _, s in ipairs(u.sources or {}) do words[#words + 1] = q(cmd.ROOT .. "/" .. CORE .. "/" .. s) end
      words[#words + 1] = q(CORE_LIB)
      words[#words + 1] = pkg
      words[#words + 1] = LIBS
      local build = util.read_cmd(table.concat(words, " ") .. " 2>&1; echo \"status=$?\"")
      assert.matches("^status=0\n$", build, 1)
      local out = util.read_cmd(q(exe) .. " 2>&1; echo \"status=$?\"")
      assert.matches("\nstatus=0\n$", out)
      assert.matches(" checks, 0 failed\n", out, 1, true)
    end)
  end
end)
