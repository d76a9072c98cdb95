-- GNU gprof as the oracle, with its answers kept: gprof's output depends only
-- on its own binary, its arguments and the bytes of the files it reads, so a
-- run is stored under a digest of those (build/gprof-cache/) and never redone.
-- A suite run on a warm checkout then spends its time on lgprof alone.
--
--   local oracle = require "helpers.oracle"
--   local results = oracle.gprof_many(dir, { {args = {...}}, ... }, files)
--   -- results[i] = { out =, err =, rc = }
--
-- `files` lists the paths that occur in the arguments (the executable and the
-- profiles): each is keyed by the digest of its bytes, so a rebuilt fixture
-- gets new answers. Paths are stored as placeholders and put back on the
-- way out, so the answers do not depend on where the files were copied.
--
-- A case may name a working directory of its own, `cwd` (relative to dir,
-- made by the caller with whatever the case needs in it): gprof runs there,
-- and with `collect` (a Lua pattern) the files there whose names match it
-- after the run (gprof -y's FILE-ann) are kept too, as results[i].files =
-- { [name] = bytes }. GPROF_PATH is unset for every run.
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local cmd = require "helpers.cmd"

local M = {}
local q = util.q

M.DIR = fx.root .. "/build/gprof-cache"

-- FNV-1a, 64 bits (Lua integers wrap): a name for a key, not a security hash
local function fnv(s)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  for i = 1, #s do h = (h ~ s:byte(i)) * 1099511628211 end
  return ("%016x"):format(h)
end

-- what identifies the gprof binary: its size and modification time
local gprof_id
local function gprof_identity()
  if not gprof_id then
    gprof_id = util.read_cmd("stat -L -c '%s %Y' " .. q(cmd.GPROF) .. " 2>/dev/null"):gsub("%s+$", "")
  end
  return gprof_id
end

--- { [path] = sha256 of its bytes } for a list of paths, in one process.
function M.digests(paths)
  local out = util.read_cmd("sha256sum -b " .. util.qwords(paths) .. " 2>/dev/null")
  local d, k = {}, 0
  for line in out:gmatch("[^\n]+") do
    k = k + 1
    local sum = line:match("^\\?(%x+)") -- "\\" first: sha256sum escaped the name
    if sum and paths[k] then d[paths[k]] = sum end
  end
  return d
end

local function escape(s) return (s:gsub("%p", "%%%0")) end

-- The text with every listed path replaced by a placeholder naming its place
-- in the list ("@FILE2@"), longest paths first (one may begin another), and
-- back. (A path is looked for as plain text before it is replaced: a gsub of
-- each path over every answer cost more CPU than gprof's run.)
local function longest_first(files)
  local order = {}
  for k = 1, #files do order[k] = k end
  table.sort(order, function(a, b) return #files[a] > #files[b] end)
  return order
end
local function hide_paths(s, files, order)
  for _, k in ipairs(order or longest_first(files)) do
    if s:find(files[k], 1, true) then s = s:gsub(escape(files[k]), "@FILE" .. k .. "@") end
  end
  return s
end
local function show_paths(s, files)
  if not s:find("@FILE", 1, true) then return s end
  return (s:gsub("@FILE(%d+)@", function(k) return files[tonumber(k)] end))
end

-- the key: gprof, the files' bytes in order, the arguments naming them by
-- place, and the case's working directory and collected files
local function key_of(c, files, digest, order)
  local words = { "gprof", gprof_identity() }
  for _, path in ipairs(files) do words[#words + 1] = digest[path] end
  for _, a in ipairs(c.args) do words[#words + 1] = hide_paths(a, files, order) end
  -- (not its name: its contents, which the caller must make a function of
  -- the arguments, are its only effect)
  if c.cwd then words[#words + 1] = "\1cwd\1" .. (c.collect or "") end
  return fnv(table.concat(words, "\0"))
end

-- collected files, stored as "name\nsize\nbytes" one after the other
local function pack_files(t)
  local names, parts = {}, {}
  for name in pairs(t) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do parts[#parts + 1] = ("%s\n%d\n%s"):format(name, #t[name], t[name]) end
  return table.concat(parts)
end
local function unpack_files(s)
  local t, at = {}, 1
  while at <= #s do
    local name, size, start = s:match("^([^\n]*)\n(%d+)\n()", at)
    if not name then return nil end
    t[name] = s:sub(start, start + tonumber(size) - 1)
    at = start + tonumber(size)
  end
  return t
end

local function collect(dir, pattern)
  local t = {}
  for _, name in ipairs(util.ls(dir)) do
    if name:match(pattern) then t[name] = util.slurp(dir .. "/" .. name) end
  end
  return t
end
M.collect = collect

-- An answer is one file, KEY.ans: "RC OUT_SIZE ERR_SIZE FILES_SIZE\n", then
-- stdout, stderr (their paths hidden) and the collected files, packed. (One
-- file rather than one for each part: a file made, renamed and read costs
-- more than gprof's run on the smaller fixtures.)
local function load(key, files, c)
  local text = util.slurp(M.DIR .. "/" .. key .. ".ans")
  if not text then return nil end
  local rc, no, ne, nf, at = text:match("^(%d+) (%d+) (%d+) (%d+)\n()")
  if not rc then return nil end
  no, ne, nf = tonumber(no), tonumber(ne), tonumber(nf)
  if at + no + ne + nf - 1 ~= #text then return nil end
  local r = {
    out = show_paths(text:sub(at, at + no - 1), files),
    err = show_paths(text:sub(at + no, at + no + ne - 1), files),
    rc = tonumber(rc),
  }
  if c.collect then
    r.files = unpack_files(text:sub(at + no + ne))
    if not r.files then return nil end
  end
  return r
end

-- Keeps an answer, written under a name of this process's own and renamed:
-- a reader (another spec process) sees a whole answer or none.
local function keep(key, files, order, r, tmp_tag)
  local out, err = hide_paths(r.out, files, order), hide_paths(r.err, files, order)
  local packed = r.files and pack_files(r.files) or ""
  local path = M.DIR .. "/" .. key .. ".ans"
  local tmp = ("%s.%s"):format(path, tmp_tag)
  util.spit(tmp, ("%d %d %d %d\n"):format(r.rc, #out, #err, #packed) .. out .. err .. packed)
  os.rename(tmp, path)
end

-- gprof's runs without an exec each: spec/helpers/gprofserver.c, preloaded
-- into one gprof process, forks a child per case from gprof as it stands
-- before main, and the child runs gprof's own main on the case's arguments
-- (an exec and the dynamic linking of gprof's libraries are most of a run's
-- CPU time on the fixtures). Compiled once into build/spec/ (its bytes kept
-- here: each use copies it into the comparison's folder, so that LD_PRELOAD,
-- which splits at blanks, names it by a relative path); false when it cannot
-- be built, or when LGPROF_SPEC_GPROF_EXEC is set (every run an exec).
local server_bytes
local function gprof_server()
  if server_bytes ~= nil then return server_bytes end
  server_bytes = false
  if (os.getenv("LGPROF_SPEC_GPROF_EXEC") or "") ~= "" then return false end
  local ok, lfs = pcall(require, "lfs")
  if not ok then return false end
  local src = fx.root .. "/spec/helpers/gprofserver.c"
  local out = fx.root .. "/build/spec/gprofserver.so"
  local made, from = lfs.attributes(out, "modification"), lfs.attributes(src, "modification")
  if not from then return false end
  if not made or made < from then
    util.mkdir(fx.root .. "/build/spec")
    -- (under a name of this process's own, renamed: another spec process
    -- may be compiling it too)
    local tmp = ("%s.%s"):format(out, fnv(tostring({}) .. os.time()))
    if not util.exec_ok(("cc -std=c99 -O2 -Wall -Wextra -shared -fPIC -o %s %s -ldl 2>/dev/null")
        :format(q(tmp), q(src))) then
      os.remove(tmp)
      return false
    end
    os.rename(tmp, out)
  end
  server_bytes = util.slurp(out) or false
  return server_bytes
end

--- Does gprof run through the server here (see gprof_server)?
function M.served() return gprof_server() and true or false end

--- Runs gprof through the server in dir, once for each of runs ({ args =
-- {...}, cwd = FOLDER or nil }: FOLDER relative to dir), and returns each run's { out =, err =, rc = } in their order, as
-- a shell's `gprof ARGS >OUT 2>ERR </dev/null; echo $?` leaves them. The
-- batch's outputs are three files (gprof.res.out, .err and .idx in dir: see
-- gprofserver.c), not three a run. opts.env: variables for gprof ({ NAME =
-- value }); opts.shell: shell words run before it (ulimit's, which every run
-- inherits: a limit of file size, ulimit -f, bounds the batch's outputs
-- together). false when there is no server (the caller runs gprof itself).
function M.serve(dir, runs, opts)
  opts = opts or {}
  local bytes = gprof_server()
  if not bytes then return false end
  util.spit(dir .. "/gprofserver.so", bytes)
  local jobs = {}
  for _, r in ipairs(runs) do
    assert(not (r.cwd or ""):find("\0", 1, true), "a folder with a NUL byte")
    jobs[#jobs + 1] = ("%s\0\0%d\0gprof\0"):format(r.cwd or "", #r.args + 1)
    for _, a in ipairs(r.args) do
      assert(not a:find("\0", 1, true), "an argument with a NUL byte")
      jobs[#jobs + 1] = a .. "\0"
    end
  end
  util.spit(dir .. "/gprof.jobs", table.concat(jobs))
  local env = {}
  for name, value in pairs(opts.env or {}) do env[#env + 1] = name .. "=" .. q(value) .. " " end
  table.sort(env)
  -- (LD_BIND_NOW: the dynamic linker binds gprof's symbols once, in the
  -- server, rather than lazily in every child)
  local run = ("cd %s && %s%senv -u GPROF_PATH %s%sGPROFSERVER_JOBS=gprof.jobs"
    .. " GPROFSERVER_RESULTS=gprof.res LD_BIND_NOW=1 LD_PRELOAD=./gprofserver.so gprof")
    :format(q(dir), opts.shell and opts.shell .. " && " or "", cmd.NO_ASLR, table.concat(env),
      cmd.GPROF_PATH)
  assert(util.exec_ok(run), "running gprof (the server) failed")
  local base = dir .. "/gprof.res"
  local out, err = util.slurp(base .. ".out"), util.slurp(base .. ".err")
  local index = util.slurp(base .. ".idx")
  assert(out and err and index, "the server left no results in " .. dir)
  local results, out_at, err_at = {}, 0, 0
  for rc, out_end, err_end in index:gmatch("(%d+) (%d+) (%d+)\n") do
    out_end, err_end = tonumber(out_end), tonumber(err_end)
    results[#results + 1] = {
      out = out:sub(out_at + 1, out_end), err = err:sub(err_at + 1, err_end), rc = tonumber(rc),
    }
    out_at, err_at = out_end, err_end
  end
  assert(#results == #runs and out_at == #out and err_at == #err,
    ("the server answered %d runs of %d"):format(#results, #runs))
  return results
end

-- Might gprof's command line ask for -s (--sum)? (Any cluster of short
-- options holding an "s" counts, a value glued to an option too: the
-- doubtful ones run as an exec, which is always right.)
local function may_write_sum(args)
  for _, a in ipairs(args) do
    if a:match("^%-%-su") or a:match("^%-[^-]") and a:find("s", 2, true) then return true end
  end
  return false
end

--- Runs gprof (as "gprof", in dir) on every case whose answer is not kept,
-- all in one process (see gprof_server) or one shell, and returns every
-- case's { out, err, rc }. files: the paths the arguments name (see above).
-- opts.fresh: run gprof on every case, neither reading nor keeping answers;
-- opts.exec: with an exec of gprof each (as a user runs it), not the server.
function M.gprof_many(dir, cases, files, opts)
  opts = opts or {}
  local digest = M.digests(files)
  for _, path in ipairs(files) do
    assert(digest[path], "cannot read " .. path)
  end
  -- a case whose key an earlier case of the list has (the same arguments)
  -- takes that case's answer: gprof runs once for both
  local results, todo, keys, first, same = {}, {}, {}, {}, {}
  local order = longest_first(files)
  for i, c in ipairs(cases) do
    keys[i] = key_of(c, files, digest, order)
    if not opts.fresh then results[i] = load(keys[i], files, c) end
    if not results[i] then
      if first[keys[i]] then
        same[#same + 1] = i
      else
        first[keys[i]] = i
        todo[#todo + 1] = i
      end
    end
  end
  if #todo == 0 then return results end
  -- a run that may write gmon.sum (-s), whose spare bytes are whatever
  -- gprof's stack held, is an exec, as a user's run; the others (-y's
  -- FILE-ann among them) are served, in their working directories
  local served, scripted = {}, {}
  for _, i in ipairs(todo) do
    local list = cases[i].cwd and may_write_sum(cases[i].args) and scripted or served
    list[#list + 1] = i
  end
  local runs, answers = {}, false
  for k, i in ipairs(served) do runs[k] = { args = cases[i].args, cwd = cases[i].cwd } end
  if #served > 0 and not opts.exec then answers = M.serve(dir, runs) end
  if answers then
    for k, i in ipairs(served) do results[i] = answers[k] end
  else
    table.move(served, 1, #served, #scripted + 1, scripted)
  end
  if #scripted > 0 then
    local lines = { "cd " .. q(dir) .. " || exit 1", "unset GPROF_PATH" }
    for _, i in ipairs(scripted) do
      local run = ("%s %s"):format(cmd.GPROF_SCRIPT_CMD, util.qwords(cases[i].args))
      if cases[i].cwd then run = ("(cd %s && %s)"):format(q(cases[i].cwd), run) end
      lines[#lines + 1] = ("%s >o.%d.out 2>o.%d.err </dev/null; echo $? >o.%d.rc"):format(run, i, i, i)
    end
    util.spit(dir .. "/oracle.sh", table.concat(lines, "\n") .. "\n")
    assert(util.exec_ok(cmd.NO_ASLR .. "sh " .. q(dir .. "/oracle.sh")), "running gprof failed")
  end
  util.mkdir(M.DIR)
  for _, i in ipairs(todo) do
    local r = results[i] or {
      out = util.slurp(("%s/o.%d.out"):format(dir, i)) or "",
      err = util.slurp(("%s/o.%d.err"):format(dir, i)) or "",
      rc = tonumber((util.slurp(("%s/o.%d.rc"):format(dir, i)) or ""):match("%d+")),
    }
    if cases[i].collect then r.files = collect(dir .. "/" .. cases[i].cwd, cases[i].collect) end
    results[i] = r
    if r.rc and not opts.fresh then keep(keys[i], files, order, r, fnv(dir)) end
  end
  for _, i in ipairs(same) do results[i] = results[first[keys[i]]] end
  return results
end

return M
