-- Differential spec of gprof's link orders, static call graph, external
-- symbol tables and response files together: lgprof against GNU gprof 2.40
-- on the same files, byte for byte (stdout, stderr once the program name
-- that starts its lines is set aside, exit status), for -r, -R MAP, -c,
-- -S FILE and @FILE combined with each other and with the report options,
-- over
--   * every fixture program (spec/fixtures/progs: C and C++), one build
--     variant each, turn about (-O0 -g and -O2, PIE and not), and every line
--     program (spec/fixtures/lines) at -O2 -g -no-pie;
--   * one and three profiles;
--   * map files made here by nm from objects compiled here, symbol files
--     made here by nm from the executable, response files written here
--     (one naming another, one quoting a path).
-- Each option alone, and its combinations with the options that are not of
-- this set, are the business of gprof_ordering_spec.lua,
-- gprof_static_spec.lua, gprof_extsym_spec.lua and response_file_spec.lua.
-- gprof runs directly (helpers.nmfiles), not from the cache: its -R reads
-- a flag it never set for the map's entries after the first of a run, which
-- MALLOC_PERTURB_=1 makes read as the map says when nothing was freed there
-- before; a response file's expansion frees memory first, so -R is not
-- combined with @FILE here (gprof's answer then depends on its heap).
-- Where gprof gives up at line granularity ("somebody miscounted"), lgprof
-- must give its report.
-- Without /usr/bin/gprof every test is reported pending, never passed.

local H = require "helpers"
local fx, util, cmd, differ, nmf = H.fixtures, H.util, H.cmd, H.differ, H.nmfiles

local sq, read_cmd, spit = util.q, util.read_cmd, util.spit

-- {MAP}: a proper nm map of the program's objects; {SYMS}: nm's listing of
-- the executable; {FN}, {FN2}: the two heaviest functions; {RC}, {RS},
-- {RN}: response files (-b -q -c; -S SYMS -q with the path quoted; one
-- that names RC and adds -r).
local MIX = {
  "-r -c", "-c -r -a", "-c -r -l", "-r -c -b -q -z", "-c -b -q -r -p",
  "-R {MAP} -c", "-R {MAP} -c -b -q", "-c -R {MAP} -l -b -p",
  "-S {SYMS} -r", "-S {SYMS} -c -b -q", "-S {SYMS} -R {MAP} -b -p -q", "-S {SYMS} -r -c -a",
  "-S {SYMS} -l -c -b -q", "-S {SYMS} -R {MAP}",
  "@{RC}", "@{RC} -r", "-b @{RS} -c", "@{RN}", "-S {SYMS} @{RC} -r",
  "-c -b -q -k {FN2}/{FN}", "-c -b -q -e {FN}", "-c -l -b -q -z",
}

local function mktemp() return util.mktempdir("lgprof-mix") end

local function check(prog, variant)
  if not cmd.HAVE_GPROF then return pending("gprof not installed") end
  local built = assert(fx.build(prog, variant))
  local dir = mktemp()
  finally(function() util.rmtree(dir) end)
  local b = fx.snapshot(built, dir)
  local files = { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  local obj, names, empty = nmf.objects(dir, built)
  local map, syms = dir .. "/proper.map", dir .. "/syms.txt"
  spit(map, nmf.maps(obj, names, empty).proper)
  spit(syms, read_cmd(util.NM .. " " .. sq(b.exe)))
  local fn, fn2 = differ.heaviest(dir, b.exe, b.gmon[1], files)
  local subst = { MAP = map, SYMS = syms, FN = fn, FN2 = fn2,
                  RC = dir .. "/rc.rsp", RS = dir .. "/rs.rsp", RN = dir .. "/rn.rsp" }
  spit(subst.RC, "-b -q\n\t-c\n")
  spit(subst.RS, "-S '" .. syms .. "' -q\n")
  spit(subst.RN, "@" .. subst.RC .. " -r\n")
  local one, three = { b.exe, b.gmon[1] }, { b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
  local cases = {}
  for k, text in ipairs(MIX) do
    for _, tail in ipairs(k % 2 == 1 and { one, three } or { one }) do
      cases[#cases + 1] = differ.case(text, subst, tail)
    end
  end
  cases[1].spawn = true -- once through the command itself
  local n = nmf.compare_all(dir, cases, prog .. "/" .. variant)
  assert(n >= 2 * 12, "fewer combinations than promised: " .. n)
end

describe("gprof vs lgprof, -r -R -c -S @FILE together:", function()
  for k, prog in ipairs(fx.programs()) do
    local variant = fx.variants[(k - 1) % #fx.variants + 1]
    it(prog .. " " .. variant, function() check(prog, variant) end)
  end
  for _, prog in ipairs(fx.line_programs()) do
    it(prog .. " O2g-nopie", function() check(prog, "O2g-nopie") end)
  end
end)
