-- C unit tests of the core (spec/unit/*.c, one file per module under test):
-- each is compiled with CC against the core sources it needs, then run; it
-- prints "not ok - FILE:LINE: ..." for each failed check and exits 0 only
-- when every check passed (spec/unit/unit.h).
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local cmd = require "helpers.cmd"

local q = fx.shquote

-- Where the core lives (its .c and .h files), relative to the checkout.
local CORE = "csrc/core"
local CC = "cc -std=c99 -Wall -Wextra -Werror -O1 -g -D_POSIX_C_SOURCE=200809L"
local PKGS = "libelf libdw"
local LIBS = "-liberty -lm -ldl"
-- The core beyond the bare utilities: what reads a profile and analyses it.
local PIPELINE = { "arcs.c", "bbcount.c", "cgraph.c", "cgorder.c", "elfsym.c", "nmsyms.c", "gmon.c", "hist.c", "mapfile.c", "profile.c",
  "select.c", "srcinfo.c", "linesyms.c", "dwline.c", "dwfunc.c", "dwinfo.c", "strset.c", "symspec.c", "symtab.c", "util.c", "view.c",
  "staticcg.c", "codeimg.c", "disasm.c" }
-- Each test: its file in spec/unit/, the core files it needs, extra flags.
local UNITS = {
  { test = "util.c", sources = { "util.c" } },
  { test = "symtab.c", sources = { "symtab.c", "util.c" } },
  { test = "staticcg.c", sources = PIPELINE },
  { test = "source.c", sources = { "execcount.c", table.unpack(PIPELINE) } },
  { test = "export.c", sources = { "export.c", "exportlines.c", "bounds.c", "lines.c", "folded.c", "names.c", table.unpack(PIPELINE) } },
  -- the arc limit, lowered to where a test reaches it
  { test = "arcs.c", sources = PIPELINE, flags = "-DLGP_ARCS_MAX=2" },
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
      for _, s in ipairs(u.sources) do words[#words + 1] = q(cmd.ROOT .. "/" .. CORE .. "/" .. s) end
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
