--- `lgprof --annotate-asm[=RE] [options] [image-file [profile-file...]]`:
-- the instructions of the functions matching RE (default: those with at
-- least --node-fraction of the self time, 0.5% when not given, hottest
-- first) with their samples (lgprof.format.asm), as text or with
-- --format=json; -I DIRS as the source search path; the view options apply.
local asm = require "lgprof.format.asm"

local cmd = {}

local DEFAULT_FRACTION = 0.005

-- The functions to list: RE's matches, or the hottest.
local function chosen(profile, st)
  local fns = {}
  if st.annotate_asm ~= true then
    local ok, found = pcall(profile.search, profile, st.annotate_asm)
    if not ok then return nil, ("--annotate-asm=%s: %s"):format(st.annotate_asm, found) end
    for _, fn in ipairs(found) do
      if fn.kind == "function" and not fn.is_inline then fns[#fns + 1] = fn end
    end
    if #fns == 0 then
      return nil, ("--annotate-asm=%s: no function matches"):format(st.annotate_asm)
    end
  else
    local least = (st.node_fraction or DEFAULT_FRACTION) * profile.total_time
    for fn in profile:functions() do
      if not fn.is_inline and fn.self > 0 and fn.self >= least then fns[#fns + 1] = fn end
    end
  end
  table.sort(fns, function(a, b)
    if a.self ~= b.self then return a.self > b.self end
    return a.address < b.address
  end)
  return fns
end

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, out = ctx.opts, ctx.out
  local fmt = st.output_format
  if fmt and fmt ~= "gprof" and fmt ~= "text" and fmt ~= "json" then
    return ctx:fail(2, "--annotate-asm writes text or --format=json, not --format=" .. fmt)
  end
  if st.annotate_lines then
    return ctx:fail(2, "--annotate-asm cannot be combined with --annotate-lines")
  end
  local base <close>, status = ctx.cli.open(st, ctx.err)
  if not base then return status end
  local profile, vstatus = ctx.cli.view(st, base, ctx.err)
  if not profile then return vstatus end
  if profile.source == "gmon" and not profile.have_histogram then
    return ctx:fail(1, "gmon.out file is missing histogram")
  end
  local fns, msg = chosen(profile, st)
  if not fns then return ctx:fail(1, msg) end
  local dirs = {}
  for _, d in ipairs(st.dirs or {}) do
    if d ~= "" then dirs[#dirs + 1] = d end
  end
  local ok, res = pcall(function()
    if fmt == "json" then
      local doctor = require "lgprof.analysis.doctor"
      local v = asm.json_value(profile, fns)
      v.format, v.version = "lgprof-asm", 1
      out:write(doctor.json_encode(v), "\n")
      return true
    end
    return asm.write(profile, out, fns, { directories = dirs,
      top = st.given and st.given.t and st.table_length or 10 })
  end)
  if not ok then return ctx:fail(1, tostring(res)) end
  return 0
end

return cmd
