--- The option lists of the help texts, written from the registry
-- (lgprof.cli.registry): as the usage texts show them (help.text), as roff
-- .TP entries for a man page (help.roff) and as a Markdown table
-- (help.markdown), so that the documentation can be generated from, or
-- checked against, the options the parse accepts.
local registry = require "lgprof.cli.registry"

local help = {}

-- The text column of the help lines and the width they are wrapped to.
local COLUMN, WIDTH = 32, 79

--- How an option is written in a help line: "-p[SPEC], --flat-profile[=SPEC]",
-- "-e NAME", "--max-self=PATTERN=SHARE", "-o OUT, --output=OUT".
function help.synopsis(e)
  local m = e.metavar or "VALUE"
  local parts = {}
  if e.short then
    parts[#parts + 1] = "-" .. e.short .. (e.arg == "required" and " " .. m
      or e.arg == "optional" and "[" .. m .. "]" or "")
  end
  if e.long then
    parts[#parts + 1] = "--" .. e.long .. (e.arg == "required" and "=" .. m
      or e.arg == "optional" and "[=" .. m .. "]" or "")
  end
  return table.concat(parts, ", ")
end

-- The words of text as lines of at most `width` characters.
local function wrap(text, width)
  local lines, line = {}, nil
  for word in text:gmatch("%S+") do
    if line and #line + 1 + #word > width then
      lines[#lines + 1] = line
      line = word
    else
      line = line and line .. " " .. word or word
    end
  end
  lines[#lines + 1] = line
  return lines
end

--- The help lines of a list of registry entries: "  SYNOPSIS   help",
-- the help at column `column` (default 32), wrapped to 79 characters.
function help.text(entries, column)
  column = column or COLUMN
  local out = {}
  for _, e in ipairs(entries) do
    local head = "  " .. help.synopsis(e)
    local body = wrap(e.help, WIDTH - column)
    if #head + 1 > column then
      out[#out + 1] = head .. "\n"
    else
      out[#out + 1] = head .. (" "):rep(column - #head) .. table.remove(body, 1) .. "\n"
    end
    for _, l in ipairs(body) do out[#out + 1] = (" "):rep(column) .. l .. "\n" end
  end
  return table.concat(out)
end

--- Gives module m a field USAGE whose text make() writes on first use (the
-- option lists are formatted from the registry, which most runs never print).
function help.lazy_usage(m, make)
  return setmetatable(m, { __index = function(t, k)
    if k ~= "USAGE" then return nil end
    local text = make()
    rawset(t, k, text)
    return text
  end })
end

--- The help lines of the registry's group `group` (help.text).
function help.group(group, column)
  return help.text(registry.group(group), column)
end

--- The options of a mode other than gprof's own (registry.of_mode), as
-- help lines.
function help.mode(mode, column)
  local list = {}
  for _, e in ipairs(registry.of_mode(mode)) do
    if not e.gprof then list[#list + 1] = e end
  end
  return help.text(list, column)
end

-- roff text with its special characters escaped: backslashes, the minus
-- signs of options, a dot or quote that would start a request.
local function roff(s)
  s = s:gsub("\\", "\\e"):gsub("%-", "\\-")
  return (s:gsub("^([.'])", "\\&%1"))
end

--- The .TP entries of a list of registry entries (default: every option),
-- for a man page: the synopsis in bold (arguments in italics), the help
-- under it.
function help.roff(entries)
  local out = {}
  for _, e in ipairs(entries or registry.OPTIONS) do
    local m = e.metavar and "\\fI" .. roff(e.metavar) .. "\\fR" or "\\fIVALUE\\fR"
    local parts = {}
    if e.short then
      parts[#parts + 1] = "\\fB\\-" .. e.short .. "\\fR" .. (e.arg == "required" and " " .. m
        or e.arg == "optional" and "[" .. m .. "]" or "")
    end
    if e.long then
      parts[#parts + 1] = "\\fB\\-\\-" .. roff(e.long) .. "\\fR" .. (e.arg == "required" and "=" .. m
        or e.arg == "optional" and "[=" .. m .. "]" or "")
    end
    out[#out + 1] = ".TP\n" .. table.concat(parts, ", ") .. "\n" .. roff(e.help) .. "\n"
  end
  return table.concat(out)
end

-- The modes of an entry, as the Markdown table names them.
local function modes_of(e)
  if e.gprof then return e.not_in and "all but " .. e.not_in or "all" end
  local list = {}
  for _, m in ipairs(registry.MODES) do
    if e.modes[m] then list[#list + 1] = m end
  end
  return table.concat(list, ", ")
end

-- Markdown table cell text: "|" escaped, the synopsis in code.
local function cell(s) return (s:gsub("|", "\\|")) end

--- A Markdown table of a list of registry entries (default: every
-- option): option, modes, help.
function help.markdown(entries)
  local out = { "| Option | Modes | Description |\n", "|---|---|---|\n" }
  for _, e in ipairs(entries or registry.OPTIONS) do
    out[#out + 1] = ("| `%s` | %s | %s |\n"):format(cell(help.synopsis(e)), modes_of(e), cell(e.help))
  end
  return table.concat(out)
end

return help
