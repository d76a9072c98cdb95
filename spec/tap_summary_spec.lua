-- make test's output (spec/parallel.lua | spec/tap_summary.lua): one line
-- per spec file with its counts and seconds, every failure in full, the
-- whole TAP only with --verbose (VERBOSE=1), and last the line
-- "N passed, N failed, N skipped" alone. The inputs are written here as
-- busted -o TAP writes them, so every expected line is known.
local H = require "helpers"
local util, cmd = H.util, H.cmd

local q = util.q
local SUMMARY = cmd.ROOT .. "/spec/tap_summary.lua"
local PARALLEL = cmd.ROOT .. "/spec/parallel.lua"

-- Runs tap_summary.lua (extra: shell words) on the text; returns its status
-- and its lines.
local function summarise(dir, text, extra)
  cmd.write(dir .. "/in.tap", text)
  local status, out, err = cmd.shell("lua5.4 " .. q(SUMMARY) .. " " .. (extra or "") .. " < in.tap",
    { cwd = dir })
  assert.are.equal("", err)
  return status, util.lines(out)
end

-- Two files as spec/parallel.lua prints them: a.lua passes twice and skips
-- once, b.lua fails once (with busted's diagnostics) and then crashes.
local PARALLEL_TAP = table.concat({
  "# spec/a_spec.lua",
  "# spec/a_spec.lua @ 3: a one",
  "ok 1 - a one",
  "# spec/a_spec.lua @ 5: a two",
  "ok 2 - a two",
  "# spec/a_spec.lua @ 7: a later",
  "ok 3 - a later # SKIP pending",
  "1..3",
  "#time 1300 spec/a_spec.lua",
  "# spec/b_spec.lua",
  "# spec/b_spec.lua @ 4: b one",
  "not ok 1 - b one",
  "# spec/b_spec.lua @ 4",
  "# Failure message: spec/b_spec.lua:6: Expected objects to be equal.",
  "# Passed in:",
  "# (number) 2",
  "# spec/b_spec.lua @ 9: b two",
  "ok 2 - b two",
  "1..2",
  "lua5.4: something went wrong",
  "not ok - spec/b_spec.lua: busted exited with status 1 and no failing test",
  "#time 30500 spec/b_spec.lua",
  "",
}, "\n")

describe("make test's summary (spec/tap_summary.lua)", function()
  local tmpdir = util.block_tmpdir("lgprof-tap")

  it("prints one line per file and the failures in full, the counts last", function()
    local status, lines = summarise(tmpdir(), PARALLEL_TAP)
    assert.are.equal(1, status)
    assert.matches("^# %d+ s$", lines[#lines - 1])
    lines[#lines - 1] = "# N s"
    assert.are.same({
      "spec/a_spec.lua: 2 passed, 0 failed, 1 skipped, 1.3 s",
      "spec/b_spec.lua: 1 passed, 2 failed, 0 skipped, 30.5 s",
      "not ok 1 - b one",
      "# spec/b_spec.lua @ 4",
      "# Failure message: spec/b_spec.lua:6: Expected objects to be equal.",
      "# Passed in:",
      "# (number) 2",
      "not ok - spec/b_spec.lua: busted exited with status 1 and no failing test",
      "lua5.4: something went wrong",
      "# N s",
      "3 passed, 2 failed, 1 skipped",
    }, lines)
  end)

  it("with --verbose, echoes the whole TAP as well", function()
    local status, lines = summarise(tmpdir(), PARALLEL_TAP, "--verbose")
    assert.are.equal(1, status)
    assert.are.equal("3 passed, 2 failed, 1 skipped", lines[#lines])
    local files, echoed = {}, {}
    for i = 1, #lines - 2 do
      local l = lines[i]
      if l:match("^spec/%S+: %d+ passed") then files[#files + 1] = l else echoed[#echoed + 1] = l end
    end
    assert.are.same(util.lines(PARALLEL_TAP), echoed) -- each line once, failures not repeated
    assert.are.same({ "spec/a_spec.lua: 2 passed, 0 failed, 1 skipped, 1.3 s",
                      "spec/b_spec.lua: 1 passed, 2 failed, 0 skipped, 30.5 s" }, files)
  end)

  it("groups one busted process's output (BUSTED_ARGS) by the file each test names", function()
    local status, lines = summarise(tmpdir(), table.concat({
      "# spec/c_spec.lua @ 1: c",
      "ok 1 - c",
      "# spec/d_spec.lua @ 2: d",
      "ok 2 - d",
      "# spec/d_spec.lua @ 3: e",
      "ok 3 - e",
      "1..3",
      "",
    }, "\n"))
    assert.are.equal(0, status)
    assert.are.equal(4, #lines, table.concat(lines, "\n"))
    assert.matches("^spec/c_spec%.lua: 1 passed, 0 failed, 0 skipped, %d+%.%d s$", lines[1])
    assert.matches("^spec/d_spec%.lua: 2 passed, 0 failed, 0 skipped, %d+%.%d s$", lines[2])
    assert.are.equal("3 passed, 0 failed, 0 skipped", lines[4])
  end)

  it("fails when no test ran, and shows what was printed instead", function()
    local status, lines = summarise(tmpdir(), "lua5.4: cannot open /nowhere/busted\n")
    assert.are.equal(1, status)
    assert.are.equal("lua5.4: cannot open /nowhere/busted", lines[1])
    assert.are.equal("0 passed, 0 failed, 0 skipped", lines[#lines])
  end)

  it("counts each sanitizer report as a failure, printed in full", function()
    local logs = util.mkdir(tmpdir() .. "/logs")
    cmd.write(logs .. "/asan.123", "==123==ERROR: AddressSanitizer: heap-use-after-free\n")
    local status, lines = summarise(tmpdir(), "# spec/a_spec.lua @ 1: a\nok 1 - a\n",
      "--sanitizer-logs " .. q(logs))
    assert.are.equal(1, status)
    assert.are.same({ "not ok - sanitizer report " .. logs .. "/asan.123",
                      "# ==123==ERROR: AddressSanitizer: heap-use-after-free" }, { lines[2], lines[3] })
    assert.are.equal("1 passed, 1 failed, 0 skipped", lines[#lines])
  end)

  it("takes spec/parallel.lua's output: one line per file, whatever order the files end in", function()
    local dir = util.mkdir(tmpdir() .. "/a suite")
    util.mkdir(dir .. "/spec")
    for _, name in ipairs({ "one", "two", "three" }) do cmd.write(dir .. "/spec/" .. name .. "_spec.lua", "") end
    -- a stand-in for busted: two passing tests per file, a failure in two_spec
    local fake = cmd.write(dir .. "/fake busted.sh", [[
f=$3
echo "# $f @ 1: first"; echo "ok 1 - first"
echo "# $f @ 2: second"
case $f in *two*) printf 'not ok 2 - second\n# Failure message: two broke\n'; exit 1;; esac
echo "ok 2 - second"; echo "1..2"
]])
    local status, out, err = cmd.shell("lua5.4 " .. q(PARALLEL) .. " 2 state sh " .. q(fake) .. " -o TAP | lua5.4 "
      .. q(SUMMARY), { cwd = dir })
    assert.are.equal(1, status, cmd.show(status, out, err))
    local lines = util.lines(out)
    local files = {}
    for i = 1, 5 do files[i] = lines[i]:gsub(", %d+%.%d s$", "") end
    table.sort(files)
    assert.are.same({
      "# Failure message: two broke",
      "not ok 2 - second",
      "spec/one_spec.lua: 2 passed, 0 failed, 0 skipped",
      "spec/three_spec.lua: 2 passed, 0 failed, 0 skipped",
      "spec/two_spec.lua: 1 passed, 1 failed, 0 skipped",
    }, files)
    assert.are.equal(7, #lines, out)
    assert.are.equal("5 passed, 1 failed, 0 skipped", lines[7])
  end)

  it("with --since, counts the seconds from then (make test: from make's start)", function()
    -- 100 s before now: at least 100 s (the clock's second may turn over), and
    -- less than 200 unless this machine stalls for 100 s
    local status, lines = summarise(tmpdir(), "# spec/a_spec.lua @ 1: a\nok 1 - a\n",
      "--since " .. (os.time() - 100))
    assert.are.equal(0, status)
    local took = tonumber(lines[#lines - 1]:match("^# (%d+) s$"))
    assert.is_true(took ~= nil and took >= 100 and took < 200, lines[#lines - 1])
    assert.are.equal("1 passed, 0 failed, 0 skipped", lines[#lines])
  end)

  it("starts the costliest files first: the last run's times, else spec/costs.txt", function()
    local dir = util.mkdir(tmpdir() .. "/costs")
    util.mkdir(dir .. "/spec")
    for _, name in ipairs({ "a", "b", "c", "d" }) do cmd.write(dir .. "/spec/" .. name .. "_spec.lua", "") end
    -- d has no cost anywhere: it goes first; then by cost, b (3), c (2), a (1)
    cmd.write(dir .. "/spec/costs.txt", "1 spec/a_spec.lua\n3 spec/b_spec.lua\n2.5 spec/c_spec.lua\n")
    local fake = cmd.write(dir .. "/fake busted.sh", [[
f=$3
lua5.4 -e "local x = 0 for i = 1, 2e7 do x = x + i end"
echo "# $f @ 1: first"; echo "ok 1 - first"; echo "1..1"
]])
    local function run()
      local status, out, err = cmd.shell("lua5.4 " .. q(PARALLEL) .. " 1 state sh " .. q(fake) .. " -o TAP",
        { cwd = dir })
      assert.are.equal(0, status, cmd.show(status, out, err))
      local order = {}
      for f in out:gmatch("\n?# (spec/%S+)\n") do order[#order + 1] = f end
      return order
    end
    assert.are.same({ "spec/d_spec.lua", "spec/b_spec.lua", "spec/c_spec.lua", "spec/a_spec.lua" }, run())
    -- each file's CPU time (the loop above: more than nothing) and duration
    local cpu = util.lines(util.slurp(dir .. "/state/cpu.txt"))
    assert.are.equal(4, #cpu)
    for _, line in ipairs(cpu) do
      local c, w, f = line:match("^(%S+) (%S+) (spec/%a_spec%.lua)$")
      assert.is_truthy(f, line)
      assert.is_true(tonumber(c) > 0 and tonumber(w) > 0, line)
    end
    -- the last run's times win over the table: now c was the slowest
    cmd.write(dir .. "/state/times.txt", "0.1 spec/a_spec.lua\n0.2 spec/b_spec.lua\n9 spec/c_spec.lua\n"
      .. "0.3 spec/d_spec.lua\n")
    assert.are.same({ "spec/c_spec.lua", "spec/d_spec.lua", "spec/b_spec.lua", "spec/a_spec.lua" }, run())
  end)
end)
