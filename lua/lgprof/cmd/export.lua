--- `lgprof --format=FMT [options] [image-file [profile-file...]]`: the
-- analysed profile written to stdout in another tool's format (lgprof.report).
local lgprof = require "lgprof"
local options = require "lgprof.cli.options"
local args = require "lgprof.util.args"

local cmd = {}

-- FMT: lgprof.report's writer, whether it takes options (-z), the csv table
local EXPORTS = {
  callgrind = { "callgrind", true }, json = { "json", true }, csv = { "csv", true, "flat" },
  ["csv-arcs"] = { "csv", true, "arcs" }, folded = { "folded" }, dot = { "dot" },
  text = { "text", true },
  html = { "html" }, svg = { "svg" }, pprof = { "pprof" }, speedscope = { "speedscope" },
}
-- the writers whose options take `view_description`: the words of the
-- command line's view (--focus, --hide...), shown in the picture's header
local DESCRIBED = { svg = true, html = true }

--- Writes the profile of the parsed command line (ctx.opts) in its
-- --format to ctx.out; gprof's options that shape the analysis apply, -z
-- lists unused functions too; --granularity=line adds line-level rows.
-- Returns the exit status.
function cmd.run(ctx)
  local st, out, err = ctx.opts, ctx.out, ctx.err
  local fmt, granularity = st.output_format, st.granularity
  local e = EXPORTS[fmt]
  if st.style & (options.INFO | options.SUM) ~= 0 then
    return ctx:fail(2, "--format cannot be combined with -i or -s")
  end
  if st.style & (options.EXEC | options.ANNO) ~= 0 then
    return ctx:fail(2, "--format cannot be combined with -A or -C")
  end
  -- the page's timeline needs each sample's time (a perf.data's)
  if fmt == "html" then st.sample_times = true end
  local base <close>, ostatus = ctx.cli.open(st, err)
  if not base then return ostatus end
  local profile, vstatus = ctx.cli.view(st, base, err) -- --focus, --hide...: every format
  if not profile then return vstatus end
  local o
  if e[2] then o = { zeros = st.zeros or nil, table = e[3] } end
  if fmt == "text" then o.brief = st.brief or nil end
  -- the options of the writer (--title, --inverted, --noise-floor...: the
  -- registry's `writer`; the parse took them for this format only)
  for _, e in ipairs(st.order) do
    if e.writer then
      o = o or {}
      o[e.writer] = st[e.key]
    end
  end
  if st.view_description and DESCRIBED[fmt] then
    o = o or {}
    o.view_description = st.view_description
  end
  if granularity == "line" then
    if not (e[2] and e[3] ~= "arcs" and fmt ~= "text") then
      return ctx:fail(2, "--granularity=line is for callgrind, json and csv")
    end
    o.granularity = "line"
  end
  -- --by=KEYS: the groups' table (text, json, csv); the page has its own
  local write, by = lgprof.report[e[1]], st.by and fmt ~= "html" and require("lgprof.cmd.groups").keys(st)
  if by then
    if type(by) == "string" then return ctx:fail(2, by) end
    if st.sample_times then return ctx:fail(2, "--sample-times cannot be combined with --by (the groups have no times)") end
    write = function(p, f) return require("lgprof.format.groups").write(p, f, fmt, by, o) end
  end
  -- the writers need a real file; anything else with :write gets a copy
  local fh = io.type(out) == "file" and out or io.tmpfile()
  local pok, ok, werr = pcall(write, profile, fh, o)
  if pok and ok and fh ~= out then
    fh:seek("set")
    out:write(fh:read("a"))
  end
  if fh ~= out then fh:close() end
  if not pok then -- misuse, or the dot module missing
    err:write("lgprof: --format=", fmt, ": ", args.message(ok), "\n")
    return 2
  end
  if not ok then
    err:write("lgprof: ", tostring(werr), "\n")
    return 1
  end
  return 0
end

return cmd
