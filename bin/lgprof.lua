#!/usr/bin/env lua5.4
-- lgprof, the command, as a script for any lua5.4 (LuaRocks installs this one);
-- `make` builds bin/lgprof, the same command as one executable embedding this file.
--
-- It finds lgprof's modules, answers --lua-env, then runs lgprof.cli. Under
-- the executable (csrc/cli/main.c) the modules are built in and `...` is a
-- table saying where the executable is (its real path) and where `make
-- install` put the modules; run by lua5.4, `...` are command-line words.
local launcher = ...
if type(launcher) ~= "table" then launcher = nil end

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- The folder holding path ("a/b" -> "a", "b" -> ".", "/b" -> "/"), by text:
-- resolving symlinks would need a process (readlink), which costs more than
-- the rest of the start-up; the executable gets its real path from the kernel.
local function up(path)
  local head, last = path:match("^(.*)/([^/]+)$")
  if not head then return (path == "" or path == ".") and ".." or "." end
  if last == ".." or last == "." then return path .. "/.." end
  return head == "" and "/" or head
end

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local pwd = os.getenv("PWD")
  if not pwd or pwd == "" then return path end
  while path:sub(1, 2) == "./" do path = path:sub(3) end
  return path == "." and pwd or pwd .. "/" .. path
end

-- Where lgprof's Lua modules and lgprof/core.so are: luadir, cdir (either
-- may be nil). Tried in order: a checkout (bin/ or BUILD/bin/ next to
-- lua/lgprof/; the core in $LGPROF_BUILD, else build/ or BUILD/), a tree laid
-- out as `make install` does wherever it was moved (PREFIX/bin next to
-- PREFIX/share/lua/5.4), where `make install` put it, and package.path.
local function locate(self)
  local bin = up(self)
  local build = os.getenv("LGPROF_BUILD")
  if build == "" then build = nil end
  for _, root in ipairs({ { up(bin), up(bin) .. "/build" }, { up(up(bin)), up(bin) } }) do
    if exists(root[1] .. "/lua/lgprof/init.lua") then
      return root[1] .. "/lua", build or root[2]
    end
  end
  local prefix, luarel, crel = up(bin), "share/lua/5.4", "lib/lua/5.4"
  if launcher then
    -- the install's own layout, relative to its PREFIX
    local p = launcher.prefix .. "/"
    local function rel(dir) return dir:sub(1, #p) == p and dir:sub(#p + 1) or nil end
    local binrel = rel(launcher.bindir)
    luarel, crel = rel(launcher.luadir), rel(launcher.cdir)
    prefix = binrel and bin:sub(-#binrel - 1) == "/" .. binrel and bin:sub(1, -#binrel - 2) or nil
  end
  if prefix and luarel and crel and exists(prefix .. "/" .. luarel .. "/lgprof/init.lua") then
    return prefix .. "/" .. luarel, prefix .. "/" .. crel
  end
  if launcher and exists(launcher.luadir .. "/lgprof/init.lua") then
    return launcher.luadir, launcher.cdir
  end
  local init = package.searchpath("lgprof", package.path)
  local core = package.searchpath("lgprof.core", package.cpath)
  return init and (init:match("^(.*)/lgprof/init%.lua$") or init:match("^(.*)/lgprof%.lua$")),
    core and core:match("^(.*)/lgprof/core%.so$")
end

local function fail(msg)
  io.stderr:write("lgprof: ", msg, "\n")
  return 2
end

-- Shell text that quotes s in single quotes (any byte but NUL).
local function shquote(s) return "'" .. s:gsub("'", [['\'']]) .. "'" end

-- --lua-env: the shell lines that let any lua5.4 `require "lgprof"`, in
-- front of what LUA_PATH_5_4 / LUA_PATH held (lua5.4 reads the first one
-- set; ";;" is Lua's default path). The _5_4 names keep other Lua versions
-- from finding a core built for 5.4.
local function lua_env(luadir, cdir, out)
  if not (luadir and cdir) then
    return fail("--lua-env: cannot tell where lgprof's modules are (see README: Install)")
  end
  luadir, cdir = absolute(luadir), absolute(cdir)
  out:write("export LUA_PATH_5_4=", shquote(luadir .. "/?.lua;" .. luadir .. "/?/init.lua;"),
    [["${LUA_PATH_5_4-${LUA_PATH:-;}}"]], "\n")
  out:write("export LUA_CPATH_5_4=", shquote(cdir .. "/?.so;"),
    [["${LUA_CPATH_5_4-${LUA_CPATH:-;}}"]], "\n")
  return 0
end

local function main()
  local self = (launcher and launcher.exe) or (arg and arg[0]) or ""
  if arg[1] == "--lua-env" then
    if #arg > 1 then
      return fail("--lua-env takes no other argument\nTry 'lgprof --help' for more information.")
    end
    local luadir, cdir = locate(self)
    return lua_env(luadir, cdir, io.stdout)
  end
  if not launcher then
    local luadir, cdir = locate(self)
    if luadir then package.path = luadir .. "/?.lua;" .. luadir .. "/?/init.lua;" .. package.path end
    if cdir then package.cpath = cdir .. "/?.so;" .. package.cpath end
    if not package.searchpath("lgprof.cli.main", package.path) then
      return fail("cannot find lgprof's Lua modules (lgprof.cli): run bin/lgprof.lua from a checkout,"
        .. " or install lgprof (see README: Install)")
    end
    if not package.searchpath("lgprof.core", package.cpath) then
      return fail(("the C core is not built (no lgprof/core.so in %s): run make first")
        :format(cdir or "package.cpath"))
    end
  end
  return require("lgprof.cli.main").main(arg)
end

-- An error lgprof did not catch: one line, a traceback only with LGPROF_DEBUG.
local function on_error(msg)
  msg = tostring(msg)
  local debug_env = os.getenv("LGPROF_DEBUG")
  if debug_env and debug_env ~= "" then return debug.traceback(msg, 2) end
  return msg
end

local ok, status = xpcall(main, on_error)
if not ok then status = fail(status) end
if launcher then return status end
os.exit(status, true)
