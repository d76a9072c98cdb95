-- The command with a perf.data file (issue 25): the profile operand that is
-- a perf.data (known by its magic) makes the image optional in every mode;
-- what needs gmon.out's call counts or histogram is a usage error; merge
-- refuses in one line. The recording is a live `perf record -g` run: no
-- number is asserted here, only what holds of any sampling (statuses, the
-- messages, the same output with and without the image). Pending where
-- perf cannot record.
local H = require "helpers"
local util = H.util

local TMP = util.mktempdir("lgprof-perfcli")
local SRC = [[
static volatile double sink;
__attribute__((noinline)) void leaf(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; sink += s; }
__attribute__((noinline)) void a(void) { leaf(20000); }
__attribute__((noinline)) void b(void) { leaf(10000); }
int main(void) { for (int i = 0; i < 8000; i++) { a(); b(); } return 0; }
]]

-- records perf.data (and base.data, a second run) in TMP; nil and why not
local function record()
  util.spit(TMP .. "/prog.c", SRC)
  local q = util.q
  if not util.exec_ok(("cd %s && gcc -O1 -g -fno-omit-frame-pointer -o prog prog.c"):format(q(TMP))) then
    return nil, "gcc failed"
  end
  for _, name in ipairs({ "perf.data", "base.data" }) do
    if not util.have("perf") or not util.exec_ok(("cd %s && perf record -q -e cpu-clock -F 999 -g -o %s"
        .. " ./prog >/dev/null 2>&1"):format(q(TMP), name)) then
      return nil, "perf record cannot run here"
    end
  end
  return true
end

local function run(argv)
  return H.cmd.lgprof(argv, { cwd = TMP })
end

describe("the command with a perf.data file", function()
  local ok, why = record()
  if not ok then
    pending("no recording: " .. tostring(why))
    return
  end

  it("reads perf.data alone as the profile, in every mode, as with the image", function()
    local modes = {
      {}, { "--format=json" }, { "--format=text" }, { "--format=folded" }, { "--format=svg" },
      { "--format=csv" }, { "--diff", "base.data" }, { "doctor", "--format=json" },
      { "check", "--max-self=leaf=100%" }, { "-b", "-p" }, { "-q" },
    }
    for _, m in ipairs(modes) do
      local alone = table.move(m, 1, #m, 1, {})
      alone[#alone + 1] = "perf.data"
      local with = table.move(m, 1, #m, 1, {})
      with[#with + 1] = "prog"
      with[#with + 1] = "perf.data"
      local s1, o1, e1 = run(alone)
      local s2, o2, e2 = run(with)
      local what = table.concat(alone, " ")
      assert.is_true(s1 == 0 or (m[1] == "doctor" and s1 == 3), what .. ": " .. H.cmd.show(s1, o1, e1))
      assert.is_nil(e1:find("a.out", 1, true), what)
      assert.is_nil(e1:find("gmon", 1, true), what)
      assert.is_true(#o1 > 0, what)
      assert.equal(s1, s2, what)
      -- the image changes nothing but the image's name as doctor's json
      -- gives it (the path given, or the recording's)
      local function unnamed(o) return (o:gsub('"image":"[^"]*"', "")) end
      assert.equal(unnamed(o1), unnamed(o2), what)
      assert.equal(e1, e2, what)
    end
  end)

  it("diffs two perf.data files", function()
    local status, out, err = run({ "--diff", "base.data", "perf.data" })
    assert.equal(0, status, err)
    assert.matches("^base [%d.]+ seconds, new [%d.]+ seconds", out)
    assert.matches("leaf", out)
  end)

  it("makes what needs gmon.out a usage error saying why", function()
    for _, args in ipairs({ { "-C" }, { "--static-arcs" },
        { "--break-cycles" }, { "--static-arcs", "--format=json" }, { "-s" } }) do
      for _, image in ipairs({ false, true }) do
        local argv = table.move(args, 1, #args, 1, {})
        if image then argv[#argv + 1] = "prog" end
        argv[#argv + 1] = "perf.data"
        local status, out, err = run(argv)
        assert.equal(2, status, H.cmd.show(status, out, err))
        assert.equal("", out)
        assert.matches("^lgprof: perf.data records sampled stacks, no calls: "
          .. args[1]:gsub("%p", "%%%0") .. " %(.-%) cannot be used\nTry 'lgprof %-%-help'", err)
      end
    end
  end)

  it("refuses to merge perf.data files, in one line", function()
    for _, argv in ipairs({ { "merge", "-o", "sum", "perf.data" }, { "merge", "-o", "sum", "prog", "perf.data" },
        { "merge", "-o", "sum", "prog", "perf.data", "base.data" } }) do
      local status, out, err = run(argv)
      assert.equal(1, status, H.cmd.show(status, out, err))
      assert.equal("", out)
      assert.equal("lgprof: perf.data: perf.data files are not summed (merge sums gmon.out files)\n", err)
      assert.is_nil(io.open(TMP .. "/sum"))
    end
  end)

  it("reads the event asked for, and says when the recording has none of that name", function()
    local s1, o1 = run({ "-b", "-p", "perf.data" })
    local s2, o2, e2 = run({ "--event=cpu-clock", "-b", "-p", "perf.data" })
    assert.equal(0, s1)
    assert.equal(0, s2, e2)
    assert.equal(o1, o2)
    local status, out, err = run({ "--event=no-such-event", "perf.data" })
    assert.equal(1, status)
    assert.equal("", out)
    assert.equal("lgprof: perf.data: no event 'no-such-event' in the recording\n", err)
  end)

  it("selects samples by thread and by the leaf's binary (--tid, --dso)", function()
    local p = assert(require("lgprof").open(nil, TMP .. "/perf.data"))
    local tids = {}
    for t in p:threads() do tids[#tids + 1] = t.tid end
    p:close()
    assert.equal(1, #tids) -- one thread: it holds every sample
    local _, all = run({ "--format=folded", "perf.data" })
    local status, out, err = run({ "--format=folded", "--tid=" .. tids[1], "perf.data" })
    assert.equal(0, status, err)
    assert.equal(all, out)
    status, out, err = run({ "--format=folded", "--tid=" .. tids[1], "--tid=" .. tids[1] + 1, "perf.data" })
    assert.equal(0, status, err)
    assert.equal(all, out)
    status, out = run({ "--format=folded", "--tid=" .. tids[1] + 1, "perf.data" })
    assert.equal(0, status)
    assert.equal("", out)
    -- the leaves in the program itself: its functions only
    status, out, err = run({ "--format=folded", "--dso=" .. TMP .. "/prog", "perf.data" })
    assert.equal(0, status, err)
    local n = 0
    for leaf in out:gmatch("([^;\n ]+) %d+\n") do
      assert.is_truthy(({ leaf = true, a = true, b = true, main = true })[leaf], leaf)
      n = n + 1
    end
    assert.is_true(n > 0)
  end)

  it("makes perf.data's options a usage error with gmon.out", function()
    for _, o in ipairs({ "--event=cpu-clock", "--symfs=/", "--buildid-dir=/", "--no-inline", "--pid=1",
        "--tid=1", "--comm=prog", "--dso=prog" }) do
      local status, out, err = run({ o, "prog", "gmon.out" })
      assert.equal(2, status, o)
      assert.equal("", out)
      assert.matches("^lgprof: " .. o:match("^%-%-[%a-]+"):gsub("%p", "%%%0")
        .. " needs a perf.data profile", err)
    end
    local p, msg = require("lgprof").open("prog", TMP .. "/gmon.out", { event = "cpu-clock" })
    assert.is_nil(p)
    assert.matches("option 'event' is for a perf.data file", msg)
  end)

  it("writes no progress when stderr is not a terminal", function()
    local status, _, err = run({ "-b", "-p", "perf.data" })
    assert.equal(0, status)
    assert.equal("", err)
  end)
end)
