-- A sample outside .text: a static executable's _init (in .init, a
-- sizeless symbol of crti.o) at the address where the linker's data label
-- __rela_iplt_end (in .rela.plt, no code) ends. perf report names _init
-- there; so must lgprof (it named __rela_iplt_end, or [unknown] PROG+OFF).
--
-- The recording is written here (helpers.perfwriter) for a static program
-- built here, mapped whole from offset 0 as the kernel maps a program linked
-- with -z noseparate-code: 2 samples in _init (4 and 8 bytes in), 1 in
-- _start (4 bytes in), 1 in _fini: 50%, 25%, 25%. perf report on the same
-- file is the oracle where perf is installed.
local H = require "helpers"
local util, cmd = H.util, H.cmd
local pw = require "helpers.perfwriter"

local q = util.q

describe("a symbol outside .text", function()
  local tmp, exe, data
  setup(function()
    tmp = util.mktempdir("lgprof-perfinit")
    exe = tmp .. "/static"
    util.spit(tmp .. "/s.c", "int main(void) { return 0; }\n")
    assert(util.exec_ok(("cd %s && gcc -static -O1 -Wl,-z,noseparate-code -o static s.c"):format(q(tmp))))
    local syms = {}
    for addr, name in util.read_cmd("nm " .. q(exe)):gmatch("(%x+) %a ([%w_]+)\n") do syms[name] = tonumber(addr, 16) end
    assert(syms._init and syms._start and syms._fini, "no _init, _start or _fini")
    local f = pw.new({ attrs = { { sample_type = pw.IP | pw.TID | pw.TIME | pw.PERIOD | pw.CALLCHAIN,
      period = 1, ids = { 1 } } } })
    f:comm(100, 100, "static", 10, true)
    f:mmap2(100, 100, 0x400000, 0x100000, 0, exe, 20)
    local t = 1000
    for _, ip in ipairs({ syms._init + 4, syms._init + 8, syms._start + 4, syms._fini + 4 }) do
      t = t + 1
      f:sample({ ip = ip, pid = 100, tid = 100, time = t, period = 1000000, chain = { pw.CONTEXT_USER, ip } })
    end
    f:finished_round()
    data = tmp .. "/static.data"
    pw.write(data, f:bytes())
  end)
  teardown(function() util.rmtree(tmp) end)

  local function shares(out, pattern)
    local rows = {}
    for line in out:gmatch("[^\n]+") do
      local share, name = line:match(pattern)
      if share then rows[name] = tonumber(share) end
    end
    return rows
  end

  it("is named as perf report names it: _init, _start, _fini", function()
    local status, out, err = cmd.lgprof({ "-b", "-p", data })
    assert.equal(0, status, cmd.show(status, out, err))
    assert.same({ _init = 50, _start = 25, _fini = 25 }, shares(out, "^ +([%d.]+) +[%d.]+ +[%d.]+ +(%S+)%s*$"), out)
    if util.have("perf") then
      local perf = util.read_cmd(("perf report -i %s --stdio -q --sort sym 2>/dev/null"):format(q(data)))
      assert.same({ _init = 50, _start = 25, _fini = 25 }, shares(perf, "^ +([%d.]+)%% +[%d.]+%% +%[%.%] (%S+)"), perf)
    end
  end)
end)
