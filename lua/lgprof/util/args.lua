--- Argument helpers shared by the API and the command's modes: is this a
-- Profile, argument checks, shares ("0.3", "30%"), patterns, "PATTERN=VALUE".
local args = {}

--- Is v a Profile (an opened profile or a view of one)? The core's own
-- test (a userdata of its Profile type), not a metatable's __name, which
-- any table can carry.
function args.is_profile(v)
  -- required here, not above: lgprof (init.lua) reports a missing core itself
  return require("lgprof.core").type(v) == "profile"
end

-- A chunk name of lgprof's own Lua modules: this file's, with "util/args"
-- replaced by any module path under lgprof/ (a checkout, an install tree or
-- an embedded copy alike).
local OWN = debug.getinfo(1, "S").source
do
  local at = OWN:find("util/args[^/\\]*$")
  OWN = at and ("^" .. OWN:sub(1, at - 1):gsub("%p", "%%%0") .. "[%w_/]+" ..
    OWN:sub(at + 9):gsub("%p", "%%%0") .. "$") or nil
end

--- Raises msg for the user's code: prefixed with the file and line of the
-- nearest caller outside lgprof's own modules (a script calling
-- lgprof.diff, which calls lgprof.diff's module, is blamed, not them).
function args.error(msg)
  local level = 2 -- levels as error() counts them: 1 is this function
  while OWN do
    local info = debug.getinfo(level, "S")
    if not info then level = 2 break end -- no user code: blame our caller
    if not info.source:match(OWN) then break end
    level = level + 1
  end
  error(msg, level)
end

local function pass(ok, ...)
  if not ok then args.error(args.message((...))) end
  return ...
end

--- Returns what f() returns, or raises its error again for the user's code
-- (args.error): for calls made on the user's behalf, whose errors would
-- otherwise name a line of lgprof's own modules. f makes the call, not as
-- a tail call, so that Lua's "bad argument #n to 'name'" keeps the name.
function args.call(f)
  return pass(pcall(f))
end

--- Raises "bad argument #n to 'what' (msg)" for the user's code unless cond.
function args.check(cond, n, what, msg)
  if not cond then args.error(("bad argument #%d to '%s' (%s)"):format(n, what, msg)) end
end

--- Raises "bad argument #n to 'what' (Profile expected, got TYPE)" for the
-- user's code unless v is a Profile.
function args.check_profile(v, n, what)
  if not args.is_profile(v) then
    args.error(("bad argument #%d to '%s' (Profile expected, got %s)"):format(n, what, type(v)))
  end
end

--- A share: a fraction (a number or a string, 0.3, "0.3") or a percent
-- string ("30%"), from 0 to max (default 1; math.huge: no upper bound); nil
-- if v is none. The core parses it (core.share), as it does the views'
-- fraction options: one rule everywhere.
function args.share(v, max)
  return require("lgprof.core").share(v, max)
end

--- What args.share accepts, for messages.
function args.share_expected(max)
  if (max or 1) == math.huge then return "a share: a fraction >= 0 or a percent (0.3 or 30%)" end
  return ("a share: a fraction from 0 to %g or a percent (0.3 or 30%%)"):format(max or 1)
end

--- An error message without the "file.lua:LINE: " that error() put before it.
function args.message(msg)
  return (tostring(msg):gsub("^[^:]*:%d+: ", ""))
end

--- What is wrong with a pattern (a string, in lgprof.match's language), or
-- nil if nothing. The core's message has no position to strip (pcall, a C
-- function, calls it), so a pattern holding ":3: " stays whole.
function args.pattern_error(pattern)
  local ok, msg = pcall(require("lgprof.core").regex_match, "", pattern)
  if not ok then return msg end
  return nil
end

--- "PATTERN=VALUE" -> PATTERN, VALUE (the last "=" splits; PATTERN not
-- empty); nil if the word has no such "=".
function args.pattern_value(word)
  return word:match("^(.+)=([^=]*)$")
end

--- The writers' second argument: raises the misuse error of writer `name`
-- unless file is a path, an open file or a table with a write method.
function args.check_output(file, name)
  if type(file) ~= "string" and io.type(file) ~= "file"
      and not (type(file) == "table" and type(file.write) == "function") then
    args.error(("bad argument #2 to '%s' (a file handle or a path expected, got %s)"):format(
      name, io.type(file) == "closed file" and "a closed file" or type(file)))
  end
end

--- A writer's `write(profile, file, options)` over its encoder: the
-- arguments checked (check_options(options, name) raises on misuse) before
-- anything is written, then encode(profile, options) -> text or nil,
-- message; finish(text), if given, turns the text into the bytes written.
function args.encoded_writer(name, check_options, encode, finish)
  return function(profile, file, options)
    args.check_profile(profile, 1, name)
    args.check_output(file, name)
    check_options(options, name)
    local text, err = encode(profile, options)
    if not text then return nil, err end
    return args.write_output(file, finish and finish(text) or text, true)
  end
end

--- The bytes of the file at path, or nil (no path, or it cannot be read).
function args.read_file(path)
  local f = path and io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

--- Writes the text s of a writer to file: a path is created, written and
-- closed; an open file is written, flushed (a full disk shows now, not when
-- the caller closes it) and left open. true, or nil and a message.
function args.write_output(file, s, binary)
  if type(file) == "string" then
    local f, oerr = io.open(file, binary and "wb" or "w")
    if not f then return nil, oerr end
    local okw, werr = f:write(s)
    local okc, cerr = f:close()
    if not okw then return nil, file .. ": " .. tostring(werr) end
    if not okc then return nil, file .. ": " .. tostring(cerr) end
    return true
  end
  local okw, werr = file:write(s)
  if okw and io.type(file) == "file" then okw, werr = file:flush() end
  if not okw then return nil, tostring(werr) end
  return true
end

--- s with each byte that is not part of a valid UTF-8 sequence replaced by
-- bad(byte): names come from symbol tables, bytes that need not be UTF-8.
function args.valid_utf8(s, bad)
  if utf8.len(s) then return s end
  local out, i = {}, 1
  while i <= #s do
    local n, at = utf8.len(s, i)
    if n then
      out[#out + 1] = s:sub(i)
      break
    end
    out[#out + 1] = s:sub(i, at - 1)
    out[#out + 1] = bad(s:byte(at))
    i = at + 1
  end
  return table.concat(out)
end

--- A copy of a writer's options table (argument #3; nil: none), every key
-- checked against allowed (a set); an unknown one raises for the caller.
function args.known_options(options, allowed, what)
  args.check(options == nil or type(options) == "table", 3, what,
    "table expected, got " .. type(options))
  local o = {}
  for k, v in pairs(options or {}) do
    if not allowed[k] then
      args.error(("bad argument #3 to '%s' (unknown option '%s')"):format(what, tostring(k)))
    end
    o[k] = v
  end
  return o
end

--- The last component of a path (a program's name).
function args.basename(path)
  return (tostring(path or ""):match("([^/]*)/*$"))
end

return args
