-- lgprof.svg (lgprof.report.svg, `lgprof --format=svg`): the flame graph.
-- Every SVG is parsed by a real XML parser (/usr/bin/python3's
-- xml.etree.ElementTree, which rejects anything not well-formed) and its
-- frames read back from the parsed tree: their widths against the time of
-- each stack (summed here from lgprof.report.folded's lines, a separate
-- reading of the same estimate) and against the call graph's time
-- (profile.print_time), the children's widths against their parent's, and
-- on a synthesized profile every frame's place, size and tooltip against
-- values worked out by hand from the model's samples and calls. Hostile
-- names (XML's special characters, C++ operators and templates, control
-- characters, bytes that are not UTF-8, "]]>") must come out escaped and
-- readable.
local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, synth = H.fixtures, H.util, H.cmd, H.synth
local cjson = require "cjson"

local PYTHON = "/usr/bin/python3"
local HAVE_PYTHON = util.have(PYTHON)
local VARIANT = "O0g-nopie"
local CHROMIUM = util.have("chromium") and "chromium"
local PW = 1180 -- the default width, 1200, less 10 px on each side

local TMP = util.mktempdir("lgprof svg-spec")
local seq = 0
local function tmpname(ext)
  seq = seq + 1
  return ("%s/%d.%s"):format(TMP, seq, ext)
end

-- The parser: for each file named, one line: the document as JSON (the
-- frames, the texts by id, the root's attributes) or, on a parse error,
-- {"error": message}. (One python3 for many files where the spec can: it
-- costs a fraction of a second of CPU to start.)
local PARSER = [==[
import json, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
def parse(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return {"error": str(e)}
    out = {"tag": root.tag, "width": root.get("width"), "height": root.get("height"),
           "texts": {}, "frames": [], "scripts": len(root.findall(NS + "script")),
           "title": root.findtext(NS + "title")}
    for t in root.iter(NS + "text"):
        if t.get("id"):
            out["texts"][t.get("id")] = t.text or ""
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        r, t = g.find(NS + "rect"), g.find(NS + "text")
        out["frames"].append({"x": float(r.get("x")), "w": float(r.get("width")),
                              "y": float(r.get("y")), "h": float(r.get("height")),
                              "fill": r.get("fill"), "title": g.findtext(NS + "title"),
                              "label": t.text or "", "us": int(g.get("data-us")),
                              "style": g.get("style") or ""})
    return out
for path in sys.argv[1:]:
    print(json.dumps(parse(path)))
]==]
local PARSER_PATH = TMP .. "/parse_svg.py"
util.spit(PARSER_PATH, PARSER)

-- What the parser gives for each of the SVG files at paths, in order, from
-- one python3 (unchecked: see checked).
local function parse_many(paths)
  local argv = { PYTHON, PARSER_PATH }
  for _, path in ipairs(paths) do argv[#argv + 1] = path end
  local status, out, err = cmd.run(argv)
  assert(status == 0, cmd.show(status, out, err))
  local docs = {}
  for line in out:gmatch("[^\n]+") do docs[#docs + 1] = cjson.decode(line) end
  assert.equal(#paths, #docs, "one document for each file")
  return docs
end

-- doc, the parsed file at path, asserted well-formed, its frames named.
local function checked(doc, path)
  assert(doc.error == nil, path .. ": not well-formed XML: " .. tostring(doc.error))
  assert.equal("{http://www.w3.org/2000/svg}svg", doc.tag)
  for _, f in ipairs(doc.frames) do
    -- the name is the tooltip less its " (details)"; details hold no parenthesis
    f.name = f.title:match("^(.*) %([^()]*%)$")
    assert(f.name, f.title)
  end
  return doc
end

-- The parsed document of the SVG file at path (asserting it is well-formed).
local function parse(path) return checked(parse_many({ path })[1], path) end

local function write_svg(p, options)
  local path = tmpname("svg")
  local ok, err = lgprof.report.svg(p, path, options)
  assert(ok, err)
  return path
end

-- The frames as a tree rebuilt from the geometry alone: each frame's
-- parent is the frame one row nearer the root whose span holds it. Returns
-- the root frame; each frame gets .children and .path (names, root first,
-- without "all").
local function rebuild(doc, icicle)
  local rows = {}
  for _, f in ipairs(doc.frames) do
    rows[f.y] = rows[f.y] or {}
    table.insert(rows[f.y], f)
  end
  local ys = {}
  for y in pairs(rows) do ys[#ys + 1] = y end
  table.sort(ys, function(a, b) if icicle then return a < b end return a > b end)
  assert(#rows[ys[1]] == 1, "one root frame")
  local root = rows[ys[1]][1]
  root.children, root.path = {}, {}
  for i = 2, #ys do
    assert.near(ys[i - 1] + (icicle and 16 or -16), ys[i], 1e-9, "rows 16 px apart")
    for _, f in ipairs(rows[ys[i]]) do
      local parent
      for _, p in ipairs(rows[ys[i - 1]]) do
        if f.x >= p.x - 0.011 and f.x + f.w <= p.x + p.w + 0.021 then parent = p end
      end
      assert(parent, "no parent frame for " .. f.title)
      f.children = {}
      f.path = table.move(parent.path, 1, #parent.path, 1, {})
      f.path[#f.path + 1] = f.name
      table.insert(parent.children, f)
    end
  end
  return root
end

-- The folded stacks' values summed per prefix: "a;b" -> microseconds.
local function folded_prefixes(p)
  local fh = io.tmpfile()
  assert(lgprof.report.folded(p, fh))
  fh:seek("set")
  local sums, total = {}, 0
  for line in fh:lines() do
    local path, v = line:match("^(.*) (%d+)$")
    v = tonumber(v)
    total = total + v
    local prefix
    for name in (path .. ";"):gmatch("([^;]*);") do
      prefix = prefix and (prefix .. ";" .. name) or name
      sums[prefix] = (sums[prefix] or 0) + v
    end
  end
  fh:close()
  return sums, total
end

-- The checks every flame graph passes: widths proportional to the time
-- (within the 2 decimals written), children within their parent, the
-- root's children filling the width when nothing was left out.
local function check_geometry(doc, total, icicle)
  local root = rebuild(doc, icicle)
  assert.equal(total, root.us)
  assert.equal("all", root.name)
  if total > 0 then
    assert.near(10, root.x, 0.006)
    assert.near(PW, root.w, 0.006)
  end
  local todo = { root }
  while #todo > 0 do
    local f = table.remove(todo)
    assert.near(f.us / total * PW, f.w, 0.0051, f.title)
    local sum_w, sum_us, x = 0, 0, f.x
    for _, c in ipairs(f.children) do
      sum_w, sum_us = sum_w + c.w, sum_us + c.us
      todo[#todo + 1] = c
    end
    assert(sum_us <= f.us, f.title)
    assert(sum_w <= f.w + 0.006 * (#f.children + 1), f.title)
    -- siblings abut, left to right, from the parent's left edge
    table.sort(f.children, function(a, b) return a.x < b.x end)
    for _, c in ipairs(f.children) do
      assert.near(x, c.x, 0.011 * #f.children, c.title)
      x = c.x + c.w
    end
  end
  return root
end

local function names_of_path(path) return table.concat(path, ";") end

-- Every frame's value equals the folded stacks' sum over its path.
local function check_against_folded(p, doc)
  local sums, total = folded_prefixes(p)
  local root = rebuild(doc)
  assert.equal(total, root.us)
  local n = 0
  local todo = { root }
  while #todo > 0 do
    local f = table.remove(todo)
    if #f.path > 0 then
      n = n + 1
      assert.equal(sums[names_of_path(f.path)], f.us, names_of_path(f.path))
    end
    for _, c in ipairs(f.children) do todo[#todo + 1] = c end
  end
  local prefixes = 0
  for _ in pairs(sums) do prefixes = prefixes + 1 end
  assert.equal(prefixes, n, "every stack prefix is a frame")
end

describe("lgprof.format.svg", function()
  lazy_teardown(function() util.rmtree(TMP) end)

  if not HAVE_PYTHON then
    pending("needs " .. PYTHON .. " (Debian's python3) for its XML parser")
    return
  end

  -- main (no samples) calls a once and b once; a and b each call c, b three
  -- times as often. 10 ms a sample (100 Hz).
  local function known_profile()
    local exe, gmon = synth.write(TMP, "known", {
      funcs = { { "main", 0 }, { "a", 30 }, { "b", 10 }, { "c", 60 } },
      arcs = { { "main", "a", 1 }, { "main", "b", 1 }, { "a", "c", 1 }, { "b", "c", 3 } },
    })
    return exe, gmon, assert(lgprof.open(exe, gmon))
  end

  it("draws exactly the frames a synthesized profile's model gives", function()
    local _, _, p = known_profile()
    -- by hand: c's 600 ms go to its callers by calls, 150 ms under a, 450
    -- under b; a holds 300 + 150, b 100 + 450, main and the root 1 s.
    local us = { all = 1000000, main = 1000000, ["main;a"] = 450000, ["main;b"] = 550000,
                 ["main;a;c"] = 150000, ["main;b;c"] = 450000 }
    for _, icicle in ipairs { false, true } do
      local doc = parse(write_svg(p, { icicle = icicle }))
      assert.equal(6, #doc.frames)
      local root = check_geometry(doc, 1000000, icicle)
      local by = {}
      local todo = { root }
      while #todo > 0 do
        local f = table.remove(todo)
        by[#f.path == 0 and "all" or names_of_path(f.path)] = f
        for _, c in ipairs(f.children) do todo[#todo + 1] = c end
      end
      for path, v in pairs(us) do
        assert(by[path], path)
        assert.equal(v, by[path].us, path)
      end
      -- places: name order, left to right (a before b), widths in pixels
      local function at(path, x, w)
        assert.near(x, by[path].x, 0.0051, path)
        assert.near(w, by[path].w, 0.0051, path)
      end
      at("all", 10, 1180); at("main", 10, 1180)
      at("main;a", 10, 531); at("main;b", 541, 649)
      at("main;a;c", 10, 177); at("main;b;c", 541, 531)
      -- rows: the root at the bottom of a flame graph, at the top of an icicle
      local sign = icicle and 1 or -1
      assert.equal(by.all.y + sign * 16, by.main.y)
      assert.equal(by.main.y + sign * 16, by["main;a"].y)
      assert.equal(by["main;a"].y + sign * 16, by["main;b;c"].y)
      -- tooltips: time, share of the total and of the caller, self, calls
      assert.equal("all (1.000 s, 100.00%; self 0 \u{B5}s)", by.all.title)
      assert.equal("main (1.000 s, 100.00%; self 0 \u{B5}s; no call recorded)", by.main.title)
      assert.equal("a (450.000 ms, 45.00%, 45.00% of its caller; self 300.000 ms; 1 call in all)",
        by["main;a"].title)
      assert.equal("c (150.000 ms, 15.00%, 33.33% of its caller; self 150.000 ms; 4 calls in all)",
        by["main;a;c"].title)
      assert.equal("c (450.000 ms, 45.00%, 81.82% of its caller; self 450.000 ms; 4 calls in all)",
        by["main;b;c"].title)
      -- labels: whole where they fit (a 531 px frame holds 75 characters)
      assert.equal("a", by["main;a"].label)
      -- one colour per name, warm (red 205..255, blue below 56)
      assert.equal(by["main;a;c"].fill, by["main;b;c"].fill)
      for path, f in pairs(by) do
        if path ~= "all" then
          local r, g, b = f.fill:match("^rgb%((%d+),(%d+),(%d+)%)$")
          r, g, b = tonumber(r), tonumber(g), tonumber(b)
          assert(r >= 205 and r <= 255 and g <= 230 and b <= 55, path .. " " .. f.fill)
        end
      end
      -- the subtitle says where the stacks come from
      assert.truthy(doc.texts.subtitle:find("estimated from gprof's arcs", 1, true))
      assert.truthy(doc.texts.title:find("known", 1, true))
      assert.equal(1, doc.scripts)
    end
    p:close()
  end)

  it("zooms and searches in a browser (headless Chromium runs the script)", function()
    if not CHROMIUM then
      pending("needs chromium (Debian's chromium) to run the script")
      return
    end
    local _, _, p = known_profile()
    local path = write_svg(p)
    p:close()
    -- the frames in document order: all, main, a, a;c, b, b;c; search ^c$
    -- and zoom on b (frame 4) from the address, as a link would
    local status, out, err = cmd.run({ CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
      "--user-data-dir=" .. TMP .. "/chromium", "--dump-dom", "file://" .. path:gsub(" ", "%%20")
      .. "#s=%5Ec%24&z=4" }, { timeout = 120 })
    assert(status == 0, cmd.show(status, out, ""))
    local dumped = tmpname("svg")
    util.spit(dumped, out)
    local doc = parse(dumped)
    local by = {}
    for i, f in ipairs(doc.frames) do by[i] = f end
    local all, main, a, ac, b, bc = table.unpack(by)
    assert.equal("b", b.name)
    -- search: both c frames highlighted, 60% of the time matched (150 + 450 ms)
    assert.equal("rgb(230,0,230)", ac.fill)
    assert.equal("rgb(230,0,230)", bc.fill)
    assert.are_not.equal("rgb(230,0,230)", a.fill)
    assert.equal("Matched: 60.00%", doc.texts.matched)
    -- zoom: b spans the width, its callee scaled with it (531 px of b's 649),
    -- a and its callee hidden, the callers spanning the width, dimmed
    assert.near(10, b.x, 0.006); assert.near(1180, b.w, 0.006)
    assert.near(10, bc.x, 0.006); assert.near(531 * 1180 / 649, bc.w, 0.006)
    assert.truthy(a.style:find("display: none", 1, true))
    assert.truthy(ac.style:find("display: none", 1, true))
    for _, f in ipairs { all, main } do
      assert.near(1180, f.w, 0.006)
      assert.truthy(f.style:find("opacity: 0.5", 1, true))
    end
    -- the labels follow the new widths
    assert.equal("c", bc.label)
    -- a match inside a match counts once: b (550 ms, holding b;c) and a;c (150 ms)
    status, out = cmd.run({ CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
      "--user-data-dir=" .. TMP .. "/chromium", "--dump-dom", "file://" .. path:gsub(" ", "%%20")
      .. "#s=%5E(b%7Cc)%24" }, { timeout = 120 })
    assert(status == 0, cmd.show(status, out, ""))
    util.spit(dumped, out)
    doc = parse(dumped)
    assert.equal("Matched: 70.00%", doc.texts.matched)
    assert.equal("rgb(230,0,230)", doc.frames[5].fill)
    assert.near(531, doc.frames[3].w, 0.006) -- no zoom in the address: none
  end)

  it("colours by self share on request, and leaves out frames narrower than min_width", function()
    local _, _, p = known_profile()
    local doc = parse(write_svg(p, { colors = "self", min_width = 200 }))
    -- a;c (177 px) goes; the rest stays
    assert.equal(5, #doc.frames)
    assert.equal("1 frame narrower than 200 px left out (15.00% of the time, drawn as part of"
      .. " their callers).", doc.texts.omitted)
    local fills = {}
    for _, f in ipairs(doc.frames) do fills[f.title:match("^(%S+)")] = f.fill end
    -- self/value: main 0 (pale yellow), c 1 (deep red)
    assert.equal("rgb(255,230,120)", fills.main)
    assert.equal("rgb(230,30,20)", fills.c)
    -- a percent of the width: 15% of 1180 px is 177 px, which is not narrower
    doc = parse(write_svg(p, { min_width = "15%" }))
    assert.equal(6, #doc.frames)
    assert.is_nil(doc.texts.omitted)
    p:close()
  end)

  it("writes the view's description and the title asked for; script = false writes none", function()
    local _, _, p = known_profile()
    local v = assert(p:filter { hide = "^b$" })
    local doc = parse(write_svg(v, { view_description = "hide=^b$ & <more>", title = "T <1>",
                                     script = false }))
    assert.equal("View: hide=^b$ & <more>", doc.texts.view)
    assert.equal("T <1>", doc.texts.title)
    assert.equal("T <1>", doc.title)
    assert.equal(0, doc.scripts)
    assert.is_nil(doc.texts.search)
    -- b hidden: its time is main's; c called by a (1) and by main (3)
    check_geometry(doc, 1000000)
    check_against_folded(v, doc)
    p:close()
  end)

  it("escapes and cleans hostile names, and cuts labels to the frame with '..'", function()
    local long = ("very_long_function_name_"):rep(20)
    local names = {
      "main", 'tpl<a, b>&"q\'', "]]>x<![CDATA[", "ctl\1\27z", "bad\255\254utf8",
      "caf\u{E9}_\u{1F525}", "semi;colon", "_ZlsRSoRK1A", long, "amp&amp;",
    }
    local funcs, arcs = {}, {}
    for i, n in ipairs(names) do
      funcs[i] = { n, i == 1 and 1 or 10 * i }
      if i > 1 then arcs[#arcs + 1] = { "main", n, i } end
    end
    local exe, gmon = synth.write(TMP, "hostile", { funcs = funcs, arcs = arcs })
    local p = assert(lgprof.open(exe, gmon))
    local path = write_svg(p, { width = 800 })
    local doc = parse(path)
    -- the expected names, as a reader sees them (';' kept: frames are
    -- functions, not the folded text's labels)
    local want = {
      main = true, ['tpl<a, b>&"q\''] = true, ["]]>x<![CDATA["] = true, ["ctl\\x01\\x1Bz"] = true,
      ["bad\\xFF\\xFEutf8"] = true, ["caf\u{E9}_\u{1F525}"] = true, ["semi;colon"] = true,
      ["operator<<(std::ostream&, A const&)"] = true, [long] = true, ["amp&amp;"] = true, all = true,
    }
    local seen = {}
    for _, f in ipairs(doc.frames) do
      assert(want[f.name], "unexpected frame name " .. f.name)
      seen[f.name] = true
      -- the label: the name, or its beginning and "..", or nothing
      if f.label ~= f.name and f.label ~= "" then
        local head = f.label:match("^(.*)%.%.$")
        assert(head and f.name:sub(1, #head) == head, f.label)
        -- as many characters as fit at 12 px x 0.59
        assert.equal(math.floor(f.w / (12 * 0.59)), utf8.len(f.label), f.label)
      end
    end
    for n in pairs(want) do assert(seen[n], "no frame for " .. n) end
    -- the long name is cut
    for _, f in ipairs(doc.frames) do
      if f.name == long then assert.truthy(f.label:find("%.%.$")) end
    end
    -- the command writes the same document (the image's name aside)
    local status, out, err = cmd.lgprof({ "--format=svg", exe, gmon })
    assert.equal(0, status, cmd.show(status, out, err))
    local path2 = tmpname("svg")
    util.spit(path2, out)
    local doc2 = parse(path2)
    assert.equal(#doc.frames, #doc2.frames)
    check_geometry(doc2, doc2.frames[1].us)
    -- the values, by hand: function i's 10 i samples of 10 ms, main's 1
    local total = 10000
    for i = 2, #names do total = total + 10 * i * 10000 end
    for _, f in ipairs(doc2.frames) do
      if f.name == "all" or f.name == "main" then assert.equal(total, f.us) end
    end
    local values = {}
    for _, f in ipairs(doc2.frames) do values[f.name] = f.us end
    local shown = { 'tpl<a, b>&"q\'', "]]>x<![CDATA[", "ctl\\x01\\x1Bz", "bad\\xFF\\xFEutf8",
      "caf\u{E9}_\u{1F525}", "semi;colon", "operator<<(std::ostream&, A const&)", long, "amp&amp;" }
    for k, n in ipairs(shown) do assert.equal(10 * (k + 1) * 10000, values[n], n) end
    p:close()
  end)

  it("draws an empty profile as a well-formed picture that says so", function()
    local exe, gmon = synth.write(TMP, "empty", { funcs = { { "main", 0 }, { "f", 0 } } })
    local p = assert(lgprof.open(exe, gmon))
    local doc = parse(write_svg(p))
    assert.equal(0, #doc.frames)
    assert.truthy(doc.texts.empty)
    p:close()
  end)

  it("refuses bad options before touching the file", function()
    local _, _, p = known_profile()
    local path = tmpname("svg")
    util.spit(path, "keep")
    for _, o in ipairs {
      { bogus = 1 }, { width = 50 }, { width = "1200" }, { icicle = 1 }, { colors = "cold" },
      { order = "random" }, { min_width = -1 }, { width = 1200.5 }, { font_size = 0 }, { min_width = "5" }, { min_width = "200%" },
      { title = 3 }, { max_depth = 0 }, { frame_height = 0 },
    } do
      assert.has_error(function() lgprof.report.svg(p, path, o) end)
      assert.equal("keep", util.slurp(path))
    end
    assert.has_error(function() lgprof.report.svg({}, path) end)
    assert.has_error(function() lgprof.report.svg(p, 42) end)
    local bad = TMP .. "/no such dir/x.svg"
    local ok, err = lgprof.report.svg(p, bad)
    assert.is_nil(ok)
    assert.truthy(err:find("no such dir", 1, true))
    p:close()
  end)

  it("takes --title, --inverted, --colors and --min-width on the command line as the API's options", function()
    local b = assert(fx.build("classic", VARIANT))
    local p = assert(lgprof.open(b.exe, b.gmon))
    for _, c in ipairs {
      { { "--inverted" }, { icicle = true } },
      { { "--colors=self", "--title=<T> & \"q\"" }, { colors = "self", title = '<T> & "q"' } },
      { { "--min-width=2" }, { min_width = 2 } },
      { { "--min-width=0.5%", "--colors=hash" }, { min_width = "0.5%" } },
    } do
      local argv = { "--format=svg" }
      table.move(c[1], 1, #c[1], 2, argv)
      table.move({ b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }, 1, 4, #argv + 1, argv)
      local status, out, err = cmd.lgprof(argv)
      assert.equal(0, status, cmd.show(status, out, err))
      local path = write_svg(p, c[2])
      assert.equal(util.slurp(path), out)
    end
    for _, c in ipairs {
      { { "--format=json", "--inverted" }, "--inverted is for --format=svg" },
      { { "--title=x" }, "--title is for --format=svg, dot, html" },
      { { "--format=csv", "--title=x" }, "--title is for --format=svg, dot, html" },
      { { "--format=dot", "--colors=self" }, "--colors is for --format=svg" },
      { { "--format=svg", "--colors=cold" }, "--colors=cold: hash or self" },
      { { "--format=svg", "--min-width=wide" }, "--min-width=wide: pixels" },
      { { "--format=svg", "--min-width=150%" }, "--min-width=150%: pixels" },
    } do
      local argv = table.move(c[1], 1, #c[1], 1, {})
      argv[#argv + 1] = b.exe
      argv[#argv + 1] = b.gmon[1]
      local line = cmd.one_line_error(2, cmd.lgprof(argv))
      assert.truthy(line:find(c[2], 1, true), line)
    end
    -- --title names lgprof.dot's legend too
    local argv = { "--format=dot", "--title=T <&>", b.exe, b.gmon[1], b.gmon[2], b.gmon[3] }
    local status, out, err = cmd.lgprof(argv)
    assert.equal(0, status, cmd.show(status, out, err))
    local fh = io.tmpfile()
    assert(lgprof.report.dot(p, fh, { title = "T <&>" }))
    fh:seek("set")
    assert.equal(fh:read("a"), out)
    fh:close()
    p:close()
  end)

  local programs = {}
  for _, name in ipairs(fx.programs()) do programs[#programs + 1] = { name, VARIANT } end
  for _, name in ipairs(fx.line_programs()) do programs[#programs + 1] = { name, fx.line_variants[1] } end
  -- Every fixture's two SVGs (the API's with min_width 0, the command's
  -- default), written at the first of these tests and parsed by one
  -- python3: name -> { doc, cmd_doc } or { err = why not }.
  local fixture_docs
  local function fixture_svgs(name)
    if not fixture_docs then
      fixture_docs = {}
      local paths, owners = {}, {}
      for _, prog in ipairs(programs) do
        local ok, why = pcall(function()
          local b = assert(fx.build(prog[1], prog[2]))
          local p = assert(lgprof.open(b.exe, b.gmon))
          local api = write_svg(p, { min_width = 0 })
          p:close()
          local status, out, err = cmd.lgprof({ "--format=svg", b.exe, b.gmon[1], b.gmon[2], b.gmon[3] })
          assert.equal(0, status, cmd.show(status, out, err))
          local path = tmpname("svg")
          util.spit(path, out)
          paths[#paths + 1], paths[#paths + 2] = api, path
          owners[#owners + 1], owners[#owners + 2] = prog[1], prog[1]
        end)
        if not ok then fixture_docs[prog[1]] = { err = why } end
      end
      local ok, docs = pcall(parse_many, paths)
      for k, owner in ipairs(owners) do
        local entry = fixture_docs[owner] or {}
        entry[#entry + 1] = { ok and docs[k], paths[k] }
        if not ok then entry.err = docs end
        fixture_docs[owner] = entry
      end
    end
    local entry = fixture_docs[name]
    assert(entry and not entry.err, name .. ": " .. tostring(entry and entry.err))
    return checked(entry[1][1], entry[1][2]), checked(entry[2][1], entry[2][2])
  end

  for _, prog in ipairs(programs) do
    local name = prog[1]
    it("is well-formed with widths that add up, on fixture " .. name, function()
      local b = assert(fx.build(name, prog[2]))
      local p = assert(lgprof.open(b.exe, b.gmon))
      -- every frame drawn (min_width 0): the tree's widths add up exactly
      -- (its SVG and the command's written and parsed with the others')
      local doc = fixture_svgs(name)
      local total = doc.frames[1] and doc.frames[1].us or 0
      assert(math.abs(total - p.print_time * 1e6) <= 1, "total " .. total .. " vs " .. p.print_time)
      if total > 0 then
        local root = check_geometry(doc, total)
        local w = 0
        for _, c in ipairs(root.children) do w = w + c.w end
        assert.near(PW, w, 0.006 * (#root.children + 1), "the root's children fill the width")
        check_against_folded(p, doc)
      end
      -- the command's default (0.1 px minimum, icicle) is well-formed too
      -- (parse_many asserted it)
      assert.is_table(select(2, fixture_svgs(name)))
      p:close()
    end)
  end
end)
