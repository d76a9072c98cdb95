-- The examples of README.md and of the manual, doc/*.md, run: every fenced
-- block of those files (read at run time; DOCS below) is run, one test each
-- named after the file and line where it starts, or is listed below as not
-- runnable with the reason; any other block fails.
--
-- Where they run: each block in a fresh temporary folder holding a real
-- profiled program, the fixture spec/fixtures/progs/readme (built O0g-pie,
-- as `make demo` builds: Debian's gcc makes a PIE by default; main, the
-- cycle parse <-> lex with almost no time, work and a static helper in a.c
-- that holds nearly all the samples), under the names the examples use:
--   myprog, prog, a.out, old/myprog            the executable
--   gmon.out, old/gmon.out, before.gmon, after.gmon   run 1's profile
--     (before.gmon and after.gmon are the same profile, so that a growth
--     gate on them passes whatever was sampled)
--   gmon.N (N = 1, 2, 3)                       run N's profile
--   examples/                                  the checkout's examples/
--   NAME.lua                                   every Lua block whose first line is
--                                              "-- NAME.lua" (e.g. perf-gate.lua)
-- Every Lua block that names none of the fixture's own functions (parse,
-- lex, work, helper: see FIXTURE_ONLY) runs a second time in the same way
-- with the demo instead, examples/demo.c built and run as `make demo` does
-- (cached in build/readme-demo/; its one profile stands for every run).
--
-- Lua blocks run as a file (NAME.lua, or example.lua) in a fresh lua5.4
-- process with the checkout's lua/ and build/ on the module paths
-- (helpers.cmd.lua); one passes when it exits 0 with nothing on stderr.
-- Rules:
--   * A fragment, a block that uses `lgprof` or `profile` without a
--     `local` of its own, runs after the first self-contained Lua block of
--     its "## " section of the same markdown file (the part before the
--     file's first "## " counts as one: in doc/scripting.md, the block that
--     opens myprog), in the same file; its line numbers in a Lua error are
--     then shifted by that block's length (the failure message says by how
--     much).
--   * A line `EXPR  --> VALUE` shows a result: it runs as
--     assert(EXPR == VALUE). Other output is not compared, except that a
--     line "nil" (a look-up that found nothing) fails.
--   * A first line "-- NAME.lua: COMMAND" also runs COMMAND as a shell
--     line (below), after the block ran standalone.
-- Shell blocks: lgprof's own command lines run, those whose first word is
-- `lgprof`, `bin/lgprof` or `./bin/lgprof`, in order, in one folder, with
-- the checkout's command (helpers.cmd). The shell expands the rest of the
-- line (quotes, globs such as gmon.*) in that folder; a pipe into another
-- program (`| dot ...`) is cut off: only lgprof runs. A line must exit with
-- the status its comment gives (`# exit 3 ...`), else 0 and with nothing on
-- stderr. A line whose first word is in SKIPPED is not run (the reason is in
-- the test's name, and a block with nothing to run is pending); any other
-- first word fails the test: run it here, or list it with its reason.
-- Blocks of any other language (or none) must be in NOT_RUN, by their first
-- line, with the reason; an entry that matches no block fails too. Named
-- Lua files ("-- NAME.lua") are shared by all the files: a block of one
-- may run a script that another one shows.
local fx = require "helpers.fixtures"
local util = require "helpers.util"
local cmd = require "helpers.cmd"

local q = fx.shquote
-- README.md, then doc/*.md in name order: { path, name }
local DOCS = { { path = fx.root .. "/README.md", name = "README.md" } }
for _, f in ipairs(util.ls(fx.root .. "/doc")) do
  if f:match("%.md$") then DOCS[#DOCS + 1] = { path = fx.root .. "/doc/" .. f, name = "doc/" .. f } end
end
local LGPROF_WORDS = { lgprof = true, ["bin/lgprof"] = true, ["./bin/lgprof"] = true }
local PRELUDE_NAMES = { "lgprof", "profile" }

-- Shell commands not run, by first word: why.
local SKIPPED = {
  make = "make demo and make test rebuild the checkout or recurse into this suite, "
    .. "make install writes outside it",
  luarocks = "installs into the user's tree (~/.lgprof)",
  ["~/.lgprof/bin/lgprof"] = "what luarocks installed",
  gcc = "a compiler: the fixture is built by helpers.fixtures",
  ["./myprog"] = "would overwrite the fixture's profile",
  ["apt-get"] = "installs packages",
  sudo = "runs as root",
  eval = "sets the shell's LUA_PATH: packaging_spec runs eval \"$(bin/lgprof --lua-env)\" "
    .. "and a script from other folders",
  ["lua5.4"] = "a standalone script after --lua-env (packaging_spec; the scripts: examples_spec)",
  perf = "records a profile: a block that names perf.data gets one recorded of myprog (when perf can)",
  seq = "makes the pigz example's input: a block that runs pigz gets the same big.txt (seq 3000000)",
}

-- Blocks that are neither ```lua nor ```sh, by first line: why they are not run.
local NOT_RUN = {
  ["lgprof [options] [image-file [profile-file...]]"] = "the command's synopsis",
  ["lgprof --script FILE.lua [options] [image-file [profile-file...]] [-- script-args]"] =
    "the modes' synopsis",
  ["base 2.17 seconds (mean of 3 runs), new 3.46 seconds, change +1.29 seconds (+59.2% of base)"] =
    "what lgprof --diff prints (an illustration)",
  ["lgprof --format=FMT [options] [image-file [profile-file...]]"] = "a synopsis",
  ["lgprof --annotate-lines[=FILE] [options] [image-file [profile-file...]]"] = "a synopsis",
  ["lgprof --annotate-asm[=RE] [options] [image-file [profile-file...]]"] = "a synopsis",
  ["{"] = "the JSON schema, annotated with // comments",
  ["lgprof record -- ./myprog input.txt          # perf record, then the report"] =
    "needs perf, which make deps does not install (record_spec runs lgprof record where perf can)",
  ["files ──> image (read/elfsym.c, read/srcinfo.c)        gmon (read/gmon.c)"] = "a diagram",
  ["index % time    self  children    called     name"] =
    "the gprof paper's call graph (doc/trust.md): docexample_spec compares it with lgprof's output",
  ["csrc/                 the C sources"] =
    "the folders' drawing (doc/internals.md; manual_spec checks it against the tree)",
  ["Flat profile with sampling error and attribution bounds"] =
    "what lgprof --format=text prints (an illustration)",
  ["gmon.out: Each sample counts as 0.01 seconds."] =
    "gmon.out's and perf.data's flat profiles side by side (an illustration)",
  ["Each sample is a stack of myprog from perf.data (wall): times are measured; a sampler counts no call, so gprof's call columns are blank."] =
    "what the flat profile of --event=wall says (an illustration; offcpu_spec checks it)",
  ["lgprof record --off-cpu -- ./myprog"] =
    "needs perf and root for the switches' stacks (offcpu_live_spec runs lgprof record --off-cpu where it can)",
  ["lgprof: perf.data: --time-range=40,50: outside the recording, whose samples run from 0 to 2.504113 s"
    .. " (perf's time 2582.421423 to 2584.925536)"] =
    "the message of a range outside the recording (an illustration; offcpu_spec checks it)",
  ["                0.07    0.00    1000/2000        easy [5]"] =
    "an excerpt of a combined call graph (an illustration; combine_spec checks the split live)",
}

-- A block (shell or Lua) naming perf.data runs with one, recorded of the
-- block's program (prog: { exe }) as myprog; nil and why not when perf
-- cannot record here. One recording per program for the whole file, made in
-- a folder of its own (in a subfolder: myprog writes a gmon.out) that is
-- kept to the end, since the recording names the program there, and copied
-- into each block's folder dir: any recording of the program serves every
-- example, and one per block cost a perf record each (ten blocks).
local recordings = {} -- exe -> { dir } or { why }
local function record_perf(dir, prog)
  if not util.have("perf") then return nil, "perf is not installed" end
  local r = recordings[prog.exe]
  if not r then
    local rdir = util.mktempdir("lgprof-readme-perf")
    -- (with the switch records, for doc/time.md's off-CPU and wall examples)
    local ok = util.exec_ok(("cd %s && cp %s myprog && mkdir -p perf-run && cd perf-run && perf record -q"
      .. " -e cpu-clock -F 999 -g --switch-events -o ../perf.data ../myprog >/dev/null 2>&1")
      :format(q(rdir), q(prog.exe)))
    r = ok and { dir = rdir } or { why = "perf record cannot run here" }
    if not ok then util.rmtree(rdir) end
    recordings[prog.exe] = r
  end
  if r.why then return nil, r.why end
  assert(util.exec_ok(("cp %s %s"):format(q(r.dir .. "/perf.data"), q(dir .. "/perf.data"))),
    "cannot copy the recording into " .. dir)
  return true
end

-- A block that runs pigz (README's perf example: `lgprof record -- pigz`,
-- a real program compressing in two threads with the system's libz) gets
-- its input, big.txt, in dir; nil and why not when pigz or perf cannot run.
local function pigz_input(dir)
  if not util.have("pigz") then return nil, "pigz is not installed (make deps-test installs it)" end
  if not util.have("perf") then return nil, "perf is not installed" end
  if not util.exec_ok("perf record -q -e cpu-clock -o /dev/null true >/dev/null 2>&1") then
    return nil, "perf record cannot run here"
  end
  assert(util.exec_ok(("cd %s && seq 3000000 > big.txt"):format(q(dir))), "cannot write big.txt")
  return true
end

-- Functions of the readme fixture that the demo does not have.
local FIXTURE_ONLY = { "parse", "lex", "work", "helper" }

--- The fenced blocks of a markdown file doc ({path, name}): { lang, line,
-- code, section, doc } in order; line is the number of the opening fence's
-- line, section the "## " heading above it ("" before the first one).
local function fenced_blocks(doc)
  local blocks, section, cur, n = {}, "", nil, 0
  for line in io.lines(doc.path) do
    n = n + 1
    if cur then
      if line:match("^```%s*$") then
        cur.code = table.concat(cur.lines, "\n") .. "\n"
        cur.first = cur.lines[1] or ""
        blocks[#blocks + 1], cur = cur, nil
      else
        cur.lines[#cur.lines + 1] = line
      end
    elseif line:match("^```") then
      cur = { lang = line:match("^```%s*(%S*)"), line = n, lines = {}, section = section, doc = doc.name }
    elseif line:match("^## ") then
      section = line
    end
  end
  assert(not cur, ("%s:%d: unterminated code block"):format(doc.name, cur and cur.line or 0))
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
      return ("assert((%s) == (%s), %q)"):format(expr, want, "the documentation shows: " .. l)
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
-- test's name), status}..., the lines not run, and those of them that
-- SKIPPED does not list.
local function shell_lines(code)
  local run, skipped, unknown = {}, {}, {}
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
        local word = command:match("^%S+")
        skipped[#skipped + 1] = command
        if not SKIPPED[word] then
          unknown[#unknown + 1] = ("`%s` (%s is neither an lgprof command nor in readme_spec's"
            .. " SKIPPED with a reason)"):format(command, word)
        end
      end
    end
  end
  return run, skipped, unknown
end

local blocks = {}
for _, doc in ipairs(DOCS) do
  for _, b in ipairs(fenced_blocks(doc)) do blocks[#blocks + 1] = b end
end

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
      if s.lang == "lua" and s.doc == b.doc and s.section == b.section and not is_fragment(s.code) then
        b.setup = s
        break
      end
    end
  end
end

local built
local function fixture()
  built = built or assert(fx.build("readme", "O0g-pie"))
  return built
end

-- examples/demo.c as `make demo` builds and runs it: { exe, gmon = {g, g, g} }.
local demo_built
local function demo()
  if demo_built then return demo_built end
  local dir = fx.root .. "/build/readme-demo"
  local exe, gmon = dir .. "/demo", dir .. "/gmon.out"
  local script = table.concat({
    "cd " .. q(fx.root),
    "if [ -f " .. q(exe) .. " ] && [ " .. q(exe) .. " -nt examples/demo.c ] && [ -s " .. q(gmon)
      .. " ] && [ " .. q(gmon) .. " -nt " .. q(exe) .. " ]; then exit 0; fi",
    "rm -f " .. q(exe) .. " " .. q(gmon),
    "cc -O0 -g -pg -o " .. q(exe .. ".tmp") .. " examples/demo.c",
    "cd " .. q(dir) .. " && ./demo.tmp >/dev/null && mv -f demo.tmp demo && touch gmon.out",
  }, " && ")
  -- (serialised with flock where there is one: two suites may run at once)
  local lock = util.have("flock") and "flock " .. q(dir .. "/.lock") .. " " or ""
  assert(util.exec_ok("mkdir -p " .. q(dir) .. " && " .. lock .. "sh -c " .. q(script)),
    "cannot build and run examples/demo.c in " .. dir)
  demo_built = { exe = exe, gmon = { gmon, gmon, gmon } }
  return demo_built
end

--- A fresh folder with the program b ({exe, gmon}), its profiles and the
-- named files under the names the examples use. The copies are written
-- from here rather than by cp: a process costs this machine 4 to 10 ms of
-- CPU, and the eleven cp's of each of the file's 125 tests were about a
-- tenth of its CPU time; the executables' mode is set by one chmod.
local contents = {} -- path -> its bytes, read once
local function content(path)
  contents[path] = contents[path] or assert(util.slurp(path), "cannot read " .. path)
  return contents[path]
end
local function workdir(b)
  local dir = util.mktempdir("lgprof-readme")
  util.mkdir(dir .. "/old")
  local copies = {
    { b.exe, "myprog" }, { b.exe, "prog" }, { b.exe, "a.out" }, { b.exe, "old/myprog" },
    { b.gmon[1], "gmon.out" }, { b.gmon[1], "old/gmon.out" },
    { b.gmon[1], "before.gmon" }, { b.gmon[1], "after.gmon" },
  }
  for r = 1, 3 do copies[#copies + 1] = { b.gmon[r], "gmon." .. r } end
  for _, c in ipairs(copies) do util.spit(dir .. "/" .. c[2], content(c[1])) end
  assert(util.exec_ok("cd " .. q(dir) .. " && chmod 755 myprog prog a.out old/myprog && ln -s "
    .. q(fx.root .. "/examples") .. " examples"), "cannot set up " .. dir)
  for name, code in pairs(named) do cmd.write(dir .. "/" .. name, code) end
  return dir
end

--- Runs one lgprof command line of the documentation in dir: nil if it exited as
-- expected, else what went wrong.
local function run_shell_line(dir, l)
  -- the shell splits and expands the words in dir; lgprof runs through helpers.cmd
  local expanded = util.read_cmd("cd " .. q(dir) .. " && set -- " .. l.command
    .. " && printf '%s\\0' \"$@\"")
  local words = {}
  for w in expanded:gmatch("([^\0]*)\0") do words[#words + 1] = w end
  if #words == 0 then return "the shell could not expand: " .. l.command end
  local status, out, err = cmd.lgprof({ table.unpack(words, 2) }, { cwd = dir })
  -- lgprof record says on stderr how large its recording came out (its
  -- one line: the documented behaviour, not a complaint)
  if words[2] == "record" then err = err:gsub("^lgprof: recorded [^\n]* in [^\n]*\n$", "") end
  if status ~= l.status or (l.status == 0 and err ~= "") then
    return ("%s\nexpected status %d%s\n%s"):format(l.command, l.status,
      l.status == 0 and " and no stderr" or "", cmd.show(status, out, err))
  end
end

local function where(b) return ("%s:%d (%s)"):format(b.doc, b.line, b.lang) end

--- Does the Lua block (or its setup) name a function only the fixture has?
local function fixture_only(b)
  local function uncommented(code) return (code:gsub("%-%-[^\n]*", "")) end
  local code = uncommented(b.code) .. (b.setup and uncommented(b.setup.code) or "")
  for _, name in ipairs(FIXTURE_ONLY) do
    if code:find("%f[%w_]" .. name .. "%f[^%w_]") then return true end
  end
  return false
end

--- Runs Lua block b in a fresh folder holding program prog.
local function run_lua_block(b, prog)
  local dir = workdir(prog)
  finally(function() util.rmtree(dir) end)
  if (b.code .. (b.setup and b.setup.code or "")):find("perf.data", 1, true) then
    local recorded, why = record_perf(dir, prog) -- (as for a shell block naming it)
    if not recorded then return pending(why) end
  end
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
    what = what .. ("\n(lines 1-%d are %s:%d's block: the example's line N"
      .. " is line N+%d)"):format(shift, b.setup.doc, b.setup.line, shift)
  end
  assert(status == 0 and err == "", what)
  -- a line "nil" is a look-up that found nothing (a lookup of an address
  -- the program does not have): the example shows nothing useful
  assert(not ("\n" .. out):find("\nnil\n"), "the example printed nil\n" .. what)
  if b.command then
    local run = shell_lines(b.command)
    assert(#run == 1, "not an lgprof command line: " .. b.command)
    local failed = run_shell_line(dir, run[1])
    assert(not failed, failed)
  end
end

describe("README and doc/ examples", function()
  teardown(function()
    for _, r in pairs(recordings) do if r.dir then util.rmtree(r.dir) end end
  end)
  it("has Lua and shell examples", function()
    local n = { lua = 0, sh = 0 }
    for _, b in ipairs(blocks) do n[b.lang] = (n[b.lang] or 0) + 1 end
    assert.is_true(n.lua > 0 and n.sh > 0, "no ```lua or ```sh block found in README.md or doc/")
  end)

  it("reads README.md and the manual's files", function()
    local names = {}
    for _, d in ipairs(DOCS) do names[d.name] = true end
    for _, f in ipairs({ "README.md", "doc/command.md", "doc/scripting.md", "doc/trust.md",
      "doc/formats.md", "doc/performance.md", "doc/internals.md" }) do
      assert.is_true(names[f], f .. " is not read")
    end
  end)

  it("lists no block in NOT_RUN that README.md and doc/ do not hold", function()
    local firsts = {}
    for _, b in ipairs(blocks) do firsts[b.first] = true end
    for first in pairs(NOT_RUN) do
      assert.is_true(firsts[first] == true, "NOT_RUN names no block of README.md or doc/: " .. first)
    end
  end)

  for _, b in ipairs(blocks) do
    if b.lang == "lua" then
      local name = where(b) .. (b.file and " " .. b.file or "")
        .. (b.setup and (" after %s:%d"):format(b.setup.doc, b.setup.line) or "")
        .. (b.command and "; " .. b.command or "")
      it(name, function() run_lua_block(b, fixture()) end)
      if not fixture_only(b) then
        it(name .. " on the demo", function() run_lua_block(b, demo()) end)
      end
    elseif b.lang == "sh" then
      local run, skipped, unknown = shell_lines(b.code)
      local texts = {}
      for i, l in ipairs(run) do texts[i] = l.text end
      local why = {}
      for i, c in ipairs(skipped) do why[i] = c .. ": " .. (SKIPPED[c:match("^%S+")] or "?") end
      local name = where(b) .. ": " .. table.concat(texts, "; ")
        .. (#skipped > 0 and " (not run: " .. table.concat(why, "; ") .. ")" or "")
      if #unknown > 0 then
        it(where(b) .. " has commands that are neither run nor listed", function()
          error(table.concat(unknown, "\n"), 0)
        end)
      elseif #run == 0 then
        pending(where(b) .. " not run: " .. table.concat(why, "; "))
      else
        it(name, function()
          local dir = workdir(fixture())
          finally(function() util.rmtree(dir) end)
          if b.code:find("perf.data", 1, true) then
            local recorded, why = record_perf(dir, fixture())
            if not recorded then return pending(why) end
          end
          if b.code:find("%f[%w]pigz ") then
            local ready, why = pigz_input(dir)
            if not ready then return pending(why) end
          end
          -- every line runs (in order, later ones may use earlier ones' files);
          -- all the failures are reported
          local failures = {}
          for _, l in ipairs(run) do failures[#failures + 1] = run_shell_line(dir, l) end
          assert(#failures == 0, table.concat(failures, "\n\n"))
        end)
      end
    elseif NOT_RUN[b.first] then
      pending(where(b) .. " not run: " .. NOT_RUN[b.first])
    else
      it(where(b) .. " is run or listed in NOT_RUN", function()
        error(("%s:%d: a ```%s block, neither ```lua nor ```sh, and not in readme_spec's"
          .. " NOT_RUN (first line %q): make it runnable or list it with the reason")
          :format(b.doc, b.line, b.lang, b.first), 0)
      end)
    end
  end
end)
