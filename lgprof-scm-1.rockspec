rockspec_format = "3.0"
package = "lgprof"
version = "scm-1"
source = { url = "git+https://github.com/lgprof/lgprof.git" }
description = {
   summary = "A fast, scriptable call-graph profiler for gmon.out and perf.data, with a Lua API",
   detailed = [[
lgprof reads gprof's gmon.out files (gcc -pg) with the executable's symbols and
computes what GNU gprof computes (flat profile, call graph with cycles, propagated
time), with byte-identical output, in linear time. It reads Linux perf's perf.data
too (sampled stacks unwound by frame pointers or DWARF, as `perf report` shows
them), records programs under perf (`lgprof record`), writes flame graphs, an HTML
page, JSON, CSV, pprof and speedscope exports, and exposes the analysed profile
to Lua scripts.
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
   -- perf record -z's compressed records
   ZSTD = { header = "zstd.h", library = "zstd" },
}
-- Every library the Makefile's LDLIBS links is above, but for libm and libdl
-- (part of the C library) and libdeflate, which the Makefile links only when
-- its header is installed (a faster inflate of compressed debug sections;
-- without it libdw inflates them): LuaRocks has no optional dependency.
-- The Makefile builds the C module (the core archived once into
-- build/liblgprof-core.a, then build/lgprof/core.so: objects under build/,
-- never next to the sources) and installs it with the Lua modules, so that
-- neither list is copied here.
build = {
   type = "make",
   build_target = "module",
   build_variables = {
      CFLAGS = "$(CFLAGS)",
      LIBFLAG = "$(LIBFLAG)",
      LUA_INCDIR = "$(LUA_INCDIR)",
      CPPFLAGS = "-I$(LIBELF_INCDIR) -I$(LIBDW_INCDIR) -I$(LIBIBERTY_INCDIR) -I$(CAPSTONE_INCDIR) -I$(ZLIB_INCDIR) -I$(ZSTD_INCDIR)",
      LDFLAGS = "-L$(LIBELF_LIBDIR) -L$(LIBDW_LIBDIR) -L$(LIBIBERTY_LIBDIR) -L$(ZLIB_LIBDIR) -L$(ZSTD_LIBDIR)",
   },
   install_target = "install-module",
   install_variables = {
      LUA_LIBDIR_INSTALL = "$(LIBDIR)",
      LUA_SHAREDIR = "$(LUADIR)",
   },
   -- the command as a Lua script (`make` builds the faster bin/lgprof)
   install = { bin = { lgprof = "bin/lgprof.lua" } },
   -- copied into the rock's folder (lib/luarocks/rocks-5.4/lgprof/scm-1/):
   -- the manual and the man page (LuaRocks installs no man page into a man
   -- path; with this list given, it copies doc/ only when listed)
   copy_directories = { "doc", "examples" },
}
test = { type = "command", command = "make test" }
