--- GNU getopt_long as a pure function (argv in; options, operands or an error
-- message out; no I/O), with GNU's argument permutation.
--
--   local spec = { short = getopt.short("ab:c::"), long = { brief = { "b", "none" } } }
--   local opts, operands, rest = getopt.parse({ "-b", "x", "--", "y" }, spec)
--   --> { { "b" } }, { "x" }, { "y" }
--
-- Semantics (glibc's getopt_long without POSIXLY_CORRECT):
--   * options and operands may mix; the operands keep their order;
--   * "--" ends the options: the words after it are returned apart (rest);
--   * "-" alone is an operand;
--   * short options cluster ("-bz"); a required argument is the rest of the
--     word or else the next word (even one that starts with "-"); an optional
--     argument is only ever the rest of the word;
--   * "--name=value" or, for a required argument, "--name value"; "--name="
--     gives an optional argument the empty string;
--   * a long name may be abbreviated to a unique prefix (an exact name wins);
--     entries marked exact are never matched by a prefix.
local getopt = {}

--- The short options of a getopt(3) option string ("ab:c::"): a table
-- letter -> { letter, "none" | "required" | "optional" }.
function getopt.short(optstring)
  local short, i = {}, 1
  while i <= #optstring do
    local c = optstring:sub(i, i)
    local colons = optstring:match("^:*", i + 1)
    local kind = ({ [0] = "none", "required", "optional" })[math.min(#colons, 2)]
    short[c] = { c, kind }
    i = i + 1 + math.min(#colons, 2)
  end
  return short
end

-- The entry of a long option name as typed: exact, or a unique prefix of
-- the names not marked exact. Returns the entry, or nil and a message.
local function long_entry(long, name, word)
  local def = long[name]
  if def then return def end
  for k, d in pairs(long) do
    if not d.exact and k:sub(1, #name) == name then
      if def and (def[1] ~= d[1] or def[2] ~= d[2]) then
        return nil, ("option '--%s' is ambiguous"):format(name)
      end
      def = d
    end
  end
  if not def then return nil, ("unrecognized option '%s'"):format(word) end
  return def
end

-- The long option argv[i] ("--name[=value]"), appended to opts. Returns the
-- index of the last word it used, or nil and a message.
local function long_option(argv, i, long, opts)
  local a = argv[i]
  local name, value = a:match("^%-%-([^=]*)=(.*)$")
  name = name or a:sub(3)
  local def, msg = long_entry(long, name, a)
  if not def then return nil, msg end
  if def[2] == "none" and value then
    return nil, ("option '--%s' doesn't allow an argument"):format(name)
  elseif def[2] == "required" and not value then
    i, value = i + 1, argv[i + 1]
    if value == nil then return nil, ("option '--%s' requires an argument"):format(name) end
  end
  opts[#opts + 1] = { def[1], value }
  return i
end

-- The short options of argv[i] ("-abc"), appended to opts. Returns the
-- index of the last word they used, or nil and a message.
local function short_options(argv, i, short, opts)
  local a = argv[i]
  for j = 2, #a do
    local c = a:sub(j, j)
    local def = short[c]
    if not def then return nil, ("invalid option -- '%s'"):format(c) end
    if def[2] ~= "none" then -- its argument: the rest of the word, if any
      local v = a:sub(j + 1)
      if v == "" then v = nil end
      if not v and def[2] == "required" then
        i, v = i + 1, argv[i + 1]
        if v == nil then return nil, ("option requires an argument -- '%s'"):format(c) end
      end
      opts[#opts + 1] = { def[1], v }
      return i
    end
    opts[#opts + 1] = { def[1] }
  end
  return i
end

--- Parses argv (a list of strings) against spec: spec.short as made by
-- getopt.short, spec.long: name -> { key, kind [, exact = true] }.
-- Returns opts (a list of { key, value }, value nil when there is none),
-- operands (the other words before "--") and rest (the words after "--");
-- or nil and the message of the first error.
function getopt.parse(argv, spec)
  local short, long = spec.short or {}, spec.long or {}
  local opts, operands, rest = {}, {}, {}
  local i, msg = 1, nil
  while i <= #argv do
    local a = argv[i]
    if a == "--" then
      table.move(argv, i + 1, #argv, 1, rest)
      break
    elseif a:sub(1, 2) == "--" then
      i, msg = long_option(argv, i, long, opts)
    elseif a:sub(1, 1) == "-" and #a > 1 then
      i, msg = short_options(argv, i, short, opts)
    else
      operands[#operands + 1] = a
    end
    if not i then return nil, msg end
    i = i + 1
  end
  return opts, operands, rest
end

return getopt
