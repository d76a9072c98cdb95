-- Reads busted's TAP output on stdin, echoes it, and ends with the lines
-- "# N s" (how long the run took) and "N passed, N failed, N skipped".
-- Skips (pending tests) are not passes.
-- Exits non-zero when a test failed or when no test ran at all.
--
-- lua5.4 spec/tap_summary.lua --sanitizer-logs DIR (make test-asan): each file
-- in DIR is a report that AddressSanitizer or UBSan wrote (log_path) from some
-- process of the run; each is printed and counted as a failure.
package.path = ((arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local util = require "helpers.util"

local started = os.time() -- the suite's length, printed before the summary
local passed, failed, skipped = 0, 0, 0
local logdir = arg[1] == "--sanitizer-logs" and arg[2] or nil
for line in io.lines() do
  io.write(line, "\n")
  if line:match("^ok ") then
    if line:match("# SKIP") then skipped = skipped + 1 else passed = passed + 1 end
  elseif line:match("^not ok ") then
    failed = failed + 1
  end
end
if logdir then
  for _, name in ipairs(util.ls(logdir)) do
    local text = util.slurp(logdir .. "/" .. name) or "(unreadable)"
    failed = failed + 1
    io.write("not ok - sanitizer report ", logdir, "/", name, "\n")
    io.write((text:gsub("\n*$", ""):gsub("[^\n]+", "# %0")), "\n")
  end
end
io.write(string.format("# %d s\n%d passed, %d failed, %d skipped\n", os.time() - started,
  passed, failed, skipped))
os.exit((failed == 0 and passed > 0) and 0 or 1)
