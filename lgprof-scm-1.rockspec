rockspec_format = "3.0"
package = "lgprof"
version = "scm-1"
source = { url = "git+https://github.com/lgprof/lgprof.git" }
description = {
   summary = "A fast, scriptable call-graph profile analyser: a drop-in GNU gprof with a Lua API",
   detailed = [[
lgprof reads gmon.out files (gcc -pg) with the executable's symbols and computes
what GNU gprof computes (flat profile, call graph with cycles, propagated time),
with byte-identical output, in linear time, and exposes the analysed graph to Lua.
]],
   license = "MIT",
}
dependencies = { "lua >= 5.4, < 5.5" }
external_dependencies = {
   LIBELF = { header = "libelf.h", library = "elf" },
   LIBDW = { header = "elfutils/libdw.h", library = "dw" },
   LIBIBERTY = { header = "libiberty/demangle.h", library = "iberty" },
   CAPSTONE = { header = "capstone/capstone.h", library = "capstone" },
   ZLIB = { header = "zlib.h", library = "z" },
   ZSTD = { header = "zstd.h", library = "zstd" },
}
build = {
   type = "builtin",
   modules = {
      ["lgprof.core"] = {
         sources = { "csrc/core/analyse/bounds.c", "csrc/core/analyse/cyclecut.c", "csrc/core/analyse/cyclelayout.c", "csrc/core/analyse/evidence.c", "csrc/core/analyse/ordering.c", "csrc/core/model/arcs.c", "csrc/core/model/bbcount.c", "csrc/core/model/cgorder.c", "csrc/core/model/cgraph.c", "csrc/core/model/disasm.c", "csrc/core/model/hist.c", "csrc/core/model/lines.c", "csrc/core/model/names.c", "csrc/core/model/profile.c", "csrc/core/model/select.c", "csrc/core/model/staticcg.c", "csrc/core/model/symspec.c", "csrc/core/model/symtab.c", "csrc/core/model/view.c", "csrc/core/read/codeimg.c", "csrc/core/read/dwfunc.c", "csrc/core/read/dwinfo.c", "csrc/core/read/dwline.c", "csrc/core/read/elfsym.c", "csrc/core/read/gmon.c", "csrc/core/read/linesyms.c", "csrc/core/read/mapfile.c", "csrc/core/read/nmsyms.c", "csrc/core/read/perf/perfdata.c", "csrc/core/read/perf/perfstacks.c", "csrc/core/read/srcinfo.c", "csrc/core/read/stacktab.c", "csrc/core/util/atomicfile.c", "csrc/core/util/gzip.c", "csrc/core/util/strset.c", "csrc/core/util/util.c", "csrc/core/write/annotate.c", "csrc/core/write/blurbs.c", "csrc/core/write/execcount.c", "csrc/core/write/export.c", "csrc/core/write/exportlines.c", "csrc/core/write/folded.c", "csrc/core/write/gmonsum.c", "csrc/core/write/report.c", "csrc/core/write/report_index.c", "csrc/lua/lbounds.c", "csrc/lua/lcore.c", "csrc/lua/lcyclecut.c", "csrc/lua/ldoctor.c", "csrc/lua/lexport.c", "csrc/lua/lfiles.c", "csrc/lua/lglob.c", "csrc/lua/llines.c", "csrc/lua/lobjects.c", "csrc/lua/lopts.c", "csrc/lua/lordering.c", "csrc/lua/lsource.c", "csrc/lua/lview.c" },
         libraries = { "dw", "elf", "zstd", "z", "iberty", "m", "dl" },
         incdirs = { "csrc/core", "$(LIBELF_INCDIR)", "$(LIBDW_INCDIR)", "$(LIBIBERTY_INCDIR)",
                     "$(CAPSTONE_INCDIR)", "$(ZLIB_INCDIR)", "$(ZSTD_INCDIR)" },
         libdirs = { "$(LIBELF_LIBDIR)", "$(LIBDW_LIBDIR)", "$(LIBIBERTY_LIBDIR)",
                     "$(CAPSTONE_LIBDIR)", "$(ZLIB_LIBDIR)", "$(ZSTD_LIBDIR)" },
      },
      ["lgprof.analysis.check"] = "lua/lgprof/analysis/check.lua",
      ["lgprof.analysis.diff"] = "lua/lgprof/analysis/diff.lua",
      ["lgprof.analysis.doctor"] = "lua/lgprof/analysis/doctor.lua",
      ["lgprof.analysis.fnkey"] = "lua/lgprof/analysis/fnkey.lua",
      ["lgprof.analysis.merge"] = "lua/lgprof/analysis/merge.lua",
      ["lgprof.analysis.spread"] = "lua/lgprof/analysis/spread.lua",
      ["lgprof.analysis.stacks"] = "lua/lgprof/analysis/stacks.lua",
      ["lgprof.analysis.stats"] = "lua/lgprof/analysis/stats.lua",
      ["lgprof.check"] = "lua/lgprof/check.lua",
      ["lgprof.cli.getopt"] = "lua/lgprof/cli/getopt.lua",
      ["lgprof.cli.main"] = "lua/lgprof/cli/main.lua",
      ["lgprof.cli.options"] = "lua/lgprof/cli/options.lua",
      ["lgprof.cli.respfile"] = "lua/lgprof/cli/respfile.lua",
      ["lgprof.cli.views"] = "lua/lgprof/cli/views.lua",
      ["lgprof.cliview"] = "lua/lgprof/cliview.lua",
      ["lgprof.cmd.annotate"] = "lua/lgprof/cmd/annotate.lua",
      ["lgprof.cmd.breakcycles"] = "lua/lgprof/cmd/breakcycles.lua",
      ["lgprof.cmd.check"] = "lua/lgprof/cmd/check.lua",
      ["lgprof.cmd.diff"] = "lua/lgprof/cmd/diff.lua",
      ["lgprof.cmd.doctor"] = "lua/lgprof/cmd/doctor.lua",
      ["lgprof.cmd.export"] = "lua/lgprof/cmd/export.lua",
      ["lgprof.cmd.merge"] = "lua/lgprof/cmd/merge.lua",
      ["lgprof.cmd.report"] = "lua/lgprof/cmd/report.lua",
      ["lgprof.cmd.script"] = "lua/lgprof/cmd/script.lua",
      ["lgprof.diff"] = "lua/lgprof/diff.lua",
      ["lgprof.doctor"] = "lua/lgprof/doctor.lua",
      ["lgprof.dot"] = "lua/lgprof/dot.lua",
      ["lgprof.format.dot"] = "lua/lgprof/format/dot.lua",
      ["lgprof.format.html"] = "lua/lgprof/format/html.lua",
      ["lgprof.format.html_assets"] = "lua/lgprof/format/html_assets.lua",
      ["lgprof.format.pprof"] = "lua/lgprof/format/pprof.lua",
      ["lgprof.format.report"] = "lua/lgprof/format/report.lua",
      ["lgprof.format.speedscope"] = "lua/lgprof/format/speedscope.lua",
      ["lgprof.format.svg"] = "lua/lgprof/format/svg.lua",
      ["lgprof.format.text"] = "lua/lgprof/format/text.lua",
      ["lgprof.html"] = "lua/lgprof/html.lua",
      ["lgprof"] = "lua/lgprof/init.lua",
      ["lgprof.pprof"] = "lua/lgprof/pprof.lua",
      ["lgprof.report"] = "lua/lgprof/report.lua",
      ["lgprof.speedscope"] = "lua/lgprof/speedscope.lua",
      ["lgprof.stacks"] = "lua/lgprof/stacks.lua",
      ["lgprof.svg"] = "lua/lgprof/svg.lua",
      ["lgprof.util.args"] = "lua/lgprof/util/args.lua",
   },
   -- the command as a Lua script (LuaRocks' builtin type builds modules, not
   -- executables); `make` builds the faster bin/lgprof
   install = { bin = { lgprof = "bin/lgprof.lua" } },
   -- copied into the rock's folder (lib/luarocks/rocks-5.4/lgprof/scm-1/):
   -- the manual and the man page (LuaRocks installs no man page into a man
   -- path; with this list given, it copies doc/ only when listed)
   copy_directories = { "doc", "examples" },
}
test = { type = "command", command = "make test" }
