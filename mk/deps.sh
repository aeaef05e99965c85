#!/bin/sh
# Find the libraries with pkg-config (or, with --tools CMD:PKG..., the programs the
# tests run; import:MODULE:PKG for a python3 module, file:PATH:PKG for a file
# such as a font); install the missing Debian
# packages when root, otherwise stop with the exact command to run.  Called by make
# before the first compile and the first test.
set -u
pkg_of() {
	case $1 in
	zlib) echo zlib1g-dev ;;
	sqlite3) echo libsqlite3-dev ;;
	libcurl) echo libcurl4-openssl-dev ;;
	libpsl) echo libpsl-dev ;;
	json-c) echo libjson-c-dev ;;
	libxml-2.0) echo libxml2-dev ;;
	uchardet) echo libuchardet-dev ;;
	yaml-0.1) echo libyaml-dev ;;
	libpq) echo libpq-dev ;;
	libmicrohttpd) echo libmicrohttpd-dev ;;
	*) echo "$1" ;;
	esac
}
missing=""
if [ "${1:-}" = --tools ]; then
	# Programs the test suite runs: COMMAND:PACKAGE pairs.
	shift
	for t in "$@"; do
		case $t in
		import:*:*)
			m=${t#import:}
			/usr/bin/python3 -c "import ${m%%:*}" >/dev/null 2>&1 ||
				missing="$missing ${m#*:}"
			continue ;;
		file:*:*)   # a file a package installs (fonts): file:PATH:PACKAGE
			m=${t#file:}
			[ -e "${m%%:*}" ] || missing="$missing ${m#*:}"
			continue ;;
		esac
		command -v "${t%%:*}" >/dev/null 2>&1 || [ -x "/usr/bin/${t%%:*}" ] ||
			missing="$missing ${t#*:}"
	done
	set --
else
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
	# libmicrohttpd is for the test server only; always wanted so `make check` works.
	for p in "$@" libmicrohttpd; do
		if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$p"; then
			missing="$missing $(pkg_of "$p")"
		fi
	done
fi
[ -n "$missing" ] || exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 && apt-get install -y -qq $missing >&2 && exit 0
	echo "deps: apt-get failed" >&2
	exit 1
fi
echo "deps: missing packages; run:" >&2
echo "  sudo apt-get install$missing" >&2
exit 1
