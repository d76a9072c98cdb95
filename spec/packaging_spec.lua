-- Packaging: the rockspec builds and installs a working command offline,
-- `make install` honours PREFIX and DESTDIR and the installed command finds
-- its modules wherever it is run from (another folder, a symlink, its bin/,
-- a staged tree moved into place), `--lua-env` lets any lua5.4 script
-- `require "lgprof"`, bin/lgprof.lua says "run make first" before make, the
-- core's archive holds every C source of csrc/core/, no build (make, make
-- install, luarocks make, make test) leaves a file git would see, and both
-- install the man page and the manual (make install: into PREFIX/share/man
-- and share/doc/lgprof, make uninstall removes them; LuaRocks: into the
-- rock's folder). Every path is quoted: the checkout and the temporary
-- folders may hold spaces, dashes and quotes.
-- The installed command runs with LUA_PATH and LUA_CPATH unset: only its own
-- knowledge of where it is can find the modules.
local H = require "helpers"
local util, cmd, fx = H.util, H.cmd, H.fixtures

local q = util.q
local NO_LUA_ENV = "unset LUA_PATH LUA_CPATH LUA_PATH_5_4 LUA_CPATH_5_4; "

-- A script that needs the module and the core: prints the flat profile's
-- first function (or "none") and the number of functions.
local SCRIPT = [[
local lgprof = require "lgprof"
local p = assert(lgprof.open(arg[1], arg[2]))
local n = 0
for _ in p:functions() do n = n + 1 end
print("functions " .. n, lgprof.VERSION)
]]

-- Runs a shell command line in the checkout; returns stdout and stderr
-- together, and the status.
local function sh(line, opts)
  local status, out, err = cmd.shell(line, opts)
  return out .. err, status
end

describe("packaging", function()
  local tmpdir = util.block_tmpdir("lgprof-packaging")

  -- (the rockspec once listed the C sources, and this test checked the list;
  -- luarocks now builds through the Makefile, whose list is a wildcard)
  it("archives every C source of csrc/core/ into build/liblgprof-core.a", function()
    local members, code = sh("ar t build/liblgprof-core.a | LC_ALL=C sort")
    assert.are.equal(0, code, members)
    local out
    out, code = sh("find csrc/core -name '*.c' | sed 's,.*/,,; s,[.]c$,.o,' | LC_ALL=C sort")
    assert.are.equal(0, code, out)
    assert.is_true(#util.lines(out) > 5)
    assert.are.equal(out, members)
  end)

  -- The fixture profile and GNU gprof's brief report of it (the oracle).
  local function fixture()
    local b = assert(fx.build("classic", "O0g-pie"))
    local status, out, err = cmd.gprof({ "-b", b.exe, b.gmon[1] })
    assert.are.equal(0, status, err)
    return b.exe, b.gmon[1], out
  end

  -- Runs `lgprof -b` (shell text) in cwd without Lua paths: its report must
  -- be gprof's.
  local function assert_report(lgprof, cwd)
    local exe, gmon, want = fixture()
    local status, out, err = cmd.shell(NO_LUA_ENV .. lgprof .. " -b " .. q(exe) .. " " .. q(gmon),
      { cwd = cwd })
    assert.are.equal(0, status, lgprof .. " in " .. cwd .. ": " .. cmd.show(status, out, err))
    assert.are.equal(want, out, lgprof .. " in " .. cwd)
  end

  -- The file at got exists and holds want's bytes.
  local function assert_same_file(want, got)
    local text = util.slurp(got)
    assert.is_truthy(text, got .. " missing")
    assert.is_true(text == assert(util.slurp(want)), got .. " differs from " .. want)
  end

  -- The man page and the manual under PREFIX (or a DESTDIR's prefix): the
  -- checkout's files, and `man -M PREFIX/share/man lgprof` shows the page.
  local function assert_docs(prefix)
    assert_same_file(cmd.ROOT .. "/doc/lgprof.1", prefix .. "/share/man/man1/lgprof.1")
    assert_same_file(cmd.ROOT .. "/README.md", prefix .. "/share/doc/lgprof/README.md")
    for _, f in ipairs(util.ls(cmd.ROOT .. "/doc")) do
      assert_same_file(cmd.ROOT .. "/doc/" .. f, prefix .. "/share/doc/lgprof/doc/" .. f)
    end
    if util.have("man") then
      local status, out, err = cmd.shell("MANWIDTH=80 man -M " .. q(prefix .. "/share/man") .. " lgprof | cat")
      assert.are.equal(0, status, cmd.show(status, out, err))
      assert.matches("^LGPROF%(1%)", out)
      assert.truthy(out:find("\nEXIT STATUS\n", 1, true), out)
    end
  end

  -- `eval "$(LGPROF --lua-env)"`, then lua5.4 runs SCRIPT from a folder
  -- with a space and a quote, keeping what LUA_PATH_5_4 held. Returns the
  -- --lua-env text.
  local function assert_lua_env(lgprof)
    local exe, gmon = fixture()
    local dir = util.mkdir(tmpdir() .. "/a 'quoted' folder")
    cmd.write(dir .. "/top script.lua", SCRIPT .. "print(package.path)\n")
    local status, env, err = cmd.shell(NO_LUA_ENV .. lgprof .. " --lua-env", { cwd = dir })
    assert.are.equal(0, status, cmd.show(status, env, err))
    local out
    status, out, err = cmd.shell(NO_LUA_ENV .. "export LUA_PATH_5_4='/kept/?.lua;;'; eval \"$("
      .. lgprof .. " --lua-env)\" && lua5.4 'top script.lua' " .. q(exe) .. " " .. q(gmon), { cwd = dir })
    assert.are.equal(0, status, lgprof .. " --lua-env:\n" .. env .. cmd.show(status, out, err))
    assert.are.equal("", err)
    assert.matches("^functions %d+\t%d+%.%d+%.%d+\n", out)
    assert.truthy(out:find("/kept/?.lua;", 1, true), out)
    return env
  end

  -- In a copy of the checkout made a git repository of its own (the
  -- checkout itself is shared with the specs running beside this one):
  -- luarocks make, make, make install and a make test run leave `git status
  -- --porcelain` empty and no object file outside build/; what luarocks
  -- installed works from any folder and holds exactly the Lua modules of
  -- lua/lgprof/.
  it("builds without dirtying the checkout (luarocks make, make, make install, make test), "
      .. "and luarocks make --tree (offline) installs a working lgprof", function()
    if not util.have("luarocks") then
      pending("luarocks not installed")
      return
    end
    local tree, src = util.mkdir(tmpdir() .. "/the tree"), util.mkdir(tmpdir() .. "/a source-copy")
    -- The core's objects and archive are copied from the checkout's build/
    -- (which make test has just brought up to date) with the sources' times
    -- kept (cp -p), so that the copy's make finds them up to date: luarocks
    -- make compiles the binding (csrc/lua/, the one layer that needs the
    -- Lua headers the rockspec finds), links core.so and installs, and the
    -- copy's make compiles the command's own objects; the core's sources are
    -- compiled by the same rule in every make (make test's own, just before).
    -- Compiling the core again here, at -O0, cost 20 of the spec's 47 s of CPU.
    -- (not under make test-asan, LGPROF_BUILD: its build-asan/ is
    -- instrumented, and build/ may be older than the sources)
    local build_env = os.getenv("LGPROF_BUILD")
    local seeded = (build_env == nil or build_env == "") and util.exec_ok("test -f build/liblgprof-core.a")
    local out, code = sh("git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "
      .. q(src) .. (seeded and " && mkdir -p " .. q(src .. "/build/obj") .. " && cp -a build/obj/core "
      .. q(src .. "/build/obj/") .. " && cp -p build/liblgprof-core.a build/liblgprof-core.libs "
      .. q(src .. "/build/") or ""))
    assert.are.equal(0, code, out)
    local git = "git -c user.name=spec -c user.email=spec@localhost -c init.defaultBranch=main "
    out, code = sh(git .. "init -q && " .. git .. "add -A && " .. git .. "commit -q -m copy", { cwd = src })
    assert.are.equal(0, code, out)
    local function assert_clean(after)
      local status, o, e = cmd.shell("git status --porcelain --untracked-files=all", { cwd = src })
      assert.are.equal(0, status, e)
      assert.are.equal("", o, "after " .. after .. ", git status --porcelain says")
      status, o, e = cmd.shell("find . -path ./build -prune -o -path ./.git -prune -o -name '*.o' -print",
        { cwd = src })
      assert.are.equal(0, status, e)
      assert.are.equal("", o, "object files outside build/ after " .. after)
    end
    -- under make test-asan, lua5.4 on PATH is a wrapper that preloads ASan
    -- (LGPROF_REAL_LUA names the interpreter): luarocks needs the real prefix
    local real = os.getenv("LGPROF_REAL_LUA")
    local words = { "luarocks", "--lua-version=5.4" }
    if real then words[#words + 1] = "--lua-dir=" .. real:gsub("/bin/[^/]*$", "") end
    -- (compiled without optimisation: what this checks is that the rockspec
    -- builds, installs and leaves the copy clean, which -O2 does not change;
    -- with luarocks's own CFLAGS, -O2 -fPIC, the spec took 56 s of CPU, 44 s
    -- with these)
    for _, w in ipairs({ "make", "--tree", tree, "lgprof-scm-1.rockspec", "CFLAGS=-O0 -fPIC" }) do
      words[#words + 1] = w
    end
    out, code = sh(util.qwords(words), { cwd = src })
    assert.are.equal(0, code, out)
    if seeded then -- (the copied core was up to date; the binding was compiled)
      assert.is_nil(out:find(" -c csrc/core/", 1, true), "the core compiled again (build/ older than"
        .. " the sources? make test runs make first):\n" .. out)
      assert.truthy(out:find(" -c csrc/lua/", 1, true), out)
    end
    assert_clean("luarocks make")
    local v, vcode = sh(q(tree .. "/bin/lgprof") .. " --version", { cwd = tmpdir() })
    assert.are.equal(0, vcode, v)
    assert.matches("GNU gprof", v)
    local h = sh(q(tree .. "/bin/lgprof") .. " --help")
    assert.matches("Usage: lgprof", h)
    assert_report(q(tree .. "/bin/lgprof"), tmpdir())
    local env = assert_lua_env(q(tree .. "/bin/lgprof"))
    assert.truthy(env:find(tree .. "/share/lua/5.4/?.lua;", 1, true), env)
    -- the manual and the man page, copied into the rock's folder (copy_directories)
    local rockdir = tree .. "/lib/luarocks/rocks-5.4/lgprof/scm-1"
    assert_same_file(cmd.ROOT .. "/doc/lgprof.1", rockdir .. "/doc/lgprof.1")
    assert_same_file(cmd.ROOT .. "/doc/scripting.md", rockdir .. "/doc/scripting.md")
    -- the Lua modules installed: exactly those of lua/lgprof/, and the core
    local installed = sh("find . -name '*.lua' | sed 's,^[.]/,,' | LC_ALL=C sort", { cwd = tree .. "/share/lua/5.4/lgprof" })
    local modules = sh("find . -name '*.lua' | sed 's,^[.]/,,' | LC_ALL=C sort", { cwd = cmd.ROOT .. "/lua/lgprof" })
    assert.is_true(#util.lines(modules) > 5)
    assert.are.equal(modules, installed)
    assert.is_truthy(io.open(tree .. "/lib/lua/5.4/lgprof/core.so"), "core.so installed")

    -- (without LGPROF_BUILD, which names the checkout's build under make test-asan, and
    -- without the make running this spec's flags)
    local plain = "unset LGPROF_BUILD LGPROF_SANITIZER MAKEFLAGS MFLAGS MAKELEVEL; "
    out, code = sh(plain .. "make -j2", { cwd = src })
    assert.are.equal(0, code, out)
    assert_clean("make")
    out, code = sh(plain .. util.qwords({ "make", "install", "PREFIX=" .. tmpdir() .. "/copy's prefix" }),
      { cwd = src })
    assert.are.equal(0, code, out)
    assert_clean("make install")
    -- a spec that builds a fixture program, runs it (gmon.out) and the
    -- examples that read it and write a page (examples_spec runs them all
    -- on its own; here each program it builds cost 2 to 3 s of CPU)
    out, code = sh(plain .. "make test BUSTED_ARGS='spec/examples_spec.lua --filter=hotspots --filter=htmlview'",
      { cwd = src })
    assert.are.equal(0, code, out)
    -- (the two examples named: a filter that matched none would pass)
    assert.matches("\n2 passed, 0 failed, 0 skipped\n$", out)
    assert_clean("make test")
  end)

  it("make install to a PREFIX with a space and a quote: runs from another folder, a symlink and its bin/", function()
    local prefix = tmpdir() .. "/it's a prefix"
    local out, code = sh(util.qwords({ "make", "install", "PREFIX=" .. prefix }))
    assert.are.equal(0, code, out)
    assert_docs(prefix)
    local elsewhere = util.mkdir(tmpdir() .. "/somewhere else")
    local link = util.mkdir(elsewhere .. "/links") .. "/lg"
    assert.are.equal(0, select(2, sh("ln -s " .. q(prefix .. "/bin/lgprof") .. " " .. q(link))))
    assert_report(q(prefix .. "/bin/lgprof"), elsewhere)
    assert_report(q(link), elsewhere)
    assert_report("links/lg", elsewhere)
    assert_report("./lgprof", prefix .. "/bin")
    -- scripts find the installed modules, whichever name ran --lua-env
    local env = assert_lua_env(q(link))
    assert.truthy(env:find(prefix:gsub("'", [['\'']]) .. "/share/lua/5.4/?.lua;", 1, true), env)
    -- make uninstall takes the man page and the manual away too
    out, code = sh(util.qwords({ "make", "uninstall", "PREFIX=" .. prefix }))
    assert.are.equal(0, code, out)
    for _, f in ipairs({ "/share/man/man1/lgprof.1", "/share/doc/lgprof", "/bin/lgprof" }) do
      assert.is_false(util.exec_ok("test -e " .. q(prefix .. f)), prefix .. f .. " left behind")
    end
  end)

  it("make install with DESTDIR: the staged tree, moved into place, runs and finds its modules", function()
    local stage = util.mkdir(tmpdir() .. "/stage dir")
    local out, code = sh(util.qwords({ "make", "install", "DESTDIR=" .. stage, "PREFIX=/opt/lgp" }))
    assert.are.equal(0, code, out)
    local prefix = stage .. "/opt/lgp"
    for _, f in ipairs({ "/lib/lua/5.4/lgprof/core.so", "/share/lua/5.4/lgprof/init.lua",
                         "/share/lua/5.4/lgprof/cli/main.lua", "/bin/lgprof" }) do
      assert.is_truthy(io.open(prefix .. f), prefix .. f)
    end
    assert_docs(prefix)
    local moved = tmpdir() .. "/moved here"
    assert.are.equal(0, select(2, sh("mv " .. q(prefix) .. " " .. q(moved))))
    assert_report(q(moved .. "/bin/lgprof"), tmpdir())
    local env = assert_lua_env(q(moved .. "/bin/lgprof"))
    assert.truthy(env:find(moved .. "/lib/lua/5.4/?.so;", 1, true), env)
  end)

  it("bin/lgprof.lua and require 'lgprof' before make: one line saying to run make first", function()
    local src = util.mkdir(tmpdir() .. "/a fresh-copy")
    local out, code = sh("git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "
      .. q(src))
    assert.are.equal(0, code, out)
    local exe, gmon = fixture()
    -- (without LGPROF_BUILD, which names the checkout's build under make test-asan)
    for _, c in ipairs({ { "lua5.4 bin/lgprof.lua", src }, { "lua5.4 " .. q(src .. "/bin/lgprof.lua"), tmpdir() },
                         { "./bin/lgprof.lua", src } }) do
      local status, o, e = cmd.shell(NO_LUA_ENV .. "unset LGPROF_BUILD; " .. c[1] .. " -b " .. q(exe) .. " "
        .. q(gmon), { cwd = c[2] })
      -- (status 2: lgprof cannot run; no pointer to --help, which cannot run either)
      assert.are.equal(2, status, cmd.show(status, o, e))
      assert.are.equal("", o)
      assert.matches("^lgprof: the C core is not built %(.*%): run make first\n$", e)
    end
    cmd.write(tmpdir() .. "/needs.lua", SCRIPT)
    local status, o, e = cmd.shell(NO_LUA_ENV .. "LUA_PATH_5_4=" .. q(src .. "/lua/?.lua;" .. src
      .. "/lua/?/init.lua;;") .. " lua5.4 needs.lua", { cwd = tmpdir() })
    assert.are.equal(1, status, e)
    assert.matches("^[^\n]*needs%.lua:1: lgprof%.core not found: run make first %(or set LUA_CPATH: see "
      .. "bin/lgprof %-%-lua%-env%)\n", e)
    assert.is_nil(e:find("no file", 1, true), e)
    assert.are.equal("", o)
  end)

  it("eval \"$(bin/lgprof --lua-env)\" lets lua5.4 run a script requiring lgprof from any folder", function()
    local env = assert_lua_env(cmd.LGPROF_CMD)
    assert.truthy(env:find(cmd.ROOT:gsub("'", [['\'']]) .. "/lua/?.lua;", 1, true), env)
    assert_lua_env("lua5.4 " .. q(cmd.ROOT .. "/bin/lgprof.lua"))
    local status, out, err = cmd.lgprof({ "--lua-env", "extra" })
    assert.are.equal("--lua-env takes no other argument", cmd.one_line_error(2, status, out, err))
  end)

  it("--script: a script requires a C module (cjson) in the executable", function()
    if not util.exec_ok("lua5.4 -e 'require \"cjson\"' >/dev/null 2>&1") then
      pending("lua-cjson not installed")
      return
    end
    local exe, gmon = fixture()
    local script = cmd.write(tmpdir() .. "/json.lua", [[
local cjson = require "cjson"
local profile = require("lgprof").script(...)
print(cjson.encode({ opened = profile.total_time >= 0 }))
]])
    local status, out, err = cmd.lgprof({ "--script", script, exe, gmon })
    assert.are.equal(0, status, cmd.show(status, out, err))
    assert.are.equal('{"opened":true}\n', out)
  end)

  it("runs from the checkout however the command is named (bin/lgprof, ./bin/lgprof, a full path)", function()
    -- LUA_PATH/LUA_CPATH emptied of lgprof so only the checkout can supply the modules
    local env = "env LUA_PATH_5_4=';;' LUA_CPATH_5_4=';;' "
    for _, c in ipairs({ { "bin/lgprof" }, { "./bin/lgprof" }, { q(cmd.LGPROF) },
                         { "../bin/lgprof", cwd = cmd.ROOT .. "/spec" } }) do
      local v, code = sh(env .. c[1] .. " --version", { cwd = c.cwd })
      assert.are.equal(0, code, c[1] .. ": " .. v)
      assert.matches("lgprof", v, 1, true)
    end
  end)
end)
