-- diffreport.lua: what changed between two profiles of the same program.
-- The first profile file is the base, the second the new run; they are
-- opened separately (not summed) with the executable named after "--".
--   lgprof --script examples/diffreport.lua myprog before.gmon after.gmon -- myprog 10
--   lua5.4 examples/diffreport.lua myprog before.gmon after.gmon -- myprog 10
-- Arguments: the executable (default a.out), how many changes to list
-- (default 10). Largest change of total (self + children) time first.
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local exe, top = args[1] or "a.out", tonumber(args[2]) or 10

local files = profile.files
if #files ~= 2 then
  io.stderr:write("diffreport.lua: give exactly two profile files (base, new)\n")
  os.exit(2)
end
local base = assert(lgprof.open(exe, files[1]))
local new = assert(lgprof.open(exe, files[2]))
local d = lgprof.diff(base, new)

print(("base %.2f s, new %.2f s, change %+.2f s"):format(d.base_total, d.new_total,
  d.new_total - d.base_total))
local listed = 0
for _, r in ipairs(d) do
  if listed == top then break end
  if r.total_delta ~= 0 or r.self_delta ~= 0 or r.calls_delta ~= 0 then
    if listed == 0 then
      print(("%9s %9s %10s %10s  %s"):format("total +-", "self +-", "calls", "base calls",
        "function"))
    end
    listed = listed + 1
    local tag = r.status == "added" and " (new)" or r.status == "removed" and " (gone)" or ""
    print(("%+9.2f %+9.2f %10d %10d  %s%s"):format(r.total_delta, r.self_delta, r.calls_new,
      r.calls_base, r.label, tag))
  end
end
if listed == 0 then print("no changes") end
