--- @FILE response files, as gprof expands them (libiberty's rules): before
-- any option is parsed, every argument that starts with "@" and names a
-- file that can be opened is replaced by the words of that file, which are
-- examined in their turn (so response files nest). An @FILE that cannot be
-- opened stays as it is, a literal argument.
--
-- The words of a file: runs of blanks (space, tab, newline, CR, VT, FF)
-- separate them, except inside '...' or "..." or after a backslash; the
-- quotes are removed, a backslash makes the next character literal
-- everywhere (inside quotes too; a last lone backslash is dropped), an
-- unterminated quote runs to the end of the file, "" is an empty word, and
-- a NUL byte ends the file. A file of blanks only gives no word.
local respfile = {}

--- At most this many "@" arguments (literal ones included) are examined:
-- the next one is an error (a file that names itself ends there).
respfile.LIMIT = 1999

local EISDIR = 21

--- The words of a response file's text.
function respfile.split(text)
  local nul = text:find("\0", 1, true)
  if nul then text = text:sub(1, nul - 1) end
  local words, n = {}, #text
  local i = text:find("[^ \t\n\r\v\f]")
  while i do
    local buf, quote = {}, nil
    while i <= n do
      local c = text:sub(i, i)
      if c == "\\" then
        if i < n then buf[#buf + 1] = text:sub(i + 1, i + 1) end
        i = i + 2
      elseif quote then
        -- a run of ordinary characters inside the quote, then what ends it
        local j = text:find(quote == "'" and "['\\]" or "[\"\\]", i) or n + 1
        buf[#buf + 1] = text:sub(i, j - 1)
        if j <= n and text:sub(j, j) == quote then quote = nil; j = j + 1 end
        i = j
      elseif c == "'" or c == '"' then
        quote, i = c, i + 1
      elseif c:find("[ \t\n\r\v\f]") then
        break
      else
        local j = text:find("[ \t\n\r\v\f'\"\\]", i) or n + 1
        buf[#buf + 1] = text:sub(i, j - 1)
        i = j
      end
    end
    words[#words + 1] = table.concat(buf)
    i = text:find("[^ \t\n\r\v\f]", i)
  end
  return words
end

--- The arguments with every @FILE expanded, or nil and a message
-- "FILE: what is wrong" (a directory, too many @-files).
function respfile.expand(args)
  local out = {}
  -- the words still to examine: a stack of lists, each with its position
  local stack = { { words = args, at = 1 } }
  local budget = respfile.LIMIT + 1
  while #stack > 0 do
    local top = stack[#stack]
    local a = top.words[top.at]
    if a == nil then
      stack[#stack] = nil
    else
      top.at = top.at + 1
      local words
      if a:sub(1, 1) == "@" then
        budget = budget - 1
        if budget == 0 then
          return nil, ("%s: too many @-files encountered (more than %d: does a response file "
            .. "include itself?)"):format(a:sub(2), respfile.LIMIT)
        end
        local f = io.open(a:sub(2), "rb")
        if f then
          local text, _, code = f:read("a")
          f:close()
          if text then
            words = respfile.split(text)
          elseif code == EISDIR then
            return nil, a:sub(2) .. ": @-file refers to a directory"
          end
        end
      end
      if words then
        stack[#stack + 1] = { words = words, at = 1 }
      else
        out[#out + 1] = a
      end
    end
  end
  return out
end

return respfile
