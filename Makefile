# lgprof: build, test and install.
#
#   make            build build/lgprof/core.so (./bin/lgprof then runs from the checkout)
#   make test       run the busted suite under Lua 5.4; ends with "N passed, N failed"
#   make demo       profile examples/demo.c with -pg and print lgprof's report
#   make bench      lgprof and GNU gprof side by side (spec/bench/run.lua; inputs
#                   cached in build/bench/; env BENCH_RUNS, BENCH_GPROF_B3=1)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install the Debian packages the build and the tests need
#
# Every variable can be overridden on the command line.

SHELL         := /bin/bash

LUA_VERSION   ?= 5.4
LUA           ?= lua$(LUA_VERSION)
PKG_CONFIG    ?= pkg-config
BUSTED        ?= $(LUA) /usr/bin/busted
PREFIX        ?= /usr/local
DESTDIR       ?=
LUA_LIBDIR_INSTALL ?= $(PREFIX)/lib/lua/$(LUA_VERSION)
LUA_SHAREDIR  ?= $(PREFIX)/share/lua/$(LUA_VERSION)
BINDIR        ?= $(PREFIX)/bin

CFLAGS        ?= -O2 -g
WARNFLAGS     ?= -std=c99 -Wall -Wextra -Wshadow -Wmissing-prototypes
LIBFLAG       ?= -shared
PKG_CFLAGS     = $(shell $(PKG_CONFIG) --cflags lua$(LUA_VERSION) libelf libdw 2>/dev/null)
PKG_LIBS       = $(shell $(PKG_CONFIG) --libs libdw libelf 2>/dev/null)
ALL_CFLAGS     = $(WARNFLAGS) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -fPIC -fvisibility=hidden \
                 $(PKG_CFLAGS) -Icsrc
LDLIBS         = $(PKG_LIBS) -liberty -lm

BUILD         ?= build
CORE_SO        = $(BUILD)/lgprof/core.so
CORE_SRCS      = $(wildcard csrc/*.c)
CORE_OBJS      = $(patsubst csrc/%.c,$(BUILD)/obj/%.o,$(CORE_SRCS))
CORE_HDRS      = $(wildcard csrc/*.h)
LUA_MODS       = $(wildcard lua/lgprof/*.lua)

# Debian packages: what the build, the tests, the demo and the benchmarks need.
DEB_PACKAGES   = lua5.4 liblua5.4-dev libelf-dev libdw-dev libiberty-dev lua-busted \
                 gcc g++ binutils pkg-config make luarocks lua-cjson graphviz valgrind \
                 time

.PHONY: all test demo bench install uninstall clean deps

all: $(CORE_SO)

$(BUILD)/obj/%.o: csrc/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(CORE_SO): $(CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LIBFLAG) -o $@ $(CORE_OBJS) $(LDFLAGS) $(LDLIBS)

# make deps: install what is missing (as root), or say exactly what to run.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "make deps: all Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null \
	    || { echo "make deps: apt-get failed"; exit 1; }; \
	else \
	  echo "make deps: missing Debian packages; run:"; \
	  echo "  sudo apt-get install -y$$missing"; exit 1; \
	fi

# The suite runs under Lua 5.4 as TAP; the last line is "N passed, N failed".
test: deps
	@$(MAKE) --no-print-directory all
	@set -o pipefail; $(BUSTED) -o TAP $(BUSTED_ARGS) | $(LUA) spec/tap_summary.lua

demo: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)/demo
	$(CC) -O0 -g -pg -o $(BUILD)/demo/demo examples/demo.c
	cd $(BUILD)/demo && ./demo
	./bin/lgprof -b $(BUILD)/demo/demo $(BUILD)/demo/gmon.out

# Benchmarks: builds (or reuses) the inputs under $(BUILD)/bench, prints the table.
bench: deps
	@$(MAKE) --no-print-directory all
	@$(LUA) spec/bench/run.lua $(BUILD)

install: all
	install -d $(DESTDIR)$(LUA_LIBDIR_INSTALL)/lgprof $(DESTDIR)$(LUA_SHAREDIR)/lgprof $(DESTDIR)$(BINDIR)
	install -m 0755 $(CORE_SO) $(DESTDIR)$(LUA_LIBDIR_INSTALL)/lgprof/core.so
	install -m 0644 $(LUA_MODS) $(DESTDIR)$(LUA_SHAREDIR)/lgprof/
	install -m 0755 bin/lgprof $(DESTDIR)$(BINDIR)/lgprof

uninstall:
	rm -rf $(DESTDIR)$(LUA_LIBDIR_INSTALL)/lgprof $(DESTDIR)$(LUA_SHAREDIR)/lgprof $(DESTDIR)$(BINDIR)/lgprof

clean:
	rm -rf $(BUILD) lgprof csrc/*.o
