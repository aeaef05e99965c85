#!/bin/sh
# The real-software corpus, a project tracker: Debian 12's Redmine 5.0
# (Rails, sqlite) run on loopback from this script (rackup, WEBrick) with
# its clock moved by the test, driven through its REST API as its admin
# (news posted and corrected, wiki pages edited, an issue commented and
# edited) and watched by the real antenna: the project overview, the news
# list and one news item, two wiki pages, one issue (not the activity
# page: Redmine's robots.txt disallows it, and the antenna obeys).
# Redmine prints relative ages everywhere ("about 2 hours ago", "Today",
# "11/28/2026"), a fresh CSRF token in every answer, and an ETag only.
# Scored page by page like tests/realdyn (tests/realdyn/dyn.py score): a
# page whose own content changed in a step is announced in that check or
# the next (late), else missed; any other announcement is false; an
# announced edit's excerpt shows the edit, no furniture.
# Apart from tests/realdyn because Rails is heavy (its boot alone takes
# 10-40 s): this suite stays under 3 minutes on its own.
# REALSOFT_SUMMARY=FILE: appends "redmine UNCHANGED FALSE REAL ONTIME LATE
# MISSED BADEXCERPT" there.  REALDYN_KEEP=DIR keeps the checks' records,
# REALDYN_SNAP=1 the pages' text at each step too.
# A missing program is a failure, never a skip.
# test-needs: rackup:ruby-rack file:/usr/share/redmine/config.ru:redmine file:/var/lib/dbconfig-common/sqlite3/redmine/instances/default/redmine_default:redmine-sqlite file:/usr/share/rubygems-integration/all/gems/webrick-1.8.1/lib/webrick.rb:ruby-webrick
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
. "$TOP/tests/lib/realsoft.sh"
DYN="$PY $TOP/tests/realdyn/dyn.py"

tmpdir realredmine
PIDS=
# Rails shuts down in its own time: wait for it (5 s at most) so that no
# server outlives the suite
stop() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap stop EXIT INT TERM

RM=/usr/share/redmine
# the package's database, migrated and seeded by its postinst (dbconfig-common)
RMDB=/var/lib/dbconfig-common/sqlite3/redmine/instances/default/redmine_default
missing=
command -v rackup >/dev/null 2>&1 || missing="$missing rackup"
[ -f "$RM/config.ru" ] || missing="$missing $RM/config.ru"
[ -f "$RMDB" ] || missing="$missing $RMDB (redmine-sqlite)"
ruby -rwebrick -e 1 >/dev/null 2>&1 || missing="$missing ruby-webrick"
if [ -n "$missing" ]; then
	echo "1..1"
	echo "not ok - the real software is installed (missing:$missing; make tests installs it)"
	exit 1
fi

# ---- the clock ---------------------------------------------------------------
# Redmine's clock: Time.now and Date.today plus the seconds in $T/clock
# (libfaketime would make ruby spend many times the CPU, as tests/realsoft
# found with tDiary; this reads the file again only when it changed).
OFF=0
echo 0 > "$T/clock"
clock() { OFF=$1; echo "$OFF" > "$T/clock"; }
now() { echo $(($(date +%s) + OFF)); }
cat > "$T/clock.rb" <<'EOF'
require 'date'
module TestClock
  @mtime = nil
  @off = 0
  def self.off
    m = File.mtime(ENV['TEST_CLOCK']) rescue nil
    if m != @mtime
      @mtime = m
      @off = File.read(ENV['TEST_CLOCK']).to_i rescue 0
    end
    @off
  end
end
class << Time
  alias_method :test_real_now, :now
  def now(**kw) test_real_now(**kw) + TestClock.off end
end
class << Date
  def today(*a) Time.now.to_date end
end
EOF

# ---- Redmine: a private app directory and instance, rackup on 127.0.0.1 ----
# The package's files linked, its config copied (Rails finds its root from
# config/), a Gemfile.local adding WEBrick, an instance (Redmine's
# multi-tenancy: instances/NAME) with the database copied from the package's.
APP=$T/redmine
mkdir -p "$APP/instances/t/config" "$APP/instances/t/log" "$APP/instances/t/tmp" \
	"$APP/instances/t/files" "$APP/instances/t/public"
for f in "$RM"/*; do
	case ${f##*/} in config | instances | Gemfile | Gemfile.lock) ;; *) ln -s "$f" "$APP/${f##*/}" ;; esac
done
cp -r "$RM/config" "$APP/config"
cp "$RM/Gemfile" "$APP/Gemfile"
cp -L "$RM/Gemfile.lock" "$APP/Gemfile.lock"
echo "gem 'webrick'" > "$APP/Gemfile.local"
cp "$RMDB" "$T/redmine.sqlite3"
printf 'production:\n  adapter: sqlite3\n  database: %s\n  encoding: utf8\n' "$T/redmine.sqlite3" \
	> "$APP/instances/t/config/database.yml"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$APP/instances/t/config/secret_key.txt"
export REDMINE_PASSWORD=realredmine-secret
$DYN redmine-admin "$T/redmine.sqlite3" "$REDMINE_PASSWORD"
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$APP" && REDMINE_INSTANCE=t RAILS_ENV=production TEST_CLOCK="$T/clock" RUBYOPT="-r$T/clock.rb" \
	exec rackup -s webrick -o 127.0.0.1 -p "$PORT" -E production config.ru >"$T/redmine.log" 2>&1) &
PIDS="$PIDS $!"
B=http://127.0.0.1:$PORT
i=0
while ! "$HTTPGET" "$B/projects" >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 600 ]; then
		notok "Redmine serves on $B" "$(grep -v warning "$T/redmine.log" | tail -n 5)"
		exit 1
	fi
	sleep 0.2
done
ok "Redmine serves on $B (up in $((i / 5)) s)"

# ---- what people do, through the REST API -----------------------------------
api() { $DYN api "$B" "$@" || echo "api $*" >> "$T/api.errors"; }
news_body() { printf '{"news": {"title": "%s", "summary": "%s", "description": "%s"}}' "$1" "$2" "$3"; }
wiki() { api PUT "/projects/widget/wiki/$1.json" "{\"wiki_page\": {\"text\": \"$2\", \"comments\": \"$3\"}}"; }
api POST /projects.json '{"project": {"name": "Widget", "identifier": "widget", "description": "A small tool that sorts jam jars.", "is_public": true, "enabled_module_names": ["issue_tracking", "news", "wiki"], "tracker_ids": [1, 2, 3]}}'
api POST /projects/widget/news.json "$(news_body 'Widget 1.4.2 released' 'A bug-fix release' 'Widget 1.4.2 fixes teh jar count.')"
wiki Prices 'h1. Prices\n\nPlum jam: 120円 a jar.\nApricot jam: 180円 a jar.' 'prices'
wiki Garden 'h1. Garden\n\nThis year we planted a plum tree by the gate.' 'garden'
api POST /issues.json '{"issue": {"project_id": 1, "tracker_id": 1, "subject": "Crash on a long jar list", "description": "Widget crashes with 12 jars on the list."}}'
[ ! -s "$T/api.errors" ] && ok "the project, its news, wiki and issue created through the REST API" ||
	notok "the project, its news, wiki and issue created through the REST API" "$(cat "$T/api.errors")"

PAGES="redmine-overview redmine-news redmine-news1 redmine-prices redmine-garden redmine-issue1"
url() {
	case $1 in
	redmine-overview) echo "$B/projects/widget" ;;
	redmine-news) echo "$B/projects/widget/news" ;;
	redmine-news1) echo "$B/news/1" ;;
	redmine-prices) echo "$B/projects/widget/wiki/Prices" ;;
	redmine-garden) echo "$B/projects/widget/wiki/Garden" ;;
	redmine-issue1) echo "$B/issues/1" ;;
	esac
}
rs_record
act() {
	case $1 in
	2)	api PUT /issues/1.json '{"issue": {"notes": "Fixed in the next release, please test."}}' &&
			real 'please test' redmine-issue1 ;;
	4)	wiki Prices 'h1. Prices\n\nPlum jam: 150円 a jar.\nApricot jam: 180円 a jar.' 'new price' &&
			real '150円' redmine-prices ;;
	6)	api POST /projects/widget/news.json "$(news_body 'Widget 1.4.3 released' 'Sorts peach jars too' 'Widget 1.4.3 sorts peach jars.')" &&
			real '1.4.3 released' redmine-overview redmine-news ;;
	8)	wiki Garden 'h1. Garden\n\nThis year we planted a peach tree by the gate.' 'garden' &&
			real 'peach' redmine-garden ;;
	10)	api PUT /news/1.json "$(news_body 'Widget 1.4.2 released' 'A bug-fix release' 'Widget 1.4.2 fixes the jar count.')" &&
			real 'the jar count' redmine-news1 redmine-news ;;
	12)	api PUT /issues/1.json '{"issue": {"description": "Widget crashes with 13 jars on the list."}}' &&
			real '13 jars' redmine-issue1 ;;
	esac
}

rs_run realredmine "$T/api.errors" 4
done_testing 8
