-- Differential spec of -S / --external-symbol-table: lgprof against GNU gprof
-- 2.40 on the same files, byte for byte (stdout, stderr once the program name
-- is set aside, exit status), with symbol files made here from each fixture
-- program by nm(1):
--   * plain `nm`, `nm -C` (C++ names with blanks: only their first word is a
--     name), `nm -n --defined-only`; the addresses written 0x... and 0X...; the
--     type glued to the name ("11c9 tburn"); nm's two-column lines (U, w),
--     lines of one and two items, other types, CRLF ends, a bad address after
--     a good one (gprof keeps the previous address); lines over 1022
--     characters, which gprof reads in pieces (a symbol in the second piece of
--     a line, a name cut at the piece's end);
--   * on the executable and on a stripped copy of it (which gprof reads only
--     with -S), with one and three profiles;
--   * with -l (no line symbols), -A (nothing to annotate), -C (<unknown>:0:),
--     -a and -D (not applied), -z, -p/-q/-T/-i and specs, -s (gmon.sum
--     compared too);
--   * errors: a missing symbol file, one without t/T lines, a stripped binary
--     without -S: the same exit status, and lgprof's one line.
-- A bad address on the first t/T line is undefined in gprof (stack garbage):
-- lgprof skips that line, checked against gprof on the file without it.
-- gprof's answers are kept in build/gprof-cache (helpers.oracle). Without
-- /usr/bin/gprof every test is reported pending.

local H = require "helpers"
local fx, util, cmd, differ = H.fixtures, H.util, H.cmd, H.differ

local sq, exec_ok, quote_args = util.q, util.exec_ok, util.qwords

-- {S}: plain nm output; {X}: the stripped executable instead of the image.
local CASES = {
  "-S {S}", "-b -S {S}", "-b --external-symbol-table={S}", "-b --external-symbol-table {S}",
  "-b -S {DIR}/nmC.txt", "-b -S {DIR}/nmn.txt", "-b -S {DIR}/hex0x.txt", "-b -S {DIR}/glued.txt",
  "-b -S {DIR}/long.txt", "-b -S {DIR}/mixed.txt",
  "-b -S {S} {X}", "-S {S} -p {X}", "-b -S {S} -l {X}",
  "-b -S {S} -l", "-S {S} -l -p", "-b -S {S} -l -q", "-b -S {S} -l -C",
  "-b -S {S} -A", "-S {S} -A -x", "-b -S {S} -l -A", "-b -S {S} -C", "-b -S {S} -C -z",
  "-b -S {S} -a", "-b -S {S} -D", "-b -S {S} -a -z -D", "-b -S {S} -z", "-S {S} -p", "-S {S} -q",
  "-S {S} -T", "-b -S {S} -i", "-b -S {S} --inline-file-names", "-b -S {S} -L",
  "-b -S {S} -pmain -qmain", "-b -S {S} -e main", "-b -S {S} -k main/{FN}", "-b -S {S} -z -p -T",
  "-b -S {DIR}/glued.txt -l -C", "-b -S {DIR}/nmC.txt --no-demangle",
  "-S {S} -s", "-b -S {S} -s -p", "-b -S {DIR}/long.txt -s -q",
}
-- Cases that write gmon.sum: each tool in a working directory of its own,
-- and the files compared.
local WRITES = { ["-s"] = true }
-- Errors: the exit status must agree; lgprof's stderr is one line naming
-- the file.
local ERRORS = {
  { "-b -S {DIR}/none.txt", "{DIR}/none.txt" },
  { "-b -S {DIR}/nott.txt", "{DIR}/nott.txt" },
  { "-b {X}", "{X}" },
  { "-b -S {DIR}/nott.txt {X}", "{DIR}/nott.txt" },
}

local function mktemp() return util.mktempdir("lgprof ext-sym") end

local function lines_of(text)
  local t = {}
  for line in text:gmatch("[^\n]+") do t[#t + 1] = line end
  return t
end

-- The symbol files, written into dir from nm's output on exe.
local function symbol_files(dir, exe)
  local nm = util.read_cmd(util.NM .. " " .. sq(exe))
  assert(nm:find(" T main\n", 1, true), "nm gave no main:\n" .. nm)
  local function write(name, text) util.spit(dir .. "/" .. name, text) end
  write("nm.txt", nm)
  write("nmC.txt", util.read_cmd(util.NM .. " -C " .. sq(exe)))
  write("nmn.txt", util.read_cmd(util.NM .. " -n --defined-only " .. sq(exe)))
  local hex, glued, nott, defined = {}, {}, {}, {}
  for k, line in ipairs(lines_of(nm)) do
    local addr, ty, name = line:match("^(%x+) (%a) (.*)$")
    if addr then
      hex[#hex + 1] = (k % 2 == 0 and "0x" or "0X") .. addr .. " " .. ty .. " " .. name
      glued[#glued + 1] = addr .. " " .. ty .. name
      if ty == "t" or ty == "T" then defined[#defined + 1] = { addr = addr, ty = ty, name = name } end
    else
      hex[#hex + 1], glued[#glued + 1] = line, line
    end
    if not (ty == "t" or ty == "T") then nott[#nott + 1] = line end
  end
  write("hex0x.txt", table.concat(hex, "\n") .. "\n")
  write("glued.txt", table.concat(glued, "\n") .. "\n")
  write("nott.txt", table.concat(nott, "\n") .. "\n")
  -- main's address, and one inside it (main is longer than 4 bytes)
  local main = nm:match("(%x+) T main\n")
  local inside = ("%x"):format(tonumber(main, 16) + 4)
  -- pieces of 1022 characters: a symbol starting in a line's second piece,
  -- a name cut at the end of the first piece, a line of exactly 1022
  -- characters and its newline alone
  local long = { nm }
  local head = "0 D padding "
  long[#long + 1] = head .. ("p"):rep(1022 - #head) .. inside .. " T split_second_piece\n"
  long[#long + 1] = main .. " t " .. ("n"):rep(1500) .. " trailing words\n"
  local exact = inside .. " T exact_piece "
  long[#long + 1] = exact .. ("e"):rep(1022 - #exact) .. "\n"
  write("long.txt", table.concat(long))
  -- odd lines between nm's own (a bad address after a good one takes the
  -- good one's; a two-column "U t..." line reads as type t)
  local mixed = { "\t" .. defined[1].addr .. "\t" .. defined[1].ty .. "\t" .. defined[1].name .. "\r" }
  for k = 2, #defined do
    local d = defined[k]
    mixed[#mixed + 1] = d.addr .. "  " .. d.ty .. "  " .. d.name .. (k % 3 == 0 and "\r" or "")
    if k == 2 then
      mixed[#mixed + 1] = "zz T bad_hex_after_good"
      mixed[#mixed + 1] = "                 U tolower@GLIBC_2.2.5"
      mixed[#mixed + 1] = d.addr
      mixed[#mixed + 1] = d.addr .. " T"
      mixed[#mixed + 1] = d.addr .. " W weak_not_taken"
      mixed[#mixed + 1] = d.addr .. " D data_not_taken"
      mixed[#mixed + 1] = ""
      mixed[#mixed + 1] = "   "
      mixed[#mixed + 1] = "12zz T partial_hex"
      mixed[#mixed + 1] = "-10 T negative_hex"
      mixed[#mixed + 1] = "ffffffffffffffffff T too_large"
      mixed[#mixed + 1] = "0x T zero_from_0x"
      mixed[#mixed + 1] = "0xg T zero_from_0xg"
      mixed[#mixed + 1] = "+" .. d.addr .. " t plus_sign"
      mixed[#mixed + 1] = "-0x" .. d.addr .. " T negative_0x"
    end
  end
  write("mixed.txt", table.concat(mixed, "\n") .. "\n")
  return nm
end

local function check(prog, variant)
  if not cmd.HAVE_GPROF then return pending("gprof not installed") end
  local built = assert(fx.build(prog, variant))
  local dir = mktemp()
  finally(function() util.rmtree(dir) end)
  local b = fx.snapshot(built, dir)
  local stripped = dir .. "/stripped exe"
  assert(exec_ok("strip -o " .. sq(stripped) .. " " .. sq(b.exe)), "strip failed")
  symbol_files(dir, b.exe)
  local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3], stripped }
  for _, f in ipairs { "nm.txt", "nmC.txt", "nmn.txt", "hex0x.txt", "glued.txt", "long.txt",
                       "mixed.txt", "nott.txt" } do
    files[#files + 1] = dir .. "/" .. f
  end
  -- the heaviest function of gprof's flat profile (for -k)
  local g0 = H.oracle.gprof_many(dir, { { args = { "-b", "-p", "--no-demangle", b.exe, b.gmon[1] } } },
    files)[1]
  local fn
  for line in g0.out:gmatch("[^\n]+") do
    if not fn and line:match("^%s*[%d.]+%s+[%d.]+%s+[%d.]+") then fn = line:match("(%S+)%s*$") end
  end
  fn = fn or "main"
  local subst = { S = dir .. "/nm.txt", DIR = dir, X = stripped, FN = fn }

  local cases = {}
  local function add(text, image, profiles, tag)
    local args = util.fields(text)
    local has_image = false
    for k, a in ipairs(args) do
      if a == "{X}" then has_image = true end
      args[k] = a:gsub("{(%w+)}", subst)
    end
    if not has_image then args[#args + 1] = image end
    for _, p in ipairs(profiles) do args[#args + 1] = p end
    local c = { label = text .. " [" .. tag .. "]", args = args }
    for _, a in ipairs(args) do
      if WRITES[a] then
        local n = #cases + 1
        c.cwd, c.lcwd, c.collect = "g/" .. n, "l/" .. n, "^gmon%.sum$"
        util.mkdirs({ dir .. "/" .. c.cwd, dir .. "/" .. c.lcwd })
      end
    end
    cases[#cases + 1] = c
  end
  for k, text in ipairs(CASES) do
    add(text, b.exe, { b.gmon[1] }, "1 profile")
    if k % 2 == 1 then add(text, b.exe, b.gmon, "3 profiles") end
  end
  local nok = #cases
  for _, e in ipairs(ERRORS) do add(e[1], b.exe, { b.gmon[1] }, "error") end
  cases[1].spawn, cases[#cases].spawn = true, true
  local g, l = differ.run_both(dir, cases, files)

  local compared = 0
  local failures, first_diff, first_cmd = {}, nil, nil
  for i, c in ipairs(cases) do
    local what, diff
    if i <= nok then
      if g[i].rc == 0 and (#g[i].out > 0 or g[i].files) then compared = compared + 1 end
      what, diff = differ.compare(dir, c.label, g[i], l[i], "c" .. i)
    else
      local want = ERRORS[i - nok][2]:gsub("{(%w+)}", subst)
      if g[i].rc ~= 1 then
        what, diff = "gprof did not fail", g[i].err
      elseif l[i].rc ~= g[i].rc or l[i].out ~= "" or
             l[i].err:sub(1, #want + 10) ~= "lgprof: " .. want .. ": " or
             not l[i].err:match("^[^\n]+\n$") then
        what, diff = ("status %s, not one line 'lgprof: %s: ...'"):format(tostring(l[i].rc), want),
          l[i].err .. l[i].out:sub(1, 300)
      end
    end
    if what then
      failures[#failures + 1] = ("  %s: %s"):format(c.label, what)
      if not first_diff then first_diff, first_cmd = diff, "gprof " .. quote_args(c.args) end
    end
  end
  assert(compared >= #CASES, ("only %d of the cases gave gprof a report"):format(compared))
  if #failures > 0 then
    error(("%s/%s: %d of %d comparisons differ (FN=%s):\n%s\n\nfirst difference (%s):\n%s")
      :format(prog, variant, #failures, #cases, fn, table.concat(failures, "\n"), first_cmd,
        first_diff or ""), 0)
  end
end

for k, prog in ipairs(fx.programs()) do
  describe("gprof vs lgprof, -S: " .. prog, function()
    for _, variant in ipairs(fx.variants) do
      it(variant, function() check(prog, variant) end)
    end
  end)
end
for k, prog in ipairs(fx.line_programs()) do
  local variant = fx.line_variants[(k - 1) % #fx.line_variants + 1]
  describe("gprof vs lgprof, -S: " .. prog, function()
    it(variant, function() check(prog, variant) end)
  end)
end

describe("-S, what gprof leaves undefined", function()
  it("a first t/T line whose address is not hexadecimal is skipped", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local built = assert(fx.build("classic", "O0g-pie"))
    local dir = mktemp()
    finally(function() util.rmtree(dir) end)
    local b = fx.snapshot(built, dir)
    local nm = symbol_files(dir, b.exe)
    util.spit(dir .. "/first.txt", "zz T bad_first_line\nx t bad_too\n" .. nm)
    local files = { b.exe, b.gmon[1], dir .. "/nm.txt", dir .. "/first.txt" }
    local g, l = differ.run_both(dir, {
      { args = { "-b", "-z", "-S", dir .. "/nm.txt", b.exe, b.gmon[1] } },
      { args = { "-b", "-z", "-S", dir .. "/first.txt", b.exe, b.gmon[1] } },
    }, files)
    assert.equal(0, g[1].rc)
    assert.is_truthy(g[1].out:find("main", 1, true))
    assert.equal(0, l[2].rc, l[2].err)
    assert.is_nil(l[2].out:find("bad_", 1, true))
    assert.equal(g[1].out, l[2].out)
  end)
end)

describe("-S on the fuzz seeds", function()
  it("every symbol file of spec/fuzz/corpus/symfile/ gives a report or one line", function()
    local built = assert(fx.build("classic", "O0g-pie"))
    local seeds = util.ls(fx.root .. "/spec/fuzz/corpus/symfile")
    assert.is_true(#seeds >= 5)
    for _, name in ipairs(seeds) do
      for _, extra in ipairs { { "-b" }, { "-b", "-l", "-C" } } do
        local args = { table.unpack(extra) }
        table.move({ "-S", fx.root .. "/spec/fuzz/corpus/symfile/" .. name, built.exe, built.gmon[1] },
          1, 4, #args + 1, args)
        local status, out, err = cmd.lgprof(args, { timeout = 20 })
        local ctx = name .. ": " .. cmd.show(status, out, err)
        assert(status == 0 or status == 1, ctx)
        assert(status == 0 or (out == "" and err:match("^lgprof: [^\n]+\n$")), ctx)
      end
    end
  end)
end)

describe("lgprof.open's symbol_file option", function()
  it("reads the functions of a stripped executable from an nm file, without source", function()
    local lgprof = require "lgprof"
    local built = assert(fx.build("classic", "O0g-pie"))
    local dir = mktemp()
    finally(function() util.rmtree(dir) end)
    local stripped = dir .. "/stripped"
    assert(exec_ok("strip -o " .. sq(stripped) .. " " .. sq(built.exe)))
    local nm = symbol_files(dir, built.exe)
    local p, msg = lgprof.open(stripped, built.gmon[1])
    assert.is_nil(p)
    assert.is_truthy(msg:find(stripped, 1, true))
    p = assert(lgprof.open(stripped, built.gmon[1], { symbol_file = dir .. "/nm.txt" }))
    local full = assert(lgprof.open(built.exe, built.gmon[1]))
    local want = {}
    for addr, ty, name in nm:gmatch("(%x+) ([tT]) (%S+)\n") do
      want[name] = { address = tonumber(addr, 16), is_static = ty == "t" }
    end
    local n = 0
    for f in p:symbols() do
      n = n + 1
      assert.same(want[f.symbol], { address = f.address, is_static = f.is_static }, f.symbol)
      assert.is_nil(f.file)
      assert.is_nil(f.line)
    end
    assert.is_true(n > 5)
    assert.equal(full.total_time, p.total_time)
    assert.equal(full:find("main").calls, p:find("main").calls)
    assert.has_error(function() lgprof.open(stripped, built.gmon[1], { symbol_file = 1 }) end)
    local none, err = lgprof.open(built.exe, built.gmon[1], { symbol_file = dir .. "/nott.txt" })
    assert.is_nil(none)
    assert.equal(dir .. "/nott.txt: no function symbols (no line of type t or T)", err)
  end)
end)
