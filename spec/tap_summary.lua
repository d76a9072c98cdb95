-- Reads the suite's TAP on stdin (busted -o TAP, one process or several
-- through spec/parallel.lua) and prints one line per spec file, its counts
-- and seconds, then every failure in full (the "not ok" line and busted's
-- diagnostics); it ends with the lines "# N s" (how long the run took) and
-- "N passed, N failed, N skipped". Skips (pending tests) are not passes.
-- Exits non-zero when a test failed or when no test ran at all.
--
-- lua5.4 spec/tap_summary.lua [--verbose] [--since SECONDS] [--sanitizer-logs DIR]
--   --verbose       echo the whole TAP as well (make test VERBOSE=1)
--   --since SECONDS when the run began (seconds since the epoch; make test:
--                   when make started, so its build counts too); without
--                   it, "# N s" counts from this program's start.
--   --sanitizer-logs DIR (make test-asan): each file in DIR is a report that
--                   AddressSanitizer or UBSan wrote (log_path) from some
--                   process of the run; each is printed and counted as a failure.
--
-- Where a file begins: spec/parallel.lua's "# FILE" line, or the file named
-- by busted's "# FILE @ LINE: test" line before each test. Where it ends:
-- parallel.lua's "#time MS FILE" line (its duration), or the next file
-- (the duration then measured here).
package.path = ((arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local util = require "helpers.util"

local verbose, logdir, since = false, nil, nil
do
  local i = 1
  while arg[i] do
    if arg[i] == "--verbose" then
      verbose = true
    elseif arg[i] == "--since" and tonumber(arg[i + 1]) then
      since = tonumber(arg[i + 1])
      i = i + 1
    elseif arg[i] == "--sanitizer-logs" and arg[i + 1] then
      logdir = arg[i + 1]
      i = i + 1
    else
      io.stderr:write("usage: lua5.4 spec/tap_summary.lua [--verbose] [--since SECONDS]"
        .. " [--sanitizer-logs DIR]\n")
      os.exit(2)
    end
    i = i + 1
  end
end

-- seconds since boot, to the hundredth where /proc/uptime says so
local function now()
  local f = io.open("/proc/uptime")
  local up = f and tonumber(f:read("l"):match("^%S+"))
  if f then f:close() end
  return up or os.time()
end

local started = now()
local passed, failed, skipped = 0, 0, 0
local file      -- the file being read: name, counts, start, failures, other lines
local failure   -- the failure being read: its lines

local function open_file(name)
  file = { name = name, passed = 0, failed = 0, skipped = 0, start = now(), failures = {}, other = {} }
end

-- prints the file's line and its failures in full (seconds: given, or measured)
local function close_file(seconds)
  if not file then return end
  local f = file
  file, failure = nil, nil
  io.write(("%s: %d passed, %d failed, %d skipped, %.1f s\n"):format(f.name, f.passed, f.failed,
    f.skipped, seconds or now() - f.start))
  if not verbose and f.failed > 0 then
    for _, lines in ipairs(f.failures) do io.write(table.concat(lines, "\n"), "\n") end
    -- what else the file printed (an error loading it, a crash) may say why
    for _, line in ipairs(f.other) do io.write(line, "\n") end
  end
  io.flush() -- (each file as it ends, also through a pipe: make test | tee)
end

local unnamed = "(tests before any file)"
local stray = {} -- lines outside any file, shown if nothing ran

for line in io.lines() do
  if verbose then io.write(line, "\n") end
  local header = line:match("^# (%S+%.lua)$")
  local test_file = line:match("^# (%S+%.lua) @ %d+: ")
  local ms, timed = line:match("^#time (%d+) (.+)$")
  if header then
    close_file()
    open_file(header)
  elseif ms then
    if file and file.name == timed then close_file(tonumber(ms) / 1000) end
  elseif test_file then
    if not file or file.name ~= test_file then
      close_file()
      open_file(test_file)
    end
    failure = nil
  elseif line:match("^ok ") or line:match("^not ok ") then
    if not file then open_file(unnamed) end
    failure = nil
    if line:match("^not ok ") then
      failed, file.failed = failed + 1, file.failed + 1
      failure = { line }
      file.failures[#file.failures + 1] = failure
    elseif line:match("# SKIP") then
      skipped, file.skipped = skipped + 1, file.skipped + 1
    else
      passed, file.passed = passed + 1, file.passed + 1
    end
  elseif line:match("^#") or line:match("^%d+%.%.%d+$") then
    if failure then failure[#failure + 1] = line end
  elseif file then
    file.other[#file.other + 1] = line
  else
    stray[#stray + 1] = line
  end
end
close_file()
if logdir then
  for _, name in ipairs(util.ls(logdir)) do
    local text = util.slurp(logdir .. "/" .. name) or "(unreadable)"
    failed = failed + 1
    io.write("not ok - sanitizer report ", logdir, "/", name, "\n")
    io.write((text:gsub("\n*$", ""):gsub("[^\n]+", "# %0")), "\n")
  end
end
if not verbose and passed + failed + skipped == 0 then
  for _, line in ipairs(stray) do io.write(line, "\n") end
end
local took = since and os.time() - since or math.floor(now() - started + 0.5)
io.write(string.format("# %d s\n%d passed, %d failed, %d skipped\n", took, passed, failed, skipped))
os.exit((failed == 0 and passed > 0) and 0 or 1)
