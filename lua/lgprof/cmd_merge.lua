--- `lgprof merge [options] -o OUT image-file profile-file...`: sums the
-- profile files into OUT (gprof -s, with the arc records in a canonical
-- order: see lgprof.merge). The gprof options that change how files are
-- read (-O, -a, -D, -k, ...) apply; report options are ignored.
-- Exit statuses: 0 success, 1 bad input (or OUT cannot be written), 2 usage error.
local cmd = {}

cmd.USAGE = [==[
Usage: lgprof merge [options] -o OUT image-file profile-file...
]==]

function cmd.run(cli, args, out, err)
  local st, status = cli.parse(args, out, err, "merge")
  if not st then return status end
  local refused = cli.refuse_format(st, err)
  if refused then return refused end
  local path
  for _, o in ipairs(st.extra) do path = o[2] end
  if not path then
    err:write("lgprof: merge: no output file (-o OUT)\n")
    return 2
  end
  if #st.operands < 2 then
    err:write("lgprof: merge: needs an image file and at least one profile file\n")
    return 2
  end
  local options = cli.open_options(st)
  options.line_arcs = true
  local ok, merr = require("lgprof.merge").merge(st.exe, st.gmons, path, options)
  if not ok then
    err:write("lgprof: ", merr, "\n")
    return 1
  end
  return 0
end

return cmd
