-- byfile.lua: self time per source file (from DWARF: compile with -g;
-- functions without source information are counted under "?").
--   lgprof --script examples/byfile.lua myprog gmon.out
--   lua5.4 examples/byfile.lua myprog gmon.out
-- Self time is the flat profile's (fn.flat_self) and the shares are of the
-- profile's total time, like the flat profile's "% time" column (as with
-- gprof, histogram bins shared by two functions can make them add up to
-- slightly more than 100%).
local lgprof = require "lgprof"
local profile = lgprof.script(...)

local by, files = {}, {}
for fn in profile:symbols() do
  if fn.flat_self > 0 then
    local file = fn.file or "?"
    local e = by[file]
    if not e then
      e = { file = file, self = 0, functions = 0 }
      by[file] = e
      files[#files + 1] = e
    end
    e.self = e.self + fn.flat_self
    e.functions = e.functions + 1
  end
end
table.sort(files, function(a, b)
  if a.self ~= b.self then return a.self > b.self end
  return a.file < b.file
end)

local total = profile.total_time
local function share(t) return total > 0 and 100 * t / total or 0 end
print(("%7s %9s %9s  %s"):format("self%", "self s", "functions", "file"))
for _, e in ipairs(files) do
  print(("%7.2f %9.2f %9d  %s"):format(share(e.self), e.self, e.functions, e.file))
end
print(("%7s %9.2f %9s  %s"):format("", total, "", "(profile total)"))
