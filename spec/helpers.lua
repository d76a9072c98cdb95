-- All of spec/helpers/ in one table, each module loaded on first use:
--   local H = require "helpers"
--   local util, cmd, fx = H.util, H.cmd, H.fixtures
-- (util, cmd, fixtures, gmonwriter, elfwriter, synth, profile, prng).
return setmetatable({}, {
  __index = function(t, name)
    local m = require("helpers." .. name)
    t[name] = m
    return m
  end,
})
