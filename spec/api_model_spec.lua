-- The API's numbers against the gprof model's definitions, on every fixture
-- program: calls are the sum of the non-recursive callers' arc counts, a
-- cycle's calls come from outside it, total = self + children, percent is
-- the share of the call graph's time; arcs say whether they stay inside a
-- cycle; the `zeros` open option prints what `gprof -z` prints.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, cmd = H.fixtures, H.cmd
local report = H.profile.report

local EPS = 1e-9

describe("API numbers follow the gprof model", function()
  for _, name in ipairs(fx.programs()) do
    it(name .. ": calls, cycle calls, totals, percents, in_cycle", function()
      local b = assert(fx.build(name, "O0g-nopie"))
      local p <close> = assert(lgprof.open(b.exe, b.gmon))
      assert.near(1 / p.hz, p.sample_period, EPS)
      assert.are.equal(b.exe, p.image)
      assert.are.same(b.gmon, p.files)
      for fn in p:functions() do
        assert.near(fn.self + fn.children, fn.total, EPS)
        if p.print_time > 0 then
          assert.near(100 * fn.total / p.print_time, fn.percent, 1e-6)
        end
        if not fn.number then -- a Function, not a Cycle
          local from_others, recursive = 0, 0
          for arc in fn:callers() do
            if arc.is_recursive then
              recursive = recursive + arc.count
            else
              from_others = from_others + arc.count
            end
            local pc, cc = arc.caller.cycle, arc.callee.cycle
            assert.are.equal(pc ~= nil and cc ~= nil and pc.number == cc.number, arc.in_cycle)
            assert.are.equal(arc.caller == arc.callee, arc.is_recursive)
          end
          assert.are.equal(from_others, fn.calls)
          assert.are.equal(recursive, fn.self_calls)
        else
          local outside, inside = 0, 0
          for member, from_members in fn:members() do
            local sum = 0
            for arc in member:callers() do
              local c = arc.caller.cycle
              if not arc.is_recursive then
                if c and c.number == fn.number then
                  inside = inside + arc.count
                  sum = sum + arc.count
                else
                  outside = outside + arc.count
                end
              end
            end
            assert.are.equal(sum, from_members)
          end
          assert.are.equal(outside, fn.calls)
          assert.are.equal(inside, fn.internal_calls)
        end
      end
    end)
  end

  local zeros_case = cmd.HAVE_GPROF and it or pending
  zeros_case("open's zeros option prints what gprof -z prints", function()
    for _, name in ipairs({ "classic", "cycles", "samename" }) do
      local b = assert(fx.build(name, "O0g-nopie"))
      local p <close> = assert(lgprof.open(b.exe, b.gmon[1], { zeros = true }))
      local _, want = cmd.gprof({ "-b", "-z", b.exe, b.gmon[1] })
      assert.are.equal(want, report(p, { brief = true }))
      -- the report's own option overrides it
      _, want = cmd.gprof({ "-b", b.exe, b.gmon[1] })
      assert.are.equal(want, report(p, { brief = true, zeros = false }))
    end
  end)
end)
