-- Every JSON lgprof writes goes through one string encoder (the core's,
-- core.json_string). Oracle: Python's json module, which must parse each
-- writer's output when names and paths hold bytes that are not UTF-8,
-- control characters, quotes, backslashes and U+2028, and must read each
-- name back as the encoder's policy says (UTF-8 kept, other bytes read as
-- Latin-1), derived here by hand.
local H = require "helpers"
local util, cmd, synth = H.util, H.cmd, H.synth
local core = require "lgprof.core"

local PYTHON = "/usr/bin/python3"
local HAVE_PYTHON = util.have(PYTHON)

local TMP = util.mktempdir("lgprof.json_strings")

-- The names: each odd in one way (no NUL: symbol names end at one).
local NAMES = {
  "bad\255byte", "ctl\1\27\127z", 'q"uo\\te', "ls\226\128\168ps\226\128\169",
  "nl\nt\tr\r", "trunc\226\128", "sur\237\160\128x", "ok\195\169",
}
-- What a JSON reader must read back for a name (the policy): valid UTF-8
-- kept; each other byte the code point of its value.
local function expected(s)
  local out, i = {}, 1
  while i <= #s do
    local n, at = utf8.len(s, i)
    if n then out[#out + 1] = s:sub(i); break end
    out[#out + 1] = s:sub(i, at - 1) .. utf8.char(s:byte(at))
    i = at + 1
  end
  return table.concat(out)
end

-- Python: parses file (exit 1 on failure) and prints every string in it,
-- keys and values, as UTF-8 lines of hex (so newlines in names survive);
-- html: the JSON of the data element (the page's text around it is not JSON).
local PARSE = [[
import json, sys, re
text = open(sys.argv[1], "rb").read()
if sys.argv[2] == "html":
    m = re.search(rb'<script type="application/json" id="lgprof-data">(.*?)</script>', text, re.S)
    text = m.group(1)
text = text.decode("utf-8")
seen = []
def walk(v):
    if isinstance(v, str): seen.append(v)
    elif isinstance(v, list):
        for x in v: walk(x)
    elif isinstance(v, dict):
        for k, x in v.items(): seen.append(k); walk(x)
walk(json.loads(text))
for s in seen: print(s.encode("utf-8").hex())
]]
local function strings_of(path, kind)
  local script = TMP .. "/parse.py"
  util.spit(script, PARSE)
  local status, out, err = cmd.run({ PYTHON, script, path, kind })
  assert.equal(0, status, "python's json rejects " .. path .. ": " .. err)
  local set = {}
  for hex in out:gmatch("[^\n]+") do
    set[(hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end))] = true
  end
  return set
end

describe("core.json_string", function()
  it("keeps UTF-8, escapes quotes, backslashes and control bytes, reads other bytes as Latin-1", function()
    assert.equal('"a\\"b\\\\c"', core.json_string('a"b\\c'))
    assert.equal('"\\u0000\\u0001\\u000a\\u001f\127"', core.json_string("\0\1\n\31\127"))
    assert.equal('"\226\128\168\195\169"', core.json_string("\226\128\168\195\169"))
    assert.equal('"\\u00ff\\u00e2\\u0080"', core.json_string("\255\226\128"))
    -- a surrogate, an overlong form and a code point above U+10FFFF are not UTF-8
    assert.equal('"\\u00ed\\u00a0\\u0080"', core.json_string("\237\160\128"))
    assert.equal('"\\u00c0\\u00af"', core.json_string("\192\175"))
    assert.equal('"\\u00f4\\u0090\\u0080\\u0080"', core.json_string("\244\144\128\128"))
    assert.equal('""', core.json_string(""))
  end)
end)

describe("every JSON writer", function()
  if not HAVE_PYTHON then
    pending("python3 not found")
    return
  end
  -- the image and profile paths hold the odd bytes too
  local dir = TMP .. "/p\255 \"q\\\1"
  assert(os.execute("mkdir -p " .. util.q(dir)))
  local funcs, arcs = { { "main", 3 } }, {}
  for i, n in ipairs(NAMES) do
    funcs[#funcs + 1] = { n, 10 + i }
    arcs[#arcs + 1] = { "main", n, i }
  end
  local exe, gmon = synth.write(dir, "x\255\226\128\168", { funcs = funcs, arcs = arcs })

  local function run_to(kind, argv)
    local path = ("%s/out-%s.json"):format(TMP, kind)
    local status, out, err = cmd.lgprof(argv)
    assert.equal(0, status, cmd.show(status, out, err))
    util.spit(path, out)
    return path
  end
  local function check_names(set, what)
    for _, n in ipairs(NAMES) do
      assert.is_true(set[expected(n)] ~= nil, what .. ": " .. ("%q"):format(n))
    end
  end

  it("--format=json", function()
    local set = strings_of(run_to("export", { "--format=json", exe, gmon }), "json")
    check_names(set, "name")
    assert.is_true(set[expected(exe)], "image path")
    assert.is_true(set[expected(gmon)], "profile path")
  end)

  it("--format=json --granularity=line", function()
    strings_of(run_to("export-lines", { "--format=json", "--granularity=line", exe, gmon }), "json")
  end)

  it("--format=speedscope", function()
    check_names(strings_of(run_to("speedscope", { "--format=speedscope", exe, gmon }), "json"),
      "name")
  end)

  it("--format=html (the embedded data)", function()
    check_names(strings_of(run_to("html", { "--format=html", exe, gmon }), "html"), "name")
  end)

  it("doctor --format=json", function()
    local path = ("%s/out-doctor.json"):format(TMP)
    local status, out, err = cmd.lgprof({ "doctor", "--format=json", exe, gmon })
    assert.is_true(status == 0 or status == 3, cmd.show(status, out, err))
    util.spit(path, out)
    local set = strings_of(path, "json")
    assert.is_true(set[expected(exe)], "image path")
    assert.is_true(set[expected(gmon)], "profile path")
  end)
end)
