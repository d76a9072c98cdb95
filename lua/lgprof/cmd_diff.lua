--- `lgprof --diff BASE-PROFILE [--diff-image=EXE] [--max-growth=[PATTERN=]SHARE]
-- [options] [image-file [profile-file...]]`: prints how each function changed
-- from the base profile to the new one. The base is read with the same
-- options and, unless --diff-image names another executable, the same image.
-- --max-growth (repeatable) fails when a matching function's total time grew
-- by more than SHARE of the base's total time.
-- Exit statuses: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
local lgprof = require "lgprof"
local args = require "lgprof.args"

local cmd = {}

cmd.USAGE = [==[
Usage: lgprof --diff BASE-PROFILE [--diff-image=EXE] [--max-growth=[PATTERN=]SHARE]
	[options] [image-file [profile-file...]]
]==]

function cmd.run(cli, argv, out, err)
  local st, status = cli.parse(argv, out, err, "diff")
  if not st then return status end
  local base, base_exe
  local growth = {}
  for _, o in ipairs(st.extra) do
    local name, v = o[1], o[2]
    if name == "diff" then
      if base then
        err:write("lgprof: --diff given twice\n")
        return 2
      end
      base = v
    elseif name == "diff-image" then
      base_exe = v
    else -- max-growth
      local pattern, value = args.pattern_value(v)
      if not pattern then pattern, value = ".", v end
      local share = args.share(value, math.huge)
      if not share then
        err:write(("lgprof: --max-growth: '%s' is not a share (0.1 or 10%%, may exceed 1)\n"):format(value))
        return 2
      end
      local perr = args.pattern_error(pattern)
      if perr then
        err:write(("lgprof: --max-growth: bad pattern '%s': %s\n"):format(pattern, perr))
        return 2
      end
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
    local saved = check.output
    check.output = err
    for _, g in ipairs(growth) do
      if not check.max_growth(result, g[1], g[2]) then failed = true end
    end
    check.output = saved
  end
  return failed and 3 or 0
end

return cmd
