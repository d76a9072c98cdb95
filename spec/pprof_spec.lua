-- lgprof --format=pprof and lgprof.report.pprof: pprof's profile.proto,
-- gzip-compressed. Two oracles: `go tool pprof` (Debian's golang-go) reads
-- every fixture program's export, and its total and top function must be
-- lgprof's; and a synthesized profile whose numbers are derived here by hand
-- from gprof's definitions is decoded field by field by a protobuf reader
-- written apart from the writer (spec/helpers/protobuf.lua) after `gzip -dc`.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, pb = H.fixtures, H.util, H.cmd, H.protobuf
local ew, gw = H.elfwriter, H.gmonwriter

local GO = "/usr/bin/go"
local HAVE_GO = util.have(GO)
local HAVE_DOT = util.have("dot")
local TOP_VARIANTS = { "O0g-nopie", "O2-pie" }
local LIST_VARIANT = "O0g-nopie"

local TMP = util.mktempdir("lgprof-pprof")
local seq = 0
local function tmpfile(ext)
  seq = seq + 1
  return ("%s/%d%s"):format(TMP, seq, ext or "")
end

-- go writes its caches under HOME/GOCACHE/GOPATH: a temporary directory,
-- never the checkout, and no network (the profile is a local file)
local GO_ENV = ("HOME=%s GOCACHE=%s GOPATH=%s GOPROXY=off GOTOOLCHAIN=local GOFLAGS= "
  .. "GOTELEMETRY=off PPROF_TMPDIR=%s "):format(util.q(TMP), util.q(TMP .. "/gocache"),
  util.q(TMP .. "/gopath"), util.q(TMP .. "/pprof"))

local function go_pprof(args)
  local argv = { GO, "tool", "pprof" }
  table.move(args, 1, #args, 4, argv)
  return cmd.run(argv, { prefix = GO_ENV, timeout = 120, cwd = TMP })
end

-- a copy of a fixture build's files (a concurrent rebuild cannot change them)
local function snapshot(name, variant)
  local b = assert(fx.build(name, variant))
  local dir = tmpfile("-fx")
  util.mkdir(dir)
  local s = fx.snapshot(b, dir)
  return s
end

local function gunzip(path)
  local status, out, err = cmd.run({ "gzip", "-dc", path })
  assert(status == 0, "gzip -dc: " .. err)
  return out
end

-- {=================================================== go tool pprof -top

local UNITS = { ns = 1e-9, us = 1e-6, ["\u{b5}s"] = 1e-6, ms = 1e-3, s = 1, mins = 60, hrs = 3600 }

-- A duration as pprof prints it ("100.16ms", "1.50s", "0"): seconds, and
-- half a unit of its last digit (the display's rounding).
local function duration(text)
  if text == "0" then return 0, 0 end
  local num, unit = text:match("^([%d%.]+)(%a+)$")
  if not num then num, unit = text:match("^([%d%.]+)(\u{b5}s)$") end
  assert(num and UNITS[unit], "not a pprof duration: " .. text)
  local decimals = #(num:match("%.(%d+)$") or "")
  return tonumber(num) * UNITS[unit], 0.5 * 10 ^ -decimals * UNITS[unit]
end

-- pprof -top's output: { total, total_tol, rows = { {flat, flat_tol, name}, ... } }
local function parse_top(out)
  local r = { rows = {} }
  local in_rows = false
  for line in out:gmatch("[^\n]+") do
    local total = line:match("^Showing nodes accounting for [^,]+, [%d%.]+%% of (%S+) total")
    if total then r.total, r.total_tol = duration(total) end
    if in_rows then
      local flat, name = line:match("^%s*(%S+)%s+%S+%%%s+%S+%%%s+%S+%s+%S+%%%s+(.+)$")
      if flat then
        local v, tol = duration(flat)
        r.rows[#r.rows + 1] = { flat = v, flat_tol = tol, name = name }
      end
    elseif line:match("^%s*flat%s+flat%%%s+sum%%%s+cum%s+cum%%") then
      in_rows = true
    end
  end
  return r
end

-- }===================================================

-- {=================================================== a synthesized program

-- An executable and its gmon.out from funcs { name, samples [, bind] }
-- (16 bytes each from 0x401000, in order; two may share a name when
-- static) and arcs { caller index, callee index, count }: the layout of
-- helpers.synth, with functions named by index so that names can repeat.
local TEXT, FSIZE = 0x401000, 16
local function synthesize(tag, funcs, arcs)
  local syms, addr = {}, {}
  for i, f in ipairs(funcs) do
    addr[i] = TEXT + FSIZE * (i - 1)
    syms[i] = { name = f[1], addr = addr[i], size = FSIZE, bind = f[3] or "global", type = "func" }
  end
  local etext = TEXT + FSIZE * #funcs
  syms[#syms + 1] = { name = "etext", addr = etext, type = "notype" }
  local exe, gmon = TMP .. "/" .. tag, TMP .. "/" .. tag .. ".gmon"
  ew.write(exe, { text_addr = TEXT, text_size = etext - TEXT, symbols = syms })
  local h = { low = TEXT, high = etext, n_bins = #funcs, rate = 100, dimen = "seconds",
              abbrev = "s", bins = {} }
  for i, f in ipairs(funcs) do
    if f[2] ~= 0 then h.bins[gw.bin_for(h, addr[i] + 6)] = f[2] end
  end
  local a = {}
  for i, arc in ipairs(arcs) do
    a[i] = { from = addr[arc[1]] + 8, to = addr[arc[2]] + 4, count = arc[3] }
  end
  gw.write(gmon, { hist = { h }, arcs = a })
  return exe, gmon, addr, etext
end

-- }===================================================

describe("--format=pprof", function()
  lazy_teardown(function() util.rmtree(TMP) end)

  describe("a synthesized profile, decoded field by field", function()
    -- main calls a (once) and b (once); a calls c 3 times, b calls c once;
    -- c has 4 samples (40 ms), a 30, b 10, two statics named "s" 5 and 2,
    -- called once each by main; x and y call each other (a cycle) and main
    -- calls x once; x has 6 samples, y 1. At 100 Hz a sample is 10 ms.
    -- gprof's propagation: c's 40 ms go 3/4 to a, 1/4 to b, so the stacks
    -- (microseconds) are main;a 300000, main;a;c 30000, main;b 100000,
    -- main;b;c 10000, main;s [0x...] 50000 and 20000, and the cycle's self
    -- time split over its members: main;<cycle 1>;x 60000, ...;y 10000.
    local FUNCS = { { "main", 0 }, { "a", 30 }, { "b", 10 }, { "c", 4 }, { "s", 5, "local" },
                    { "s", 2, "local" }, { "x", 6 }, { "y", 1 } }
    local ARCS = { { 1, 2, 1 }, { 1, 3, 1 }, { 2, 4, 3 }, { 3, 4, 1 }, { 1, 5, 1 }, { 1, 6, 1 },
                   { 1, 7, 1 }, { 7, 8, 2 }, { 8, 7, 1 } }
    local exe, gmon, addr, etext = synthesize("syn", FUNCS, ARCS)
    local S5, S6 = ("s [0x%x]"):format(addr[5]), ("s [0x%x]"):format(addr[6])
    local WANT = {   -- leaf-first stack -> { samples, nanoseconds }
      ["a;main"] = { 30, 300000000 }, ["c;a;main"] = { 3, 30000000 },
      ["b;main"] = { 10, 100000000 }, ["c;b;main"] = { 1, 10000000 },
      [S5 .. ";main"] = { 5, 50000000 }, [S6 .. ";main"] = { 2, 20000000 },
      ["x;<cycle 1>;main"] = { 6, 60000000 }, ["y;<cycle 1>;main"] = { 1, 10000000 },
    }
    local TOTAL_NS = 580000000
    local ADDR = { main = addr[1], a = addr[2], b = addr[3], c = addr[4], [S5] = addr[5],
                   [S6] = addr[6], x = addr[7], y = addr[8] }
    local SYMBOL = { [S5] = "s", [S6] = "s" }

    local prof, path
    setup(function()
      path = tmpfile(".pb.gz")
      local status, out, err = cmd.lgprof({ "--format=pprof", exe, gmon })
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal("", err)
      util.spit(path, out)
      assert.equal("\31\139", out:sub(1, 2), "a gzip member")
      prof = pb.profile(gunzip(path))
    end)

    local function str(i)
      local s = prof.string_table[i + 1]
      assert(s, "string index out of range: " .. tostring(i))
      return s
    end

    it("has a string table starting with \"\" and holding every string once", function()
      assert.equal("", prof.string_table[1])
      local seen = {}
      for i, s in ipairs(prof.string_table) do
        assert.is_nil(seen[s], ("string %q at %d and %d"):format(s, seen[s] or -1, i - 1))
        seen[s] = i - 1
      end
    end)

    it("has the sample types samples/count and time/nanoseconds, period 10 ms of cpu", function()
      assert.equal(2, #prof.sample_type)
      assert.same({ "samples", "count" }, { str(prof.sample_type[1].type), str(prof.sample_type[1].unit) })
      assert.same({ "time", "nanoseconds" }, { str(prof.sample_type[2].type), str(prof.sample_type[2].unit) })
      assert.same({ "cpu", "nanoseconds" }, { str(prof.period_type.type), str(prof.period_type.unit) })
      assert.equal(10000000, prof.period)
      assert.equal("time", str(prof.default_sample_type))
      assert.equal(0, prof.duration_nanos)
      assert.equal(0, prof.time_nanos)
    end)

    it("says in a comment that the stacks are estimated", function()
      local text = {}
      for _, c in ipairs(prof.comment) do text[#text + 1] = str(c) end
      text = table.concat(text, "\n")
      assert.matches("estimated", text)
      assert.matches("print_time", text)
    end)

    it("has one mapping: the program's text", function()
      assert.equal(1, #prof.mapping)
      local m = prof.mapping[1]
      assert.equal(1, m.id)
      assert.equal(exe, str(m.filename))
      assert.equal(TEXT, m.memory_start)
      assert.equal(etext, m.memory_limit)
      assert.equal(1, m.has_functions)
      assert.equal(0, m.has_filenames) -- no DWARF
    end)

    it("has one function and one location per frame, with names, symbols and addresses", function()
      local fns = {}
      for _, f in ipairs(prof["function"]) do
        assert.is_nil(fns[f.id], "function id twice")
        fns[f.id] = f
      end
      local names = {}
      for _, l in ipairs(prof.location) do
        assert.equal(1, #l.line)
        local f = assert(fns[l.line[1].function_id], "location's function is missing")
        local name = str(f.name)
        assert.is_nil(names[name], "two locations for " .. name)
        names[name] = true
        assert.equal(0, f.filename)
        assert.equal(0, f.start_line)
        assert.equal(0, l.line[1].line)
        if name == "<cycle 1>" then
          assert.equal(0, l.address)
          assert.equal(0, l.mapping_id)
          assert.equal("", str(f.system_name))
        else
          assert.equal(ADDR[name], l.address, name)
          assert.equal(1, l.mapping_id)
          assert.equal(SYMBOL[name] or name, str(f.system_name))
        end
      end
      local want = {}
      for k in pairs(ADDR) do want[k] = true end
      want["<cycle 1>"] = true
      assert.same(want, names)
      assert.equal(#prof.location, #prof["function"])
    end)

    it("has the estimated stacks as samples, leaf first, with their samples and nanoseconds", function()
      local fn_name, loc_fn = {}, {}
      for _, f in ipairs(prof["function"]) do fn_name[f.id] = str(f.name) end
      for _, l in ipairs(prof.location) do loc_fn[l.id] = l.line[1].function_id end
      local got, total = {}, 0
      for _, s in ipairs(prof.sample) do
        local names = {}
        for i, id in ipairs(s.location_id) do names[i] = fn_name[loc_fn[id]] end
        local k = table.concat(names, ";")
        assert.is_nil(got[k], "stack twice: " .. k)
        got[k] = s.value
        total = total + s.value[2]
        assert.equal(0, #s.label)
      end
      assert.same(WANT, got)
      assert.equal(TOTAL_NS, total)
      local p <close> = assert(lgprof.open(exe, gmon))
      assert.near(p.print_time * 1e9, total, 1)
    end)

    it("is what go tool pprof -top reads: the total and the flat times", function()
      if not HAVE_GO then pending("go (golang-go) not installed") return end
      local status, out, err = go_pprof({ "-top", path })
      assert.equal(0, status, cmd.show(status, out, err))
      local top = parse_top(out)
      assert.near(0.58, top.total, top.total_tol + 1e-12, out)
      local flat = {}
      for _, r in ipairs(top.rows) do flat[r.name] = r.flat end
      -- flat = self: a 300 ms, b 100, c 40, x 60, s 50 and 20, y 10
      assert.near(0.3, flat.a, 1e-9, out)
      assert.near(0.04, flat.c, 1e-9, out)
      assert.near(0.05, flat[S5], 1e-9, out)
      assert.near(0.02, flat[S6], 1e-9, out)
      assert.equal(0, flat["<cycle 1>"])
      assert.equal("a", top.rows[1].name)
    end)

    it("lgprof.report.pprof writes the same bytes to a path and to a file handle", function()
      local p <close> = assert(lgprof.open(exe, gmon))
      local a, b = tmpfile(".pb.gz"), tmpfile(".pb.gz")
      assert.is_true(lgprof.report.pprof(p, a))
      local fh = assert(io.open(b, "wb"))
      assert.is_true(lgprof.report.pprof(p, fh))
      fh:close()
      assert.equal(util.slurp(a), util.slurp(b))
      assert.equal(util.slurp(path), util.slurp(a), "the command's bytes")
    end)

    it("rejects unknown and bad options before writing, and reports an unwritable path", function()
      local p <close> = assert(lgprof.open(exe, gmon))
      local target = tmpfile(".pb.gz")
      assert.has_error(function() lgprof.report.pprof(p, target, { bogus = 1 }) end)
      assert.has_error(function() lgprof.report.pprof(p, target, { max_depth = 0 }) end)
      assert.has_error(function() lgprof.report.pprof(p, target, "x") end)
      assert.is_nil(util.slurp(target))
      local ok, err = lgprof.report.pprof(p, TMP .. "/no/such/dir/p.pb.gz")
      assert.is_nil(ok)
      assert.matches("no/such/dir", err)
    end)

    it("a full disk: status 1 and one line, not a silent truncated file", function()
      if not util.exec_ok("test -w /dev/full") then pending("no /dev/full") return end
      local status, out, err = cmd.shell(util.qwords({ cmd.LGPROF, "--format=pprof", exe, gmon })
        .. " >/dev/full")
      cmd.one_line_error(1, status, out, err)
    end)

    it("max_depth cuts the stacks as the folded writer does", function()
      local p <close> = assert(lgprof.open(exe, gmon))
      local d = pb.profile(assert(require("lgprof.format.pprof").encode(p, { max_depth = 1 })))
      assert.equal(1, #d.sample)
      assert.same({ 58, TOTAL_NS }, d.sample[1].value)
    end)
  end)

  describe("every fixture program, read by go tool pprof", function()
    for _, variant in ipairs(TOP_VARIANTS) do
      for _, name in ipairs(fx.programs()) do
        it(name .. " " .. variant .. ": -top's total is print_time, its top function the heaviest by self", function()
          if not HAVE_GO then pending("go (golang-go) not installed") return end
          local s = snapshot(name, variant)
          local path = tmpfile(".pb.gz")
          local status, out, err = cmd.lgprof({ "--format=pprof", s.exe, s.gmon[1] })
          assert.equal(0, status, cmd.show(status, out, err))
          util.spit(path, out)
          local st2, top_out, err2 = go_pprof({ "-top", path })
          assert.equal(0, st2, cmd.show(st2, top_out, err2))
          local top = parse_top(top_out)
          local p <close> = assert(lgprof.open(s.exe, s.gmon[1]))
          assert.is_not_nil(top.total, top_out)
          -- the stacks are whole microseconds adding up to print_time
          assert.near(p.print_time, top.total, top.total_tol + 2e-6, top_out)
          if p.print_time == 0 then return end
          -- the heaviest by self: pprof's flat is the self time, up to the
          -- folded stacks' rounding (a microsecond a stack) and the subtrees
          -- lighter than min_weight (1e-4 of the total) left with their top frame
          local slack = p.print_time * 1e-4 + 1e-5
          local best = 0
          for f in p:functions() do best = math.max(best, f.self) end
          local ok_names = {}
          for f in p:functions() do
            if f.self >= best - slack then ok_names[f.name] = true end
          end
          local first = top.rows[1]
          assert.is_not_nil(first, top_out)
          local shown = first.name:gsub(" %[0x%x+%]$", "")
          assert.is_true(ok_names[shown] == true, ("pprof's top function %q is not among lgprof's heaviest by self"
            .. " (%g s):\n%s"):format(first.name, best, top_out))
          assert.near(best, first.flat, first.flat_tol + slack, top_out)
        end)
      end
    end

    for _, name in ipairs(fx.programs()) do
      it(name .. " " .. LIST_VARIANT .. ": -list and -svg work", function()
        if not HAVE_GO then pending("go (golang-go) not installed") return end
        local b = snapshot(name, LIST_VARIANT)
        local path = tmpfile(".pb.gz")
        local status, out, err = cmd.lgprof({ "--format=pprof", b.exe, b.gmon[1] })
        assert.equal(0, status, cmd.show(status, out, err))
        util.spit(path, out)
        local p <close> = assert(lgprof.open(b.exe, b.gmon[1]))
        if p.print_time == 0 then return end
        local best
        for f in p:functions() do
          if f.file and (not best or f.self > best.self) then best = f end
        end
        assert.is_not_nil(best, "no function with a source file")
        local re = "^" .. best.name:gsub("[%^%$%(%)%.%[%]%*%+%?{}|\\]", "\\%0") .. "( \\[0x[0-9a-f]+\\])?$"
        local st, lout, lerr = go_pprof({ "-list=" .. re, path })
        assert.equal(0, st, cmd.show(st, lout, lerr))
        assert.matches("ROUTINE =+ ", lout)
        if not HAVE_DOT then pending("dot (graphviz) not installed") return end
        local st3, svg, serr = go_pprof({ "-svg", path })
        assert.equal(0, st3, cmd.show(st3, svg:sub(1, 200), serr))
        assert.matches("<svg", svg)
        assert.matches("</svg>%s*$", svg)
      end)
    end
  end)
end)
