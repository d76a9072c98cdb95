--- `lgprof check [options] [image-file [profile-file...]]`: a CI gate.
-- Thresholds come from --max-self=PATTERN=SHARE, --max-total=PATTERN=SHARE,
-- --max-calls=PATTERN=N (repeatable, in command-line order) and from
-- --thresholds=FILE.lua (evaluated first). A time threshold fails only when
-- its breach is significant at --confidence (default 0.95; 0: any breach of
-- the estimate fails); a breach that is not is a warning line. Each breach
-- is one line on stderr; stdout gets "lgprof check: N thresholds, M failed"
-- (and ", W warnings" when there are some).
-- Exit statuses: 0 all passed, 1 bad input (a profile or thresholds file),
-- 2 usage error (no thresholds, a malformed value or pattern), 3 a threshold failed.
local lgprof = require "lgprof"
local args = require "lgprof.util.args"
local help = require "lgprof.cli.help"

local cmd = {}

-- (the usage text is written on first use: the option lists come from the
-- registry, and most runs never print them)
help.lazy_usage(cmd, function()
  return [==[
Usage: lgprof check [options] [--max-self=PATTERN=SHARE]... [--max-total=PATTERN=SHARE]...
	[--max-calls=PATTERN=N]... [--thresholds=FILE.lua] [--confidence=C]
	[image-file [profile-file...]]
  A CI gate: each threshold that a function matching PATTERN exceeds (or
  that no function matches) is one line on stderr.
]==] .. help.mode("check", 29) .. [==[
  A time threshold fails only when the lower confidence bound of the time
  (its sampling error; Holm's correction over the functions PATTERN
  matches) is above it; a breach of the estimate alone is a warning (exit
  0). Default confidence 0.95 (or 95%); 0: every breach fails.
  PATTERN: a POSIX extended regular expression matched in the function's
  name; SHARE: a fraction or a percentage (0.3 or 30%).
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 all passed, 1 bad input, 2 usage error, 3 a threshold failed.
]==]
end)

local KINDS = { "max_self", "max_total", "max_calls" }
local KIND_NAMES = {}
for _, k in ipairs(KINDS) do KIND_NAMES[k] = true end

local function limit_of(kind, v) return lgprof.check.limit(kind, v) end

-- Thresholds of a Lua file: { max_self = { [PATTERN] = SHARE }, ...,
-- confidence = C (optional) }; appended to list; returns true and the
-- file's confidence (nil: none), or nil, message.
local function load_file(path, list)
  local chunk, lerr = require("lgprof.cmd.script").load(path, "t", {})
  if not chunk then return nil, lerr end
  local ok, t = pcall(chunk)
  if not ok then return nil, tostring(t) end
  if type(t) ~= "table" then return nil, path .. ": must return a table" end
  local confidence
  if t.confidence ~= nil then
    local what
    confidence, what = require("lgprof.analysis.diff").confidence(t.confidence)
    if not confidence then
      return nil, ("%s: confidence: expected %s"):format(path, what)
    end
  end
  for k in pairs(t) do
    if not KIND_NAMES[k] and k ~= "confidence" then
      return nil, ("%s: unknown threshold kind '%s'"):format(path, tostring(k))
    end
  end
  for _, kind in ipairs(KINDS) do
    local tab = t[kind]
    if tab ~= nil and type(tab) ~= "table" then
      return nil, ("%s: %s must be a table of PATTERN = limit"):format(path, kind)
    end
    local patterns = {}
    for pattern in pairs(tab or {}) do
      if type(pattern) ~= "string" then
        return nil, ("%s: %s: patterns must be strings"):format(path, kind)
      end
      patterns[#patterns + 1] = pattern
    end
    table.sort(patterns)
    for _, pattern in ipairs(patterns) do
      local limit, what = limit_of(kind, tab[pattern])
      if not limit then
        return nil, ("%s: %s[%q]: expected %s"):format(path, kind, pattern, what)
      end
      local perr = args.pattern_error(pattern)
      if perr then return nil, ("%s: %s[%q]: %s"):format(path, kind, pattern, perr) end
      list[#list + 1] = { kind, pattern, limit }
    end
  end
  return true, confidence
end

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, out, err = ctx.opts, ctx.out, ctx.err
  local list, file_confidence = {}, nil
  for _, path in ipairs(st.thresholds or {}) do
    local ok, lerr = load_file(path, list)
    if not ok then return ctx:fail(1, lerr) end
    file_confidence = lerr or file_confidence
  end
  for _, t in ipairs(st.limits or {}) do list[#list + 1] = { t.kind, t.pattern, t.limit } end
  if #list == 0 then
    return ctx:fail(2, "check: no thresholds (--max-self, --max-total, --max-calls, --thresholds)")
  end
  -- gcc's clones kept (gprof's rule folds them into their neighbours), and
  -- a pattern matches a clone through its origin's name
  st.clones = st.clones or "keep"
  local match = { clone_match = not st.no_clone_match }
  local profile <close>, ostatus = ctx.cli.open(st, err)
  if not profile then return ostatus end
  -- a thresholds file's max_calls on sampled stacks (--max-calls is refused
  -- before the profile is read): no call was recorded, nothing to test
  if profile.source == "stacks" then
    for _, t in ipairs(list) do
      if t[1] == "max_calls" then
        return ctx:fail(2, ("%s records sampled stacks, no calls: max_calls (%s) cannot be used")
          :format(profile.files[1] or "perf.data", t[2]))
      end
    end
  end
  -- this run's checker: --confidence, else a thresholds file's, else the default
  local checker = lgprof.check.new { output = err, confidence = st.confidence or file_confidence }
  local failed = 0
  for _, t in ipairs(list) do
    if not checker[t[1]](checker, profile, t[2], t[3], match) then failed = failed + 1 end
  end
  local warned = #checker:warnings()
  out:write(("lgprof check: %d threshold%s, %d failed%s\n"):format(#list,
    #list == 1 and "" or "s", failed,
    warned > 0 and (", %d warning%s"):format(warned, warned == 1 and "" or "s") or ""))
  return failed > 0 and 3 or 0
end

return cmd
