-- htmlview.lua: the interactive HTML report of a view: only the call paths
-- through the functions a pattern matches (their callers and callees), and
-- of those only the functions with at least 1% of the time. Open the page
-- in a browser (it needs no network and no server).
--   lgprof --script examples/htmlview.lua myprog gmon.out -- report.html '^parse'
--   lua5.4 examples/htmlview.lua myprog gmon.out -- report.html '^parse'
-- Arguments: the page to write, then a POSIX ERE (default: every function).
local lgprof = require "lgprof"
local html = require "lgprof.format.html"
local profile, args = lgprof.script(...)
local out, pattern = args[1], args[2]
if not out then
  io.stderr:write("htmlview.lua: give the HTML file to write (and a pattern) after --\n")
  os.exit(2)
end

local filter = { node_fraction = 0.01 }
if pattern then filter.focus = pattern end
local view = profile:filter(filter)

-- the page says which filter made it
local ok, err = lgprof.report.html(view, out, { view_description = html.describe_filter(filter) })
if not ok then
  io.stderr:write("htmlview.lua: ", err, "\n")
  os.exit(1)
end
print(("%s: %s, %.2f of %.2f s"):format(out, html.describe_filter(filter), view.total_time,
  view.base_time))
