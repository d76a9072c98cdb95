-- csrc/core's layers (csrc/core/README.md): util < read < model < analyse
-- < write. A file of one layer may include headers of its own layer and of
-- those before it, never of one after; every quoted include names its
-- layer's folder; and no file of the core includes a Lua header (the core
-- is built without Lua's include path, and is Lua-free by design).
local H = require "helpers"
local util, fx = H.util, H.fixtures

local LAYERS = { "util", "read", "model", "analyse", "write" }
local RANK = {}
for i, l in ipairs(LAYERS) do RANK[l] = i end
local LUA_HEADERS = { ["lua.h"] = true, ["lauxlib.h"] = true, ["lualib.h"] = true,
                      ["luaconf.h"] = true, ["lua.hpp"] = true }

-- The problems of one file's text (layer: its folder), one string each.
local function problems(layer, name, text)
  local out = {}
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local quote, target = line:match('^%s*#%s*include%s*([<"])([^>"]+)[>"]')
    if target then
      local base = target:match("([^/]+)$")
      if LUA_HEADERS[base] then
        out[#out + 1] = ("%s:%d: includes the Lua header %s"):format(name, n, target)
      elseif quote == '"' then
        local folder = target:match("^([^/]+)/[^/]") -- a layer's subfolder (read/perf/) is the layer's
        if not folder or not RANK[folder] then
          out[#out + 1] = ("%s:%d: \"%s\" does not name a layer's folder"):format(name, n, target)
        elseif RANK[folder] > RANK[layer] then
          out[#out + 1] = ("%s:%d: %s includes %s, a later layer"):format(name, n, layer, target)
        end
      end
    end
  end
  return out
end

describe("csrc/core's layering", function()
  it("the check finds what breaks the rules", function()
    assert.same({}, problems("model", "m.c", '#include "util/util.h"\n#include "model/x.h"\n#include <stdio.h>'))
    assert.equal(1, #problems("read", "r.c", '#include "model/profile.h"'))
    assert.same({}, problems("read", "r.c", '#include "read/perf/perfdata.h"'))
    assert.equal(1, #problems("util", "u.c", '#include "read/perf/perfdata.h"'))
    assert.equal(1, #problems("util", "u.c", '  #  include "write/export.h"'))
    assert.equal(1, #problems("write", "w.c", '#include "profile.h"'))
    assert.equal(1, #problems("write", "w.c", '#include "lua/lcore.h"'))
    assert.equal(1, #problems("util", "u.c", "#include <lua.h>"))
    assert.equal(1, #problems("write", "w.c", '#include "lauxlib.h"'))
  end)

  it("every include of csrc/core names its layer or one before it, and no Lua header", function()
    local root = fx.root .. "/csrc/core"
    local found, bad = 0, {}
    local p = assert(io.popen("find " .. util.q(root) .. " -type f \\( -name '*.c' -o -name '*.h' \\) | sort"))
    for path in p:lines() do
      local rel = path:sub(#root + 2)
      local layer = rel:match("^([^/]+)/")
      if not RANK[layer] then
        bad[#bad + 1] = rel .. ": not in a layer's folder"
      else
        found = found + 1
        for _, msg in ipairs(problems(layer, rel, assert(util.slurp(path)))) do bad[#bad + 1] = msg end
      end
    end
    p:close()
    assert.is_true(found > 50, "the core's files were not found under " .. root)
    assert.same({}, bad)
  end)
end)
