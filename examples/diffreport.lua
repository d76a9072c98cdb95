-- diffreport.lua: what changed between two profiles of the same program.
-- The first profile file is the base, the second the new run; they are
-- opened separately (not summed) with the executable named first, as for
-- every lgprof command.
--   lgprof --script examples/diffreport.lua myprog before.gmon after.gmon -- 10
--   lua5.4 examples/diffreport.lua myprog before.gmon after.gmon -- 10
-- Argument: how many changes to list (default 10), the largest change of
-- total (self + children) time first. Each change is in seconds, with
-- "±" the half-width of its 95% confidence interval (lgprof.diff: the
-- sampling error of both runs); then the calls of the base and new runs.
-- A bad argument: one line on stderr, status 2.
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)

local function usage(why)
  io.stderr:write("diffreport.lua: ", why, " (usage: myprog base.gmon new.gmon [-- N])\n")
  os.exit(2)
end
local top = 10
if args[1] then
  top = math.tointeger(tonumber(args[1]))
  if not top or top < 1 or #args > 1 then
    usage("N, how many changes to list, is a positive integer (the executable comes first, not after --)")
  end
end
local files = profile.files
if #files ~= 2 then usage("give exactly two profile files (base, new)") end
local base = assert(lgprof.open(profile.image, files[1]))
local new = assert(lgprof.open(profile.image, files[2]))
local d = lgprof.diff(base, new)

print(("base %.2f s, new %.2f s, change %+.2f s"):format(d.base_total, d.new_total,
  d.new_total - d.base_total))
local listed = 0
for _, r in ipairs(d) do
  if listed == top then break end
  if r.total_delta ~= 0 or r.self_delta ~= 0 or r.calls_delta ~= 0 then
    if listed == 0 then
      -- (written out: "±" is two bytes, which %Ns would count as two columns)
      print("    total       \u{b1}      self       \u{b1} base calls  new calls  function")
    end
    listed = listed + 1
    local tag = r.status == "added" and " (new)" or r.status == "removed" and " (gone)" or ""
    print(("%+9.2f %7.2f %+9.2f %7.2f %10d %10d  %s%s"):format(r.total_delta,
      r.total_high - r.total_delta, r.self_delta, r.self_high - r.self_delta, r.calls_base,
      r.calls_new, r.label, tag))
  end
end
if listed == 0 then print("no changes") end
