-- README.md's examples, run: every ```lua and ```sh block of README.md (read
-- at run time), one test each, named after the line where the block starts.
--
-- Where they run: each block in a fresh temporary folder holding a real
-- profiled program, the fixture spec/fixtures/progs/readme (built O0g-nopie
-- by helpers.fixtures; main, the cycle parse <-> lex with almost no time,
-- work and a static helper in a.c that holds nearly all the samples), under
-- the names the examples use:
--   myprog, prog, a.out, old/myprog            the executable
--   gmon.out, old/gmon.out, before.gmon, after.gmon   run 1's profile
--     (before.gmon and after.gmon are the same profile, so that a growth
--     gate on them passes whatever was sampled)
--   gmon.N and gmon.N.out (N = 1, 2, 3)        run N's profile
--   examples/                                  the checkout's examples/
--   NAME.lua                                   every Lua block whose first line is
--                                              "-- NAME.lua" (e.g. perf-gate.lua)
--
-- Lua blocks run as a file (NAME.lua, or example.lua) in a fresh lua5.4
-- process with the checkout's lua/ and build/ on the module paths
-- (helpers.cmd.lua); one passes when it exits 0 with nothing on stderr.
-- Rules:
--   * A fragment, a block that uses `lgprof` or `profile` without a
--     `local` of its own, runs after the first self-contained Lua block of
--     its "## " section (for "## Lua API": the one that opens myprog), in
--     the same file; its line numbers in a Lua error are then shifted by
--     that block's length (the failure message says by how much).
--   * A line `EXPR  --> VALUE` shows a result: it runs as
--     assert(EXPR == VALUE). Other output is not compared.
--   * A first line "-- NAME.lua: COMMAND" also runs COMMAND as a shell
--     line (below), after the block ran standalone.
-- Shell blocks: only lgprof's own command lines run, those whose first word
-- is `lgprof`, `bin/lgprof` or `./bin/lgprof`, in order, in one folder, with
-- the checkout's bin/lgprof. The shell expands the rest of the line (quotes,
-- globs such as gmon.*) in that folder; a pipe into another program
-- (`| dot ...`) is cut off: only lgprof runs. A line must exit with the
-- status its comment gives (`# exit 3 ...`), else 0 and with nothing on
-- stderr. Not run (listed in the test's name, or as pending when nothing of
-- the block runs): make (make demo and make test would rebuild the checkout
-- or recurse into this suite, make install writes outside it), luarocks and
-- what it installs (~/.lgprof/bin/lgprof), apt-get and sudo, compilers, and
-- any other program (./myprog would overwrite the fixture's profile).
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local cmd = require "helpers.cmd"

local q = fx.shquote
local README = fx.root .. "/README.md"
local LGPROF_WORDS = { lgprof = true, ["bin/lgprof"] = true, ["./bin/lgprof"] = true }
local PRELUDE_NAMES = { "lgprof", "profile" }

--- The fenced blocks of a markdown file: { lang, line, code, section } in
-- order; line is the number of the opening fence's line, section the
-- "## " heading above it.
local function fenced_blocks(path)
  local blocks, section, cur, n = {}, "", nil, 0
  for line in io.lines(path) do
    n = n + 1
    if cur then
      if line:match("^```%s*$") then
        cur.code = table.concat(cur.lines, "\n") .. "\n"
        blocks[#blocks + 1], cur = cur, nil
      else
        cur.lines[#cur.lines + 1] = line
      end
    elseif line:match("^```") then
      cur = { lang = line:match("^```%s*(%S*)"), line = n, lines = {}, section = section }
    elseif line:match("^## ") then
      section = line
    end
  end
  assert(not cur, ("%s:%d: unterminated code block"):format(path, cur and cur.line or 0))
  return blocks
end

-- Lua code without its comments and with its one-line strings emptied, to
-- look for names.
local function bare(code)
  return (code:gsub("%-%-[^\n]*", ""):gsub('"[^"\n]*"', '""'):gsub("'[^'\n]*'", "''"))
end

--- Does the Lua block use `lgprof` or `profile` without defining it?
local function is_fragment(code)
  local s = bare(code)
  for _, name in ipairs(PRELUDE_NAMES) do
    local word = "%f[%w_]" .. name .. "%f[^%w_]"
    if s:find(word) and not s:find("local[%w_, \t]*" .. word) then return true end
  end
  return false
end

--- `EXPR  --> VALUE` lines become assertions.
local function with_checks(code)
  return (code:gsub("[^\n]+", function(l)
    local expr, want = l:match("^%s*(.-%S)%s+%-%->%s*(.-)%s*$")
    if expr and not expr:match("^%-%-") then
      return ("assert((%s) == (%s), %q)"):format(expr, want, "README shows: " .. l)
    end
  end))
end

--- A shell line split at its first unquoted `|` or comment: the command,
-- and the rest ("" if none).
local function split_shell(line)
  local quote
  for i = 1, #line do
    local c = line:sub(i, i)
    if quote then
      if c == quote then quote = nil end
    elseif c == "'" or c == '"' then
      quote = c
    elseif c == "|" or (c == "#" and line:sub(i - 1, i - 1):match("^%s?$")) then
      return line:sub(1, i - 1):match("^%s*(.-)%s*$"), line:sub(i)
    end
  end
  return line:match("^%s*(.-)%s*$"), ""
end

--- The lines of a shell block: the lines to run, {command, text (for the
-- test's name), status}..., and the lines not run.
local function shell_lines(code)
  local run, skipped = {}, {}
  for line in code:gmatch("[^\n]+") do
    local command, rest = split_shell(line)
    if command ~= "" then
      if LGPROF_WORDS[command:match("^%S+")] then
        local cut = rest:match("^|%s*(.-)%s*$")
        run[#run + 1] = {
          command = command,
          text = command .. (cut and " [| " .. cut .. ": not run]" or ""),
          status = tonumber(rest:match("#%s*exit%s+(%d+)")) or 0,
        }
      else
        skipped[#skipped + 1] = command
      end
    end
  end
  return run, skipped
end

local blocks = fenced_blocks(README)

-- The files that named Lua blocks ("-- NAME.lua") stand for.
local named = {}
for _, b in ipairs(blocks) do
  if b.lang == "lua" then
    b.file, b.command = b.code:match("^%-%-%s*([%w_.-]+%.lua)[ \t]*:?[ \t]*([^\n]*)")
    if b.file then named[b.file] = b.code end
    if b.command == "" then b.command = nil end
  end
end

-- Each fragment's setup block: the first self-contained Lua block of its section.
for _, b in ipairs(blocks) do
  if b.lang == "lua" and is_fragment(b.code) then
    for _, s in ipairs(blocks) do
      if s == b then break end
      if s.lang == "lua" and s.section == b.section and not is_fragment(s.code) then
        b.setup = s
        break
      end
    end
  end
end

local built
local function fixture()
  built = built or assert(fx.build("readme", "O0g-nopie"))
  return built
end

--- A fresh folder with the program, its profiles and the named files under
-- the names the examples use.
local function workdir()
  local b = fixture()
  local dir = util.mktempdir("lgprof-readme")
  local copies = {
    { b.exe, "myprog" }, { b.exe, "prog" }, { b.exe, "a.out" }, { b.exe, "old/myprog" },
    { b.gmon[1], "gmon.out" }, { b.gmon[1], "old/gmon.out" },
    { b.gmon[1], "before.gmon" }, { b.gmon[1], "after.gmon" },
  }
  for r = 1, 3 do
    copies[#copies + 1] = { b.gmon[r], "gmon." .. r }
    copies[#copies + 1] = { b.gmon[r], "gmon." .. r .. ".out" }
  end
  local sh = { "cd " .. q(dir), "mkdir old", "ln -s " .. q(fx.root .. "/examples") .. " examples" }
  for _, c in ipairs(copies) do sh[#sh + 1] = "cp " .. q(c[1]) .. " " .. q(c[2]) end
  assert(util.exec_ok(table.concat(sh, " && ")), "cannot set up " .. dir)
  for name, code in pairs(named) do cmd.write(dir .. "/" .. name, code) end
  return dir
end

local function remove(dir)
  if dir:match("^/tmp/lgprof%-readme%.") then util.exec_ok("rm -rf " .. q(dir)) end
end

--- Runs one lgprof command line of the README in dir: nil if it exited as
-- expected, else what went wrong.
local function run_shell_line(dir, l)
  -- the shell splits and expands the words in dir; lgprof runs through helpers.cmd
  local expanded = util.read_cmd("cd " .. q(dir) .. " && set -- " .. l.command
    .. " && printf '%s\\0' \"$@\"")
  local words = {}
  for w in expanded:gmatch("([^\0]*)\0") do words[#words + 1] = w end
  if #words == 0 then return "the shell could not expand: " .. l.command end
  local status, out, err = cmd.lgprof({ table.unpack(words, 2) }, { cwd = dir })
  if status ~= l.status or (l.status == 0 and err ~= "") then
    return ("%s\nexpected status %d%s\n%s"):format(l.command, l.status,
      l.status == 0 and " and no stderr" or "", cmd.show(status, out, err))
  end
end

local function where(b) return ("README.md:%d (%s)"):format(b.line, b.lang) end

describe("README examples", function()
  it("has Lua and shell examples", function()
    local n = { lua = 0, sh = 0 }
    for _, b in ipairs(blocks) do n[b.lang] = (n[b.lang] or 0) + 1 end
    assert.is_true(n.lua > 0 and n.sh > 0, "no ```lua or ```sh block found in " .. README)
  end)

  for _, b in ipairs(blocks) do
    if b.lang == "lua" then
      local name = where(b) .. (b.file and " " .. b.file or "")
        .. (b.setup and (" after README.md:%d"):format(b.setup.line) or "")
        .. (b.command and "; " .. b.command or "")
      it(name, function()
        local dir = workdir()
        finally(function() remove(dir) end)
        local code, shift = with_checks(b.code), 0
        if b.setup then
          local setup = with_checks(b.setup.code)
          shift = select(2, setup:gsub("\n", ""))
          code = setup .. code
        end
        local file = b.file or "example.lua"
        cmd.write(dir .. "/" .. file, code)
        local status, out, err = cmd.lua({ file }, { cwd = dir })
        local what = cmd.show(status, out, err)
        if shift > 0 then
          what = what .. ("\n(lines 1-%d are README.md:%d's block: the example's line N"
            .. " is line N+%d)"):format(shift, b.setup.line, shift)
        end
        assert(status == 0 and err == "", what)
        if b.command then
          local run = shell_lines(b.command)
          assert(#run == 1, "not an lgprof command line: " .. b.command)
          local failed = run_shell_line(dir, run[1])
          assert(not failed, failed)
        end
      end)
    elseif b.lang == "sh" then
      local run, skipped = shell_lines(b.code)
      local texts = {}
      for i, l in ipairs(run) do texts[i] = l.text end
      local name = where(b) .. ": " .. table.concat(texts, "; ")
        .. (#skipped > 0 and " (not run: " .. table.concat(skipped, "; ") .. ")" or "")
      if #run == 0 then
        pending(where(b) .. " not run: " .. table.concat(skipped, "; "))
      else
        it(name, function()
          local dir = workdir()
          finally(function() remove(dir) end)
          -- every line runs (in order, later ones may use earlier ones' files);
          -- all the failures are reported
          local failures = {}
          for _, l in ipairs(run) do failures[#failures + 1] = run_shell_line(dir, l) end
          assert(#failures == 0, table.concat(failures, "\n\n"))
        end)
      end
    end
  end
end)
