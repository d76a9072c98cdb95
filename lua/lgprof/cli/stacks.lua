--- lgprof.cli.stacks: what the command refuses for a perf.data file. Its
-- samples are whole stacks with no call counts: gprof's options that are
-- built on call counts or on the executable's code have nothing to work on.
local lgprof = require "lgprof"

local stacks = {}

-- the parsed command line's options that need what perf.data lacks
local function refused(st, options)
  if st.style & options.SUM ~= 0 then return "-s (a gmon.sum holds call counts)" end
  if st.static_call_graph then return "-c (a static call graph adds arcs to call counts)" end
  if st.style & options.FUNC_ORDER ~= 0 then return "-r (the function order is made from call counts)" end
  if st.style & options.FILE_ORDER ~= 0 then return "-R (the file order is made from call counts)" end
  if st.line and st.output_format and st.output_format ~= "gprof" then
    return "-l with --format (the exports' line rows are --granularity=line)"
  end
  if st.all_lines and st.style & options.ANNO ~= 0 then
    return "-x (it carries call counts to the lines after a function's first)"
  end
  if st.style & options.EXEC ~= 0 then return "-C (basic-block counts are gmon.out's)" end
  if st.static_arcs then return "--static-arcs (its arcs are calls of count 0)" end
  if st.break_cycles then return "--break-cycles (it weighs arcs by their call counts)" end
  for _, t in ipairs(st.limits or {}) do
    if t.kind == "max_calls" then return "--max-calls (it tests call counts)" end
  end
end

--- The perf.data of a parsed command line: the last profile file that is
-- one (known by its magic), else --perf's file; nil when there is none.
function stacks.perf_file(st, gmons)
  local perf = st.perf
  for _, path in ipairs(gmons or {}) do
    if lgprof._core.is_perfdata(path) then perf = path end
  end
  return perf
end

--- A usage error (status 2, written) when the command line has a perf.data
-- (perf: stacks.perf_file's) and an option needs call counts; nil otherwise.
function stacks.refuse(st, err, perf, options)
  local why = perf and refused(st, options)
  if why then
    return options.usage_error(err, ("%s records sampled stacks, no calls: %s cannot be used")
      :format(perf, why))
  end
end

return stacks
