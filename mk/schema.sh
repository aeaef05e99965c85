#!/bin/sh
# mk/schema.sh (make schema): doc/schema.sql, the store's schema exactly as
# `sqlite3 DB .schema` prints it for a fresh database made by
# `antenna init` (after every migration of src/antenna/store/store_schema.c).
# Usage: sh mk/schema.sh [OUT]; OUT defaults to doc/schema.sql.
# tests/house compares a fresh database's .schema with doc/schema.sql.
# Needs the sqlite3 command (package sqlite3) and a built antenna
# (BUILD, default build).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
OUT=${1:-$TOP/doc/schema.sql}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/antenna" -d "$T/antenna.db" init >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
sqlite3 "$T/antenna.db" .schema >"$T/schema.sql"
mv "$T/schema.sql" "$OUT"
