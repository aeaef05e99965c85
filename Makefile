# lirs-antenna: one static library (src/) and two commands (cmd/lirs, cmd/antenna).
# Everything is overridable: make CC=clang CFLAGS=... BUILD=build-asan PREFIX=/usr DESTDIR=...
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter -Wvla
PREFIX  ?= /usr/local
MANDIR  ?= $(PREFIX)/share/man
BUILD   ?= build
PKGS     = zlib sqlite3 libcurl json-c libxml-2.0 uchardet yaml-0.1
# Recursive (=) so pkg-config runs only after mk/deps.sh has installed what is missing.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread -lm
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -Isrc $(PKG_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)

LIB_SRC   := $(sort $(wildcard src/*.c))
LIRS_SRC  := $(sort $(wildcard cmd/lirs/*.c))
ANT_SRC   := $(sort $(wildcard cmd/antenna/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/t_*.c))
TOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIRS_OBJ  := $(LIRS_SRC:%.c=$(BUILD)/%.o)
ANT_OBJ   := $(ANT_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BIN  := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
HDRS      := $(wildcard src/*.h cmd/lirs/*.h cmd/antenna/*.h tests/unit/*.h)

all: $(BUILD)/lirs $(BUILD)/antenna

$(BUILD)/.deps: mk/deps.sh
	@mkdir -p $(BUILD)
	@sh mk/deps.sh $(PKGS)
	@touch $@

$(BUILD)/%.o: %.c $(HDRS) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/liblirs.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BUILD)/lirs: $(LIRS_OBJ) $(BUILD)/liblirs.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(LIRS_OBJ) $(BUILD)/liblirs.a $(PKG_LIBS)

$(BUILD)/antenna: $(ANT_OBJ) $(BUILD)/liblirs.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(ANT_OBJ) $(BUILD)/liblirs.a $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(HDRS) $(BUILD)/liblirs.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -Itests/unit -o $@ $< $(BUILD)/liblirs.a $(PKG_LIBS)

$(BUILD)/tools/%: tests/tools/%.c $(HDRS) $(BUILD)/liblirs.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/liblirs.a $(PKG_LIBS) $(TOOL_LIBS)

# The loopback HTTP server the tests script is built on libmicrohttpd.
TOOL_LIBS = $(shell pkg-config --libs libmicrohttpd 2>/dev/null)

# Programs the script tests run (python3 reads JSON and feeds, xmllint
# checks XML); installed like the libraries.
$(BUILD)/.testdeps: mk/deps.sh
	@mkdir -p $(BUILD)
	@sh mk/deps.sh --tools python3:python3 xmllint:libxml2-utils gzip:gzip iconv:libc-bin
	@touch $@

tests: all $(UNIT_BIN) $(TOOL_BIN) $(BUILD)/.testdeps

# The README's test command. Last line: "N passed, N failed".
check: tests
	@BUILD=$(BUILD) sh tests/run.sh

# Same suite under AddressSanitizer + UndefinedBehaviorSanitizer, in its own build tree.
check-asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" check

# Same suite with every command run under valgrind (slow).
check-valgrind: tests
	@BUILD=$(BUILD) VALGRIND=1 sh tests/run.sh

demo: all $(TOOL_BIN)
	@BUILD=$(BUILD) sh data/demo/run.sh

bench: all $(TOOL_BIN)
	@BUILD=$(BUILD) sh bench/run.sh

# libFuzzer targets, one per parser; FUZZ_SECONDS each, seeded from tests/.
FUZZ_SECONDS ?= 60
fuzz:
	@BUILD=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	cp $(BUILD)/lirs $(BUILD)/antenna $(DESTDIR)$(PREFIX)/bin/
	cp man/*.1 $(DESTDIR)$(MANDIR)/man1/
	cp man/*.5 $(DESTDIR)$(MANDIR)/man5/

clean:
	rm -rf build build-asan build-fuzz build-* public

.PHONY: all tests check check-asan check-valgrind demo bench fuzz install clean
