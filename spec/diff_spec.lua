-- lgprof.diff, lgprof.spread and `lgprof --diff`: functions matched by
-- demangled name (plus file for statics) across profiles; every number is
-- derived from the profiles' own Function fields.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, prof = H.fixtures, H.util, H.cmd, H.profile

-- the classic fixture, with c sampled in every run
local function classic()
  return assert(fx.build("classic", "O0g-nopie"))
end

-- name (plus file for statics) -> { self, total, calls } of the active functions
local function measures(profile)
  local m, n = {}, 0
  for fn in profile:symbols() do
    local calls = fn.calls + fn.self_calls
    if fn.flat_self ~= 0 or fn.total ~= 0 or calls ~= 0 then
      local key = fn.name .. (fn.is_static and ("@" .. tostring(fn.file)) or "")
      assert(not m[key], "duplicate function " .. key)
      m[key] = { self = fn.flat_self, total = fn.total, calls = calls }
      n = n + 1
    end
  end
  return m, n
end

local function row_key(row)
  return row.name .. (row.is_static and ("@" .. tostring(row.file)) or "")
end

local function sorted_by_change(rows)
  for i = 2, #rows do
    local a, b = rows[i - 1], rows[i]
    local at, bt = math.abs(a.total_delta), math.abs(b.total_delta)
    if at < bt then return false end
    if at == bt then
      local as, bs = math.abs(a.self_delta), math.abs(b.self_delta)
      if as < bs or (as == bs and a.name > b.name) then return false end
    end
  end
  return true
end

describe("lgprof.analysis.diff", function()
  local build, one, all
  setup(function()
    build = assert(fx.build("cycles", "O0g-nopie"))
    one = assert(lgprof.open(build.exe, build.gmon[1]))
    all = assert(lgprof.open(build.exe, build.gmon))
  end)
  teardown(function()
    if one then one:close() end
    if all then all:close() end
  end)

  it("a profile against itself: every change is zero", function()
    local d = lgprof.diff(one, one)
    local _, n = measures(one)
    assert.equal(n, #d)
    assert.is_true(n > 5)
    assert.equal(one.total_time, d.base_total)
    assert.equal(one.total_time, d.new_total)
    for _, r in ipairs(d) do
      assert.equal("common", r.status)
      assert.equal(0, r.self_delta); assert.equal(0, r.total_delta); assert.equal(0, r.calls_delta)
      assert.equal(0, r.self_share); assert.equal(0, r.total_share)
      assert.equal(r.self_base, r.self_new)
    end
  end)

  it("one run against the sum of three: the differences of the Function fields", function()
    local d = lgprof.diff(one, all)
    local base, nb = measures(one)
    local new, nn = measures(all)
    local keys = {}
    for k in pairs(base) do keys[k] = true end
    for k in pairs(new) do keys[k] = true end
    local nkeys = 0
    for _ in pairs(keys) do nkeys = nkeys + 1 end
    assert.equal(nkeys, #d)
    assert.is_true(nb > 0 and nn > 0)
    local seen = {}
    local zero = { self = 0, total = 0, calls = 0 }
    for _, r in ipairs(d) do
      local k = row_key(r)
      assert.is_nil(seen[k], k)
      seen[k] = true
      local b, n = base[k] or zero, new[k] or zero
      assert.equal(b.self, r.self_base); assert.equal(n.self, r.self_new)
      assert.equal(n.self - b.self, r.self_delta)
      assert.equal((n.self - b.self) / one.total_time, r.self_share)
      assert.equal(b.total, r.total_base); assert.equal(n.total, r.total_new)
      assert.equal(n.total - b.total, r.total_delta)
      assert.equal((n.total - b.total) / one.total_time, r.total_share)
      assert.equal(b.calls, r.calls_base); assert.equal(n.calls, r.calls_new)
      assert.equal(n.calls - b.calls, r.calls_delta)
      -- one program: every function is in both builds' symbols, so none is
      -- new or gone, even one that only the other runs sampled or called
      assert.equal("common", r.status)
    end
    assert.equal(all.total_time, d.new_total)
    assert.is_true(sorted_by_change(d))
    assert.is_true(d[1].total_delta > 0) -- three runs take longer than one
    -- reversed: every delta changes sign
    local r = lgprof.diff(all, one)
    assert.equal(#d, #r)
    local back = {}
    for _, row in ipairs(r) do back[row_key(row)] = row end
    for _, row in ipairs(d) do
      assert.equal(-row.total_delta, back[row_key(row)].total_delta)
      assert.equal(-row.calls_delta, back[row_key(row)].calls_delta)
    end
  end)

  it("functions that appeared or vanished (profiles of two programs)", function()
    local other = classic()
    local po <close> = assert(lgprof.open(other.exe, other.gmon[1]))
    local d = lgprof.diff(po, one)
    local base, new = measures(po), measures(one)
    local added, removed = 0, {}
    for _, r in ipairs(d) do
      local k = row_key(r)
      if r.status == "added" then
        added = added + 1
        assert.is_nil(base[k]); assert.is_truthy(new[k])
        assert.equal(0, r.self_base); assert.equal(0, r.calls_base)
        assert.equal(r.total_new, r.total_delta)
      elseif r.status == "removed" then
        removed[k] = true
        assert.is_truthy(base[k]); assert.is_nil(new[k])
        assert.equal(0, r.total_new); assert.equal(-r.total_base, r.total_delta)
      end
    end
    -- removed: active in the base and absent from the new program's symbols:
    -- a, b and c (called). A function of both programs (start-up code such as
    -- frame_dummy) that one run happened to sample and the other not is
    -- idle on one side, not gone: its row is common with 0 there
    local new_symbols = {}
    for fn in one:symbols() do new_symbols[row_key(fn)] = true end
    local only_base, idle_in_new = {}, {}
    for k in pairs(base) do
      if not new[k] then
        if new_symbols[k] then idle_in_new[k] = true else only_base[k] = true end
      end
    end
    assert.same(only_base, removed)
    for _, r in ipairs(d) do
      if idle_in_new[row_key(r)] then
        assert.equal("common", r.status); assert.equal(0, r.total_new)
      end
    end
    assert.is_true(removed.a and removed.b and removed.c)
    assert.is_true(added >= 10) -- cycles' nine cycle members and leaf (called)
  end)

  it("self is the flat profile's self time; calls count recursive calls", function()
    -- (fib sampled in every run)
    local rec = assert(fx.build("selfrec", "O0g-nopie"))
    -- -N fib: fib's time is not propagated, so its call-graph self is 0
    local opts = { no_time = { "fib" } }
    local p1 <close> = assert(lgprof.open(rec.exe, rec.gmon[1], opts))
    local p3 <close> = assert(lgprof.open(rec.exe, rec.gmon, opts))
    local fib1, fib3 = prof.fn(p1, "fib"), prof.fn(p3, "fib")
    assert.is_true(fib1.flat_self > 0 and fib1.self == 0 and fib1.self_calls > 0)
    local row
    for _, r in ipairs(lgprof.diff(p1, p3)) do if r.name == "fib" then row = r end end
    assert.equal(fib1.flat_self, row.self_base)
    assert.equal(fib3.flat_self, row.self_new)
    assert.equal(fib1.calls + fib1.self_calls, row.calls_base)
    assert.equal(fib3.calls + fib3.self_calls, row.calls_new)
  end)

  it("tells static functions of the same name apart by file", function()
    local sn = assert(fx.build("samename", "O0g-nopie"))
    local p <close> = assert(lgprof.open(sn.exe, sn.gmon[1]))
    local d = lgprof.diff(p, p)
    local helpers = {}
    for _, r in ipairs(d) do
      if r.name == "helper" then helpers[#helpers + 1] = r end
    end
    assert.equal(2, #helpers)
    assert.not_equal(helpers[1].file, helpers[2].file)
    assert.not_equal(helpers[1].label, helpers[2].label)
    assert.is_true(helpers[1].is_static and helpers[2].is_static)
  end)

  it("raises on misuse", function()
    assert.has_error(function() lgprof.diff(one) end)
    assert.has_error(function() lgprof.diff("a", one) end)
    assert.has_error(function() lgprof.diff(one, {}) end)
  end)
end)

describe("lgprof.analysis.spread", function()
  local build, runs
  setup(function()
    build = assert(fx.build("cycles", "O0g-nopie"))
    runs = {}
    for i, g in ipairs(build.gmon) do runs[i] = assert(lgprof.open(build.exe, g)) end
  end)
  teardown(function()
    for _, p in ipairs(runs or {}) do p:close() end
  end)

  it("min <= median <= max of each function's self time over the runs", function()
    local s = lgprof.spread(runs)
    local per_run = {}
    for i, p in ipairs(runs) do per_run[i] = measures(p) end
    local keys = {}
    for _, m in ipairs(per_run) do for k in pairs(m) do keys[k] = true end end
    local n = 0
    for _ in pairs(keys) do n = n + 1 end
    assert.equal(n, #s)
    local varied = false
    for i, r in ipairs(s) do
      local k = row_key(r)
      assert.is_true(keys[k], k)
      local selfs, active = {}, 0
      for j = 1, 3 do
        local m = per_run[j][k]
        selfs[j] = m and m.self or 0
        if m then active = active + 1 end
        assert.equal(selfs[j], r.self[j])
      end
      table.sort(selfs)
      assert.equal(selfs[1], r.min); assert.equal(selfs[2], r.median); assert.equal(selfs[3], r.max)
      assert.is_true(r.min <= r.median and r.median <= r.max)
      assert.equal(active, r.runs)
      if r.min ~= r.max then varied = true end
      if i > 1 then assert.is_true(s[i - 1].max >= r.max) end
    end
    assert.is_true(varied, "the runs of the fixture differ")
  end)

  it("a function absent from a run counts 0 there; even counts average the middle two", function()
    local other = classic()
    local po <close> = assert(lgprof.open(other.exe, other.gmon[1]))
    local s = lgprof.spread({ runs[1], po })
    local c
    for _, r in ipairs(s) do if r.name == "c" then c = r end end
    local want = measures(po)["c"].self
    assert.is_true(want > 0)
    assert.same({ 0, want }, c.self)
    assert.equal(0, c.min); assert.equal(want, c.max); assert.equal(want / 2, c.median)
    assert.equal(1, c.runs)
  end)

  it("raises on misuse", function()
    assert.has_error(function() lgprof.spread(runs[1]) end)
    assert.has_error(function() lgprof.spread({ runs[1], "x" }) end)
    assert.same({}, lgprof.spread({}))
  end)
end)

describe("lgprof --diff", function()
  local build, tmp
  setup(function()
    build = assert(fx.build("cycles", "O0g-nopie"))
    tmp = util.mktempdir("lgprof-diff")
  end)
  teardown(function() util.rmtree(tmp) end)

  local function signed(v, f)
    local s = f:format(v)
    if s:match("^%-0[%.0]*$") then s = s:sub(2) end
    return s:sub(1, 1) == "-" and s or "+" .. s
  end

  it("0: prints one aligned row per function, as lgprof.diff computes them", function()
    local status, out, err = cmd.lgprof({ "--diff", build.gmon[1], build.exe, table.unpack(build.gmon) })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("", err)
    local base <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local new <close> = assert(lgprof.open(build.exe, build.gmon))
    local d = lgprof.diff(base, new)
    local lines = {}
    for l in out:gmatch("[^\n]*\n") do lines[#lines + 1] = l end
    assert.equal(("base %.2f seconds, new %.2f seconds, change %s seconds (%s%% of base)\n"):format(
      base.total_time, new.total_time, signed(new.total_time - base.total_time, "%.2f"),
      signed(100 * (new.total_time - base.total_time) / base.total_time, "%.1f")), lines[1])
    assert.equal("+-: the 95% confidence interval's half-width; *: significant at 95%\n", lines[2])
    assert.equal("\n", lines[3])
    assert.matches("total change +self change +calls +total change from\n$", lines[4])
    assert.matches("^seconds +%+%- +%% base +seconds +%+%- +%% base +base +new +calls +per call +function\n$",
      lines[5])
    assert.equal(5 + #d, #lines)
    local width = #lines[5]
    local calls_split = 0
    for i, r in ipairs(d) do
      local line = lines[5 + i]
      local fields = {}
      for w in line:gmatch("%S+") do fields[#fields + 1] = w end
      -- a function only in one profile is marked after its name
      local mark = r.status == "added" and " (new)" or r.status == "removed" and " (gone)" or ""
      local function pct(v, sig) return signed(100 * v, "%.1f") .. (sig and "*" or "") end
      local want = {
        signed(r.total_delta, "%.2f"), ("%.2f"):format((r.total_high - r.total_low) / 2),
        pct(r.total_share, r.total_significant),
        signed(r.self_delta, "%.2f"), ("%.2f"):format((r.self_high - r.self_low) / 2),
        pct(r.self_share, r.self_significant),
        tostring(r.calls_base), tostring(r.calls_new),
        signed(r.calls_effect, "%.2f"), signed(r.per_call_effect, "%.2f") }
      for w in (r.label .. mark):gmatch("%S+") do want[#want + 1] = w end
      assert.same(want, fields)
      -- names start in one column
      assert.equal(width - #"function\n", #line - #r.label - #mark - 1)
      -- the split: calls at the base's time per call, the rest per call
      if r.calls_base > 0 then
        calls_split = calls_split + 1
        assert.near(r.calls_delta * r.total_base / r.calls_base, r.calls_effect, 1e-12)
      else
        assert.equal(0, r.calls_effect)
      end
      assert.near(r.total_delta, r.calls_effect + r.per_call_effect, 1e-12)
      -- the interval is centred on the change
      assert.near(r.total_delta, (r.total_low + r.total_high) / 2, 1e-12)
    end
    assert.is_true(calls_split > 3)
    -- --confidence=0: the same table without the intervals and marks
    status, out, err = cmd.lgprof({ "--diff", build.gmon[1], "--confidence=0", build.exe,
      table.unpack(build.gmon) })
    assert.equal(0, status, cmd.show(status, out, err))
    lines = util.lines(out)
    assert.equal("", lines[2])
    assert.matches("^seconds +%% base +seconds +%% base +base +new +calls +per call +function$", lines[4])
    assert.equal(4 + #d, #lines)
    for i, r in ipairs(d) do
      local f = util.fields(lines[4 + i], 9)
      assert.same({ signed(r.total_delta, "%.2f"), signed(100 * r.total_share, "%.1f"),
        signed(r.self_delta, "%.2f"), signed(100 * r.self_share, "%.1f"),
        tostring(r.calls_base), tostring(r.calls_new),
        signed(r.calls_effect, "%.2f"), signed(r.per_call_effect, "%.2f") }, { table.unpack(f, 1, 8) })
    end
  end)

  it("0: --diff-image reads the base with another executable", function()
    local other = classic()
    local status, out, err = cmd.lgprof({ "--diff", other.gmon[1], "--diff-image=" .. other.exe,
      build.exe, build.gmon[1] })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.matches("\n[^\n]*  c %(gone%)\n", out)
    assert.matches("\n[^\n]*  leaf %(new%)\n", out)
  end)

  -- (the naive gate, --confidence=0: today's behaviour; the confidence is
  -- spec/noise_spec.lua's)
  it("3: a function grew more than --max-growth; 0 under the limit", function()
    local base <close> = assert(lgprof.open(build.exe, build.gmon[1]))
    local new <close> = assert(lgprof.open(build.exe, build.gmon))
    local top = lgprof.diff(base, new)[1]
    assert.is_true(top.total_share > 0.01)
    local args = { build.exe, table.unpack(build.gmon) }
    local status, out, err = cmd.lgprof({ "--diff", build.gmon[1], "--confidence=0",
      "--max-growth=" .. ("%.6f"):format(top.total_share + 0.001), table.unpack(args) })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.equal("", err)
    -- the limit as lgprof reads it: the number the option's text gives
    local text = ("%.6f"):format(top.total_share - 0.001)
    local lim = tonumber(text)
    status, out, err = cmd.lgprof({ "--diff", build.gmon[1], "--confidence=0", "--max-growth=" .. text,
      table.unpack(args) })
    assert.equal(3, status, cmd.show(status, out, err))
    assert.is_true(#out > 0) -- the table is still printed
    assert.equal(("lgprof: check failed: max_growth %s: +%.2f%% > %.2f%%\n"):format(top.label,
      100 * top.total_share, 100 * lim), err)
    -- a pattern limits the check to matching functions: the function that
    -- grew least passes a limit halfway between its growth and top's
    local least = top
    for _, r in ipairs(lgprof.diff(base, new)) do
      if r.total_share and r.total_share < least.total_share then least = r end
    end
    assert.is_true(top.total_share - least.total_share > 1e-4, "every function grew alike")
    local mid = ("%.6f"):format((top.total_share + least.total_share) / 2)
    status, out, err = cmd.lgprof({ "--diff", build.gmon[1], "--confidence=0",
      "--max-growth=^" .. top.name .. "$=" .. mid, table.unpack(args) })
    assert.equal(3, status, cmd.show(status, out, err))
    status, out, err = cmd.lgprof({ "--diff", build.gmon[1], "--confidence=0",
      "--max-growth=^" .. least.name .. "$=" .. mid, table.unpack(args) })
    assert.equal(0, status, cmd.show(status, out, err))
  end)

  it("1: a missing base or new profile, or base image", function()
    local missing = tmp .. "/no-such-gmon"
    for _, args in ipairs({
      { "--diff", missing, build.exe, build.gmon[1] },
      { "--diff", build.gmon[1], build.exe, missing },
      { "--diff", build.gmon[1], "--diff-image", missing, build.exe, build.gmon[1] },
    }) do
      local msg = cmd.one_line_error(1, cmd.lgprof(args))
      assert.equal(missing .. ": ", msg:sub(1, #missing + 2))
    end
  end)

  it("2: usage errors", function()
    for _, args in ipairs({
      { "--diff" },
      { "--diff", build.gmon[1], "--bogus", build.exe, build.gmon[1] },
      { "--diff", build.gmon[1], "--confidence=1", build.exe, build.gmon[1] },
      { "--diff", build.gmon[1], "--confidence", build.exe, build.gmon[1] },
      { "--diff", build.gmon[1], "--max-growth=-0.1", build.exe, build.gmon[1] },
      { "--diff", build.gmon[1], "--max-growth=c=lots", build.exe, build.gmon[1] },
      { "--diff", build.gmon[1], "--max-growth=(=0.1", build.exe, build.gmon[1] },
      { "--max-growth=0.1", build.exe, build.gmon[1] }, -- needs --diff
      { "--diff-image=" .. build.exe, build.exe, build.gmon[1] }, -- needs --diff
    }) do
      local msg = cmd.one_line_error(2, cmd.lgprof(args))
      assert.is_true(#msg > 0)
    end
  end)
end)

-- The same program built in two checkouts (as CI builds a base and a pull
-- request): static functions carry different absolute source paths, and
-- must still match. The samename fixture's two static helper()s go in
-- x/util.c and y/util.c, so only two path components tell them apart; both
-- trees are compiled from the parent directory with absolute paths (DWARF
-- keeps them) and one run's gmon.out is read against both executables.
describe("lgprof.diff: one program built in two checkouts", function()
  local tmp, trees, gmon
  setup(function()
    tmp = util.mktempdir("lgprof diff-trees")
    local src = fx.root .. "/spec/fixtures/progs/"
    trees = {}
    for _, tree in ipairs { "oldtree", "newtree" } do
      local dir = tmp .. "/" .. tree
      for _, d in ipairs { dir, dir .. "/x", dir .. "/y" } do assert(util.mkdir(d)) end
      util.spit(dir .. "/fixture.h", assert(util.slurp(src .. "fixture.h")))
      util.spit(dir .. "/main.c", assert(util.slurp(src .. "samename/main.c")))
      util.spit(dir .. "/x/util.c", assert(util.slurp(src .. "samename/a.c")))
      util.spit(dir .. "/y/util.c", assert(util.slurp(src .. "samename/b.c")))
      local status, out, err = cmd.run({ "cc", "-O0", "-g", "-pg", "-fno-pie", "-no-pie", "-o",
        dir .. "/prog", dir .. "/main.c", dir .. "/x/util.c", dir .. "/y/util.c" }, { cwd = tmp })
      assert(status == 0, cmd.show(status, out, err))
      trees[tree] = dir .. "/prog"
    end
    local status, out, err = cmd.run({ "./prog", "1" }, { cwd = tmp .. "/oldtree" })
    assert(status == 0, cmd.show(status, out, err))
    gmon = tmp .. "/oldtree/gmon.out"
  end)
  teardown(function() util.rmtree(tmp) end)

  it("matches statics by the shortest path suffix unique in both: no (new), no (gone)", function()
    local old <close> = assert(lgprof.open(trees.oldtree, gmon))
    local new <close> = assert(lgprof.open(trees.newtree, gmon))
    -- the precondition: two builds of one program, the paths aside
    local files, twins = {}, new:symbols()
    for fn in old:symbols() do
      local twin = twins()
      assert.are.equal(fn.name .. "@" .. fn.address, twin and (twin.name .. "@" .. twin.address))
      if fn.is_static and fn.name == "helper" then
        files[#files + 1] = fn.file
        assert.are.equal(fn.file:gsub("/oldtree/", "/newtree/"), twin.file)
      end
    end
    table.sort(files)
    assert.are.same({ tmp .. "/oldtree/x/util.c", tmp .. "/oldtree/y/util.c" }, files)
    local d = lgprof.diff(old, new)
    local labels = {}
    for _, r in ipairs(d) do
      assert.are.equal("common", r.status, r.label)
      assert.are.equal(0, r.total_delta, r.label)
      assert.are.equal(0, r.self_delta, r.label)
      if r.name == "helper" then labels[#labels + 1] = r.label end
    end
    table.sort(labels)
    assert.are.same({ "helper (x/util.c)", "helper (y/util.c)" }, labels)
    lgprof.check.reset()
    local saved = lgprof.check.output
    lgprof.check.output = io.tmpfile()
    local ok = lgprof.check.max_growth(d, ".", 0)
    lgprof.check.output = saved
    assert.is_true(ok)
    -- spread matches them the same way: one row per helper, present in both runs
    local n = 0
    for _, r in ipairs(lgprof.spread { old, new }) do
      if r.name == "helper" then
        n = n + 1
        assert.are.equal(2, r.runs)
      end
    end
    assert.are.equal(2, n)
  end)

  it("lgprof --diff: the gate passes on the unchanged program", function()
    local status, out, err = cmd.lgprof({ "--diff", gmon, "--diff-image=" .. trees.oldtree,
      "--max-growth=0", trees.newtree, gmon })
    assert.are.equal(0, status, cmd.show(status, out, err))
    assert.are.equal("", err)
    assert.is_nil(out:find("(new)", 1, true))
    assert.is_nil(out:find("(gone)", 1, true))
    assert.is_truthy(out:find("helper (x/util.c)\n", 1, true))
    assert.is_truthy(out:find("helper (y/util.c)\n", 1, true))
  end)
end)
