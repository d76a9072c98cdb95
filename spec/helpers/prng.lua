-- A seeded pseudo-random generator for the benchmark generators: splitmix64
-- seeding, xorshift64* steps, exact with Lua 5.4's 64-bit integers (wrap-around
-- and a logical >>), so a seed gives the same numbers on every machine.
local M = {}

--- A function rand(n) giving integers uniform in [0, n), from seed.
function M.new(seed)
  local z = seed + 0x9E3779B97F4A7C15
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  z = z ~ (z >> 31)
  if z == 0 then z = 0x2545F4914F6CDD1D end
  local state = z
  local function next64()
    local x = state
    x = x ~ (x >> 12)
    x = x ~ (x << 25)
    x = x ~ (x >> 27)
    state = x
    return x * 0x2545F4914F6CDD1D
  end
  return function(n) return (next64() >> 11) % n end
end

return M
