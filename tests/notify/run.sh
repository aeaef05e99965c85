#!/bin/sh
# Notifications (antenna(1) NOTIFICATIONS), end to end on loopback: a real
# SMTP server (aiosmtpd) and a webhook receiver (http.server) started
# here, the pages on the test server.  The mail is read back with
# Python's email package: Japanese subject, From name and body intact,
# valid MIME headers, no header injected by a title; the webhook's JSON
# with json.loads.  A dead SMTP server or webhook fails neither the run
# nor the publish, the news stay pending and the next run delivers them;
# a server that never answers is given up after --notify-timeout; the
# group filter, the size cap and removal.
# test-needs: python3:python3 import:aiosmtpd:python3-aiosmtpd timeout:coreutils
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"
D=$TOP/tests/notify

server_suite antenna-notify
MPID= HPID= BPID=
trap 'for p in $MPID $HPID $BPID; do kill "$p" 2>/dev/null; done; cleanup' EXIT INT TERM
DB=$T/a.db
MAIL=$T/mail HOOK=$T/hook
mkdir -p "$MAIL" "$HOOK" "$T/site"

# wait_file FILE: up to 10 s for a server's port file
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
start_smtp() {
	rm -f "$T/smtp.port"
	$PY "$D/smtpd.py" "$T/smtp.port" "$MAIL" ${1:-} 2>"$T/smtpd.log" &
	MPID=$!
	wait_file "$T/smtp.port" || { notok "SMTP server started" "$(cat "$T/smtpd.log")"; exit 1; }
	SP=$(cat "$T/smtp.port")
}
mails() { ls "$MAIL" | grep -c '\.eml$'; }
hooks() { ls "$HOOK" | grep -c '\.json$'; }
# checkmail N RCPT SUBJECT TEXT...: mail N (000, 001, ...) checked, TAP
checkmail() {
	n=$1; shift
	$PY "$D/checkmail.py" "$MAIL/$n.eml" "$MAIL/$n.env" "$@" > "$T/check.tap" 2>&1
	tap_from "$T/check.tap" $((11 + $# - 2))
}
page() {   # page NAME TITLE TEXT: a diary page
	printf '<html><head><title>%s</title></head><body><p>%s</p></body></html>\n' \
		"$2" "$3" > "$WWW/$1.html"
}

start_smtp
$PY "$D/hook.py" "$T/hook.port" "$HOOK" 2>"$T/hook.log" &
HPID=$!
wait_file "$T/hook.port" || { notok "webhook receiver started" "$(cat "$T/hook.log")"; exit 1; }
HURL="http://127.0.0.1:$(cat "$T/hook.port")/hook"

# --- init: targets checked, stored, shown ---
$A -d "$DB" init --notify 'mailto:a@example.org>, b@example.org' >/dev/null 2>&1
is "a mailto: with a second address is refused (exit 2)" "$?" 2
$A -d "$DB" init --notify "$(printf 'mailto:a@example.org\r\nBcc: x@example.org')" >/dev/null 2>&1
is "a mailto: with CR/LF is refused" "$?" 2
$A -d "$DB" init --notify ftp://example.org/ >/dev/null 2>&1
is "a target neither mailto: nor http(s) is refused" "$?" 2
$A -d "$DB" init --smtp http://127.0.0.1/ >/dev/null 2>&1
is "--smtp that is not smtp(s):// is refused" "$?" 2
check "no database was made by refused options" test ! -e "$DB"
$A -d "$DB" init --title 'テスト・アンテナ' --base http://antenna.example/ --notify mailto:friend@example.org \
	--notify "$HURL" --smtp "smtp://127.0.0.1:$SP" --smtp-from antenna@example.org \
	--notify-timeout 3 > "$T/init.out" 2>&1
is "init with --notify twice" "$?" 0
check "init says the targets it added" grep -q "notify: added 'mailto:friend@example.org'" "$T/init.out"
$A -d "$DB" show > "$T/show.out"
check "show lists the mail target" grep -q '^notify: *mailto:friend@example.org$' "$T/show.out"
check "show lists the webhook" grep -q "^notify: *$HURL\$" "$T/show.out"
check "show gives the SMTP server" grep -q "^smtp_url *smtp://127.0.0.1:$SP\$" "$T/show.out"

# --- a baseline finds no news: nothing sent ---
# a title with CR/LF and a header in it: never a header of the mail
page alice "$(printf 'アリスの日記\r\nBcc: evil@example.org')" '今日は晴れ。'
page bob "ボブの日記" '散歩した。'
# bob's Last-Modified (its file's mtime) a day old, and kept so below: the
# text rule finds its news, as the mail checked says, whatever second each
# fetch comes in (a mtime of this second is not believed against the
# answer's Date, a second older is: the header rule would date it)
touch -d "@$((NOW - 86400))" "$WWW/bob.html"
page carol 'Carol' 'quiet day.'
$A -d "$DB" add "$U/alice.html" --group friends >/dev/null
$A -d "$DB" add "$U/bob.html" --group friends >/dev/null
$A -d "$DB" add "$U/carol.html" --group work >/dev/null
$A -d "$DB" update --now $NOW >/dev/null 2>"$T/err"
is "a run without news sends no mail" "$(mails)" 0
is "... and no webhook" "$(hooks)" 0

# --- news: one digest per target ---
page alice "$(printf 'アリスの日記\r\nBcc: evil@example.org')" '今日は晴れ。</p><p>猫が来た。名前はミケ。'
$A -d "$DB" update --force --now $((NOW + 3600)) > "$T/out" 2>"$T/err"
is "update with news exits 0" "$?" 0
is "one mail" "$(mails)" 1
check "update says it notified the mail target" grep -q 'notified mailto:friend@example.org of 1 update' "$T/out"
checkmail 000 friend@example.org 'テスト・アンテナ: 更新 1 件' 'アリスの日記' "$U/alice.html" '猫が来た。' \
	'http://antenna.example/'
is "one webhook POST" "$(hooks)" 1
is "... Content-Type application/json" "$(cat "$HOOK/000.type")" application/json
$PY - "$HOOK/000.json" "$U/alice.html" > "$T/json.tap" 2>&1 <<'PYEOF'
import datetime, json, sys
d = json.loads(open(sys.argv[1], encoding="utf-8").read())
u = d["updates"]
def ok(c, what): print(("ok - " if c else "not ok - ") + "webhook JSON: " + what + ("" if c else "\n#   " + json.dumps(d, ensure_ascii=False)))
ok(d["antenna"]["title"] == "テスト・アンテナ" and d["antenna"]["url"] == "http://antenna.example/", "the antenna's title and URL")
ok(d["count"] == 1 and d["more"] == 0 and len(u) == 1, "one update")
ok(u[0]["url"] == sys.argv[2] and u[0]["title"].startswith("アリスの日記"), "its url and title")
ok(all(datetime.datetime.fromisoformat(x[:-1] + "+00:00") for x in (u[0]["time"], u[0]["detected"], d["time"])) and u[0]["time"].endswith("Z"), "times in RFC 3339 (UTC)")
ok(u[0]["method"] in ("text", "header") and "猫が来た" in u[0]["excerpt"], "method and excerpt")
ok(u[0]["source"] == sys.argv[2], "source")
PYEOF
tap_from "$T/json.tap" 6
$A -d "$DB" update --force --now $((NOW + 3700)) >/dev/null 2>&1
is "news sent are not sent again" "$(mails) $(hooks)" "1 1"

# --- dead SMTP server and webhook: the run and publish go on, news pending ---
kill $MPID; wait $MPID 2>/dev/null; MPID=
touch "$HOOK/fail"
page bob 'ボブの日記' '散歩した。</p><p>駅前に新しいパン屋ができた。'
touch -d "@$((NOW - 86400))" "$WWW/bob.html"   # its Last-Modified kept
$A -d "$DB" run --force --now $((NOW + 7200)) "$T/site" > "$T/out" 2>"$T/err"
is "run with a dead SMTP server and a failing webhook exits 0" "$?" 0
check "... and publishes the news" grep -q '駅前に新しいパン屋' "$T/site/index.html"
check "the failed mail is said on stderr" grep -q 'notify: failed: cannot mail .friend@example.org.: .*1 update kept for the next run' "$T/err"
check "the failed webhook too (HTTP status 500)" grep -q "notify: failed: $HURL: HTTP status 500" "$T/err"
$A -d "$DB" show > "$T/show.out"
check "show: one update pending for each target" test "$(grep -c 'pending: *1;' "$T/show.out")" -eq 2
check "show: the last error" grep -q 'last error: *cannot mail' "$T/show.out"
# the next run (no new news) delivers what is pending
start_smtp $SP
rm -f "$HOOK/fail"
$A -d "$DB" run --now $((NOW + 7300)) "$T/site" > "$T/out" 2>"$T/err"
is "the next run delivers the pending mail" "$(mails)" 2
checkmail 001 friend@example.org 'テスト・アンテナ: 更新 1 件' 'ボブの日記' '駅前に新しいパン屋ができた。' '!猫が来た' \
	'(ページの本文が変わった)' '差分: http://antenna.example/diff/'
is "... and the pending webhook" "$(hooks)" 2
# run's digests link the diff page publish wrote (DIR/diff/NAME.html under --base)
$PY - "$HOOK/001.json" "$T/site" > "$T/json.tap" 2>&1 <<'PYEOF'
import json, os, sys
u = json.loads(open(sys.argv[1], encoding="utf-8").read())["updates"][0]
d = u.get("diff") or ""
ok = d.startswith("http://antenna.example/diff/") and os.path.isfile(os.path.join(sys.argv[2], d[len("http://antenna.example/"):]))
print(("ok - " if ok else "not ok - ") + "webhook JSON: diff links the diff page publish wrote" + ("" if ok else "\n#   " + json.dumps(u, ensure_ascii=False)))
PYEOF
tap_from "$T/json.tap" 1
$A -d "$DB" show > "$T/show.out"
check "show: nothing pending now, no error" test "$(grep -c 'pending: *0; delivered 2' "$T/show.out")" -eq 2 -a "$(grep -c 'last error' "$T/show.out")" -eq 0

# --- a server that never answers: given up after --notify-timeout ---
$PY "$D/smtpd.py" "$T/bh.port" blackhole 2>"$T/bh.log" &
BPID=$!
wait_file "$T/bh.port"
$A -d "$DB" init --smtp "smtp://127.0.0.1:$(cat "$T/bh.port")" >/dev/null
page carol 'Carol' 'quiet day.</p><p>A long walk by the river.'
t0=$(date +%s)
timeout 30 $A -d "$DB" update --force --now $((NOW + 10800)) >/dev/null 2>"$T/err"
rc=$?; t1=$(date +%s)
is "a silent SMTP server does not fail the update" "$rc" 0
check "... given up within the 3 s timeout (took $((t1 - t0)) s)" test $((t1 - t0)) -le 8
check "... and said" grep -q 'notify: failed: cannot mail.*timed out after' "$T/err"
$A -d "$DB" init --smtp "smtp://127.0.0.1:$SP" >/dev/null

# --- a group's target, the size cap, English ---
LONG='友だちの日記をまとめて読むための、とても長い名前のアンテナ (friends)'
$A -d "$DB" init --notify mailto:friends@example.org --notify-group friends --notify-max 1 --lang en \
	--title "$LONG" >/dev/null
page alice 'アリスの日記' '今日は晴れ。</p><p>猫が来た。名前はミケ。</p><p>ミケは三毛猫。'
page bob 'ボブの日記' '散歩した。</p><p>駅前に新しいパン屋ができた。</p><p>クロワッサンを買った。'
page carol 'Carol' 'quiet day.</p><p>A long walk by the river.</p><p>Rain at night.'
$A -d "$DB" update --force --now $((NOW + 14400)) > "$T/out" 2>"$T/err"
is "two mails: friend (the news and carol's pending), friends (its group's)" "$(mails)" 4
for f in 002 003; do
	case $(head -1 "$MAIL/$f.env") in
	friends@*) FR=$f ;;
	*) AL=$f ;;
	esac
done
export FROM_NAME="$LONG"   # folded over several encoded words
checkmail "$AL" friend@example.org "$LONG: 4 updates" 'and 3 more.'
checkmail "$FR" friends@example.org "$LONG: 2 updates" 'and 1 more.' '!Carol' '!river'

# --- a server that wants a login: the user in the URL, the password in a file ---
mkdir -p "$T/mail2"
SMTP_AUTH='ant:s3cret pass' $PY "$D/smtpd.py" "$T/auth.port" "$T/mail2" 2>"$T/auth.log" &
BPID="$BPID $!"
wait_file "$T/auth.port"
printf 'wrong\n' > "$T/pw"
$A -d "$DB" init --smtp "smtp://ant@127.0.0.1:$(cat "$T/auth.port")" --smtp-password-file "$T/pw" >/dev/null
page bob 'ボブの日記' '散歩した。</p><p>駅前に新しいパン屋ができた。</p><p>クロワッサンを買った。</p><p>雨。'
$A -d "$DB" update --force --now $((NOW + 15000)) >/dev/null 2>"$T/err"
check "a wrong SMTP password: the mail fails, said" grep -q 'notify: failed: cannot mail.*friend@example.org' "$T/err"
printf 's3cret pass\n' > "$T/pw"
$A -d "$DB" update --now $((NOW + 15100)) >/dev/null 2>"$T/err"
is "the password from --smtp-password-file: delivered at the next run" "$(ls "$T/mail2" | grep -c '\.eml$')" 2
check "... nothing said on stderr" test ! -s "$T/err"
# --smtp-tls require: this server offers no STARTTLS, so no mail
$A -d "$DB" init --smtp-tls require >/dev/null
page bob 'ボブの日記' '散歩した。</p><p>駅前に新しいパン屋ができた。</p><p>クロワッサンを買った。</p><p>雨。</p><p>晴れ。'
$A -d "$DB" update --force --now $((NOW + 15200)) >/dev/null 2>"$T/err"
check "--smtp-tls require: no mail without STARTTLS, said" grep -q 'notify: failed: cannot mail.*STARTTLS' "$T/err"
is "... none sent" "$(ls "$T/mail2" | grep -c '\.eml$')" 2
$A -d "$DB" init --smtp-tls try --smtp "smtp://127.0.0.1:$SP" >/dev/null

# --- removal ---
$A -d "$DB" init --no-notify mailto:friend@example.org > "$T/out"
check "--no-notify removes one" grep -q 'notify: removed 1 target' "$T/out"
$A -d "$DB" show > "$T/show.out"
check "show no longer lists it" test "$(grep -c '^notify: *mailto:friend@' "$T/show.out")" -eq 0
page carol 'Carol' 'quiet day.</p><p>A long walk by the river.</p><p>Rain at night.</p><p>Ducks.'
$A -d "$DB" update --force --now $((NOW + 18000)) >/dev/null 2>&1
is "a removed target gets nothing (the others do)" "$(grep -lx friend@example.org "$MAIL"/*.env | wc -l) $(hooks)" "3 7"
$A -d "$DB" init --no-notify all > "$T/out"
check "--no-notify all removes the rest" grep -q 'notify: removed 2 targets' "$T/out"
check "show lists no target" test "$($A -d "$DB" show | grep -c '^notify:')" -eq 0

# --- --notify-max-age: news kept pending longer than it are dropped, never mailed ---
AGE=$T/age.db
page dave 'Dave' 'day one.'
page erin 'Erin' 'day one.'
$A -d "$AGE" init --title 'テスト・アンテナ' --lang en --notify mailto:age@example.org \
	--smtp smtp://127.0.0.1:9 --smtp-from antenna@example.org --notify-timeout 3 \
	--notify-max-age 86400 >/dev/null 2>&1
$A -d "$AGE" add "$U/dave.html" >/dev/null
$A -d "$AGE" add "$U/erin.html" >/dev/null
$A -d "$AGE" update --now $NOW >/dev/null 2>&1
page dave 'Dave' 'day one.</p><p>An old piece of news, never delivered.'
$A -d "$AGE" update --force --now $((NOW + 3600)) >/dev/null 2>"$T/err"
check "max-age: a dead SMTP server keeps dave's news pending" grep -q 'notify: failed: cannot mail' "$T/err"
$A -d "$AGE" init --smtp "smtp://127.0.0.1:$SP" >/dev/null
page erin 'Erin' 'day one.</p><p>A fresh piece of news.'
M=$(mails); N=$(printf %03d "$M")
unset FROM_NAME
$A -d "$AGE" update --force --now $((NOW + 3600 + 2 * 86400)) >/dev/null 2>"$T/err"
is "max-age: two days later one mail" "$(mails)" $((M + 1))
checkmail "$N" age@example.org 'テスト・アンテナ: 1 update' 'Erin' 'A fresh piece of news.' '!Dave' '!An old piece' '!more'
done_testing 123
