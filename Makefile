# lgprof: build, test and install.
#
#   make            build bin/lgprof (one executable: Lua, the core and the Lua
#                   modules, embedded) and build/lgprof/core.so (for lua5.4 scripts)
#   make test       run the busted suite under Lua 5.4: one line per spec file (counts,
#                   seconds), every failure in full, and last "N passed, N failed,
#                   N skipped"; VERBOSE=1 prints the whole TAP as well
#   make test-asan  the same suite against a core built with ASan and UBSan (build-asan/);
#                   any sanitizer report is a failure
#   make test-valgrind  bin/lgprof under valgrind memcheck over the fixture programs
#   make demo       profile examples/demo.c with -pg and print lgprof's report
#   make bench      lgprof and GNU gprof side by side (spec/bench/run.lua; inputs
#                   cached in build/bench/; env BENCH_RUNS, BENCH_GPROF_B3=1,
#                   BENCH_ONLY=B1s,B5 for some only)
#   make install    PREFIX=/usr/local DESTDIR= (MANDIR, DOCDIR: the man page, the manual)
#   make module     only build/lgprof/core.so; make install-module installs it and
#                   the Lua modules (LUA_LIBDIR_INSTALL, LUA_SHAREDIR): what
#                   `luarocks make` runs (lgprof-scm-1.rockspec, objects under build/)
#   make deps       install the Debian packages the build, the demo and the tests
#                   need (deps-demo: only the build and the demo's; deps-test: the rest)
#   make fuzz       build the libFuzzer harnesses (csrc/fuzz/, clang) into build/fuzz/
#                   (the core archived with clang in build/fuzz-core/) and run each
#                   FUZZ_SECONDS (default 60), FUZZ_JOBS (2) at a time, on copies of
#                   spec/fuzz/corpus/; one summary line per harness; fails if any
#                   harness finds a crash (crash-* files in build/fuzz/), has no
#                   seeds or does not run to its end
#   make fuzz-build only build the harnesses and their fixtures (build/fuzz/demo, anno)
#
# Every variable can be overridden on the command line.

SHELL         := /bin/bash

LUA_VERSION   ?= 5.4
LUA           ?= lua$(LUA_VERSION)
PKG_CONFIG    ?= pkg-config
BUSTED_SCRIPT ?= /usr/bin/busted
BUSTED        ?= $(LUA) $(BUSTED_SCRIPT)
PREFIX        ?= /usr/local
DESTDIR       ?=
LUA_LIBDIR_INSTALL ?= $(PREFIX)/lib/lua/$(LUA_VERSION)
LUA_SHAREDIR  ?= $(PREFIX)/share/lua/$(LUA_VERSION)
BINDIR        ?= $(PREFIX)/bin
MANDIR        ?= $(PREFIX)/share/man
DOCDIR        ?= $(PREFIX)/share/doc/lgprof

CFLAGS        ?= -O2 -g
WARNFLAGS     ?= -std=c99 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wcast-qual
LIBFLAG       ?= -shared
# Two layers: csrc/core/ (no Lua: built without Lua's include path, so a
# Lua header there fails the build) and csrc/lua/ (the binding).
CORE_PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags libelf libdw 2>/dev/null)
# (LUA_INCDIR: where luarocks says Lua's headers are)
LUA_PKG_CFLAGS  = $(if $(LUA_INCDIR),-I$(LUA_INCDIR),$(shell $(PKG_CONFIG) --cflags lua$(LUA_VERSION) 2>/dev/null))
PKG_LIBS       = $(shell $(PKG_CONFIG) --libs libdw libelf 2>/dev/null)
BASE_CFLAGS    = $(WARNFLAGS) $(CFLAGS) $(CPPFLAGS) -D_POSIX_C_SOURCE=200809L -fPIC -fvisibility=hidden
CORE_CFLAGS    = $(BASE_CFLAGS) $(CORE_PKG_CFLAGS) $(DEFLATE_CFLAGS) -Icsrc/core
BIND_CFLAGS    = $(BASE_CFLAGS) $(CORE_PKG_CFLAGS) $(LUA_PKG_CFLAGS) -Icsrc/core
# libdeflate (optional): separate debug files' compressed DWARF inflated
# once into memory (csrc/core/read/perf/debugcopy.c) in less than half
# zlib's time, when its header and library are there (libdeflate-dev);
# without it libdw inflates them itself.
DEFLATE_HEADER = $(shell printf '\043include <libdeflate.h>\n' | $(CC) $(CPPFLAGS) -E -x c - \
                 >/dev/null 2>&1 && echo yes)
DEFLATE_LIBS  := $(if $(DEFLATE_HEADER),$(if $(shell $(PKG_CONFIG) --exists libdeflate 2>/dev/null \
                 && echo yes),$(shell $(PKG_CONFIG) --libs libdeflate),$(if $(filter /%,$(shell \
                 $(CC) -print-file-name=libdeflate.so 2>/dev/null)),-ldeflate)))
DEFLATE_CFLAGS = $(if $(DEFLATE_LIBS),-DLGP_HAVE_LIBDEFLATE)
LDLIBS         = $(PKG_LIBS) $(DEFLATE_LIBS) -lzstd -lz -liberty -lm -ldl

BUILD         ?= build
CORE_SO        = $(BUILD)/lgprof/core.so
# The core: one folder per layer (csrc/core/README.md), built once into a
# static library that the command, core.so, the fuzzers and the C unit tests link.
CORE_SRCS      = $(wildcard csrc/core/*/*.c csrc/core/*/*/*.c)
CORE_HDRS      = $(wildcard csrc/core/*/*.h csrc/core/*/*/*.h)
CORE_OBJS      = $(patsubst csrc/core/%.c,$(BUILD)/obj/core/%.o,$(CORE_SRCS))
CORE_LIB       = $(BUILD)/liblgprof-core.a
BIND_SRCS      = $(wildcard csrc/lua/*.c)
BIND_HDRS      = $(wildcard csrc/lua/*.h)
BIND_OBJS      = $(patsubst csrc/lua/%.c,$(BUILD)/obj/lua/%.o,$(BIND_SRCS))
LUA_MODS       = $(wildcard lua/lgprof/*.lua lua/lgprof/*/*.lua)

# The executable bin/lgprof (build-asan/bin/lgprof for another BUILD): Lua
# linked statically, the core, and bin/lgprof.lua and lua/lgprof/*.lua as
# bytecode (csrc/cli/). -Wl,-E exports Lua's API to the C modules a script
# requires (cjson.so); --as-needed, -O1 and gnu hashes trim the dynamic
# loader's work, which is most of a small report's time.
LAUNCHER       = $(if $(filter build,$(BUILD)),bin/lgprof,$(BUILD)/bin/lgprof)
CLI_DIR        = $(BUILD)/cli
CLI_OBJS       = $(BUILD)/obj/cli/main.o $(BUILD)/obj/cli/embedded.o
CLI_CFLAGS     = $(BIND_CFLAGS) -Icsrc/cli -I$(CLI_DIR)
LUA_STATIC_LIBS = $(patsubst -llua$(LUA_VERSION),-l:liblua$(LUA_VERSION).a,\
                  $(shell $(PKG_CONFIG) --static --libs lua$(LUA_VERSION) 2>/dev/null))
LAUNCHER_LDFLAGS ?= -Wl,-E -Wl,-O1 -Wl,--as-needed -Wl,--hash-style=gnu
# libdw and libelf (and the compression libraries libdw needs) linked
# statically where their archives are installed (libdw-dev has them): loading
# those six shared libraries took the dynamic loader 3.7M of a run's cycles
# (1.0M without them), and the demo's report went from 1.04x gprof's wall
# time to 0.86x.
DW_STATIC_LIBS = $(filter-out -lpthread,$(filter -l%,$(shell $(PKG_CONFIG) --static \
                 --libs libdw libelf 2>/dev/null)))
# every archive those need (libbz2.a comes with libbz2-dev, which libdw-dev
# does not pull in): one missing, and the shared libraries are linked
DW_ARCHIVES    = $(foreach l,$(sort $(DW_STATIC_LIBS)),$(shell $(CC) \
                 -print-file-name=lib$(patsubst -l%,%,$l).a 2>/dev/null))
LAUNCHER_DW_LIBS ?= $(if $(DW_ARCHIVES),$(if $(filter-out /%,$(DW_ARCHIVES)),$(PKG_LIBS),\
                    -Wl,-Bstatic $(DW_STATIC_LIBS) -Wl,-Bdynamic),$(PKG_LIBS))
# libzstd (perf record -z's records) statically too when libzstd-dev's
# archive is there (-print-file-name answers a bare name when it is not)
ZSTD_ARCHIVE   = $(shell $(CC) -print-file-name=libzstd.a 2>/dev/null)
ZSTD_STATIC    = -Wl,-Bstatic -lzstd -Wl,-Bdynamic
LAUNCHER_ZSTD_LIBS ?= $(if $(filter /%,$(ZSTD_ARCHIVE)),$(ZSTD_STATIC),-lzstd)
# libdeflate the same way
DEFLATE_ARCHIVE = $(shell $(CC) -print-file-name=libdeflate.a 2>/dev/null)
DEFLATE_STATIC = -Wl,-Bstatic -ldeflate -Wl,-Bdynamic
LAUNCHER_DEFLATE_LIBS ?= $(if $(DEFLATE_LIBS),$(if $(filter /%,$(DEFLATE_ARCHIVE)),\
                         $(DEFLATE_STATIC),$(DEFLATE_LIBS)))
# Capstone (the x86-64 decoder of --static-arcs) is not linked: the core
# loads its shared library (libcapstone4) when --static-arcs first decodes,
# so that its relocated tables cost nothing to every other run; its header
# (libcapstone-dev) is needed to build.
# module name = file: lua/lgprof/init.lua is lgprof, lua/lgprof/D/X.lua lgprof.D.X
mod_name       = $(patsubst %.init,%,$(subst /,.,$(patsubst lua/%.lua,%,$1)))
EMBEDDED       = main=bin/lgprof.lua $(foreach f,$(LUA_MODS),$(call mod_name,$f)=$f)

# Where make install puts things, compiled into the installed executable
# (for --lua-env when it is not under such a tree), $(BUILD)/install/lgprof,
# and only into that one: `make install PREFIX=...` never relinks bin/lgprof
# (which may be running: make test runs specs in parallel, and one installs).
# Written without a shell (paths may hold any character) and only when
# changed, so that another PREFIX rebuilds just main-install.o.
cstr = "$(subst ",\",$(subst \,\\,$1))"
define CLI_PATHS_TEXT
/* Generated by the Makefile: where make install puts lgprof. */
#define LGPROF_PREFIX $(call cstr,$(PREFIX))
#define LGPROF_BINDIR $(call cstr,$(BINDIR))
#define LGPROF_LUADIR $(call cstr,$(LUA_SHAREDIR))
#define LGPROF_CDIR $(call cstr,$(LUA_LIBDIR_INSTALL))
endef
ifneq ($(file <$(CLI_DIR)/paths.h),$(CLI_PATHS_TEXT))
$(shell mkdir -p $(CLI_DIR))
$(file >$(CLI_DIR)/paths.h,$(CLI_PATHS_TEXT))
endif

# Debian packages: what the build and the demo need, and what only the tests,
# benchmarks and fuzzing add.
DEMO_PACKAGES  = gcc libc6-dev make pkg-config lua5.4 liblua5.4-dev libelf-dev libdw-dev \
                 libbz2-dev libiberty-dev libcapstone-dev zlib1g-dev libzstd-dev libdeflate-dev
TEST_PACKAGES  = lua-busted luarocks lua-cjson binutils g++ graphviz valgrind time clang \
                 libclang-rt-14-dev libasan8 libubsan1 chromium golang-go \
                 python3-jsonschema groff-base man-db
TEST_PACKAGES += zstd # the command: spec/helpers/perfwriter.lua compresses perf record -z streams
TEST_PACKAGES += python3 # xml.etree: the SVG flame graphs are parsed (spec/svg_spec.lua)
TEST_PACKAGES += linux-perf # the perf.data specs record real programs and compare with perf report
TEST_PACKAGES += pigz # README's perf example records it (spec/readme_spec.lua)

.PHONY: test-asan test-valgrind
.PHONY: all test demo bench install uninstall clean deps deps-demo deps-test fuzz fuzz-build
.PHONY: module install-module

all: $(CORE_SO) $(LAUNCHER)

module: $(CORE_SO)

$(CLI_DIR)/embedded.c: csrc/cli/embed.lua bin/lgprof.lua $(LUA_MODS)
	@mkdir -p $(@D)
	$(LUA) csrc/cli/embed.lua $@ $(EMBEDDED)

$(BUILD)/obj/cli/main-install.o: CLI_INCLUDE = -include $(CLI_DIR)/paths.h
$(BUILD)/obj/cli/main-install.o: $(CLI_DIR)/paths.h
$(BUILD)/obj/cli/main.o $(BUILD)/obj/cli/main-install.o: csrc/cli/main.c csrc/cli/embedded.h
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) $(CLI_INCLUDE) -c $< -o $@

$(BUILD)/obj/cli/embedded.o: $(CLI_DIR)/embedded.c csrc/cli/embedded.h
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

link_launcher = $(CC) -o $@ $^ $(LDFLAGS) $(LAUNCHER_LDFLAGS) $(LUA_STATIC_LIBS) \
                $(LAUNCHER_DW_LIBS) $(LAUNCHER_DEFLATE_LIBS) $(LAUNCHER_ZSTD_LIBS) -lz -liberty -lm -ldl

$(CORE_LIB): $(CORE_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(CORE_OBJS)
	@# the libraries it needs beyond libdw's and those every build has (the
	@# C test programs of the specs read it)
	@echo '$(DEFLATE_LIBS)' > $(BUILD)/liblgprof-core.libs

$(LAUNCHER): $(CLI_OBJS) $(BIND_OBJS) $(CORE_LIB)
	@mkdir -p $(@D)
	$(link_launcher)

INSTALL_LAUNCHER = $(BUILD)/install/lgprof
$(INSTALL_LAUNCHER): $(BUILD)/obj/cli/main-install.o $(BUILD)/obj/cli/embedded.o $(BIND_OBJS) $(CORE_LIB)
	@mkdir -p $(@D)
	$(link_launcher)

$(BUILD)/obj/core/%.o: csrc/core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/obj/lua/%.o: csrc/lua/%.c $(CORE_HDRS) $(BIND_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BIND_CFLAGS) -c $< -o $@

$(CORE_SO): $(BIND_OBJS) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LIBFLAG) -o $@ $(BIND_OBJS) $(CORE_LIB) $(LDFLAGS) $(LDLIBS)

# make deps-demo / deps-test / deps: install the missing Debian packages (as
# root: one dpkg-query for all, apt-get only when something is missing), or
# print the one `sudo apt-get install -y` line that installs exactly those.
define install_deps
	@installed=" $$(dpkg-query -W -f='$${Package} $${Status}\n' $(2) 2>/dev/null \
	  | sed -n 's/^\([^ :]*\)[^ ]* install ok installed$$/\1/p' | tr '\n' ' ')"; missing=""; \
	for p in $(2); do case "$$installed" in *" $$p "*) ;; *) missing="$$missing $$p";; esac; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make $(1): installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null \
	    || { echo "make $(1): apt-get failed"; exit 1; }; \
	else \
	  echo "make $(1): missing Debian packages; run:"; \
	  echo "  sudo apt-get install -y$$missing"; exit 1; \
	fi
endef

deps-demo:
	$(call install_deps,deps-demo,$(DEMO_PACKAGES))

deps-test:
	$(call install_deps,deps-test,$(DEMO_PACKAGES) $(TEST_PACKAGES))

deps: deps-test

# The suite runs under Lua 5.4 as TAP, which spec/tap_summary.lua reads: one
# line per spec file and the failures in full (VERBOSE=1: the whole TAP too);
# the last line is "N passed, N failed, N skipped".
# One busted process per spec file, TEST_JOBS at a time (spec/parallel.lua);
# BUSTED_ARGS (files, --filter=...) runs one busted process over what it names.
TEST_JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
# $(call run_suite,BUSTED-COMMAND,BUILD-DIR): the suite's TAP on stdout
run_suite = if [ -n "$(BUSTED_ARGS)" ]; then $(1) -o TAP $(BUSTED_ARGS); \
	else $(LUA) spec/parallel.lua $(TEST_JOBS) "$(2)/test" $(1) -o TAP; fi
VERBOSE       ?=
TAP_SUMMARY    = $(LUA) spec/tap_summary.lua $(if $(filter-out 0,$(VERBOSE)),--verbose)
# when make started (seconds since the epoch): the "# N s" line before the
# summary counts the checks of the packages and the build too
MAKE_STARTED  := $(shell date +%s)
# the build first, TEST_JOBS compilers at a time unless make was given -j
TEST_BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS))
test: deps-test
	@$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) all
	@set -o pipefail; $(call run_suite,$(BUSTED),$(BUILD)) | $(TAP_SUMMARY) --since $(MAKE_STARTED)

# make test-asan: the same suite against a core built with AddressSanitizer and
# UBSan in $(ASAN_BUILD)/: the command $(ASAN_BUILD)/bin/lgprof is built with
# them (the specs run it: LGPROF_BUILD), and so is $(ASAN_BUILD)/lgprof/core.so,
# which the Lua processes load. lua5.4 is not instrumented, so the ASan runtime
# is preloaded into every lua5.4 process, and only into those:
# $(ASAN_BUILD)/bin/lua5.4 runs lua5.4 through the dynamic loader with
# --preload (no LD_PRELOAD in the environment, so gcc, gprof, make... run as
# usual) and comes first on PATH, so busted and the Lua subprocesses of the
# specs use it; LGPROF_BUILD makes them load $(ASAN_BUILD)/lgprof/core.so.
# LGPROF_SANITIZER tells the specs (no ulimit -v under ASan: util.memory_limit),
# LGPROF_REAL_LUA names the real interpreter (for luarocks in packaging_spec).
# Reports go to files in $(ASAN_BUILD)/sanitizer/; each one is a failure.
# Leaks are detected; spec/sanitizer/lsan.supp suppresses the one the loader
# itself leaks when run as a command. use_tls=0: LeakSanitizer (gcc 12) dies
# with "Tracer caught signal 11" scanning the dynamic TLS that libdw's error
# state gets in a dlopen'ed core.so under glibc 2.36; lgprof and Lua keep no
# pointers in thread-local storage, so no leak can hide there.
ASAN_BUILD    ?= build-asan
SAN_FLAGS     ?= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

test-asan: deps-test
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) CFLAGS="-O1 -g $(SAN_FLAGS)" \
	  LDFLAGS="$(SAN_FLAGS)" all
	@set -e; lua=$$(command -v $(LUA)); asan=$$($(CC) -print-file-name=libasan.so); \
	ldso=$$(readelf -l "$$lua" | sed -n 's/.*interpreter: \(.*\)\]$$/\1/p'); \
	[ -f "$$asan" ] && [ -n "$$ldso" ] || { echo "make test-asan: no libasan.so or loader"; exit 1; }; \
	mkdir -p $(ASAN_BUILD)/bin; rm -rf $(ASAN_BUILD)/sanitizer; mkdir -p $(ASAN_BUILD)/sanitizer; \
	printf '#!/bin/sh\nexec %s --preload %s %s "$$@"\n' "$$ldso" "$$asan" "$$lua" \
	  > $(ASAN_BUILD)/bin/$(notdir $(LUA)); chmod +x $(ASAN_BUILD)/bin/$(notdir $(LUA))
	@set -o pipefail; logs="$(CURDIR)/$(ASAN_BUILD)/sanitizer"; real=$$(command -v $(LUA)); \
	export PATH="$(CURDIR)/$(ASAN_BUILD)/bin:$$PATH" LGPROF_BUILD="$(CURDIR)/$(ASAN_BUILD)" \
	LGPROF_SANITIZER=address LGPROF_REAL_LUA="$$real" \
	ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:log_path='$$logs/asan'" \
	LSAN_OPTIONS="suppressions='$(CURDIR)/spec/sanitizer/lsan.supp':print_suppressions=0:use_tls=0" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path='$$logs/ubsan'"; \
	$(call run_suite,$(notdir $(LUA)) $(BUSTED_SCRIPT),$(ASAN_BUILD)) \
	  | $(TAP_SUMMARY) --sanitizer-logs "$$logs"

# make test-valgrind: bin/lgprof under valgrind memcheck over every fixture
# program (reports, -T, --format=json, -s) and a Lua API script: no error, no
# definite leak. About 2 minutes on 2 cores (make test-asan: about 5); CI
# runs this one.
test-valgrind: deps-test
	@$(MAKE) --no-print-directory all
	@$(LUA) spec/sanitizer/valgrind.lua

demo: deps-demo
	@$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)/demo
	$(CC) -O0 -g -pg -o $(BUILD)/demo/demo examples/demo.c
	cd $(BUILD)/demo && ./demo
	$(LAUNCHER) -b $(BUILD)/demo/demo $(BUILD)/demo/gmon.out

# Benchmarks: builds (or reuses) the inputs under $(BUILD)/bench, prints the table.
bench: deps-test
	@$(MAKE) --no-print-directory all
	@$(LUA) spec/bench/run.lua $(BUILD)

# Fuzzing: libFuzzer harnesses over the core (without the Lua bindings). The
# core is archived once more, by clang with the sanitizers and the fuzzer's
# coverage (-fsanitize=fuzzer-no-link), by this Makefile's own rules run for
# BUILD=$(FUZZ_CORE); each harness links that archive.
FUZZ_CC       ?= clang
# (FUZZ_OPT alone: fuzz_regress_spec's brief run compiles at -O0)
FUZZ_OPT      ?= -g -O1
FUZZ_CFLAGS   ?= $(FUZZ_OPT) -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS  ?= 60
FUZZ_JOBS     ?= 2
FUZZ_DIR       = $(BUILD)/fuzz
FUZZ_CORE      = $(BUILD)/fuzz-core
FUZZ_CORE_LIB  = $(FUZZ_CORE)/liblgprof-core.a
FUZZ_HARNESSES = gmon elf profile exe source symfile mapfile disasm perf debugcopy tracedata fde
FUZZ_BINS      = $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_HARNESSES))
# a word as one shell word (single-quoted): the checkout's path may hold
# spaces and quotes
shq = '$(subst ','\'',$1)'

.PHONY: fuzz-core-force
# (the sub-make knows which objects are out of date; the archive is rewritten
# only then, so the harnesses are relinked only then)
# (FUZZ_CORE may be given on the command line, as fuzz_regress_spec does, and
# then reaches the sub-make, where it is BUILD: there the archive is the
# core's own rule's, not this one's, which would call itself for ever)
ifneq ($(FUZZ_CORE),$(BUILD))
$(FUZZ_CORE_LIB): fuzz-core-force
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_CORE) CC=$(FUZZ_CC) \
	  CFLAGS="$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link" $@
endif

$(FUZZ_DIR)/fuzz_%: csrc/fuzz/fuzz_%.c csrc/fuzz/pipeline.h $(FUZZ_CORE_LIB) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -std=c99 -D_POSIX_C_SOURCE=200809L \
	  $(CORE_PKG_CFLAGS) -Icsrc/core -o $@ $< $(FUZZ_CORE_LIB) $(LDFLAGS) $(LDLIBS)

# the fixed executable and profile of fuzz_profile and fuzz_exe
$(FUZZ_DIR)/demo: examples/demo.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -pg -o $@ examples/demo.c
	cd $(@D) && rm -f gmon.out && ./demo >/dev/null && mv gmon.out demo.gmon.out

# fuzz_source's executable: the demo compiled with -O2 -g from a copy that is
# then deleted, so its source is found only through the search list, where
# the harness puts the fuzzed text
$(FUZZ_DIR)/anno: examples/demo.c
	@mkdir -p $(@D)/anno-src
	cp examples/demo.c $(@D)/anno-src/demo.c
	$(CC) -O2 -g -pg -o $@ $(@D)/anno-src/demo.c
	rm -rf $(@D)/anno-src
	cd $(@D) && rm -f gmon.out && ./anno >/dev/null && mv gmon.out anno.gmon.out

fuzz-build: deps-test
	@$(MAKE) --no-print-directory $(FUZZ_BINS) $(FUZZ_DIR)/demo $(FUZZ_DIR)/anno

# Each harness starts from a copy of its seeds (spec/fuzz/corpus/NAME/, none:
# a failure) with its dictionary (spec/fuzz/NAME.dict) if there is one; a
# harness that did not run to its end, or started without its seeds, fails
# as a crash does.
fuzz: fuzz-build
	@cd $(FUZZ_DIR) && rm -f ./*-crash-* ./*-leak-* ./*-timeout-* ./*-oom-* && \
	root=$(call shq,$(CURDIR)); fail=0; \
	for h in $(FUZZ_HARNESSES); do \
	  rm -rf "corpus-$$h" && mkdir -p "corpus-$$h" && \
	  cp "$$root/spec/fuzz/corpus/$$h"/* "corpus-$$h/" 2>/dev/null; \
	  if [ -z "$$(ls -A "corpus-$$h")" ]; then \
	    echo "fuzz_$$h: no seeds in spec/fuzz/corpus/$$h/"; fail=1; fi; \
	done; \
	[ $$fail = 0 ] || { echo "make fuzz: a harness has no seeds"; exit 1; }; \
	printf '%s\n' $(FUZZ_HARNESSES) | FUZZ_ROOT="$$root" xargs -P $(FUZZ_JOBS) -n 1 sh -c ' \
	  h=$$1; dict="$$FUZZ_ROOT/spec/fuzz/$$h.dict"; set -- "./fuzz_$$h"; \
	  if [ -f "$$dict" ]; then set -- "$$@" "-dict=$$dict"; fi; \
	  "$$@" -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
	    -artifact_prefix="$$h-" -print_final_stats=1 "corpus-$$h" > "fuzz_$$h.log" 2>&1' fuzz-run; \
	for h in $(FUZZ_HARNESSES); do \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz_$$h.log" | tail -1); \
	  secs=$$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "fuzz_$$h.log" | tail -1); \
	  seeds=$$(sed -n 's/^INFO: seed corpus: files: \([0-9]*\).*/\1/p' "fuzz_$$h.log" | tail -1); \
	  found=$$(ls "$$h"-crash-* "$$h"-leak-* "$$h"-timeout-* "$$h"-oom-* 2>/dev/null | wc -l); \
	  n=$$(ls "corpus-$$h" | wc -l); \
	  echo "fuzz_$$h: $${runs:-?} executions in $${secs:-?} s, seeds $${seeds:-?}, corpus $$n, crashes $$found"; \
	  if [ "$$found" != 0 ]; then fail=1; \
	    ls "$$h"-crash-* "$$h"-leak-* "$$h"-timeout-* "$$h"-oom-* 2>/dev/null | sed 's/^/  /'; \
	  elif [ -z "$$runs" ] || [ -z "$$secs" ]; then fail=1; \
	    echo "  did not run to its end: $(FUZZ_DIR)/fuzz_$$h.log"; tail -5 "fuzz_$$h.log" | sed 's/^/  /'; \
	  elif [ -z "$$seeds" ] || [ "$$seeds" = 0 ]; then fail=1; \
	    echo "  started without its seeds: $(FUZZ_DIR)/fuzz_$$h.log"; fi; \
	done; \
	[ $$fail = 0 ] || { echo "make fuzz: a harness failed ($(FUZZ_DIR)/, logs fuzz_*.log)"; exit 1; }

# (paths quoted: DESTDIR and PREFIX may hold spaces)
# The manual goes to DOCDIR as it is in the checkout, README.md and doc/, so
# that README.md's links into doc/ hold; the man page to MANDIR/man1.
DOC_FILES      = $(wildcard doc/*)
# The command embeds its modules (it runs from any PREFIX, DESTDIR staging
# moved into place, or a symlink); core.so and the modules are for lua5.4
# scripts (bin/lgprof --lua-env says how they find them).
install: all $(INSTALL_LAUNCHER) install-module
	install -d "$(DESTDIR)$(BINDIR)"
	install -m 0755 $(INSTALL_LAUNCHER) "$(DESTDIR)$(BINDIR)/lgprof"
	install -d "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(DOCDIR)/doc"
	install -m 0644 doc/lgprof.1 "$(DESTDIR)$(MANDIR)/man1/lgprof.1"
	install -m 0644 README.md "$(DESTDIR)$(DOCDIR)/README.md"
	for f in $(DOC_FILES); do install -m 0644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done

# core.so and the Lua modules only (luarocks installs its own command)
install-module: $(CORE_SO)
	install -d "$(DESTDIR)$(LUA_LIBDIR_INSTALL)/lgprof" "$(DESTDIR)$(LUA_SHAREDIR)/lgprof"
	install -m 0755 $(CORE_SO) "$(DESTDIR)$(LUA_LIBDIR_INSTALL)/lgprof/core.so"
	for f in $(patsubst lua/lgprof/%,%,$(LUA_MODS)); do \
	  install -D -m 0644 "lua/lgprof/$$f" "$(DESTDIR)$(LUA_SHAREDIR)/lgprof/$$f" || exit 1; done

uninstall:
	rm -rf "$(DESTDIR)$(LUA_LIBDIR_INSTALL)/lgprof" "$(DESTDIR)$(LUA_SHAREDIR)/lgprof" "$(DESTDIR)$(BINDIR)/lgprof" \
	  "$(DESTDIR)$(MANDIR)/man1/lgprof.1" "$(DESTDIR)$(DOCDIR)"

clean:
	rm -rf $(BUILD) $(LAUNCHER)
