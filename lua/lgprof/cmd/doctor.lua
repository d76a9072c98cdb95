--- `lgprof doctor [options] [image-file [profile-file...]]`: what is wrong
-- with a profile (lgprof.doctor), as text blocks or --format=json.
-- Exit statuses: 0 no warning, 1 bad input, 2 usage error, 3 an error or
-- a warning found.
local lgprof = require "lgprof"
local doctor = require "lgprof.analysis.doctor"
local help = require "lgprof.cli.help"

local cmd = {}

-- (the usage text is written on first use: the option lists come from the
-- registry, and most runs never print them)
help.lazy_usage(cmd, function()
  return [==[
Usage: lgprof doctor [options] [--format=text|json] [image-file [profile-file...]]
  Checks a profile and says what is wrong with it and how to fix it: one
  block per finding (its ID, severity, explanation and advice), then a
  summary line. Findings: missing-profile, wrong-image, pie-mismatch,
  stale-profile, arcs-outside-text, no-samples, few-samples, no-call-graph,
  spontaneous-time, uninstrumented-time, big-cycle, threads, static-no-debug;
  with --perf=FILE, different-runs and assumption-violated.
]==] .. help.mode("doctor", 23) .. [==[
  gprof's options that change how the files are read apply (lgprof --help).
Exit status: 0 no warning, 1 bad input, 2 usage error, 3 an error or a
warning found.
]==]
end)

-- Does path name nothing (as opposed to a file that cannot be read, which
-- the opening reports)?
local function missing(path)
  if path == "-" then return false end
  local f, msg = io.open(path, "rb")
  if f then f:close() return false end
  return tostring(msg):find("No such file or directory", 1, true) ~= nil
end

-- The finding for a histogram that lies outside the executable's text (the
-- opening's error): runtime addresses of a PIE (an old toolchain), or
-- another program.
local function outside_text(msg, exe)
  local lo, hi, tlo, thi = msg:match(
    "histogram range 0x(%x+)%-0x(%x+) lies outside the executable's text %(0x(%x+)%-0x(%x+)%)")
  if not lo then return nil end
  lo, hi, tlo, thi = tonumber(lo, 16), tonumber(hi, 16), tonumber(tlo, 16), tonumber(thi, 16)
  local data = { histogram_low = lo, histogram_high = hi, text_start = tlo, text_end = thi,
                 image = exe }
  -- a PIE's link-time text starts near 0; the run put it near 0x55... or 0x7f...
  if thi < 0x100000000 and lo >= 0x500000000000 then
    data.id, data.severity = "pie-mismatch", "error"
    data.message = ("the histogram covers 0x%x-0x%x, the run-time addresses of this "
      .. "position-independent executable (text 0x%x-0x%x): an old toolchain's gmon.out"):format(
      lo, hi, tlo, thi)
    data.advice = "link with -no-pie (gcc -pg -no-pie), or use a toolchain that records link-time addresses"
    return data
  end
  data.id, data.severity = "wrong-image", "error"
  data.message = ("the histogram covers 0x%x-0x%x, outside this executable's text (0x%x-0x%x): "
    .. "a profile of another program"):format(lo, hi, tlo, thi)
  data.advice = "give the executable that wrote this profile"
  return data
end

--- The command (ctx: lgprof.cli.main's); returns the exit status.
function cmd.run(ctx)
  local st, out, err, cli = ctx.opts, ctx.out, ctx.err, ctx.cli
  local format = st.output_format or "text"
  local status
  status = cli.refuse_format(st, err)
  if status then return status end
  status = cli.refuse_perf(st, err, st.gmons)
  if status then return status end
  local findings, present = {}, {}
  local image = st.exe -- (nil for a perf.data alone: the binaries it names)
  for _, g in ipairs(st.gmons) do
    if missing(g) then
      findings[#findings + 1] = doctor.missing(g)
    else
      present[#present + 1] = g
    end
  end
  if #present > 0 then
    local profile <close>, msg = lgprof.open(st.exe, present, cli.open_options(st))
    if not profile then
      local f = outside_text(msg, st.exe)
      if not f then
        err:write("lgprof: ", msg, "\n")
        return 1
      end
      findings[#findings + 1] = f
    else
      image = image or profile.image
      for _, f in ipairs(doctor.diagnose(profile)) do findings[#findings + 1] = f end
    end
  else
    local f, msg = io.open(st.exe, "rb") -- the image must still be there
    if not f then
      err:write("lgprof: ", st.exe, ": ", (tostring(msg):gsub("^.-: ", "")), "\n")
      return 1
    end
    f:close()
  end
  doctor.write(findings, out, { format = format, image = image, profiles = st.gmons })
  return doctor.status(findings)
end

return cmd
