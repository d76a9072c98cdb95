-- Runs the busted suite as one busted process per spec file, JOBS at a time
-- (make test: JOBS = the number of processors), and prints each file's TAP
-- output whole, as the file finishes, between the lines "# FILE" and
-- "#time MS FILE" (its duration); pipe it into spec/tap_summary.lua.
--
--   lua5.4 spec/parallel.lua JOBS STATEDIR BUSTED...
--
-- BUSTED... is the busted command line (e.g. lua5.4 /usr/bin/busted -o TAP).
-- A file whose busted exits non-zero without a failing test (it could not
-- load, or crashed) is reported as one failing test of its own.
-- STATEDIR keeps each file's last duration (times.txt): the next run starts
-- the slowest files first, so the jobs end together. A file with no time
-- there takes its cost from spec/costs.txt (seconds measured from a fresh
-- clone, checked in), so that a first run on a fresh clone is ordered too:
-- unordered, a file of 3 minutes could start last and run alone. A file in
-- neither goes first (it may be slow). STATEDIR/cpu.txt gets each file's
-- CPU time (user + system of its busted process and everything it ran),
-- which, unlike durations, does not depend on what else the machine runs:
-- "CPU WALL FILE" in seconds. Files run in separate processes, so the specs
-- share nothing but the fixtures' and gprof's caches (built under flock,
-- written by rename) and temporary folders (mktemp).
local jobs, statedir = tonumber(arg[1]), arg[2]
local busted = table.move(arg, 3, #arg, 1, {})
assert(jobs and jobs >= 1 and statedir and #busted > 0,
       "usage: lua5.4 spec/parallel.lua JOBS STATEDIR BUSTED...")

package.path = ((arg[0] or ""):match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local util = require "helpers.util"
local q = util.q

local files = {}
for f in util.read_cmd("find spec -name '*_spec.lua' | LC_ALL=C sort"):gmatch("[^\n]+") do
  files[#files + 1] = f
end
assert(#files > 0, "no spec file under spec/")

-- each file's cost: the last run's duration, else spec/costs.txt's; a file in
-- neither goes first (it may be slow)
local last = {}
local times_path = statedir .. "/times.txt"
local costs_path = "spec/costs.txt" -- (where the spec files are: the working directory's spec/)
for _, path in ipairs { costs_path, times_path } do -- (the last run's times win)
  local tf = io.open(path)
  if tf then
    for line in tf:lines() do
      local secs, f = line:match("^(%S+) (.+)$")
      if secs and tonumber(secs) then last[f] = tonumber(secs) end
    end
    tf:close()
  end
end
local order = table.move(files, 1, #files, 1, {})
table.sort(order, function(a, b)
  local ta, tb = last[a] or math.huge, last[b] or math.huge
  if ta ~= tb then return ta > tb end
  return a < b
end)

assert(os.execute("mkdir -p " .. q(statedir .. "/tap")))
-- One job: busted on one file into its own log, then the log printed under
-- a lock so that two files' outputs never interleave, then the duration and
-- the CPU time (the shell's `times`: its children's user and system time).
local job = [[
f=$1; state=$2; out=$state/tap/$(printf %s "$f" | tr / _); shift 2
start=$(date +%s%N)
"$@" "$f" > "$out" 2>&1; rc=$?
end=$(date +%s%N)
times > "$out.cpu" # (in this shell: a subshell's children are not busted)
{
  flock 9
  printf '# %s\n' "$f"
  cat "$out"
  if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$out"; then
    printf 'not ok - %s: busted exited with status %d and no failing test\n' "$f" $rc
  fi
  printf '#time %s %s\n' $(( (end - start) / 1000000 )) "$f"
  printf '#cpu %s %s\n' "$(sed -n 2p "$out.cpu")" "$f"
} 9>>"$state/lock"
]]
local list = statedir .. "/files.txt"
util.spit(list, table.concat(order, "\n") .. "\n")
local cmd = ("xargs -d '\\n' -P %d -I{} sh -c %s job {} %s %s < %s"):format(
  jobs, q(job), q(statedir), util.qwords(busted), q(list))

-- "0m1.250000s" (or "1m2.5s"): seconds
local function seconds(t)
  local m, s = t:match("^(%d+)m([%d.]+)s$")
  return m and tonumber(m) * 60 + tonumber(s) or 0
end

local durations, cpu, wall = {}, {}, {}
local h = assert(io.popen(cmd))
for line in h:lines() do
  local ms, f = line:match("^#time (%d+) (.+)$")
  local user, sys, cf = line:match("^#cpu (%S+) (%S+) (.+)$")
  if ms then
    wall[f] = tonumber(ms) / 1000
    durations[#durations + 1] = ("%.3f %s"):format(wall[f], f)
  end
  if user then
    cpu[#cpu + 1] = ("%.2f %.3f %s"):format(seconds(user) + seconds(sys), wall[cf] or 0, cf)
  else
    io.write(line, "\n") -- (the #cpu lines are for cpu.txt only)
    io.flush()
  end
end
h:close()
-- (not fatal: the times only order the next run)
pcall(util.spit, times_path, table.concat(durations, "\n") .. "\n")
pcall(util.spit, statedir .. "/cpu.txt", table.concat(cpu, "\n") .. "\n")
