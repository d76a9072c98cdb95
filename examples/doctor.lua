-- doctor.lua: check a profile before believing it, then list its hottest
-- functions with their sampling error. Runs under lgprof or on its own:
--   lgprof --script examples/doctor.lua myprog gmon.out [-- strict]
--   lua5.4 examples/doctor.lua myprog gmon.out [-- strict]
-- Prints each finding of lgprof.doctor (severity, ID, explanation, advice).
-- An error (another program's profile, no samples, ...) ends the script
-- there with status 3; otherwise the 5 hottest functions follow, as
-- "self seconds ± one standard error". With "strict", a warning also ends
-- with status 3 (a CI pre-flight before a gate).
local lgprof = require "lgprof"
local profile, args = lgprof.script(...)
local strict = args[1] == "strict"

local worst
for _, f in ipairs(lgprof.doctor(profile)) do -- errors first, then warnings, then info
  print(("%s %s: %s"):format(f.severity, f.id, f.message))
  print("  advice: " .. f.advice)
  worst = worst or (f.severity ~= "info" and f.severity) or nil
end
if worst == "error" then os.exit(3, true) end

local listed = 0
for fn in profile:flat() do -- by self time, largest first
  if listed == 5 or fn.samples == 0 then break end
  listed = listed + 1
  print(("%9.2f ± %4.2f s  %s"):format(fn.flat_self, fn.self_error, fn.name))
end
if strict and worst then os.exit(3, true) end
