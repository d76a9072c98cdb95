--- `lgprof merge [options] -o OUT image-file profile-file...`: sums the
-- profile files into OUT (gprof -s, with the arc records in a canonical
-- order: see lgprof.merge). The gprof options that change how files are
-- read (-O, -a, -D, -k, ...) apply; report options are ignored.
-- Exit statuses: 0 success, 1 bad input (or OUT cannot be written), 2 usage error.
local options = require "lgprof.cli.options"

local cmd = {}

cmd.USAGE = [==[
Usage: lgprof merge [options] -o OUT image-file profile-file...
  Sums the profile files into OUT, a GNU gmon.out (as gprof -s writes
  gmon.sum); OUT is replaced in one step once the sum is complete.
  -o OUT, --output=OUT   the file to write
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 success, 1 bad input (or OUT cannot be written), 2 usage error.
]==]

function cmd.run(cli, args, out, err)
  local st, status = cli.parse(args, out, err, "merge")
  if not st then return status end
  local refused = cli.refuse_format(st, err)
  if refused then return refused end
  local path
  for _, o in ipairs(st.extra) do path = o[2] end
  if not path then return options.usage_error(err, "merge: no output file (-o OUT)", "merge") end
  if #st.operands < 2 then
    return options.usage_error(err, "merge: needs an image file and at least one profile file", "merge")
  end
  local o = cli.open_options(st)
  o.granularity = "line"
  local ok, merr = require("lgprof.analysis.merge").merge(st.exe, st.gmons, path, o)
  if not ok then
    err:write("lgprof: ", merr, "\n")
    return 1
  end
  return 0
end

return cmd
