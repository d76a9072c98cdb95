-- A separate debug file whose DWARF is compressed (objcopy
-- --compress-debug-sections=zlib, as Debian's -dbg packages ship them) is
-- read from an in-memory copy with its sections inflated once
-- (csrc/core/read/perf/debugcopy.c): what lgprof makes of it must be what
-- it makes of the same debug file decompressed by objcopy, and the counter
-- debug_inflated (spec/unit/perfstacks.c) says when the copy was made.
-- The recordings are written here (helpers.perfwriter) for a program
-- compiled here; the inlined frames expected are addr2line -i's.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"

local q = util.q
local tmp, dump, seg, pick, want, mainaddr
local BIAS = 0x555555554000

local SRC = [[
volatile unsigned long sink;
static inline __attribute__((always_inline)) void mix(unsigned long i) { sink += i * 7; }
static inline __attribute__((always_inline)) void kernel_loop(long n) { for (long i = 0; i < n; i++) mix(i); }
__attribute__((noinline)) void outer(long n) { kernel_loop(n); }
int main(void) { outer(100); return 0; }
]]

local function sh(line)
  local status, out, err = cmd.shell(line)
  assert(status == 0, line .. "\n" .. out .. err)
  return out
end

-- the dump tool's event line and stacks
local function stacks(path)
  local status, out, err = cmd.shell(q(dump) .. " --buildid-dir " .. q(tmp .. "/no-cache") .. " " .. q(path))
  local r = { stacks = {}, out = out, err = err, status = status }
  for l in out:gmatch("[^\n]+") do
    local f = {}
    for x in (l .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = x end
    if f[1] == "event" then
      r.elf_opens, r.debug_inflated = tonumber(f[12]), tonumber(f[13])
    elseif f[1] == "stack" then
      r.stacks[f[7]] = (r.stacks[f[7]] or 0) + tonumber(f[4])
    end
  end
  return r
end

-- the names of the frames of a stack ("a@f.c:1;b@f.c:2" -> "a;b")
local function names(frames)
  local t = {}
  for fr in (frames .. ";"):gmatch("([^;]*);") do t[#t + 1] = (fr:gsub("@[^@]*$", "")) end
  return table.concat(t, ";")
end

-- dir/prog (stripped, its debug link naming prog.debug) and dir/prog.debug
local function install(dir, debugfile)
  sh("mkdir -p " .. q(dir))
  sh("cp " .. q(debugfile) .. " " .. q(dir .. "/prog.debug"))
  sh("objcopy --strip-debug --add-gnu-debuglink=" .. q(dir .. "/prog.debug") .. " "
    .. q(tmp .. "/prog") .. " " .. q(dir .. "/prog"))
  return dir .. "/prog"
end

-- two samples at the inlined address, one in main, for the binary at exe
local function recording(exe, name)
  local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD, period = 1, ids = { 1 } } } })
  f:comm(7, 7, "prog", 1, true)
  f:mmap2(7, 7, BIAS + (seg.vaddr & ~0xfff), 0x1000 + seg.filesz, seg.offset & ~0xfff, exe, 2)
  f:sample({ ip = BIAS + pick, pid = 7, tid = 7, time = 5, period = 1 })
  f:sample({ ip = BIAS + pick, pid = 7, tid = 7, time = 6, period = 1 })
  f:sample({ ip = BIAS + mainaddr, pid = 7, tid = 7, time = 7, period = 1 })
  local path = tmp .. "/" .. name
  pw.write(path, f:bytes())
  return path
end

-- the offset of section name's header's sh_offset in an ELF64 file
local function section_offset(path, name)
  for n, off in util.read_cmd("readelf -SW " .. q(path) .. " 2>/dev/null"):gmatch("%] (%S+)%s+%S+%s+%x+%s+(%x+)") do
    if n == name then return tonumber(off, 16) end
  end
  error("no section " .. name .. " in " .. path)
end

describe("compressed separate debug files", function()
  setup(function()
    tmp = util.mktempdir("lgprof perf-debugcopy")
    dump = tmp .. "/perfstacks"
    cmd.build_core_program(cmd.ROOT .. "/spec/unit/perfstacks.c", dump)
    util.spit(tmp .. "/prog.c", SRC)
    sh("cd " .. q(tmp) .. " && cc -O2 -g -Wl,--build-id -o prog prog.c")
    sh("objcopy --only-keep-debug --compress-debug-sections=zlib " .. q(tmp .. "/prog") .. " "
      .. q(tmp .. "/zlib.debug"))
    sh("objcopy --decompress-debug-sections " .. q(tmp .. "/zlib.debug") .. " " .. q(tmp .. "/plain.debug"))
    assert.truthy(util.read_cmd("readelf -SW " .. q(tmp .. "/zlib.debug") .. " 2>/dev/null"):find("debug_info[^\n]+ C "))
    assert.falsy(util.read_cmd("readelf -SW " .. q(tmp .. "/plain.debug") .. " 2>/dev/null"):find("debug_info[^\n]+ C "))
    seg = util.text_segment(tmp .. "/prog")
    mainaddr = util.code_symbols(tmp .. "/prog").main.addr
    -- an address of outer inside two inlined functions, and the frames
    -- addr2line -i gives it, innermost first
    local a, size = util.read_cmd("nm -S " .. q(tmp .. "/prog")):match("(%x+) (%x+) T outer")
    a, size = tonumber(a, 16), tonumber(size, 16)
    local addrs = {}
    for k = 0, size - 1 do addrs[#addrs + 1] = ("0x%x"):format(a + k) end
    local out = util.read_cmd("addr2line -a -f -i -e " .. q(tmp .. "/prog") .. " " .. table.concat(addrs, " "))
    local cur, best
    for l in out:gmatch("[^\n]+") do
      if l:match("^0x%x+$") then
        cur = { addr = tonumber(l), names = {}, lines = {} }
        if not best then best = cur end
      elseif cur and not l:find(":") then
        cur.names[#cur.names + 1] = l
      elseif cur then
        cur.lines[#cur.lines + 1] = l:match("([^/]+:%d+)")
        if #cur.names >= 2 and #cur.names > #best.names then best = cur end
      end
    end
    assert(#best.names >= 3, "no address of outer inside mix inside kernel_loop:\n" .. out)
    pick = best.addr
    -- "mix@prog.c:L;kernel_loop@prog.c:L;outer@prog.c:L"
    local t = {}
    for i, n in ipairs(best.names) do t[i] = n .. "@" .. best.lines[i] end
    want = table.concat(t, ";")
  end)
  teardown(function() util.rmtree(tmp) end)

  it("gives the inlined frames and lines of the decompressed file, once inflated", function()
    local z = stacks(recording(install(tmp .. "/z", tmp .. "/zlib.debug"), "z.data"))
    local p = stacks(recording(install(tmp .. "/p", tmp .. "/plain.debug"), "p.data"))
    assert.equal(0, z.status, z.err)
    assert.equal(0, p.status, p.err)
    assert.equal(2, z.stacks[want], z.out)
    assert.same(p.stacks, z.stacks)
    local total = 0
    for frames, n in pairs(z.stacks) do
      total = total + n
      if frames ~= want then assert.equal("main", names(frames)) end
    end
    assert.equal(3, total)
    assert.equal(1, z.debug_inflated)
    assert.equal(0, p.debug_inflated)
  end)

  it("prints the same reports from either file", function()
    local zexe = install(tmp .. "/rz", tmp .. "/zlib.debug")
    local pexe = install(tmp .. "/rp", tmp .. "/plain.debug")
    local zdata, pdata = recording(zexe, "rz.data"), recording(pexe, "rp.data")
    for _, opts in ipairs({ {}, { "-l" }, { "-q" } }) do
      local za = { table.unpack(opts) }
      za[#za + 1], za[#za + 2] = zexe, zdata
      local pa = { table.unpack(opts) }
      pa[#pa + 1], pa[#pa + 2] = pexe, pdata
      local zs, zo, ze = cmd.lgprof(za, { cwd = tmp })
      local ps, po, pe = cmd.lgprof(pa, { cwd = tmp })
      assert.equal(0, zs, ze)
      assert.equal(0, ps, pe)
      -- the reports name their files: the same but for the directory
      assert.equal((po:gsub("/rp/", "/R/")), (zo:gsub("/rz/", "/R/")))
      assert.truthy(zo:find("kernel_loop", 1, true), zo)
    end
  end)

  it("does not load debuginfod's client for a binary with no debug file when no server is set", function()
    -- a copy without DWARF, with a build-id and no debug link: no debug file at
    -- any place the standard search looks; the dynamic loader's log
    -- (LD_DEBUG=files) names every library loaded
    local dir = tmp .. "/nodebug"
    sh("mkdir -p " .. q(dir) .. " && strip --strip-debug -o " .. q(dir .. "/prog") .. " " .. q(tmp .. "/prog"))
    local data = recording(dir .. "/prog", "nodebug.data")
    local env = "env -u DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH=" .. q(tmp .. "/dcache") .. " LD_DEBUG=files "
    local s, out, err = cmd.lgprof({ dir .. "/prog", data }, { prefix = env })
    assert.equal(0, s, err)
    assert.truthy(out:find("main", 1, true), out)
    assert.falsy(err:find("libdebuginfod", 1, true), err)
    -- with a server named, libdwfl's standard search asks it (nothing
    -- listens at port 9: refused at once), so the log can show it
    s, out, err = cmd.lgprof({ dir .. "/prog", data },
      { prefix = env .. "DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_TIMEOUT=2 " })
    assert.equal(0, s, err)
    assert.truthy(err:find("libdebuginfod", 1, true), err)
  end)

  it("reads the file itself when a compressed section's size lies, its compression is another, or it overlaps another", function()
    local bytes = util.slurp(tmp .. "/zlib.debug")
    local off = section_offset(tmp .. "/zlib.debug", ".debug_info")
    -- Elf64_Chdr: ch_type, ch_reserved, ch_size, ch_addralign
    local ctype, size = string.unpack("<I4", bytes, off + 1), string.unpack("<I8", bytes, off + 9)
    assert.equal(1, ctype)
    local bads = {}
    for _, lie in ipairs({ size + 1, size - 1, 1 << 50, 0 }) do
      bads[#bads + 1] = bytes:sub(1, off + 8) .. string.pack("<I8", lie) .. bytes:sub(off + 17)
    end
    -- ELFCOMPRESS_ZSTD (2) over zlib's stream: not inflated here
    bads[#bads + 1] = bytes:sub(1, off) .. string.pack("<I4", 2) .. bytes:sub(off + 5)
    -- .symtab's header says it starts inside .debug_info's bytes, which the
    -- copy leaves out: not copied (Elf64_Ehdr's e_shoff at 0x28; a
    -- section header is 64 bytes, its sh_offset at 24)
    local shoff = string.unpack("<I8", bytes, 0x28 + 1)
    local symtab = tonumber(util.read_cmd("readelf -SW " .. q(tmp .. "/zlib.debug") .. " 2>/dev/null")
      :match("%[%s*(%d+)%] %.symtab "))
    local at = shoff + 64 * symtab + 24
    bads[#bads + 1] = bytes:sub(1, at) .. string.pack("<I8", off + 16) .. bytes:sub(at + 9)
    for lie, bad in ipairs(bads) do
      local path = tmp .. "/lie.debug"
      util.spit(path, bad)
      local r = stacks(recording(install(tmp .. "/lie" .. lie, path), "lie.data"))
      assert.equal(0, r.status, r.err)
      assert.equal("", r.err)
      assert.equal(0, r.debug_inflated)
      local total = 0
      for _, n in pairs(r.stacks) do total = total + n end
      assert.equal(3, total)
    end
  end)
end)
