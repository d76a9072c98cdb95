-- Small helpers shared by the specs: files, temporary folders, commands.
local util = {}

--- The whole content of a file, or nil if it cannot be opened.
function util.slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

--- A new folder /tmp/NAME.XXXXXX.
function util.mktempdir(name)
  local p = io.popen("mktemp -d /tmp/" .. name .. ".XXXXXX")
  local d = p:read("l")
  p:close()
  assert(d and d ~= "", "mktemp -d failed")
  return d
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

return util
