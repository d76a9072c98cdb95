-- Fuzz regressions: every input under spec/fuzz/regress/<harness>/ once
-- crashed a libFuzzer harness (csrc/fuzz/, `make fuzz`). Each goes through
-- bin/lgprof with the fixed other half (the demo executable and its
-- gmon.out, from spec/fuzz/corpus/) and a few output formats; lgprof must
-- exit 0 or 1, without a signal, within 20 s, and print at most one line
-- on stderr, "lgprof: ...".
-- And `make fuzz` itself (if clang is installed), briefly (FUZZ_SECONDS=2),
-- from a copy of the checkout whose path holds a space and a quote: a
-- harness starts from its seeds with its dictionary, and one without seeds
-- is a failure.

local H = require "helpers"
local fx, util, cmd = H.fixtures, H.util, H.cmd

local ROOT = fx.root
local REGRESS = ROOT .. "/spec/fuzz/regress"
local FIXED_EXE = ROOT .. "/spec/fuzz/corpus/exe/demo"
local FIXED_GMON = ROOT .. "/spec/fuzz/corpus/profile/demo-tagged"

-- which half of the command line the input takes
local ROLE = { gmon = "gmon", profile = "gmon", elf = "exe", exe = "exe" }
local VARIANTS = {
  { "-b" }, { "-T", "-z", "-w", "1" }, { "--format=callgrind" }, { "--format=json" },
  { "--format=csv-arcs" }, { "--format=folded" }, { "-b", "-D", "-a", "--no-demangle" },
}

-- make fuzz's variables for the spec's brief run: the core and the harness
-- compiled without optimisation (see below), the core in its own folder
local CHEAP_CORE = "build/fuzz-core-O0"
local CHEAP = "FUZZ_CORE=" .. CHEAP_CORE
  .. " FUZZ_OPT='-gline-tables-only -O0'"

-- status and stderr of lgprof with args, under `timeout 20`
local function run(args)
  local status, _, err = cmd.lgprof(args, { timeout = 20 })
  return status, err
end

describe("fuzz regressions", function()
  local total = 0
  for harness, role in pairs(ROLE) do
    for _, name in ipairs(util.ls(REGRESS .. "/" .. harness)) do
      total = total + 1
      local input = REGRESS .. "/" .. harness .. "/" .. name
      it(harness .. "/" .. name .. " fails cleanly or succeeds", function()
        for _, v in ipairs(VARIANTS) do
          local args = { table.unpack(v) }
          args[#args + 1] = role == "exe" and input or FIXED_EXE
          args[#args + 1] = role == "exe" and FIXED_GMON or input
          local status, err = run(args)
          local ctx = ("%s %s: status %s, stderr:\n%s"):format(harness .. "/" .. name,
            table.concat(v, " "), tostring(status), err)
          assert(status == 0 or status == 1, ctx)
          local lines = 0
          for line in err:gmatch("[^\n]*\n?") do
            if line ~= "" then
              lines = lines + 1
              assert(line:match("^lgprof: "), ctx)
            end
          end
          assert(lines <= 1, ctx)
        end
      end)
    end
  end
  it("has regression inputs", function()
    assert.is_true(total > 0)
  end)

  it("make fuzz, from a path with a space and a quote, starts from the seeds and fails without them", function()
    if not util.have("clang") then
      pending("clang not installed")
      return
    end
    local tmp = util.mktempdir("lgprof fuzz")
    local ok, err = pcall(function()
      local src = util.mkdir(tmp .. "/it's a checkout")
      -- The core archived by clang is built once, in this checkout's
      -- build/fuzz-core-O0 by make's own rule (again only when a source
      -- changed), and copied into the copy with the sources' times kept
      -- (cp -p), so that the copy's make finds it up to date and builds,
      -- links and runs the harness from the path with a space and a quote;
      -- the core's objects are compiled under such a path by any make test
      -- of a checkout there. It is built at -O0 with line tables only (with
      -- the sanitizers: a crash in its 2 s is still reported), which is
      -- what this test needs: make's rules, the seeds, the dictionary, not
      -- the fuzzer's speed; at make fuzz's -O1 -g the core cost 67 s of
      -- clang CPU, at -O0 30 s. Its own folder, so that a later make fuzz
      -- never fuzzes this slow core (make does not see flags change).
      local unset = "unset MAKEFLAGS MFLAGS MAKELEVEL; "
      local status, out, e = cmd.shell(unset .. "timeout 900 make --no-print-directory " .. CHEAP
        .. " " .. CHEAP_CORE .. "/liblgprof-core.a 2>&1", { cwd = ROOT })
      assert.are.equal(0, status, out .. e)
      status, out, e = cmd.shell("git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "
        .. util.q(src) .. " && mkdir -p " .. util.q(src .. "/build") .. " && cp -a " .. CHEAP_CORE .. " "
        .. util.q(src .. "/build/"), { cwd = ROOT })
      assert.are.equal(0, status, e)
      local seeds = #util.ls(src .. "/spec/fuzz/corpus/gmon")
      assert.is_true(seeds > 0)
      local make = unset .. "timeout 900 make fuzz FUZZ_SECONDS=2 FUZZ_HARNESSES=gmon " .. CHEAP .. " 2>&1"
      status, out = cmd.shell(make, { cwd = src })
      assert.are.equal(0, status, out)
      -- (the copied core was up to date: clang compiled the harness only)
      assert.is_nil(out:find(" -c csrc/core/", 1, true), out)
      assert.is_nil(out:find("operator expected", 1, true), out)
      local line = out:match("\n(fuzz_gmon: [^\n]*)\n$")
      assert.matches("^fuzz_gmon: %d+ executions in %d+ s, seeds " .. seeds .. ", corpus %d+, crashes 0$", line)
      local log = assert(util.slurp(src .. "/build/fuzz/fuzz_gmon.log"))
      assert.matches("\nDictionary: %d+ entries\n", "\n" .. log) -- spec/fuzz/gmon.dict
      -- without its seeds: a failure that says so
      assert.is_true(util.exec_ok("rm -f " .. util.q(src .. "/spec/fuzz/corpus/gmon") .. "/*"))
      status, out = cmd.shell(make, { cwd = src })
      assert.are_not.equal(0, status, out)
      assert.truthy(out:find("fuzz_gmon: no seeds in spec/fuzz/corpus/gmon/", 1, true), out)
    end)
    util.rmtree(tmp)
    assert(ok, err)
  end)
end)
