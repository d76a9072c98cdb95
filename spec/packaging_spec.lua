-- Packaging: the rockspec builds and installs a working command offline,
-- `make install` honours PREFIX and DESTDIR, and the rockspec lists every
-- C source of the core. Every path is quoted: the checkout and the temporary
-- folders may hold spaces and dashes.
local H = require "helpers"
local util, cmd = H.util, H.cmd

local q = util.q

-- Runs a shell command line in the checkout; returns stdout and stderr
-- together, and the status.
local function sh(line, opts)
  local status, out, err = cmd.shell(line, opts)
  return out .. err, status
end

describe("packaging", function()
  local tmpdir = util.block_tmpdir("lgprof-packaging")

  it("lists every csrc/*.c file in the rockspec", function()
    local rock = assert(util.slurp(cmd.ROOT .. "/lgprof-scm-1.rockspec"))
    local listed = {}
    for f in rock:gmatch('"(csrc/[%w_/]+%.c)"') do listed[f] = true end
    -- (csrc/fuzz/ holds the libFuzzer harnesses, not the core)
    local out, code = sh("find csrc -name '*.c' -not -path 'csrc/fuzz/*'")
    assert.are.equal(0, code, out)
    local n = 0
    for f in out:gmatch("[^\n]+") do
      n = n + 1
      assert.is_true(listed[f] ~= nil, f .. " missing from the rockspec")
    end
    assert.is_true(n > 5)
  end)

  it("installs a working lgprof with luarocks make --tree (offline)", function()
    if not util.have("luarocks") then
      pending("luarocks not installed")
      return
    end
    local tree, src = util.mkdir(tmpdir() .. "/the tree"), util.mkdir(tmpdir() .. "/a source-copy")
    -- build from a copy so the checkout stays clean of luarocks' objects
    local out, code = sh("git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "
      .. q(src))
    assert.are.equal(0, code, out)
    -- under make test-asan, lua5.4 on PATH is a wrapper that preloads ASan
    -- (LGPROF_REAL_LUA names the interpreter): luarocks needs the real prefix
    local real = os.getenv("LGPROF_REAL_LUA")
    local words = { "luarocks", "--lua-version=5.4" }
    if real then words[#words + 1] = "--lua-dir=" .. real:gsub("/bin/[^/]*$", "") end
    for _, w in ipairs({ "make", "--tree", tree, "lgprof-scm-1.rockspec" }) do words[#words + 1] = w end
    out, code = sh(util.qwords(words), { cwd = src })
    assert.are.equal(0, code, out)
    local v, vcode = sh(q(tree .. "/bin/lgprof") .. " --version")
    assert.are.equal(0, vcode, v)
    assert.matches("GNU gprof", v)
    local h = sh(q(tree .. "/bin/lgprof") .. " --help")
    assert.matches("Usage: lgprof", h)
  end)

  it("make install honours PREFIX and DESTDIR", function()
    -- (no blank in DESTDIR: the Makefile's install recipe does not quote it)
    local stage = util.mkdir(tmpdir() .. "/stage-1")
    local out, code = sh(util.qwords({ "make", "install", "DESTDIR=" .. stage, "PREFIX=/opt/lgp" }))
    assert.are.equal(0, code, out)
    local prefix = stage .. "/opt/lgp"
    for _, f in ipairs({ "/lib/lua/5.4/lgprof/core.so", "/share/lua/5.4/lgprof/init.lua",
                         "/share/lua/5.4/lgprof/cli.lua", "/bin/lgprof" }) do
      assert.is_truthy(io.open(prefix .. f), prefix .. f)
    end
    local v, vcode = sh(("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s %s -v"):format(
      q(prefix .. "/share/lua/5.4/?.lua;" .. prefix .. "/share/lua/5.4/?/init.lua;;"),
      q(prefix .. "/lib/lua/5.4/?.so;;"), q(prefix .. "/bin/lgprof")))
    assert.are.equal(0, vcode, v)
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
