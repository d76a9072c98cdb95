-- Differential spec of gprof's link orders, -r (--function-ordering) and
-- -R MAP (--file-ordering=MAP): lgprof against GNU gprof 2.40 on the same
-- files, byte for byte (stdout, stderr once the program name that starts its
-- lines is set aside, exit status), alone and with the other options, over
--   * every fixture program (spec/fixtures/progs), one build variant each,
--     turn about, with one and with three profiles; the map files are made
--     here by nm from object files compiled here from the program's sources
--     (the proper nm --extern-only --defined-only -v --print-file-name map,
--     nm -A with its U lines, every defined symbol, lines sorted by name so
--     that a file's runs split, "No symbols in" lines, indented lines, blank
--     lines, no final newline, and broken maps gprof refuses);
--   * profiles written here (helpers.gmonwriter) for hub300's executable,
--     whose 300 functions f000..f299 take the roles of the reference's
--     examples: the small example, 172 used functions with two hubs (the
--     lost function, main twice), a hub with exactly 5 uses, all-zero
--     counts, no arcs, the phantom chain of a -k FROM/TO spec, and random
--     arc sets.
-- Maps on which gprof crashes (an empty map, a field 2 without a space, a
-- last line without a colon or a space) and a directory (gprof loops
-- forever) are lgprof's one-line errors: gprof's crash is checked from its
-- exit status, and lgprof's line is checked.
-- Without /usr/bin/gprof every test is reported pending, never passed.

local H = require "helpers"
local fx, util, cmd, differ, gw, prng, nmf =
  H.fixtures, H.util, H.cmd, H.differ, H.gmonwriter, H.prng, H.nmfiles

local sq, read_cmd, spit = util.q, util.read_cmd, util.spit

-- -r alone and with the other options; {FN}: the heaviest function.
local R_SETS = {
  "-r", "--function-ordering", "-r -b -p -q", "-r -a", "-r -l", "-r -z -b", "-r -b -k main/{FN}",
  "-r -k {FN}/", "-r -k /{FN}", "-r -b -q{FN}", "-r -b -Qmain/{FN}", "-r -b -qmain/{FN} -k {FN}/",
  "-r -T -b", "-r -C", "-r -a -l", "-r -D", "-r -r", "-r -l -k main/{FN}", "-r -b -q -p -z -a",
}
-- -R with a good map ({MAP}) and the other options.
local RMAP_SETS = {
  "-R {MAP}", "--file-ordering={MAP}", "-R {MAP} -b -p", "-R {MAP} -b -q", "-q -R {MAP}",
  "-p -R {MAP}", "-R {MAP} -b -q -z", "-R {MAP} -a", "-R {MAP} -l -b", "-R {MAP} -T -b",
  "-R {MAP} -b -k main/{FN}", "-R {MAP} -C", "-R nosuch.map -R {MAP}", "-r -R {MAP}",
  "-R {MAP} -r", "-R {MAP} -l -a -b -p -q",
}

local function mktemp() return util.mktempdir("lgprof-ordering") end

local case = differ.case

local function check_program(prog, variant)
  if not cmd.HAVE_GPROF then return pending("gprof not installed") end
  local built = assert(fx.build(prog, variant))
  local dir = mktemp()
  finally(function() util.rmtree(dir) end)
  local b = fx.snapshot(built, dir)
  local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  local obj, names, empty = nmf.objects(dir, built)
  local texts = nmf.maps(obj, names, empty)
  -- a map whose first line names no symbol of the program and whose other
  -- lines name them all, in that one file: every symbol is dropped
  local all = { "zz_empty.o:0000000000000000 T zz_no_such_function" }
  local defined = read_cmd(util.NM .. " --defined-only " .. sq(b.exe))
  for name in defined:gmatch("%x+ %a ([^\n]+)") do
    all[#all + 1] = "zz_empty.o:0000000000000000 T " .. name
  end
  texts.drop_all = table.concat(all, "\n") .. "\n"
  local paths = {}
  for name, text in pairs(texts) do
    paths[name] = dir .. "/" .. name .. ".map"
    spit(paths[name], text)
    files[#files + 1] = paths[name]
  end
  local subst = { FN = differ.heaviest(dir, b.exe, b.gmon[1], files), MAP = paths.proper }
  local one, three = { b.exe, b.gmon[1] }, { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  -- FN names several symbols (samename's static helpers): a FROM/TO spec
  -- with it has several runs on a side, which gprof's -r follows through
  -- stale links (looping for ever on some); lgprof refuses it, in one line
  local _, nfn = defined:gsub(" [tTW] " .. subst.FN:gsub("%p", "%%%0") .. "\n", "")
  local cases = {}
  local function add(text, tail)
    local c = case(text, subst, tail)
    -- a case lgprof refuses is not given to gprof, which may loop for ever
    -- on it: lgprof must refuse it in one line, and only where FN names
    -- several symbols or line symbols (-l: FN's lines inlined elsewhere)
    -- can give a spec several runs
    if text:find("/", 1, true) and text:find("{FN}", 1, true) then
      local r = differ.lgprof_inproc(c.args)
      if r.rc == 1 and r.err:find("more than one place", 1, true) then
        assert(r.out == "" and r.err:match("^lgprof: %-%-%a+%-ordering: [^\n]+\n$"),
          c.label .. ": not a one-line refusal: " .. r.err)
        assert(nfn > 1 or text:find("-l", 1, true),
          c.label .. ": refused, but FN names one symbol: " .. r.err)
        return
      end
      assert(nfn <= 1 or not text:find("-r", 1, true), c.label .. ": not refused although FN names "
        .. nfn .. " symbols")
    end
    cases[#cases + 1] = c
  end
  for k, text in ipairs(R_SETS) do
    add(text, one)
    if k % 3 == 1 then add(text, three) end
  end
  for k, text in ipairs(RMAP_SETS) do
    add(text, one)
    if k % 3 == 1 then add(text, three) end
  end
  local map_names = {}
  for name in pairs(paths) do map_names[#map_names + 1] = name end
  table.sort(map_names)
  for _, name in ipairs(map_names) do
    for _, text in ipairs { "-R {M}", "-R {M} -b -p -q" } do
      local c = case(text, { M = paths[name] }, one)
      c.label = c.label .. " " .. name
      if nmf.CRASHES[name] then c.crash = paths[name] end
      cases[#cases + 1] = c
    end
  end
  cases[#cases + 1] = case("-R {M}", { M = dir .. "/nosuch.map" }, one)
  cases[1].spawn = true -- once through the command itself
  nmf.compare_all(dir, cases, prog .. "/" .. variant)
end

-- {====================================================== written profiles

-- hub300's functions by name: { name = address }, from nm.
local function symbols(exe)
  local t = {}
  for addr, name in read_cmd(util.NM .. " --defined-only " .. sq(exe)):gmatch("(%x+) [tTW] (%S+)") do
    t[name] = tonumber(addr, 16)
  end
  return t
end

-- The arcs of a profile, {caller, callee, count} by name, as gmon records.
local function arcs_of(sym, list)
  local out = {}
  for _, a in ipairs(list) do
    out[#out + 1] = { from = assert(sym[a[1]], a[1]) + 1, to = assert(sym[a[2]], a[2]),
                      count = a[3] }
  end
  return out
end

local function f(i) return ("f%03d"):format(i) end

-- The reference's small example: a..e are f000..f004.
local SMALL = {
  { f(1), f(0), 140 }, { f(2), f(1), 100 }, { f(2), f(0), 100 }, { f(4), f(3), 5 },
  { "main", f(2), 100 }, { "main", f(1), 40 }, { "main", f(4), 5 }, { "main", f(0), 1 },
}

-- 172 used functions: h1 = f000 and h2 = f001, c1..c10 = f010..f019
-- calling h1 2000 times (c1..c6 also h2 1000 times), f100..f259 called once
-- by main, which calls h1 2000 times at the end.
local function grouping()
  local t = {}
  for i = 1, 10 do
    t[#t + 1] = { f(9 + i), f(0), 2000 }
    if i <= 6 then t[#t + 1] = { f(9 + i), f(1), 1000 } end
  end
  for i = 1, 10 do t[#t + 1] = { "main", f(9 + i), 1 } end
  for i = 100, 259 do t[#t + 1] = { "main", f(i), 1 } end
  t[#t + 1] = { "main", f(0), 2000 }
  return t
end

-- A hub (f000) with exactly `callers` callers in the top 90 %, among more
-- than 80 used functions (gprof stops picking at exactly 5 uses).
local function hub_uses(callers)
  local t = {}
  for i = 1, callers do t[#t + 1] = { f(i), f(0), 100 } end
  for i = 1, callers do t[#t + 1] = { "main", f(i), 1 } end
  for i = 100, 199 do t[#t + 1] = { "main", f(i), 1 } end
  return t
end

-- Random arcs among f000..f299 and main (some counts 0, some equal).
local function random_arcs(seed)
  local rand, t = prng.new(seed), {}
  local n = 20 + rand(300)
  for _ = 1, n do
    local from = rand(20) == 0 and "main" or f(rand(300))
    local to = f(rand(rand(2) == 0 and 30 or 300))
    local count = ({ 0, 1, 5, 50, 1000 })[rand(5) + 1] + rand(3)
    t[#t + 1] = { from, to, count }
  end
  return t
end

local function written_profiles(dir, sym)
  local lo, hi = math.huge, 0
  for _, a in pairs(sym) do lo, hi = math.min(lo, a), math.max(hi, a) end
  local hist = { { low = lo, high = hi + 16, rate = 100, n_bins = (hi + 16 - lo) // 2,
                   bins = { [3] = 7, [40] = 2 } } }
  local zero = {}
  for _, a in ipairs(SMALL) do zero[#zero + 1] = { a[1], a[2], 0 } end
  local sets = {
    small = { arcs = SMALL }, grouping = { arcs = grouping() }, uses5 = { arcs = hub_uses(5) },
    uses6 = { arcs = hub_uses(6) }, zero = { arcs = zero }, no_arcs = { arcs = {}, hist = true },
    small_hist = { arcs = SMALL, hist = true },
  }
  for seed = 1, 12 do sets["random" .. seed] = { arcs = random_arcs(seed) } end
  local paths = {}
  for name, s in pairs(sets) do
    paths[name] = dir .. "/gmon." .. name
    gw.write(paths[name], { hist = s.hist and hist or nil, arcs = arcs_of(sym, s.arcs) })
  end
  return paths
end

-- }======================================================

describe("gprof vs lgprof, -r and -R", function()
  for k, prog in ipairs(fx.programs()) do
    local variant = fx.variants[(k - 1) % #fx.variants + 1]
    it(prog .. " " .. variant, function() check_program(prog, variant) end)
  end

  it("written profiles for hub300: the small example, hubs, 5 uses, zeros, no arcs, -k chains, random arcs", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local built = assert(fx.build("hub300", "O0g-nopie"))
    local dir = mktemp()
    finally(function() util.rmtree(dir) end)
    local b = fx.snapshot(built, dir)
    local sym = symbols(b.exe)
    local paths = written_profiles(dir, sym)
    local files, cases = { b.exe }, {}
    local names = {}
    for name, p in pairs(paths) do names[#names + 1], files[#files + 1] = name, p end
    table.sort(names)
    local function add(text, profile)
      local c = case(text, {}, { b.exe, paths[profile] })
      c.label = c.label .. " " .. profile
      cases[#cases + 1] = c
    end
    for _, name in ipairs(names) do
      for _, text in ipairs { "-r", "-r -a", "-r -b -q", "-r -b -q -z", "-r -T -b -a" } do add(text, name) end
    end
    for _, text in ipairs {
      "-r -l", "-r -k f004/f003", "-r -k f002/f000 -k f004/f003", "-r -k f002/f000 -k f002/f001 -k f004/f003",
      "-r -k f002/f000 -k f001/f000 -k f004/f003 -qf001/f000", "-r -k /f000", "-r -k f002/",
      "-r -k f004/f003 -k f004/f003", "-r -l -k f004/f003", "-r -Qmain/f002", "-r -z -b",
    } do add(text, "small") end
    add("-r -k f010/f000", "grouping")
    add("-r -k main/f000 -k f010/f001", "grouping")
    add("-r -b -p", "no_arcs")
    add("-r -b -p -q", "small_hist")
    nmf.compare_all(dir, cases, "hub300 written profiles")
  end)

  it("the premises: the small example's order and the grouping's lost function, as gprof prints them", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local built = assert(fx.build("hub300", "O0g-nopie"))
    local dir = mktemp()
    finally(function() util.rmtree(dir) end)
    local b = fx.snapshot(built, dir)
    local paths = written_profiles(dir, symbols(b.exe))
    local out = differ.lgprof_inproc({ "-r", b.exe, paths.small }).out
    -- c b a e d (section 5's trace), then the unused symbols in address order
    assert.equal("f002\nf001\nf000\nf004\nf003\n", out:sub(1, 25))
    out = differ.lgprof_inproc({ "-r", b.exe, paths.grouping }).out
    assert.equal("main\nf000\nf010\n", out:sub(1, 15))
    local n_main, has_h2 = 0, false
    for line in out:gmatch("[^\n]+") do
      if line == "main" then n_main = n_main + 1 end
      if line == "f001" then has_h2 = true end
    end
    assert.equal(2, n_main) -- unmarked by the hub's arc from main, printed again with the unused
    assert.is_false(has_h2) -- the second hub picked is never printed
    out = differ.lgprof_inproc({ "-r", b.exe, paths.uses5 }).out
    local out6 = differ.lgprof_inproc({ "-r", b.exe, paths.uses6 }).out
    assert.not_equal(out, out6) -- 5 uses: nothing picked; 6: the hub is picked
  end)

  it("a directory as the map: one line, status 1 (gprof loops for ever)", function()
    local built = assert(fx.build("tiny", "O0g-pie"))
    local r = differ.lgprof_inproc({ "-R", built.dir, built.exe, built.gmon[1] })
    assert.equal(1, r.rc)
    assert.equal("", r.out)
    assert.equal("lgprof: " .. built.dir .. ": Is a directory\n", r.err)
  end)

  it("the Lua API: function_ordering and file_ordering give gprof's -r and -R lines", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local lgprof = require "lgprof"
    local built = assert(fx.build("readme", "O0g-pie"))
    local dir = mktemp()
    finally(function() util.rmtree(dir) end)
    local b = fx.snapshot(built, dir)
    local obj, names, empty = nmf.objects(dir, built)
    local map = dir .. "/proper.map"
    spit(map, nmf.maps(obj, names, empty).proper)
    local g = nmf.gprof_runs(dir, {
      { args = { "-r", b.exe, b.gmon[1] } }, { args = { "-R", map, b.exe, b.gmon[1] } },
      { args = { "-r", "-k", "main/work", "-q", b.exe, b.gmon[1] } },
    })
    local function lines(t) return table.concat(t, "\n") .. "\n" end
    local p = assert(lgprof.open(b.exe, b.gmon[1]))
    assert.equal(g[1].out, lines(p:function_ordering()))
    assert.has_error(function() p:file_ordering() end)
    local v = p:filter { ignore = "^work$" }
    assert.has_error(function() v:function_ordering() end)
    local k = assert(lgprof.open(b.exe, b.gmon[1], { exclude_arcs = { "main/work" } }))
    -- the order ends gprof's output, right after the index's last line
    local order = lines(k:function_ordering { after_graph = true })
    local head = g[3].out:sub(1, -#order - 1)
    assert.equal(g[3].out:sub(-#order), order)
    assert.matches("%[%d+%] [^\n]*\n$", head)
    local m = assert(lgprof.open(b.exe, b.gmon[1], { map_file = map }))
    assert.equal(g[2].out, lines(m:file_ordering()))
    local none, msg = lgprof.open(b.exe, b.gmon[1], { map_file = dir .. "/nosuch" })
    assert.is_nil(none)
    assert.equal("could not open " .. dir .. "/nosuch.", msg)
    assert.has_error(function()
      lgprof.open(b.exe, b.gmon[1], { exclude_arcs = { "main/work" }, spec_order = { "incl_arcs" } })
    end)
  end)
end)
