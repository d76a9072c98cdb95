--- `lgprof --break-cycles[=N] [options] [image-file [profile-file...]]`:
-- the arcs whose removal breaks every cycle of N or more members
-- (profile:cycle_cuts), printed in the style of BSD gprof's -C, the -k
-- options that delete them, then the report gprof prints with those
-- options (the same arcs deleted from the profile read, or with -k options
-- of the command line's own, the profile opened again with all of them).
local options = require "lgprof.cli.options"

local cuts = {}

-- The usage errors of the option with the others (nil: none).
local function refusal(st, fmt, annotate)
  if fmt and fmt ~= "gprof" then return "--break-cycles cannot be combined with --format" end
  if annotate then return "--break-cycles cannot be combined with --annotate-lines" end
  if st.line then return "--break-cycles works on functions: it cannot be combined with -l" end
  if st.style & options.SUM ~= 0 then
    return "--break-cycles cannot be combined with -s (gmon.sum holds line arcs)"
  end
  if st.static_call_graph or st.static_arcs then
    return "--break-cycles cannot be combined with -c or --static-arcs (-k does not delete the arcs they add)"
  end
  for _, s in ipairs(st.specs) do
    if s[1] == "incl_arcs" then
      return "--break-cycles cannot be combined with -q FROM/TO (it keeps only the arcs it names: -k then deletes none)"
    end
  end
end

local function count_line(what, before, after, largest)
  local s = ("%s: %d before"):format(what, before)
  if largest and before > 0 then s = s .. (" (the largest has %d members)"):format(largest) end
  return s .. (", %d after.\n"):format(after)
end

--- Writes the part before the report: the arcs c[i] (plain tables of
-- profile:cycle_cuts{_plain = true}, named as in the recomputed profile
-- `after`, by after:_cut_text), the cycles before (c, profile:cycle_cuts's
-- fields) and in `after` (its own cycle_cuts: what the report below shows),
-- the -k options.
function cuts.write_header(c, after, out)
  local n = c.min_members
  if c.cycles_before == 0 then
    out:write("The call graph has no cycles: there is nothing to break.\n\n")
    return
  end
  -- gprof's cycles are the components of 2 or more members: with N = 2
  -- the analysis that the report needs anyway has counted them
  local now = n == 2 and { large_before = after.cycle_count, cycles_before = after.cycle_count }
    or after:cycle_cuts { min_members = n, count_only = true }
  out:write("The following arcs were deleted from the propagation calculation\n",
    ("to reduce the maximum cycle size to %d:\n"):format(n - 1))
  if #c == 0 then out:write("\tNone\n") end
  local lines, k_line, loose = after:_cut_text(c)
  out:write(lines)
  out:write("\n", count_line(("Cycles of %d or more members"):format(n), c.large_before,
    now.large_before, c.largest_before))
  if n > 2 then
    out:write(count_line("Cycles of any size", c.cycles_before, now.cycles_before))
  end
  if #c > 0 then
    out:write("\nThe options that delete these arcs (gprof's -k; the report below is\n",
      "gprof's with them added to this command line):\n", k_line, "\n")
    if loose ~= "" then
      out:write("Note: gprof's symspecs cannot name some of these functions alone (a name\n",
        "shared by other symbols, or holding a dot, without a source file to tell them\n",
        "apart), so these options may delete other arcs too, or none: ", loose, "\n")
    end
    if c.crowded > 0 then
      out:write(("Note: gprof keeps one -k per calling function (its -k table holds one entry\n"
        .. "per caller's address): %d of the callers above have several arcs, and of\n"
        .. "each one's options only the last deletes its arcs.\n"):format(c.crowded))
    end
  end
  out:write("\n")
end

--- The command (ctx: lgprof.cli.main's; ctx.opts.break_cycles is N);
-- report(st, profile, out, err) prints gprof's report.
function cuts.run(ctx, report)
  local st, out, err, cli = ctx.opts, ctx.out, ctx.err, ctx.cli
  local n = st.break_cycles
  local msg = refusal(st, st.output_format, st.annotate_lines)
  if msg then return ctx:fail(2, msg) end
  local profile <close>, status = cli.open(st, err)
  if not profile then return status end
  -- (plain data: an Arc's fields would analyse the profile, and the arc
  -- numbers change below)
  local c = profile:cycle_cuts { min_members = n, _plain = true }
  -- gprof keeps one -k per caller, the last: a cut's spec may override one
  -- of the command line's, so then the files are read again with the cuts'
  -- -k options after the command line's own, as if typed at its end; else
  -- the same arcs are deleted from the profile read (not analysed yet)
  local own_k = false
  for _, s in ipairs(st.specs) do own_k = own_k or s[1] == "excl_arcs" end
  local function open_again()
    if not own_k then return profile:_exclude_arcs(c.specs, c._pairs) end
    for _, spec in ipairs(c.specs) do st.specs[#st.specs + 1] = { "excl_arcs", spec } end
    return cli.open(st, err)
  end
  local again <close>, status2 = open_again()
  if own_k and not again then return status2 end
  local after = again or profile
  cuts.write_header(c, after, out)
  return report(st, after, out, err)
end

return cuts
