--- lgprof.cmd.groups: the keys of the command line's --by options
-- (--by=comm,dso and --by=comm --by=dso alike), for lgprof.cmd.export.
local groups = {}

--- The keys of the parsed command line st's --by options, in order, as
-- one list; or a usage message (a string) when a key is given twice.
function groups.keys(st)
  local keys, seen = {}, {}
  for _, list in ipairs(st.by) do
    for _, k in ipairs(list) do
      if seen[k] then return ("--by: '%s' is given twice"):format(k) end
      seen[k] = true
      keys[#keys + 1] = k
    end
  end
  return keys
end

return groups
