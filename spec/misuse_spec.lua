-- Lua API misuse (issue "Robustness", part 4): wrong argument types and nils
-- to every public function and method, methods called on the wrong kind of
-- object, objects and iterators of a closed profile, iterator functions
-- called with bogus arguments. Each must raise a Lua error with a clear
-- message (or, where listed below, return normally), never crash the
-- interpreter. The cases (spec/misuse/cases.lua) run in a subprocess
-- (spec/misuse/run.lua), so that a crash fails the spec instead of busted.
local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd

-- cases that return normally, and what they return (a Lua pattern)
local OK = {
  ["lgprof.open(exe, {nil})"] = "^lgprof%.Profile", -- { GMON, nil } is { GMON }
  ["lgprof.demangle(name, nil)"] = "^f%(%)$",
  ["lgprof.demangle(number)"] = "^$",               -- 42 is the string "42": not mangled
  ["lgprof.merge(nil, gmons, out)"] = "^nil a%.out: ", -- the defaults, as lgprof.open
  ["lgprof.merge(exe, nil, out)"] = "^nil gmon%.out: ",
  ["p:find('main', nil)"] = "^lgprof%.Function %(main%)$",
  ["lgprof.check.max_calls(p, pat, number)"] = "^true$",
  -- a share has no upper bound (gprof can print 100.16%): 42 is 4200%
  ["lgprof.check.max_self(p, pat, number)"] = "^true$",
  ["lgprof.check.max_total(p, pat, number)"] = "^true$",
  ["p:write_gmon(number)"] = "^true$",               -- a file named "42"
  ["p:get(number)"] = "^$", ["p:lookup(number)"] = "^$",
  ["p:find(number)"] = "^nil no function named '42'$",
  ["p:find('main', number)"] = "^nil no function named 'main' in 42$",
  ["lgprof.spread(table)"] = "^table: ",
  ["p:filter(table)"] = "^lgprof%.Profile",
  ["p:get(0)"] = "^$", ["p:get(-1)"] = "^$", ["p:get(2^53)"] = "^$",
  ["p:lookup(-1)"] = "^$", ["p:lookup(math.mininteger)"] = "^$",
  -- closure iterators ignore their arguments
  ["p:functions() iterator called with bogus arguments"] = "^lgprof%.Function %(main%),lgprof%.Function",
  ["p:flat() iterator called with bogus arguments"] = "^lgprof%.Function",
  ["p:symbols() iterator called with bogus arguments"] = "^lgprof%.Function",
  ["p:cycles() iterator called with bogus arguments"] = "^lgprof%.Cycle %(<cycle 1>%),.*nil$",
  ["p:arcs() iterator called with bogus arguments"] = "^lgprof%.Arc",
  ["p:roots() iterator called with bogus arguments"] = "^lgprof%.Function %(main%),nil",
  ["fn:callers() iterator called with bogus arguments"] = "^lgprof%.Arc",
  ["cyc:members() iterator called with bogus arguments"] = "^lgprof%.Function",
  ["an iterator of a collected profile variable"] = "^%d+$",
  ["a Function of a collected profile variable"] = "^main %d+$",
  -- a view keeps what it borrows from a closed profile (README)
  ["closed profile: a view's flat()"] = "^function: ",
  ["closed profile: a view's function"] = ".",
  ["closed profile: p:close() again"] = "^$",         -- close is idempotent
}

-- what an error message must say, by label (a Lua pattern); others: GENERIC
local ERR = {
  ["Function.members via a Cycle method on a Function"] = "lgprof%.Cycle expected, got lgprof%.Function",
  ["Cycle.callers on a Cycle"] = "lgprof%.Function expected, got lgprof%.Cycle",
  ["Function.callers on an Arc"] = "lgprof%.Function expected, got lgprof%.Arc",
  ["Function.callers on a Profile"] = "lgprof%.Function expected, got lgprof%.Profile",
  ["Profile.flat on a Function"] = "lgprof%.Profile expected, got lgprof%.Function",
  ["Profile.get on an Arc"] = "lgprof%.Profile expected, got lgprof%.Arc",
  ["Profile.close on a Cycle"] = "lgprof%.Profile expected, got lgprof%.Cycle",
  ["Profile.export on a Function"] = "lgprof%.Profile expected, got lgprof%.Function",
  ["Profile.gprof_report on a file handle"] = "lgprof%.Profile expected, got FILE%*",
  ["p:gprof_report(closed file)"] = "closed file",
  ["p:export('json', closed file)"] = "closed file",
  ["lgprof.report.json(p, closed file)"] = "closed file",
  ["lgprof.dot.write(p, closed file)"] = "a file handle or a path expected, got a closed file",
  ["lgprof.dot.write(table, f)"] = "a Profile expected, got table",
  ["lgprof.dot.write(p, table)"] = "a file handle or a path expected, got table",
  ["p:gprof_report(f, {width = -5})"] =
    "bad argument #2 to 'gprof_report' %(option 'width' must be an integer from 1 to %d+%)",
  ["p:gprof_report(f, {width = 1e300})"] =
    "bad argument #2 to 'gprof_report' %(option 'width' must be an integer from 1 to %d+%)",
  ["p:get(1.5)"] = "no integer representation",
  ["p:filter{bogus = 1}"] = "bad argument #1 to 'filter' %(unknown option 'bogus'%)",
  ["p:filter{focus = '('}"] = "bad pattern",
  ["p.nonexistent_field"] = "Profile has no field 'nonexistent_field' %(fields: total_time, ",
  ["fn.nonexistent_field"] = "Function has no field 'nonexistent_field' %(fields: kind, ",
  ["p.total_time = 1"] = "attempt to index a lgprof%.Profile value",
  ["fn.name = 'x'"] = "attempt to index a lgprof%.Function value",
}
-- any other error: a bad argument, what was expected, or a closed profile
local GENERIC = { "bad argument #%d+ to '[%w_?]+' %(.+%)", "expected", "closed profile",
  "must be", "unknown" }

describe("Lua API misuse", function()
  local results, order, run_status, run_out, run_err, tmp
  local cases = dofile(fx.root .. "/spec/misuse/cases.lua")

  setup(function()
    local fixture = assert(fx.build("cycles", "O0g-pie"))
    tmp = util.mktempdir("lgprof-misuse")
    run_status, run_out, run_err = cmd.lua({ fx.root .. "/spec/misuse/run.lua", fixture.exe,
      fixture.gmon[1], tmp .. "/out" }, { cwd = tmp })
    results, order = {}, {}
    for line in run_out:gmatch("[^\n]+") do
      local label, kind, rest = line:match("^(.-)\t(%a+)\t(.*)$")
      if label then results[label] = { kind = kind, text = rest }; order[#order + 1] = label end
    end
  end)

  teardown(function() util.rmtree(tmp) end)

  it("runs every case to the end in one interpreter, without a crash", function()
    local ctx = cmd.show(run_status, run_out:sub(-600), run_err)
    assert.equal(0, run_status, ctx)
    assert.equal(#cases, #order, ctx)
    assert.is_true(#cases > 350)
  end)

  for _, c in ipairs(cases) do
    local label = c[1]
    it(label, function()
      local r = results[label]
      assert.is_not_nil(r, "case not reached (crash before it?): " .. label)
      if OK[label] then
        assert.equal("ok", r.kind, r.text)
        assert.truthy(r.text:find(OK[label]), r.text)
      else
        assert.equal("error", r.kind, "no error: " .. r.text)
        if ERR[label] then
          assert.truthy(r.text:find(ERR[label]), r.text)
        else
          local any = false
          for _, pat in ipairs(GENERIC) do any = any or r.text:find(pat) ~= nil end
          assert.is_true(any, r.text)
        end
        if label:match("^closed profile:") then
          assert.truthy(r.text:find("closed profile", 1, true), r.text)
        end
      end
    end)
  end

  it("an uncaught misuse error ends lua5.4 with status 1 and a message, not a signal", function()
    local fixture = assert(fx.build("cycles", "O0g-pie"))
    for _, c in ipairs({
      { "local p = require('lgprof').open(arg[1], arg[2]); p:get(1).callers(42)",
        "bad argument #1 to 'callers' %(lgprof%.Function expected, got number%)" },
      { "local p = require('lgprof').open(arg[1], arg[2]); local it = p:arcs(); p:close(); it()",
        "attempt to use a closed profile" },
      { "local p = require('lgprof').open(arg[1], arg[2]); local f = p:get(1); p:close(); print(f.name)",
        "attempt to use an object of a closed profile" },
    }) do
      local script = cmd.write(tmp .. "/uncaught.lua", c[1])
      local status, out, err = cmd.lua({ script, fixture.exe, fixture.gmon[1] })
      assert.equal(1, status, cmd.show(status, out, err))
      -- "lua5.4: " (or the interpreter's full path under make test-asan)
      assert.truthy(err:find("^[^\n]*lua5%.4: [^\n]*uncaught%.lua:1: " .. c[2]), err)
    end
  end)
end)
