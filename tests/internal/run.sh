#!/bin/sh
# Internal addresses (antenna(1) SECURITY), end to end on loopback: a page
# the operator added on 127.0.0.1:PORT is read, but what it or a source
# leads to on another internal host -- a redirect to localhost:PORT2 or
# 127.0.0.2, an imported check URL, a feed link, an Atom source's archive
# link -- is refused and named, its title never published, until
# 'init --allow-private'; 'init --no-allow-private' refuses again.  A page
# that moves (three 301s) keeps the permission only on the host:port the
# operator added: moved to moved.example:PORT (a name of 127.0.0.1 by
# ANTENNA_RESOLVE), it is refused like any other.
# Two test servers: U (127.0.0.1:PORT, the pages the operator added) and
# U2 (127.0.0.1:PORT2 as "localhost:PORT2", the internal one, logging
# every request it gets).
# test-needs: python3:python3
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/antenna.sh"

plan 37
server_suite antenna-internal
second_server
asked2() { grep -c "GET $1 " "$T/server2.log"; }

# the internal server's secret page, and what leads to it
cat > "$T/www2/secret.html" <<'EOF'
<html><head><title>SECRET-INTERNAL-TITLE</title></head><body><p>secret internal text</p></body></html>
EOF
cp "$T/www2/secret.html" "$T/www2/secret2.html"
echo '<html><head><title>OK-PAGE</title></head><body><p>fine</p></body></html>' > "$WWW/ok.html"
printf 'Redirect: %s/secret.html\n' "$U2" > "$WWW/redir.html.hdr"
printf 'Redirect: http://127.0.0.2:%s/secret.html\n' "$P" > "$WWW/redir2.html.hdr"
cat > "$WWW/feedpage.html" <<EOF
<html><head><title>FEED-PAGE</title>
<link rel="alternate" type="application/rss+xml" href="$U2/feed.rss"></head>
<body><p>a page with a feed on another host</p></body></html>
EOF
cat > "$T/www2/feed.rss" <<EOF
<?xml version="1.0"?><rss version="2.0"><channel><title>secret feed</title>
<item><title>SECRET-FEED-ENTRY</title><link>$U/feedpage.html</link><pubDate>$(date -u '+%a, %d %b %Y %H:%M:%S GMT')</pubDate></item>
</channel></rss>
EOF
echo '<html><head><title>CK-PAGE</title></head><body><p>shown</p></body></html>' > "$WWW/ck.html"

D=$T/i.db
check "init" $A -d "$D" init --title Internal --base http://example.com/ant/
check "add the page on 127.0.0.1" $A -d "$D" add "$U/ok.html"
check "add the page redirecting to localhost:PORT2" $A -d "$D" add "$U/redir.html"
check "add the page redirecting to 127.0.0.2" $A -d "$D" add "$U/redir2.html"
check "add the page advertising a feed on localhost:PORT2" $A -d "$D" add "$U/feedpage.html"
printf '{"type": "page", "url": "%s/ck.html", "check_url": "%s/secret2.html"}\n' "$U" "$U2" > "$T/ck.jsonl"
check "import a page whose check URL is on localhost:PORT2" $A -d "$D" import "$T/ck.jsonl"

# ---- refused by default ---------------------------------------------------
$A -d "$D" update -v > "$T/out" 2>&1
is "update: the run itself succeeds" $? 0
is "the page the operator added on 127.0.0.1 is read" "$(jget "$D" "$U/ok.html" title)" OK-PAGE
is "... with no error" "$(jget "$D" "$U/ok.html" last_error)" null
e=$(jget "$D" "$U/redir.html" last_error)
case $e in "refused to connect to internal address "*"(loopback) of localhost:$P2: init --allow-private allows it")
	ok "redirect to localhost:PORT2: refused, the page's error says why and how to allow it" ;;
	*) notok "redirect to localhost:PORT2: refused, the page's error says why and how to allow it" "$e" ;; esac
is "... its title is not the internal page's" "$(jget "$D" "$U/redir.html" title)" ""
e=$(jget "$D" "$U/redir2.html" last_error)
case $e in "refused to connect to internal address 127.0.0.2 (loopback) of 127.0.0.2:$P: "*) ok "redirect to 127.0.0.2: refused" ;;
	*) notok "redirect to 127.0.0.2: refused" "$e" ;; esac
e=$(jget "$D" "$U/ck.html" last_error)
case $e in "refused to connect to internal address "*"of localhost:$P2"*) ok "an imported check URL on localhost:PORT2: refused" ;;
	*) notok "an imported check URL on localhost:PORT2: refused" "$e" ;; esac
is "the page advertising a feed on another host is read" "$(jget "$D" "$U/feedpage.html" title)" FEED-PAGE
e=$(jget "$D" "$U/feedpage.html" feed_error)
case $e in "refused to connect to internal address "*"of localhost:$P2"*) ok "... its feed refused, said in feed_error" ;;
	*) notok "... its feed refused, said in feed_error" "$e" ;; esac
check "update -v names the refusal" grep -q "refused to connect to internal address" "$T/out"
check "show names it" sh -c "$A -d '$D' show '$U/redir.html' | grep -q 'refused to connect to internal address'"
is "the internal server was never asked for anything" "$(grep -c 'GET ' "$T/server2.log")" 0
$A -d "$D" run --force -v "$T/pub" > "$T/runout" 2>&1
check "run: the three refused pages and the feed count as failed" \
	grep -q "checked 5 pages: .* 3 failed; 1 feed checked (1 failed)" "$T/runout"
check "run -v names the refusals" grep -q "refused to connect to internal address" "$T/runout"
is "published: no internal title or text anywhere" "$(cat "$T"/pub/*.html "$T"/pub/*.atom | grep -c 'SECRET')" 0

# ---- sources: an Atom source's archive link, a LIRS record ------------------
NOWS=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat > "$WWW/src.atom" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:fh="http://purl.org/syndication/history/1.0">
<title>src</title><id>urn:x:src</id><updated>$NOWS</updated>
<link rel="prev-archive" href="$U2/arch.atom"/>
<entry><title>E</title><id>urn:x:e</id><updated>$NOWS</updated><link href="$U/ok.html"/></entry>
</feed>
EOF
cat > "$T/www2/arch.atom" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>secret</title><id>urn:x:arch</id><updated>$NOWS</updated>
<entry><title>SECRET-ARCHIVE</title><id>urn:x:s</id><updated>$NOWS</updated><link href="$U/ok.html"/></entry>
</feed>
EOF
LM=$(( $(date +%s) - 60 ))
printf 'LIRS,%s,%s,32400,100,%s/secret.html,SECRET-RECORD-TITLE,Peer,0,\n' "$LM" "$LM" "$U2" > "$WWW/peer.lirs"
S=$T/s.db
$A -d "$S" init --title Sources > /dev/null
check "add an Atom source on 127.0.0.1 whose archive link is on localhost:PORT2" $A -d "$S" add --atom "$U/src.atom"
check "add a relay LIRS source listing a page on localhost:PORT2" $A -d "$S" add --lirs "$U/peer.lirs" --relay
$A -d "$S" update > /dev/null 2>&1
$A -d "$S" list --sources > "$T/sources"
check "the Atom source's archive on localhost:PORT2 is refused, said on the source" \
	grep -q "refused to connect to internal address .*of localhost:$P2" "$T/sources"
is "the LIRS source's record of localhost:PORT2 is not fetched, nor the archive" "$(grep -c 'GET ' "$T/server2.log")" 0

# ---- init --allow-private, then --no-allow-private ----------------------------
$A -d "$D" init --allow-private > "$T/initout"
is "init --allow-private says what changed" "$(cat "$T/initout")" "allow_private: '0' -> '1'"
$A -d "$D" update --force > /dev/null 2>&1
is "allowed: the redirect to localhost:PORT2 is followed" "$(jget "$D" "$U/redir.html" title)" SECRET-INTERNAL-TITLE
is "... no error" "$(jget "$D" "$U/redir.html" last_error)" null
is "allowed: the check URL on localhost:PORT2 is fetched" "$(jget "$D" "$U/ck.html" last_error)" null
e=$(jget "$D" "$U/redir2.html" last_error)
case $e in "connection refused"*) ok "allowed: 127.0.0.2 is connected (nothing listens there)" ;;
	*) notok "allowed: 127.0.0.2 is connected (nothing listens there)" "$e" ;; esac
check "allowed: the internal server was asked" grep -q "GET /secret.html " "$T/server2.log"
$A -d "$D" init --no-allow-private > "$T/initout"
is "init --no-allow-private turns it off" "$(cat "$T/initout")" "allow_private: '1' -> '0'"
$A -d "$D" update --force > /dev/null 2>&1
e=$(jget "$D" "$U/redir.html" last_error)
case $e in "refused to connect to internal address "*) ok "... refused again" ;;
	*) notok "... refused again" "$e" ;; esac
is "init --help tells --allow-private and --no-allow-private" \
	"$($A init --help | grep -c -e '--allow-private  ' -e '--no-allow-private refuses')" 2

# ---- a move carries no permission to another host:port ----------------------
cat > "$WWW/mv-new.html" <<'EOF'
<html><head><title>MOVED-INTERNAL-TITLE</title></head><body><p>moved</p></body></html>
EOF
echo '<html><head><title>STAY-TITLE</title></head><body><p>stay</p></body></html>' > "$WWW/stay-new.html"
printf 'Status: 301 Moved Permanently\nRedirect: http://moved.example:%s/mv-new.html\n' "$P" > "$WWW/mv-old.html.hdr"
printf 'Status: 301 Moved Permanently\nRedirect: %s/stay-new.html\n' "$U" > "$WWW/stay.html.hdr"
M=$T/m.db
export ANTENNA_RESOLVE="moved.example:$P:127.0.0.1"
$A -d "$M" init --allow-private --move-after 3 > /dev/null 2>&1
$A -d "$M" add "$U/mv-old.html" > /dev/null
$A -d "$M" add "$U/stay.html" > /dev/null
for i in 1 2 3; do $A -d "$M" update --force > /dev/null 2>&1; done
is "three 301s (allowed then): both pages moved" \
	"$(jget "$M" "http://moved.example:$P/mv-new.html" moved_from) $(jget "$M" "$U/stay-new.html" moved_from)" \
	"$U/mv-old.html $U/stay.html"
$A -d "$M" init --no-allow-private > /dev/null
$A -d "$M" update --force > /dev/null 2>&1
e=$(jget "$M" "http://moved.example:$P/mv-new.html" last_error)
case $e in "refused to connect to internal address 127.0.0.1 (loopback) of moved.example:$P: "*)
	ok "moved to another host:port, a name of 127.0.0.1: refused like any other" ;;
	*) notok "moved to another host:port, a name of 127.0.0.1: refused like any other" "$e" ;; esac
is "moved on the host:port the operator added: still read" "$(jget "$M" "$U/stay-new.html" last_error)" null
