--- lgprof.cliview: the command line's view options (--focus, --ignore,
-- --hide, --prune-from, --node-fraction, --edge-fraction, --top,
-- --min-calls) as one profile:filter{...}, for every mode that writes
-- lgprof's own output (--format=FMT, --annotate-lines). gprof's report
-- stays gprof's: the options are refused with it and with the options that
-- only shape it.
local args = require "lgprof.util.args"

local cliview = {}

-- option -> { filter key, kind }; patterns may be repeated (a list), the
-- last value of a threshold wins (as getopt options do)
local OPTIONS = {
  focus = { "focus", "pattern" }, ignore = { "ignore", "pattern" },
  hide = { "hide", "pattern" }, ["prune-from"] = { "prune_from", "pattern" },
  ["node-fraction"] = { "node_fraction", "share" }, ["edge-fraction"] = { "edge_fraction", "share" },
  top = { "top", "count" }, ["min-calls"] = { "min_calls", "count" },
}
cliview.OPTIONS = OPTIONS

-- The filter's keys in the order the description lists them: the order
-- profile:filter applies them (structural, then thresholds).
local ORDER = { "ignore", "prune_from", "focus", "hide", "node_fraction", "edge_fraction", "top",
                "min_calls" }

-- gprof's options (st.given's keys) that shape only gprof's own report: a
-- view cannot apply to what they ask for. -p/-q/-P/-Q only without a SPEC
-- (with one they choose the functions of every output: an analysis option).
local REPORT_ONLY = { "b", "T", "w", "x", "y", "t", "m", "i", "s", "r", "R", "A", "J", "C", "Z", "L",
                      "inline-file-names" }
local PARTS = { "p", "P", "q", "Q" }
local function spelling(letter) return #letter == 1 and "-" .. letter or "--" .. letter end

--- The view of the parsed command line st (its view options, checked by
-- the parse): the profile:filter table and its description, or nil when
-- no view option was given. Sets st.view_option, the first one given.
function cliview.take(st)
  local spec, texts, found = {}, {}, false
  for _, o in pairs(OPTIONS) do
    local key = o[1]
    if st[key] ~= nil then
      found = true
      spec[key] = st[key]
      texts[key] = o[2] == "pattern" and st[key] or st.text[key]
    end
  end
  if not found then return nil end
  st.view_option = require("lgprof.cli.options").first_given(st, "views").long
  return spec, cliview.describe(texts)
end

--- The description of a view in words, for the headers of pictures: the
-- profile:filter table's options in the order they apply, each as
-- KEY=VALUE (a list as several), "focus=parse, hide=^malloc$,
-- node_fraction=0.5%". Values are written as given (tostring).
function cliview.describe(filter)
  args.check(type(filter) == "table", 1, "describe", "table expected, got " .. type(filter))
  local parts = {}
  for _, key in ipairs(ORDER) do
    local v = filter[key]
    if type(v) == "table" then
      for _, p in ipairs(v) do parts[#parts + 1] = key .. "=" .. tostring(p) end
    elseif v ~= nil then
      parts[#parts + 1] = key .. "=" .. tostring(v)
    end
  end
  return table.concat(parts, ", ")
end

--- The usage message when the view options cannot go with the rest of the
-- command line st (fmt: --format's value, annotate: --annotate-lines
-- given), else nil.
function cliview.refuse(st, fmt, annotate)
  if not annotate and (fmt == nil or fmt == "gprof") then
    return ("--%s: the view options apply to --format=FMT and --annotate-lines, not to gprof's"
      .. " report (gprof's own -p/-q/-e/-f/-k/-n/-N shape that)"):format(st.view_option or "focus")
  end
  local given = st.given or {}
  for _, letter in ipairs(REPORT_ONLY) do
    -- (--format=text is brief with -b, as gprof's report)
    if given[letter] and not (letter == "b" and fmt == "text") then
      return ("--%s: the view options cannot be combined with %s, which shapes only gprof's"
        .. " report"):format(st.view_option, spelling(letter))
    end
  end
  for _, letter in ipairs(PARTS) do
    if given[letter] == "bare" then
      return ("--%s: the view options cannot be combined with %s without a SPEC, which chooses"
        .. " a part of gprof's report"):format(st.view_option, spelling(letter))
    end
  end
  return nil
end

--- The usage message for a view option given to --diff or check (mode)
-- that does not apply there: --diff takes --focus, --ignore and --hide (one
-- view of both sides) but not the thresholds nor --prune-from, because a
-- threshold keeps different functions of the base and the new profile; a
-- gate's shares would be shares of a view; a script says which it means
-- (lgprof.diff and lgprof.check take views).
function cliview.not_here(name, mode)
  if mode == "diff" then
    return ("--%s: the view options other than --focus, --ignore and --hide do not apply to"
      .. " --diff: a threshold keeps a different part of each profile; a script can compare"
      .. " views: lgprof.diff(base:filter{...}, new:filter{...})"):format(name)
  elseif mode == "script" or mode == "standalone" then
    return ("--%s: the view options do not apply to a script's command line (the script makes"
      .. " its views: profile:filter{...})"):format(name)
  elseif mode ~= "check" then
    return ("--%s: the view options do not apply to lgprof %s"):format(name, mode)
  end
  return ("--%s: the view options do not apply to lgprof check (a script can check a view:"
    .. " lgprof.check on profile:filter{...})"):format(name)
end

--- The view of a parsed command line's profile: profile:filter(st.view),
-- or the profile itself without view options. Writes a warning for each
-- pattern that matches no function (the view is then empty or unchanged,
-- which is rarely what was meant). On failure writes "lgprof: message" and
-- returns nil, 1.
function cliview.apply(st, profile, err)
  if not st.view then return profile end
  for _, key in ipairs({ "focus", "ignore", "hide", "prune_from" }) do
    for _, p in ipairs(st.view[key] or {}) do
      if #profile:search(p) == 0 then
        err:write(("lgprof: warning: --%s=%s matches no function\n"):format(key:gsub("_", "-"), p))
      end
    end
  end
  local view, msg = profile:filter(st.view)
  if not view then
    err:write("lgprof: ", tostring(msg), "\n")
    return nil, 1
  end
  return view
end

return cliview
