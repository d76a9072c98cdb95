-- Small helpers shared by the specs: shell quoting, files, temporary folders,
-- shell commands. Every path that goes into a shell command goes through q().
local util = {}

--- s as one shell word (single-quoted): safe for spaces, dashes, quotes.
function util.q(s)
  return "'" .. (tostring(s):gsub("'", [['\'']])) .. "'"
end

--- The words of a list, each quoted, joined by spaces.
function util.qwords(words)
  local t = {}
  for i, w in ipairs(words) do t[i] = util.q(w) end
  return table.concat(t, " ")
end

--- The whole content of a file, or nil if it cannot be opened.
function util.slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

--- Writes text to path (raises if it cannot); returns path.
function util.spit(path, text)
  local f = assert(io.open(path, "wb"))
  assert(f:write(text))
  assert(f:close())
  return path
end

-- One shell per process runs the specs' shell commands (exec_ok, read_cmd,
-- helpers.cmd's runs), each in a subshell of its own (a fork of the shell,
-- no exec): os.execute and io.popen start a new shell for every command, and
-- a process start costs this machine 4 to 10 ms of CPU (most of it page
-- faults), while the suite runs some tens of thousands of commands. The
-- shell reads the commands on its standard input; each one's exit status
-- comes back through a named pipe. A command runs as `sh -c` would run it
-- (eval'd: a syntax error ends its subshell only, with status 2), with
-- standard input /dev/null (make test's xargs gives busted the same), and
-- standard output and error those of this process. Where mkfifo fails, or
-- with LGPROF_SPEC_SHELL=fork, each command gets a shell of its own.
local server -- nil: not started; false: none; else { pipe =, fifo = }

local function shell_server()
  if server ~= nil then return server end
  server = false
  if os.getenv("LGPROF_SPEC_SHELL") == "fork" then return false end
  local base = os.tmpname() -- (made, so the name is this process's)
  local fifo = base .. ".status"
  local ok = os.execute("mkfifo -m 600 " .. util.q(fifo))
  if not (ok == true or ok == 0) then os.remove(base); return false end
  local p = io.popen("exec sh", "w")
  if not p then os.remove(base); os.remove(fifo); return false end
  -- (the shell ends when this process does: its input closes; it then
  -- removes the pipe and the name)
  p:write("trap ", util.q("rm -f " .. util.q(fifo) .. " " .. util.q(base)), " EXIT\n")
  server = { pipe = p, fifo = fifo, base = base }
  return server
end

-- Runs a command line through the shell server: its exit status (128 + the
-- signal's number when a signal ended it), or nil when there is no server.
local function serve(line, redirect)
  local s = shell_server()
  if not s then return nil end
  s.pipe:write("( eval ", util.q(line), " ) </dev/null", redirect or "", "; echo $? >", util.q(s.fifo), "\n")
  s.pipe:flush()
  local f = assert(io.open(s.fifo, "r"))
  local status = f:read("a")
  f:close()
  return tonumber(status:match("%d+"))
end
util.serve = serve

--- Did the shell command exit with status 0?
function util.exec_ok(cmd)
  local status = serve(cmd)
  if status then return status == 0 end
  local r = os.execute(cmd)
  return r == true or r == 0
end

--- Standard output of a shell command.
function util.read_cmd(cmd)
  local s = shell_server()
  if s then
    local out = s.base .. ".out"
    serve(cmd, " >" .. util.q(out))
    local text = util.slurp(out) or ""
    os.remove(out)
    return text
  end
  local p = assert(io.popen(cmd, "r"))
  local text = p:read("a")
  p:close()
  return text
end

--- The shell words that run nm(1) on this machine's ELF files: with the
-- target named, as the default target would pick it for them (the same
-- output), because without one nm tries every plugin target and loads
-- /usr/lib/bfd-plugins' LLVMgold (libLLVM): 75 ms of CPU a run instead of 6.
util.NM = (function()
  local p = io.popen("uname -m 2>/dev/null")
  local m = p and p:read("l") or ""
  if p then p:close() end
  return m == "x86_64" and "nm --target=elf64-x86-64" or "nm"
end)()

--- Is the program on PATH (or, for an absolute path, executable)?
-- (kept per process: a shell each time was two process starts)
local have_cache = {}
function util.have(tool)
  if have_cache[tool] == nil then
    if tool:sub(1, 1) == "/" then
      have_cache[tool] = util.exec_ok("test -x " .. util.q(tool))
    else
      have_cache[tool] = util.exec_ok("command -v " .. util.q(tool) .. " >/dev/null 2>&1")
    end
  end
  return have_cache[tool]
end

-- LuaFileSystem, where installed (busted needs it, through penlight):
-- folders listed, made and removed without starting a shell and a tool.
-- A process start costs this machine some 4 to 10 ms of CPU (most of it
-- page faults), the same as a small report: a cold suite started some
-- 100,000 processes, and the specs list, make and remove folders per case.
local have_lfs, lfs = pcall(require, "lfs")

-- mkdir -p through lfs: true when path is a folder afterwards
local function lfs_mkdir_p(path)
  if lfs.attributes(path, "mode") == "directory" then return true end
  local parent = path:match("^(.+)/[^/]+/*$")
  if parent and not lfs_mkdir_p(parent) then return false end
  lfs.mkdir(path) -- (may fail because another process made it: checked below)
  return lfs.attributes(path, "mode") == "directory"
end

--- mkdir -p; returns path.
function util.mkdir(path)
  if not (have_lfs and lfs_mkdir_p(path)) then
    assert(util.exec_ok("mkdir -p " .. util.q(path)), "cannot create " .. path)
  end
  return path
end

--- mkdir -p of every folder of a list.
function util.mkdirs(paths)
  for _, p in ipairs(paths) do util.mkdir(p) end
end

--- The names in a folder, sorted (none when it does not exist).
function util.ls(dir)
  local names = {}
  if have_lfs then
    local ok, iter, state = pcall(lfs.dir, dir)
    if ok and lfs.attributes(dir, "mode") == "directory" then
      for name in iter, state do
        if name ~= "." and name ~= ".." then names[#names + 1] = name end
      end
    end
  else
    for line in util.read_cmd("ls -1A " .. util.q(dir) .. " 2>/dev/null"):gmatch("[^\n]+") do
      names[#names + 1] = line
    end
  end
  table.sort(names)
  return names
end

-- folders made by mktempdir: the only ones rmtree removes
local made = {}

--- A new folder $TMPDIR/NAME.XXXXXX (TMPDIR defaults to /tmp).
-- (mkdir fails when the name exists: a name another process took is
-- never shared; Lua 5.4 seeds math.random differently in every process)
local TMP_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
local function lfs_mktemp(prefix)
  for _ = 1, 100 do
    local t = {}
    for k = 1, 6 do
      local i = math.random(#TMP_CHARS)
      t[k] = TMP_CHARS:sub(i, i)
    end
    local d = prefix .. "." .. table.concat(t)
    if lfs.mkdir(d) then return d end
    if not lfs.attributes(d) then return nil end -- (not a name taken: cannot create)
  end
  return nil
end

function util.mktempdir(name)
  local base = os.getenv("TMPDIR")
  if not base or base == "" then base = "/tmp" end
  local d = have_lfs and lfs_mktemp(base .. "/" .. name)
  if not d then
    d = util.read_cmd("mktemp -d " .. util.q(base .. "/" .. name .. ".XXXXXX")):gsub("\n$", "")
  end
  assert(d ~= "", "mktemp -d failed")
  made[d] = true
  return d
end

-- rm -rf through lfs (links removed, never followed); false when something
-- is left
local function lfs_rm_rf(path)
  local mode = lfs.symlinkattributes(path, "mode")
  if not mode then return true end
  if mode ~= "directory" then return os.remove(path) ~= nil end
  local ok, iter, state = pcall(lfs.dir, path)
  if not ok then return false end
  local all = true
  for name in iter, state do
    if name ~= "." and name ~= ".." then all = lfs_rm_rf(path .. "/" .. name) and all end
  end
  return all and lfs.rmdir(path) ~= nil
end

--- Removes a folder made by mktempdir (anything else is refused, so a
-- wrong variable cannot remove what a spec did not create).
function util.rmtree(d)
  if d == nil then return end
  assert(made[d], "rmtree: not a folder made by util.mktempdir: " .. tostring(d))
  if not (have_lfs and lfs_rm_rf(d)) then os.execute("rm -rf " .. util.q(d)) end
  made[d] = nil
end

--- In a busted describe block: a temporary folder made before its tests and
-- removed after them. Returns a function that gives its path (in a test).
function util.block_tmpdir(name)
  local busted = require "busted" -- (setup and teardown are not globals here)
  local dir
  busted.setup(function() dir = util.mktempdir(name) end)
  busted.teardown(function() util.rmtree(dir) end)
  return function() return dir end
end

--- Shell text to put before a command to cap its memory at kb KB of address
-- space ("ulimit -v kb; "). Under make test-asan (LGPROF_SANITIZER set),
-- ASan reserves terabytes of shadow address space, so ulimit -v cannot be
-- used: the cap is then ASan's own, on each allocation (one larger fails as
-- malloc failing would).
function util.memory_limit(kb)
  if os.getenv("LGPROF_SANITIZER") then
    return ("ASAN_OPTIONS=\"$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=%d\" ")
      :format(kb // 1024)
  end
  return ("ulimit -v %d; "):format(kb)
end

--- A deep copy of a table (other values as they are).
function util.copy(t)
  if type(t) ~= "table" then return t end
  local c = {}
  for k, v in pairs(t) do c[k] = util.copy(v) end
  return c
end

--- The fields of a line split on runs of blanks; with n, the first n-1
-- fields and then the rest of the line (which may hold blanks) as the last.
function util.fields(line, n)
  local t, rest = {}, line:match("^%s*(.-)%s*$")
  while rest ~= "" do
    if n and #t == n - 1 then t[#t + 1] = rest; break end
    local w, r = rest:match("^(%S+)%s*(.*)$")
    t[#t + 1], rest = w, r
  end
  return t
end

--- The lines of a text (without their "\n"); a last line without one counts.
function util.lines(text)
  local t = {}
  for l in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
    t[#t + 1] = l
  end
  if text == "" then t = {} end
  return t
end

--- Does text hold word as a whole word (no letter, digit or '-' on either
-- side: an option "-a" is not found in "--all")?
--- An ELF file's code symbols as `nm -S` lists them: name -> { addr =,
-- size = } (size nil when nm knows none).
function util.code_symbols(exe)
  local syms = {}
  for line in util.read_cmd(util.NM .. " -S " .. util.q(exe)):gmatch("[^\n]+") do
    local addr, size, name = line:match("^(%x+) (%x+) [Tt] ([%w_]+)$")
    if not addr then addr, name = line:match("^(%x+) [Tt] ([%w_]+)$") end
    if addr then syms[name] = { addr = tonumber(addr, 16), size = size and tonumber(size, 16) } end
  end
  return syms
end

--- An ELF file's executable LOAD segment as `readelf -lW` gives it:
-- { offset =, vaddr =, filesz = }, or nil.
function util.text_segment(exe)
  local text
  for off, va, fsz, flg in util.read_cmd("readelf -lW " .. util.q(exe)):gmatch(
      "LOAD%s+0x(%x+)%s+0x(%x+)%s+0x%x+%s+0x(%x+)%s+0x%x+%s+([RWE ]+)") do
    if flg:find("E") then text = { offset = tonumber(off, 16), vaddr = tonumber(va, 16), filesz = tonumber(fsz, 16) } end
  end
  return text
end

function util.has_word(text, word)
  local i = 1
  while true do
    local s, e = text:find(word, i, true)
    if not s then return false end
    local before, after = text:sub(s - 1, s - 1), text:sub(e + 1, e + 1)
    if not before:match("[%w-]") and not after:match("[%w-]") then return true end
    i = e + 1
  end
end

return util
