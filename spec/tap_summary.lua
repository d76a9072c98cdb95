-- Reads busted's TAP output on stdin, echoes it, and ends with the line
-- "N passed, N failed, N skipped". Skips (pending tests) are not passes.
-- Exits non-zero when a test failed or when no test ran at all.
local passed, failed, skipped = 0, 0, 0
for line in io.lines() do
  io.write(line, "\n")
  if line:match("^ok ") then
    if line:match("# SKIP") then skipped = skipped + 1 else passed = passed + 1 end
  elseif line:match("^not ok ") then
    failed = failed + 1
  end
end
io.write(string.format("%d passed, %d failed, %d skipped\n", passed, failed, skipped))
os.exit((failed == 0 and passed > 0) and 0 or 1)
