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
-- warning line.
-- Exit statuses: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
local lgprof = require "lgprof"
local help = require "lgprof.cli.help"

local cmd = {}

-- (the usage text is written on first use: the option lists come from the
-- registry, and most runs never print them)
help.lazy_usage(cmd, function()
  return [==[
Usage: lgprof --diff BASE-PROFILE [--diff BASE-PROFILE]... [--diff-image=EXE]
	[--max-growth=[PATTERN=]SHARE]... [--confidence=C] [options]
	[image-file [profile-file...]]
  Prints how each function's time and calls changed from the base run(s) to
  the profile files (all read with the same options), with the confidence
  interval of each change, a * where it is significant, and the change of
  total time split into more calls and time per call (calls are exact).
  --format=json or csv: the table as data; folded: each stack with the
  base's and the new profile's counts; svg: a differential flame graph (red
  grew, blue shrank, grey within the noise); html: the comparison page.
]==] .. help.mode("diff", 33) .. [==[
  A growth beyond SHARE that is not significant (Holm's correction over
  the functions tested) is a warning (exit 0).
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 success, 1 bad input, 2 usage error, 3 a growth limit failed.
]==]
end)

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

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, out, err, cli = ctx.opts, ctx.out, ctx.err, ctx.cli
  if st.annotate_asm then return require("lgprof.cmd.asm").diff(ctx) end
  local diff = require "lgprof.analysis.diff"
  local bases, base_exe, confidence = st.diff, st.diff_image, st.confidence
  local growth = {}
  for _, g in ipairs(st.max_growth or {}) do growth[#growth + 1] = { g.pattern, g.limit } end
  local files = {}
  for _, v in ipairs(bases) do
    local list, gerr = base_files(v)
    if not list then return ctx:fail(1, gerr) end
    table.move(list, 1, #list, #files + 1, files)
  end
  if confidence == nil then confidence = diff.CONFIDENCE end
  local fmt = st.output_format or "text"
  -- gcc's clones kept (gprof's rule folds them into their neighbours) and
  -- matched to their origin across builds
  st.clones = st.clones or "keep"
  local clone_match = not st.no_clone_match
  -- --focus, --ignore, --hide: the same view of every profile compared
  -- (the thresholds are refused by the parse: they keep a different part
  -- of each side)
  local cliview = require "lgprof.cli.views"
  st.view, st.view_description = cliview.take(st)
  -- (a pattern that matches no function is said once, not once a profile)
  local said = {}
  local view_err = { write = function(_, ...)
    local line = table.concat({ ... })
    if not said[line] then
      said[line] = true
      err:write(line)
    end
  end }
  local result
  do -- every profile closed before the table is written
    local opened, bases_opened = {}, {}
    local _ <close> = setmetatable({}, { __close = function()
      -- (views first: the profiles they are views of after them)
      for i = #opened, 1, -1 do opened[i]:close() end
    end })
    for _, path in ipairs(files) do
      local p, ostatus = cli.open(st, err, base_exe, { path })
      if not p then return ostatus end
      opened[#opened + 1] = p
      local v, vstatus = cliview.apply(st, p, view_err)
      if not v then return vstatus end
      if v ~= p then opened[#opened + 1] = v end
      bases_opened[#bases_opened + 1] = v
    end
    local new, nstatus = cli.open(st, err)
    if not new then return nstatus end
    opened[#opened + 1] = new
    local view, vstatus = cliview.apply(st, new, view_err)
    if not view then return vstatus end
    if view ~= new then opened[#opened + 1], new = view, view end
    local dopts = { confidence = confidence, clone_match = clone_match }
    if fmt == "text" then
      result = diff.diff(bases_opened, new, dopts)
      diff.write(result, out)
    else -- (written while the profiles are open: the page reads their arcs)
      local text
      result, text = require("lgprof.format.diffout").write(fmt, bases_opened, new, dopts, {
        shape = st.diff_shape, view_description = st.view_description })
      if not result then return ctx:fail(1, text) end
      out:write(text)
    end
  end
  local failed = false
  if growth[1] then
    local checker = lgprof.check.new { output = err, confidence = confidence }
    for _, g in ipairs(growth) do
      if not checker:max_growth(result, g[1], g[2], { clone_match = clone_match }) then
        failed = true
      end
    end
  end
  return failed and 3 or 0
end

return cmd
