--- `lgprof --script FILE.lua [options] [image-file [profile-file...]] [-- args]`:
-- runs a report script with the analysed profile. The script's chunk receives
-- the Profile and the list of words after "--" (`local profile, args = ...`).
-- Exit statuses: 0 the script returned, 1 bad input (a profile file, or the
-- script: missing, not Lua, a syntax error, a runtime error), 2 usage error, 3 a
-- lgprof.check threshold failed. A script may also call os.exit itself.

local cmd = {}

cmd.USAGE = [==[
Usage: lgprof --script FILE.lua [options] [image-file [profile-file...]] [-- script-args]
  Runs FILE.lua with the analysed profile: the chunk receives the Profile
  and the list of words after "--" (local profile, args = ...).
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 the script returned, 1 bad input (a profile file, or the
script: missing, not Lua, a syntax or runtime error), 2 usage error,
3 an lgprof.check threshold failed.
]==]
cmd.STANDALONE_USAGE = [==[
Usage: lua5.4 FILE.lua [options] [image-file [profile-file...]] [-- script-args]
  A report script run by lua5.4: lgprof.script(...) reads the profile
  named by these words (gprof's options apply, see lgprof --help).
]==]

-- "lgprof: FILE.lua:LINE: message" (the file name is added when missing)
local function script_error(err, path, msg)
  msg = tostring(msg)
  if msg:sub(1, #path + 1) ~= path .. ":" then msg = path .. ": " .. msg end
  err:write("lgprof: ", msg, "\n")
  return 1
end

-- Bytes that mark a file as binary (Lua text has them only inside string
-- literals, if at all): NUL, the control characters other than tab,
-- newline, VT, FF and CR, and DEL.
local NOT_TEXT = "[%z\1-\8\14-\31\127]"

--- Loads the Lua file at path (loadfile's mode and env, when given: an
-- explicit nil env would be the chunk's _ENV). Returns the chunk; or nil
-- and "PATH: not a Lua script" when it fails to load and its first 4 KiB
-- hold a NOT_TEXT byte (an executable, random bytes, UTF-16: Lua would
-- quote that byte at line 1); "PATH: why" when it cannot be read; else
-- Lua's message, naming PATH (a real syntax error, with its line, or a
-- precompiled chunk's, which begins with ESC). --script and check's --thresholds load
-- their files with it.
function cmd.load(path, ...)
  local chunk, lerr = loadfile(path, ...)
  if chunk then return chunk end
  local f = io.open(path, "rb")
  local head = f and f:read(4096)
  if f then f:close() end
  if head and head:sub(1, 1) ~= "\27" and head:find(NOT_TEXT) then
    return nil, path .. ": not a Lua script"
  end
  -- loadfile's "cannot read PATH: Is a directory" -> "PATH: Is a directory"
  for _, verb in ipairs({ "open", "read" }) do
    local prefix = ("cannot %s %s: "):format(verb, path)
    if lerr:sub(1, #prefix) == prefix then return nil, path .. ": " .. lerr:sub(#prefix + 1) end
  end
  -- a message without the file's name ("attempt to load a binary chunk") gets it
  if lerr:sub(1, #path + 1) ~= path .. ":" then lerr = path .. ": " .. lerr end
  return nil, lerr
end

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, err, cli = ctx.opts, ctx.err, ctx.cli
  local path = st.script
  local chunk, lerr = cmd.load(path)
  if not chunk then return script_error(err, path, lerr) end
  local check = require "lgprof.analysis.check"
  local ok, rerr
  do
    local profile <close>, ostatus = cli.open(st, err)
    if not profile then return ostatus end
    check.reset()
    ok, rerr = pcall(chunk, profile, st.rest)
  end
  io.stdout:flush()
  if not ok then return script_error(err, path, rerr) end
  return #check.failures() > 0 and 3 or 0
end

--- lgprof.script(...) outside `lgprof --script`: parses the words given to
-- the script like the command line (gprof options, files, "--" then the
-- script's arguments) and opens the profile; exits with status 2 on a usage
-- error and 1 on bad input, as the command would. (lgprof.script has
-- checked that the words are strings.)
function cmd.standalone(words)
  local cli = require "lgprof.cli.main"
  local expanded, xerr = require("lgprof.cli.respfile").expand(words) -- @FILE, as the command
  if not expanded then
    io.stderr:write("lgprof: ", xerr, "\n")
    os.exit(1, true)
  end
  local st, status = cli.parse(expanded, io.stdout, io.stderr, "standalone")
  if not st then os.exit(status, true) end
  local profile, ostatus = cli.open(st, io.stderr)
  if not profile then os.exit(ostatus, true) end
  return profile, st.rest
end

return cmd
