-- @FILE response files: lgprof against GNU gprof 2.40 with the same
-- response files and arguments (stdout and exit status byte for byte; where
-- gprof's message is its own, the status and lgprof's one line), one rule of
-- their reading at a time: the kinds of blank, both quotes, quotes inside
-- the other kind, quotes in mid-word, backslashes outside and inside quotes,
-- a backslash before a newline, a last lone backslash, an unterminated
-- quote, "" (an empty argument), an empty file and one of blanks, a NUL
-- byte, nesting, a missing file (kept as a literal argument, also as an
-- option's value), @FILE among the operands and after "--", a directory, a
-- file that includes itself and the limit of 1999 @-arguments exactly.
-- Then lgprof's own modes through @FILE, and a property test: the words of
-- random response files as lgprof.respfile reads them against libiberty's
-- own expandargv (linked into a helper compiled here), the code gprof runs.

local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd
local respfile = require "lgprof.cli.respfile"

local sq = util.q

local dir
local function path(name) return dir .. "/" .. name end

setup(function()
  dir = util.mktempdir("lgprof resp-file")
  local built = assert(fx.build("classic", "O0g-pie"))
  for _, c in ipairs {
    { built.exe, "my prog" }, { built.exe, "prog" }, { built.exe, "my\nprog" },
    { built.exe, "it's" }, { built.gmon[1], "my gmon" }, { built.gmon[1], "gmon.out" },
    { built.gmon[2], "g2" },
  } do
    assert(util.exec_ok("cp " .. sq(c[1]) .. " " .. sq(path(c[2]))))
  end
  assert(util.exec_ok("mkdir " .. sq(path("a dir"))))
end)
teardown(function() util.rmtree(dir) end)

local function write(name, text) util.spit(path(name), text) end

-- Runs gprof and lgprof in dir with args; the two results.
local function both(args)
  local gs, go, ge = cmd.gprof(args, { cwd = dir })
  local ls, lo, le = cmd.lgprof(args, { cwd = dir })
  return { rc = gs, out = go, err = ge }, { rc = ls, out = lo, err = le }
end

local function same(args, want_rc)
  local g, l = both(args)
  local ctx = ("gprof %s\n--- gprof: status %s ---\n%s%s\n--- lgprof: status %s ---\n%s%s")
    :format(util.qwords(args), tostring(g.rc), g.out:sub(1, 600), g.err, tostring(l.rc),
      l.out:sub(1, 600), l.err)
  assert(g.rc == (want_rc or 0), "gprof's status is not the one expected\n" .. ctx)
  if want_rc == nil or want_rc == 0 then
    assert(#g.out > 0, "gprof printed nothing\n" .. ctx)
  end
  assert(g.out == l.out and g.rc == l.rc, "lgprof differs\n" .. ctx)
  return g, l
end

-- gprof's report without a response file, for the cases that must equal it.
local function direct(args)
  local g = { cmd.gprof(args, { cwd = dir }) }
  assert(g[1] == 0 and #g[2] > 0, "gprof failed: " .. g[3])
  return g[2]
end

describe("@FILE against gprof", function()
  before_each(function()
    if not cmd.HAVE_GPROF then pending("gprof not installed") end
  end)

  it("blanks of every kind separate words; leading and trailing ones are ignored", function()
    write("r", " \t\n-b\t-p\r\n\v\fprog\f  \v\r'my gmon'\n\n \t")
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "-p", "prog", "my gmon" }), g.out)
  end)

  it("single and double quotes group blanks and are removed", function()
    write("r", "-b 'my prog' \"my gmon\"")
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "my prog", "my gmon" }), g.out)
  end)

  it("quotes start in mid-word and the other kind is ordinary inside", function()
    write("r", [[-b "my"' prog' "it's" 'my "gmon"']])
    -- it's is an image here, so the gmon name "my \"gmon\"" is missing: rc 1
    same({ "@r" }, 1)
    write("r", [[-b -e'"x"' -e"it's" "my"' 'prog m"y gm"on]])
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "-e\"x\"", "-eit's", "my prog", "my gmon" }), g.out)
  end)

  it("a backslash quotes the next character, outside and inside quotes", function()
    write("r", [[-b -e my\ prog -e 'it\'s' -e "a\"b" \p\r\o\g 'my\ gmon']])
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "-e", "my prog", "-e", "it's", "-e", "a\"b", "prog", "my gmon" }), g.out)
    write("r", [[-b my\ prog my\ gmon]])
    g = same({ "@r" })
    assert.equal(direct({ "-b", "my prog", "my gmon" }), g.out)
  end)

  it("a backslash before a newline puts the newline in the word", function()
    write("r", "-b my\\\nprog 'my gmon'")
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "my\nprog", "my gmon" }), g.out)
  end)

  it("a last lone backslash is dropped", function()
    write("r", "-b prog my\\ gmon\\")
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "prog", "my gmon" }), g.out)
  end)

  it("an unterminated quote runs to the end of the file", function()
    write("r", "-b prog 'my gmon")
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "prog", "my gmon" }), g.out)
    write("r", "-b prog \"my gmon\n") -- the newline is in the name: no such file
    same({ "@r" }, 1)
  end)

  it('"" is an empty argument', function()
    write("r", [[-b -e "" prog '' ]])
    same({ "@r" }, 1) -- the empty profile name cannot be read
    write("r", [[-b -e "" prog]])
    local g = same({ "@r" })
    assert.equal(direct({ "-b", "-e", "", "prog" }), g.out)
  end)

  it("an empty file and a file of blanks give no argument", function()
    write("empty", "")
    write("blanks", " \n\t\r\v\f ")
    local g = same({ "@empty", "-b", "@blanks", "prog", "@empty", "my gmon", "@blanks" })
    assert.equal(direct({ "-b", "prog", "my gmon" }), g.out)
  end)

  it("a NUL byte ends the file", function()
    write("r", "-b prog\0 -p nothing")
    local g = same({ "@r" }) -- gmon.out
    assert.equal(direct({ "-b", "prog" }), g.out)
  end)

  it("response files nest, and the words are rescanned in place", function()
    write("outer", "-b @inner 'my gmon' @inner2")
    write("inner", "-p @empty prog")
    write("inner2", "g2")
    write("empty", "")
    local g = same({ "@outer" })
    assert.equal(direct({ "-b", "-p", "prog", "my gmon", "g2" }), g.out)
  end)

  it("a missing file stays a literal argument", function()
    same({ "-b", "@no such file", "my gmon" }, 1) -- the image "@no such file"
    local g = same({ "-b", "-e", "@nothing", "prog", "my gmon" })
    assert.equal(direct({ "-b", "prog", "my gmon" }), g.out)
    write("r", "-b -e @nothing prog")
    same({ "@r" })
  end)

  it("operands and the words after -- are expanded too", function()
    write("ops", "prog 'my gmon'")
    local g = same({ "-b", "--", "@ops", "g2" })
    assert.equal(direct({ "-b", "prog", "my gmon", "g2" }), g.out)
    same({ "-b", "-p", "@ops" })
  end)

  it("a directory is an error (status 1, lgprof's one line)", function()
    local g, l = both({ "-b", "@a dir", "prog" })
    assert.equal(1, g.rc)
    assert.equal(1, l.rc)
    assert.equal("", l.out)
    assert.equal("lgprof: " .. "a dir: @-file refers to a directory\n", l.err)
  end)

  it("a file that includes itself ends at the limit (status 1, one line)", function()
    write("self", "-b @self")
    local g, l = both({ "@self", "prog" })
    assert.equal(1, g.rc)
    assert.equal(1, l.rc)
    assert.equal("", l.out)
    assert.is_truthy(l.err:match("^lgprof: self: too many @%-files encountered [^\n]*\n$"), l.err)
  end)

  it("at most 1999 @-arguments: 1999 pass, the 2000th is an error", function()
    write("empty", "")
    -- the outer file is the first @-argument; 1998 more make 1999
    write("many", ("@empty "):rep(1998) .. "-b prog")
    same({ "@many" })
    write("many", ("@empty "):rep(1999) .. "-b prog")
    local g, l = both({ "@many" })
    assert.equal(1, g.rc)
    assert.equal(1, l.rc)
    assert.is_truthy(l.err:match("^lgprof: empty: too many @%-files encountered [^\n]*\n$"), l.err)
    -- literal (missing) ones count as well
    write("many", ("@missing "):rep(1998) .. "-b prog")
    same({ "@many" }, 1) -- "@missing" is the image
    write("many", ("@missing "):rep(1999) .. "-b prog")
    g, l = both({ "@many" })
    assert.equal(1, g.rc)
    assert.equal(1, l.rc)
    assert.is_truthy(l.err:match("^lgprof: missing: too many @%-files"), l.err)
  end)
end)

describe("@FILE in lgprof's own modes", function()
  it("check, merge and --format read response files too", function()
    write("chk", "check '--max-self=^c$=100%' prog 'my gmon'")
    local s, o, e = cmd.lgprof({ "@chk" }, { cwd = dir })
    assert.equal(0, s, e)
    write("fmt", "--format=csv prog")
    local s1, o1 = cmd.lgprof({ "@fmt", "my gmon" }, { cwd = dir })
    local s2, o2 = cmd.lgprof({ "--format=csv", "prog", "my gmon" }, { cwd = dir })
    assert.equal(0, s1)
    assert.equal(0, s2)
    assert.is_truthy(#o2 > 0)
    assert.equal(o2, o1)
    write("mrg", "merge -o 'out sum' prog 'my gmon' g2")
    s, o, e = cmd.lgprof({ "@mrg" }, { cwd = dir })
    assert.equal(0, s, e .. o)
    assert.is_truthy(util.slurp(path("out sum")))
  end)

  it("a directory as @FILE fails before any mode is chosen", function()
    assert.equal("a dir: @-file refers to a directory",
      cmd.one_line_error(1, cmd.lgprof({ "check", "@a dir" }, { cwd = dir })))
  end)
end)

-- libiberty's expandargv as gprof runs it: prints each resulting word as
-- "<length>:<bytes>\n".
local HELPER = [[
#include <stdio.h>
#include <string.h>
#include <libiberty/libiberty.h>
int main(int argc, char **argv) {
  int i;
  expandargv(&argc, &argv);
  for (i = 1; i < argc; i++) {
    printf("%zu:", strlen(argv[i]));
    fwrite(argv[i], 1, strlen(argv[i]), stdout);
    putchar('\n');
  }
  return 0;
}
]]

describe("lgprof.cli.respfile", function()
  it("reads random response files as libiberty's expandargv does", function()
    local helper_src, helper = path("expandargv.c"), path("expandargv")
    util.spit(helper_src, HELPER)
    if not util.exec_ok(("cc -std=c99 -o %s %s -liberty 2>/dev/null"):format(sq(helper), sq(helper_src))) then
      return pending("libiberty-dev is not installed")
    end
    local rand = H.prng.new(20261126)
    local alphabet = { "a", "b", "c", " ", "  ", "\t", "\n", "\r", "\v", "\f", "'", "'", "\"", "\"",
                       "\\", "\\", "\0", "@", "@zz", "x y", "\\\n" }
    local args, words_in = {}, 0
    for k = 1, 400 do
      local parts = {}
      for _ = 1, rand(31) do parts[#parts + 1] = alphabet[rand(#alphabet) + 1] end
      local name = "rnd" .. k
      write(name, table.concat(parts))
      args[#args + 1] = "@" .. name
      args[#args + 1] = "--sep" .. k
      words_in = words_in + #parts
    end
    local out = util.read_cmd("cd " .. sq(dir) .. " && " .. util.qwords({ helper, table.unpack(args) }))
    local want, at = {}, 1
    while at <= #out do
      local len = assert(out:match("^(%d+):", at), "bad helper output at " .. at)
      local start = at + #len + 1
      want[#want + 1] = out:sub(start, start + tonumber(len) - 1)
      at = start + tonumber(len) + 1
    end
    local cwd_files = {}
    -- respfile opens the names relative to the working directory: the
    -- spec's, so the file names are made absolute for it
    for k, a in ipairs(args) do cwd_files[k] = a:sub(1, 1) == "@" and "@" .. path(a:sub(2)) or a end
    local got = assert(respfile.expand(cwd_files))
    assert.is_true(#want > 400 and words_in > 1000)
    assert.same(want, got)
  end)

  it("splits text by the rules", function()
    local split = respfile.split
    assert.same({}, split(""))
    assert.same({}, split(" \t\r\n\v\f"))
    assert.same({ "" }, split('""'))
    assert.same({ "", "" }, split("'' \"\""))
    assert.same({ "my gmon" }, split([["my"' gmon']]))
    assert.same({ "it's" }, split([['it\'s']]))
    assert.same({ "a\nb" }, split("a\\\nb"))
    assert.same({ "ab" }, split("ab\\"))
    assert.same({ "a b\n" }, split("'a b\n"))
    assert.same({ "a" }, split("a\0b c"))
    assert.same({ "\"" }, split([['"']]))
    assert.same({ "'" }, split([["'"]]))
  end)
end)
