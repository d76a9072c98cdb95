-- lgprof --format=speedscope and lgprof.report.speedscope: speedscope's
-- file format. Oracles: speedscope's published JSON schema (vendored in
-- spec/fixtures/speedscope/, checked by Python's jsonschema module) on every
-- fixture program's export, whose events must add up to lgprof's call-graph
-- total; and a synthesized profile whose estimated tree is derived here by
-- hand from gprof's definitions, compared event by event.
local lgprof = require "lgprof"
local cjson = require "cjson"
local H = require "helpers"
local fx, util, cmd, synth = H.fixtures, H.util, H.cmd, H.synth

local SCHEMA = fx.root .. "/spec/fixtures/speedscope/file-format-schema.json"
local PYTHON = "/usr/bin/python3"
local HAVE_JSONSCHEMA = util.have(PYTHON)
  and util.exec_ok(util.q(PYTHON) .. " -c 'import jsonschema' 2>/dev/null")
local VARIANTS = { "O0g-nopie", "O2-pie" }

local TMP = util.mktempdir("lgprof-speedscope")
local seq = 0
local function tmpfile(ext)
  seq = seq + 1
  return ("%s/%d%s"):format(TMP, seq, ext or "")
end

-- Validates the files against the schema in one python3 run (it takes a
-- while to start); returns { [path] = "ok" or the first error }.
local VALIDATE = [[
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
v = jsonschema.Draft7Validator(schema)
for path in sys.argv[2:]:
    try:
        errs = sorted(v.iter_errors(json.load(open(path, encoding="utf-8"))), key=str)
        msg = "ok" if not errs else errs[0].message.replace("\n", " ")[:300]
    except Exception as e:
        msg = "unreadable: %s" % e
    print("%s\t%s" % (path, msg))
]]
local function validate(paths)
  local script = util.spit(tmpfile(".py"), VALIDATE)
  local argv = { PYTHON, script, SCHEMA }
  table.move(paths, 1, #paths, #argv + 1, argv)
  local status, out, err = cmd.run(argv, { timeout = 300 })
  assert(status == 0, cmd.show(status, out, err))
  local r = {}
  for path, msg in out:gmatch("([^\t\n]+)\t([^\n]*)") do r[path] = msg end
  return r
end

-- The events' checks every file must pass: balanced, in time order, frames
-- in range; returns the time the top-level frames cover.
local function walk(doc)
  local prof = doc.profiles[1]
  local frames = #doc.shared.frames
  local open, last, covered, top_start = {}, prof.startValue, 0, nil
  for i, e in ipairs(prof.events) do
    assert(e.at >= last, ("event %d goes back in time"):format(i))
    last = e.at
    assert(e.frame >= 0 and e.frame < frames and e.frame == math.floor(e.frame), "frame out of range")
    if e.type == "O" then
      if #open == 0 then top_start = e.at end
      open[#open + 1] = e.frame
    else
      assert.equal("C", e.type)
      assert.equal(table.remove(open), e.frame, "unbalanced close")
      if #open == 0 then covered = covered + (e.at - top_start) end
    end
  end
  assert.equal(0, #open, "frames left open")
  assert(last <= prof.endValue, "an event after endValue")
  return covered
end

describe("--format=speedscope", function()
  lazy_teardown(function() util.rmtree(TMP) end)
  local files = {} -- every export, validated at the end in one python3 run

  describe("a synthesized profile", function()
    -- main calls a and b once each; a calls c 3 times, b calls c once; x
    -- and y call each other (a cycle), main calls x. Samples (10 ms each):
    -- a 30, b 10, c 4, x 6, y 1. c's 40 ms go 3/4 to a and 1/4 to b; the
    -- cycle's self time is split over its members. The estimated tree in
    -- microseconds, children heaviest first: main 510000 { a 330000 { c
    -- 30000 }, b 110000 { c 10000 }, <cycle 1> 70000 { x 60000, y 10000 } }.
    local exe, gmon, doc, text
    setup(function()
      exe, gmon = synth.write(TMP, "syn", {
        funcs = { { "main", 0 }, { "a", 30 }, { "b", 10 }, { "c", 4 }, { "x", 6 }, { "y", 1 } },
        arcs = { { "main", "a", 1 }, { "main", "b", 1 }, { "a", "c", 3 }, { "b", "c", 1 },
                 { "main", "x", 1 }, { "x", "y", 2 }, { "y", "x", 1 } },
      })
      local status, out, err = cmd.lgprof({ "--format=speedscope", exe, gmon })
      assert.equal(0, status, cmd.show(status, out, err))
      assert.equal("", err)
      text = out
      local path = util.spit(tmpfile(".speedscope.json"), out)
      files[#files + 1] = path
      doc = cjson.decode(out)
    end)

    it("names the program, the exporter and says the stacks are estimated", function()
      assert.equal("https://www.speedscope.app/file-format-schema.json", doc["$schema"])
      assert.equal("lgprof@" .. lgprof.VERSION, doc.exporter)
      assert.matches("^syn ", doc.name)
      assert.matches("estimated", doc.name)
      assert.equal(1, #doc.profiles)
      assert.equal(doc.name, doc.profiles[1].name)
      assert.equal(0, doc.activeProfileIndex)
    end)

    it("is the estimated tree as one evented profile in microseconds", function()
      local prof = doc.profiles[1]
      assert.equal("evented", prof.type)
      assert.equal("microseconds", prof.unit)
      assert.equal(0, prof.startValue)
      assert.equal(510000, prof.endValue)
      local names = {}
      for i, f in ipairs(doc.shared.frames) do
        names[i - 1] = f.name
        assert.is_nil(f.file) -- no DWARF
      end
      local got = {}
      for _, e in ipairs(prof.events) do
        got[#got + 1] = ("%s %s %d"):format(e.type, names[e.frame], e.at)
      end
      assert.same({
        "O main 0", "O a 0", "O c 0", "C c 30000", "C a 330000",
        "O b 330000", "O c 330000", "C c 340000", "C b 440000",
        "O <cycle 1> 440000", "O x 440000", "C x 500000", "O y 500000", "C y 510000",
        "C <cycle 1> 510000", "C main 510000",
      }, got)
      -- one frame per function, c's shared by its two nodes
      assert.same({ [0] = "main", "a", "c", "b", "<cycle 1>", "x", "y" }, names)
      assert.equal(510000, walk(doc))
    end)

    it("lgprof.report.speedscope writes the command's bytes, to a path and to a file handle", function()
      local p <close> = assert(lgprof.open(exe, gmon))
      local a, b = tmpfile(".json"), tmpfile(".json")
      assert.is_true(lgprof.report.speedscope(p, a))
      local fh = assert(io.open(b, "wb"))
      assert.is_true(lgprof.report.speedscope(p, fh))
      fh:close()
      assert.equal(text, util.slurp(a))
      assert.equal(text, util.slurp(b))
      assert.has_error(function() lgprof.report.speedscope(p, tmpfile(), { type = "sampled" }) end)
      assert.has_error(function() lgprof.report.speedscope(p, tmpfile(), { min_weight = 2 }) end)
    end)

    it("a full disk: status 1 and one line, not a silent truncated file", function()
      if not util.exec_ok("test -w /dev/full") then pending("no /dev/full") return end
      local status, out, err = cmd.shell(util.qwords({ cmd.LGPROF, "--format=speedscope", exe, gmon })
        .. " >/dev/full")
      cmd.one_line_error(1, status, out, err)
    end)

    it("of a view: the view's tree", function()
      local p <close> = assert(lgprof.open(exe, gmon))
      local v = assert(p:filter { focus = "^b$" })
      local json = assert(require("lgprof.format.speedscope").encode(v))
      local d = cjson.decode(json)
      assert.equal(math.floor(v.print_time * 1e6 + 0.5), d.profiles[1].endValue)
      assert.equal(d.profiles[1].endValue, walk(d))
    end)

    it("escapes names as JSON and keeps bytes that are not UTF-8 readable", function()
      local exe2, gmon2 = synth.write(TMP, "esc", {
        funcs = { { "main", 0 }, { 'q"u\\o\tte', 3 }, { "lat\233in", 2 } },
        arcs = { { "main", 'q"u\\o\tte', 1 }, { "main", "lat\233in", 1 } },
      })
      local status, out, err = cmd.lgprof({ "--format=speedscope", exe2, gmon2 })
      assert.equal(0, status, cmd.show(status, out, err))
      files[#files + 1] = util.spit(tmpfile(".speedscope.json"), out)
      local d = cjson.decode(out)
      local names = {}
      for _, f in ipairs(d.shared.frames) do names[f.name] = true end
      assert.is_true(names['q"u\\o\tte'])
      assert.is_true(names["lat\u{e9}in"])
    end)
  end)

  describe("every fixture program", function()
    for _, variant in ipairs(VARIANTS) do
      for _, name in ipairs(fx.programs()) do
        it(name .. " " .. variant .. ": the events cover print_time", function()
          local b = assert(fx.build(name, variant))
          local dir = util.mkdir(tmpfile("-fx"))
          local s = fx.snapshot(b, dir)
          local status, out, err = cmd.lgprof({ "--format=speedscope", s.exe, s.gmon[1] })
          assert.equal(0, status, cmd.show(status, out, err))
          files[#files + 1] = util.spit(tmpfile(".speedscope.json"), out)
          local doc = cjson.decode(out)
          local p <close> = assert(lgprof.open(s.exe, s.gmon[1]))
          local prof = doc.profiles[1]
          -- whole microseconds adding up to print_time within one
          assert.near(p.print_time * 1e6, prof.endValue - prof.startValue, 1)
          assert.equal(prof.endValue - prof.startValue, walk(doc))
          for _, f in ipairs(doc.shared.frames) do
            if f.line then assert.is_string(f.file) end
          end
        end)
      end
    end
  end)

  it("every file validates against speedscope's published schema", function()
    if not HAVE_JSONSCHEMA then pending("python3 with jsonschema (python3-jsonschema) not installed") return end
    -- the validator itself: a file that breaks the schema must fail
    local bad = util.spit(tmpfile(".json"), '{"$schema":"https://www.speedscope.app/file-format-schema.json",'
      .. '"shared":{"frames":[{"name":"f"}]},"profiles":[{"type":"evented","name":"x",'
      .. '"unit":"microseconds","startValue":0,"endValue":1,"events":[{"type":"X","frame":0,"at":0}]}]}')
    local paths = { bad }
    table.move(files, 1, #files, 2, paths)
    assert.is_true(#files > 2 * #fx.programs())
    local r = validate(paths)
    assert.is_not_nil(r[bad], "the validator gave no verdict")
    assert.are_not.equal("ok", r[bad])
    for _, path in ipairs(files) do
      assert.equal("ok", r[path], path)
    end
  end)
end)
