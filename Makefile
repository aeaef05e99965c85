# lirs-antenna: four layers, each a folder and a static library
# (src/base, src/lirs, src/atom, src/antenna; README "Layout"), and two
# commands (cmd/lirs, cmd/antenna) over them.  A layer sees only its own
# folder, its priv/ headers and the public headers of the layers below it;
# it links only the packages it needs.
# Everything is overridable: make CC=clang CFLAGS=... BUILD=build-asan PREFIX=/usr DESTDIR=...
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter -Wvla
PREFIX  ?= /usr/local
MANDIR  ?= $(PREFIX)/share/man
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BUILD   ?= build
# The release, read from its one source (src/lirs/lirs.h, LIRS_VERSION);
# `make version` prints it.
VERSION := $(shell sed -n 's/^\#define LIRS_VERSION "\(.*\)"$$/\1/p' src/lirs/lirs.h)

# The packages of each layer; a layer's users link its packages and those below.
PKGS_base    =
PKGS_lirs    = zlib json-c
PKGS_atom    = sqlite3 libxml-2.0
PKGS_antenna = libcurl libpsl uchardet yaml-0.1 libpq
PKGS     = $(PKGS_lirs) $(PKGS_atom) $(PKGS_antenna)
# Recursive (=) so pkg-config runs only after mk/deps.sh has installed what is missing.
pkgcflags = $(if $(strip $(1)),$(shell pkg-config --cflags $(1)))
pkglibs   = $(if $(strip $(1)),$(shell pkg-config --libs $(1)))
LIBS_base    = -lpthread -lm
LIBS_lirs    = $(call pkglibs,$(PKGS_lirs)) $(LIBS_base)
LIBS_atom    = $(call pkglibs,$(PKGS_atom)) $(LIBS_lirs)
# libpq: its header only; store_pg.c loads it when a database is PostgreSQL's
LIBS_antenna = $(call pkglibs,$(filter-out libpq,$(PKGS_antenna))) $(LIBS_atom)
INC_base     = -Isrc/base
INC_lirs     = $(INC_base) -Isrc/lirs
INC_atom     = $(INC_lirs) -Isrc/atom
INC_antenna  = $(INC_atom) -Isrc/antenna
ALL_CFLAGS   = $(WARN) $(CFLAGS) $(SANFLAGS)
ALL_LDFLAGS  = $(LDFLAGS) $(SANFLAGS)
LAYERS       = base lirs atom antenna
# Archives in link order (users first): the commands and tests link these.
A_base    = $(BUILD)/liblirs-base.a
A_lirs    = $(BUILD)/liblirs.a $(A_base)
A_atom    = $(BUILD)/liblirs-atom.a $(A_lirs)
A_antenna = $(BUILD)/liblirs-antenna.a $(A_atom)

SRC_base    := $(sort $(wildcard src/base/*.c))
SRC_lirs    := $(sort $(wildcard src/lirs/*.c))
SRC_atom    := $(sort $(wildcard src/atom/*.c))
# The antenna layer keeps its sources in group folders (README "Layout").
SRC_antenna := $(sort $(wildcard src/antenna/*.c src/antenna/*/*.c))
CLI_SRC   := $(sort $(wildcard cmd/*.c))
LIRS_SRC  := $(sort $(wildcard cmd/lirs/*.c))
ANT_SRC   := $(sort $(wildcard cmd/antenna/*.c))
# The unit tests mirror the layers: tests/unit/LAYER/t_*.c links only that
# layer's libraries (and those below), tests/unit/cmd/ the commands' kit.
UNIT_SRC  := $(sort $(wildcard $(foreach l,$(LAYERS) cmd,tests/unit/$(l)/t_*.c)))
TOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIRS_OBJ  := $(LIRS_SRC:%.c=$(BUILD)/%.o)
ANT_OBJ   := $(ANT_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(addprefix $(BUILD)/tests/,$(basename $(notdir $(UNIT_SRC))))
TOOL_BIN  := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
HDRS      := $(wildcard src/*/*.h src/*/priv/*.h cmd/*.h cmd/lirs/*.h cmd/antenna/*.h tests/unit/*.h)
# Tests and tools may look inside every layer, private headers included.
INC_all   = $(INC_antenna) $(foreach l,$(LAYERS),-Isrc/$(l)/priv) -Icmd

all: $(BUILD)/lirs $(BUILD)/antenna

$(BUILD)/.deps: mk/deps.sh
	@mkdir -p $(BUILD)
	@sh mk/deps.sh $(PKGS)
	@touch $@

# One rule per layer: its own folder and priv/, the layers below, its packages.
define layer
$$(BUILD)/src/$(1)/%.o: src/$(1)/%.c $$(HDRS) | $$(BUILD)/.deps
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) $$(INC_$(1)) -Isrc/$(1)/priv $$(call pkgcflags,$$(PKGS_$(1))) $$(PKG_BELOW_$(1)) -c -o $$@ $$<
endef
PKG_BELOW_base    =
PKG_BELOW_lirs    =
PKG_BELOW_atom    = $(call pkgcflags,$(PKGS_lirs))
PKG_BELOW_antenna = $(call pkgcflags,$(PKGS_lirs) $(PKGS_atom))
$(foreach l,$(LAYERS),$(eval $(call layer,$(l))))

$(BUILD)/liblirs-base.a: $(SRC_base:%.c=$(BUILD)/%.o)
$(BUILD)/liblirs.a: $(SRC_lirs:%.c=$(BUILD)/%.o)
$(BUILD)/liblirs-atom.a: $(SRC_atom:%.c=$(BUILD)/%.o)
$(BUILD)/liblirs-antenna.a: $(SRC_antenna:%.c=$(BUILD)/%.o)
$(BUILD)/liblirs-base.a $(BUILD)/liblirs.a $(BUILD)/liblirs-atom.a $(BUILD)/liblirs-antenna.a:
	rm -f $@
	ar rcs $@ $^

# The commands: lirs sees the codec and the Atom bridge (lirs atom), never
# the antenna layer, and so links no libcurl, libyaml or uchardet.
$(BUILD)/cmd/%.o: cmd/%.c $(HDRS) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(INC_atom) -Icmd -c -o $@ $<
$(BUILD)/cmd/lirs/%.o: cmd/lirs/%.c $(HDRS) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(INC_atom) -Icmd -c -o $@ $<
$(BUILD)/cmd/antenna/%.o: cmd/antenna/%.c $(HDRS) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(INC_antenna) -Icmd -c -o $@ $<

$(BUILD)/lirs: $(LIRS_OBJ) $(CLI_OBJ) $(A_atom)
	$(CC) $(ALL_LDFLAGS) -o $@ $(LIRS_OBJ) $(CLI_OBJ) $(A_atom) $(LIBS_atom)

$(BUILD)/antenna: $(ANT_OBJ) $(CLI_OBJ) $(A_antenna)
	$(CC) $(ALL_LDFLAGS) -o $@ $(ANT_OBJ) $(CLI_OBJ) $(A_antenna) $(LIBS_antenna)

TEST_CFLAGS = $(ALL_CFLAGS) $(INC_all) $(call pkgcflags,$(PKGS))
# A layer's unit test sees that layer's headers, its priv/ and the layers
# below (as the layer's own code does), and links only those libraries.
define unit_layer
$$(patsubst tests/unit/$(1)/%.c,$$(BUILD)/tests/%,$$(wildcard tests/unit/$(1)/t_*.c)): $$(BUILD)/tests/%: tests/unit/$(1)/%.c $$(HDRS) $$(A_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) $$(INC_$(1)) -Isrc/$(1)/priv $$(call pkgcflags,$$(PKGS_$(1))) $$(PKG_BELOW_$(1)) $$(ALL_LDFLAGS) -Itests/unit -o $$@ $$< $$(A_$(1)) $$(LIBS_$(1))
endef
$(foreach l,$(LAYERS),$(eval $(call unit_layer,$(l))))

# t_cli tests the commands' kit (cmd/cli.c), so it links it too.
$(BUILD)/tests/t_cli: tests/unit/cmd/t_cli.c $(HDRS) $(CLI_OBJ) $(A_atom)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(INC_atom) -Icmd $(call pkgcflags,$(PKGS_lirs) $(PKGS_atom)) $(ALL_LDFLAGS) -Itests/unit -o $@ $< $(CLI_OBJ) $(A_atom) $(LIBS_atom)

$(BUILD)/tools/%: tests/tools/%.c $(HDRS) $(A_antenna)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(A_antenna) $(LIBS_antenna) $(TOOL_LIBS)

# bench/seed: fills a database for the benchmarks, built like a test tool.
$(BUILD)/bench/%: bench/%.c $(HDRS) $(A_antenna)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(A_antenna) $(LIBS_antenna)

# The loopback HTTP server the tests script is built on libmicrohttpd.
TOOL_LIBS = $(shell pkg-config --libs libmicrohttpd 2>/dev/null)

# Programs the script tests run (python3 reads JSON and feeds, xmllint
# checks XML); installed like the libraries.  Each script also names its
# own in a "# test-needs: CMD:PACKAGE ..." line (import:MODULE:PACKAGE for
# a python3 module, file:PATH:PACKAGE for a file such as a font),
# collected here, so a new tool is installed by the build and never
# skipped.  Everything else a test runs is
# in a minimal Debian (coreutils, gzip, libc-bin's iconv, mawk, sed,
# diffutils) or built from tests/tools/ (testserver, httpget: no curl).
TEST_SCRIPTS := $(sort $(wildcard tests/*/*.sh data/demo/run.sh bench/*.sh))
TEST_NEEDS = $(shell sed -n 's/^\# test-needs://p' $(TEST_SCRIPTS))
$(BUILD)/.testdeps: mk/deps.sh $(TEST_SCRIPTS)
	@mkdir -p $(BUILD)
	@sh mk/deps.sh --tools python3:python3 xmllint:libxml2-utils gzip:gzip iconv:libc-bin $(TEST_NEEDS)
	@touch $@

# bench/seed: tests/federation seeds its shards with it too.
tests: all $(UNIT_BIN) $(TOOL_BIN) $(BUILD)/bench/seed $(BUILD)/.testdeps

# The README's test command. Last line: "N passed, N failed, N skipped".
check: tests
	@BUILD=$(BUILD) sh tests/run.sh

# The suites of the commands against PostgreSQL (a server each suite starts
# itself: tests/lib/pg.sh), unchanged: ANTENNA_TEST_PG=1 names every
# database they use as one of it (tests/lib/pgwrap.sh); their SQL
# fixtures go through psql (tests/lib/antenna.sh sql, sqlq).  Then the
# store's unit tests against a server of their own (tests/lib/pgunits.sh:
# each database file they name a database of it, tests/unit/t_db.h).
PG_SUITES ?= antenna noise trust polite moved robots budget paging feeds when region import opspath notify site json sitefeed diff template selectors waits sitemap formats
PG_UNITS ?= t_store t_trust t_source_budget t_published t_settings t_export t_words t_update t_noise_update
check-pg: tests
	@fail=0; TOP=$(CURDIR) BUILD=$(BUILD) sh tests/lib/pgunits.sh $(PG_UNITS) || fail=1; \
	for s in $(PG_SUITES); do \
	  ANTENNA_TEST_PG=1 TOP=$(CURDIR) BUILD=$(BUILD) sh tests/$$s/run.sh > $(BUILD)/pg-$$s.out 2>&1 || fail=1; \
	  n=$$(grep -c '^not ok' $(BUILD)/pg-$$s.out); [ "$$n" -eq 0 ] || fail=1; \
	  echo "$$s on PostgreSQL: $$(grep -c '^ok' $(BUILD)/pg-$$s.out) ok, $$n not ok ($(BUILD)/pg-$$s.out)"; \
	done; exit $$fail

# Same suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own build tree.
check-asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" check

# Same suite with every command run under valgrind (slow).
check-valgrind: tests
	@BUILD=$(BUILD) VALGRIND=1 sh tests/run.sh

# The README's two commands in a fresh minimal Debian (debootstrap, chroot;
# root only): mk/check-fresh.sh.  CI runs it (.ci/run).
check-fresh:
	@bash mk/check-fresh.sh

demo: all $(TOOL_BIN)
	@BUILD=$(BUILD) sh data/demo/run.sh

bench: all $(TOOL_BIN) $(BUILD)/bench/seed
	@sh mk/deps.sh --tools curl:curl nginx:nginx-light sqlite3:sqlite3
	@BUILD=$(BUILD) sh bench/run.sh

# Where `antenna update` spends its CPU against curl's, by function
# (perf record --call-graph dwarf): bench/out/BUILD/profile/profile.txt.
profile: all $(TOOL_BIN) $(BUILD)/bench/seed
	@sh mk/deps.sh --tools curl:curl nginx:nginx-light sqlite3:sqlite3 perf:linux-perf
	@BUILD=$(BUILD) sh bench/profile.sh

# The update's instruction count, steady on a loaded machine (valgrind
# --tool=callgrind): bench/out/callgrind/NAME/report.txt.
# CALLGRIND_ANTENNA=path/to/antenna measures another build on the same setup;
# CALLGRIND_OFF=1 (diff texts, robots.txt off), CALLGRIND_FIRST=1 (the first run).
callgrind: all $(TOOL_BIN) $(BUILD)/bench/seed
	@sh mk/deps.sh --tools nginx:nginx-light valgrind:valgrind sqlite3:sqlite3
	@BUILD=$(BUILD) sh bench/callgrind.sh $(CALLGRIND_ANTENNA)

# libFuzzer targets, one per parser; FUZZ_SECONDS each, seeded from tests/.
FUZZ_SECONDS ?= 60
fuzz:
	@sh mk/deps.sh --tools clang:clang
	@BUILD=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh

# The library, for programs that embed it (a LIRS to Atom converter, a
# validator service): the public headers (each layer's src/LAYER/*.h, not
# priv/) in one folder, the four static libraries, and two pkg-config
# files made from mk/*.pc.in at install time, for this PREFIX:
# lirs-codec (liblirs and liblirs-base; zlib, json-c) and lirs-antenna
# (all four).  Their version is VERSION, the one --version prints.
# And data/systemd/'s antenna.service and antenna.timer (the crontab
# line's equivalent) in SYSTEMDUNITDIR, ExecStart naming PREFIX/bin.
PUB_HDRS := $(sort $(wildcard $(foreach l,$(LAYERS),src/$(l)/*.h)))
LIBS_A    = $(A_antenna)
PC        = lirs-codec lirs-antenna

install: all
	test -n "$(VERSION)"
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	  $(DESTDIR)$(INCLUDEDIR)/lirs-antenna $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	  $(DESTDIR)$(SYSTEMDUNITDIR)
	cp $(BUILD)/lirs $(BUILD)/antenna $(DESTDIR)$(PREFIX)/bin/
	cp man/*.1 $(DESTDIR)$(MANDIR)/man1/
	cp man/*.5 $(DESTDIR)$(MANDIR)/man5/
	cp $(PUB_HDRS) $(DESTDIR)$(INCLUDEDIR)/lirs-antenna/
	cp $(LIBS_A) $(DESTDIR)$(LIBDIR)/
	for p in $(PC); do \
	  sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	      -e 's|@VERSION@|$(VERSION)|; s|@PKGS_CODEC@|$(PKGS_lirs)|; s|@PKGS_ALL@|$(strip $(PKGS))|' \
	      mk/$$p.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/$$p.pc || exit 1; \
	done
	sed 's|@BINDIR@|$(PREFIX)/bin|' data/systemd/antenna.service > $(DESTDIR)$(SYSTEMDUNITDIR)/antenna.service
	cp data/systemd/antenna.timer $(DESTDIR)$(SYSTEMDUNITDIR)/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/lirs $(DESTDIR)$(PREFIX)/bin/antenna
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5)))
	rm -rf $(DESTDIR)$(INCLUDEDIR)/lirs-antenna
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(notdir $(LIBS_A)))
	rm -f $(foreach p,$(PC),$(DESTDIR)$(PKGCONFIGDIR)/$(p).pc)
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/antenna.service $(DESTDIR)$(SYSTEMDUNITDIR)/antenna.timer

version:
	@echo $(VERSION)

# doc/schema.sql: the store's schema as sqlite3's .schema prints it for a
# fresh `antenna init` (mk/schema.sh); tests/house says when it is stale.
schema: all
	@sh mk/deps.sh --tools sqlite3:sqlite3
	@BUILD=$(BUILD) sh mk/schema.sh

clean:
	rm -rf build build-asan build-fuzz build-* public

.PHONY: all tests check check-pg check-asan check-valgrind check-fresh demo bench profile callgrind fuzz install uninstall version schema clean
