-- Bad input: every unusable executable or gmon file gives exactly one line
-- "lgprof: FILE: reason" on stderr, exit status 1 and no output (no partial
-- report); lgprof.open gives nil and the same "FILE: reason". Options that
-- are not implemented yet are refused with status 2; unknown options give
-- one line and a pointer to --help, status 2.

local lgprof = require "lgprof"
local H = require "helpers"
local fx, util, cmd, gw, ew = H.fixtures, H.util, H.cmd, H.gmonwriter, H.elfwriter

local q, slurp, show = util.q, util.slurp, cmd.show

-- lgprof with args (a list) from the repo root; prefix is shell text put
-- before the command (for ulimit / timeout). Returns status, out, err.
local function lg(args, prefix)
  return cmd.lgprof(args, { prefix = prefix })
end

-- status 1, nothing on stdout, stderr exactly "lgprof: FILE: reason\n";
-- returns "FILE: reason"
local assert_one_line_error = cmd.file_error

local copy_hist = util.copy

describe("bad input", function()
  local tmp, fixture, T

  setup(function()
    fixture = assert(fx.build("classic", "O0g-pie"))
    tmp = util.mktempdir("lgprof-badinput")
    local data, gmon = fx.gmon_data(fixture)
    local h = data.hist[1]
    T = {
      EXE = fixture.exe, GMON = fixture.gmon[1], TMP = tmp,
    }
    local function put(name, bytes)
      gw.write(tmp .. "/" .. name, bytes)
      return tmp .. "/" .. name
    end
    -- executables
    local f = assert(io.open(tmp .. "/text.txt", "w"))
    f:write("this is a text file, not an executable\n")
    f:close()
    assert(os.execute("cp " .. q(fixture.exe) .. " " .. q(tmp .. "/stripped")
      .. " && strip " .. q(tmp .. "/stripped")))
    assert(os.execute("mkdir " .. q(tmp .. "/dir")))
    -- truncated GNU files (x86-64: 20-byte header, 1 + 40-byte histogram header,
    -- 21-byte arc records; the fixture file has one histogram then arcs)
    assert(gmon:sub(21, 21) == "\0" and gmon:byte(-21) == 1, "unexpected fixture layout")
    put("cut-header", gmon:sub(1, 12))
    put("cut-histhdr", gmon:sub(1, 21 + 17))
    put("cut-bins", gmon:sub(1, 21 + 40 + 2 * (h.n_bins // 2) + 1))
    put("cut-arc", gmon:sub(1, #gmon - 9))
    put("bad-tag", gw.bad_tag(data))
    put("bad-tag-start", gw.bad_tag(data, nil, 0x55, "start"))
    put("version2", gw.bad_version(data, nil, 2))
    -- 4.4BSD: cut in the header, cut in the bins
    local bsd = gw.encode(data, { format = "bsd44" })
    put("bsd44-cut-header", bsd:sub(1, 30))
    put("bsd44-cut-bins", bsd:sub(1, 40 + h.n_bins))
    -- huge bin counts in short files
    put("huge-bins", gw.huge_bins({ hist = { { low = h.low, high = h.high, n_bins = 4,
      bins = { 1, 2, 3, 4 } } } }, nil, 0xFFFFFFFF))
    local hb = copy_hist(h)
    hb.ncnt = 0xFFFFFFFF
    put("huge-bsd44", gw.encode({ hist = { hb } }, { format = "bsd44" }))
    -- a histogram that covers no function of the executable
    put("outside", gw.encode({ hist = { { low = 0x7f0000000000, high = 0x7f0000001000,
      n_bins = 0x800, rate = 100, bins = { [5] = 3 } } } }))
    -- overlapping but different ranges (same scale: (high-low)/2/nbins)
    local half = { low = h.low, high = h.low + (h.high - h.low) // 2, n_bins = h.n_bins // 2,
      rate = h.rate, bins = { [1] = 1 } }
    assert(((half.high - half.low) // 2) / half.n_bins == ((h.high - h.low) // 2) / h.n_bins,
      "could not build a same-scale overlapping histogram")
    put("overlap", gw.encode({ hist = { half } }))
    -- 4.4BSD files: the first with the real range, the second with another
    put("first.bsd44", bsd)
    local moved = copy_hist(h)
    moved.low, moved.high = h.low + 0x100, h.high + 0x100
    put("moved.bsd44", gw.encode({ hist = { moved }, arcs = data.arcs }, { format = "bsd44" }))
    -- more corrupt records
    put("empty", "")
    put("no-bins", gw.encode({ hist = { { low = h.low, high = h.high, n_bins = 0 } } }))
    put("rate0", gw.encode({ hist = { { low = h.low, high = h.high, n_bins = 4, rate = 0,
      bins = { 1 } } } }))
    put("low-above-high", gw.encode({ hist = { { low = h.high, high = h.low, n_bins = 4,
      bins = { 1 } } } }))
    put("bb-cut", gw.encode({ bb = { { raw = string.pack("<I4", 0x7fffffff) } } }))
    -- executables: empty, cut short, and one of another width and byte order
    put("empty-exe", "")
    put("cut-exe", assert(slurp(fixture.exe)):sub(1, 3000))
    ew.write(tmp .. "/ppc32", { class = 32, endian = "big", machine = ew.EM_PPC,
      text_addr = 0x10000000, text_size = 0x1000,
      symbols = { { name = "main", addr = 0x10000000 }, { name = "f", addr = 0x10000100 } } })
    -- arcs only / histogram only
    put("arcs-only", gw.encode({ arcs = data.arcs }))
    put("hist-only", gw.encode({ hist = { h } }))
    -- not profiles at all: random bytes (a fixed seed), a text longer than
    -- a BSD header, the executable itself
    local rand = H.prng.new(13)
    local bytes = {}
    for i = 1, 3000 do bytes[i] = string.char(rand(256)) end
    put("random", table.concat(bytes))
    put("text", ("this is a text file, not a profile\n"):rep(20))
  end)

  teardown(function() util.rmtree(tmp) end)

  local function expand(s)
    return (s:gsub("%$(%u+)", function(k) return assert(T[k], k) end))
  end

  -- what a file that is no profile at all is called (not what its first
  -- bytes would declare if they were a BSD header)
  local NOT_GMON = "not a gmon.out file (GNU, 4.4BSD or old BSD)"
  -- { label, exe, {gmon...}, offending file, reason (a substring; optional) }
  local CASES = {
    { "a missing executable", "$TMP/no-such-exe", { "$GMON" }, "$TMP/no-such-exe", "No such file" },
    { "a missing gmon file", "$EXE", { "$TMP/no-such-gmon" }, "$TMP/no-such-gmon", "No such file" },
    { "a missing second gmon file", "$EXE", { "$GMON", "$TMP/no-such-gmon" }, "$TMP/no-such-gmon" },
    { "a text file as executable", "$TMP/text.txt", { "$GMON" }, "$TMP/text.txt" },
    { "a stripped executable", "$TMP/stripped", { "$GMON" }, "$TMP/stripped" },
    { "a directory as executable", "$TMP/dir", { "$GMON" }, "$TMP/dir" },
    { "a directory as gmon file", "$EXE", { "$TMP/dir" }, "$TMP/dir" },
    { "/dev/null as gmon file", "$EXE", { "/dev/null" }, "/dev/null", NOT_GMON },
    { "random bytes as gmon file", "$EXE", { "$TMP/random" }, "$TMP/random", NOT_GMON },
    { "a text file as gmon file", "$EXE", { "$TMP/text" }, "$TMP/text", NOT_GMON },
    { "the executable as gmon file", "$EXE", { "$EXE" }, "$EXE", NOT_GMON },
    { "a good file followed by the executable", "$EXE", { "$GMON", "$EXE" }, "$EXE", NOT_GMON },
    { "a gmon file cut in its header", "$EXE", { "$TMP/cut-header" }, "$TMP/cut-header", "too short" },
    { "a gmon file cut in a histogram header", "$EXE", { "$TMP/cut-histhdr" }, "$TMP/cut-histhdr",
      "truncated histogram record" },
    { "a gmon file cut in the bins", "$EXE", { "$TMP/cut-bins" }, "$TMP/cut-bins", "declares" },
    { "a gmon file cut in an arc record", "$EXE", { "$TMP/cut-arc" }, "$TMP/cut-arc",
      "truncated call-graph record" },
    { "a 4.4BSD file cut in its header", "$EXE", { "$TMP/bsd44-cut-header" }, "$TMP/bsd44-cut-header",
      "too short" },
    { "a 4.4BSD file cut in the bins", "$EXE", { "$TMP/bsd44-cut-bins" }, "$TMP/bsd44-cut-bins",
      "declares" },
    { "a bad tag byte after the records", "$EXE", { "$TMP/bad-tag" }, "$TMP/bad-tag", "tag" },
    { "a bad tag byte before the records", "$EXE", { "$TMP/bad-tag-start" }, "$TMP/bad-tag-start", "tag" },
    { "an unsupported version (2)", "$EXE", { "$TMP/version2" }, "$TMP/version2", "version" },
    { "0xFFFFFFFF bins in a short GNU file", "$EXE", { "$TMP/huge-bins" }, "$TMP/huge-bins" },
    { "a 0xFFFFFFFF-byte sample buffer in a short 4.4BSD file", "$EXE", { "$TMP/huge-bsd44" },
      "$TMP/huge-bsd44" },
    { "a histogram outside the text", "$EXE", { "$TMP/outside" }, "$TMP/outside" },
    { "overlapping but different histogram ranges", "$EXE", { "$GMON", "$TMP/overlap" },
      "$TMP/overlap", "overlap" },
    { "a 4.4BSD file followed by one with another range", "$EXE",
      { "$TMP/first.bsd44", "$TMP/moved.bsd44" }, "$TMP/moved.bsd44" },
    { "a good file followed by a corrupt one", "$EXE", { "$GMON", "$TMP/bad-tag" }, "$TMP/bad-tag" },
    -- beyond the list above
    { "an empty gmon file", "$EXE", { "$TMP/empty" }, "$TMP/empty", NOT_GMON },
    { "an empty executable", "$TMP/empty-exe", { "$GMON" }, "$TMP/empty-exe" },
    { "an executable cut short", "$TMP/cut-exe", { "$GMON" }, "$TMP/cut-exe" },
    { "a histogram with no bins", "$EXE", { "$TMP/no-bins" }, "$TMP/no-bins" },
    { "a histogram with rate 0", "$EXE", { "$TMP/rate0" }, "$TMP/rate0" },
    { "a histogram with low above high", "$EXE", { "$TMP/low-above-high" }, "$TMP/low-above-high" },
    { "a basic-block record cut short", "$EXE", { "$TMP/bb-cut" }, "$TMP/bb-cut" },
    { "an x86-64 gmon file for a 32-bit big-endian executable", "$TMP/ppc32", { "$GMON" }, "$GMON" },
  }

  for _, c in ipairs(CASES) do
    local label, exe, gmons, file, pattern = c[1], c[2], c[3], c[4], c[5]

    it("command: " .. label, function()
      local args = { expand(exe) }
      for _, g in ipairs(gmons) do args[#args + 1] = expand(g) end
      local msg = assert_one_line_error(expand(file), lg(args))
      if pattern then assert.truthy(msg:find(pattern, 1, true), msg) end
      -- the same with a report option that would print something first
      msg = assert_one_line_error(expand(file), lg({ "-b", "-i", table.unpack(args) }))
      if pattern then assert.truthy(msg:find(pattern, 1, true), msg) end
    end)

    it("lgprof.open: " .. label, function()
      local list = {}
      for _, g in ipairs(gmons) do list[#list + 1] = expand(g) end
      -- nil and "FILE: reason", what the command prints
      H.profile.refused(expand(exe), list, expand(file))
    end)
  end

  it("0xFFFFFFFF bins fail fast, without allocating them", function()
    for _, name in ipairs({ "huge-bins", "huge-bsd44" }) do
      local path = tmp .. "/" .. name
      -- 300 MB of address space: 2^32 bins cannot be allocated, so an
      -- allocation would show up as another message (or a crash)
      local status, out, err = lg({ T.EXE, path }, util.memory_limit(300000) .. "timeout 10 ")
      local msg = assert_one_line_error(path, status, out, err)
      assert.falsy(msg:find("memory", 1, true), msg)
      local p, lmsg = lgprof.open(T.EXE, path)
      assert.is_nil(p)
      assert.equal(msg, lmsg)
      -- and lgprof.open under the same cap, in a lua5.4 of its own (a
      -- measure of memory, not of time, which ASan and load stretch)
      local script = ("local p, m = require('lgprof').open(%q, %q) io.write(tostring(p), ' ', m)")
        :format(T.EXE, path)
      status, out, err = cmd.shell(util.memory_limit(300000) .. cmd.lua_env()
        .. "timeout 10 lua5.4 -e " .. q(script))
      assert.equal(0, status, show(status, out, err))
      assert.equal("nil " .. msg, out)
    end
  end)

  it("-p on a gmon file without a histogram: exit 1, 'missing histogram'", function()
    local msg = cmd.one_line_error(1, lg({ "-p", T.EXE, tmp .. "/arcs-only" }))
    assert.truthy(msg:find("missing histogram", 1, true), msg)
    -- the file itself is fine
    local p = assert(lgprof.open(T.EXE, tmp .. "/arcs-only"))
    assert.is_false(p.have_histogram)
    assert.is_true(p.have_call_graph)
  end)

  it("-q on a gmon file without arcs: exit 1, 'missing call-graph data'", function()
    local msg = cmd.one_line_error(1, lg({ "-q", T.EXE, tmp .. "/hist-only" }))
    assert.truthy(msg:find("missing call-graph data", 1, true), msg)
  end)

  describe("options", function()
    local UNSUPPORTED = {
      { "-d" },
    }
    for _, opt in ipairs(UNSUPPORTED) do
      it(table.concat(opt, " ") .. " is refused: 'not supported', status 2", function()
        local args = {}
        for _, a in ipairs(opt) do args[#args + 1] = a end
        args[#args + 1] = T.EXE
        args[#args + 1] = T.GMON
        local msg = cmd.one_line_error(2, lg(args))
        assert.truthy(msg:find("not supported", 1, true), msg)
      end)
    end

    for _, opt in ipairs({ { "-Y", "invalid option -- 'Y'" }, { "--bogus", "unrecognized option '--bogus'" } }) do
      it("unknown option " .. opt[1] .. ": one line and a pointer to --help, status 2", function()
        cmd.expect({ status = 2, out = "", err = "lgprof: " .. opt[2]
          .. "\nTry 'lgprof --help' for more information.\n" }, lg({ opt[1], T.EXE, T.GMON }))
      end)
    end
  end)
end)
