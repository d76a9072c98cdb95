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
}
build = {
   type = "builtin",
   modules = {
      ["lgprof.core"] = {
         sources = { "csrc/core/annotate.c", "csrc/core/arcs.c", "csrc/core/atomicfile.c", "csrc/core/bbcount.c", "csrc/core/blurbs.c", "csrc/core/bounds.c", "csrc/core/cgorder.c", "csrc/core/cgraph.c", "csrc/core/codeimg.c", "csrc/core/cyclecut.c", "csrc/core/cyclelayout.c", "csrc/core/disasm.c", "csrc/core/dwfunc.c", "csrc/core/dwinfo.c", "csrc/core/dwline.c", "csrc/core/elfsym.c", "csrc/core/evidence.c", "csrc/core/execcount.c", "csrc/core/export.c", "csrc/core/exportlines.c", "csrc/core/folded.c", "csrc/core/gmon.c", "csrc/core/gmonsum.c", "csrc/core/gzip.c", "csrc/core/hist.c", "csrc/core/lines.c", "csrc/core/linesyms.c", "csrc/core/mapfile.c", "csrc/core/names.c", "csrc/core/nmsyms.c", "csrc/core/ordering.c", "csrc/core/profile.c", "csrc/core/report.c", "csrc/core/report_index.c", "csrc/core/select.c", "csrc/core/srcinfo.c", "csrc/core/staticcg.c", "csrc/core/strset.c", "csrc/core/symspec.c", "csrc/core/symtab.c", "csrc/core/util.c", "csrc/core/view.c", "csrc/lua/lbounds.c", "csrc/lua/lcore.c", "csrc/lua/lcyclecut.c", "csrc/lua/ldoctor.c", "csrc/lua/lexport.c", "csrc/lua/lfiles.c", "csrc/lua/lglob.c", "csrc/lua/llines.c", "csrc/lua/lobjects.c", "csrc/lua/lopts.c", "csrc/lua/lordering.c", "csrc/lua/lsource.c", "csrc/lua/lview.c" },
         libraries = { "dw", "elf", "z", "iberty", "m", "dl" },
         incdirs = { "csrc/core", "$(LIBELF_INCDIR)", "$(LIBDW_INCDIR)", "$(LIBIBERTY_INCDIR)",
                     "$(CAPSTONE_INCDIR)", "$(ZLIB_INCDIR)" },
         libdirs = { "$(LIBELF_LIBDIR)", "$(LIBDW_LIBDIR)", "$(LIBIBERTY_LIBDIR)",
                     "$(CAPSTONE_LIBDIR)", "$(ZLIB_LIBDIR)" },
      },
      ["lgprof"] = "lua/lgprof/init.lua",
      ["lgprof.annotate"] = "lua/lgprof/annotate.lua",
      ["lgprof.args"] = "lua/lgprof/args.lua",
      ["lgprof.check"] = "lua/lgprof/check.lua",
      ["lgprof.cli"] = "lua/lgprof/cli.lua",
      ["lgprof.cliview"] = "lua/lgprof/cliview.lua",
      ["lgprof.cmd_check"] = "lua/lgprof/cmd_check.lua",
      ["lgprof.cmd_diff"] = "lua/lgprof/cmd_diff.lua",
      ["lgprof.cmd_doctor"] = "lua/lgprof/cmd_doctor.lua",
      ["lgprof.cmd_export"] = "lua/lgprof/cmd_export.lua",
      ["lgprof.cmd_merge"] = "lua/lgprof/cmd_merge.lua",
      ["lgprof.cmd_report"] = "lua/lgprof/cmd_report.lua",
      ["lgprof.cmd_script"] = "lua/lgprof/cmd_script.lua",
      ["lgprof.cyclecuts"] = "lua/lgprof/cyclecuts.lua",
      ["lgprof.diff"] = "lua/lgprof/diff.lua",
      ["lgprof.doctor"] = "lua/lgprof/doctor.lua",
      ["lgprof.dot"] = "lua/lgprof/dot.lua",
      ["lgprof.fnkey"] = "lua/lgprof/fnkey.lua",
      ["lgprof.getopt"] = "lua/lgprof/getopt.lua",
      ["lgprof.html"] = "lua/lgprof/html.lua",
      ["lgprof.html_assets"] = "lua/lgprof/html_assets.lua",
      ["lgprof.merge"] = "lua/lgprof/merge.lua",
      ["lgprof.options"] = "lua/lgprof/options.lua",
      ["lgprof.pprof"] = "lua/lgprof/pprof.lua",
      ["lgprof.report"] = "lua/lgprof/report.lua",
      ["lgprof.respfile"] = "lua/lgprof/respfile.lua",
      ["lgprof.speedscope"] = "lua/lgprof/speedscope.lua",
      ["lgprof.spread"] = "lua/lgprof/spread.lua",
      ["lgprof.stacks"] = "lua/lgprof/stacks.lua",
      ["lgprof.svg"] = "lua/lgprof/svg.lua",
      ["lgprof.textreport"] = "lua/lgprof/textreport.lua",
      ["lgprof.stats"] = "lua/lgprof/stats.lua",
   },
   -- the command as a Lua script (LuaRocks' builtin type builds modules, not
   -- executables); `make` builds the faster bin/lgprof
   install = { bin = { lgprof = "bin/lgprof.lua" } },
   copy_directories = { "examples" },
}
test = { type = "command", command = "make test" }
