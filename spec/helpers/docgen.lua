-- The manual's option lists, written from the option registry
-- (lgprof.cli.registry) by lgprof.cli.help: the man page's OPTIONS section
-- (help.roff, between the BEGIN and END GENERATED OPTIONS comments of
-- doc/lgprof.1) and the option table of doc/command.md (help.markdown,
-- between its BEGIN and END GENERATED OPTIONS comments). spec/manual_spec.lua
-- regenerates both and requires the files to hold exactly that text.
--
-- To rewrite both files after a change to the registry, from the checkout:
--   lua5.4 spec/helpers/docgen.lua
local docgen = {}

docgen.MAN_BEGIN, docgen.MAN_END = '.\\" BEGIN GENERATED OPTIONS', '.\\" END GENERATED OPTIONS'
docgen.MD_BEGIN = "<!-- BEGIN GENERATED OPTIONS: spec/helpers/docgen.lua writes this table"
  .. " from lua/lgprof/cli/registry.lua -->"
docgen.MD_END = "<!-- END GENERATED OPTIONS -->"

-- The man page's subsections: the registry's groups in the order a reader
-- meets them, each with its title and the roff text before its entries.
-- Every group of the registry must be here (docgen.man refuses otherwise).
local SECTIONS = {
  { group = "gprof", title = "gprof's options", intro = table.concat({
    ".I SPEC",
    "is gprof's symspec:",
    ".IR FUNC ,",
    ".I FILE",
    "(contains a dot),",
    ".I LINE",
    "(starts with a digit),",
    ".IB FILE : FUNC",
    "or",
    ".IB FILE : LINE\\c",
    "\\&.",
    "An optional SPEC must be attached to its option:",
    ".B \\-C foo",
    "is",
    ".B \\-C",
    "and the executable",
    ".IR foo .",
    "The numbers of",
    ".BR \\-w ,",
    ".B \\-m",
    "and",
    ".B \\-t",
    "are read as gprof reads them, never refused.",
  }, "\n") },
  { group = "lgprof", title = "lgprof's modes of gprof's command line" },
  { group = "format", title = "Options of \\-\\-format",
    intro = function(registry)
      local names = {}
      local list = registry.EXPORT_FORMATS
      for i, f in ipairs(list) do
        f = f:gsub("%-", "\\-")
        names[i] = i == #list and "or\n.B " .. f or ".BR " .. f .. " ,"
      end
      return ".I FMT\nis one of\n" .. table.concat(names, "\n") .. "\n(see MODES)."
        .. " An option that only some formats take is a usage error with another one."
    end },
  { group = "svg", title = "The pictures' options (\\-\\-format=svg, dot, html)" },
  { group = "views", title = "Views (every \\-\\-format and \\-\\-annotate\\-lines; not gprof's report)",
    intro = "RE is a POSIX extended regular expression; \\-\\-focus, \\-\\-ignore,"
      .. " \\-\\-hide and \\-\\-prune\\-from are repeatable." },
  { group = "clones", title = "gcc's clones (\\-\\-format, \\-\\-diff, check)",
    intro = "gprof's report, \\-\\-annotate\\-lines, \\-\\-break\\-cycles and \\-\\-script"
      .. " keep gprof's rule." },
  { group = "perf", title = "perf.data (its reading, and the selections of every mode but \\-\\-diff)",
    intro = "For a perf.data profile only; with gmon.out they are a usage error."
      .. " \\-\\-pid, \\-\\-tid, \\-\\-comm and \\-\\-dso are repeatable: a sample is kept"
      .. " when it matches one value of each." },
  { group = "script", title = "Options of \\-\\-script" },
  { group = "check", title = "Options of check", intro = table.concat({
    ".I PATTERN",
    "is a POSIX extended regular expression matched in the function's name;",
    ".I SHARE",
    "a fraction or a percentage (0.3 or 30%).",
  }, "\n") },
  { group = "diff", title = "Options of \\-\\-diff" },
  { group = "stats", title = "Options of check and \\-\\-diff",
    intro = "A time threshold fails only when the lower confidence bound of the time is"
      .. " above it (Holm's correction over the functions PATTERN matches); a breach of"
      .. " the estimate alone is a warning." },
  { group = "merge", title = "Options of merge" },
  { group = "doctor", title = "Options of doctor" },
  { group = "record", title = "Options of record",
    intro = "Also the report options of the command (not \\-F, which is record's)." },
  { group = "launcher", title = "Alone on the command line" },
}

-- What the man page says after gprof's options: @FILE is no option of the
-- registry but a word of any command line.
local AFTER_GPROF = table.concat({
  ".TP",
  ".BI @ FILE",
  "(any argument, in every mode) the words of FILE instead (quotes and",
  "backslashes as in a shell; a file that cannot be opened stays @FILE).",
}, "\n") .. "\n"

--- The text between the man page's markers (the markers excluded): a
-- subsection per registry group, its entries as help.roff writes them.
function docgen.man()
  local registry, help = require "lgprof.cli.registry", require "lgprof.cli.help"
  local known = {}
  for _, s in ipairs(SECTIONS) do known[s.group] = true end
  for _, e in ipairs(registry.OPTIONS) do
    if not known[e.group] then
      error(("docgen: the registry's group '%s' (--%s) has no section in the man page")
        :format(tostring(e.group), e.long or e.short), 2)
    end
  end
  local out = {}
  for _, s in ipairs(SECTIONS) do
    local entries = registry.group(s.group)
    if #entries > 0 then
      out[#out + 1] = ('.SS "%s"\n'):format(s.title)
      local intro = s.intro
      if type(intro) == "function" then intro = intro(registry) end
      if intro then out[#out + 1] = intro .. "\n" end
      out[#out + 1] = help.roff(entries)
      if s.group == "gprof" then out[#out + 1] = AFTER_GPROF end
    end
  end
  return table.concat(out)
end

--- The text between doc/command.md's markers: every option, as
-- help.markdown writes the table.
function docgen.markdown()
  return require("lgprof.cli.help").markdown()
end

--- text with the part between the lines `first` and `last` replaced by
-- body; nil and a message when the markers are not there once each.
function docgen.splice(text, first, last, body)
  local b0, b1 = text:find("\n" .. first .. "\n", 1, true)
  local e0, e1 = text:find("\n" .. last .. "\n", 1, true)
  if not b0 or not e0 or e0 < b1 then return nil, "no '" .. first .. "' ... '" .. last .. "' lines" end
  if text:find("\n" .. first .. "\n", b1, true) then return nil, "two '" .. first .. "' lines" end
  return text:sub(1, b1) .. body .. text:sub(e0 + 1)
end

--- The part of text between the lines `first` and `last`, or nil.
function docgen.between(text, first, last)
  local _, b1 = text:find("\n" .. first .. "\n", 1, true)
  local e0 = text:find("\n" .. last .. "\n", 1, true)
  if not b1 or not e0 or e0 < b1 then return nil end
  return text:sub(b1 + 1, e0)
end

--- The files and what goes between their markers: { path (from the
-- checkout), first, last, generate }.
docgen.FILES = {
  { path = "doc/lgprof.1", first = docgen.MAN_BEGIN, last = docgen.MAN_END, generate = docgen.man },
  { path = "doc/command.md", first = docgen.MD_BEGIN, last = docgen.MD_END, generate = docgen.markdown },
}

-- Run as a script (lua5.4 spec/helpers/docgen.lua, from the checkout):
-- rewrite both files.
if not pcall(debug.getlocal, 4, 1) then
  package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
  package.cpath = "build/?.so;" .. package.cpath
  for _, f in ipairs(docgen.FILES) do
    local h = assert(io.open(f.path, "rb"))
    local text = h:read("a")
    h:close()
    local new = assert(docgen.splice(text, f.first, f.last, f.generate()))
    if new ~= text then
      h = assert(io.open(f.path, "wb"))
      h:write(new)
      h:close()
      print("rewrote " .. f.path)
    end
  end
end

return docgen
