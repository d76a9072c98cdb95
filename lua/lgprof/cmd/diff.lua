--- `lgprof --diff BASE-PROFILE... [--diff-image=EXE] [--max-growth=[PATTERN=]SHARE]
-- [--confidence=C] [options] [image-file [profile-file...]]`: prints how each
-- function changed from the base run(s) to the new profile, with the
-- significance of each change. The bases are read with the same options
-- and, unless --diff-image names another executable, the same image.
-- --diff is repeatable and takes a glob pattern (quoted past the shell):
-- each base file is one run. --max-growth (repeatable) fails when a
-- matching function's total time grew by more than SHARE of the base's total
-- time, significantly at --confidence (default 0.95; 0: any growth beyond
-- the limit fails); a growth beyond the limit that is not significant is a
-- warning line. gcc's clones are kept (--clones=gprof: gprof's rule) and
-- matched to their origin across builds (--no-clone-match: not).
-- Exit statuses: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local options = require "lgprof.cli.options"

local cmd = {}

cmd.USAGE = [==[
Usage: lgprof --diff BASE-PROFILE [--diff BASE-PROFILE]... [--diff-image=EXE]
	[--max-growth=[PATTERN=]SHARE]... [--confidence=C] [--clones=keep|gprof]
	[--no-clone-match] [options] [image-file [profile-file...]]
  Prints how each function's time and calls changed from the base run(s) to
  the profile files (all read with the same options), with the confidence
  interval of each change, a * where it is significant, and the change of
  total time split into more calls and time per call (calls are exact).
  --diff=BASE-PROFILE            a base run; repeatable, or a glob pattern
                                 ('base/gmon.*', quoted): several base runs
                                 are averaged and their spread counts as error
  --diff-image=EXE               the executable of the bases (default: image-file)
  --max-growth=[PATTERN=]SHARE   fail (exit 3) when a function matching PATTERN
                                 (default: any) grew by more than SHARE of the
                                 base's total time (0.1 or 10%, may exceed 1),
                                 significantly: Holm's correction over the
                                 functions tested; a growth beyond SHARE that
                                 is not significant is a warning (exit 0)
  --confidence=C                 of the intervals and the gates (default 0.95
                                 or 95%; 0: no statistics, any growth beyond
                                 SHARE fails)
  --clones=keep|gprof            gcc's clones (f.isra.0, f.cold...) as
                                 functions of their own (keep, the default),
                                 or folded into the function before them as
                                 gprof's report has them
  --no-clone-match               do not match a clone to its origin across
                                 builds (by default lookup.constprop.0 in one
                                 and lookup in the other are one row, shown
                                 "lookup <- lookup.constprop.0", when the
                                 name is unique among the unmatched ones)
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
]==]

-- The base files an argument of --diff names: itself, or, when it is not a
-- file and holds a glob character, the files the pattern matches (sorted).
-- Returns the list, or nil and a message.
local function base_files(v)
  local f = io.open(v, "rb")
  if f then
    f:close()
    return { v }
  end
  if not v:find("[*?[]") then return { v } end -- the open's own error says why
  local list, gerr = require("lgprof.core").glob(v)
  if not list then return nil, gerr end
  if #list == 0 then return nil, v .. ": no file matches the pattern" end
  return list
end

function cmd.run(cli, argv, out, err)
  local st, status = cli.parse(argv, out, err, "diff")
  if not st then return status end
  local bases, base_exe, confidence = {}, nil, nil
  local growth, clone_match = {}, true
  local diff = require "lgprof.analysis.diff"
  for _, o in ipairs(st.extra) do
    local name, v = o[1], o[2]
    if name == "diff" then
      if options.asks_help(v) then -- "lgprof --diff --help"
        out:write(options.usage("diff"))
        return 0
      end
      bases[#bases + 1] = v
    elseif name == "diff-image" then
      base_exe = v
    elseif name == "clones" then
      local c, cerr = options.clones(v)
      if not c then return options.usage_error(err, cerr, "diff") end
      st.clones = c
    elseif name == "no-clone-match" then
      clone_match = false
    elseif name == "confidence" then
      local c, what = diff.confidence(v)
      if not c then
        return options.usage_error(err, ("--confidence: '%s' is not %s"):format(v, what), "diff")
      end
      confidence = c
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
  local files = {}
  for _, v in ipairs(bases) do
    local list, gerr = base_files(v)
    if not list then
      err:write("lgprof: ", gerr, "\n")
      return 1
    end
    table.move(list, 1, #list, #files + 1, files)
  end
  if confidence == nil then confidence = diff.CONFIDENCE end
  st.clones = st.clones or "keep" -- gprof's rule folds clones into their neighbours
  local result
  do -- every profile closed before the table is written
    local opened = {}
    local _ <close> = setmetatable({}, { __close = function()
      for _, p in ipairs(opened) do p:close() end
    end })
    for _, path in ipairs(files) do
      local p, ostatus = cli.open(st, err, base_exe, { path })
      if not p then return ostatus end
      opened[#opened + 1] = p
    end
    local new, nstatus = cli.open(st, err)
    if not new then return nstatus end
    local bases_opened = table.move(opened, 1, #opened, 1, {})
    opened[#opened + 1] = new
    result = diff.diff(bases_opened, new, { confidence = confidence, clone_match = clone_match })
  end
  diff.write(result, out)
  local failed = false
  if growth[1] then
    local check = lgprof.check
    check.with_output(err, function()
      for _, g in ipairs(growth) do
        if not check.max_growth(result, g[1], g[2],
            { confidence = confidence, clone_match = clone_match }) then
          failed = true
        end
      end
    end)
  end
  return failed and 3 or 0
end

return cmd
