-- The manual against the program and the tree: the man page doc/lgprof.1
-- renders with no groff warning, has the sections a man page needs, its
-- OPTIONS section is what the option registry gives (spec/helpers/docgen.lua
-- through lgprof.cli.help.roff) and names exactly the options that `lgprof
-- --help` and the modes' --help name, and its EXAMPLES are command lines
-- that the markdown files show (and readme_spec runs); doc/command.md's
-- option table is what the registry gives (help.markdown), -B included;
-- doc/trust.md's table of the doctor's findings has a row for each one the
-- doctor's sources can report; doc/internals.md's folder drawing
-- names only folders that exist, and every folder of csrc/ and lua/;
-- doc/install.md's Debian package lists are the Makefile's.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local docgen = require "helpers.docgen"

local q = util.q
local MAN = cmd.ROOT .. "/doc/lgprof.1"
local BEGIN, END = docgen.MAN_BEGIN, docgen.MAN_END

-- The --help texts whose options the man page lists: the command's and each
-- mode's (their usages: messages_spec).
local HELPS = {
  { "--help" }, { "check", "--help" }, { "merge", "--help" }, { "doctor", "--help" },
  { "record", "--help" },
  { "--diff", "x", "--help" }, { "--script", "x", "--help" },
}

--- The option words of a text: "-x" and "--long-name", where they start a
-- word (not "image-file"'s "-file"), without "=VALUE" or "[...]".
local function option_words(text)
  local set = {}
  for o in text:gmatch("%f[%w-]%-%-?%a[%w-]*") do set[o] = true end
  return set
end

--- Man page source as the words a reader sees: font changes dropped, \- a dash.
local function plain(roff)
  return (roff:gsub("\\f[BIRP]", ""):gsub("\\%-", "-"):gsub("\\&", ""):gsub("\\c", "")
    :gsub("\\%(aq", "'"):gsub("\\%(dq", '"'))
end

local function sorted_keys(set)
  local list = {}
  for k in pairs(set) do list[#list + 1] = k end
  table.sort(list)
  return list
end

--- The names in a that are not in b.
local function missing(a, b)
  local list = {}
  for _, k in ipairs(sorted_keys(a)) do
    if not b[k] then list[#list + 1] = k end
  end
  return list
end

local function man_text()
  return assert(util.slurp(MAN), "cannot read " .. MAN)
end

describe("the man page doc/lgprof.1", function()
  it("renders with groff -ww -man with no warning", function()
    assert.is_true(util.have("groff"), "groff is not installed (make deps: groff-base)")
    local status, out, err = cmd.shell("groff -ww -man -z " .. q(MAN))
    assert.are.equal(0, status, cmd.show(status, out, err))
    assert.are.equal("", err)
  end)

  it("renders as text with man -l, titled LGPROF(1)", function()
    if not util.have("man") then return pending("man not installed (make deps: man-db)") end
    local status, out, err = cmd.shell("MANWIDTH=80 man -l " .. q(MAN) .. " | cat")
    assert.are.equal(0, status, cmd.show(status, out, err))
    assert.are.equal("", err)
    assert.matches("^LGPROF%(1%)", out)
  end)

  it("is titled LGPROF(1) with lgprof.VERSION", function()
    local version = require("lgprof").VERSION
    local th = assert(man_text():match("\n%.TH ([^\n]+)"), "no .TH line")
    assert.matches('^LGPROF 1 %d+ "lgprof ' .. version:gsub("%.", "%%.") .. '" ', th)
  end)

  it("has the sections of a man page, in order", function()
    local text, last = man_text(), 0
    for _, name in ipairs({ "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS",
      "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO" }) do
      local at = text:find("\n%.SH \"?" .. name .. "\"?\n")
      assert.is_truthy(at, "no .SH " .. name)
      assert.is_true(at > last, name .. " out of order")
      last = at
    end
  end)

  it("names GPROF_PATH and LGPROF_BUILD, and gprof(1) and perf(1) under SEE ALSO", function()
    local text = man_text()
    local env = text:match("\n%.SH ENVIRONMENT\n(.-)\n%.SH ")
    assert.is_truthy(env and env:find("GPROF_PATH", 1, true), "ENVIRONMENT: GPROF_PATH")
    assert.is_truthy(env:find("LGPROF_BUILD", 1, true), "ENVIRONMENT: LGPROF_BUILD")
    local see = assert(text:match("\n%.SH SEE ALSO\n(.-)\n%.SH "), "no SEE ALSO")
    assert.matches("%.BR gprof %(1%)", see)
    assert.matches("%.BR perf %(1%)", see)
  end)

  it("gives the exit statuses --help gives", function()
    local _, help = cmd.lgprof({ "--help" })
    local statuses = assert(help:match("Exit status: ([^\n]+)"), help)
    local section = assert(man_text():match("\n%.SH EXIT STATUS\n(.-)\n%.SH "))
    for n in statuses:gmatch("(%d) ") do
      assert.is_truthy(section:find("\n.B " .. n .. "\n", 1, true) or section:find("^.TP\n.B " .. n .. "\n"),
        "EXIT STATUS lacks " .. n)
    end
  end)

  it("shows in EXAMPLES only lgprof command lines that README.md or doc/*.md show (readme_spec runs those)", function()
    local examples = assert(man_text():match("\n%.SH EXAMPLES\n(.-)\n%.SH "), "no EXAMPLES")
    local shown = {}
    local files = { "README.md" }
    for _, f in ipairs(util.ls(cmd.ROOT .. "/doc")) do
      if f:match("%.md$") then files[#files + 1] = "doc/" .. f end
    end
    for _, f in ipairs(files) do
      local text = assert(util.slurp(cmd.ROOT .. "/" .. f))
      for block in text:gmatch("\n```sh\n(.-)```\n") do
        for line in block:gmatch("[^\n]+") do
          shown[(line:gsub("%s+#.*$", ""):gsub("%s+$", ""))] = true
        end
      end
    end
    local n = 0
    for nf in examples:gmatch("\n%.nf\n(.-)\n%.fi\n") do
      for line in plain(nf):gmatch("[^\n]+") do
        if line:match("^lgprof ") then
          n = n + 1
          assert.is_true(shown[line] == true, "not shown in README.md or doc/: " .. line)
        end
      end
    end
    assert.is_true(n >= 5, "too few lgprof lines in EXAMPLES")
  end)

  it("has its OPTIONS between the BEGIN and END GENERATED OPTIONS comments", function()
    local text = man_text()
    local b, e = text:find("\n" .. BEGIN .. "\n", 1, true), text:find("\n" .. END .. "\n", 1, true)
    assert.is_truthy(b, BEGIN)
    assert.is_truthy(e, END)
    assert.is_true(b < e)
    assert.is_nil(text:find(BEGIN, b + 2, true), "two BEGIN lines")
    local opts = text:find("\n.SH OPTIONS\n", 1, true)
    local after = text:find("\n.SH ", opts + 1, true)
    assert.is_true(opts < b and e < after, "the markers are not inside OPTIONS")
  end)

  it("lists in OPTIONS exactly the options of lgprof --help and of the modes' --help", function()
    local text = man_text()
    local section = assert(text:match("\n" .. BEGIN:gsub("%p", "%%%0") .. "\n(.-)\n"
      .. END:gsub("%p", "%%%0") .. "\n"))
    local in_man = option_words(plain(section))
    local in_help = {}
    for _, args in ipairs(HELPS) do
      local status, out, err = cmd.lgprof(args)
      assert.are.equal(0, status, table.concat(args, " ") .. ": " .. cmd.show(status, out, err))
      for o in pairs(option_words(out)) do in_help[o] = true end
    end
    assert.is_true(#sorted_keys(in_help) > 60, "too few options in --help")
    local not_in_man, not_in_help = missing(in_help, in_man), missing(in_man, in_help)
    assert(#not_in_man == 0 and #not_in_help == 0,
      ("--help names options OPTIONS does not: %s\nOPTIONS names options no --help does: %s")
        :format(table.concat(not_in_man, " "), table.concat(not_in_help, " ")))
  end)
end)

describe("the generated option lists", function()
  local REGENERATE = " (run `lua5.4 spec/helpers/docgen.lua` in the checkout to rewrite it)"

  --- The first line where a and b differ, for the failure message.
  local function first_difference(a, b)
    local la, lb = util.lines(a), util.lines(b)
    for i = 1, math.max(#la, #lb) do
      if la[i] ~= lb[i] then
        return ("line %d of the generated part: the file has %q, the registry gives %q")
          :format(i, tostring(la[i]), tostring(lb[i]))
      end
    end
    return "no line differs"
  end

  for _, f in ipairs(docgen.FILES) do
    it(f.path .. " holds between its markers exactly what the registry gives", function()
      local text = assert(util.slurp(cmd.ROOT .. "/" .. f.path))
      local part = docgen.between(text, f.first, f.last)
      assert(part, f.path .. ": no '" .. f.first .. "' ... '" .. f.last .. "' lines")
      local want = f.generate()
      assert(part == want, f.path .. ": " .. first_difference(part, want) .. REGENERATE)
      -- and splicing the generated text in leaves the file as it is
      assert.are.equal(text, assert(docgen.splice(text, f.first, f.last, want)))
    end)
  end

  it("have every option of the registry, -B and the doctor's --format included", function()
    local registry = require "lgprof.cli.registry"
    local md = docgen.markdown()
    local man = docgen.man()
    local rows = 0
    for line in md:gmatch("[^\n]+") do
      if line:match("^| `") then rows = rows + 1 end
    end
    assert.are.equal(#registry.OPTIONS, rows)
    assert.is_truthy(md:find("\n| `-B` | all | ", 1, true), "no -B row in the Markdown table")
    assert.is_truthy(md:find("\n| `--format=text\\|json` | doctor | ", 1, true), "no doctor --format row")
    local tp = select(2, man:gsub("\n%.TP\n", "\n"))
    assert.are.equal(#registry.OPTIONS + 1, tp) -- and @FILE
  end)

  it("refuse a registry group the man page has no section for", function()
    local registry = require "lgprof.cli.registry"
    local e = { long = "made-up", arg = "none", group = "made-up", modes = {}, help = "x" }
    registry.OPTIONS[#registry.OPTIONS + 1] = e
    local ok, err = pcall(docgen.man)
    table.remove(registry.OPTIONS)
    assert.is_false(ok)
    assert.matches("made%-up", err)
  end)

  it("splice refuses a file without its markers, or with two BEGIN lines", function()
    assert.is_nil((docgen.splice("a\nb\n", "B", "E", "x\n")))
    assert.is_nil((docgen.splice("a\nB\nE\nB\nE\n", "B", "E", "x\n")))
    assert.are.equal("a\nB\nx\nE\nz\n", docgen.splice("a\nB\ny\nE\nz\n", "B", "E", "x\n"))
  end)
end)

describe("doc/internals.md's folder drawing", function()
  -- The drawing: the fenced block whose first line is "csrc/ ...". Each
  -- line names a folder (NAME/) at its depth: 0 at the left margin, then one
  -- more per four-column step of "│   " or "    " before "├── " or "└── ".
  -- Other lines continue a description.
  local function drawn_folders()
    local text = assert(util.slurp(cmd.ROOT .. "/doc/internals.md"))
    local block = assert(text:match("\n```\n(csrc/ [^\n]*\n.-)```\n"), "no drawing starting with csrc/")
    local stack, folders = {}, {}
    for line in block:gmatch("([^\n]*)\n") do
      local depth, rest = 0, line
      local name = rest:match("^([%w_.-]+/)")
      if not name then
        while true do
          local r = rest:match("^│   (.*)$") or rest:match("^    (.*)$")
          if not r then break end
          depth, rest = depth + 1, r
        end
        name = rest:match("^├── ([%w_.-]+/)") or rest:match("^└── ([%w_.-]+/)")
        depth = depth + 1
      end
      if name then
        for i = depth + 1, #stack do stack[i] = nil end
        stack[depth + 1] = name
        folders[#folders + 1] = table.concat(stack):gsub("/$", "")
      end
    end
    return folders
  end

  it("names folders that exist", function()
    local folders = drawn_folders()
    assert.is_true(#folders >= 15, "too few folders read: " .. table.concat(folders, " "))
    for _, f in ipairs(folders) do
      assert.is_true(util.exec_ok("test -d " .. q(cmd.ROOT .. "/" .. f)), f .. " does not exist")
    end
  end)

  it("names every folder of csrc/ and lua/", function()
    local drawn = {}
    for _, f in ipairs(drawn_folders()) do drawn[f] = true end
    local out = util.read_cmd("cd " .. q(cmd.ROOT) .. " && find csrc lua -type d")
    local n = 0
    for f in out:gmatch("[^\n]+") do
      n = n + 1
      assert.is_true(drawn[f] == true, f .. " is not in doc/internals.md's drawing")
    end
    assert.is_true(n >= 10)
  end)
end)

describe("doc/install.md's package lists", function()
  --- The words of the Makefile's variable NAME: its "=" line, the lines it
  -- continues with "\", and its "+=" lines, comments dropped.
  local function make_words(makefile, name)
    local words, continued = {}, false
    for line in makefile:gmatch("([^\n]*)\n") do
      local value = continued and line or line:match("^" .. name .. "%s*%+?=%s*(.*)$")
      if value then
        value = value:gsub("#.*$", "")
        continued = value:match("\\%s*$") ~= nil
        for w in value:gsub("\\%s*$", ""):gmatch("%S+") do words[w] = true end
      else
        continued = false
      end
    end
    return words
  end

  it("are the Makefile's DEMO_PACKAGES and TEST_PACKAGES", function()
    local makefile = assert(util.slurp(cmd.ROOT .. "/Makefile"))
    local doc = assert(util.slurp(cmd.ROOT .. "/doc/install.md"))
    local lists = {}
    for line in doc:gmatch("\nsudo apt%-get install %-y ([^\n]+)") do
      local set = {}
      for w in line:gmatch("%S+") do set[w] = true end
      lists[#lists + 1] = set
    end
    assert.are.equal(2, #lists, "doc/install.md should have two apt-get lines")
    for i, name in ipairs({ "DEMO_PACKAGES", "TEST_PACKAGES" }) do
      local want = make_words(makefile, name)
      assert.is_true(#sorted_keys(want) > 5, name .. " not read from the Makefile")
      local absent, extra = missing(want, lists[i]), missing(lists[i], want)
      assert(#absent == 0 and #extra == 0, ("doc/install.md's %s line: missing %s; not in the Makefile %s")
        :format(name, table.concat(absent, " "), table.concat(extra, " ")))
    end
  end)
end)

describe("doc/trust.md's table of the doctor's findings", function()
  -- The IDs the doctor can report, read from its sources: each
  -- finding("ID", ...) of lgprof.analysis.doctor and each id the command
  -- sets itself (lgprof.cmd.doctor: data.id, ... = "ID").
  local function finding_ids()
    local ids = {}
    for _, f in ipairs({ "lua/lgprof/analysis/doctor.lua", "lua/lgprof/cmd/doctor.lua" }) do
      local src = assert(util.slurp(cmd.ROOT .. "/" .. f))
      for id in src:gmatch('finding%("([%w-]+)"') do ids[id] = true end
      for id in src:gmatch('data%.id[%w_., ]*=%s*"([%w-]+)"') do ids[id] = true end
    end
    return ids
  end

  it("has a row for every finding the doctor reports, and none for another", function()
    local ids = finding_ids()
    assert.is_true(#sorted_keys(ids) >= 14, "too few finding IDs read: "
      .. table.concat(sorted_keys(ids), " "))
    local doc = assert(util.slurp(cmd.ROOT .. "/doc/trust.md"))
    local rows = {}
    for id in doc:gmatch("\n| `([%w-]+)` | [%w ;]+ | ") do rows[id] = true end
    local undocumented, unknown = missing(ids, rows), missing(rows, ids)
    assert(#undocumented == 0 and #unknown == 0,
      ("doc/trust.md's doctor table: no row for %s; rows for no finding: %s")
        :format(table.concat(undocumented, " "), table.concat(unknown, " ")))
  end)
end)
