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
      for fn in p:entries() do -- Functions and Cycles
        assert.near(fn.self + fn.children, fn.total, EPS)
        if p.print_time > 0 then
          assert.near(100 * fn.total / p.print_time, fn.percent, 1e-6)
        end
        if fn.kind == "function" then -- not a Cycle
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

-- Every handle reads only its documented fields: anything else raises an
-- error that names the field and the valid ones, at the reader's line.
describe("handles: documented fields only", function()
  local FIELDS = {
    Function = { "kind", "name", "symbol", "address", "end_address", "size", "file", "line",
      "is_static", "is_function", "index", "self", "children", "total", "percent",
      "profile_percent", "flat_self", "flat_percent", "calls", "self_calls", "member_calls",
      "cycle", "printed", "in_flat", "in_graph", "propagated_fraction" },
    Cycle = { "kind", "name", "number", "index", "self", "children", "total", "percent",
      "profile_percent", "flat_self", "flat_percent", "calls", "internal_calls", "printed",
      "in_graph", "propagated_fraction" },
    Arc = { "kind", "caller", "callee", "count", "self", "children", "is_recursive", "in_cycle" },
    Profile = { "total_time", "print_time", "hz", "sample_period", "have_histogram",
      "have_call_graph", "have_bb_counts", "function_count", "cycle_count", "arc_count",
      "arc_records", "text_start", "text_end", "address_bits", "big_endian", "dimension",
      "files", "image", "is_view", "base_time", "base_print_time" },
  }
  local METHODS = {
    Function = { "callers", "callees" }, Cycle = { "members", "callers", "callees" }, Arc = {},
    Profile = { "functions", "entries", "flat", "symbols", "cycles", "arcs", "get", "lookup",
      "find", "search", "roots", "filter", "select", "export", "gprof_report", "write_gmon",
      "histograms", "file_info", "close" },
  }
  local p, handles
  setup(function()
    local b = assert(fx.build("cycles", "O0g-nopie"))
    p = assert(lgprof.open(b.exe, b.gmon[1]))
    handles = { Profile = p, Function = p:find("main"), Cycle = p:cycles()(), Arc = p:arcs()() }
    assert(handles.Cycle and handles.Arc, "the cycles fixture has a cycle and arcs")
  end)
  teardown(function() if p then p:close() end end)

  local function read(h, k) return h[k] end -- line of the read: see below
  local READ_LINE = debug.getinfo(read, "S").linedefined

  for _, type in ipairs { "Function", "Cycle", "Arc", "Profile" } do
    it(type .. ": each documented field reads (nil allowed), each method is a function", function()
      local h = handles[type]
      for _, k in ipairs(FIELDS[type]) do
        local ok, err = pcall(read, h, k)
        assert.is_true(ok, type .. "." .. k .. ": " .. tostring(err))
      end
      for _, k in ipairs(METHODS[type]) do assert.is_function(h[k], k) end
    end)

    it(type .. ": an unknown field raises, naming it and every valid one", function()
      local h = handles[type]
      for _, k in ipairs { "self_time", "fucntions", "cont", "Name", "" } do
        local ok, err = pcall(read, h, k)
        assert.is_false(ok, type .. "." .. k)
        local prefix = ("spec/api_model_spec.lua:%d: %s has no field '%s' (fields: "):format(
          READ_LINE, type, k)
        assert.is_truthy(err:find(prefix, 1, true), err)
        local listed = err:match("%(fields: (.*)%)$")
        local words = {}
        for w in listed:gmatch("[%w_]+") do words[w] = true end
        for _, f in ipairs(FIELDS[type]) do assert.is_true(words[f], f .. " in " .. err) end
        for _, m in ipairs(METHODS[type]) do assert.is_true(words[m], m .. " in " .. err) end
      end
    end)
  end

  it("fields of the other kind of entry are unknown: fn.number, cycle.symbol", function()
    assert.has_error(function() return handles.Function.number end)
    assert.has_error(function() return handles.Function.internal_calls end)
    assert.has_error(function() return handles.Cycle.symbol end)
    assert.has_error(function() return handles.Cycle.in_flat end)
    assert.are.equal("integer", math.type(handles.Cycle.number))
    assert.is_nil(handles.Function.cycle) -- documented, nil: main is in no cycle
  end)
end)
