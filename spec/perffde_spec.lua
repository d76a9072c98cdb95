-- Functions of stripped code (issue 31, section 1): where no symbol covers
-- an address, its function is the FDE (.eh_frame) that covers it, named
-- "BINARY+0xSTART"; an address no FDE covers stays "[unknown] BINARY+0xADDR";
-- a .dynsym symbol still wins where it covers, even over FDEs inside it.
--
-- A shared library compiled here (gcc -shared -fPIC), stripped with `strip`
-- (its .dynsym kept: alpha and outer are exported), and a perf.data written
-- with helpers.perfwriter sampling its functions at addresses chosen from
-- the unstripped copy's symbols (nm). Every expected name is derived from
-- `readelf --debug-dump=frames` of the stripped file (the FDE's pc=START
-- that holds the address), every count from the samples written below.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"
local lgprof = require "lgprof"
local cjson = require "cjson"

local q = util.q

-- beta and gamma_ are static (no .dynsym entry: anonymous once stripped);
-- outer is exported and holds two FDEs (the second, .Louter_tail, has no
-- symbol of its own); nocfi is a local function with no CFI at all.
local SRC = [[
volatile unsigned long sink;
__attribute__((noinline)) static void beta(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) static void gamma_(long n) { for (long i = 0; i < n; i++) sink ^= i; }
void alpha(long n) { beta(n); gamma_(n); }
__asm__(".text\n"
        ".globl outer\n.type outer, @function\n"
        "outer:\n.cfi_startproc\n nop\n nop\n nop\n nop\n ret\n.cfi_endproc\n"
        ".Louter_tail:\n.cfi_startproc\n nop\n nop\n nop\n nop\n ret\n.cfi_endproc\n"
        ".size outer, .-outer\n"
        ".type nocfi, @function\n"
        "nocfi:\n nop\n nop\n nop\n nop\n ret\n"
        ".size nocfi, .-nocfi\n");
]]

local BIAS = 0x7f0000000000
local PID = 4242
local U = pw.CONTEXT_USER

local TMP = util.mktempdir("lgprof perf-fde")
local full, stripped = TMP .. "/full/libfde.so", TMP .. "/libfde.so"
local syms, text, fdes

-- readelf's FDEs of a file: { { start =, finish = }, ... }
local function readelf_fdes(path)
  local t = {}
  for s, e in util.read_cmd("readelf --debug-dump=frames " .. q(path)):gmatch("FDE cie=%x+ pc=(%x+)%.%.(%x+)") do
    t[#t + 1] = { start = tonumber(s, 16), finish = tonumber(e, 16) }
  end
  return t
end

local function fde_of(addr)
  for _, f in ipairs(fdes) do
    if addr >= f.start and addr < f.finish then return f end
  end
end

local function at(name, off) return BIAS + syms[name].addr + off end

-- the recording: the library's text mapped at BIAS, 7 samples of 1 ms
-- (buildid: the one its MMAP2 record gives, checked against the file)
local function recording(lib, buildid)
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
                                 period = 1000000, ids = { 1 } } } })
  f:comm(PID, PID, "fdeprog", 10, true)
  local start = BIAS + (text.vaddr & ~0xfff)
  local len = ((text.vaddr + text.filesz + 0xfff) & ~0xfff) - (text.vaddr & ~0xfff)
  f:mmap2(PID, PID, start, len, text.offset & ~0xfff, lib, 20, buildid and { buildid = buildid })
  local t = 100
  local function sample(chain)
    t = t + 1
    f:sample({ ip = chain[1], pid = PID, tid = PID, time = t, period = 1000000,
               chain = { U, table.unpack(chain) } })
  end
  -- alpha returns to alpha+N after its calls: a return address inside it
  local ret_alpha = at("alpha", 5)
  sample({ at("beta", 2), ret_alpha })     -- two addresses of beta: one function
  sample({ at("beta", 6), ret_alpha })
  sample({ at("gamma_", 2), ret_alpha })
  sample({ at("alpha", 1) })
  sample({ at("outer", 2) })
  sample({ at("outer", 7) })               -- in .Louter_tail's FDE, inside outer's symbol
  sample({ at("nocfi", 1) })               -- no FDE covers it
  return f
end

local function write(name, f)
  local path = TMP .. "/" .. name
  pw.write(path, f:bytes())
  return path
end

-- name -> { self samples, is_anonymous } of the profile of path, and its dsos
local function functions(path)
  local p = assert(lgprof.open(nil, path, { kallsyms = "" }))
  local t = {}
  for fn in p:functions() do
    if fn.kind == "function" then
      t[fn.name] = { self = fn.samples, anonymous = fn.is_anonymous, dso = fn.dso }
    end
  end
  local dsos = {}
  for d in p:dsos() do dsos[d.path] = d end
  p:close()
  return t, dsos
end

local function hex_name(addr) return ("libfde.so+0x%x"):format(addr) end

describe("functions of stripped code (FDEs)", function()
  setup(function()
    util.spit(TMP .. "/libfde.c", SRC)
    assert(cmd.shell(("mkdir -p %s/full && gcc -O1 -g -shared -fPIC -fasynchronous-unwind-tables "
      .. "-Wl,--build-id -o %s %s && strip -o %s %s"):format(q(TMP), q(full), q(TMP .. "/libfde.c"),
      q(stripped), q(full))) == 0)
    syms = util.code_symbols(full)
    for _, n in ipairs({ "alpha", "beta", "gamma_", "outer", "nocfi" }) do
      assert(syms[n], "nm lists no " .. n)
    end
    text = util.text_segment(stripped)
    fdes = readelf_fdes(stripped)
    assert(#fdes >= 4, "readelf lists too few FDEs")
    -- what the spec's derivations rest on: the stripped file has no
    -- symbol for beta (nm finds none) and keeps alpha and outer in .dynsym
    local dyn = util.read_cmd("nm -D " .. q(stripped))
    assert(dyn:find(" T alpha\n", 1, true) and dyn:find(" T outer\n", 1, true), dyn)
    assert(not util.read_cmd("readelf -S " .. q(stripped)):find("%.symtab"))
  end)
  teardown(function() util.rmtree(TMP) end)

  it("names each FDE without a symbol after its start, and keeps the rest as before", function()
    local beta, gamma, tail, nocfi = fde_of(syms.beta.addr + 2), fde_of(syms.gamma_.addr + 2),
      fde_of(syms.outer.addr + 7), fde_of(syms.nocfi.addr + 1)
    -- gcc's FDE of a function starts at it; the asm's second FDE inside outer
    assert.equal(syms.beta.addr, beta.start)
    assert.equal(syms.gamma_.addr, gamma.start)
    assert.is_truthy(tail and tail.start > syms.outer.addr, "no FDE inside outer")
    assert.is_nil(nocfi)
    local t, dsos = functions(write("stripped.data", recording(stripped)))
    -- beta: 2 samples at two addresses, one row; gamma_: 1
    assert.same({ self = 2, anonymous = true, dso = stripped }, t[hex_name(beta.start)])
    assert.same({ self = 1, anonymous = true, dso = stripped }, t[hex_name(gamma.start)])
    -- outer's symbol covers both of its FDEs: 2 samples, one row
    assert.same({ self = 2, anonymous = false, dso = stripped }, t.outer)
    assert.same({ self = 1, anonymous = false, dso = stripped }, t.alpha)
    -- the address no FDE covers stays per address
    local unknown = ("[unknown] libfde.so+0x%x"):format(syms.nocfi.addr + 1)
    assert.same({ self = 1, anonymous = false, dso = stripped }, t[unknown])
    local n = 0
    for _ in pairs(t) do n = n + 1 end
    assert.equal(5, n)
    -- no .symtab and no debug file: stripped, though .dynsym names two functions
    assert.equal("stripped", dsos[stripped].status)
  end)

  it("gives the same groups under symbol names for the unstripped library", function()
    local s = functions(write("stripped2.data", recording(stripped)))
    local t, dsos = functions(write("full.data", recording(full)))
    assert.equal("ok", dsos[full].status)
    for name, sym in pairs({ beta = "beta", gamma_ = "gamma_" }) do
      local anon = s[hex_name(fde_of(syms[sym].addr).start)]
      assert.equal(anon.self, t[name].self, name)
      assert.is_false(t[name].anonymous)
    end
    assert.equal(s.alpha.self, t.alpha.self)
    assert.equal(s.outer.self, t.outer.self)
  end)

  it("matches an FDE function across recordings of one build only (--diff)", function()
    -- two builds of the library, byte for byte the same code, their build-ids apart
    local ids = { ("\17"):rep(20), ("\34"):rep(20) }
    local libs = {}
    for k, id in ipairs(ids) do
      libs[k] = ("%s/b%d/libfde.so"):format(TMP, k)
      assert(cmd.shell(("mkdir -p %s/b%d && gcc -O1 -g -shared -fPIC -Wl,--build-id=0x%s -o %s %s && strip %s")
        :format(q(TMP), k, ("%02x"):rep(20):format(id:byte(1, -1)), q(libs[k]), q(TMP .. "/libfde.c"),
        q(libs[k]))) == 0)
    end
    local function open(name, k)
      return assert(lgprof.open(nil, write(name, recording(libs[k], ids[k])), { kallsyms = "" }))
    end
    local beta = hex_name(fde_of(syms.beta.addr).start)
    local function row(rows, name)
      for _, r in ipairs(rows) do if r.name == name then return r end end
    end
    -- one build twice: beta's FDE function is one row, in both
    local a, b = open("one-a.data", 1), open("one-b.data", 1)
    local rows = lgprof.diff(a, b, { confidence = 0 })
    assert.equal("common", row(rows, beta).status)
    assert.equal("common", row(rows, "alpha").status)
    a:close(); b:close()
    -- two builds: the named functions match, the anonymous ones do not
    a, b = open("two-a.data", 1), open("two-b.data", 2)
    rows = lgprof.diff(a, b, { confidence = 0 })
    assert.equal("common", row(rows, "alpha").status)
    assert.equal("common", row(rows, "outer").status)
    local statuses = {}
    for _, r in ipairs(rows) do
      if r.name == beta then statuses[#statuses + 1] = r.status end
    end
    table.sort(statuses)
    assert.same({ "added", "removed" }, statuses)
    a:close(); b:close()
  end)

  it("has lgprof doctor count the samples without a name and say how to get symbols", function()
    local doctor = require "lgprof.doctor"
    local function finding(path)
      local p = assert(lgprof.open(nil, path, { kallsyms = "" }))
      local found
      for _, f in ipairs(doctor.diagnose(p)) do
        if f.id == "stripped-dso" then found = f end
      end
      p:close()
      return found
    end
    local f = finding(write("doctor.data", recording(stripped)))
    -- beta's 2 samples, gamma_'s 1, nocfi's 1 ([unknown]): 4 of the 7
    assert.equal(4, f.samples)
    assert.equal("warning", f.severity)          -- 57% > 5%
    assert.same({ { name = "libfde.so (4 samples)", path = stripped, samples = 4 } }, f.binaries)
    assert.truthy(f.message:find("57%", 1, true), f.message)
    for _, word in ipairs({ "debug symbols", "DEBUGINFOD_URLS", "--symfs" }) do
      assert.truthy(f.advice:find(word, 1, true), f.advice)
    end
    assert.is_nil(finding(write("doctor-full.data", recording(full))))
  end)

  -- a copy of the stripped library with bytes of its section NAME replaced
  -- (at offset at in it) by bytes
  local function damaged(name, section, at, bytes)
    local out = TMP .. "/" .. name .. "/libfde.so"
    assert(cmd.shell(("mkdir -p %s && cp %s %s"):format(q(TMP .. "/" .. name), q(stripped), q(out))) == 0)
    local off = util.read_cmd("readelf -SW " .. q(out)):match("%] " .. section:gsub("%p", "%%%0")
      .. "%s+PROGBITS%s+%x+%s+(%x+)")
    local fh = assert(io.open(out, "r+b"))
    fh:seek("set", tonumber(off, 16) + at)
    fh:write(bytes)
    fh:close()
    return out
  end

  it("reads hostile unwind tables without failing: the addresses they do not give stay [unknown]", function()
    local n = #util.read_cmd("readelf -SW " .. q(stripped))  -- (just a size for the garbage)
    local garbage = {}
    for k = 1, 512 do garbage[k] = string.char((k * 97 + n) % 256) end
    local cases = {
      -- the table's entries point outside .eh_frame
      damaged("hdr-out", ".eh_frame_hdr", 12, ("\255\255\255\127"):rep(8)),
      -- the table's count far beyond the section
      damaged("hdr-count", ".eh_frame_hdr", 8, "\255\255\255\127"),
      -- the first CIE's length beyond the section, then garbage everywhere
      damaged("eh-len", ".eh_frame", 0, "\240\255\255\255"),
      damaged("eh-garbage", ".eh_frame", 0, table.concat(garbage)),
      damaged("hdr-garbage", ".eh_frame_hdr", 0, table.concat(garbage, "", 1, 64)),
    }
    for _, lib in ipairs(cases) do
      local status, out, err = cmd.lgprof({ "--format=folded", write("hostile.data", recording(lib)) })
      assert.equal(0, status, lib .. ": " .. err)
      assert.equal("", err)
      -- every sample still counted, each in a function or at its address
      -- (folded weights: microseconds, 1 ms a sample)
      local total = 0
      for count in out:gmatch(" (%d+)\n") do total = total + tonumber(count) end
      assert.equal(7000, total, lib .. ":\n" .. out)
      -- outer keeps its .dynsym name whatever the tables say
      assert.truthy(out:find("\nouter 2000\n", 1, true) or out:find("^outer 2000\n"), out)
    end
  end)

  it("gives each function's binary, its status and is_anonymous in JSON and CSV, at the binary's address", function()
    local path = write("export.data", recording(stripped))
    local beta, tail = fde_of(syms.beta.addr), fde_of(syms.outer.addr + 7)
    -- the rows the first test derives, with the binary's addresses: an FDE
    -- function's its FDE's start and length (readelf's pc=START..END), a
    -- symbol's its own (nm -S), the [unknown] address its one byte
    local unknown = ("[unknown] libfde.so+0x%x"):format(syms.nocfi.addr + 1)
    local want = {
      [hex_name(beta.start)] = { address = beta.start, size = beta.finish - beta.start, anonymous = true },
      alpha = { address = syms.alpha.addr, size = syms.alpha.size, anonymous = false },
      outer = { address = syms.outer.addr, size = syms.outer.size, anonymous = false },
      [unknown] = { address = syms.nocfi.addr + 1, size = 1, anonymous = false },
    }
    assert.is_true(tail.start > syms.outer.addr) -- (outer's two FDEs: one function, outer's range)
    local json = cjson.decode(cmd.lgprof_out({ "--format=json", path }))
    local seen = 0
    for _, fn in ipairs(json.functions) do
      local w = want[fn.name]
      if w then
        seen = seen + 1
        assert.equal(stripped, fn.dso, fn.name)
        assert.equal("stripped", fn.dso_status, fn.name)
        assert.equal(w.anonymous, fn.is_anonymous, fn.name)
        assert.equal(w.address, fn.address, fn.name)
        assert.equal(w.size, fn.size, fn.name)
      end
      -- every function of this recording is the library's
      assert.equal(stripped, fn.dso)
    end
    assert.equal(4, seen)
    local csv = cmd.lgprof_out({ "--format=csv", path })
    local head = csv:match("^([^\r]*)\r\n")
    assert.equal("rank,name,file,line,address,percent_time,cumulative_seconds,self_seconds,calls,self_calls,"
      .. "children_seconds,total_seconds,index,cycle,samples,self_error_seconds,total_min_seconds,"
      .. "total_max_seconds,dso,dso_status,is_anonymous", head)
    seen = 0
    for line in csv:gmatch("\r\n([^\r]+)") do
      local f = {}
      for x in (line .. ","):gmatch("([^,]*),") do f[#f + 1] = x end
      local w = want[f[2]]
      if w then
        seen = seen + 1
        assert.equal(("0x%x"):format(w.address), f[5], f[2])
        assert.same({ stripped, "stripped", w.anonymous and "1" or "0" }, { f[19], f[20], f[21] }, f[2])
      end
    end
    assert.equal(4, seen)
    -- the unstripped library: its functions by name, status ok, none anonymous
    json = cjson.decode(cmd.lgprof_out({ "--format=json", write("export-full.data",
      recording(full)) }))
    for _, fn in ipairs(json.functions) do
      assert.same({ full, "ok", false }, { fn.dso, fn.dso_status, fn.is_anonymous }, fn.name)
      if fn.name == "beta" then assert.equal(syms.beta.addr, fn.address) end
    end
  end)

  it("shows the FDE functions in the report, the call graph and the exports", function()
    local path = write("cli.data", recording(stripped))
    local beta = hex_name(fde_of(syms.beta.addr).start)
    local status, out, err = cmd.lgprof({ "-b", path })
    assert.equal(0, status, err)
    assert.truthy(out:find(beta, 1, true), out)
    assert.falsy(out:find("[unknown] " .. beta, 1, true), out)
    status, out, err = cmd.lgprof({ "--format=folded", path })
    assert.equal(0, status, err)
    -- alpha calls beta: 2 samples on the stack alpha;beta (root first)
    assert.truthy(out:find("alpha;" .. beta .. " 2", 1, true), out)
  end)
end)
