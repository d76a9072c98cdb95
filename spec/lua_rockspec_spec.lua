-- The rockspecs (lgprof-*.rockspec, Lua files) against the checkout: a real
-- source URL, every Lua module of lua/lgprof/ installed (and nothing else),
-- every file they name present, and their versions tied to lgprof.VERSION.
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

      it("installs exactly the Lua modules of lua/lgprof/", function()
        local listed = {}
        for mod, v in pairs(rock.build.modules) do
          if type(v) == "string" then
            local want = mod == "lgprof" and "lua/lgprof/init.lua"
              or "lua/" .. mod:gsub("%.", "/") .. ".lua"
            assert.equal(want, v, mod)
            listed[v] = true
          end
        end
        local files = lines("cd " .. q(fx.root) .. " && ls lua/lgprof/*.lua lua/lgprof/*/*.lua")
        assert.is_true(#files > 5)
        for _, f in ipairs(files) do
          assert.is_true(listed[f] ~= nil, f .. " is not in build.modules")
          listed[f] = nil
        end
        assert.is_nil(next(listed), "build.modules names a file that is not in lua/lgprof/")
        assert.is_table(rock.build.modules["lgprof.core"], "the C module")
      end)

      it("names only files that exist", function()
        for mod, v in pairs(rock.build.modules) do
          for _, path in ipairs(type(v) == "string" and { v } or v.sources) do
            assert.is_true(exists(path), mod .. ": " .. path)
          end
        end
        for _, path in pairs(rock.build.install.bin) do
          assert.is_true(exists(path), path)
        end
      end)
    end)
  end
end)
