-- The symbol table against gprof's own dump.
--
-- `gprof -d128 exe gmon` (SYMTABDEBUG) prints, after `[main] debug-level=...`
-- and other debug lines, one line per final symbol:
--     [symtab_finalize] 0xLO-0xHI<TAB>NAME
-- (the last symbol's end may be below its start).  lgprof's Profile:symbols()
-- must give the same list, in the same (address) order, for every fixture
-- program in every variant.  Without /usr/bin/gprof those tests are pending.

local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd
local lgprof = require "lgprof"

-- Copies the executable and its profiles into a temporary directory under
-- the build's lock (a concurrent rebuild of the fixture cannot interleave).
local function snapshot(b)
  return fx.snapshot(b, util.mktempdir("lgprof-syms"))
end

local function gprof_symtab(exe, gmon)
  local _, out = cmd.gprof({ "-d128", exe, gmon })
  local lines = {}
  for line in out:gmatch("[^\n]+") do
    if line:sub(1, 20) == "[symtab_finalize] 0x" then lines[#lines + 1] = line end
  end
  return lines, out
end

local function lgprof_symtab(exe, gmon)
  local profile = assert(lgprof.open(exe, { gmon }))
  local lines = {}
  for f in profile:symbols() do
    lines[#lines + 1] = string.format("[symtab_finalize] 0x%x-0x%x\t%s",
      f.address, f.end_address, f.symbol)
  end
  profile:close()
  return lines
end

-- First differing position, with some context, for a readable failure.
local function first_difference(a, b)
  local n = math.max(#a, #b)
  for i = 1, n do
    if a[i] ~= b[i] then
      local ctx = {}
      for j = math.max(1, i - 2), math.min(n, i + 2) do
        ctx[#ctx + 1] = ("%4d  gprof : %s\n      lgprof: %s"):format(j, tostring(a[j]),
          tostring(b[j]))
      end
      return ("%d gprof symbols, %d lgprof symbols; first difference at line %d:\n%s")
        :format(#a, #b, i, table.concat(ctx, "\n"))
    end
  end
end

describe("symbol table (gprof -d128 [symtab_finalize])", function()
  it("gprof's dump has the expected shape", function()
    if not cmd.HAVE_GPROF then return pending("gprof not installed") end
    local b = assert(fx.build("classic", "O2-nopie"))
    local s = snapshot(b)
    finally(function() util.rmtree(s.dir) end)
    local lines, out = gprof_symtab(s.exe, s.gmon[1])
    assert.matches("^%[main%] debug%-level=0x%x+\n", out)
    assert.is_true(#lines > 5)
    local seen = {}
    for _, l in ipairs(lines) do
      local lo, hi, name = l:match("^%[symtab_finalize%] 0x(%x+)%-0x(%x+)\t(.+)$")
      assert.is_truthy(lo, "unexpected line: " .. l)
      seen[name] = true
    end
    for _, n in ipairs { "main", "a", "b", "c" } do
      assert.is_true(seen[n], n .. " missing from gprof's symbol table")
    end
  end)

  for _, prog in ipairs(fx.programs()) do
    describe(prog, function()
      for _, variant in ipairs(fx.variants) do
        it(variant, function()
          if not cmd.HAVE_GPROF then return pending("gprof not installed") end
          local b, err = fx.build(prog, variant)
          assert(b, err)
          local s = snapshot(b)
          finally(function() util.rmtree(s.dir) end)
          local want = gprof_symtab(s.exe, s.gmon[1])
          local got = lgprof_symtab(s.exe, s.gmon[1])
          assert.is_true(#want > 0, "no [symtab_finalize] lines from gprof -d128")
          local diff = first_difference(want, got)
          if diff then
            error(("%s/%s: symbol table differs from `gprof -d128 %s %s`\n%s"):format(
              prog, variant, b.exe, b.gmon[1], diff), 0)
          end
        end)
      end
    end)
  end
end)

describe("static functions with the same name (samename)", function()
  for _, variant in ipairs(fx.variants) do
    it(variant .. ": two static helper functions", function()
      local b, err = fx.build("samename", variant)
      assert(b, err)
      local profile = assert(lgprof.open(b.exe, { b.gmon[1] }))
      finally(function() profile:close() end)
      local helpers = {}
      for f in profile:symbols() do
        if f.symbol == "helper" then helpers[#helpers + 1] = f end
      end
      assert.are.equal(2, #helpers)
      for _, f in ipairs(helpers) do
        assert.are.equal("helper", f.name)
        assert.is_true(f.is_static)
        assert.is_true(f.is_function)
      end
      assert.are_not.equal(helpers[1].address, helpers[2].address)
      if variant:match("^O0g") then
        local files = { helpers[1].file, helpers[2].file }
        assert.is_string(files[1])
        assert.is_string(files[2])
        assert.are_not.equal(files[1], files[2])
        table.sort(files)
        assert.matches("a%.c$", files[1])
        assert.matches("b%.c$", files[2])
      end
    end)
  end
end)
