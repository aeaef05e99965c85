#!/bin/sh
# Builds and runs every fuzz/fuzz_*.c libFuzzer target against the library
# sources, FUZZ_SECONDS each, seeded from the test data files.
# Usage (from the top directory): BUILD=build-fuzz FUZZ_SECONDS=60 sh fuzz/run.sh
set -u
BUILD=${BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CC=${FUZZ_CC:-clang}
PKGS="zlib sqlite3 libcurl libpsl json-c libxml-2.0 uchardet yaml-0.1"
FLAGS="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
PKG_CFLAGS=$(pkg-config --cflags $PKGS)
PKG_LIBS="$(pkg-config --libs $PKGS) -lpthread -lm"

mkdir -p "$BUILD/obj" "$BUILD/seeds" || exit 2
# The library, once, instrumented.
objs=""
# Every layer's private headers too: the targets reach into the parsers.
INC="-Isrc/base -Isrc/lirs -Isrc/atom -Isrc/antenna -Isrc/lirs/priv -Isrc/antenna/priv"
for src in src/*/*.c src/*/*/*.c; do
	obj="$BUILD/obj/$(echo "${src#src/}" | tr / _ | sed 's/\.c$//').o"
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find src -name '*.h' -newer "$obj")" ]; then
		# Another engineer's file in progress must not stop the codec's fuzzing.
		$CC $FLAGS $INC $PKG_CFLAGS -c -o "$obj" "$src" ||
			{ echo "# warning: cannot build '$src'; left out"; rm -f "$obj"; continue; }
	fi
	objs="$objs $obj"
done
# Seeds: every data file under tests/ (not code), small enough to be useful.
find tests -type f ! -name '*.c' ! -name '*.h' ! -name '*.sh' -size -256k \
	-exec cp {} "$BUILD/seeds/" \; 2>/dev/null
# A first byte of 0 means 1-byte chunks: prefix a copy of each seed with it.
for f in "$BUILD"/seeds/*; do
	[ -f "$f" ] || continue
	case "$f" in *.chunk1) continue ;; esac
	{ printf '\000\001'; cat "$f"; } > "$f.chunk1"
done
status=0
for t in fuzz/fuzz_*.c; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .c)
	bin="$BUILD/$name"
	echo "== $name: building"
	$CC $FLAGS -fsanitize=fuzzer $INC $PKG_CFLAGS -o "$bin" "$t" $objs $PKG_LIBS || { status=2; continue; }
	mkdir -p "$BUILD/corpus-$name"
	echo "== $name: fuzzing for $FUZZ_SECONDS s"
	if "$bin" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -rss_limit_mb=2048 -timeout=20 \
		-print_final_stats=1 -artifact_prefix="$BUILD/$name-" \
		"$BUILD/corpus-$name" "$BUILD/seeds" > "$BUILD/$name.log" 2>&1; then
		echo "ok - $name ran $FUZZ_SECONDS s clean ($(grep -c . "$BUILD/$name.log") log lines, $(grep -E 'stat::number_of_executed_units' "$BUILD/$name.log" | awk '{print $2}') runs)"
	else
		echo "not ok - $name found a crash; see $BUILD/$name.log and $BUILD/$name-*"
		tail -n 30 "$BUILD/$name.log"
		status=1
	fi
done
exit $status
