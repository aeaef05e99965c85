#!/bin/sh
# tests/version/run.sh: one version everywhere.  The
# release is written once (src/lirs/lirs.h, LIRS_VERSION; the Makefile's
# VERSION reads it), and the ChangeLog's head entry names it.  Every place
# that shows it must agree: both commands' --version, the User-Agent the
# antenna sends (the test server logs it), the HINA-DI header of
# `lirs cat --format di` and of publish's sites.di.gz, and index.html's
# generator meta tag.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
plan 10

# The ChangeLog's head: its first line, "DATE  lirs-antenna VERSION".
V=$(sed -n '1s/^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]  lirs-antenna \([0-9][0-9.a-z-]*\)$/\1/p' "$TOP/ChangeLog")
# A floor: a version, not an empty string that would agree with nothing.
case $V in
[0-9]*.[0-9]*.[0-9]*) ok "the ChangeLog's head names a release ($V)" ;;
*) notok "the ChangeLog's head names a release" "first line: '$(head -n 1 "$TOP/ChangeLog")'"; V=no-version-in-ChangeLog ;;
esac
is "the Makefile's VERSION (from lirs.h) is the ChangeLog's" \
	"$(MAKEFLAGS= MAKELEVEL= make -s -C "$TOP" --no-print-directory version 2>&1)" "$V"
is "lirs --version" "$($L --version 2>&1)" "lirs $V"
is "antenna --version" "$($A --version 2>&1)" "antenna (lirs-antenna) $V"

tmpdir version-test
start_server 120 --verbose
NOW=$(date +%s)
printf '<html><head><title>V</title></head><body><p>v</p></body></html>\n' > "$WWW/v.html"
printf 'Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\n' > "$WWW/v.html.hdr"
D=$T/v.db
$A -d "$D" init --title V --base http://example.com/v/ > /dev/null
$A -d "$D" add "$U/v.html" > /dev/null
$A -d "$D" update --now "$NOW" > "$T/up" 2>&1
is "update exits 0" $? 0
is "the User-Agent the antenna sends" \
	"$(sed -n "s|^testserver: GET /v.html user-agent '\(.*\)'\$|\1|p" "$T/server.log" | sort -u)" \
	"lirs-antenna/$V (update antenna; libcurl)"
$A -d "$D" publish --now "$NOW" "$T/pub" > /dev/null 2>&1
is "publish exits 0" $? 0
is "index.html's generator meta tag" \
	"$(grep -o '<meta name="generator" content="[^"]*">' "$T/pub/index.html")" \
	"<meta name=\"generator\" content=\"lirs-antenna $V\">"
is "the HINA-DI header of publish's sites.di.gz" \
	"$(gzip -dc "$T/pub/sites.di.gz" | sed -n 's/^User-Agent: \(.*\)\r$/\1/p')" "lirs-antenna/$V"
is "the HINA-DI header of lirs cat --format di" \
	"$($L cat --format di "$T/pub/lirs.gz" 2>/dev/null | sed -n 's/^User-Agent: \(.*\)\r$/\1/p')" "lirs-antenna/$V"
