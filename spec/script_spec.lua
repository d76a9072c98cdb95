-- lgprof --script FILE.lua: a report script gets the analysed profile and
-- the words after "--"; the same script runs standalone under lua5.4 through
-- lgprof.script(...). Exit statuses: 0, 1 bad input (incl. the script), 2
-- usage, 3 a check failed.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, prof = H.fixtures, H.util, H.cmd, H.profile

-- Prints what it got: the profile's numbers and its arguments, one per line.
local REPORT = [[
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
print("total", ("%.17g"):format(profile.total_time))
print("files", #profile:file_info())
print("args", #args, table.concat(args, "|"))
for fn in profile:flat() do
  if fn.calls > 0 or fn.flat_self > 0 then
    print("fn", fn.name, ("%.17g"):format(fn.flat_self), fn.calls)
  end
end
]]

-- max_self of ^c$ against the share given as its first argument.
local GATE = [[
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
-- (the estimate against the limit: confidence 0; noise_spec tests the confidence)
local ok = lgprof.check.max_self(profile, "^c$", tonumber(args[1]), { confidence = 0 })
print(ok and "passed" or "failed")
lgprof.check.exit()
]]

local function expected_report(profile, args)
  local lines = {
    "total\t" .. ("%.17g"):format(profile.total_time),
    "files\t" .. #profile:file_info(),
    "args\t" .. #args .. "\t" .. table.concat(args, "|"),
  }
  for fn in profile:flat() do
    if fn.calls > 0 or fn.flat_self > 0 then
      lines[#lines + 1] = ("fn\t%s\t%.17g\t%d"):format(fn.name, fn.flat_self, fn.calls)
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

describe("lgprof --script", function()
  local build, tmp, report, gate
  setup(function()
    -- (thresholds 0.001 around c's share need c sampled, and not alone)
    build = assert(fx.build("classic", "O0g-nopie"))
    tmp = util.mktempdir("lgprof-script")
    report = cmd.write(tmp .. "/report.lua", REPORT)
    gate = cmd.write(tmp .. "/gate.lua", GATE)
  end)
  teardown(function() util.rmtree(tmp) end)

  -- lgprof --script with a script of this text (written to tmp/name) on run 1
  local function run_script(name, text)
    return cmd.lgprof({ "--script", cmd.write(tmp .. "/" .. name, text), build.exe, build.gmon[1] })
  end

  it("gives the script the profile and the words after --", function()
    local status, out, err = cmd.lgprof({ "--script", report, build.exe, build.gmon[1],
      "--", "one", "two words", "-x" })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("", err)
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    assert.equal(expected_report(p, { "one", "two words", "-x" }), out)
  end)

  it("sums several profile files, as gprof does", function()
    local status, out, err = cmd.lgprof({ "--script=" .. report, build.exe, table.unpack(build.gmon) })
    assert.equal(0, status, cmd.show(status, out, err))
    local p <close> = assert(lgprof.open(build.exe, build.gmon))
    assert.equal(expected_report(p, {}), out)
    assert.matches("\nfiles\t3\n", out)
  end)

  it("applies gprof options to lgprof.open (-k deletes an arc)", function()
    local status, out, err = cmd.lgprof({ "--script", report, "-k", "a/c", build.exe, build.gmon[1] })
    assert.equal(0, status, cmd.show(status, out, err))
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1], { exclude_arcs = { "a/c" } }))
    local plain <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    assert.equal(expected_report(p, {}), out)
    assert.not_equal(expected_report(plain, {}), out) -- the option did change something
  end)

  it("reads a.out and gmon.out by default", function()
    local dir = util.mkdir(tmp .. "/defaults")
    util.spit(dir .. "/a.out", util.slurp(build.exe))
    util.spit(dir .. "/gmon.out", util.slurp(build.gmon[2]))
    local status, out, err = cmd.lgprof({ "--script", report }, { cwd = dir })
    assert.equal(0, status, cmd.show(status, out, err))
    local p <close> = assert(lgprof.open(build.exe, build.gmon[2]))
    assert.equal(expected_report(p, {}), out)
  end)

  it("args holds the words after the first --, without it (a later -- is an argument)", function()
    local script = cmd.write(tmp .. "/args.lua", [[
local _, args = require("lgprof").script(...)
print(#args, table.concat(args, "|"))
]])
    for _, run in ipairs { function(a) return cmd.lgprof({ "--script", script, table.unpack(a) }) end,
                           function(a) return cmd.lua({ script, table.unpack(a) }) end } do
      cmd.expect({ status = 0, out = "3\ta|--|b\n", err = "" },
        run { build.exe, build.gmon[1], "--", "a", "--", "b" })
      cmd.expect({ status = 0, out = "0\t\n", err = "" }, run { build.exe, build.gmon[1], "--" })
      cmd.expect({ status = 0, out = "0\t\n", err = "" }, run { build.exe, build.gmon[1] })
    end
  end)

  -- Misuse of each public function, one call a line: the error must name the
  -- script's line (not a line of lgprof's modules nor none).
  local MISUSE = {
    [[lgprof.check.max_self(profile, "^c$", "much")]],
    [[lgprof.check.max_total(profile, "bu(rn", 0.5)]],
    [[lgprof.check.max_calls(profile, "^c$", -1)]],
    [[lgprof.check.max_self(42, "^c$", 1)]],
    [[lgprof.check.max_growth({}, ".", 0.1)]],
    [[lgprof.check.max_growth(lgprof.diff(profile, profile), ".", "x")]],
    [[lgprof.diff(profile, 42)]],
    [[lgprof.spread(42)]],
    [[lgprof.spread({ profile, 42 })]],
    [[lgprof.merge(profile.image, profile.files, TMP .. "/merged", { bogus = true })]],
    [[lgprof.merge(profile.image, profile.files, 42)]],
    [[lgprof.report.json(profile, io.stdout, { bogus = true })]],
    [[lgprof.report.folded(profile, io.stdout, { max_depth = 0 })]],
    [[lgprof.report.csv(42, io.stdout)]],
    [[lgprof.report.dot(profile, io.stdout, { node_threshold = "lots" })]],
    [[require("lgprof.format.dot").write(profile, io.stdout, { bogus = 1 })]],
    [[require("lgprof.format.dot").write(profile, 42)]],
    [[require("lgprof.format.dot").graph(profile, { skew = 0 })]],
    [[lgprof.match("x", "bu(rn")]],
    [[lgprof.open(profile.image, profile.files, { bogus = true })]],
    [[lgprof.open(profile.image, profile.files, { time = 3 })]],
    [[lgprof.open(42)]],
    [[lgprof.script(42)]],
    [[profile:filter { node_fraction = "lots" }]],
    [[profile:search("bu(rn")]],
    [[profile:flat { bogus = true }]],
    [[return profile:get(1).self_time]],
    [[return profile.fucntions]],
  }

  it("a library error names the script's line (--script and standalone)", function()
    local lines = { 'local lgprof = require "lgprof"', "local profile = lgprof.script(...)",
      "local function try(f) local ok, err = pcall(f) print(ok and 'no error' or err) end",
      ("local TMP = %q"):format(tmp) } -- (the spec's folder, removed after it)
    local first = #lines + 1
    for _, call in ipairs(MISUSE) do lines[#lines + 1] = "try(function() " .. call .. " end)" end
    local script = cmd.write(tmp .. "/misuse.lua", table.concat(lines, "\n") .. "\n")
    for _, run in ipairs { function(a) return cmd.lgprof({ "--script", script, table.unpack(a) }) end,
                           function(a) return cmd.lua({ script, table.unpack(a) }) end } do
      local status, out, err = run { build.exe, build.gmon[1] }
      assert.equal(0, status, cmd.show(status, out, err))
      local i = 0
      for line in out:gmatch("[^\n]+") do
        i = i + 1
        local want = ("%s:%d: "):format(script, first + i - 1)
        assert.are.equal(want, line:sub(1, #want), MISUSE[i] .. " -> " .. line)
      end
      assert.are.equal(#MISUSE, i, out)
    end
  end)

  it("runs the same script standalone under lua5.4 with the same output", function()
    local args = { build.exe, build.gmon[1], build.gmon[3], "--", "a", "b" }
    local s1, o1, e1 = cmd.lgprof({ "--script", report, table.unpack(args) })
    local s2, o2, e2 = cmd.lua({ report, table.unpack(args) })
    assert.equal(0, s1, cmd.show(s1, o1, e1))
    assert.equal(0, s2, cmd.show(s2, o2, e2))
    assert.equal(o1, o2)
    local p <close> = assert(lgprof.open(build.exe, { build.gmon[1], build.gmon[3] }))
    assert.equal(expected_report(p, { "a", "b" }), o2)
  end)

  it("examples/hotspots.lua: the same output both ways, and its gate", function()
    local example = fx.root .. "/examples/hotspots.lua"
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local want = { ("%6s %9s %9s %10s  %s"):format("self%", "self s", "total s", "calls", "function") }
    local top
    for fn in p:flat() do
      if #want < 3 and (fn.flat_self > 0 or fn.calls > 0) then
        top = top or fn
        want[#want + 1] = ("%6.2f %9.2f %9.2f %10d  %s"):format(fn.flat_percent, fn.flat_self,
          fn.total, fn.calls + fn.self_calls, fn.name)
      end
    end
    want = table.concat(want, "\n") .. "\n"
    local share = top.flat_percent / 100
    -- the functions the lower gate fails (as check.max_self compares): the
    -- top one, and any other whose sampled share is as close to it as this
    local lower = tonumber(("%.6f"):format(share - 0.001))
    local breaches = 0
    for fn in p:symbols() do
      if fn.flat_percent / 100 > lower then breaches = breaches + 1 end
    end
    for _, run in ipairs({ function(a) return cmd.lgprof({ "--script", example, table.unpack(a) }) end,
                           function(a) return cmd.lua({ example, table.unpack(a) }) end }) do
      local status, out, err = run({ build.exe, build.gmon[1], "--", "2" })
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal(want, out)
      -- (the estimate against the limit: confidence 0)
      status, out, err = run({ build.exe, build.gmon[1], "--", "2", ("%.6f"):format(share + 0.001), "0" })
      assert.equal(0, status, cmd.show(status, out, err))
      status, out, err = run({ build.exe, build.gmon[1], "--", "2", ("%.6f"):format(share - 0.001), "0" })
      assert.equal(3, status, cmd.show(status, out, err))
      assert.equal(want, out)
      assert.equal(breaches, select(2, err:gsub("\n", "")))
    end
  end)

  it("lgprof.script returns a Profile it is given, with its arguments", function()
    local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local args = { "x" }
    local got, got_args = lgprof.script(p, args)
    assert.equal(p, got)
    assert.equal(args, got_args)
    local _, no_args = lgprof.script(p)
    assert.same({}, no_args)
    assert.has_error(function() lgprof.script(42) end)
  end)

  describe("exit statuses", function()
    local share -- c's share of the flat profile
    setup(function()
      local p <close> = assert(lgprof.open(build.exe, build.gmon[1]))
      share = prof.fn(p, "c").flat_percent / 100
      assert(share > 0.1 and share < 0.99, "unexpected fixture profile")
    end)

    it("0 when the checks pass, 3 when one fails (--script and standalone)", function()
      local above, below = ("%.6f"):format(share + 0.001), ("%.6f"):format(share - 0.001)
      for _, run in ipairs({ function(a) return cmd.lgprof({ "--script", gate, table.unpack(a) }) end,
                             function(a) return cmd.lua({ gate, table.unpack(a) }) end }) do
        cmd.expect({ status = 0, out = "passed\n", err = "" }, run({ build.exe, build.gmon[1], "--", above }))
        cmd.expect({ status = 3, out = "failed\n",
                     err_match = "^lgprof: check failed: max_self c: [%d.]+%% > [%d.]+%%\n$" },
          run({ build.exe, build.gmon[1], "--", below }))
      end
    end)

    it("--script exits 3 after the script returns, without check.exit()", function()
      cmd.expect({ status = 3, out = "returned\n", err_match = "^lgprof: check failed: max_calls c: %d+ > 0\n$" },
        run_script("noexit.lua", [[
local profile = ...
require("lgprof").check.max_calls(profile, "^c$", 0)
print("returned")
]]))
    end)

    it("1: a missing profile file (command and standalone)", function()
      local missing = tmp .. "/no-such-gmon"
      local msg = cmd.one_line_error(1, cmd.lgprof({ "--script", report, build.exe, missing }))
      assert.equal(missing .. ": ", msg:sub(1, #missing + 2))
      msg = cmd.one_line_error(1, cmd.lua({ report, build.exe, missing }))
      assert.equal(missing .. ": ", msg:sub(1, #missing + 2))
    end)

    it("1: a missing script", function()
      local missing = tmp .. "/no-such-script.lua"
      local msg = cmd.one_line_error(1, cmd.lgprof({ "--script", missing, build.exe, build.gmon[1] }))
      assert.equal(missing .. ": ", msg:sub(1, #missing + 2))
    end)

    it("1: a script with a syntax error, or one that raises an error", function()
      local msg = cmd.one_line_error(1, run_script("syntax.lua", "local x = = 1\n"))
      local syntax = tmp .. "/syntax.lua"
      assert.equal(syntax .. ":1: ", msg:sub(1, #syntax + 4))
      msg = cmd.one_line_error(1, run_script("boom.lua", "local profile = ...\n\nerror('boom: ' .. profile.hz)\n"))
      assert.equal(tmp .. "/boom.lua:3: boom: 100", msg)
      -- an error value that is not a string, raised without position
      msg = cmd.one_line_error(1, run_script("tab.lua",
        "error(setmetatable({}, { __tostring = function() return 'custom' end }))\n"))
      assert.equal(tmp .. "/tab.lua: custom", msg)
    end)

    it("1: an executable, binary bytes or UTF-16 given as the script: 'not a Lua script'", function()
      local utf16 = ("p\0r\0i\0n\0t\0(\0001\0)\0\n\0")
      for _, path in ipairs({ build.exe, cmd.write(tmp .. "/bytes.lua", "\127\1\2\3 local x = 1\n"),
                              cmd.write(tmp .. "/utf16.lua", "\255\254" .. utf16) }) do
        cmd.expect({ status = 1, out = "", err = "lgprof: " .. path .. ": not a Lua script\n" },
          cmd.lgprof({ "--script", path, build.exe, build.gmon[1] }))
      end
      -- a directory: what reading it says
      local dir = util.mkdir(tmp .. "/dir.lua")
      cmd.expect({ status = 1, out = "", err = "lgprof: " .. dir .. ": Is a directory\n" },
        cmd.lgprof({ "--script", dir, build.exe, build.gmon[1] }))
      -- and as check's thresholds file
      cmd.expect({ status = 1, out = "", err = "lgprof: " .. build.exe .. ": not a Lua script\n" },
        cmd.lgprof({ "check", "--thresholds=" .. build.exe, build.exe, build.gmon[1] }))
      -- a precompiled chunk as the thresholds file (text only): Lua's message, naming the file
      local bin = cmd.write(tmp .. "/t.luac", string.dump(function() return {} end))
      cmd.expect({ status = 1, out = "", err = "lgprof: " .. bin
        .. ": attempt to load a binary chunk (mode is 't')\n" },
        cmd.lgprof({ "check", "--thresholds=" .. bin, build.exe, build.gmon[1] }))
    end)

    it("1: a Lua script with a syntax error keeps Lua's message and its line", function()
      local top = tmp .. "/top.lua"
      cmd.expect({ status = 1, out = "", err = "lgprof: " .. top .. ":3: unexpected symbol near '='\n" },
        run_script("top.lua", "local profile = ...\nprint(profile)\nlocal x = = 1\n"))
      -- a text file that is not Lua is a syntax error too (it holds no binary byte)
      cmd.expect({ status = 1, out = "", err_match = "^lgprof: " .. tmp:gsub("%p", "%%%0")
        .. "/notes%.lua:1: syntax error near 'is'\n$" }, run_script("notes.lua", "this is plain text\n"))
    end)

    it("1 beats 3: a script that fails a check and then raises", function()
      cmd.expect({ status = 1, err_match = "later\n$" }, run_script("both.lua", [[
local profile = ...
require("lgprof").check.max_calls(profile, "^c$", 0)
error("later")
]]))
    end)

    it("2: usage errors, one line and a pointer to --help on stderr", function()
      local cases = {
        { "--script", report, "--bogus", build.exe, build.gmon[1] },
        { "--script" },
        { "--script", report, "--script", report, build.exe, build.gmon[1] },
        { "--script", report, "--diff", build.gmon[1], build.exe, build.gmon[1] },
        { "--script", report, "-d", build.exe, build.gmon[1] }, -- not supported yet
      }
      for _, args in ipairs(cases) do
        local msg = cmd.one_line_error(2, cmd.lgprof(args))
        assert.is_true(#msg > 0)
      end
      -- standalone: the same parser, the same status
      cmd.one_line_error(2, cmd.lua({ report, "--bogus", build.exe, build.gmon[1] }))
    end)
  end)
end)
