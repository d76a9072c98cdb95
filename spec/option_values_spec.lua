-- Option values at their extremes, malformed or out of range, for every
-- option of the registry (lgprof.cli.registry) that takes a value:
--   * gprof's numeric options (-w, -m, -t, their long forms): what GNU gprof
--     2.40 does with them, byte for byte on stdout, with the same status,
--     on the same files (gprof reads them with atoi/strtoul: never refused);
--   * lgprof's own options, in every mode that takes them: a usage error of
--     one line and a pointer to the help (status 2), or a result (0, 1, 3);
--     never a Lua error or traceback on stderr, never a partial report.
-- The registry is read here so that an option added to it is swept too.
local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd
local registry = require "lgprof.cli.registry"

-- 0, -1, 2^31, 2^32, 2^64, and words that are not numbers
local GPROF_VALUES = { "0", "-1", "2147483648", "4294967296", "18446744073709551616", "1e30", "abc", "",
                       "99999999999999999999", "4000000000", " 7", "+3x" }

local LGPROF_VALUES = { "0", "-1", "1", "2147483648", "4294967296", "18446744073709551616", "1e19",
                        "1e30", "nan", "inf", "-inf", "abc", "", "50%", "150%", "0x10", "1e-400", " 1",
                        "main=1e30", "main=nan", "main=-1", "main=50%", "(=1", "=", "main=" }

local function built()
  return assert(fx.build("classic", "O0g-nopie"))
end

-- lgprof on each argv of a list, in the folder cwd: the first through the
-- command (bin/lgprof), the others through lgprof.cli.main in this process
-- (the function the command runs: a Lua error it raises is status 99 here),
-- with the working directory changed to cwd for each (helpers.differ) --
-- a process start costs this machine more than most of these runs.
-- { status =, out =, err = } each, as cmd.lgprof_many gives.
local function lgprof_runs(argvs, cwd)
  local results = { cmd.lgprof_many({ argvs[1] }, { cwd = cwd })[1] }
  for k = 2, #argvs do
    local r = H.differ.lgprof_inproc_in(cwd, argvs[k])
    results[k] = r and { status = r.rc, out = r.out, err = r.err }
      or cmd.lgprof_many({ argvs[k] }, { cwd = cwd })[1]
  end
  return results
end

describe("gprof's numeric options", function()
  -- each option with the report it shapes: -w the call graph's index, -m
  -- and -t the annotated source
  local OPTIONS = {
    { "-w", "--width", { "-b", "-q" } },
    { "-m", "--min-count", { "-b", "-A" } },
    { "-t", "--table-length", { "-b", "-A", "-x" } },
  }
  for _, o in ipairs(OPTIONS) do
    it(o[1] .. " and " .. o[2] .. " do what gprof does with every value", function()
      if not cmd.HAVE_GPROF then return pending("gprof not installed") end
      local b = built()
      -- (gprof through the oracle's kept answers)
      local dir = util.mktempdir("lgprof-optvalues")
      finally(function() util.rmtree(dir) end)
      local argvs, cases = {}, {}
      for _, v in ipairs(GPROF_VALUES) do
        for _, words in ipairs({ { o[1], v }, { o[2] .. "=" .. v } }) do
          local argv = {}
          table.move(words, 1, #words, 1, argv)
          table.move(o[3], 1, #o[3], #argv + 1, argv)
          argv[#argv + 1] = b.exe
          argv[#argv + 1] = b.gmon[1]
          argvs[#argvs + 1], cases[#cases + 1] = argv, { args = argv }
        end
      end
      local g = H.oracle.gprof_many(dir, cases, { b.exe, b.gmon[1] })
      local l = lgprof_runs(argvs, b.dir)
      for k, argv in ipairs(argvs) do
        local gs, gout = g[k].rc, g[k].out
        local ls, lout, lerr = l[k].status, l[k].out, l[k].err
        local what = table.concat(argv, " ")
        assert.equal(gs, ls, what .. "\n" .. lerr)
        assert.is_true(gout == lout, what .. ": stdout differs from gprof's")
        assert.is_falsy(lerr:find(".lua:", 1, true), what .. "\n" .. lerr)
      end
    end)
  end

  it("-w 2^31 and beyond is gprof's width 1 (atoi's int, then at least 1)", function()
    local b = built()
    local _, one = cmd.lgprof({ "-b", "-q", "-w", "1", b.exe, b.gmon[1] })
    for _, v in ipairs({ "2147483648", "4294967296", "99999999999999999999", "0", "-5" }) do
      local status, out, err = cmd.lgprof({ "-b", "-q", "-w", v, b.exe, b.gmon[1] })
      assert.equal(0, status, err)
      assert.equal(one, out, v)
    end
  end)
end)

-- The words that make each lgprof option do something in its mode (the
-- value's option is added after them): the format it shapes, the base of
-- --diff, a threshold for check.
local CONTEXT = {
  gprof = {
    ["noise-floor"] = { "--format=text" }, granularity = { "--format=json" },
    focus = { "--format=json" }, ignore = { "--format=json" }, hide = { "--format=json" },
    ["prune-from"] = { "--format=json" }, ["node-fraction"] = { "--format=json" },
    ["edge-fraction"] = { "--format=json" }, top = { "--format=json" }, ["min-calls"] = { "--format=json" },
    title = { "--format=svg" }, colors = { "--format=svg" }, ["min-width"] = { "--format=svg" },
    ["break-cycles"] = { "-b", "-q" },
  },
  diff = { ["diff-image"] = { "--diff={GMON2}" }, ["max-growth"] = { "--diff={GMON2}" },
           confidence = { "--diff={GMON2}" } },
  check = { confidence = { "--max-self=main=0.5" } },
}
-- How a mode's command line starts.
local MODE_WORDS = { gprof = {}, diff = {}, check = { "check" }, doctor = { "doctor" },
                     merge = { "merge" }, script = {} }

local function sweep(e, mode, b, dir)
  local argvs = {}
  for _, v in ipairs(LGPROF_VALUES) do
    local argv = table.move(MODE_WORDS[mode], 1, #MODE_WORDS[mode], 1, {})
    for _, w in ipairs((CONTEXT[mode] or {})[e.long] or {}) do
      argv[#argv + 1] = (w:gsub("{GMON2}", b.gmon[2]))
    end
    argv[#argv + 1] = "--" .. e.long .. "=" .. v
    if mode == "merge" and e.long ~= "output" then argv[#argv + 1] = "--output=" .. dir .. "/sum" end
    argv[#argv + 1] = b.exe
    argv[#argv + 1] = b.gmon[1]
    argvs[#argvs + 1] = argv
  end
  for k, r in ipairs(lgprof_runs(argvs, dir)) do
    local argv, status, out, err = argvs[k], r.status, r.out, r.err
    local what = table.concat(argv, " ") .. "\n" .. cmd.show(status, out, err)
    assert.is_true(status == 0 or status == 1 or status == 2 or status == 3, what)
    for _, bad in ipairs({ "stack traceback", ".lua:", "bad argument", "attempt to" }) do
      assert.is_falsy(err:find(bad, 1, true), what)
    end
    if status == 2 then
      cmd.one_line_error(2, status, out, err)
    elseif status == 1 then
      assert.equal("", out, what)
      assert.truthy(err:match("lgprof: [^\n]+\n$"), what)
    end
  end
end

describe("lgprof's own options", function()
  for _, e in ipairs(registry.OPTIONS) do
    if not e.gprof and e.arg ~= "none" then
      local list = {}
      for _, m in ipairs(registry.MODES) do
        if e.modes[m] and MODE_WORDS[m] then list[#list + 1] = m end
      end
      -- (gprof's mode takes the options of --diff only to say they need it)
      if e.needs and not e.modes.gprof then list[#list + 1] = "gprof" end
      for _, mode in ipairs(list) do
        it(("--%s in %s's mode: a usage error or a result for every value, never a Lua error")
          :format(e.long, mode), function()
          local dir = util.mktempdir("lgprof-optvalues")
          finally(function() util.rmtree(dir) end)
          sweep(e, mode, built(), dir)
        end)
      end
    end
  end

  -- gprof's options that take a name, a list or a file: whatever gprof
  -- makes of the value, never a Lua error (in gprof's mode and with
  -- --format, where lgprof's own code reads them)
  local WORDS = { "", "abc", "a/b", ":", "x:1", "main", "/", "-1", "%", "main/", "1e30", "(" }
  for _, e in ipairs(registry.OPTIONS) do
    if e.gprof and e.arg ~= "none" and e.type ~= "atoi" and e.type ~= "strtoul" then
      it(("gprof's %s: a report, a one-line error or a usage error for every value"):format(
        registry.spelling(e)), function()
        local b = built()
        local dir = util.mktempdir("lgprof-optvalues")
        finally(function() util.rmtree(dir) end)
        local argvs = {}
        for _, v in ipairs(WORDS) do
          for _, before in ipairs({ { "-b" }, { "--format=json" } }) do
            local argv = { before[1], registry.spelling(e) .. "=" .. v, b.exe, b.gmon[1] }
            if not e.long then argv[2] = "-" .. e.short .. v end
            argvs[#argvs + 1] = argv
          end
        end
        for k, r in ipairs(lgprof_runs(argvs, dir)) do
          do
            local argv, status, out, err = argvs[k], r.status, r.out, r.err
            local what = table.concat(argv, " ") .. "\n" .. cmd.show(status, out, err)
            assert.is_true(status == 0 or status == 1 or status == 2, what)
            for _, bad in ipairs({ "stack traceback", ".lua:", "bad argument", "attempt to" }) do
              assert.is_falsy(err:find(bad, 1, true), what)
            end
            if status ~= 0 then assert.equal("", out, what) end
          end
        end
      end)
    end
  end

  it("--noise-floor=1e19 is refused with its range, not by the writer", function()
    local b = built()
    local line = cmd.one_line_error(2, cmd.lgprof({ "--format=text", "--noise-floor=1e19", b.exe, b.gmon[1] }))
    assert.equal("--noise-floor=1e19: a number of samples from 0 to 2^53", line)
  end)

  it("--break-cycles=N takes N up to 2^32 - 1 (the core's range) and refuses more", function()
    local b = built()
    local status, out, err = cmd.lgprof({ "--break-cycles=4294967295", "-b", "-q", b.exe, b.gmon[1] })
    assert.equal(0, status, err)
    assert.truthy(out:find("maximum cycle size to 4294967294", 1, true), out)
    local line = cmd.one_line_error(2, cmd.lgprof({ "--break-cycles=4294967296", b.exe, b.gmon[1] }))
    assert.equal("--break-cycles=4294967296: N must be an integer from 2 to 4294967295", line)
  end)

  it("--annotate-lines= (an empty FILE) is a usage error", function()
    local b = built()
    local line = cmd.one_line_error(2, cmd.lgprof({ "--annotate-lines=", b.exe, b.gmon[1] }))
    assert.equal("--annotate-lines: an empty value", line)
  end)
end)
