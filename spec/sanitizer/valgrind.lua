-- make test-valgrind: bin/lgprof under valgrind memcheck over every fixture
-- program (spec/fixtures/progs/, built by helpers.fixtures): the report of
-- the three runs summed, -T, --format=json and -s. A run passes when
-- memcheck finds no error and no definite leak (--errors-for-leak-kinds=
-- definite; lua5.4 and libdw keep some memory reachable at exit, which is
-- not reported). Prints "ok"/"not ok" lines, then "N passed, N failed".
package.path = "spec/?.lua;" .. package.path
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local q = fx.shquote

local VALGRIND = "valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite"
  .. " --errors-for-leak-kinds=definite --track-fds=no"
local variants = { arg[1] or "O0g-pie" }
local passed, failed = 0, 0
local tmp = util.mktempdir("lgprof-valgrind")
for _, name in ipairs(fx.programs()) do
  for _, variant in ipairs(variants) do
    local b, err = fx.build(name, variant)
    if not b then
      failed = failed + 1
      print(("not ok - %s %s: fixture: %s"):format(name, variant, err))
    else
      local gm = {}
      for i, g in ipairs(b.gmon) do gm[i] = q(g) end
      gm = table.concat(gm, " ")
      for _, opts in ipairs({ "", "-b -T", "--format=json", "-s" }) do
        local log = tmp .. "/log"
        local c = ("cd %s && %s --log-file=%s lua5.4 %s %s %s %s >/dev/null 2>&1"):format(
          q(tmp), VALGRIND, q(log), q(fx.root .. "/bin/lgprof"), opts, q(b.exe), gm)
        local ok = util.exec_ok(c)
        local label = ("%s %s lgprof %s"):format(name, variant, opts)
        if ok then
          passed = passed + 1
          print("ok - " .. label)
        else
          failed = failed + 1
          print("not ok - " .. label)
          for line in (util.slurp(log) or ""):gmatch("[^\n]+") do print("# " .. line) end
        end
      end
    end
  end
end
os.execute("rm -rf " .. q(tmp))
print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and passed > 0 and 0 or 1)
