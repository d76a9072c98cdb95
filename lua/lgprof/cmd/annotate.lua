--- `lgprof --annotate-lines[=FILE] [gprof options] [image-file [profile-file...]]`:
-- the listing of lgprof.report.annotate (lgprof.format.annotate) on ctx.out;
-- gprof's -I DIRS as the source search path; the view options apply.
local annotate = require "lgprof.format.annotate"

local cmd = {}

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, out, err = ctx.opts, ctx.out, ctx.err
  local base <close>, status = ctx.cli.open(st, err)
  if not base then return status end
  local profile, vstatus = ctx.cli.view(st, base, err) -- --focus, --hide...
  if not profile then return vstatus end
  if not profile.have_histogram then return ctx:fail(1, "gmon.out file is missing histogram") end
  local dirs = {}
  for _, d in ipairs(st.dirs or {}) do
    if d ~= "" then dirs[#dirs + 1] = d end
  end
  -- --annotate-lines alone (true): every source file with samples
  local source = st.annotate_lines ~= true and st.annotate_lines or nil
  local ok, msg = annotate.write(profile, out, { source = source, directories = dirs })
  if not ok then return ctx:fail(1, msg) end
  return 0
end

return cmd
