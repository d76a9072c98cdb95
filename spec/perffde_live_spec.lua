-- Functions of a stripped system library on a real recording (issue 31,
-- sections 1, 2 and 4): a program compressing with the system's libz.so.1
-- (Debian's has no .symtab, no debug file and no frame pointers) in two
-- threads, recorded by `lgprof record` with its default choice of
-- unwinding: where libz keeps no frame pointers that choice is DWARF, and
-- the stacks must hold through libz by default. A live run samples
-- differently each time, so only what holds of any run is asserted, all on
-- that one recording:
--  - every libz row without a symbol is an FDE function whose start is an
--    FDE start of `readelf --debug-dump=frames`, and there are at most as
--    many libz rows as libz FDEs perf's samples fall in;
--  - the compressing thread function's total is at least 90 % of the
--    samples (its stacks reach it through libz's CFI);
--  - `--by=thread` has the threads of `perf report --sort pid` (perf's
--    per-thread key, TID:COMM), with the same sample counts;
--  - the HTML page names the program, not libz;
--  - each function's self and children equal `perf report --no-children`
--    and `--children` (in samples), an FDE function's being the sum of
--    perf's rows of the addresses inside it (perf names each sampled
--    address of stripped code on its own).
-- The known differences of naming, each handled below where it arises:
--  - perf names each entry of the PLT after its relocation (memcpy@plt);
--    lgprof has the PLT's one FDE as one function, so perf's @plt rows of
--    libz count for that FDE;
--  - perf and lgprof may pick different names among the aliases of one
--    address (libc's clone3 and __clone3, free and cfree):
--    helpers.perflabels.aliases gives both one name;
--  - perf names a caller frame by its return address as it is, lgprof by
--    the call (the address less 1): where the call is a function's last
--    instruction (ld.so's `call _dl_start` before the label
--    _dl_start_user), perf's children move (helpers.perflabels.moves);
--  - with --children, perf keeps an address of stripped code twice: the
--    sample's own entry at the binary's address (its self) and the chain's
--    entry at the process's address (every sample whose chain holds it),
--    so an FDE function's children are the sum of the chain's entries;
--    and perf counts a sample once per distinct address, lgprof once per
--    function: what a sample with two addresses in one FDE adds twice is
--    counted from perf script on the same file and taken off.
-- Pending, with the reason, where perf cannot record or libz is not the
-- stripped one.
local lgprof = require "lgprof"
local H = require "helpers"
local util, cmd = H.util, H.cmd
local labels = require "helpers.perflabels"

local q = util.q
local TMP = util.mktempdir("lgprof-perffde-live")

local SRC = [[
#include <pthread.h>
#include <stdlib.h>
#include <zlib.h>
static unsigned char input[1 << 20];
__attribute__((noinline)) static void *compress_loop(void *arg) {
  static unsigned char out[2 << 20];
  unsigned long total = 0;
  (void)arg;
  for (int round = 0; round < 6; round++) {
    uLongf len = sizeof out;
    if (compress2(out, &len, input, sizeof input, 6) != Z_OK) abort();
    total += len;
  }
  return (void *)total;
}
int main(void) {
  unsigned int x = 12345;
  for (size_t i = 0; i < sizeof input; i++) {
    x = x * 1103515245 + 12345;
    input[i] = "abcdefgh  \n"[(x >> 16) % 11];
  }
  pthread_t t[2];
  for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, compress_loop, NULL);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  return 0;
}
]]

-- the program's libz (ldd), or nil and why not
local function libz_of(exe)
  local path = util.read_cmd("ldd " .. q(exe)):match("libz%.so%.1 => (%S+)")
  if not path then return nil, "ldd finds no libz.so.1" end
  path = util.read_cmd("readlink -f " .. q(path)):gsub("\n$", "")
  if util.read_cmd("readelf -S " .. q(path)):find("%.symtab") then
    return nil, "this system's libz has a .symtab: nothing anonymous to show"
  end
  return path
end

-- builds the program and records it with lgprof record's default choice:
-- libz's path and the choice --dry-run states, or nil and why not
local function record()
  if not util.have("perf") then return nil, "perf is not installed" end
  util.spit(TMP .. "/zprog.c", SRC)
  local status, out, err = cmd.shell("cc -O1 -g -fno-omit-frame-pointer -o zprog zprog.c -lz -lpthread",
    { cwd = TMP })
  if status ~= 0 then return nil, "cc failed (zlib1g-dev?): " .. out .. err end
  local libz, why = libz_of(TMP .. "/zprog")
  if not libz then return nil, why end
  status, out, err = cmd.lgprof({ "record", "--dry-run", "-o", "z.data", "--", "./zprog" }, { cwd = TMP })
  if status ~= 0 then return nil, "lgprof record --dry-run fails here: " .. (out .. err):gsub("\n", " ") end
  local choice = out:match("# unwinding: ([^\n]*)") or out
  status, out, err = cmd.lgprof({ "record", "-o", "z.data", "--", "./zprog" }, { cwd = TMP })
  if status ~= 0 then return nil, "lgprof record does not work here: " .. (out .. err):gsub("\n", " ") end
  return libz, choice
end

-- readelf's FDEs of a file, by start: { { start, finish } ... } sorted
local function readelf_fdes(path)
  local t = {}
  for s, e in util.read_cmd("readelf --debug-dump=frames " .. q(path)):gmatch("FDE cie=%x+ pc=(%x+)%.%.(%x+)") do
    t[#t + 1] = { start = tonumber(s, 16), finish = tonumber(e, 16) }
  end
  table.sort(t, function(a, b) return a.start < b.start end)
  return t
end

-- The binary's addresses of its file offsets (its LOAD segments)
local function segments(path)
  local t = {}
  for off, vaddr, filesz in util.read_cmd("readelf -lW " .. q(path))
      :gmatch("LOAD%s+0x(%x+)%s+0x(%x+)%s+0x%x+%s+0x(%x+)") do
    t[#t + 1] = { off = tonumber(off, 16), vaddr = tonumber(vaddr, 16), size = tonumber(filesz, 16) }
  end
  return t
end

describe("functions of a stripped system library on a live recording by lgprof record's default", function()
  local libz, choice = record()
  if not libz then
    pending(choice)
    return
  end
  teardown(function() util.rmtree(TMP) end)
  io.stderr:write("# perffde_live: lgprof record chose " .. choice .. "\n")
  local path = TMP .. "/z.data"
  local base = libz:match("[^/]*$")
  local function literal(x) return (x:gsub("%p", "%%%0")) end

  -- The binaries of the recording (perf script's MMAP events): by path,
  -- their mappings { start, finish, pgoff }; by file name, the path
  local maps, by_name = {}, {}
  local out = util.read_cmd(("perf script -i %s --show-mmap-events 2>/dev/null"):format(q(path)))
  for l in out:gmatch("[^\n]*PERF_RECORD_MMAP[^\n]*") do
    local start, len, pgoff, file = l:match("%[0x(%x+)%(0x(%x+)%) @ (%S+) .-%]: %S+ (/.-)%s*$")
    if start then
      start = tonumber(start, 16)
      maps[file] = maps[file] or {}
      table.insert(maps[file], { start = start, finish = start + tonumber(len, 16), pgoff = tonumber(pgoff) })
      by_name[file:match("[^/]*$")] = file
    end
  end

  -- A binary of the recording, as both tools see its code without
  -- symbols: b.fdes (readelf's), b.fde_of(addr), b.plt_fde (the FDE of
  -- its .plt: perf's X@plt rows), b.address(a) (its own address of an
  -- address perf prints: the binary's, or the process's inside one of its
  -- mappings; and whether it was the process's), b.key(addr) (the name
  -- lgprof gives the function at addr when no symbol covers it)
  local binaries = {}
  local function binary(file)
    if binaries[file] then return binaries[file] end
    local b = { path = file, base = file:match("[^/]*$"), fdes = readelf_fdes(file) }
    local fdes = b.fdes
    -- (a binary search: a sample per address, 100s of FDEs)
    function b.fde_of(addr)
      local lo, hi = 1, #fdes
      while lo <= hi do
        local mid = (lo + hi) // 2
        local f = fdes[mid]
        if addr < f.start then hi = mid - 1
        elseif addr >= f.finish then lo = mid + 1
        else return f end
      end
    end
    local plt = util.read_cmd("readelf -SW " .. q(file)):match("%] %.plt%s+PROGBITS%s+(%x+)")
    b.plt_fde = plt and b.fde_of(tonumber(plt, 16))
    local segs = segments(file)
    function b.address(a)
      for _, m in ipairs(maps[file] or {}) do
        if a >= m.start and a < m.finish then
          local off = a - m.start + m.pgoff
          for _, s in ipairs(segs) do
            if off >= s.off and off < s.off + s.size then return off - s.off + s.vaddr, true end
          end
        end
      end
      return a, false
    end
    function b.key(addr)
      local f = b.fde_of(addr)
      return f and ("%s+0x%x"):format(b.base, f.start) or ("[unknown] %s+0x%x"):format(b.base, addr)
    end
    binaries[file] = b
    return b
  end
  local z = binary(libz)
  local alias = labels.aliases(path)

  -- perf report's rows by lgprof's name: { [key] = { self =, children =, rows = } }
  -- in samples (see below), and the number of samples
  local perf_rows, perf_total
  local function perf_report()
    if perf_rows then return perf_rows, perf_total end
    local status, report = cmd.shell(("perf report -i %s --stdio -g none --no-inline --children --sort dso,sym "
      .. "-F overhead_children,overhead,sample,period,dso,sym 2>/dev/null"):format(q(path)))
    assert.equal(0, status)
    local rows, n, period = {}, 0, nil
    for l in report:gmatch("[^\n]+") do
      local children, _, samples, weight, dso, _, sym =
        l:match("^%s*([%d.]+)%%%s+([%d.]+)%%%s+(%d+)%s+(%d+)%s+(%S+)%s+%[([.k])%]%s+(.-)%s*$")
      if children then
        samples, weight = tonumber(samples), tonumber(weight)
        rows[#rows + 1] = { children = tonumber(children), samples = samples, dso = dso, sym = sym }
        n = n + samples
        -- every sample of the recording weighs the same (cpu-clock at
        -- -F 999: 1001001 ns), so that a percentage gives samples
        if samples > 0 then
          period = period or weight // samples
          assert.equal(period * samples, weight, "samples of unequal periods: " .. l)
        end
      end
    end
    -- perf prints children to 0.01 %: with fewer than 10,000 samples (a
    -- sample is more than 0.01 %) the nearest whole number of samples is
    -- the one perf counted
    assert.is_true(n > 0 and n < 10000, n .. " samples")
    local by = {}
    for _, r in ipairs(rows) do
      local key = alias(r.sym)
      local b = by_name[r.dso] and binary(by_name[r.dso])
      local addr, process = r.sym:match("^0x(%x+)$"), false
      if addr and b then
        local a
        a, process = b.address(tonumber(addr, 16))
        key = b.key(a)
      elseif b and r.sym:find("@plt$") and b.plt_fde then
        key = ("%s+0x%x"):format(b.base, b.plt_fde.start)
      end
      local t = by[key] or { self = 0, children = 0, rows = 0 }
      local children = math.floor(r.children * n / 100 + 0.5)
      t.self = t.self + r.samples
      if addr and b and not process then
        -- an address of code without symbols: the chain's entry (the
        -- process's address) holds its children, the sample's own (the
        -- binary's address) only its self
        t.children = t.children + children - r.samples
      else
        t.children = t.children + children
      end
      t.rows = t.rows + 1
      by[key] = t
    end
    perf_rows, perf_total = by, n
    return by, n
  end

  -- perf script's samples: list of { period, frames = { { ip, sym, dso } } }
  local function perf_samples()
    local out = util.read_cmd(("perf script -i %s -F period,ip,sym,dso 2>/dev/null"):format(q(path)))
    local list, cur = {}, nil
    for line in (out .. "\n"):gmatch("([^\n]*)\n") do
      local period = line:match("^%s*(%d+)%s*$")
      if period then
        cur = { period = tonumber(period), frames = {} }
        list[#list + 1] = cur
      elseif cur and not line:find(" %(inlined%)$") then
        local ip, sym, dso = line:match("^%s+(%x+) (.-) %((.*)%)$")
        if ip then cur.frames[#cur.frames + 1] = { ip = tonumber(ip, 16), sym = sym, dso = dso } end
      end
    end
    return list
  end

  it("makes each libz function without a symbol an FDE function, no more rows than FDEs sampled", function()
    local rows = perf_report()
    -- the libz FDEs perf's samples fall in (its rows of libz addresses and
    -- libz symbols: the FDE at the symbol's start), and the addresses no
    -- FDE covers
    local sampled = {}
    local dynsym = {}
    for a, name in util.read_cmd("nm -D --defined-only " .. q(libz)):gmatch("(%x+) [tTwWiI] ([^@\n]+)") do
      dynsym[name] = tonumber(a, 16)
    end
    for key in pairs(rows) do
      local start = tonumber(key:match("^" .. literal(base) .. "%+0x(%x+)$") or "", 16)
      if start or key:find("^%[unknown%] " .. literal(base)) then sampled[key] = true
      elseif dynsym[key] and z.fde_of(dynsym[key]) then
        sampled[("%s+0x%x"):format(base, z.fde_of(dynsym[key]).start)] = true
      end
    end
    local n_sampled = 0
    for _ in pairs(sampled) do n_sampled = n_sampled + 1 end

    local p = assert(lgprof.open(nil, path))
    local count, anonymous = 0, 0
    for fn in p:functions() do
      if fn.kind == "function" and fn.dso == libz and fn.total > 0 then
        count = count + 1
        if fn.is_anonymous then
          anonymous = anonymous + 1
          local start = tonumber(fn.name:match("^" .. literal(base) .. "%+0x(%x+)$") or "", 16)
          assert.truthy(start and z.fde_of(start) and z.fde_of(start).start == start, fn.name .. " does not start at an FDE of " .. libz)
          assert.equal(start, fn.address)
        end
        -- per address only where no FDE covers it (.init, say)
        local at = fn.name:match("^%[unknown%] .-%+0x(%x+)$")
        if at then assert.is_nil(z.fde_of(tonumber(at, 16)), fn.name .. " is in an FDE") end
      end
    end
    assert.is_true(anonymous >= 1, "no sample in libz's functions without a symbol")
    assert.is_true(count <= n_sampled, ("%d libz rows, %d libz FDEs sampled"):format(count, n_sampled))
    local d
    for x in p:dsos() do if x.path == libz then d = x end end
    assert.equal("stripped", d.status)
    p:close()
  end)

  it("keeps the compressing thread's stacks: its function's total is at least 90% of the samples", function()
    -- Outside compress_loop the program runs ld.so, fills 1 MB in main
    -- and starts and joins two threads: 0.6 % to 1.2 % of the samples in
    -- 12 recordings here (1,145 to 1,304 samples each, at load 8); the
    -- rest is the threads' 2 x 6 compressions of 1 MB. Taking each sample
    -- as outside with p = 0.02 at most (above every run seen), 10 %
    -- outside of n samples has odds below exp(-n D(0.1 || 0.02))
    -- (Chernoff), D = 0.1 ln 5 + 0.9 ln(0.9/0.98) = 0.084: below 1e-4 from
    -- n = 110 on, which is asserted first (a 1.2 s program sampled at
    -- 999 Hz). A chain cut short in libz (no frame pointers, no CFI)
    -- falls outside: the point of the check.
    local p = assert(lgprof.open(nil, path))
    local total
    for fn in p:functions() do
      if fn.kind == "function" and fn.name == "compress_loop" then total = fn.total end
    end
    local n = 0
    for t in p:threads() do n = n + t.samples end
    if n < 110 then
      p:close()
      return pending(("the recording lost timer ticks: %d samples, under 110"):format(n))
    end
    assert.is_true(total / p.total_time >= 0.90,
      ("compress_loop's total is %.1f%% of the samples"):format(100 * total / p.total_time))
    p:close()
  end)

  it("--by=thread gives the threads of perf report --sort pid, with its sample counts", function()
    local status, out = cmd.shell(("perf report -i %s --stdio -g none --no-children -n --sort pid 2>/dev/null")
      :format(q(path)))
    assert.equal(0, status)
    local theirs = {}
    for samples, tid, comm in out:gmatch("\n%s*[%d.]+%%%s+(%d+)%s+(%d+):(%S+)") do
      theirs[tid .. ":" .. comm] = tonumber(samples)
    end
    local mine = {}
    local csv = cmd.lgprof_out({ "--by=thread", "--format=csv", path })
    local head = csv:match("^([^\n]*)")
    assert.equal("tid,thread_comm,samples,", head:sub(1, 24))
    for tid, comm, samples in csv:gmatch("\n(%d+),([^,\n]*),(%d+),") do
      mine[tid .. ":" .. comm] = tonumber(samples)
    end
    -- the main thread and the two compressing ones at least
    local n = 0
    for _ in pairs(theirs) do n = n + 1 end
    assert.is_true(n >= 3, out)
    assert.same(theirs, mine)
    -- the text: the same rows
    local text = cmd.lgprof_out({ "--by=thread", path })
    for key, samples in pairs(theirs) do
      assert.matches("\n%s*" .. samples .. "%s+[%d.]+ ± [%d.]+%s+[%d.]+%%%s+" .. key:gsub("%p", "%%%0") .. "%s", text)
    end
  end)

  it("names the program on the HTML page, not libz", function()
    local html = cmd.lgprof_out({ "--format=html", path })
    assert.truthy(html:find("<title>lgprof: zprog</title>", 1, true), html:match("<title>.-</title>"))
    assert.truthy(html:find('"program":"' .. TMP .. '/zprog"', 1, true))
    assert.is_nil(html:match("<title>[^<]*libz"))
  end)

  -- lgprof's self and total of each function by key, in samples
  local function lgprof_counts()
    local p = assert(lgprof.open(nil, path, { no_inline = true }))
    local per = p.total_time / perf_total -- one sample's seconds
    local t = {}
    for fn in p:functions() do
      if fn.kind == "function" and fn.total > 0 then
        local key = (fn.is_anonymous or fn.name:find("^%[unknown%] ")) and fn.name or alias(fn.name)
        local x = t[key] or { self = 0, total = 0 }
        x.self = x.self + math.floor(fn.self / per + 0.5)
        x.total = x.total + math.floor(fn.total / per + 0.5)
        t[key] = x
      end
    end
    p:close()
    return t
  end

  it("gives each function perf report --no-children's self, an FDE function its addresses' sum", function()
    local theirs = perf_report()
    local mine = lgprof_counts()
    local compared, anonymous = 0, 0
    for key, x in pairs(mine) do
      if x.self > 0 or (theirs[key] and theirs[key].self > 0) then
        local t = theirs[key] or { self = 0, rows = 0 }
        assert.equal(t.self, x.self, ("%s: self %d samples, perf %d (%d rows)"):format(key, x.self, t.self, t.rows))
        compared = compared + 1
        if key:find("^" .. literal(base) .. "%+") then anonymous = anonymous + 1 end
      end
    end
    for key, t in pairs(theirs) do
      assert.is_true(t.self == 0 or mine[key] ~= nil, key .. " has perf's self samples, not lgprof's")
    end
    assert.is_true(compared >= 3 and anonymous >= 1)
  end)

  it("gives each function perf report --children's share, an FDE function its addresses' sum", function()
    local theirs = perf_report()
    -- what perf counts twice in an FDE function, sample by sample: the
    -- distinct addresses of a chain inside it (perf's entries), against
    -- one for the function (lgprof's, which looks a return address up
    -- less 1: a caller's frame under a user frame)
    local twice = {}
    -- the samples whose chain holds such a return address (see below):
    -- perf's unwinder stops there, lgprof's goes on to its callers
    local past_noreturn = 0
    for _, s in ipairs(perf_samples()) do
      local stops = false
      local perf_count, lg = {}, {}
      local seen = {}
      for k, fr in ipairs(s.frames) do
        if fr.sym == "[unknown]" and maps[fr.dso] then
          local b = binary(fr.dso)
          local a = b.address(fr.ip)
          if not seen[fr.dso .. a] then
            seen[fr.dso .. a] = true
            local key = b.key(a)
            perf_count[key] = (perf_count[key] or 0) + 1
          end
          local ret = k > 1 and not s.frames[k - 1].dso:find("^%[")
          -- lgprof's name of the address (a return address less 1): a
          -- symbol's where the binary has symbols (perf's [unknown] there
          -- is a return address past a noreturn call's function, in the
          -- padding before the next: libc's exit, with its debug file),
          -- else its FDE's
          local x = ret and a - 1 or a
          local named = labels.name_at(fr.dso, x)
          lg[named and alias(named) or b.key(x)] = true
          if named and ret then stops = true end
        end
      end
      for key, c in pairs(perf_count) do
        local extra = c - (lg[key] and 1 or 0)
        if extra ~= 0 then twice[key] = (twice[key] or 0) + extra end
      end
      for key in pairs(lg) do
        if not perf_count[key] then twice[key] = (twice[key] or 0) - 1 end
      end
      if stops then past_noreturn = past_noreturn + 1 end
    end
    local children = {}
    for key, t in pairs(theirs) do children[key] = t.children - (twice[key] or 0) end
    -- (a function only lgprof names in those chains: perf has no row of it)
    for key, n in pairs(twice) do
      if not theirs[key] and n < 0 then children[key] = -n end
    end
    -- perf's children in percent for helpers.perflabels' moves
    local shares = {}
    for key, c in pairs(children) do shares[key] = 100 * c / perf_total end
    labels.apply(shares, labels.moves(path), alias)
    local mine = lgprof_counts()
    local compared, anonymous = 0, 0
    for key, x in pairs(mine) do
      local want = math.floor((shares[key] or 0) * perf_total / 100 + 0.5)
      -- (lgprof's unwinding goes on past a return address perf's stops at,
      -- the padding after a noreturn call: those samples' callers of it
      -- (__libc_start_call_main, _start...) count in lgprof's children and
      -- not in perf's, at most once per such sample, counted above from
      -- perf script; in a run without one the counts are equal)
      local msg = ("%s: total %d samples, perf %d (%d rows; %d samples past a noreturn call)"):format(key,
        x.total, want, theirs[key] and theirs[key].rows or 0, past_noreturn)
      assert.is_true(x.total >= want and x.total - want <= past_noreturn, msg)
      compared = compared + 1
      if key:find("^" .. literal(base) .. "%+") then anonymous = anonymous + 1 end
    end
    for key, pct in pairs(shares) do
      assert.is_true(pct < 0.5 / perf_total * 100 or mine[key] ~= nil, key .. " has perf's children, not lgprof's")
    end
    assert.is_true(compared >= 5 and anonymous >= 1)
  end)
end)
