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
      local json = require "lgprof.util.json"
      local v = asm.json_value(profile, fns)
      v.format, v.version = "lgprof-asm", 1
      out:write(json.text(v), "\n")
      return true
    end
    return asm.write(profile, out, fns, { directories = dirs,
      top = st.given and st.given.t and st.table_length or 10 })
  end)
  if not ok then return ctx:fail(1, tostring(res)) end
  return 0
end

-- The code of two listings is the same: the same instructions at the same
-- addresses, byte for byte (the same build).
local function same_code(a, b)
  if a.start ~= b.start or #a.instructions ~= #b.instructions or not a.decoded then return false end
  for k, i in ipairs(a.instructions) do
    local j = b.instructions[k]
    if i.address ~= j.address or i.bytes ~= j.bytes then return false end
  end
  return true
end

local function share(w, total) return total > 0 and 100 * w / total or 0 end

--- `--annotate-asm --diff BASE`: per instruction, the base's share of the
-- function and the new one's, and the change in points, for the functions
-- of the new profile (chosen as without --diff) whose base has the same
-- code (the same build: the same bytes at the same addresses).
function cmd.diff(ctx)
  local st, out, err, cli = ctx.opts, ctx.out, ctx.err, ctx.cli
  if #st.diff ~= 1 then return ctx:fail(2, "--annotate-asm --diff takes one base profile") end
  local newp <close>, status = cli.open(st, err)
  if not newp then return status end
  local basep <close>, bstatus = cli.open(st, err, st.diff_image, { st.diff[1] })
  if not basep then return bstatus end
  local fns, msg = chosen(newp, st)
  if not fns then return ctx:fail(1, msg) end
  local olds, kept = {}, {}
  for _, fn in ipairs(fns) do
    local old = basep:find(fn.symbol)
    if old and not old.is_inline then
      olds[#olds + 1], kept[#kept + 1] = old, fn
    else
      out:write(("=== %s: not in the base profile\n\n"):format(fn.name))
    end
  end
  local ok, res = pcall(function()
    local news, ntotal = asm.listings(newp, kept)
    local bases, btotal = asm.listings(basep, olds)
    for k, l in ipairs(news) do
      local b, name = bases[k], kept[k].name
      out:write(("=== %s @ 0x%x: %.2f%% of the total, was %.2f%% (%+.2f points)\n"):format(name,
        l.start, share(l.weight, ntotal), share(b.weight, btotal),
        share(l.weight, ntotal) - share(b.weight, btotal)))
      if not same_code(l, b) then
        out:write("the base's code differs (another build): not compared per instruction\n\n")
      else
        out:write("  base %func   new %func  change    address    offset  instruction\n")
        for n, i in ipairs(l.instructions) do
          local j = b.instructions[n]
          local bs, ns = share(j.weight, b.weight), share(i.weight, l.weight)
          local text = (i.mnemonic or "") .. ((i.operands or "") ~= "" and (" " .. i.operands) or "")
          local row = ("%11s %11s %7s %10x  %8s  %s"):format(
            j.weight > 0 and ("%.2f"):format(bs) or "", i.weight > 0 and ("%.2f"):format(ns) or "",
            (i.weight > 0 or j.weight > 0) and ("%+.2f"):format(ns - bs) or "", i.address,
            ("+0x%x"):format(i.offset), text)
          out:write((row:gsub("%s+$", "")), "\n")
        end
        out:write("\n")
      end
    end
    return true
  end)
  if not ok then return ctx:fail(1, tostring(res)) end
  return 0
end

return cmd
