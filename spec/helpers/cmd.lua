-- Runs bin/lgprof (or a Lua script standalone, with the checkout's modules)
-- and captures its exit status, stdout and stderr.
--
--   local cmd = require "helpers.cmd"
--   local status, out, err = cmd.lgprof({ "check", "--max-self=^c$=0.5", exe, gmon })
--   local status, out, err = cmd.lua({ "report.lua", exe, gmon })
--   assert.equal(0, status, cmd.show(status, out, err))
local fx = require "helpers.fixtures"
local util = require "helpers.util"

local M = {}
local q = fx.shquote
M.ROOT = fx.root
M.LGPROF = fx.root .. "/bin/lgprof"

local function run(words, opts)
  opts = opts or {}
  local base = os.tmpname()
  local out, err = base .. ".out", base .. ".err"
  local quoted = {}
  for i, w in ipairs(words) do quoted[i] = q(w) end
  local cmd = "cd " .. q(opts.cwd or M.ROOT) .. " && " .. (opts.env or "")
    .. table.concat(quoted, " ") .. " >" .. q(out) .. " 2>" .. q(err) .. " </dev/null"
  local _, how, code = os.execute(cmd)
  local o, e = util.slurp(out) or "", util.slurp(err) or ""
  os.remove(out); os.remove(err); os.remove(base)
  if how == "signal" then code = 128 + code end
  return code, o, e
end

--- bin/lgprof with args; opts.cwd (default: the checkout). Returns status, out, err.
function M.lgprof(args, opts)
  return run({ M.LGPROF, table.unpack(args) }, opts)
end

--- The build directory whose lgprof/core.so the specs load: $LGPROF_BUILD
-- (make test-asan) or the checkout's build/.
M.BUILD = os.getenv("LGPROF_BUILD")
if not M.BUILD or M.BUILD == "" then M.BUILD = M.ROOT .. "/build" end

--- lua5.4 with args and the checkout's lua/ and build/ on the module paths.
function M.lua(args, opts)
  opts = opts or {}
  local env = ("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s "):format(
    q(M.ROOT .. "/lua/?.lua;" .. M.ROOT .. "/lua/?/init.lua;;"), q(M.BUILD .. "/?.so;;"))
  return run({ "lua5.4", table.unpack(args) }, { cwd = opts.cwd, env = env .. (opts.env or "") })
end

--- A readable dump of a run, for assertion messages.
function M.show(status, out, err)
  return ("status %s\n--- stdout (%d bytes) ---\n%s\n--- stderr ---\n%s"):format(
    tostring(status), #out, out:sub(1, 1500), err)
end

--- Asserts a failed run: the status, nothing on stdout, exactly one line
-- "lgprof: ..." on stderr; returns that line without "lgprof: " and "\n".
-- Use: cmd.one_line_error(2, cmd.lgprof({...})).
function M.one_line_error(want_status, status, out, err)
  local ctx = M.show(status, out, err)
  assert(status == want_status, ("expected status %d\n%s"):format(want_status, ctx))
  assert(out == "", "expected no output\n" .. ctx)
  assert(err:match("^lgprof: [^\n]+\n$"), "expected one line 'lgprof: ...'\n" .. ctx)
  return err:sub(9, -2)
end

--- Writes text to path.
function M.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

return M
