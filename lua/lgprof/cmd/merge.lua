--- `lgprof merge [options] -o OUT image-file profile-file...`: sums the
-- profile files into OUT (gprof -s, with the arc records in a canonical
-- order: see lgprof.merge). The gprof options that change how files are
-- read (-O, -a, -D, -k, ...) apply; report options are ignored.
-- Exit statuses: 0 success, 1 bad input (or OUT cannot be written), 2 usage error.

local help = require "lgprof.cli.help"

local cmd = {}

-- (the usage text is written on first use: the option lists come from the
-- registry, and most runs never print them)
help.lazy_usage(cmd, function()
  return [==[
Usage: lgprof merge [options] -o OUT image-file profile-file...
  Sums the profile files into OUT, a GNU gmon.out (as gprof -s writes
  gmon.sum); OUT is replaced in one step once the sum is complete.
]==] .. help.mode("merge", 25) .. [==[
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 success, 1 bad input (or OUT cannot be written), 2 usage error.
]==]
end)

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, err, cli = ctx.opts, ctx.err, ctx.cli
  local refused = cli.refuse_format(st, err)
  if refused then return refused end
  local path = st.output
  if not path then return ctx:fail(2, "merge: no output file (-o OUT)") end
  for i, path in ipairs(st.operands) do
    -- (the first of several is the image: a stream there is not read)
    if require("lgprof")._core.is_perfdata(path, i > 1 or #st.operands == 1) then
      return ctx:fail(1, path .. ": perf.data files are not summed (merge sums gmon.out files)")
    end
  end
  if #st.operands < 2 then
    return ctx:fail(2, "merge: needs an image file and at least one profile file")
  end
  local o = cli.open_options(st)
  o.granularity = "line"
  local ok, merr = require("lgprof.analysis.merge").merge(st.exe, st.gmons, path, o)
  if not ok then return ctx:fail(1, merr) end
  return 0
end

return cmd
