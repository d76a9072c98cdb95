--- lgprof.doctor: what is wrong with a profile, and how to fix it.
-- doctor.diagnose(profile [, thresholds]) -> a list of findings, each
-- { id, severity ("error", "warning" or "info"), message (one line),
-- advice (one line), and data fields of its own }, errors first.
-- doctor.missing(path) is the finding for a profile file that does not
-- exist; doctor.status, doctor.write_text and doctor.json present them.
local args = require "lgprof.util.args"

local doctor = {}

--- The thresholds (each can be changed per call: diagnose's second argument).
doctor.THRESHOLDS = {
  few_samples = 100,      -- the hottest function's samples below this: few-samples
  spontaneous = 0.10,     -- share of the time under roots other than main
  uninstrumented = 0.05,  -- share of the samples in functions without arcs
  big_cycle = 0.25,       -- share of the time held by one cycle
  wrong_image = 0.05,     -- share of the arc addresses (or samples) that do not fit
  broken_stacks = 0.25,   -- perf.data: share of the frame-pointer chains of one frame
  truncated_stacks = 0.05, -- perf.data: share of the chains cut short (above: a warning)
  lost_samples = 0.01,    -- perf.data: share of the samples lost
  anonymous_samples = 0.05, -- perf.data: share in stripped binaries' nameless functions (above: a warning)
  assumption_sigmas = 3,  -- --perf: standard errors between gprof's split and the measured one
}

local RANK = { error = 1, warning = 2, info = 3 }
doctor.SEVERITIES = { "error", "warning", "info" }

local function pct(x) return ("%.0f%%"):format(100 * x) end
local function plural(n, word) return ("%d %s%s"):format(n, word, n == 1 and "" or "s") end

-- The first few names of a list of { name = } entries, for a message.
local function names(list, max)
  local t = {}
  for i = 1, math.min(#list, max or 3) do t[i] = list[i].name end
  if #list > (max or 3) then t[#t + 1] = "..." end
  return table.concat(t, ", ")
end

local function finding(id, severity, message, advice, data)
  local f = data or {}
  f.id, f.severity, f.message, f.advice = id, severity, message, advice
  return f
end

-- Does the evidence say the profile was written by another program (or an
-- older build of this one)? The reasons, as message parts. Calls into -pg
-- shared libraries (ev.arcs_shared) are no evidence either way: the image is
-- judged on the other arcs.
local function image_mismatch(ev, limit)
  local why = {}
  local function share(bad, checked)
    return checked > 0 and bad >= 2 and bad / checked > limit
  end
  local inside = ev.arc_records - ev.arcs_shared
  if inside > 0 and ev.code_known and not ev.mcount_known then
    why[#why + 1] = "the executable never calls mcount (not built with -pg) but the profile has arcs"
  elseif share(ev.callee_bad, ev.callee_checked) then
    why[#why + 1] = ("%d of %d callee addresses do not follow a call to mcount"):format(
      ev.callee_bad, ev.callee_checked)
  end
  if share(ev.caller_bad, ev.caller_checked) then
    why[#why + 1] = ("%d of %d caller addresses follow no call instruction"):format(
      ev.caller_bad, ev.caller_checked)
  end
  if share(ev.arcs_outside, inside) then
    why[#why + 1] = ("%d of %d arcs lie outside every function"):format(ev.arcs_outside, inside)
  end
  if ev.samples >= 10 and share(ev.samples_outside, ev.samples) then
    why[#why + 1] = ("%s of the samples lie outside every function"):format(
      pct(ev.samples_outside / ev.samples))
  end
  return why
end

-- arcs-outside-text: the arcs whose ends lie in no function of the
-- executable. Calls into -pg shared libraries alone are a note (gmon.out
-- profiles the executable, never its libraries); others, a warning.
local function outside_text(ev)
  local data = { arc_records = ev.arc_records, arcs_outside = ev.arcs_outside,
                 arcs_shared = ev.arcs_shared }
  local shared = ev.arcs_shared > 0 and ("%d of %d call-graph arcs are calls into shared "
    .. "libraries compiled with -pg: gmon.out profiles the executable alone, so the report "
    .. "has neither these calls nor the libraries' time"):format(ev.arcs_shared, ev.arc_records)
  if ev.arcs_outside == 0 then
    return finding("arcs-outside-text", "info", shared,
      "to see a library's functions in the report, link its objects (compiled with -pg) into "
        .. "the executable statically", data)
  end
  return finding("arcs-outside-text", "warning",
    ("%d of %d call-graph arcs lie outside every function of the executable: the report "
      .. "drops them without a word"):format(ev.arcs_outside, ev.arc_records)
      .. (shared and ("; %d more are calls into -pg shared libraries"):format(ev.arcs_shared)
        or ""),
    "give the executable that wrote this profile (a shared library's arcs cannot be read "
      .. "against the main program)", data)
end

-- The checks, each adding its findings to list.
local function check_image(list, profile, ev, th)
  local why = image_mismatch(ev, th.wrong_image)
  if #why > 0 then
    list[#list + 1] = finding("wrong-image", "error",
      "the profile does not fit this executable: " .. table.concat(why, "; ")
        .. (ev.profile_older and " (and the executable is newer than the profile)" or ""),
      "give the executable that wrote this profile; if it was rebuilt since, run it again",
      { callee_checked = ev.callee_checked, callee_bad = ev.callee_bad,
        caller_checked = ev.caller_checked, caller_bad = ev.caller_bad,
        arc_records = ev.arc_records, arcs_outside = ev.arcs_outside,
        arcs_shared = ev.arcs_shared, samples = ev.samples, samples_outside = ev.samples_outside,
        image = profile.image })
  end
  if ev.profile_older then
    list[#list + 1] = finding("stale-profile", "warning",
      ("the executable was modified %.0f s after the profile was written: it was rebuilt or "
        .. "replaced since the run"):format(ev.image_mtime - ev.profile_mtime),
      "run the program again for a new profile (a rebuild moves the addresses a profile records)",
      { image_mtime = ev.image_mtime, profile_mtime = ev.profile_mtime })
  end
  if ev.arcs_outside > 0 or ev.arcs_shared > 0 then list[#list + 1] = outside_text(ev) end
end

local function check_samples(list, profile, th)
  local samples = profile.samples
  if not profile.have_histogram or samples == 0 then
    list[#list + 1] = finding("no-samples", "error",
      profile.have_histogram and "the histogram holds no sample: no self time is known"
        or "the profile has no histogram: no self time is known",
      "run longer (one sample per 1/hz s of CPU time: 10 ms at 100 Hz); check that the "
        .. "program neither blocks nor ignores SIGPROF nor uses ITIMER_PROF itself",
      { samples = samples, have_histogram = profile.have_histogram })
    return false
  end
  local hot
  for fn in profile:flat() do
    if not hot or fn.samples > hot.samples then hot = fn end
  end
  -- off-CPU time is measured, interval by interval: no sampling error
  local exact = profile.source == "stacks" and profile:_stack_evidence().event == "off-cpu"
  if hot and hot.samples < th.few_samples and not exact then
    list[#list + 1] = finding("few-samples", "warning",
      ("the hottest function, %s, has %.0f sample%s: its self time is known to about ±%s"):format(
        hot.name, hot.samples, ("%.0f"):format(hot.samples) == "1" and "" or "s",
        pct(1 / math.sqrt(math.max(hot.samples, 1)))),
      -- (perf.data files are not summed: a higher rate instead)
      profile.source == "stacks"
        and ("run longer or on a bigger input until it has %d samples or more (±10%%), or record "
          .. "at a higher frequency (perf record -F)"):format(th.few_samples)
        or ("run longer or on a bigger input until it has %d samples or more (±10%%), or sum "
          .. "several runs' profiles"):format(th.few_samples),
      { ["function"] = hot.name, samples = hot.samples,
        relative_error = 1 / math.sqrt(math.max(hot.samples, 1)), threshold = th.few_samples,
        total_samples = samples })
  end
  return true
end

local function check_graph(list, profile, ev, th)
  if profile.arc_records == 0 then
    list[#list + 1] = finding("no-call-graph", "warning",
      "the profile has samples but no call-graph arc: the code was linked with -pg but not "
        .. "compiled with it",
      "pass -pg when compiling every source file, not only when linking",
      { arc_records = 0 })
    return
  end
  local total = profile.print_time
  if total > 0 then
    local roots, held = {}, 0
    for r in profile:roots() do
      local t = r.self + r.children
      -- a root without callees is uninstrumented-time's, below; an
      -- LD_PROFILE file's callers outside the library are a root by design
      if r.name ~= "main" and r.name ~= "<external>" and t > 0 and r:callees()() then
        roots[#roots + 1] = { name = r.name, share = t / total }
        held = held + t
      end
    end
    table.sort(roots, function(a, b) return a.share > b.share end)
    if held / total > th.spontaneous then
      list[#list + 1] = finding("spontaneous-time", "warning",
        ("%s of the time is under <spontaneous> roots other than main (%s): their callers "
          .. "were not compiled with -pg"):format(pct(held / total), names(roots)),
        "compile the callers (libraries, other objects) with -pg too; until then this time "
          .. "is charged to no caller",
        { share = held / total, roots = roots })
    end
  end
  local samples = profile.samples
  local bare, in_bare = {}, 0
  local function add(fn)
    bare[#bare + 1] = { name = fn.name, samples = fn.samples }
    in_bare = in_bare + fn.samples
  end
  if ev.bare then -- the code says which functions call no mcount
    for _, fn in ipairs(ev.bare) do add(fn) end
  else -- without it, the functions that no arc touches
    for fn in profile:flat() do
      if fn.samples > 0 and fn.calls == 0 and fn.self_calls == 0 and not fn:callees()()
         and not fn:callers()() then
        add(fn)
      end
    end
  end
  table.sort(bare, function(a, b) return a.samples > b.samples end)
  if samples > 0 and in_bare / samples > th.uninstrumented then
    list[#list + 1] = finding("uninstrumented-time", "warning",
      ("%s of the samples are in functions compiled without -pg (%s): their calls are not "
        .. "counted"):format(pct(in_bare / samples), names(bare)),
      "compile them with -pg so that their calls are counted and their time reaches their callers",
      { share = in_bare / samples, functions = bare })
  end
  for cyc in profile:cycles() do
    local share = total > 0 and (cyc.self + cyc.children) / total or 0
    if share > th.big_cycle then
      local members = 0
      for _ in cyc:members() do members = members + 1 end
      list[#list + 1] = finding("big-cycle", "warning",
        ("%s (%s) holds %s of the time: gprof propagates no time inside a cycle, so its "
          .. "members' totals mean little"):format(cyc.name, plural(members, "member"), pct(share)),
        "break it: lgprof --break-cycles proposes arcs to delete with -k FROM/TO; meanwhile "
          .. "trust the members' self times",
        { cycle = cyc.number, members = members, share = share })
    end
  end
end

-- static-no-debug: the static functions of the program's own compilation
-- units (the profiled ones: their code calls mcount, when the code could be
-- read) that the report shows (with samples or calls) and that have no
-- source file. Not the C run-time's start-up code (frame_dummy and the
-- like): it calls no mcount, and has samples only when a histogram bin
-- straddles it and a sampled neighbour.
-- Judged with gcc's clones kept: gprof's rule gives a clone's time and
-- calls to the function before it, which may be the start-up code
-- (frame_dummy before the program's first function); the clone's object
-- may well have DWARF, and the start-up code calls mcount only through
-- the clone's code that its folded range then takes in.
local function check_statics(list, profile, ev)
  local kept = require("lgprof.analysis.fnkey").kept(profile, true)
  if kept ~= profile then profile, ev = kept, kept:_evidence() end
  local bare = {}
  for _, fn in ipairs(ev.bare or {}) do bare[fn.address] = true end
  local nodebug, seen, clash = {}, {}, nil
  for fn in profile:flat({ zeros = false }) do
    if fn.is_static and fn.file == nil and not bare[fn.address] then
      nodebug[#nodebug + 1] = { name = fn.name }
      if seen[fn.name] then clash = clash or fn.name end
      seen[fn.name] = true
    end
  end
  if #nodebug == 0 then return end
  -- built with -g: only the objects holding these were not
  local with_g = false
  for fn in profile:symbols() do
    if fn.file ~= nil then with_g = true break end
  end
  local why = with_g and "the objects holding them were compiled without -g"
    or "the executable has no DWARF for them"
  list[#list + 1] = finding("static-no-debug", clash and "warning" or "info",
    clash and ("static functions named %s in different files cannot be told apart: %s"):format(
        clash, why)
      or ("%s in the profile (%s) %s no source file: %s"):format(
        plural(#nodebug, "static function"), names(nodebug), #nodebug == 1 and "has" or "have",
        why),
    with_g and "compile the files that define them with -g too: each function then has its file "
        .. "and line"
      or "build with -g as well as -pg: each function then has its file and line",
    { functions = nodebug, ambiguous = clash, debug_info = with_g })
end

-- gcc's clones that gprof's name filter folded into the function before
-- them (the profile opened with gprof's rule): read with the clones kept
-- (lgprof.fnkey.kept), each clone sampled or called, the function that
-- took it, and its share of the samples and its calls.
local function check_clones(list, profile)
  if profile.clones ~= "gprof" or profile.folded_clones == 0 then return end
  local fnkey = require "lgprof.analysis.fnkey"
  local kept = fnkey.kept(profile, true)
  if kept == profile then return end -- a view, or files that changed since
  local folded, samples = {}, kept.samples
  for fn in kept:symbols() do
    if fnkey.origin(fn.name) and (fn.samples > 0 or fn.calls + fn.self_calls > 0) then
      local into = profile:lookup(fn.address)
      if not (into and into.address == fn.address) then
        folded[#folded + 1] = { name = fn.name, into = into and into.name or "no function",
          samples = fn.samples, share = samples > 0 and fn.samples / samples or 0,
          calls = fn.calls + fn.self_calls }
      end
    end
  end
  if #folded == 0 then return end
  table.sort(folded, function(a, b)
    if a.samples ~= b.samples then return a.samples > b.samples end
    if a.calls ~= b.calls then return a.calls > b.calls end
    return a.name < b.name
  end)
  local parts = {}
  for i = 1, math.min(#folded, 3) do
    local c = folded[i]
    parts[i] = ("%s into %s (%s of the samples, %d calls)"):format(c.name, c.into,
      ("%.1f%%"):format(100 * c.share), c.calls)
  end
  if #folded > 3 then parts[#parts + 1] = "..." end
  list[#list + 1] = finding("merged-clones", "warning",
    ("gprof's rule folds %d of gcc's clones that ran into the function before them, which "
      .. "takes their time and calls: %s"):format(#folded, table.concat(parts, "; ")),
    "read those functions in lgprof's own outputs (--format=text, json, svg..., --diff, "
      .. "check keep clones: --clones=keep); for gprof's report, build with -fno-ipa-cp "
      .. "-fno-ipa-sra -fno-partial-inlining -fno-reorder-blocks-and-partition",
    { clones = folded })
end

local KEYS = {}
for k in pairs(doctor.THRESHOLDS) do KEYS[k] = true end

-- The findings errors first, then warnings, then notes; found order within.
local function sorted(list)
  local order = {}
  for i, f in ipairs(list) do order[f] = i end
  table.sort(list, function(a, b)
    if RANK[a.severity] ~= RANK[b.severity] then return RANK[a.severity] < RANK[b.severity] end
    return order[a] < order[b]
  end)
  return list
end

-- perf's largest --call-graph dwarf stack copy (a record is at most 64 KiB)
local MAX_STACK_COPY = 65528

-- The binaries unwinding stopped in for a reason ("no_cfi", "no_binary"),
-- most samples first, as { name, path, status, samples }.
local function stopped_in(ev, reason)
  local t = {}
  for _, d in ipairs(ev.unwind_stops) do
    if d[reason] > 0 then
      t[#t + 1] = { name = d.path, path = d.path, status = d.status, samples = d[reason] }
    end
  end
  table.sort(t, function(a, b)
    if a.samples ~= b.samples then return a.samples > b.samples end
    return a.path < b.path
  end)
  return t
end

-- The chains that stop before their root, by reason, with what to do for
-- each reason found.
local function truncated_stacks(list, ev, th)
  local n, why = ev.samples, ev.truncated_why
  local share = ev.truncated / n
  local parts, advice = {}, {}
  local function pct1(x) return ("%.1f%%"):format(100 * x) end
  local function part(count, text)
    parts[#parts + 1] = ("%s %s"):format(pct1(count / n), text)
  end
  if why.stack_copy > 0 then
    local size = ev.stack_copy_size
    part(why.stack_copy, ("because unwinding needed more of the stack than the %d bytes copied "
      .. "per sample"):format(size))
    advice[#advice + 1] = size < MAX_STACK_COPY
      and ("record with --call-graph dwarf,%d (lgprof record --stack-size=%d; this recording copied %d bytes)")
        :format(MAX_STACK_COPY, MAX_STACK_COPY, size)
      or ("the stack copies are perf's largest (%d bytes): record with frame pointers "
        .. "(-fno-omit-frame-pointer, perf record -g) for deeper stacks"):format(size)
  end
  local no_cfi = stopped_in(ev, "no_cfi")
  if why.no_cfi > 0 then
    part(why.no_cfi, ("at code without unwind tables (%s)"):format(names(no_cfi)))
    advice[#advice + 1] = ("the binar%s %s no unwind tables there: build with "
      .. "-fasynchronous-unwind-tables"):format(#no_cfi == 1 and "y" or "ies", #no_cfi == 1 and "has" or "have")
  end
  local no_binary = stopped_in(ev, "no_binary")
  if why.no_binary > 0 then
    part(why.no_binary, ("at code in no binary lgprof could read (%s)"):format(names(no_binary)))
    local missing, other = {}, false
    for _, d in ipairs(no_binary) do
      if d.status == "missing" or d.status == "mismatch" then missing[#missing + 1] = d
      else other = true end
    end
    if #missing > 0 then
      advice[#advice + 1] = ("binar%s %s missing: give %s with --symfs or --buildid-dir, or "
        .. "install %s debug files"):format(#missing == 1 and "y" or "ies", names(missing),
        #missing == 1 and "it" or "them", #missing == 1 and "its" or "their")
    end
    if other then
      advice[#advice + 1] = "code outside any binary (JIT code, or addresses in no recorded "
        .. "mapping) cannot be unwound: nothing to do but read those chains as cut"
    end
  end
  if why.depth > 0 then
    part(why.depth, "at perf's depth limit (127 frames)")
    advice[#advice + 1] = "deeper stacks are cut at 127 frames (perf's kernel.perf_event_max_stack "
      .. "default): read the roots of those chains as unknown"
  end
  if why.other > 0 then
    local errs = {}
    for i, e in ipairs(ev.unwind_errors) do errs[i] = { name = e.what } end
    part(why.other, ("where unwinding failed (%s)"):format(names(errs)))
    advice[#advice + 1] = "check the binaries are the ones that ran"
  end
  list[#list + 1] = finding("truncated-stacks", share > th.truncated_stacks and "warning" or "info",
    ("%s of the call chains (%d of %d samples) stop before their root, so their callers' totals "
      .. "are too low: %s"):format(pct1(share), ev.truncated, n, table.concat(parts, "; ")),
    table.concat(advice, "; "),
    { truncated = ev.truncated, samples = n, share = share, stack_copy_size = ev.stack_copy_size,
      reasons = { stack_copy = why.stack_copy, no_cfi = why.no_cfi, no_binary = why.no_binary,
                  depth = why.depth, other = why.other },
      no_cfi = no_cfi, no_binary = no_binary, errors = ev.unwind_errors })
end

local slurp = args.read_file

-- A profile combined with gmon.out (--perf): are both files of one run of
-- one executable? Each reason found, as a message part.
local function runs_differ(profile, c, th)
  local why = {}
  -- the recording's binary of the executable's name without symbols here
  -- (unresolved-dso says so): nothing can be compared
  local base = c.image:match("[^/]*$")
  for d in profile:dsos() do
    if (d.path == c.exe or d.path:match("[^/]*$") == base) and d.status ~= "ok" then
      return why, 0, 0
    end
  end
  if not c.exe then
    why[#why + 1] = "no binary in the perf.data has a function at an address of the executable's"
      .. " symbols"
  else
    local given, read = slurp(c.image), slurp(c.exe_found)
    if given and read and given ~= read then
      why[#why + 1] = ("the binary perf recorded (%s) is not the executable given (%s): their"
        .. " bytes differ"):format(c.exe_found, c.image)
    end
  end
  local exe_samples = 0
  for d in profile:dsos() do
    if d.path == c.exe then exe_samples = exe_samples + d.samples end
  end
  if c.unmatched_samples >= 2 and exe_samples > 0 and c.unmatched_samples / exe_samples > th.wrong_image then
    why[#why + 1] = ("%d of the executable's %d samples are in functions at no symbol address of"
      .. " the executable given"):format(c.unmatched_samples, exe_samples)
  end
  -- gmon.out's histogram counts the same CPU time: a share of it in
  -- functions that no stack shows cannot be of this recording
  local unseen = c.gmon_seconds > 0 and c.gmon_unseen_seconds / c.gmon_seconds or 0
  if unseen > th.wrong_image and c.gmon_unseen_seconds > 0 and profile.samples >= 10 then
    why[#why + 1] = ("gmon.out's histogram has %.2f s (%s of its time) in functions that no stack"
      .. " of the perf.data shows (%s most)"):format(c.gmon_unseen_seconds, pct(unseen),
      tostring(c.gmon_unseen_name))
  end
  return why, exe_samples, unseen
end

-- --perf: where gprof's split of a shared callee's time by calls is wrong.
-- Under gprof's assumption each sample of the time the callers' arcs carry
-- (N samples) comes through caller P with probability p = calls(P->C) /
-- calls(C): P's measured share varies by the binomial error sqrt(N p (1-p))
-- samples. Callees whose measured split is further than th.assumption_sigmas
-- errors from gprof's for a caller, heaviest first.
local function assumption_violations(profile, th)
  local out = {}
  if profile.samples == 0 or profile.base_time <= 0 then return out end
  local period = profile.base_time / profile.samples
  for fn in profile:functions() do
    local arcs, calls, time = {}, 0, 0
    if fn.kind == "function" and not fn.cycle then
      for a in fn:callers() do
        if a.caller ~= fn and not a.in_cycle and a.count and a.count > 0 then
          arcs[#arcs + 1] = a
          calls = calls + a.count
          time = time + a.self + a.children
        end
      end
    end
    if #arcs >= 2 and time > 0 then
      local n, callers, worst = time / period, {}, 0
      for _, a in ipairs(arcs) do
        local p = a.count / calls
        local estimate, measured = p * time, a.self + a.children
        local err = math.sqrt(n * p * (1 - p)) * period
        local sigmas = err > 0 and math.abs(measured - estimate) / err or math.huge
        if math.abs(measured - estimate) < period / 2 then sigmas = 0 end
        callers[#callers + 1] = { name = a.caller.name, calls = a.count, estimate = estimate,
                                  measured = measured, error = err, sigmas = sigmas }
        if sigmas > worst then worst = sigmas end
      end
      if worst > th.assumption_sigmas then
        out[#out + 1] = { name = fn.name, calls = calls, time = time, callers = callers }
      end
    end
  end
  table.sort(out, function(a, b)
    if a.time ~= b.time then return a.time > b.time end
    return a.name < b.name
  end)
  return out
end

local function check_combined(list, profile, th)
  local c = profile:_stack_evidence().combined
  if not c or profile.samples == 0 then return end -- no samples: no-samples says it
  local why, exe_samples, unseen = runs_differ(profile, c, th)
  if #why > 0 then
    list[#list + 1] = finding("different-runs", "error",
      "gmon.out and the perf.data are not of one run of this executable: " .. table.concat(why, "; "),
      "record both at once: lgprof record --gmon -- ./prog (or perf record -g ./prog with a -pg"
        .. " build), and give that executable",
      { image = c.image, exe = c.exe, exe_found = c.exe_found, matched = c.matched,
        unmatched = c.unmatched, unmatched_samples = c.unmatched_samples, exe_samples = exe_samples,
        gmon_only_functions = c.added, gmon_seconds = c.gmon_seconds,
        gmon_unseen_seconds = c.gmon_unseen_seconds, gmon_unseen_share = unseen })
    return
  end
  for i, v in ipairs(assumption_violations(profile, th)) do
    if i > 5 then break end
    local parts = {}
    for _, p in ipairs(v.callers) do
      parts[#parts + 1] = ("%s %d calls, gprof %.4f s, measured %.4f s ± %.4f"):format(p.name,
        p.calls, p.estimate, p.measured, p.error)
    end
    list[#list + 1] = finding("assumption-violated", "info",
      ("%s: its calls cost differently per caller; gprof's split by calls of its %.4f s is off by"
        .. " more than %g standard errors: %s"):format(v.name, v.time, th.assumption_sigmas,
        table.concat(parts, "; ")),
      "gprof's children times for these callers are wrong; this profile's (measured on the"
        .. " stacks) are right",
      { callee = v.name, calls = v.calls, time = v.time, callers = v.callers })
  end
end

-- The recording's time (issue 32): an on-CPU profile of a program that
-- mostly waited, and off-CPU time that lost switches leave unaccounted.
local function check_time(list, profile, ev)
  local t = ev.time or {}
  local span = t.first and t.last - t.first or 0
  if not t.synthesized and ev.is_time and span >= 0.1 and profile.total_time < 0.5 * span then
    list[#list + 1] = finding("off-cpu-dominant", "info",
      ("the threads were on the CPU for %.3f s of the recording's %.3f s: the program spent most of "
        .. "its time off the CPU (sleeping, waiting for locks or I/O), which an on-CPU profile does "
        .. "not show"):format(profile.total_time, span),
      (t.switch_tracepoint or t.switch_records) and "read the time off the CPU too: --event=wall "
        .. "(or --event=off-cpu)" or "record the switches too: lgprof record --wall, then --event=wall",
      { oncpu_seconds = profile.total_time, span_seconds = span })
  end
  if t.synthesized and ((ev.lost or 0) > 0 or (t.restarted or 0) > 0) then
    local off = 0
    for _, v in pairs(t.offcpu or {}) do off = off + v end
    local unknown = t.restarted_seconds or 0
    local share = off + unknown > 0 and unknown / (off + unknown) or 0
    list[#list + 1] = finding("lost-switches", "warning",
      ("%d switch-ins were lost%s: %.3f s (%s) of the time off the CPU cannot be accounted for, "
        .. "and intervals around the losses may be too long or missing"):format(t.restarted or 0,
        (ev.lost or 0) > 0 and (" and perf lost %d records"):format(ev.lost) or "", unknown, pct(share)),
      "record with a bigger buffer (perf record -m 8M) or fewer events",
      { restarted = t.restarted, lost = ev.lost, unknown_seconds = unknown, share = share })
  end
end

-- stripped-dso: binaries without .symtab nor a debug file whose samples
-- fell in functions known only by their unwind entries (named
-- BINARY+0xSTART) or in no function at all ([unknown]).
local function stripped_binaries(list, profile, n, th)
  local anon, bad = {}, {}
  for fn in profile:functions() do
    if fn.kind == "function" and fn.dso and (fn.is_anonymous or fn.name:find("^%[unknown%] ")) then
      anon[fn.dso] = (anon[fn.dso] or 0) + (fn.samples or 0)
    end
  end
  local total = 0
  for d in profile:dsos() do
    if d.status == "stripped" and (anon[d.path] or 0) > 0 then
      bad[#bad + 1] = { name = ("%s (%s)"):format(d.path:match("[^/]*$"), plural(anon[d.path], "sample")),
                        path = d.path, samples = anon[d.path] }
      total = total + anon[d.path]
    end
  end
  if #bad == 0 or n == 0 then return end
  table.sort(bad, function(a, b) return a.samples > b.samples end)
  list[#list + 1] = finding("stripped-dso", total / n > th.anonymous_samples and "warning" or "info",
    ("%s of the samples (%s) are in stripped binaries' functions without a name (shown as "
      .. "BINARY+0xSTART, from their unwind tables): %s"):format(pct(total / n), plural(total, "sample"),
      names(bad)),
    "install the binaries' debug symbols (the distribution's -dbgsym or -debuginfo package), set "
      .. "DEBUGINFOD_URLS for debuginfod to fetch them, or give a tree holding unstripped copies with --symfs",
    { binaries = bad, samples = total, share = total / n })
end

-- A binary the user did not build (a distribution's: under /usr, /lib,
-- /bin..., not /usr/local; the kernel's and the vDSO): not theirs to rebuild.
local function is_system(path)
  if path:match("^%[") then return true end
  if path:match("^/usr/local/") then return false end
  return (path:match("^/usr/") or path:match("^/lib") or path:match("^/bin/") or path:match("^/sbin/")) ~= nil
end

-- broken-stacks: the share of one-frame chains, the binaries they end in
-- (with their shares), and advice that fits them: DWARF unwinding for
-- system binaries, -fno-omit-frame-pointer for the user's binaries built
-- without frame pointers (read from the file: lgprof.util.elfdeps).
local function broken_stacks(list, ev, n)
  local elfdeps = require "lgprof.util.elfdeps"
  local share = ev.depth_one / n
  local ends = {}
  for _, d in ipairs(ev.depth_one_dsos or {}) do ends[#ends + 1] = d end
  table.sort(ends, function(a, b)
    if a.samples ~= b.samples then return a.samples > b.samples end
    return a.path < b.path
  end)
  local shown, system, own = {}, {}, {}
  for i, d in ipairs(ends) do
    d.share = d.samples / ev.depth_one
    if i <= 5 then shown[#shown + 1] = ("%s (%s)"):format(d.path, pct(d.share)) end
    if is_system(d.path) then
      system[#system + 1] = { name = d.path }
      d.system = true
    else
      local info = elfdeps.inspect(d.found or d.path)
      d.frame_pointers = info and info.fp
      if not (info and info.fp == true) then own[#own + 1] = { name = d.path } end
    end
  end
  if #ends > 5 then shown[#shown + 1] = ("%d more"):format(#ends - 5) end
  local message = ("%s of the call chains are one frame deep: callers are missing and totals are too low"):format(
    pct(share))
  if #shown > 0 then
    message = message .. "; they end in " .. table.concat(shown, ", ")
  end
  local advice = {}
  if #system > 0 or #own == 0 then
    advice[#advice + 1] = "record with DWARF unwinding: lgprof record --dwarf -- PROGRAM (or perf record"
      .. " --call-graph dwarf)" .. (#system > 0 and (", as " .. names(system, 3) .. (#system == 1 and " is a"
        .. " system library" or " are system libraries") .. " built without frame pointers, not yours to"
        .. " rebuild") or "")
  end
  if #own > 0 then
    advice[#advice + 1] = "build " .. names(own, 3) .. " with -fno-omit-frame-pointer"
  end
  list[#list + 1] = finding("broken-stacks", "warning", message, table.concat(advice, "; or "),
    { depth_one = ev.depth_one, samples = n, share = share, binaries = ends })
end

-- A perf.data's findings: from the reader's counters and the binaries.
local function check_stacks(list, profile, th)
  local ev = profile:_stack_evidence()
  local n = ev.samples
  if ev.truncated_file then
    list[#list + 1] = finding("truncated", "warning",
      "the recording ends inside a record: perf record was stopped before it finished writing",
      "let perf record end normally (Ctrl-C once, then wait), or check the disk was not full", {})
  end
  if n > 0 and ev.no_chain == n then
    list[#list + 1] = finding("no-callchains", "warning",
      "the samples have no call chains: the recording was made without -g, so every total is "
        .. "the function's self time and there is no call graph",
      "record with perf record -e cpu-clock -F 999 -g (or --call-graph dwarf)",
      { samples = n })
  elseif n > 0 and ev.depth_one / n > th.broken_stacks then
    broken_stacks(list, ev, n)
  end
  if n > 0 and ev.truncated > 0 then truncated_stacks(list, ev, th) end
  if ev.lost > 0 and ev.lost / (n + ev.lost) > th.lost_samples then
    local share = ev.lost / (n + ev.lost)
    list[#list + 1] = finding("lost-samples", "warning",
      ("perf lost %d samples (%s): the profile misses whatever ran then"):format(ev.lost, pct(share)),
      "record at a lower frequency (-F 999 or less), with a bigger buffer (-m), or fewer events",
      { lost = ev.lost, share = share })
  end
  local bad = {}
  for d in profile:dsos() do
    if (d.status == "missing" or d.status == "mismatch") and (d.samples or 0) > 0 then
      bad[#bad + 1] = { name = d.path .. " (" .. d.status .. ")", path = d.path, status = d.status,
                        samples = d.samples }
    end
  end
  if #bad > 0 then
    list[#list + 1] = finding("unresolved-dso", "warning",
      ("%d binar%s with samples cannot be symbolized: %s"):format(#bad, #bad == 1 and "y" or "ies",
        names(bad)),
      "give the binaries the recording ran (same build-id): a copy on the command line (lgprof ./prog"
        .. " perf.data), a folder holding copies or debug files with --search-dir=DIR (by build-id or file"
        .. " name, repeatable), their root with --symfs or their cache with --buildid-dir; or install their"
        .. " debug symbols", { binaries = bad })
  end
  stripped_binaries(list, profile, n, th)
  if (ev.other_samples or 0) > 0 then
    list[#list + 1] = finding("mixed-events", "info",
      ("the recording holds %d samples of other events than %s, which this profile leaves out"):format(
        ev.other_samples, tostring(ev.event)),
      "choose the event with --event=NAME (perf report --stat lists them)",
      { event = ev.event, other_samples = ev.other_samples })
  end
  check_time(list, profile, ev)
  if ev.kernel_unresolved > 0 then
    local why = ev.kernel_symbols
    local other = why == "other-kernel" or why == "no-build-id"
    local message = other and ("%d kernel frames have no symbol: %s, and the build-id cache holds no"
        .. " copy of its symbols; this machine's would name another kernel's addresses"):format(
        ev.kernel_unresolved, why == "other-kernel" and "the recording was made on another kernel than"
          .. " the running one (another build-id)" or "the recording names no build-id for its kernel,"
          .. " so the running one cannot be told to be it")
      or ("%d kernel frames have no symbol: the kernel's symbols were not readable"):format(
        ev.kernel_unresolved)
    local advice = other and "on the machine that recorded, perf archive (or a copy of its /proc/kallsyms"
        .. " as DIR/[kernel.kallsyms]/BUILDID/kallsyms) keeps the kernel's symbols; give that cache"
        .. " with --buildid-dir=DIR"
      or "read it as root, or lower kernel.kptr_restrict (sysctl kernel.kptr_restrict=0) and "
        .. "kernel.perf_event_paranoid"
    list[#list + 1] = finding("kernel-hidden", "info", message, advice,
      { frames = ev.kernel_unresolved, kernel_symbols = why })
  end
end

--- The findings of a Profile (or a view), errors first, then warnings, then
-- notes; an empty list for a healthy profile. thresholds (optional) overrides
-- doctor.THRESHOLDS' entries.
function doctor.diagnose(profile, thresholds)
  args.check_profile(profile, 1, "doctor")
  args.check(thresholds == nil or type(thresholds) == "table", 2, "doctor",
    "table expected, got " .. type(thresholds))
  local th = {}
  for k, v in pairs(doctor.THRESHOLDS) do th[k] = v end
  for k, v in pairs(thresholds or {}) do
    args.check(KEYS[k], 2, "doctor", ("unknown threshold '%s'"):format(tostring(k)))
    args.check(type(v) == "number", 2, "doctor", ("threshold '%s' must be a number"):format(k))
    th[k] = v
  end
  local list = {}
  if profile.source == "stacks" then -- a perf.data: its own findings
    check_stacks(list, profile, th)
    check_combined(list, profile, th)
    check_samples(list, profile, th)
    return sorted(list)
  end
  local ev = profile:_evidence()
  check_image(list, profile, ev, th)
  -- another program's samples and arcs: what they say is not about this one
  local foreign = list[1] and list[1].id == "wrong-image"
  if not foreign and check_samples(list, profile, th) then check_graph(list, profile, ev, th) end
  if ev.uses_threads then
    list[#list + 1] = finding("threads", "warning",
      "the executable starts threads (it imports pthread_create): gprof's call counts are not "
        .. "thread-safe and its samples may miss the other threads",
      "profile a single-threaded run if you can, or use a profiler that follows threads "
        .. "(perf record -g)", {})
  end
  if not foreign then check_statics(list, profile, ev) end
  if not foreign then check_clones(list, profile) end
  return sorted(list)
end

-- Profile files (gmon.out.PID, PREFIX.PID) in dir: names that look like a
-- run's and start with the "gmon" cookie.
local function left_beside(dir, base)
  local core = require "lgprof.core"
  local entries = core._list_dir(dir) or {}
  local found = {}
  for _, name in ipairs(entries) do
    if name ~= base and (name:match("^gmon%.out%..") or name:match("%.%d+$")) then
      local path = dir == "." and name or dir .. "/" .. name
      local f = io.open(path, "rb")
      local head = f and f:read(4)
      if f then f:close() end
      if head == "gmon" then found[#found + 1] = path end
    end
  end
  table.sort(found)
  return found
end

--- The finding for a profile file that does not exist (path): the usual
-- causes, and the profile files that do exist beside it.
function doctor.missing(path)
  args.check(type(path) == "string", 1, "missing", "string expected, got " .. type(path))
  local dir, base = path:match("^(.*)/([^/]*)$")
  if not dir then dir, base = ".", path end
  if dir == "" then dir = "/" end
  local found = left_beside(dir, base)
  local shown = table.move(found, 1, math.min(#found, 5), 1, {})
  if #found > 5 then shown[#shown + 1] = "..." end
  local message = path .. " does not exist"
  if #found > 0 then
    message = message .. "; " .. table.concat(shown, ", ") .. (#found == 1 and " exists" or " exist")
      .. " beside it (written with GMON_OUT_PREFIX set: give that file)"
  else
    message = message .. ": the program wrote no profile"
  end
  local prefix = os.getenv("GMON_OUT_PREFIX")
  return finding("missing-profile", "error", message,
    "a -pg program writes gmon.out only when it returns from main or calls exit: not after "
      .. "_exit, exec or a fatal signal; glibc also skips it after printing `mcount: call graph "
      .. "buffer size limit exceeded` (raise GLIBC_TUNABLES=glibc.gmon.maxarcs, minarcs); with "
      .. "GMON_OUT_PREFIX set it writes PREFIX.PID instead",
    { path = path, found = found, gmon_out_prefix = prefix })
end

--- 3 if a finding is an error or a warning, else 0 (lgprof doctor's status).
function doctor.status(findings)
  for _, f in ipairs(findings) do
    if f.severity ~= "info" then return 3 end
  end
  return 0
end

local function counts(findings)
  local c = { error = 0, warning = 0, info = 0 }
  for _, f in ipairs(findings) do c[f.severity] = c[f.severity] + 1 end
  return c
end

--- Writes the findings as text to out: one block a finding, then a summary.
function doctor.write_text(out, findings)
  for _, f in ipairs(findings) do
    out:write(f.id, " (", f.severity, "): ", f.message, "\n  advice: ", f.advice, "\n")
  end
  local c = counts(findings)
  if #findings == 0 then
    out:write("lgprof doctor: no problem found\n")
  else
    out:write(("lgprof doctor: %s, %s, %d info\n"):format(plural(c.error, "error"),
      plural(c.warning, "warning"), c.info))
  end
end

-- {====================================================== JSON

local encode = require("lgprof.util.json").encode

--- The JSON document of lgprof doctor --format=json: { format =
-- "lgprof-doctor", version = 1, image, profiles, status, summary =
-- { error, warning, info } (counts by severity), findings = [...] }.
function doctor.json(findings, image, profiles)
  local c = counts(findings)
  local doc = {
    format = "lgprof-doctor", version = 1, image = image,
    profiles = profiles or {},
    status = doctor.status(findings),
    summary = { error = c.error, warning = c.warning, info = c.info },
    findings = findings,
  }
  local out = {}
  encode(doc, out)
  return table.concat(out) .. "\n"
end

-- }======================================================

--- Writes the findings to file (an open file) as the command does, with
-- the writers' signature (data, file, options): opts.format "text" (the
-- default: write_text) or "json" (json, of opts.image and opts.profiles).
function doctor.write(findings, file, opts)
  opts = opts or {}
  if opts.format == "json" then
    file:write(doctor.json(findings, opts.image, opts.profiles))
  else
    doctor.write_text(file, findings)
  end
end

return doctor
