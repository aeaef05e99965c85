"""tests/realdyn/dyn.py: the helpers of tests/realdyn (dynamic and
generated-archive software from Debian watched by the antenna).  One
action a run:
  dyn.py mail FILE NUM EPOCH SUBJECT BODY [REPLY_TO_NUM]
        one message (as a mail delivery writes it) into mbox FILE
  dyn.py visits LOG FROM TO SEED
        append a day's traffic between epochs FROM and TO to an access log
        (combined format): browsers with referers and two crawlers, always
        the same hosts, pages, agents and referers, so a statistics page
        moves only in its numbers and times
  dyn.py changed BEFORE AFTER
        the paths whose mtime changed or that are new (find -printf
        '%p %T@' listings), one a line
  dyn.py api BASE METHOD PATH JSON
        one call of a web application's REST API as its admin
        (tests/realredmine: user admin, password in REDMINE_PASSWORD)
  dyn.py redmine-admin DB PASSWORD
        the package's fresh database made usable by a test: the admin's
        password set (Redmine's salted SHA-1), no forced change, the REST
        API on, English
  dyn.py snap FILE URL
        the page's visible text, a line a block, into FILE (to audit what
        a step changed: REALDYN_SNAP=1; tests/realdyn/replay.py replays
        them), and the answer's body and
        validators into FILE.raw and FILE.hdr
  dyn.py score DIR STEPS
        scores the checks kept in DIR (pages, real.S, ann.S, show.S/),
        prints TAP and the figures per kind of software; with a summary
        file as a third argument, appends one line per kind to it.  A
        suite of its own kinds (tests/realheld) gives their gaps and
        furniture in the environment, next to the comment that explains
        them: DYN_GAPS="KIND=FALSE,BAD,MISSED ...", and DYN_FURNITURE with
        one "KIND=REGEX" a line
"""
import email.utils, os, re, sys, time

# Open gaps (false updates, bad excerpts, missed) per kind, as measured
# on 2026-11-29.  hgweb reaches the targets since its two were fixed: the
# README log's newest row losing its "default tip" labels when another
# file is committed (labels that moved between rows are no edit:
# rules/tokens.c ant_tokens_labels_moved()), and the file view's price
# commit showing only its message "README: new pirce" where the README's
# "150円" is wanted (a sentence changed only in its numbers joins the
# excerpt other news took: update/update_text.c).  mhonarc (old messages'
# follow-up and next/previous
# links: an article's links to other pages, taken as seen) and awstats (a
# count resting once while the page's other counts move stays held; a bare
# "0" become "550 Bytes" is a count) reach the targets.  Redmine too since
# the description edit (12 -> 13 jars), which comes with a new
# journal entry, no longer has that entry's "Actions" and "Copy link" as
# its excerpt (a button's or link's label of two words at most that the
# page shows again is not where the excerpt starts; the sentence changed
# in its numbers joins it: update/update_check.c, update/update_text.c).
# make bench prints the target (<= 1% false, no bad excerpt) per kind.
GAPS = {}

# Per kind: the furniture an announced edit's excerpt must never be made
# of (navigation, prev/next and thread links, relative ages, generator
# stamps, statistics tables).  Test data for this corpus, not a rule.
FURNITURE = {
    "hgweb": r"summary \| shortlog|changelog \| graph|\bRSS\b|\bAtom\b",
    "mhonarc": r"Date Prev|Date Next|Thread Prev|Thread Next|Follow-Ups|Next by|Prev by|Index\(es\)|MHonArc",
    "zim": r"\[ *Prev *\]|\[ *Next *\]|\bBacklinks\b",
    "awstats": None,
    "redmine": r"Powered by|Sign in|Register|Issues assigned to me|Also available in|View all news|Index by title",
}


def suite_tables():
    """The kinds of a suite that keeps its own GAPS and FURNITURE."""
    for w in os.environ.get("DYN_GAPS", "").split():
        kind, _, v = w.partition("=")
        GAPS[kind] = tuple(int(x) for x in v.split(","))
    for line in os.environ.get("DYN_FURNITURE", "").split("\n"):
        kind, sep, rx = line.strip().partition("=")
        if sep:
            FURNITURE[kind] = rx or None


def mail(path, num, epoch, subject, body, reply=None):
    hdr = [
        "From club-%s@example.org %s" % (num, time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(epoch))),
        "From: %s <member%s@example.org>" % (["Taro", "Hanako", "Jiro"][int(num) % 3], num),
        "To: club@example.org",
        "Subject: %s" % subject,
        "Date: %s" % email.utils.formatdate(epoch),
        "Message-ID: <m%s@example.org>" % num,
    ]
    if reply:
        hdr += ["In-Reply-To: <m%s@example.org>" % reply, "References: <m%s@example.org>" % reply]
    hdr += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: 8bit", "", body, ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(hdr) + "\n")


HOSTS = ["192.0.2.%d" % i for i in (11, 12, 13, 14, 15, 16)]
PAGES = ["/", "/news.html", "/about.html", "/shop/jam.html", "/style.css", "/logo.png"]
AGENTS = ["Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Firefox/115.0",
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Safari/537.36",
          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"]
BOTS = [("66.249.66.1", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
        ("157.55.39.1", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)")]
REFS = ["https://www.google.com/search?q=plum+jam", "https://news.example.net/links", "-"]


def visits(log, t0, t1, seed):
    n = 14
    with open(log, "a") as f:
        for i in range(n):
            t = t0 + (t1 - t0) * (i + 1) // (n + 1)
            ts = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(t))
            k = seed * 7 + i
            if i % 5 == 4:
                host, ua = BOTS[k % 2]
                ref, page = "-", PAGES[k % 4]
            else:
                host, ua = HOSTS[k % len(HOSTS)], AGENTS[k % len(AGENTS)]
                ref, page = REFS[k % len(REFS)], PAGES[k % len(PAGES)]
            f.write('%s - - [%s] "GET %s HTTP/1.1" 200 %d "%s" "%s"\n'
                    % (host, ts, page, 2000 + (k * 37) % 900, ref, ua))


def changed(before, after):
    old = {}
    for line in open(before):
        p, _, m = line.rstrip("\n").rpartition(" ")
        old[p] = m
    for line in open(after):
        p, _, m = line.rstrip("\n").rpartition(" ")
        if old.get(p) != m:
            print(p)


def readtab(path):
    rows = []
    if os.path.exists(path):
        for line in open(path, encoding="utf-8", errors="replace"):
            f = line.rstrip("\n").split("\t")
            rows.append(f + [""] * (3 - len(f)))
    return rows


def why(d, s, key):
    """What `antenna show` said of KEY after check S: its decision lines."""
    p = os.path.join(d, "show.%d" % s, key)
    if not os.path.exists(p):
        return []
    keep = ("last_change", "held", "noise", "furniture", "excerpt", "ignored", "learned", "why", "decision")
    out = []
    for line in open(p, encoding="utf-8", errors="replace"):
        l = line.rstrip("\n")
        if l.split(":", 1)[0].strip().lower().startswith(keep) or "held" in l:
            out.append(l[:300])
    return out[:12]


def score(d, steps, summary=None):
    pages = [l.split("\t")[0] for l in open(os.path.join(d, "pages"), encoding="utf-8").read().split("\n") if l]
    kinds = []
    for k in pages:
        kind = k.split("-", 1)[0]
        if kind not in kinds:
            kinds.append(kind)
    tot = {k: dict(unchanged=0, false=0, real=0, ontime=0, late=0, missed=0, bad=0, counted=0, consumed=0) for k in kinds}
    pending = {}          # key -> want, edits of the last step not yet announced
    tap = []
    for s in range(1, steps + 1):
        real = {r[0]: r[1] for r in readtab(os.path.join(d, "real.%d" % s))}
        ann = {r[0]: (r[1], r[2]) for r in readtab(os.path.join(d, "ann.%d" % s))}
        per = {k: dict(u=0, f=[], r=[], late=[], missed=[]) for k in kinds}
        newpending = {}
        for key in pages:
            kind = key.split("-", 1)[0]
            t, p = tot[kind], per[kind]
            t["counted"] += 1
            if key in pending and key not in real:
                if key in ann:
                    t["late"] += 1
                    p["late"].append(key)
                    print("#   step %d %s: late, announced a check after its edit: '%s'" % (s, key, ann[key][0]))
                    bad_excerpt(d, s, key, pending[key], ann[key][0], kind, t)
                else:
                    t["missed"] += 1
                    p["missed"].append(key)
                    print("#   step %d %s: missed (want '%s')" % (s, key, pending[key]))
                    for l in why(d, s, key):
                        print("#     %s" % l)
                t["consumed"] += 1
                continue
            if key in pending:      # a new edit on top of one not yet announced
                if key in ann:
                    t["late"] += 1
                    p["late"].append(key)
                else:
                    t["missed"] += 1
                    p["missed"].append(key)
            if key in real:
                t["real"] += 1
                p["r"].append(key)
                if key in ann:
                    t["ontime"] += 1
                    bad_excerpt(d, s, key, real[key], ann[key][0], kind, t)
                else:
                    newpending[key] = real[key]
            else:
                t["unchanged"] += 1
                p["u"] += 1
                if key in ann:
                    t["false"] += 1
                    p["f"].append(key)
                    print("#   step %d %s: false update (%s): '%s'" % (s, key, ann[key][1], ann[key][0]))
                    for l in why(d, s, key):
                        print("#     %s" % l)
        for key in newpending:
            print("#   step %d %s: not announced in its own check (want '%s')" % (s, key, newpending[key]))
            for l in why(d, s, key):
                print("#     %s" % l)
        for kind in kinds:
            p = per[kind]
            if p["f"] or p["r"] or p["late"] or p["missed"]:
                print("# step %d %s: unchanged %d, false %d%s, real %d%s, late %d%s, missed %d%s" % (
                    s, kind, p["u"], len(p["f"]), fmt(p["f"]), len(p["r"]), fmt(p["r"]),
                    len(p["late"]), fmt(p["late"]), len(p["missed"]), fmt(p["missed"])))
        pending = newpending
    for key in pending:                 # the last step's, never announced
        kind = key.split("-", 1)[0]
        tot[kind]["missed"] += 1
    n = 0
    for kind in kinds:
        t = tot[kind]
        npages = sum(1 for k in pages if k.startswith(kind + "-"))
        print("# %s: %d checks of unchanged content, %d false updates, %d real edits, %d on time, %d late, %d missed, %d bad excerpts"
              % (kind, t["unchanged"], t["false"], t["real"], t["ontime"], t["late"], t["missed"], t["bad"]))
        tap.append(("%s: %d steps of %d pages, each check counted once" % (kind, steps, npages),
                    t["counted"] == steps * npages and t["unchanged"] + t["real"] + t["consumed"] == t["counted"]))
        # The target is <= 1% false and no bad excerpt; where the antenna
        # does not reach it yet (GAPS: the counts measured when this suite
        # came, what the rules do not reach yet), the check holds the line at
        # that count so that nothing gets worse, and says both.
        gf, gb, gm = GAPS.get(kind, (0, 0, 0))
        tap.append(("%s: false updates %d of %d checks of unchanged content (<= 1%%%s)"
                    % (kind, t["false"], t["unchanged"], "; open gap: at most %d until fixed" % gf if gf else ""),
                    t["false"] * 100 <= t["unchanged"] or t["false"] <= gf))
        tap.append(("%s: every real edit announced in its own check or the next (%d on time, %d late, %d missed%s)"
                    % (kind, t["ontime"], t["late"], t["missed"], "; open gap: at most %d until fixed" % gm if gm else ""),
                    t["missed"] <= gm))
        tap.append(("%s: no excerpt made of furniture, each shows its edit (%d bad%s)"
                    % (kind, t["bad"], "; open gap: at most %d until fixed" % gb if gb else ""), t["bad"] <= gb))
        if summary:
            with open(summary, "a") as f:
                f.write("%s %d %d %d %d %d %d %d\n" % (kind, t["unchanged"], t["false"], t["real"],
                                                     t["ontime"], t["late"], t["missed"], t["bad"]))
    for name, good in tap:
        print("%s - %s" % ("ok" if good else "not ok", name))


def fmt(keys):
    return " (%s)" % " ".join(keys) if keys else ""


def bad_excerpt(d, s, key, want, excerpt, kind, t):
    furn = FURNITURE.get(kind)
    # WANT may name the edit's words in several places: "A | B"
    if not any(w in excerpt for w in want.split(" | ")) or (furn and re.search(furn, excerpt)):
        t["bad"] += 1
        print("#   step %d %s: excerpt '%s' (want '%s', no furniture)" % (s, key, excerpt, want))


def api(base, method, path, body):
    import base64, json, urllib.request
    auth = "Basic " + base64.b64encode(("admin:" + os.environ["REDMINE_PASSWORD"]).encode()).decode()
    r = urllib.request.Request(base + path, data=body.encode(), method=method,
                               headers={"Authorization": auth, "Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=60) as f:
        if f.status not in (200, 201, 204):
            sys.exit("api: %s %s: HTTP %d" % (method, path, f.status))


def redmine_admin(db, password):
    import hashlib, sqlite3
    sha1 = lambda t: hashlib.sha1(t.encode()).hexdigest()
    salt = "0123456789abcdef0123456789abcdef"
    c = sqlite3.connect(db)
    c.execute("UPDATE users SET hashed_password = ?, salt = ?, must_change_passwd = 0 WHERE login = 'admin'",
              (sha1(salt + sha1(password)), salt))
    for name, value in (("rest_api_enabled", "1"), ("default_language", "en"), ("app_title", "Club tracker")):
        c.execute("DELETE FROM settings WHERE name = ?", (name,))
        c.execute("INSERT INTO settings (name, value, updated_on) VALUES (?, ?, datetime('now'))", (name, value))
    c.commit()


def snap(path, url):
    import html, urllib.request
    with urllib.request.urlopen(url, timeout=60) as f:
        raw = f.read()
        hdr = "".join("%s: %s\n" % (h, f.headers[h]) for h in ("Last-Modified", "ETag", "Content-Type") if f.headers[h])
    # the answer itself too, for a replay of the checks (PATH.raw, PATH.hdr)
    with open(path + ".raw", "wb") as f:
        f.write(raw)
    with open(path + ".hdr", "w") as f:
        f.write(hdr)
    t = raw.decode("utf-8", "replace")
    t = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", "", t)
    t = html.unescape(re.sub(r"<[^>]+>", " ", t))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(" ".join(l.split()) for l in t.split("\n") if l.strip()) + "\n")


def main(a):
    if a[0] == "mail":
        mail(a[1], a[2], int(a[3]), a[4], a[5], a[6] if len(a) > 6 else None)
    elif a[0] == "visits":
        visits(a[1], int(a[2]), int(a[3]), int(a[4]))
    elif a[0] == "changed":
        changed(a[1], a[2])
    elif a[0] == "api":
        api(a[1], a[2], a[3], a[4])
    elif a[0] == "redmine-admin":
        redmine_admin(a[1], a[2])
    elif a[0] == "snap":
        snap(a[1], a[2])
    elif a[0] == "score":
        suite_tables()
        score(a[1], int(a[2]), a[3] if len(a) > 3 else None)
    else:
        sys.exit("dyn.py: unknown action '%s'" % a[0])


main(sys.argv[1:])
