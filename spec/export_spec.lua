-- lgprof.report.{callgrind,json,csv,folded} and `lgprof --format=FMT`: every
-- fixture program (two build variants) and a filtered view of each, each
-- format read back by its consumer: valgrind's callgrind_annotate (and a
-- callgrind parser here for the call lines), lua-cjson and python3's json
-- module, an RFC 4180 parser written here, and the folded-stack rules
-- (frames joined by ';', the value after the last space) with every adjacent
-- pair of frames checked against the call graph. Expected numbers come from
-- the Lua API. A consumer that is not installed makes its tests pending.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd

local VARIANTS = { "O0g-nopie", "O2-pie" }
local HAVE_ANNOTATE = util.have("callgrind_annotate")
local HAVE_PYTHON = util.have("python3")
local HAVE_CJSON, cjson = pcall(require, "cjson")

local TMP = util.mktempdir("lgprof-export")
local seq = 0
local function tmpname(ext)
  seq = seq + 1
  return ("%s/%d.%s"):format(TMP, seq, ext)
end

-- Writes a format through the API to a file; returns its path and contents.
local function export(p, fmt, options)
  local path = tmpname(fmt)
  local ok, err = lgprof.report[fmt](p, path, options)
  assert(ok, err)
  return path, util.slurp(path)
end

local function ns(seconds) return math.floor(seconds * 1e9 + 0.5) end

-- The functions every export lists (sampled, called or calling), and the
-- labels callgrind and folded give them (address appended to shared names).
local function listed(p)
  local has_arc, list, count = {}, {}, {}
  for a in p:arcs() do
    has_arc[a.caller.address] = true
    has_arc[a.callee.address] = true
  end
  for fn in p:symbols() do
    if fn.flat_self ~= 0 or fn.calls ~= 0 or fn.self_calls ~= 0 or has_arc[fn.address] then
      list[#list + 1] = fn
      count[fn.name] = (count[fn.name] or 0) + 1
    end
  end
  local label = {}
  for _, fn in ipairs(list) do
    local l = fn.name
    if count[fn.name] > 1 then l = ("%s [0x%x]"):format(l, fn.address) end
    label[fn.address] = l
  end
  return list, label
end

-- {================================================== callgrind

-- callgrind_annotate's PROGRAM TOTALS and per-function ("file:fn") costs.
local function annotate(path)
  local _, out, stderr = cmd.run({ "callgrind_annotate", "--threshold=100", "--auto=no", path },
    { cwd = TMP })
  local total, fns, state = nil, {}, 0
  for line in out:gmatch("[^\n]*") do
    if state == 0 and line:match("PROGRAM TOTALS") then
      total = tonumber((line:match("^%s*([%d,]+)"):gsub(",", "")))
    elseif state == 0 and line:match("file:function%s*$") then
      state = 1
    elseif state == 1 and line:match("^%-%-%-") then
      state = 2
    elseif state == 2 then
      if line == "" then break end
      local num, rest = line:match("^%s*([%d,]+)%s+(.*)$")
      assert(num, "unparsed callgrind_annotate line: " .. line)
      rest = rest:gsub("^%(%s*[%d.]+%%%)%s+", "")
      local key = rest:match("^(.*) %[[^%[]*%]$") or rest
      fns[key] = (fns[key] or 0) + tonumber((num:gsub(",", "")))
    end
  end
  return total, fns, stderr, out
end

-- The call lines of a callgrind file: {caller label, callee label, count, cost}.
local function callgrind_calls(text)
  local names, fn, cfn, pending_calls = { fn = {}, fl = {} }, nil, nil, nil
  local calls, fn_lines = {}, {}
  local function name(kind, v)
    local id, rest = v:match("^%((%d+)%)%s*(.*)$")
    if not id then return v end
    if rest ~= "" then names[kind][id] = rest end
    return names[kind][id]
  end
  local body = false
  for line in text:gmatch("([^\n]*)\n") do
    if not body then
      body = line:match("^events:") ~= nil
    elseif line:match("^fn=") then
      fn = name("fn", line:sub(4))
    elseif line:match("^cfn=") then
      cfn = name("fn", line:sub(5))
    elseif line:match("^c?fl=") then
      name("fl", line:match("=(.*)$"))
    elseif line:match("^calls=") then
      pending_calls = tonumber(line:match("^calls=(%d+)"))
    elseif line:match("^%d+ %d+$") then
      local cost = tonumber(line:match(" (%d+)$"))
      if pending_calls then
        calls[#calls + 1] = { fn, cfn, pending_calls, cost }
        pending_calls = nil
      else
        fn_lines[fn] = (fn_lines[fn] or 0) + cost
      end
    end
  end
  return calls, fn_lines
end

local function check_callgrind(p)
  local path, text = export(p, "callgrind")
  assert.matches("^# callgrind format\n", text)
  local list, label = listed(p)
  local total, fns, stderr, out = annotate(path)
  assert.are.equal("", stderr)
  assert.is_not_nil(total, out)
  assert.are.equal(ns(p.total_time), total)
  local want = {}
  for _, fn in ipairs(list) do
    local key = (fn.file or "???") .. ":" .. label[fn.address]
    assert.is_nil(want[key], "two functions under " .. key)
    want[key] = ns(fn.flat_self)
  end
  for key, v in pairs(want) do
    assert.are.equal(v, fns[key], "self cost of " .. key)
  end
  for key in pairs(fns) do assert.is_not_nil(want[key], "unexpected " .. key) end
  -- every arc once, with its count and inclusive cost (0 inside a cycle)
  local calls = callgrind_calls(text)
  local arcs = {}
  for a in p:arcs() do
    arcs[#arcs + 1] = a
  end
  assert.are.equal(#arcs, #calls)
  local by = {}
  for _, c in ipairs(calls) do by[c[1] .. "\0" .. c[2]] = c end
  for _, a in ipairs(arcs) do
    local c = by[label[a.caller.address] .. "\0" .. label[a.callee.address]]
    assert.is_not_nil(c, "arc missing: " .. a.caller.name .. " -> " .. a.callee.name)
    assert.are.equal(a.count, c[3])
    local inclusive = 0
    if not (a.in_cycle or a.is_recursive) then
      -- a sum, which the exporter makes from another float (the ticks
      -- summed, then scaled): a value within the float error of a half
      -- nanosecond rounds either way
      local t = a.self + a.children
      inclusive = ns(t * (1 - 1e-12))
      if c[4] == ns(t * (1 + 1e-12)) then inclusive = c[4] end
    end
    assert.are.equal(inclusive, c[4])
  end
  return #list
end

-- }==================================================

-- {================================================== JSON

local function eq(a, b, what)
  if b == nil then b = cjson.null end
  assert(a == b, ("%s: json %s, API %s"):format(what, tostring(a), tostring(b)))
end

local function check_json(p)
  local _, text = export(p, "json")
  local j = cjson.decode(text)
  eq(j.format, "lgprof-profile", "format")
  eq(j.version, 4, "version")
  eq(j.totals.samples, p.samples, "totals.samples")
  eq(j.units.time, "seconds", "units.time")
  eq(j.estimated.propagated_times_are_estimates, true, "estimate flag")
  local flagged = {}
  for _, f in ipairs(j.estimated.fields) do flagged[f] = true end
  assert.is_true(flagged["functions.children"] and flagged["arcs.children"] and
    flagged["arcs.self"] and not flagged["functions.flat_self"])
  eq(j.totals.time, p.total_time, "totals.time")
  eq(j.totals.call_graph_time, p.print_time, "totals.call_graph_time")
  eq(j.totals.base_time, p.is_view and p.base_time or p.total_time, "totals.base_time")
  eq(j.is_view, p.is_view, "is_view")
  eq(j.hz, p.hz, "hz")
  eq(j.totals.cycles, p.cycle_count, "cycles")
  local list = listed(p)
  assert.are.equal(#list, #j.functions)
  eq(j.totals.functions, #list, "totals.functions")
  local by_index = {}
  for _, jf in ipairs(j.functions) do by_index[jf.index] = jf end
  for _, fn in ipairs(list) do
    local jf = by_index[fn.index]
    assert.is_not_nil(jf, "function missing: " .. fn.name)
    for _, k in ipairs({ "name", "symbol", "address", "size", "file", "line", "is_static",
                         "flat_self", "flat_percent", "self", "children", "total", "percent",
                         "calls", "self_calls", "member_calls", "printed", "samples",
                         "self_error", "total_min", "total_max", "total_max_exact",
                         "is_spontaneous" }) do
      eq(jf[k], fn[k], fn.name .. "." .. k)
    end
    eq(jf.cycle, fn.cycle and fn.cycle.number, fn.name .. ".cycle")
  end
  local n, pairs_seen = 0, {}
  for a in p:arcs() do
    n = n + 1
    local ja = j.arcs[n]
    -- one arc per (caller, callee) pair, in a view too (hide merges the
    -- arcs it creates with those that exist)
    local pair = ja.caller .. ">" .. ja.callee
    assert.is_nil(pairs_seen[pair], "two arcs " .. pair)
    pairs_seen[pair] = true
    eq(ja.caller, a.caller.index, "arc caller")
    eq(ja.callee, a.callee.index, "arc callee")
    for _, k in ipairs({ "count", "self", "children", "is_recursive", "in_cycle", "is_static",
                         "is_tail", "is_estimated" }) do
      eq(ja[k], a[k], "arc " .. a.caller.name .. " -> " .. a.callee.name .. " " .. k)
    end
  end
  assert.are.equal(n, #j.arcs)
  n = 0
  for cyc in p:cycles() do
    n = n + 1
    local jc = j.cycles[n]
    for _, k in ipairs({ "number", "index", "name", "self", "children", "total", "percent",
                         "calls", "internal_calls", "samples", "self_error", "total_min",
                         "total_max", "total_max_exact", "is_spontaneous" }) do
      eq(jc[k], cyc[k], cyc.name .. "." .. k)
    end
    local m = 0
    for member, from in cyc:members() do
      m = m + 1
      eq(jc.members[m].index, member.index, cyc.name .. " member")
      eq(jc.members[m].calls_from_members, from, cyc.name .. " member calls")
    end
    assert.are.equal(m, #jc.members)
  end
  assert.are.equal(n, #j.cycles)
end

-- }==================================================

-- {================================================== CSV

-- RFC 4180: records end with CRLF; a field is quoted when it holds a comma,
-- a quote or a line break, and a quote inside is doubled. Returns the rows
-- and how many fields were quoted.
local function parse_csv(text)
  local rows, pos, quoted = {}, 1, 0
  while pos <= #text do
    local row = {}
    while true do
      local field
      if text:sub(pos, pos) == '"' then
        local parts, i = {}, pos + 1
        while true do
          local q = text:find('"', i, true)
          assert(q, "unterminated quoted field")
          parts[#parts + 1] = text:sub(i, q - 1)
          if text:sub(q + 1, q + 1) == '"' then
            parts[#parts + 1] = '"'
            i = q + 2
          else
            pos = q + 1
            break
          end
        end
        field = table.concat(parts)
        quoted = quoted + 1
      else
        local e = text:find("[,\r\n\"]", pos) or #text + 1
        assert(text:sub(e, e) ~= '"', "quote inside an unquoted field")
        field = text:sub(pos, e - 1)
        pos = e
      end
      row[#row + 1] = field
      local c = text:sub(pos, pos)
      if c == "," then
        pos = pos + 1
      else
        assert(text:sub(pos, pos + 1) == "\r\n", "record not ended by CRLF at " .. pos)
        pos = pos + 2
        break
      end
    end
    rows[#rows + 1] = row
  end
  -- as records keyed by the header
  local header, recs = rows[1], {}
  for i = 2, #rows do
    assert.are.equal(#header, #rows[i], "row " .. i .. " has another number of fields")
    local r = {}
    for k, name in ipairs(header) do r[name] = rows[i][k] end
    recs[#recs + 1] = r
  end
  return recs, quoted, header
end

local function num(s) return s ~= "" and tonumber(s) or nil end

local function check_csv(p)
  local _, text = export(p, "csv")
  local recs, quoted = parse_csv(text)
  local list = listed(p)
  local inlist = {}
  for _, fn in ipairs(list) do inlist[fn.address] = true end
  local i, cum = 0, 0
  for fn in p:flat { zeros = true } do -- flat order, rows without samples or calls too
    if inlist[fn.address] then
      i = i + 1
      local r = recs[i]
      assert.is_not_nil(r, "row missing for " .. fn.name)
      cum = cum + fn.flat_self
      assert.are.equal(fn.name, r.name)
      assert.are.equal(fn.file, r.file ~= "" and r.file or nil)
      assert.are.equal(fn.line, num(r.line))
      assert.are.equal(("0x%x"):format(fn.address), r.address)
      assert.is_true(fn.flat_percent == num(r.percent_time), fn.name)
      assert.is_true(fn.flat_self == num(r.self_seconds), fn.name)
      assert.is_true(cum == num(r.cumulative_seconds), fn.name)
      assert.is_true(fn.children == num(r.children_seconds), fn.name)
      assert.is_true(fn.total == num(r.total_seconds), fn.name)
      assert.are.equal(fn.calls, num(r.calls))
      assert.are.equal(fn.self_calls, num(r.self_calls))
      assert.are.equal(fn.index, num(r.index))
      assert.are.equal(fn.cycle and fn.cycle.number, num(r.cycle))
      assert.is_true(fn.samples == num(r.samples), fn.name)
      assert.is_true(fn.self_error == num(r.self_error_seconds), fn.name)
      assert.is_true(fn.total_min == num(r.total_min_seconds), fn.name)
      assert.is_true(fn.total_max == num(r.total_max_seconds), fn.name)
    end
  end
  assert.are.equal(i, #recs)
  -- version 2's columns first, in their order: readers by position keep working
  assert.are.equal("rank,name,file,line,address,percent_time,cumulative_seconds,self_seconds,"
    .. "calls,self_calls,children_seconds,total_seconds,index,cycle,samples,self_error_seconds,"
    .. "total_min_seconds,total_max_seconds", text:match("^[^\r]*"))
  local _, atext = export(p, "csv", { table = "arcs" })
  local arecs, aquoted = parse_csv(atext)
  i = 0
  for a in p:arcs() do
    i = i + 1
    local r = arecs[i]
    assert.are.equal(a.caller.name, r.caller)
    assert.are.equal(a.callee.name, r.callee)
    assert.are.equal(a.count, num(r.count))
    assert.is_true(a.self == num(r.self_seconds) and a.children == num(r.children_seconds))
    assert.are.equal(a.in_cycle and "1" or "0", r.in_cycle)
    assert.are.equal(a.is_recursive and "1" or "0", r.recursive)
    assert.are.equal(a.caller.index, num(r.caller_index))
    assert.are.equal(a.callee.index, num(r.callee_index))
    assert.are.equal(a.is_static and "1" or "0", r.is_static)
    assert.are.equal(a.is_tail and "1" or "0", r.is_tail)
    assert.are.equal(a.is_estimated and "1" or "0", r.is_estimated)
  end
  assert.are.equal(i, #arecs)
  assert.are.equal("caller,callee,count,self_seconds,children_seconds,in_cycle,recursive,"
    .. "caller_index,callee_index,caller_address,callee_address,is_static,is_tail,is_estimated",
    atext:match("^[^\r]*"))
  return quoted + aquoted
end

-- }==================================================

-- {================================================== folded stacks

-- Lines "frame;frame;... value": frames and integer values (microseconds).
local function parse_folded(text)
  local stacks = {}
  for line in text:gmatch("([^\n]*)\n") do
    local path, v = line:match("^(.*) (%d+)$")
    assert(path, "malformed folded line: " .. line)
    local frames = {}
    for f in (path .. ";"):gmatch("([^;]*);") do
      assert(f ~= "", "empty frame in " .. line)
      frames[#frames + 1] = f
    end
    stacks[#stacks + 1] = { frames = frames, value = tonumber(v) }
  end
  return stacks
end

-- Checks every stack against the call graph; returns the sum of the values
-- and the time each function ends stacks with (its self time in the stacks).
local function check_folded(p, options)
  local _, text = export(p, "folded", options)
  local _, label = listed(p)
  local unit_of, members = {}, {}
  for _, fn in ipairs((listed(p))) do
    unit_of[label[fn.address]] = fn.cycle and fn.cycle.name or label[fn.address]
    if fn.cycle then
      members[fn.cycle.name] = members[fn.cycle.name] or {}
      members[fn.cycle.name][label[fn.address]] = true
    end
  end
  local edge = {}
  for a in p:arcs() do
    local u = unit_of[label[a.caller.address]]
    local v = unit_of[label[a.callee.address]]
    if u ~= v then edge[u .. "\0" .. v] = true end
  end
  local sum, leaf, seen = 0, {}, {}
  local max_depth = options and options.max_depth or 64
  for _, s in ipairs(parse_folded(text)) do
    local f = s.frames
    local key = table.concat(f, ";")
    assert.is_nil(seen[key], "one stack on two lines: " .. key)
    seen[key] = true
    sum = sum + s.value
    assert.is_true(s.value > 0)
    for k = 1, #f do
      local member = k == #f and k > 1 and members[f[k - 1]] and members[f[k - 1]][f[k]]
      assert.is_not_nil(unit_of[f[k]] or members[f[k]], "unknown frame " .. f[k])
      if k > 1 and not member then
        assert.is_true(edge[f[k - 1] .. "\0" .. f[k]] ~= nil,
          ("no call from %s to %s"):format(f[k - 1], f[k]))
      end
    end
    assert.is_true(#f <= max_depth, "stack deeper than the limit")
    leaf[f[#f]] = (leaf[f[#f]] or 0) + s.value
  end
  return sum, leaf, text
end

-- }==================================================

local programs = fx.programs()

describe("lgprof.format.report", function()
  lazy_teardown(function() util.rmtree(TMP) end)
  -- every JSON export of the loop below, read back by one python3 at the end
  -- (one interpreter: python3 takes most of a second to start here)
  local json_files = {}

  for _, variant in ipairs(VARIANTS) do
    for _, name in ipairs(programs) do
      local function open()
        local b = assert(fx.build(name, variant))
        return assert(lgprof.open(b.exe, b.gmon))
      end

      -- a view hiding the heaviest function that has callers
      local function view(p)
        local best
        for fn in p:flat() do
          if fn.calls > 0 and (not best or fn.flat_self > best.flat_self) then best = fn end
        end
        local pat = best and ("^" .. best.name:gsub("[%^%$%(%)%.%[%]%*%+%?{}|\\]", "\\%0") .. "$")
          or "^$x"
        return assert(p:filter { hide = pat })
      end

      describe(name .. " " .. variant, function()
        it("callgrind: callgrind_annotate's totals and self costs are lgprof's", function()
          if not HAVE_ANNOTATE then pending("callgrind_annotate (valgrind) not installed") return end
          local p = open()
          assert.is_true(check_callgrind(p) > 0)
          check_callgrind(view(p))
        end)

        it("json: lua-cjson reads back the Lua API's numbers", function()
          if not HAVE_CJSON then pending("lua-cjson not installed") return end
          local p = open()
          check_json(p)
          check_json(view(p))
        end)

        it("json: written for python3's json module", function()
          local p = open()
          for _, q in ipairs({ p, view(p) }) do json_files[#json_files + 1] = export(q, "json") end
        end)

        it("csv: both tables read back with an RFC 4180 parser", function()
          local p = open()
          check_csv(p)
          check_csv(view(p))
        end)

        it("folded: real call chains adding up to the call graph's time", function()
          local p = open()
          for _, q in ipairs({ p, view(p) }) do
            local sum = check_folded(q)
            assert.is_true(math.abs(sum - q.print_time * 1e6) <= 1,
              ("sum %d, print_time %.6f"):format(sum, q.print_time))
            -- broken down completely, each function ends stacks with its self time
            local full, leaf, text = check_folded(q, { min_weight = 0, max_depth = 10000 })
            assert.is_true(math.abs(full - q.print_time * 1e6) <= 1)
            local nlines = select(2, text:gsub("\n", ""))
            local _, label = listed(q)
            for fn in q:symbols() do
              local l = label[fn.address]
              if l and fn.self > 0 then
                assert.is_true(math.abs((leaf[l] or 0) - fn.self * 1e6) <= nlines + 1,
                  ("%s: %s in stacks, self %.6f s"):format(l, tostring(leaf[l]), fn.self))
              end
            end
          end
        end)
      end)
    end
  end

  it("json: python3's json module reads every export above", function()
    if not HAVE_PYTHON then pending("python3 not installed") return end
    assert.is_true(#json_files >= 2 * #programs * #VARIANTS, "the exports were not all written")
    local prog = "import json, sys\nfor f in sys.argv[1:]:\n"
      .. "    try:\n        json.load(open(f, encoding='utf-8'))\n"
      .. "    except Exception as e:\n        print(f, e)\n"
    local argv = { "python3", "-c", prog }
    table.move(json_files, 1, #json_files, #argv + 1, argv)
    local status, out, err = cmd.run(argv)
    assert.are.equal(0, status, err)
    assert.are.equal("", out, "python3's json module rejects:\n" .. out)
  end)

  describe("folded stacks", function()
    it("keep the depth limit and the weight cutoff, and the total", function()
      local b = assert(fx.build("deeprec", "O0g-nopie"))
      local p = assert(lgprof.open(b.exe, b.gmon))
      local full = check_folded(p, { min_weight = 0, max_depth = 10000 })
      local s2, _, t2 = check_folded(p, { max_depth = 2 })
      assert.is_true(math.abs(s2 - full) <= 1)
      for line in t2:gmatch("[^\n]+") do
        assert.is_true(select(2, line:gsub(";", "")) <= 2, line)
      end
      local s3, _, t3 = check_folded(p, { min_weight = 0.5 })
      assert.is_true(math.abs(s3 - full) <= 1)
      local lines = select(2, t3:gsub("\n", ""))
      assert.is_true(lines <= 2 * 64 + 1, "a 0.5 cutoff leaves few stacks: " .. lines)
      -- a share is a fraction or a percent string, as everywhere
      local _, _, t4 = check_folded(p, { min_weight = "50%" })
      assert.are.equal(t3, t4)
    end)
  end)

  describe("callgrind source files", function()
    -- A program compiled in a known folder (a space and a dash in its path)
    -- from relative source names, one of them "./src/../src/work.c"; its
    -- profile is synthesized (samples in work and main, main -> work).
    local function build_tree()
      local tree = TMP .. "/src tree-1"
      assert(util.exec_ok("mkdir -p " .. util.q(tree .. "/src")))
      cmd.write(tree .. "/src/main.c", "void work(int);\nint main(void)\n{\n  work(3);\n"
        .. "  return 0;\n}\n")
      cmd.write(tree .. "/src/work.c", "volatile int sink;\nvoid work(int n)\n{\n"
        .. "  while (n-- > 0) sink += n; /* work.c: the loop */\n}\n")
      local status, out, err = cmd.run({ "gcc", "-g", "-O0", "-fno-pie", "-no-pie", "-o", "prog",
        "src/main.c", "./src/../src/work.c" }, { cwd = tree })
      assert.are.equal(0, status, cmd.show(status, out, err))
      local addr = {}
      for a, name in util.read_cmd(util.NM .. " " .. util.q(tree .. "/prog")):gmatch("(%x+) T (%w+)") do
        addr[name] = tonumber(a, 16)
      end
      local gw = H.gmonwriter
      local h = gw.glibc_hist(math.min(addr.main, addr.work), math.max(addr.main, addr.work) + 16)
      h.bins[gw.bin_for(h, addr.work + 4)] = 50
      h.bins[gw.bin_for(h, addr.main + 4)] = 10
      gw.write(tree .. "/gmon.out", { hist = { h },
        arcs = { { from = addr.main + 8, to = addr.work + 4, count = 1 } } })
      return tree
    end

    it("are absolute paths that exist, and callgrind_annotate finds them", function()
      local tree = build_tree()
      local p = assert(lgprof.open(tree .. "/prog", tree .. "/gmon.out"))
      local path, text = export(p, "callgrind")
      local files = {}
      for name in text:gmatch("\nc?fl=%(%d+%) ([^\n]+)") do files[#files + 1] = name end
      table.sort(files)
      -- "." segments dropped, ".." kept (a symbolic link makes "a/.." another folder)
      assert.are.same({ tree .. "/src/../src/work.c", tree .. "/src/main.c" }, files)
      for _, f in ipairs(files) do
        assert.is_true(util.exec_ok("test -f " .. util.q(f)), f .. " does not exist")
      end
      -- the API's file is the name gprof prints (-L, -C, -A): BFD's join of
      -- the compilation directory and DWARF's name, not normalised
      assert.are.equal(tree .. "/./src/../src/work.c", assert(p:find("work")).file)
      if not HAVE_ANNOTATE then pending("callgrind_annotate (valgrind) not installed") return end
      -- run from elsewhere: only an absolute name can be found
      local status, out, err = cmd.run({ "callgrind_annotate", "--auto=yes", "--threshold=100", path },
        { cwd = "/" })
      assert.are.equal(0, status, cmd.show(status, out, err))
      assert.matches("Auto%-annotated source: " .. tree:gsub("%p", "%%%0") .. "/src/main%.c", out)
      assert.matches("/%* work%.c: the loop %*/", out)
      assert.is_nil(out:find("could not be found", 1, true), out)
    end)
  end)

  describe("folded stacks of a synthesized profile", function()
    -- main -> <cycle 1> (a <-> b), both members calling leaf (1 and 3
    -- calls); main calls "p;q" and "p:q", whose frames both read "p:q".
    -- leaf 100 samples (1 s), p;q 10, p:q 30 (one bin per function, no
    -- rounding): the call graph's time is 1.4 s, all of it under main.
    local function synthesized()
      local exe, gmon = H.synth.write(TMP, "fold", {
        funcs = { { "main", 0 }, { "a", 0 }, { "b", 0 }, { "leaf", 100 },
                  { "p;q", 10 }, { "p:q", 30 } },
        arcs = { { "main", "a", 1 }, { "a", "b", 1 }, { "b", "a", 1 }, { "a", "leaf", 1 },
                 { "b", "leaf", 3 }, { "main", "p;q", 1 }, { "main", "p:q", 1 } },
      })
      return assert(lgprof.open(exe, gmon))
    end

    it("give each stack one line, its values summed", function()
      local p = synthesized()
      assert.are.equal(1.4, p.print_time)
      -- by hand: leaf's 1 s reaches main only through the cycle (a -> leaf
      -- 0.25 s, b -> leaf 0.75 s: one stack); p;q and p:q are one frame text
      assert.are.equal("main;<cycle 1>;leaf 1000000\nmain;p:q 400000\n",
        select(2, export(p, "folded")))
      -- the weight cutoff judges the stack, not each arc: with 0.6 of 1.4 s
      -- (0.84 s), leaf's 1 s is broken down though neither arc reaches
      -- 0.84 s; p;q and p:q (0.4 s together) stay with main
      assert.are.equal("main;<cycle 1>;leaf 1000000\nmain 400000\n",
        select(2, export(p, "folded", { min_weight = 0.6 })))
    end)
  end)

  describe("total_time, print_time and callgrind's costs (README: Export formats)", function()
    -- f [0x401000, +16), g [+16, +32), etext; a histogram from 8 bytes
    -- below f to etext: 20 units of 2 bytes in 16 bins, so gprof's bin
    -- width is 20/16 = 1.25 units while the bins' edges, truncated to whole
    -- units, are 0 1 2 3 5 6 7 8 10 11 12 13 15 16 17 18 20 (f is units
    -- 4-12, g 12-20). A bin credits count * (units it covers) / 1.25.
    local T = 0x401000
    local function open(tag, bins)
      local exe = TMP .. "/bins"
      H.elfwriter.write(exe, { text_addr = T, text_size = 32, symbols = {
        { name = "f", addr = T, size = 16 }, { name = "g", addr = T + 16, size = 16 },
        { name = "etext", addr = T + 32, type = "notype" } } })
      local h = { low = T - 8, high = T + 32, n_bins = 16, rate = 100, dimen = "seconds",
                  abbrev = "s", bins = bins }
      local gmon = TMP .. "/bins." .. tag
      H.gmonwriter.write(gmon, { hist = { h }, arcs = { { from = T + 4, to = T + 20, count = 1 } } })
      return assert(lgprof.open(exe, gmon))
    end
    local function callgrind_sum(p)
      local _, text = export(p, "callgrind")
      local _, fn_cost = callgrind_calls(text)
      local sum = 0
      for _, v in pairs(fn_cost) do sum = sum + v end
      return sum, tonumber(text:match("\nsummary: (%d+)")), tonumber(text:match("\ntotals: (%d+)"))
    end

    it("differ with no option: less when samples fall outside every function or in narrow bins", function()
      -- 5 samples in bin 1 (units 0-1: no function), 10 in bin 5 (units 5-6,
      -- 1 unit of f: 10 / 1.25 = 8 ticks)
      local p = open("less", { [1] = 5, [5] = 10 })
      assert.are.equal(0.15, p.total_time)                    -- 15 samples
      assert.are.equal(0.08, p.print_time)                    -- f's 8 ticks
      assert.are.equal(0.08, assert(p:find("f")).flat_self)
      local sum, summary, totals = callgrind_sum(p)
      assert.are.same({ 80000000, 150000000, 150000000 }, { sum, summary, totals })
    end)

    it("differ with no option: more when bins are wider than gprof's bin width", function()
      -- 10 samples in bin 8 (units 8-10 of f: 10 * 2 / 1.25 = 16 ticks), 20
      -- in bin 12 (units 13-15 of g: 32 ticks)
      local p = open("more", { [8] = 10, [12] = 20 })
      assert.are.equal(0.30, p.total_time)
      assert.are.equal(0.48, p.print_time)
      assert.are.equal(0.16, assert(p:find("f")).flat_self)
      assert.are.equal(0.32, assert(p:find("g")).flat_self)
      local sum, summary = callgrind_sum(p)
      assert.are.same({ 480000000, 300000000 }, { sum, summary })
      -- print_time is the sum of the functions' self times
      local self = 0
      for fn in p:symbols() do self = self + fn.self end
      assert.is_true(math.abs(self - p.print_time) < 1e-12)
    end)
  end)

  describe("CSV quoting", function()
    it("quotes C++ names holding commas", function()
      local quoted = 0
      for _, name in ipairs(programs) do
        local b = assert(fx.build(name, "O0g-nopie"))
        quoted = quoted + check_csv(assert(lgprof.open(b.exe, b.gmon)))
      end
      assert.is_true(quoted > 0, "no fixture name needed quoting")
    end)
  end)

  describe("API", function()
    local b, p
    before_each(function()
      b = assert(fx.build("classic", "O0g-nopie"))
      p = assert(lgprof.open(b.exe, b.gmon))
    end)

    it("writes to an open file and leaves it open", function()
      local path = tmpname("json")
      local f = assert(io.open(path, "w"))
      assert.is_true(lgprof.report.json(p, f))
      assert.are.equal("file", io.type(f))
      f:close()
      assert.are.equal(select(2, export(p, "json")), util.slurp(path))
    end)

    it("rejects unknown options and bad values", function()
      assert.has_error(function() lgprof.report.json(p, tmpname("x"), { bogus = 1 }) end)
      assert.has_error(function() lgprof.report.csv(p, tmpname("x"), { table = "rows" }) end)
      assert.has_error(function() lgprof.report.folded(p, tmpname("x"), { max_depth = 0 }) end)
      assert.has_error(function() lgprof.report.folded(p, tmpname("x"), { min_weight = 2 }) end)
      assert.has_error(function() lgprof.report.callgrind(p, tmpname("x"), { table = "arcs" }) end)
      assert.has_error(function() lgprof.report.json({}, tmpname("x")) end)
    end)

    it("returns nil and a message when the file cannot be created", function()
      local ok, err = lgprof.report.callgrind(p, TMP .. "/no/such/dir/out")
      assert.is_nil(ok)
      assert.matches("no/such/dir", err)
    end)
  end)

  describe("lgprof --format", function()
    local b
    before_each(function() b = assert(fx.build("cycles", "O0g-nopie")) end)
    -- lgprof with options, the executable and run 1's profile: status, stdout
    local function run(opts)
      local args = { table.unpack(opts) }
      args[#args + 1], args[#args + 2] = b.exe, b.gmon[1]
      return cmd.lgprof(args)
    end

    it("writes what lgprof.report writes, with gprof's options applied", function()
      local p = assert(lgprof.open(b.exe, b.gmon[1]))
      for fmt, api in pairs({ callgrind = { "callgrind" }, json = { "json" },
                              csv = { "csv" }, ["csv-arcs"] = { "csv", { table = "arcs" } },
                              folded = { "folded" } }) do
        local status, out, err = run({ "--format=" .. fmt })
        assert.are.equal(0, status, fmt .. ": " .. err)
        assert.are.equal(select(2, export(p, api[1], api[2])), out, fmt)
      end
      local k = assert(lgprof.open(b.exe, b.gmon[1], { exclude_arcs = { "a3/a1" } }))
      local status, out = run({ "--format=json", "-k", "a3/a1" })
      assert.are.equal(0, status)
      assert.are.equal(select(2, export(k, "json")), out)
      assert.are_not.equal(select(2, export(p, "json")), out)
      status, out = run({ "--format=gprof", "-b" })
      assert.are.equal(0, status)
      assert.are.equal(select(2, run({ "-b" })), out)
    end)

    it("exits with status 1 on a write error", function()
      if not util.exec_ok("test -w /dev/full") then pending("no /dev/full") return end
      -- (the shell opens /dev/full for stdout before cmd's own redirection)
      local status = cmd.shell(util.qwords({ cmd.LGPROF, "--format=json", b.exe, b.gmon[1] })
        .. " >/dev/full")
      assert.are.equal(1, status)
    end)

    it("refuses an unknown format with status 2", function()
      assert.are.equal(2, (run({ "--format=xml" })))
    end)
  end)
end)
