-- Fuzz regressions: every input under spec/fuzz/regress/<harness>/ once
-- crashed a libFuzzer harness (csrc/fuzz/, `make fuzz`). Each goes through
-- bin/lgprof with the fixed other half (the demo executable and its
-- gmon.out, from spec/fuzz/corpus/) and a few output formats; lgprof must
-- exit 0 or 1, without a signal, within 20 s, and print at most one line
-- on stderr, "lgprof: ...".

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
end)
