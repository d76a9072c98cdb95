-- The rockspecs (lgprof-*.rockspec, Lua files) against the checkout: a real
-- source URL, a build through the Makefile (no list of sources or modules
-- to keep in step), every file they name present, and their versions tied
-- to lgprof.VERSION.
local fx = require "helpers.fixtures"

local q = fx.shquote

local function lines(cmd)
  local p = assert(io.popen(cmd))
  local out = {}
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

local function exists(path)
  local f = io.open(fx.root .. "/" .. path, "r")
  if f then f:close() end
  return f ~= nil
end

-- a rockspec is Lua assignments: run it in an empty environment
local function load_rockspec(path)
  local env = {}
  local chunk = assert(loadfile(path, "t", env))
  chunk()
  return env
end

-- Host names that can never be a project's home: the names reserved for
-- documentation, tests and local networks (RFC 2606, 6761, 6762).
local function placeholder_host(host)
  host = host:lower()
  if host == "localhost" or host:match("%.localhost$") then return true end
  for _, tld in ipairs({ "example", "invalid", "test", "local" }) do
    if host == tld or host:match("%." .. tld .. "$") then return true end
  end
  for _, domain in ipairs({ "example.com", "example.net", "example.org" }) do
    if host == domain or host:sub(-#domain - 1) == "." .. domain then return true end
  end
  return false
end

local ROCKSPECS = lines("cd " .. q(fx.root) .. " && ls lgprof-*.rockspec")

describe("rockspec", function()
  local VERSION = require("lgprof").VERSION

  it("lgprof.VERSION is MAJOR.MINOR.PATCH", function()
    assert.is_string(VERSION)
    assert.truthy(VERSION:match("^%d+%.%d+%.%d+$"), VERSION)
  end)

  it("there is one to check", function()
    assert.is_true(#ROCKSPECS >= 1)
  end)

  for _, name in ipairs(ROCKSPECS) do
    describe(name, function()
      local rock = load_rockspec(fx.root .. "/" .. name)

      it("is named PACKAGE-VERSION.rockspec", function()
        assert.equal("lgprof", rock.package)
        assert.equal(rock.package .. "-" .. rock.version .. ".rockspec", name)
      end)

      -- scm-N follows the repository's head (no tag); a release X.Y.Z-N is
      -- the tag vX.Y.Z of the version lgprof.VERSION says
      it("has a version that lgprof.VERSION agrees with", function()
        local scm = rock.version:match("^scm%-%d+$")
        local release, revision = rock.version:match("^(.-)%-(%d+)$")
        assert.truthy(scm or (release == VERSION and revision), rock.version .. " vs " .. VERSION)
        if scm then
          assert.is_nil(rock.source.tag, "an scm rockspec follows the head")
        else
          assert.equal("v" .. VERSION, rock.source.tag)
        end
      end)

      it("has a source URL that is not a placeholder", function()
        local url = rock.source and rock.source.url
        assert.is_string(url)
        local host = url:match("^git%+https://([^/:@]+)/.") or url:match("^https://([^/:@]+)/.")
        assert.truthy(host, "a git+https or https URL: " .. url)
        assert.is_false(placeholder_host(host), url)
      end)

      -- (this spec once compared a list of modules and C sources in the
      -- rockspec with the tree; the Makefile's wildcards now build and
      -- install them, and packaging_spec checks what luarocks installed)
      it("builds and installs through the Makefile, listing no source and no module", function()
        local build = rock.build
        assert.equal("make", build.type)
        assert.is_nil(build.modules, "a list of modules, which the Makefile already has")
        local makefile = assert(io.open(fx.root .. "/Makefile")):read("a")
        for _, target in ipairs({ build.build_target, build.install_target }) do
          assert.is_string(target)
          assert.truthy(makefile:find("\n" .. target:gsub("%-", "%%-") .. ":", 1), "no Makefile target " .. target)
        end
        -- the C module and the Lua modules go where luarocks says
        assert.same({ LUA_LIBDIR_INSTALL = "$(LIBDIR)", LUA_SHAREDIR = "$(LUADIR)" }, build.install_variables)
        for var in pairs(build.install_variables) do
          assert.truthy(makefile:find("\n" .. var .. " +%?=", 1), var .. " is not a Makefile variable")
        end
      end)

      -- a library linked but not declared is a compiler error for a LuaRocks
      -- user without it, where a declared one is LuaRocks' own message
      it("declares every library the Makefile links (LDLIBS as make expands it), each with its"
         .. " folders passed to the build", function()
        local mk = os.tmpname()
        local f = assert(io.open(mk, "w"))
        f:write("print-ldlibs: ; @echo $(LDLIBS)\n")
        f:close()
        local linked = lines(("cd %s && make -s --no-print-directory -f Makefile -f %s print-ldlibs")
          :format(q(fx.root), q(mk)))
        os.remove(mk)
        local declared = {}
        for key, dep in pairs(rock.external_dependencies) do declared[dep.library] = key end
        -- part of the C library; libdeflate is linked only where its header
        -- is installed (LuaRocks has no optional dependency)
        local exempt = { m = true, dl = true, deflate = true }
        local seen = 0
        for lib in (linked[1] or ""):gmatch("%-l(%S+)") do
          seen = seen + 1
          if not exempt[lib] then
            local key = declared[lib]
            assert.truthy(key, "-l" .. lib .. " is linked but not an external dependency")
            assert.truthy(rock.build.build_variables.CPPFLAGS:find("-I$(" .. key .. "_INCDIR)", 1, true), key)
            assert.truthy(rock.build.build_variables.LDFLAGS:find("-L$(" .. key .. "_LIBDIR)", 1, true), key)
          end
        end
        assert.is_true(seen >= 4, linked[1])
        assert.truthy(declared.zstd, "libzstd")
      end)

      it("says what the rock reads: gmon.out and perf.data", function()
        local text = rock.description.summary .. "\n" .. rock.description.detailed
        assert.truthy(text:find("gmon.out", 1, true), text)
        assert.truthy(text:find("perf.data", 1, true), text)
      end)

      it("names only files that exist", function()
        for _, path in pairs(rock.build.install.bin) do
          assert.is_true(exists(path), path)
        end
        for _, path in ipairs(rock.build.copy_directories or {}) do
          assert.is_true(exists(path), path)
        end
      end)
    end)
  end
end)
