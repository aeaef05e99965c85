"""tests/realsoft/drive.py: act on the real software the way people do, for
tests/realsoft: post and edit tDiary entries through update.rb, comment
through the diary's form, visit pages as browsers and bots (with referers),
and create or edit DokuWiki pages through the edit form (do=edit, keeping
its hidden fields, then do[save]).  One action a run:
  drive.py td-post BASE YYYYMMDD TITLE BODY        a new entry (append)
  drive.py td-edit BASE YYYYMMDD TITLE BODY        replace an entry
  drive.py td-comment BASE YYYYMMDD NAME BODY      a comment
  drive.py visit URL UA [REFERER]                  one visit
  drive.py doku-save BASE PAGE TEXT                create or edit a page
Exits non-zero, with the reason on stderr, when the software refused."""
import base64, html.parser, http.cookiejar, sys, urllib.parse, urllib.request

AUTH = "Basic " + base64.b64encode(b"author:secret").decode()
# One browser session for the whole action: DokuWiki's edit lock is the
# session's, and saving through the same session lifts it.
OPENER = urllib.request.build_opener(
    urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def req(url, data=None, headers=None):
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    r = urllib.request.Request(url, data=body, headers=headers or {})
    with OPENER.open(r, timeout=60) as f:
        return f.status, f.read().decode("utf-8", "replace")


def td_update(base, date, title, body, mode):
    y, m, d = date[:4], date[4:6], date[6:8]
    fields = {"year": y, "month": m, "day": d, "title": title, "body": body}
    if mode == "append":
        fields["append"] = "true"
    else:
        fields.update({"old": date, "replace": "true"})
    st, text = req(base + "update.rb", fields,
                   {"Authorization": AUTH, "Referer": base + "update.rb"})
    if st != 200:
        sys.exit("td-%s: HTTP %d" % (mode, st))


def td_comment(base, date, name, body):
    st, _ = req(base, {"date": date, "name": name, "mail": "", "body": body,
                       "comment": "投稿"}, {"Referer": base + "?date=" + date})
    if st != 200:
        sys.exit("td-comment: HTTP %d" % st)


class EditForm(html.parser.HTMLParser):
    """The fields of DokuWiki's edit form (id="dw__editform")."""

    def __init__(self):
        super().__init__()
        self.inform, self.fields = False, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == "dw__editform":
            self.inform = True
        elif self.inform and tag == "input" and a.get("name") and \
                a.get("type") in ("hidden", "text", None):
            self.fields[a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self.inform = False


def doku_save(base, page, text):
    st, form = req(base + "doku.php?" + urllib.parse.urlencode({"id": page, "do": "edit"}))
    p = EditForm()
    p.feed(form)
    if "sectok" not in p.fields:
        sys.exit("doku-save: no edit form for '%s'" % page)
    f = dict(p.fields)
    f.update({"id": page, "wikitext": text, "summary": "edit", "do[save]": "1"})
    st, out = req(base + "doku.php", f, {"Referer": base + "doku.php?id=" + page})
    if st != 200:
        sys.exit("doku-save: HTTP %d" % st)
    st, shown = req(base + "doku.php?" + urllib.parse.urlencode({"id": page, "do": "export_raw"}))
    if shown.strip() != text.strip():
        sys.exit("doku-save: '%s' not saved" % page)


def main(a):
    if a[0] in ("td-post", "td-edit"):
        td_update(a[1], a[2], a[3], a[4], "append" if a[0] == "td-post" else "replace")
    elif a[0] == "td-comment":
        td_comment(a[1], a[2], a[3], a[4])
    elif a[0] == "visit":
        h = {"User-Agent": a[2]}
        if len(a) > 3:
            h["Referer"] = a[3]
        req(a[1], None, h)
    elif a[0] == "doku-save":
        doku_save(a[1], a[2], a[3])
    else:
        sys.exit("drive.py: unknown action '%s'" % a[0])


main(sys.argv[1:])
