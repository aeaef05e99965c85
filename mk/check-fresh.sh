#!/bin/bash
# mk/check-fresh.sh (make check-fresh): the README's two commands, `make check`
# and `make demo`, in a fresh minimal Debian: a root made with
# debootstrap --variant=minbase plus only gcc, make and git, a clean
# `git archive` of HEAD in it, run in a chroot as root.  Whatever the build
# needs beyond that it must install itself (mk/deps.sh), from the package
# mirror only.  Prints make check's last line; exits 1 when it is not
# "N passed, 0 failed[, N skipped]" or when make demo fails, 2 when the root cannot be made.
#
# The pristine root is cached as a tarball (FRESH_CACHE, default
# /var/cache/lirs-antenna/fresh-root.tar) and unpacked afresh for every
# run, so each run starts from the same minimal root without debootstrap;
# it is rebuilt when the mirror, suite or package list changes, when older
# than FRESH_MAX_AGE_DAYS (30), or with FRESH_REBUILD=1.  Downloaded .debs
# are kept beside it (apt-archives/) so later runs do not fetch them again.
# The mirror and suite are read at run time from this machine's apt
# configuration and /etc/os-release (FRESH_MIRROR, FRESH_SUITE override).
# Nothing outside the cache and a temporary directory is changed; the
# chroot's mounts (/proc, /sys, /dev) are undone by a trap before anything
# is removed.  Needs root; installs debootstrap with apt-get when missing.
set -eu -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${FRESH_CACHE:-/var/cache/lirs-antenna}
TARBALL=$CACHE/fresh-root.tar
DEBS=$CACHE/apt-archives
MAX_AGE_DAYS=${FRESH_MAX_AGE_DAYS:-30}
PACKAGES=gcc,make,git
LOG=${FRESH_LOG:-$TOP/build/check-fresh.log}

say() { echo "check-fresh: $*"; }
die() { echo "check-fresh: FAILED: $1" >&2; exit "${2:-2}"; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"
git -C "$TOP" rev-parse --verify -q HEAD > /dev/null || die "'$TOP' is not a git checkout with a commit"

# ---- the mirror and suite of this machine ------------------------------------
codename() { sed -n 's/^VERSION_CODENAME=//p' /etc/os-release; }
# The first http(s) Debian mirror of the main suite in sources.list(.d):
# deb822 .sources (URIs:/Suites:) or one-line "deb URL SUITE ...".
read_mirror() {
	local suite=$1 f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '
			/^[ \t]*$/ { if (u != "" && ok && deb) { print u; done = 1; exit } u = ""; ok = 0; deb = 0; next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { u = $2 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			tolower($1) == "enabled:" && tolower($2) == "no" { deb = 0 }
			END { if (!done && u != "" && ok && deb) print u }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++
			if ($(i + 1) == s) print $i }' "$f"
	done
}
SUITE=${FRESH_SUITE:-$(codename)}
[ -n "$SUITE" ] || die "no VERSION_CODENAME in /etc/os-release; set FRESH_SUITE"
MIRROR=${FRESH_MIRROR:-$(read_mirror "$SUITE" | grep -E '^https?://' | head -n 1)}
[ -n "$MIRROR" ] || die "no Debian mirror for '$SUITE' in /etc/apt/sources.list*; set FRESH_MIRROR"
ID="variant=minbase suite=$SUITE mirror=$MIRROR include=$PACKAGES"

# ---- the pristine root ---------------------------------------------------------
WORK=$(mktemp -d /var/tmp/lirs-fresh.XXXXXX)
R=$WORK/root

mounted_under() { awk -v p="$1" '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo; }
cleanup() {
	local m
	set +e
	for m in $(mounted_under "$R" | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	# Never delete through a mount that is still there (it could be the host's /dev).
	if [ -n "$(mounted_under "$R")" ]; then
		echo "check-fresh: still mounted under $R, left in place:" >&2
		mounted_under "$R" >&2
		return
	fi
	rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need_root_tarball() {
	[ "${FRESH_REBUILD:-0}" = 1 ] && return 0
	[ -s "$TARBALL" ] && [ "$(cat "$TARBALL.id" 2>/dev/null)" = "$ID" ] || return 0
	[ -n "$(find "$TARBALL" -mtime -"$MAX_AGE_DAYS")" ] || return 0
	return 1
}

start=$(date +%s)
if need_root_tarball; then
	if ! command -v debootstrap > /dev/null; then
		say "installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null ||
			die "cannot install debootstrap"
	fi
	say "debootstrap --variant=minbase --include=$PACKAGES $SUITE (from $MIRROR)"
	mkdir -p "$CACHE" "$DEBS"
	mkdir "$WORK/new"
	debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$WORK/new" "$MIRROR" \
		> "$WORK/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
	rm -f "$WORK"/new/var/cache/apt/archives/*.deb
	tar --numeric-owner -C "$WORK/new" -cf "$TARBALL.tmp" .
	rm -rf --one-file-system "$WORK/new"
	mv "$TARBALL.tmp" "$TARBALL"
	echo "$ID" > "$TARBALL.id"
	say "cached the pristine root: $TARBALL ($(du -h "$TARBALL" | cut -f1)), $(($(date +%s) - start)) s"
else
	say "using the cached pristine root $TARBALL ($ID)"
fi

# ---- a fresh copy, the source, the mounts ---------------------------------------
mkdir -p "$R" "$DEBS"
tar --numeric-owner -C "$R" -xf "$TARBALL"
cp -L /etc/resolv.conf "$R/etc/resolv.conf"
mkdir -p "$R/src/lirs-antenna"
git -C "$TOP" archive --format=tar HEAD | tar -C "$R/src/lirs-antenna" -xf -
say "source: git archive of $(git -C "$TOP" rev-parse --short HEAD)$(git -C "$TOP" diff --quiet HEAD || echo ' (uncommitted changes are not included)')"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --rbind /dev "$R/dev"
mount --make-rslave "$R/dev"
mount --bind "$DEBS" "$R/var/cache/apt/archives"

# ---- the README's two commands ----------------------------------------------------
mkdir -p "$(dirname "$LOG")"
in_root() {
	chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /src/lirs-antenna && $1"
}
say "make check in the fresh root (log: $LOG)"
set +e
in_root "make check" > "$LOG" 2>&1
check_rc=$?
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$LOG" | tail -n 1)
say "make check: exit $check_rc, last line: ${last:-(none)}"
in_root "make demo" > "$LOG.demo" 2>&1
demo_rc=$?
set -e
say "make demo: exit $demo_rc"
say "took $(($(date +%s) - start)) s"
fail=""
case $last in
*" passed, 0 failed" | *" passed, 0 failed, "*" skipped") [ "$check_rc" = 0 ] || fail="make check exited $check_rc" ;;
*) fail="make check did not end with 'N passed, 0 failed'" ;;
esac
[ "$demo_rc" = 0 ] || fail="${fail:+$fail; }make demo exited $demo_rc"
if [ -n "$fail" ]; then
	echo "---- make check: its not ok lines (first 40), then its last 5 lines ----" >&2
	grep -E '^(\[[a-z_0-9]+\] )?not ok' "$LOG" | head -n 40 >&2 || true
	tail -n 5 "$LOG" >&2
	[ "$demo_rc" = 0 ] || { echo "---- make demo (last 20 lines) ----" >&2; tail -n 20 "$LOG.demo" >&2; }
	die "in a fresh minimal Debian: $fail" 1
fi
say "ok: $last, make demo ok"
