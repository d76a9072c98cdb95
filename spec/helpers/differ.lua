-- Runs gprof and lgprof on the same command lines and compares what they
-- print: the machinery of the differential specs (gprof_diff_spec.lua,
-- gprof_lines_diff_spec.lua).
--
--   local differ = require "helpers.differ"
--   local g, l = differ.run_both(dir, cases, files)
--   local what, diff = differ.compare(dir, label, g[i], l[i], tag, opts)
--
-- A case is { label =, args = {...} } plus, optionally:
--   spawn = true    lgprof runs as the command (bin/lgprof), not in this
--                   process through lgprof.cli.main;
--   cwd = "g/3", lcwd = "l/3"   working directories (relative to dir, made by
--                   the caller) of gprof and of lgprof: lgprof.cli.main runs
--                   with this process's working directory changed to it
--                   (LuaFileSystem's chdir; without it, the case spawns);
--   indir = true    lgprof runs in dir, as gprof does (relative paths in the
--                   program's DWARF), in this process as above;
--   collect = PAT   the files of the working directory whose names match the
--                   Lua pattern PAT after the run are compared too (-y).
-- gprof's answers come from helpers.oracle (kept in build/gprof-cache).
local util = require "helpers.util"
local cmd = require "helpers.cmd"
local oracle = require "helpers.oracle"

local M = {}
local sq, exec_ok, read_cmd, slurp, spit = util.q, util.exec_ok, util.read_cmd, util.slurp, util.spit
local quote_args = util.qwords

-- The leading program name of each stderr line may differ.
local function norm_err(s)
  s = s or ""
  local out = {}
  for line in (s .. "\n"):gmatch("(.-)\n") do
    out[#out + 1] = (line:gsub("^lgprof:", "PROG:"):gsub("^gprof:", "PROG:"))
  end
  return table.concat(out, "\n")
end
M.norm_err = norm_err

local function udiff(dir, tag, a, b, la, lb)
  local fa, fb = dir .. "/" .. tag .. ".gprof", dir .. "/" .. tag .. ".lgprof"
  spit(fa, a)
  spit(fb, b)
  local d = read_cmd("diff -u --label " .. sq(la) .. " --label " .. sq(lb) .. " "
    .. sq(fa) .. " " .. sq(fb) .. " 2>&1")
  if #d > 6000 then d = d:sub(1, 6000) .. "\n... (diff truncated)\n" end
  return d
end
M.udiff = udiff

--- Raw names of the two heaviest functions of exe and gmon, from gprof -b
--- -p --no-demangle (through the oracle's cache; files: what the answer
--- depends on); "main" for each missing one.
function M.heaviest(dir, exe, gmon, files)
  local out = oracle.gprof_many(dir, { { args = { "-b", "-p", "--no-demangle", exe, gmon } } },
    files)[1].out
  local names, in_table = {}, false
  for line in out:gmatch("[^\n]+") do
    if line:match("^%s*time%s+seconds%s+seconds") then
      in_table = true
    elseif in_table and line:match("^%s*[%d.]+%s+[%d.]+%s+[%d.]+") then
      names[#names + 1] = line:gsub("%s+$", ""):match("(%S+)$")
      if #names == 2 then break end
    end
  end
  return names[1] or "main", names[2] or "main"
end

--- A case of text (shell words, {NAME} replaced from subst) followed by
--- the words of tail (the executable and its profiles).
function M.case(text, subst, tail)
  local args = util.fields(text)
  for k, a in ipairs(args) do args[k] = a:gsub("{(%w+)}", subst) end
  table.move(tail, 1, #tail, #args + 1, args)
  return { label = text .. " [" .. #tail - 1 .. " profile(s)]", args = args }
end

--- { out =, err =, rc = } of a run that left DIR/WHO.I.{out,err,rc}.
function M.result(dir, who, i)
  return {
    out = slurp(("%s/%s.%d.out"):format(dir, who, i)) or "",
    err = slurp(("%s/%s.%d.err"):format(dir, who, i)) or "",
    rc = tonumber((slurp(("%s/%s.%d.rc"):format(dir, who, i)) or ""):match("%d+")),
  }
end

--- lgprof's command line run by lgprof.cli.main in this process.
function M.lgprof_inproc(args)
  local cli = require "lgprof.cli.main"
  local out, err = assert(io.tmpfile()), assert(io.tmpfile())
  local ok, rc = pcall(cli.main, args, out, err)
  if not ok then err:write("lgprof.cli.main raised: ", tostring(rc), "\n"); rc = 99 end
  local function text(f)
    f:seek("set")
    local t = f:read("a")
    f:close()
    return t
  end
  return { out = text(out), err = text(err), rc = rc }
end

local have_lfs, lfs = pcall(require, "lfs")

--- lgprof.cli.main's run of args (as lgprof_inproc) with this process's
-- working directory changed to cwd for the run, and back; nil when it cannot
-- be changed (no LuaFileSystem). (lgprof resolves relative paths, and
-- writes -y's and -s's files, through the process's working directory.)
-- (the module paths made absolute meanwhile: busted's are relative to the
-- checkout, and lgprof loads some modules on first use)
local function absolute_paths(paths, base)
  return (paths:gsub("[^;]+", function(t) return t:match("^/") and t or base .. "/" .. t end))
end
function M.lgprof_inproc_in(cwd, args)
  if not have_lfs then return nil end
  local back = assert(lfs.currentdir())
  local path, cpath = package.path, package.cpath
  package.path, package.cpath = absolute_paths(path, back), absolute_paths(cpath, back)
  assert(lfs.chdir(cwd))
  local ok, r = pcall(M.lgprof_inproc, args)
  assert(lfs.chdir(back))
  package.path, package.cpath = path, cpath
  if not ok then error(r, 0) end
  return r
end

--- Every case through both tools: gprof through the oracle (kept answers),
-- lgprof in this process (in the case's working directory, if it has one),
-- except the cases marked `spawn` (the command, one process each).
function M.run_both(dir, cases, files)
  local g = oracle.gprof_many(dir, cases, files)
  local l, spawned = {}, {}
  for i, c in ipairs(cases) do
    local cwd = c.lcwd or c.cwd
    if not c.spawn and (cwd or c.indir) then
      l[i] = M.lgprof_inproc_in(cwd and dir .. "/" .. cwd or dir, c.args)
      if l[i] and c.collect then l[i].files = oracle.collect(dir .. "/" .. cwd, c.collect) end
    elseif not c.spawn then
      l[i] = M.lgprof_inproc(c.args)
    end
    if not l[i] then spawned[#spawned + 1] = i end
  end
  if #spawned > 0 then
    local lines = { "cd " .. sq(dir) .. " || exit 1", "unset GPROF_PATH" }
    for _, i in ipairs(spawned) do
      local c = cases[i]
      local run = cmd.LGPROF_CMD .. " " .. quote_args(c.args)
      local cwd = c.lcwd or c.cwd
      if cwd then run = ("(cd %s && %s)"):format(sq(cwd), run) end
      lines[#lines + 1] = ("%s >l.%d.out 2>l.%d.err </dev/null; echo $? >l.%d.rc"):format(run, i, i, i)
    end
    spit(dir .. "/lgprof.sh", table.concat(lines, "\n") .. "\n")
    assert(exec_ok("sh " .. sq(dir .. "/lgprof.sh")), "running lgprof failed")
    for _, i in ipairs(spawned) do
      l[i] = M.result(dir, "l", i)
      local c = cases[i]
      if c.collect then l[i].files = oracle.collect(dir .. "/" .. (c.lcwd or c.cwd), c.collect) end
    end
  end
  return g, l
end

local function sorted_lines(s)
  local t = {}
  for line in s:gmatch("[^\n]*\n?") do
    if line ~= "" then t[#t + 1] = line end
  end
  table.sort(t)
  return table.concat(t)
end

-- A line with its numbers and runs of blanks folded: lines of one shape
-- differ at most in their numbers (and so in their padding).
local function shape(line)
  return (line:gsub("%d+%.%d+", "#"):gsub("%s+", " "))
end

-- The decimal numbers of a line: { {value, digits after the point}, ... }.
local function numbers(line)
  local t = {}
  for int, frac in line:gmatch("(%d+)%.(%d+)") do
    t[#t + 1] = { tonumber(int .. "." .. frac), #frac }
  end
  return t
end

-- nil when two reports hold the same lines (as multisets) but for numbers
-- printed one unit apart in their last digit (a share rounded the other way:
-- 6.2 vs 6.3), else the first line that differs otherwise.
local function beyond_rounding(a, b)
  local count, only_b = {}, {}
  for line in a:gmatch("[^\n]+") do count[line] = (count[line] or 0) + 1 end
  for line in b:gmatch("[^\n]+") do
    if (count[line] or 0) > 0 then count[line] = count[line] - 1 else only_b[#only_b + 1] = line end
  end
  local only_a = {}
  for line, n in pairs(count) do
    for _ = 1, n do only_a[#only_a + 1] = line end
  end
  local function by_shape(x, y)
    if shape(x) ~= shape(y) then return shape(x) < shape(y) end
    return x < y
  end
  table.sort(only_a, by_shape)
  table.sort(only_b, by_shape)
  for i = 1, math.max(#only_a, #only_b) do
    local x, y = only_a[i], only_b[i]
    if not (x and y and shape(x) == shape(y)) then return x or y end
    local nx, ny = numbers(x), numbers(y)
    for k = 1, #nx do
      local unit = 10 ^ -nx[k][2]
      if nx[k][2] ~= ny[k][2] or math.abs(nx[k][1] - ny[k][1]) > 1.5 * unit then return x end
    end
  end
  return nil
end

-- The collected files of two results: nil when the same names hold the same
-- bytes, else what differs and a diff of the first differing file.
local function compare_files(dir, tag, gf, lf, la, lb)
  local names, seen = {}, {}
  for name in pairs(gf) do names[#names + 1], seen[name] = name, true end
  for name in pairs(lf) do
    if not seen[name] then names[#names + 1] = name end
  end
  table.sort(names)
  local what, diff = {}, nil
  for k, name in ipairs(names) do
    local a, b = gf[name], lf[name]
    if a ~= b then
      what[#what + 1] = not a and ("file " .. name .. " (only lgprof wrote it)")
        or not b and ("file " .. name .. " (lgprof did not write it)") or ("file " .. name)
      diff = diff or udiff(dir, tag .. ".file" .. k, a or "", b or "", la .. " (" .. name .. ")",
        lb .. " (" .. name .. ")")
    end
  end
  if #what == 0 then return nil end
  return table.concat(what, ", "), diff
end

--- Compares two results (by default a gprof one and an lgprof one); returns
-- nil when equal, else a short description and a diff. opts.la / opts.lb
-- label the two sides; opts.unordered compares stdout as a multiset of
-- lines; opts.rounding lets stdout differ in the last digit of numbers.
-- Collected files (results' .files) are compared byte for byte.
function M.compare(dir, label, g, l, tag, opts)
  opts = opts or {}
  local la = opts.la or ("gprof " .. label)
  local lb = opts.lb or ("lgprof " .. label)
  local what = {}
  local diff
  local go, lo = g.out, l.out
  if opts.unordered then go, lo = sorted_lines(go), sorted_lines(lo) end
  if go ~= lo and not (opts.rounding and beyond_rounding(go, lo) == nil) then
    what[#what + 1] = (opts.unordered and "stdout (as sorted lines)" or "stdout")
      .. (opts.rounding and ", beyond rounding" or "")
    diff = udiff(dir, tag .. ".stdout", go, lo, la .. " (stdout)", lb .. " (stdout)")
  end
  local ge, le = norm_err(g.err), norm_err(l.err)
  if ge ~= le then
    what[#what + 1] = "stderr"
    diff = (diff or "") .. udiff(dir, tag .. ".stderr", ge, le, la .. " (stderr)",
      lb .. " (stderr)")
  end
  if g.rc ~= l.rc then
    what[#what + 1] = ("exit status %s vs %s"):format(tostring(g.rc), tostring(l.rc))
    diff = (diff or "") .. ("exit status: %s -> %s, %s -> %s\n"):format(la, tostring(g.rc),
      lb, tostring(l.rc))
  end
  if g.files or l.files then
    local fw, fd = compare_files(dir, tag, g.files or {}, l.files or {}, la, lb)
    if fw then
      what[#what + 1] = fw
      diff = (diff or "") .. fd
    end
  end
  if #what == 0 then return nil end
  return table.concat(what, ", "), diff
end

return M
