--- `lgprof --diff BASE-PROFILE [--diff-image=EXE] [--max-growth=[PATTERN=]SHARE]
-- [options] [image-file [profile-file...]]`: prints how each function changed
-- from the base profile to the new one. The base is read with the same
-- options and, unless --diff-image names another executable, the same image.
-- --max-growth (repeatable) fails when a matching function's total time grew
-- by more than SHARE of the base's total time.
-- Exit statuses: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
local lgprof = require "lgprof"
local args = require "lgprof.args"
local options = require "lgprof.options"

local cmd = {}

cmd.USAGE = [==[
Usage: lgprof --diff BASE-PROFILE [--diff-image=EXE] [--max-growth=[PATTERN=]SHARE]...
	[options] [image-file [profile-file...]]
  Prints how each function's time and calls changed from BASE-PROFILE to
  the profile files (both read with the same options).
  --diff-image=EXE               the executable of BASE-PROFILE (default: image-file)
  --max-growth=[PATTERN=]SHARE   fail (exit 3) when a function matching PATTERN
                                 (default: any) grew by more than SHARE of the
                                 base's total time (0.1 or 10%, may exceed 1)
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
]==]

function cmd.run(cli, argv, out, err)
  local st, status = cli.parse(argv, out, err, "diff")
  if not st then return status end
  local base, base_exe
  local growth = {}
  for _, o in ipairs(st.extra) do
    local name, v = o[1], o[2]
    if name == "diff" then
      if options.asks_help(v) then -- "lgprof --diff --help"
        out:write(options.usage("diff"))
        return 0
      end
      if base then return options.usage_error(err, "--diff given twice", "diff") end
      base = v
    elseif name == "diff-image" then
      base_exe = v
    else -- max-growth
      local pattern, value = args.pattern_value(v)
      if not pattern then pattern, value = ".", v end
      local share = lgprof.check.limit("max_growth", value)
      if not share then
        return options.usage_error(err,
          ("--max-growth: '%s' is not a share (0.1 or 10%%, may exceed 1)"):format(value), "diff")
      end
      -- pattern_error says "bad pattern 'PATTERN': why" itself
      local perr = args.pattern_error(pattern)
      if perr then return options.usage_error(err, "--max-growth: " .. perr, "diff") end
      growth[#growth + 1] = { pattern, share }
    end
  end
  local diff = require "lgprof.diff"
  local result
  do -- both profiles closed before the table is written
    local old <close>, ostatus = cli.open(st, err, base_exe, { base })
    if not old then return ostatus end
    local new <close>, nstatus = cli.open(st, err)
    if not new then return nstatus end
    result = diff.diff(old, new)
  end
  diff.write(result, out)
  local failed = false
  if growth[1] then
    local check = lgprof.check
    check.with_output(err, function()
      for _, g in ipairs(growth) do
        if not check.max_growth(result, g[1], g[2]) then failed = true end
      end
    end)
  end
  return failed and 3 or 0
end

return cmd
