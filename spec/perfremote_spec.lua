-- A perf.data recorded on another machine: its binaries at paths that do not
-- exist here (/home/someone/build/prog), a kernel that is not this one.
-- The recordings are written here (helpers.perfwriter) for the program of
-- helpers.stackprog, compiled here; the recorded path is made up. Counts
-- derived from the stacks written (stackprog.write_stacks's layout: each
-- sample 1 ms):
--   2 samples leaf<-middle<-main, 1 sample other<-main, 1 sample in main:
--   self leaf 2, other 1, main 1 (of 4).
-- What must hold: the image on the command line serves the binary of its
-- build-id (or, without one in the recording, of its file name); a
-- --search-dir folder serves it by build-id (DIR/.build-id/xx/rest[.debug])
-- or by file name (DIR/prog); a kernel whose build-id is not the running
-- one's gets [kernel], never this machine's names, and the doctor says why.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local sp = require "helpers.stackprog"

local q = util.q
local MS = 1000000
local RECORDED = "/home/someone/build/prog"
local STACKS = {
  { frames = { "leaf", "middle", "main" }, periods = { 1, 1 } },
  { frames = { "other", "main" }, periods = { 1 } },
  { frames = { "main" }, periods = { 1 } },
}

local tmp, prog, build_id, build_hex

-- the program's build-id (readelf -n): hex and bytes
local function read_build_id(exe)
  local hex = util.read_cmd("readelf -n " .. q(exe)):match("Build ID: (%x+)")
  assert(hex, "no build-id in " .. exe)
  local bytes = hex:gsub("%x%x", function(b) return string.char(tonumber(b, 16)) end)
  return hex, bytes
end

-- The recording of STACKS with the program mapped from `path`; o.build_id
-- (bytes): the buildids feature names it for path; o.kernel: a kernel
-- sample whose chain has two kernel addresses, o.kernel_id its build-id.
local function recording(path, o)
  o = o or {}
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
    period = 1, ids = { 1 } } } })
  local p = setmetatable({ exe = path }, { __index = prog })
  sp.write_stacks(f, p, STACKS, MS)
  local ids = {}
  if o.build_id then ids[#ids + 1] = { id = o.build_id, path = path } end
  if o.kernel then
    -- addresses of this machine's kernel text, which its kallsyms names
    f:sample({ ip = o.kernel[1], pid = sp.PID, tid = sp.PID, time = 5000, period = MS, misc = 1,
      chain = { pw.CONTEXT_KERNEL, o.kernel[1], o.kernel[2], pw.CONTEXT_USER, sp.addr(prog, "leaf", 4) } })
    f:finished_round()
    if o.kernel_id then ids[#ids + 1] = { id = o.kernel_id, path = "[kernel.kallsyms]", misc = 0x8001 } end
  end
  if #ids > 0 then f:feature("buildids", ids) end
  return f
end

local function write(name, f)
  local path = tmp .. "/" .. name
  pw.write(path, f:bytes())
  return path
end

-- the flat profile's names and shares (-b -p), as name -> percent
local function flat(argv)
  local status, out, err = cmd.lgprof(argv, { cwd = tmp })
  assert.equal(0, status, cmd.show(status, out, err))
  local rows = {}
  for line in out:gmatch("[^\n]+") do
    local share, name = line:match("^ +([%d.]+) +[%d.]+ +[%d.]+ +(%S.-)%s*$")
    if share then rows[name] = tonumber(share) end
  end
  return rows, out
end

-- an empty build-id cache, so that no copy from this machine's ~/.debug serves
local function no_cache() return "--buildid-dir=" .. tmp .. "/empty-cache" end

describe("a recording made on another machine", function()
  setup(function()
    tmp = util.mktempdir("lgprof perfremote")
    prog = sp.shared(tmp)
    build_hex, build_id = read_build_id(prog.exe)
    util.mkdir(tmp .. "/empty-cache")
  end)
  teardown(function() if not os.getenv("KEEP") then util.rmtree(tmp) end end)

  it("names nothing of a binary it cannot find", function()
    local rows, out = flat({ "-b", "-p", no_cache(), write("plain.data", recording(RECORDED, { build_id = build_id })) })
    assert.is_nil(rows.leaf, out)
    assert.truthy(out:find("[unknown]", 1, true), out)
  end)

  it("reads the image given for the binary of its build-id", function()
    local data = write("id.data", recording(RECORDED, { build_id = build_id }))
    local rows, out = flat({ "-b", "-p", no_cache(), prog.exe, data })
    assert.same({ leaf = 50, other = 25, main = 25 }, rows, out)
    -- its path is where the binary was read from (Lua API)
    local p = assert(require("lgprof").open(prog.exe, data, { buildid_dir = tmp .. "/empty-cache" }))
    local found
    for d in p:dsos() do if d.path == RECORDED then found = d end end
    assert.equal(prog.exe, found and found.found)
    assert.equal("ok", found.status)
  end)

  it("does not read an image of another build-id, whatever its name", function()
    local other = tmp .. "/other-build/prog"
    util.mkdir(tmp .. "/other-build")
    util.spit(tmp .. "/other-build/prog.c", sp.SRC .. "\nint another_function(void) { return 1; }\n")
    assert(util.exec_ok(("cc -O1 -g -fno-omit-frame-pointer -fno-inline -Wl,--build-id -o %s %s")
      :format(q(other), q(tmp .. "/other-build/prog.c"))))
    assert.not_equal(build_hex, (read_build_id(other)))
    local rows, out = flat({ "-b", "-p", no_cache(), other, write("id2.data", recording(RECORDED, { build_id = build_id })) })
    assert.is_nil(rows.leaf, out)
  end)

  it("without a build-id recorded, reads the image of the same file name, and only that", function()
    local data = write("noid.data", recording(RECORDED))
    local rows, out = flat({ "-b", "-p", no_cache(), prog.exe, data })
    assert.same({ leaf = 50, other = 25, main = 25 }, rows, out)
    local renamed = tmp .. "/renamed"
    assert(util.exec_ok(("cp %s %s"):format(q(prog.exe), q(renamed))))
    rows, out = flat({ "-b", "-p", no_cache(), renamed, data })
    assert.is_nil(rows.leaf, out)
  end)

  it("--search-dir finds the binary by file name, and by build-id under .build-id/", function()
    local data = write("search.data", recording(RECORDED, { build_id = build_id }))
    local byname = util.mkdir(tmp .. "/byname")
    assert(util.exec_ok(("cp %s %s/prog"):format(q(prog.exe), q(byname))))
    local rows, out = flat({ "-b", "-p", no_cache(), "--search-dir=" .. tmp .. "/nothing-here",
      "--search-dir=" .. byname, data })
    assert.same({ leaf = 50, other = 25, main = 25 }, rows, out)
    -- a debug file by build-id, as DIR/.build-id/xx/rest.debug (a copy of
    -- the binary with its symbols: the debug file's part that names functions)
    local byid = tmp .. "/byid"
    util.mkdir(byid .. "/.build-id/" .. build_hex:sub(1, 2))
    assert(util.exec_ok(("objcopy --only-keep-debug %s %s/.build-id/%s/%s.debug"):format(q(prog.exe), q(byid),
      build_hex:sub(1, 2), build_hex:sub(3))))
    rows, out = flat({ "-b", "-p", no_cache(), "--search-dir", byid, data })
    assert.same({ leaf = 50, other = 25, main = 25 }, rows, out)
    -- a file of that name but another build-id is not it
    local wrong = util.mkdir(tmp .. "/wrong")
    assert(util.exec_ok(("cp %s %s/prog"):format(q(tmp .. "/other-build/prog"), q(wrong))))
    rows, out = flat({ "-b", "-p", no_cache(), "--search-dir=" .. wrong, data })
    assert.is_nil(rows.leaf, out)
  end)

  it("the doctor's unresolved-dso suggests the image and --search-dir", function()
    local status, out = cmd.lgprof({ "doctor", no_cache(), write("doc.data", recording(RECORDED, { build_id = build_id })) },
      { cwd = tmp })
    assert.equal(3, status, out)
    assert.truthy(out:find("unresolved-dso", 1, true), out)
    assert.truthy(out:find("--search-dir=DIR", 1, true), out)
    assert.truthy(out:find("lgprof ./prog perf.data", 1, true), out)
  end)

  describe("kernel", function()
    -- two text symbols of this machine's kernel (kallsyms readable with
    -- addresses: root, or kptr_restrict allowing it)
    local ksyms = {}
    local fh = io.open("/proc/kallsyms")
    for line in fh and fh:lines() or function() end do
      local a, t, n = line:match("^(%x+) ([tT]) ([%w_]+)$")
      if a and tonumber(a, 16) ~= 0 and n ~= "_text" and #ksyms < 2000 then
        ksyms[#ksyms + 1] = { addr = tonumber(a, 16), name = n }
      end
    end
    if fh then fh:close() end
    local notes = util.slurp("/sys/kernel/notes")
    local running = notes and notes:match("GNU%z(" .. ("."):rep(20) .. ")")
    if #ksyms < 2000 or not running then
      pending("this machine's kernel symbols or build-id cannot be read here")
      return
    end
    -- two symbols in the middle of the text, an address inside each
    local a, b = ksyms[1000], ksyms[1500]
    local chain = { a.addr + 1, b.addr + 1 }

    local function names(data)
      local status, out, err = cmd.lgprof({ "--format=folded", no_cache(), prog.exe, data }, { cwd = tmp })
      assert.equal(0, status, cmd.show(status, out, err))
      return out
    end

    it("gets [kernel], never this machine's names, when its build-id is not the running kernel's", function()
      local out = names(write("k-other.data", recording(RECORDED, { build_id = build_id, kernel = chain,
        kernel_id = ("\171"):rep(20) })))
      assert.truthy(out:find("leaf;[kernel] 1000\n", 1, true), out)
      assert.is_nil(out:find(a.name, 1, true), out)
      assert.is_nil(out:find(b.name, 1, true), out)
      -- and without a kernel build-id at all
      out = names(write("k-none.data", recording(RECORDED, { build_id = build_id, kernel = chain })))
      assert.truthy(out:find("leaf;[kernel] 1000\n", 1, true), out)
      assert.is_nil(out:find(a.name, 1, true), out)
    end)

    it("names the running kernel's addresses when the recording's kernel is the running one", function()
      local out = names(write("k-same.data", recording(RECORDED, { build_id = build_id, kernel = chain,
        kernel_id = running })))
      -- a return address (the second) is named from the byte before it
      assert.truthy(out:find("leaf;" .. b.name .. ";" .. a.name .. " 1000\n", 1, true), out)
      assert.is_nil(out:find("[kernel]", 1, true), out)
    end)

    it("the doctor says why the kernel frames have no names", function()
      local data = write("k-doc.data", recording(RECORDED, { build_id = build_id, kernel = chain,
        kernel_id = ("\171"):rep(20) }))
      local status, out = cmd.lgprof({ "doctor", "--format=json", no_cache(), prog.exe, data }, { cwd = tmp })
      assert.is_true(status == 0 or status == 3, out)
      local doc = require("cjson").decode(out)
      local found
      for _, f in ipairs(doc.findings or doc) do if f.id == "kernel-hidden" then found = f end end
      assert.truthy(found, out)
      assert.matches("another kernel than the running one", found.message)
      assert.matches("%-%-buildid%-dir", found.advice)
    end)
  end)
end)
