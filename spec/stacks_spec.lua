-- lgprof.stacks (the stacks as data: frames are Function and Cycle objects)
-- and the pictures drawn from it (svg, html, pprof, speedscope) tell
-- functions apart by what they are, never by their names. A synthesized
-- profile (spec/helpers/synth.lua) has two static functions named init in
-- two files, and two functions whose names differ only by ';' and ':' (and
-- hold blanks), which the folded text writes alike: every picture must keep
-- the four apart, names whole, with the weights derived here by hand.
local lgprof = require "lgprof"
local stacks = require "lgprof.stacks"
local H = require "helpers"
local util, cmd, pb = H.util, H.cmd, H.protobuf
local cjson = require "cjson"

local TMP = util.mktempdir("lgprof.stacks")
local SEMI, COLON = "x;y z", "x:y z"

-- main calls each init once, SEMI and COLON once; init in a.c calls leaf
-- once, init in b.c three times. Samples (100 Hz, one bin a function, so
-- 10 ms a sample, no rounding): init a.c 20, init b.c 30, SEMI 40,
-- COLON 50, leaf 10. synth places them 16 bytes apart from 0x401000.
local MODEL = {
  funcs = { { "main", 0 }, { name = "init", key = "init_a", samples = 20, bind = "local", file = "a.c" },
            { name = "init", key = "init_b", samples = 30, bind = "local", file = "b.c" },
            { name = SEMI, key = "semi", samples = 40 }, { name = COLON, key = "colon", samples = 50 },
            { "leaf", 10 } },
  arcs = { { "main", "init_a", 1 }, { "main", "init_b", 1 }, { "main", "semi", 1 },
           { "main", "colon", 1 }, { "init_a", "leaf", 1 }, { "init_b", "leaf", 3 } },
}
local ADDR = { main = 0x401000, init_a = 0x401010, init_b = 0x401020, semi = 0x401030,
               colon = 0x401040, leaf = 0x401050 }
local NAME = { main = "main", init_a = "init", init_b = "init", semi = SEMI, colon = COLON,
               leaf = "leaf" }
-- the labels of lgprof.stacks: the inits share a name, so each has its address
local LABEL = { main = "main", init_a = "init [0x401010]", init_b = "init [0x401020]",
                semi = SEMI, colon = COLON, leaf = "leaf" }

-- By hand: everything runs under main (1.5 s, print_time). leaf's 100 ms
-- go to its callers by calls, 1/4 to init a.c and 3/4 to init b.c. Each
-- function's self time ends the stacks through it; main's calls, heaviest
-- first: COLON 0.5 s, SEMI 0.4, init b.c 0.375, init a.c 0.225. In
-- microseconds, in the order of the walk (a frame's calls before its own
-- time); main has no self time, so no stack of its own.
local STACKS = {
  { { "main", "colon" }, 500000 },
  { { "main", "semi" }, 400000 },
  { { "main", "init_b", "leaf" }, 75000 },
  { { "main", "init_b" }, 300000 },
  { { "main", "init_a", "leaf" }, 25000 },
  { { "main", "init_a" }, 200000 },
}
-- each frame of the tree: its total (its stacks' sum) and self, by path of keys
local TREE = {
  ["main"] = { 1500000, 0 },
  ["main/colon"] = { 500000, 500000 }, ["main/semi"] = { 400000, 400000 },
  ["main/init_b"] = { 375000, 300000 }, ["main/init_b/leaf"] = { 75000, 75000 },
  ["main/init_a"] = { 225000, 200000 }, ["main/init_a/leaf"] = { 25000, 25000 },
}

local exe, gmon
local function open()
  if not exe then exe, gmon = H.synth.write(TMP, "stk", MODEL) end
  return assert(lgprof.open(exe, gmon))
end

-- The key of a Function (by address, never by name).
local function key_of(obj)
  assert.equal("function", obj.kind)
  for k, a in pairs(ADDR) do
    if a == obj.address then return k end
  end
  error("no function at " .. obj.address)
end

-- TREE with each path's keys mapped by f ("main/init_a" -> f's words joined by sep).
local function tree_by(f, sep)
  local out = {}
  for path, v in pairs(TREE) do
    local words = {}
    for k in path:gmatch("[^/]+") do words[#words + 1] = f(k) end
    out[table.concat(words, sep)] = v
  end
  return out
end

describe("lgprof.stacks", function()

  it("each: frames are the profile's objects, with the weights derived by hand", function()
    local p <close> = open()
    assert.equal(1.5, p.print_time)
    local got = {}
    for frames, value, seconds in stacks.each(p) do
      local keys = {}
      for i, f in ipairs(frames) do keys[i] = key_of(f) end
      got[#got + 1] = { keys, value }
      assert.near(value / 1e6, seconds, 1e-12)
    end
    assert.same(STACKS, got)
  end)

  it("list: labels keep ';' and blanks, and shared names carry the address", function()
    local p <close> = open()
    local list = stacks.list(p)
    assert.equal(#STACKS, #list)
    for i, want in ipairs(STACKS) do
      local labels = {}
      for j, k in ipairs(want[1]) do
        labels[j] = LABEL[k]
        assert.equal(ADDR[k], list[i].funcs[j].address)
      end
      assert.same(labels, list[i].frames)
      assert.equal(want[2], list[i].value)
    end
  end)

  it("tree: one node per object, with its total and self", function()
    local p <close> = open()
    local root = stacks.tree(p)
    assert.equal(1500000, root.value)
    local got, todo = {}, { { root, nil } }
    while #todo > 0 do
      local node, path = table.unpack(table.remove(todo))
      if node ~= root then
        path = path and path .. "/" .. key_of(node.func) or key_of(node.func)
        assert.is_nil(got[path], "two nodes for " .. path)
        got[path] = { node.value, node.self }
        local k = key_of(node.func)
        assert.equal(LABEL[k], node.name)
      end
      for _, c in ipairs(node.children) do todo[#todo + 1] = { c, path } end
    end
    assert.same(TREE, got)
  end)

  it("keeps the folded writer's options: max_depth and min_weight", function()
    local p <close> = open()
    -- two frames at most: leaf's time stays with the inits
    local got = {}
    for frames, value in stacks.each(p, { max_depth = 2 }) do
      assert.is_true(#frames <= 2)
      got[#got + 1] = { key_of(frames[#frames]), value }
    end
    assert.same({ { "colon", 500000 }, { "semi", 400000 }, { "init_b", 375000 },
                  { "init_a", 225000 } }, got)
    -- 0.3 of 1.5 s is 0.45 s: COLON alone is heavier; the rest stays with main
    got = {}
    for frames, value in stacks.each(p, { min_weight = 0.3 }) do
      got[#got + 1] = { #frames, key_of(frames[#frames]), value }
    end
    assert.same({ { 2, "colon", 500000 }, { 1, "main", 1000000 } }, got)
  end)

  it("a loop left early, a closed profile and bad options", function()
    local p = open()
    for frames in stacks.each(p) do
      assert.equal("main", frames[1].name)
      break -- the closing value frees the walk
    end
    local it = stacks.each(p)
    assert.is_table((it()))
    p:close()
    assert.has_error(function() it() end, "attempt to use a closed profile")
    local q <close> = open()
    assert.has_error(function() stacks.each(q, { max_depth = 0 }) end)
    assert.has_error(function() stacks.each(q, { max_depth = 1.5 }) end)
    assert.has_error(function() stacks.each(q, { min_weight = 2 }) end)
    assert.has_error(function() stacks.each(q, { bogus = 1 }) end)
    assert.has_error(function() stacks.each({}) end)
  end)

  it("the folded text is unchanged: its labels merge what ';' and ':' tell apart", function()
    local p <close> = open()
    local path = TMP .. "/stk.folded"
    assert(lgprof.report.folded(p, path))
    assert.equal("main;x:y z 900000\nmain;init [0x401020];leaf 75000\nmain;init [0x401020] 300000\n"
      .. "main;init [0x401010];leaf 25000\nmain;init [0x401010] 200000\n", util.slurp(path))
  end)
end)

describe("pictures of the stacks keep functions of one name apart", function()
  lazy_teardown(function() util.rmtree(TMP) end)
  it("svg: a frame per object, named whole, with its time", function()
    local p <close> = open()
    local path = TMP .. "/stk.svg"
    assert(lgprof.report.svg(p, path))
    local got = {}
    for us, name in util.slurp(path):gmatch('<g class="f" data%-us="(%d+)"><title>(.-) %([^()]*%)</title>') do
      got[#got + 1] = name .. "=" .. us
    end
    table.sort(got)
    local want = { "all=1500000" }
    for path_, v in pairs(TREE) do
      want[#want + 1] = LABEL[path_:match("([^/]+)$")] .. "=" .. v[1]
    end
    table.sort(want)
    assert.same(want, got)
  end)

  it("html: the flame graph's frames are the functions, by call-graph index", function()
    local p <close> = open()
    local path = TMP .. "/stk.html"
    assert(lgprof.report.html(p, path))
    local page = util.slurp(path)
    local data = cjson.decode((assert(page:match(
      '<script type="application/json" id="lgprof%-data">(.-)</script>'))))
    local key_of_index = {}
    for k, a in pairs(ADDR) do key_of_index[p:lookup(a).index] = k end
    local got, paths = {}, {}
    for pos, f in ipairs(data.frames) do
      local parent, kind, ref, value, self = f[1], f[2], f[3], f[4], f[5]
      if parent < 0 then
        paths[pos - 1] = false -- the root
        assert.equal(1500000, value)
      else
        assert.equal(0, kind, "a frame that is not a function")
        local fn = data.fns[ref + 1]
        local k = assert(key_of_index[fn.i])
        assert.equal(NAME[k], fn.n)
        local path_ = paths[parent] and paths[parent] .. "/" .. k or k
        paths[pos - 1] = path_
        assert.is_nil(got[path_], "two frames for " .. path_)
        got[path_] = { value, self }
      end
    end
    assert.same(TREE, got)
  end)

  it("pprof: a Function per object, named whole, and the samples by hand", function()
    local p <close> = open()
    local msg = assert(require("lgprof.pprof").encode(p))
    local prof = pb.profile(msg)
    local function str(i) return prof.string_table[i + 1] end
    local fn_name, loc_fn, names = {}, {}, {}
    for _, f in ipairs(prof["function"]) do
      fn_name[f.id] = str(f.name)
      assert.is_nil(names[str(f.name)], "two functions named " .. str(f.name))
      names[str(f.name)] = str(f.system_name)
    end
    for _, l in ipairs(prof.location) do loc_fn[l.id] = l.line[1].function_id end
    assert.same({ main = "main", ["init [0x401010]"] = "init", ["init [0x401020]"] = "init",
                  [SEMI] = SEMI, [COLON] = COLON, leaf = "leaf" }, names)
    local got = {}
    for _, s in ipairs(prof.sample) do
      local frames = {}
      for i, id in ipairs(s.location_id) do frames[#s.location_id + 1 - i] = fn_name[loc_fn[id]] end
      got[#got + 1] = { table.concat(frames, "|"), s.value[1], s.value[2] }
    end
    -- samples of 10 ms rounded so that the running sums stay the rounded
    -- exact ones: 50, 90, 97.5, 127.5, 130, 150 round to 50, 90, 98, 128,
    -- 130, 150
    local counts = { 50, 40, 8, 30, 2, 20 }
    local want = {}
    for i, s in ipairs(STACKS) do
      local labels = {}
      for j, k in ipairs(s[1]) do labels[j] = LABEL[k] end
      want[i] = { table.concat(labels, "|"), counts[i], s[2] * 1000 }
    end
    assert.same(want, got)
  end)

  it("speedscope: a frame per object, named whole, open as long as its time", function()
    local p <close> = open()
    local doc = cjson.decode((assert(require("lgprof.speedscope").encode(p))))
    local names = {}
    for i, f in ipairs(doc.shared.frames) do names[i - 1] = f.name end
    local seen = {}
    for _, n in pairs(names) do
      assert.is_nil(seen[n], "two frames named " .. n)
      seen[n] = true
    end
    local got, open_ = {}, {}
    for _, e in ipairs(doc.profiles[1].events) do
      if e.type == "O" then
        open_[#open_ + 1] = { names[e.frame], e.at }
      else
        local path_ = {}
        for i, o in ipairs(open_) do path_[i] = o[1] end
        local o = table.remove(open_)
        assert.equal(names[e.frame], o[1])
        got[table.concat(path_, "|")] = e.at - o[2]
      end
    end
    local want = {}
    for path_, v in pairs(tree_by(function(k) return LABEL[k] end, "|")) do want[path_] = v[1] end
    assert.same(want, got)
  end)

  it("the command draws the same: --format=svg keeps ';' in a frame", function()
    open()
    local status, out, err = cmd.lgprof({ "--format=svg", exe, gmon })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.truthy(out:find('data-us="400000"><title>x;y z (', 1, true), out)
    assert.truthy(out:find('data-us="500000"><title>x:y z (', 1, true), out)
  end)
end)
