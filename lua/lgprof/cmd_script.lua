--- `lgprof --script FILE.lua [options] [image-file [profile-file...]] [-- args]`:
-- runs a report script with the analysed profile. The script's chunk receives
-- the Profile and the list of words after "--" (`local profile, args = ...`).
-- Exit statuses: 0 the script returned, 1 bad input (a profile file, or the
-- script: missing, a syntax error, a runtime error), 2 usage error, 3 a
-- lgprof.check threshold failed. A script may also call os.exit itself.
local cmd = {}

cmd.USAGE = [==[
Usage: lgprof --script FILE.lua [options] [image-file [profile-file...]] [-- script-args]
]==]
cmd.STANDALONE_USAGE = [==[
Usage: lua5.4 FILE.lua [options] [image-file [profile-file...]] [-- script-args]
]==]

-- "lgprof: FILE.lua:LINE: message" (the file name is added when missing)
local function script_error(err, path, msg)
  msg = tostring(msg)
  if msg:sub(1, #path + 1) ~= path .. ":" then msg = path .. ": " .. msg end
  err:write("lgprof: ", msg, "\n")
  return 1
end

function cmd.run(cli, argv, out, err)
  local st, status = cli.parse(argv, out, err, "script")
  if not st then return status end
  local path
  for _, o in ipairs(st.extra) do
    if path then
      err:write("lgprof: --script given twice\n")
      return 2
    end
    path = o[2]
  end
  local f, oerr = io.open(path, "r")
  if not f then
    err:write("lgprof: ", oerr, "\n")
    return 1
  end
  f:close()
  local chunk, lerr = loadfile(path)
  if not chunk then return script_error(err, path, lerr) end
  local check = require "lgprof.check"
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
-- error and 1 on bad input, as the command would.
function cmd.standalone(words)
  local cli = require "lgprof.cli"
  for i, w in ipairs(words) do
    if type(w) ~= "string" then
      error(("bad argument #%d to 'script' (string or Profile expected, got %s)"):format(
        i, type(w)), 3)
    end
  end
  local st, status = cli.parse(words, io.stdout, io.stderr, "standalone")
  if not st then os.exit(status, true) end
  local profile, ostatus = cli.open(st, io.stderr)
  if not profile then os.exit(ostatus, true) end
  return profile, st.rest
end

return cmd
