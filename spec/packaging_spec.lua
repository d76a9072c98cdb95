-- Packaging: the rockspec builds and installs a working command offline,
-- `make install` honours PREFIX and DESTDIR, and the rockspec lists every
-- C source of the core.
local function sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. d))
  return d
end

describe("packaging", function()
  it("lists every csrc/core/*.c and csrc/lua/*.c file in the rockspec", function()
    local rock = assert(io.open("lgprof-scm-1.rockspec")):read("a")
    local listed = {}
    for f in rock:gmatch('"(csrc/[%w_]+/[%w_]+%.c)"') do listed[f] = true end
    local n = 0
    for f in sh("ls csrc/core/*.c csrc/lua/*.c"):gmatch("%S+") do
      n = n + 1
      assert.is_true(listed[f] ~= nil, f .. " missing from the rockspec")
    end
    assert.is_true(n > 5)
  end)

  it("installs a working lgprof with luarocks make --tree (offline)", function()
    if sh("command -v luarocks") == "" then
      pending("luarocks not installed")
      return
    end
    local tree, src = tmpdir(), tmpdir()
    -- build from a copy so the checkout stays clean of luarocks' objects
    assert(os.execute(("git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t %s"):format(src)))
    -- under make test-asan, lua5.4 on PATH is a wrapper that preloads ASan
    -- (LGPROF_REAL_LUA names the interpreter): luarocks needs the real prefix
    local real = os.getenv("LGPROF_REAL_LUA")
    local luadir = real and (" --lua-dir=" .. real:gsub("/bin/[^/]*$", "")) or ""
    local out, code = sh(("cd %s && luarocks --lua-version=5.4%s make --tree %s lgprof-scm-1.rockspec")
      :format(src, luadir, tree))
    assert.are.equal(0, code, out)
    local v, vcode = sh(tree .. "/bin/lgprof --version")
    assert.are.equal(0, vcode, v)
    assert.matches("GNU gprof", v)
    local h = sh(tree .. "/bin/lgprof --help")
    assert.matches("Usage: gprof", h)
    os.execute("rm -rf " .. tree .. " " .. src)
  end)

  it("make install honours PREFIX and DESTDIR", function()
    local stage = tmpdir()
    local out, code = sh(("make install DESTDIR=%s PREFIX=/opt/lgp"):format(stage))
    assert.are.equal(0, code, out)
    for _, f in ipairs({ "/opt/lgp/lib/lua/5.4/lgprof/core.so", "/opt/lgp/share/lua/5.4/lgprof/init.lua",
                         "/opt/lgp/share/lua/5.4/lgprof/cli.lua", "/opt/lgp/bin/lgprof" }) do
      assert.is_truthy(io.open(stage .. f), f)
    end
    local v, vcode = sh(("LUA_PATH_5_4='%s/opt/lgp/share/lua/5.4/?.lua;%s/opt/lgp/share/lua/5.4/?/init.lua;;' " ..
      "LUA_CPATH_5_4='%s/opt/lgp/lib/lua/5.4/?.so;;' %s/opt/lgp/bin/lgprof -v"):format(stage, stage, stage, stage))
    assert.are.equal(0, vcode, v)
    os.execute("rm -rf " .. stage)
  end)

  it("runs from the checkout however the command is named (bin/lgprof, ./bin/lgprof, a full path)", function()
    -- LUA_PATH/LUA_CPATH emptied of lgprof so only the checkout can supply the modules
    local env = "env LUA_PATH_5_4=';;' LUA_CPATH_5_4=';;' "
    local here = sh("pwd"):gsub("%s+$", "")
    for _, cmd in ipairs({ "bin/lgprof", "./bin/lgprof", here .. "/bin/lgprof",
                           "cd spec && ../bin/lgprof" }) do
      local v, code = sh(cmd:gsub("^(.-)([%w./]*bin/lgprof)$", "%1" .. env .. "%2") .. " --version")
      assert.are.equal(0, code, cmd .. ": " .. v)
      assert.matches("lgprof", v, 1, true)
    end
  end)
end)
