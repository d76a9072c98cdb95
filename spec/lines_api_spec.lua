-- profile:lines(), fn:lines(), profile:line() and Line handles, on a program
-- compiled here (spec/fixtures/lines_api/inl.c, -O2 -g) and profiles written
-- by gmonwriter. Each line's numbers are derived independently: its address,
-- file and number from the DWARF line table as libdw reads it
-- (spec/helpers/dwlines.c, compiled here too), its samples from the
-- histogram's bins, its count from the basic-block records; and the lot is
-- compared with gprof -l -b -p on the same files.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd, gw = H.util, H.cmd, H.gmonwriter

local SRC = cmd.ROOT .. "/spec/fixtures/lines_api/inl.c"
local DWLINES = cmd.ROOT .. "/spec/helpers/dwlines.c"
local HZ = 100

local function basename(p) return (p:match("[^/]*$")) end

local function sh(line)
  assert(util.exec_ok(line), "failed: " .. line)
end

-- The rows dwlines prints: {addr, line, fin, file, scope, inlined}.
local function dwarf_rows(dwlines, exe)
  local rows = {}
  for l in util.read_cmd(util.qwords { dwlines, exe }):gmatch("[^\n]+") do
    local a, n, fin, file, scope = l:match("^(%x+) (%d+) ([01]) (.+) (%S+)$")
    assert(a, "dwlines: " .. l)
    rows[#rows + 1] = { addr = tonumber(a, 16), line = tonumber(n), fin = fin == "1",
                        file = file, scope = scope:gsub("^i:", ""),
                        inlined = scope:sub(1, 2) == "i:" }
  end
  return rows
end

-- gprof's line symbols by definition: within a sequence, of several rows at
-- one address the last one counts; in address order, a symbol starts where
-- (file, line, innermost function) differs from the last symbol's; rows of
-- line 0 start nothing. Returns them by address.
local function derive_line_symbols(rows)
  local kept = {}
  for i, r in ipairs(rows) do
    local nxt = rows[i + 1]
    if not r.fin and not (nxt and not nxt.fin and nxt.addr == r.addr) then
      kept[#kept + 1] = r
    end
  end
  table.sort(kept, function(a, b) return a.addr < b.addr end)
  local syms, last = {}, nil
  for _, r in ipairs(kept) do
    if r.line ~= 0 then
      local key = r.file .. "\0" .. r.line .. "\0" .. r.scope
      if key ~= last then
        syms[#syms + 1] = r
        last = key
      end
    end
  end
  return syms
end

-- Functions of the program: name -> {addr, size}, from nm.
local function functions(exe)
  local f = {}
  for a, s, name in util.read_cmd("nm -S " .. util.q(exe)):gmatch("(%x+) (%x+) [Tt] (%w+)\n") do
    f[name] = { addr = tonumber(a, 16), size = tonumber(s, 16) }
  end
  return f
end

-- Every address where gprof's line-mode table starts a symbol: the
-- executable's code symbols (nm) and the derived line symbols.
local function starts(exe, syms)
  local seen, list = {}, {}
  local function add(a)
    if not seen[a] then seen[a] = true; list[#list + 1] = a end
  end
  for a in util.read_cmd("nm " .. util.q(exe)):gmatch("(%x+) [TtW] [^\n]+\n") do
    add(tonumber(a, 16))
  end
  for _, s in ipairs(syms) do add(s.addr) end
  table.sort(list)
  return list
end

-- The samples of the symbol starting at each address: the bins (2 bytes,
-- one unit each) from it up to the next start.
local function expected_samples(list, counts)
  local want = {}
  for i, a in ipairs(list) do
    local n, stop = 0, list[i + 1] and list[i + 1] // 2 or a // 2
    for u = a // 2, stop - 1 do n = n + (counts[u] or 0) end
    want[a] = n
  end
  return want
end

describe("profile:lines()", function()
  local dir, exe, gmon, rows, syms, fns, counts, low, high, block_line, want_samples
  local tmp = util.block_tmpdir("lgprof lines-api")

  setup(function()
    dir = tmp()
    local dwlines = dir .. "/dwlines"
    exe = dir .. "/inl"
    sh(("cc -std=c99 -o %s %s -ldw"):format(util.q(dwlines), util.q(DWLINES)))
    sh(("cc -O2 -g -fno-pie -no-pie -o %s %s"):format(util.q(exe), util.q(SRC)))
    rows = dwarf_rows(dwlines, exe)
    syms = derive_line_symbols(rows)
    fns = functions(exe)
    assert(fns.work and fns.twice and fns.main, "work, twice and main in the symbol table")
    -- a histogram of 2-byte bins from main up to twice's end: every unit
    -- is one bin, so each line's samples are a plain sum of whole bins
    low = math.min(fns.main.addr, fns.work.addr, fns.twice.addr) & ~1
    high = (math.max(fns.main.addr + fns.main.size, fns.work.addr + fns.work.size,
                     fns.twice.addr + fns.twice.size) + 1) & ~1
    counts = {}
    local bins = {}
    for name, f in pairs(fns) do
      if name == "main" or name == "work" or name == "twice" then
        for u = f.addr // 2, (f.addr + f.size - 1) // 2 do
          counts[u] = (u * 37) % 11
          bins[u - low // 2 + 1] = counts[u]
        end
      end
    end
    -- the inlined sq's first line symbol gets blocks of 2000 and 1 (two
    -- records), the next line (3 bytes on: cube's, from inl.h) one of 5;
    -- work's first line one of 3
    for _, s in ipairs(syms) do
      if s.inlined and not block_line then block_line = s end
    end
    assert(block_line, "the program has inlined code")
    want_samples = expected_samples(starts(exe, syms), counts)
    gmon = dir .. "/gmon.out"
    gw.write(gmon, {
      hist = { { low = low, high = high, rate = HZ, dimen = "seconds", abbrev = "s",
                 bins = bins, n_bins = (high - low) // 2 } },
      arcs = { { from = fns.main.addr + 4, to = fns.twice.addr, count = 1 },
               { from = fns.twice.addr + 4, to = fns.work.addr, count = 2 } },
      bb = { { blocks = { { addr = block_line.addr, count = 2000 },
                          { addr = fns.work.addr, count = 3 } } },
             { blocks = { { addr = block_line.addr + 3, count = 5 },
                          { addr = block_line.addr, count = 1 } } } },
    })
  end)

  local function open()
    return assert(lgprof.open(exe, gmon))
  end

  it("has gprof -l's line symbols, each with its DWARF file and line", function()
    local p <close> = open()
    local got = {}
    for l in p:lines() do
      local f = l.func
      if f and (f.name == "work" or f.name == "twice" or f.name == "main")
          and l.address ~= f.address then
        got[l.address] = l
      end
    end
    local n = 0
    for _, s in ipairs(syms) do
      if s.addr ~= fns.work.addr and s.addr ~= fns.twice.addr and s.addr ~= fns.main.addr then
        n = n + 1
        local l = got[s.addr]
        assert(l, ("a Line at 0x%x (%s:%d)"):format(s.addr, basename(s.file), s.line))
        assert.equal("line", l.kind)
        assert.equal(s.file, l.file)
        assert.equal(s.line, l.line)
        assert.equal(s.inlined, l.is_inlined)
        assert.equal(s.inlined and s.scope or nil, l.inlined_from)
      end
    end
    local extra = 0
    for a in pairs(got) do
      extra = extra + 1
      local found = false
      for _, s in ipairs(syms) do found = found or s.addr == a end
      assert(found, ("no line symbol starts at 0x%x"):format(a))
    end
    assert.is_true(n > 5)
  end)

  it("credits each line the histogram's bins in its range; they add up to total_time", function()
    local p <close> = open()
    local all = {}
    for l in p:lines() do all[#all + 1] = l end
    local sum, sampled = 0, 0
    for i, l in ipairs(all) do
      assert.equal(want_samples[l.address] or 0, l.samples, "by the symbols' addresses")
      if l.samples > 0 then sampled = sampled + 1 end
      local want = 0
      local stop = all[i + 1] and all[i + 1].address // 2 or l.address // 2
      for u = l.address // 2, stop - 1 do want = want + (counts[u] or 0) end
      assert.equal(want, l.samples, ("samples of %s"):format(tostring(l)))
      assert.equal(want / HZ, l.self)
      sum = sum + l.self
    end
    assert.is_true(sampled > 5)
    assert.is_true(math.abs(sum - p.total_time) < 1e-9 * p.total_time,
      ("sum %.17g, total_time %.17g"):format(sum, p.total_time))
  end)

  it("agrees with gprof -l -b -p on the same files, row for row", function()
    if not cmd.HAVE_GPROF then pending("no gprof") return end
    local status, out = cmd.gprof({ "-l", "-b", "-p", exe, gmon })
    assert.equal(0, status)
    local p <close> = open()
    local by_addr, shown = {}, 0
    for l in p:lines() do
      by_addr[l.address] = l
      if l.self > 0 or (l.calls and l.calls > 0 and l.address == l.func.address) then shown = shown + 1 end
    end
    local n = 0
    for self, name, file, line, addr in out:gmatch("\n +[%d.]+ +[%d.]+ +([%d.]+) [^\n]-  (%S+) %((.-):(%d+) @ (%x+)%)") do
      n = n + 1
      local l = by_addr[tonumber(addr, 16)]
      assert(l, "a Line at 0x" .. addr)
      assert.equal(self, ("%.2f"):format(l.self))
      assert.equal(name, l.inlined_from or l.func.name)
      assert.equal(file, basename(l.file))
      assert.equal(tonumber(line), l.line)
    end
    assert.is_true(n > 5, out)
    assert.equal(n, shown)
  end)

  it("a line-granularity profile (granularity = \"line\") has the same Lines", function()
    local p <close> = open()
    local q <close> = assert(lgprof.open(exe, gmon, { granularity = "line" }))
    -- every Line, also those of no function (gprof -l drops data_start,
    -- whose preset end lies below its start: neither has it)
    local a, b = {}, {}
    for l in p:lines() do a[#a + 1] = l end
    for l in q:lines() do b[#b + 1] = l end
    assert.equal(#a, #b)
    for i, x in ipairs(a) do
      local y = b[i]
      assert.same({ x.address, x.file, x.line, x.samples, x.calls, x.inlined_from, x.func and x.func.name },
                   { y.address, y.file, y.line, y.samples, y.calls, y.inlined_from, y.func and y.func.name })
    end
  end)

  it("counts a line's executions: its lowest block, else its function's calls", function()
    local p <close> = open()
    local lines = assert(p:line(basename(block_line.file), block_line.line))
    local blk
    for _, l in ipairs(lines) do if l.address == block_line.addr then blk = l end end
    assert(blk, "profile:line finds the block's line")
    assert.equal(2001, blk.calls)
    local work, twice = assert(p:find("work")), assert(p:find("twice"))
    local first = work:lines()()
    assert.equal(fns.work.addr, first.address)
    assert.equal(3, first.calls)      -- a block at work's first address
    assert.equal(1, twice:lines()().calls) -- no block: twice's calls
    for l in twice:lines() do
      if l.address ~= fns.twice.addr then assert.is_nil(l.calls) end
    end
  end)

  it("each known count is one gprof -l -C prints at the line's address", function()
    if not cmd.HAVE_GPROF then pending("no gprof") return end
    local status, out = cmd.gprof({ "-l", "-C", exe, gmon })
    assert.equal(0, status)
    local rows = {}
    for addr, n in out:gmatch(":0x(%x+)%) (%d+) executions") do
      rows[tonumber(addr, 16)] = (rows[tonumber(addr, 16)] or "") .. " " .. n .. " "
    end
    local p <close> = open()
    local n = 0
    for l in p:lines() do
      if l.calls and l.calls > 0 then
        n = n + 1
        assert.truthy((rows[l.address] or ""):find(" " .. l.calls .. " ", 1, true),
          ("%s: calls %d, gprof -C:%s"):format(tostring(l), l.calls, rows[l.address] or " none"))
      end
    end
    assert.equal(4, n) -- twice (its calls), sq's line, cube's line, work (blocks)
  end)

  it("fn:lines() yields exactly the function's lines, in address order", function()
    local p <close> = open()
    local work = assert(p:find("work"))
    local from_all, mine = {}, {}
    for l in p:lines() do
      if l.func == work then from_all[#from_all + 1] = l end
    end
    for l in work:lines() do mine[#mine + 1] = l end
    assert.equal(#from_all, #mine)
    for i = 1, #mine do assert.equal(from_all[i], mine[i]) end
    for i = 2, #mine do assert.is_true(mine[i].address > mine[i - 1].address) end
    assert.is_true(mine[#mine].address <= work.end_address)
  end)

  it("profile:line(file, n) lists every Line of that source line; a path suffix names the file", function()
    local p <close> = open()
    local want = {}
    for l in p:lines() do
      if l.line == block_line.line and l.file == block_line.file then want[#want + 1] = l end
    end
    assert.is_true(#want >= 1)
    for _, name in ipairs { basename(block_line.file), "lines_api/inl.c", block_line.file } do
      local got = assert(p:line(name, block_line.line))
      assert.same(want, got)
    end
    local none, msg = p:line("nl.c", block_line.line)
    assert.is_nil(none)
    assert.equal("no code for nl.c:" .. block_line.line, msg)
    assert.is_nil(p:line(basename(block_line.file), 100000))
  end)

  it("handles: one per line, kind, tostring, unknown fields raise naming the valid ones", function()
    local p <close> = open()
    local a = p:lines()()
    local b = p:lines()()
    assert.is_true(rawequal(a.func, a["function"]))
    assert.is_true(rawequal(a, b))
    assert.equal("line", lgprof.type(a))
    assert.matches("^lgprof%.Line %(", tostring(a))
    local ok, err = pcall(function() return a.self_time end)
    assert.is_false(ok)
    assert.matches("lines_api_spec.lua:%d+: Line has no field 'self_time' %(fields: kind, file, path, line,", err)
    p:close()
    assert.has_error(function() return a.self end, "attempt to use an object of a closed profile")
  end)

  it("a view leaves out the lines of the functions it removes", function()
    local p <close> = open()
    local v <close> = assert(p:filter { hide = "^work$" })
    local n, nv = 0, 0
    for l in p:lines() do if l.func and l.func.name == "work" then n = n + 1 end end
    for l in v:lines() do
      nv = nv + 1
      assert.is_true(l.func == nil or l.func.name ~= "work")
    end
    assert.is_true(n > 0 and nv > 0)
    assert.is_nil(v:line(basename(block_line.file), block_line.line))
  end)

  -- the export writers at line granularity: each line with samples, as derived
  local function export(p, fmt, o)
    local f = io.tmpfile()
    assert(p:export(fmt, f, o))
    f:seek("set")
    local text = f:read("a")
    f:close()
    return text
  end

  it("csv with granularity = \"line\": one row per line with samples or a count", function()
    local p <close> = open()
    local text = export(p, "csv", { granularity = "line" })
    local header, n = text:match("^([^\r]*)\r\n"), 0
    assert.equal("address,file,line,function,function_index,self_seconds,percent_time,"
      .. "samples,calls,is_inlined,inlined_from,self_error_seconds", header)
    for a, file, line, fn, self, samples, calls, inl in
        text:gmatch("\n0x(%x+),([^,]*),(%d*),(%w+),%d+,([^,]*),[^,]*,([^,]*),(%d*),([01]),[^\r]*\r") do
      local addr = tonumber(a, 16)
      assert.equal(want_samples[addr] or 0, tonumber(samples))
      assert.equal((want_samples[addr] or 0) / HZ, tonumber(self))
      if addr == block_line.addr then
        assert.equal("2001", calls)
        assert.equal(block_line.line, tonumber(line))
        assert.equal(block_line.file, file)
        assert.equal("1", inl)
      end
      n = n + 1
      assert.truthy(fn)
    end
    local want = 0
    for a, v in pairs(want_samples) do
      if v > 0 or a == block_line.addr or a == fns.work.addr or a == fns.twice.addr then want = want + 1 end
    end
    assert.equal(want, n)
    assert.has_error(function() p:export("csv", io.tmpfile(), { table = "arcs", granularity = "line" }) end)
    assert.has_error(function() p:export("json", io.tmpfile(), { granularity = "lines" }) end)
  end)

  it("json with granularity = \"line\" lists the lines; without, no \"lines\"", function()
    local p <close> = open()
    assert.is_nil(export(p, "json"):find('"lines"', 1, true))
    local text = export(p, "json", { granularity = "line" })
    local n = 0
    for a, samples in text:gmatch('{"address":(%d+),[^}]-"samples":([%d.e+-]+)') do
      assert.equal(want_samples[tonumber(a)] or 0, tonumber(samples))
      n = n + 1
    end
    assert.is_true(n > 5)
  end)

  it("callgrind with granularity = \"line\": each function's cost on its source lines", function()
    local p <close> = open()
    local text = export(p, "callgrind", { granularity = "line" })
    -- work's cost lines: the samples of each of its line symbols (derived),
    -- in nanoseconds, by file and line; a header's after fi=, then fe=
    local body = text:match("\nfn=%(%d+%) work\n(.-)\n\n") or text:match("\nfn=%(%d+%) work\n(.*)$")
    assert(body, text)
    local want, header_ns = {}, 0
    for _, sym in ipairs(syms) do
      local ns = (want_samples[sym.addr] or 0) * (1e9 // HZ)
      if sym.addr >= fns.work.addr and sym.addr < fns.work.addr + fns.work.size and ns > 0 then
        local key = basename(sym.file) .. ":" .. sym.line
        want[key] = (want[key] or 0) + ns
        if basename(sym.file) == "inl.h" then header_ns = header_ns + ns end
      end
    end
    local got, file = {}, "inl.c"
    for l in body:gmatch("[^\n]+") do
      local key, name = l:match("^f([ie])=%(%d+%) ?(.*)$")
      if key == "i" then
        file = name ~= "" and basename(name) or "inl.h"
      elseif key == "e" then
        file = "inl.c"
      elseif l:match("^%d+ %d+$") then
        local line, cost = l:match("^(%d+) (%d+)$")
        got[file .. ":" .. line] = (got[file .. ":" .. line] or 0) + tonumber(cost)
      end
    end
    assert.is_true(header_ns > 0, "the header's inlined code has samples")
    assert.same(want, got)
    if util.have("callgrind_annotate") then
      local cg = dir .. "/callgrind.out.inl"
      util.spit(cg, text)
      local out = util.read_cmd("callgrind_annotate " .. util.q(cg) .. " 2>&1")
      local n = out:match("\n%s*([%d,]+) %(%s*[%d.]+%%%)%s+%S*inl%.h:work")
      assert(n, out)
      assert.equal(header_ns, tonumber((n:gsub(",", ""))))
    end
  end)

  it("lgprof.report.annotate lists a source with each line's count, time and share", function()
    local p <close> = open()
    local f = io.tmpfile()
    assert(lgprof.report.annotate(p, f, { source = "inl.c" }))
    f:seek("set")
    local text = f:read("a")
    f:close()
    local src = util.slurp(SRC)
    local n = 0
    for _ in src:gmatch("[^\n]*\n") do n = n + 1 end
    local rows = {}
    for count, self, share, mark, line, code in
        text:gmatch("\n(%s*%d*)(%s*[%d.]*)(%s*[%d.]*%%?)( [ i])%s*(%d+)  ([^\n]*)") do
      rows[tonumber(line)] = { count = tonumber(count), self = tonumber(self),
                               share = share, inlined = mark == " i", code = code }
    end
    assert.equal(n, #rows)
    -- each source line's time: the sum of its line symbols' (derived)
    local want = {}
    for _, s in ipairs(syms) do
      if s.file == SRC then want[s.line] = (want[s.line] or 0) + (want_samples[s.addr] or 0) end
    end
    for line, r in pairs(rows) do
      local w = (want[line] or 0) / HZ
      if w > 0 then
        assert.equal(("%.3f"):format(w), ("%.3f"):format(r.self), "line " .. line)
      end
    end
    assert.is_true(rows[block_line.line].inlined)
    assert.equal(2001, rows[block_line.line].count)
    local none, msg = lgprof.report.annotate(p, io.tmpfile(), { source = "nothere.c" })
    assert.is_nil(none)
    assert.matches("nothere.c", msg)
    assert.has_error(function() lgprof.report.annotate(p, io.tmpfile(), { sorce = "inl.c" }) end)
  end)

  it("annotate: a source not at its DWARF path is found through directories, else nil, message", function()
    -- the program built from a copy of its source, which then moves away
    util.mkdir(dir .. "/src")
    util.mkdir(dir .. "/moved")
    util.spit(dir .. "/src/inl.c", util.slurp(SRC))
    util.spit(dir .. "/src/inl.h", util.slurp(SRC:gsub("%.c$", ".h")))
    local exe2 = dir .. "/inl2"
    sh(("cc -O2 -g -fno-pie -no-pie -o %s %s"):format(util.q(exe2), util.q(dir .. "/src/inl.c")))
    assert(os.rename(dir .. "/src/inl.c", dir .. "/moved/inl.c"))
    local q <close> = assert(lgprof.open(exe2, gmon))
    local none, msg = lgprof.report.annotate(q, io.tmpfile(), { source = "inl.c" })
    assert.is_nil(none)
    assert.equal(dir .. "/src/inl.c: cannot find the source file (tried " .. dir .. "/src/inl.c)", msg)
    local f = io.tmpfile()
    assert.is_true(lgprof.report.annotate(q, f, { source = "inl.c", directories = { dir .. "/moved" } }))
    f:seek("set")
    assert.matches("^%*%*%* " .. dir:gsub("%p", "%%%0") .. "/moved/inl%.c: ", f:read("a"))
    -- every file: a missing one is listed with its counted lines only
    f = io.tmpfile()
    assert.is_true(lgprof.report.annotate(q, f))
    f:seek("set")
    assert.matches("%(source not found; tried ", f:read("a"))
  end)

  it("lgprof --annotate-lines[=FILE] prints the listing; --granularity=line with --format", function()
    local status, out, err = cmd.lgprof({ "--annotate-lines=inl.c", exe, gmon })
    assert.equal(0, status, err)
    assert.matches("count +self +share +line +source", out)
    assert.matches("inl%.c", out)
    status, out, err = cmd.lgprof({ "--annotate-lines=nothere.c", exe, gmon })
    assert.equal(1, status)
    assert.equal("", out)
    assert.matches("^lgprof: nothere%.c: ", err)
    status, out = cmd.lgprof({ "--format=csv", "--granularity=line", exe, gmon })
    assert.equal(0, status)
    assert.matches("^address,file,line,function", out)
    status, out, err = cmd.lgprof({ "--granularity=line", exe, gmon })
    assert.equal(2, status)
    assert.matches("needs %-%-format", err)
    status, out, err = cmd.lgprof({ "--help" })
    assert.matches("%-%-annotate%-lines", out)
  end)
end)

-- A program built from a top folder (fixture lrel: sub/main.c, ./o.c,
-- ../x/p.c, an absolute q.c): a Line's and a Function's file is the name
-- gprof prints (its -L names, BFD's join of the compilation directory and
-- DWARF's relative name, "." segments and all); a Line's path is that name
-- without "." segments (".." kept), where the source is.
describe("file names of a program built from a top folder", function()
  local fx = H.fixtures
  for _, variant in ipairs({ "O0g-pie", "O0g4-pie" }) do
    it(variant .. ": Line.file and Function.file as gprof -L prints them, Line.path normalised", function()
      local b = assert(fx.build("lrel", variant))
      local top = b.dir .. "/tree/top"
      local p <close> = assert(lgprof.open(b.exe, b.gmon[1]))
      -- by definition: each unit's name under the top folder
      local want = { o_work = top .. "/./o.c", p_work = top .. "/../x/p.c",
                     q_work = b.dir .. "/tree/abs/q.c", step = top .. "/sub/main.c" }
      local want_path = { o_work = top .. "/o.c", p_work = top .. "/../x/p.c",
                          q_work = b.dir .. "/tree/abs/q.c", step = top .. "/sub/main.c" }
      for name, file in pairs(want) do
        local fn = assert(p:find(name))
        assert.equal(file, fn.file)
        local n = 0
        for l in fn:lines() do
          n = n + 1
          assert.equal(file, l.file)
          assert.equal(want_path[name], l.path)
          assert.is_true(util.exec_ok("test -f " .. util.q(l.path)), l.path)
        end
        assert.is_true(n > 0, name .. " has lines")
      end
      if not cmd.HAVE_GPROF then return end
      -- and every line gprof -l -L lists is a Line with its file and number
      local status, out = cmd.gprof({ "-b", "-l", "-p", "-L", "-z", b.exe, b.gmon[1] })
      assert.equal(0, status)
      local lines, n = {}, 0
      for l in p:lines() do lines[l.address] = l end
      for file, line, addr in out:gmatch("%((/[^\n]-):(%d+) @ (%x+)%)\n") do
        local l = assert(lines[tonumber(addr, 16)], "a Line at 0x" .. addr)
        assert.equal(file, l.file)
        assert.equal(tonumber(line), l.line)
        n = n + 1
      end
      assert.is_true(n > 5, out)
    end)
  end
end)
