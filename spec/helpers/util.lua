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

--- Did the shell command exit with status 0?
function util.exec_ok(cmd)
  local r = os.execute(cmd)
  return r == true or r == 0
end

--- Standard output of a shell command.
function util.read_cmd(cmd)
  local p = assert(io.popen(cmd, "r"))
  local s = p:read("a")
  p:close()
  return s
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
function util.have(tool)
  if tool:sub(1, 1) == "/" then return util.exec_ok("test -x " .. util.q(tool)) end
  return util.exec_ok("command -v " .. util.q(tool) .. " >/dev/null 2>&1")
end

--- mkdir -p; returns path.
function util.mkdir(path)
  assert(util.exec_ok("mkdir -p " .. util.q(path)), "cannot create " .. path)
  return path
end

-- LuaFileSystem, where installed (busted needs it, through penlight): a
-- folder listed without starting a shell and ls, which cost this machine
-- some 5 ms of CPU a time (the differential specs list a folder per case)
local have_lfs, lfs = pcall(require, "lfs")

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
function util.mktempdir(name)
  local base = os.getenv("TMPDIR")
  if not base or base == "" then base = "/tmp" end
  local d = util.read_cmd("mktemp -d " .. util.q(base .. "/" .. name .. ".XXXXXX")):gsub("\n$", "")
  assert(d ~= "", "mktemp -d failed")
  made[d] = true
  return d
end

--- Removes a folder made by mktempdir (anything else is refused, so a
-- wrong variable cannot remove what a spec did not create).
function util.rmtree(d)
  if d == nil then return end
  assert(made[d], "rmtree: not a folder made by util.mktempdir: " .. tostring(d))
  os.execute("rm -rf " .. util.q(d))
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
