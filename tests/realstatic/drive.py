"""tests/realstatic/drive.py: the static sites of tests/realstatic, built by
Debian's generators (jekyll with minima, pelican with its simple theme,
sphinx with its classic theme, mkdocs with its own theme, hugo with
layouts of the usual kind: it ships none), edited and
rebuilt the way people do, checked by the real antenna at each step and
scored page by page.  Run by tests/realstatic/run.sh:

  drive.py run WORK            the whole scenario; the settings come from the
                               environment run.sh sets (see main_run)
  drive.py serve ROOT PORTFILE a static server with no validators: no
                               Last-Modified, no ETag, never 304 ("dynamic
                               pages"), for one kind's built site
  drive.py probe URL [IMS]     one GET: the status, then the headers

What counts as a page's own content is the generator's main block (the
theme's <main>, role="main", section#content: the scorer's knowledge of
these themes, never the antenna's; hugo's: the <article> of a post, the
list of a list page): a page whose main text changed in a
step is a real edit, any other announcement of it is a false update.
The scorer's results: one line per kind in $RS_RESULTS,
  KIND UNCHANGED FALSE REAL ONTIME LATE MISSED BADEXCERPT
and a '#' line per step and per wrong announcement on stdout."""
import datetime, glob, html.parser, http.server, os, re, shlex, shutil
import subprocess, sys, time, urllib.request

# ---- the sites' text ---------------------------------------------------------
# Four texts every kind publishes; the small edits land in them.
MARKET = ("The Saturday market opened again. A jar of plum jam costs 120円 this year, "
          "the same as last autumn. Customers who order ahead recieve a small bag of "
          "dried plums with their jar.\n\nThe stall is open from nine to noon.\n")
MEETING = ("The next meeting is on 12月3日 at the community hall. Please bring your "
           "notes from the season.\n\nWho brings what:\n\n- Yamada: cups\n- Sato: tea\n"
           "- Suzuki: biscuits\n")
RELEASE = ("The garden log tool is now at version 1.4.2. It reads the old notebooks of "
           "the plum orchard and prints a weekly summary.\n\nDownload it from the "
           "club's shared folder.\n")
HARVEST = ("The harvest festival is on Sunday. Everyone is welcome; bring a basket "
           "and a friend.\n")
USAGE = ("Open the notebook, write the date, and note the weather, the trees you "
         "looked at and anything that surprised you.\n")
# step -> (which text, old, new): each edit changes one page's own content
EDITS = {
    "price": ("market", "costs 120円", "costs 150円"),
    "date": ("meeting", "on 12月3日", "on 12月10日"),
    "version": ("release", "version 1.4.2", "version 1.4.3"),
    "typo": ("market", "recieve", "receive"),
    "word": ("release", "the plum orchard", "the peach orchard"),
    "row": ("meeting", "- Sato: tea", "- Sato: coffee"),
    "price2": ("market", "costs 150円", "costs 180円"),
}
WANT = {"price": "150円", "date": "12月10日", "version": "1.4.3", "typo": "receive",
        "word": "peach", "row": "coffee", "price2": "180円", "post": "Harvest festival"}
TITLES = {"market": "Plum market", "meeting": "Club meeting", "release": "Garden log release"}
DAYS = {"market": "2026-11-20", "meeting": "2026-11-21", "release": "2026-11-22"}

# The scenario: (minutes after the baseline, what happens).  The baseline is
# 10:00 UTC of the day after the real one; 1020 is 03:00 the next day.
STEPS = [(15, "rebuild"), (75, "post"), (90, "price"), (150, "date"), (165, "version"),
         (225, "typo"), (240, "word"), (300, "row"), (1020, "nightly"), (1035, "rebuild"),
         (1095, "none"), (1110, "price2"), (1170, "rebuild")]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def edit(path, old, new):
    with open(path, encoding="utf-8") as f:
        t = f.read()
    if t.count(old) != 1:
        sys.exit("drive.py: '%s' is not once in %s" % (old, path))
    write(path, t.replace(old, new))


# ---- the kinds -----------------------------------------------------------------
class Kind:
    """One generator's site: its sources, its build, the watched pages
    (key, URL path, built file), its main block and its furniture (text an
    excerpt must never be made of)."""
    name = ""
    pages = []
    furniture = ""

    def __init__(self, work):
        self.src = os.path.join(work, self.name, "src")
        self.out = os.path.join(work, self.name, "out")

    def main_of(self, tag, attrs):
        return False

    def skip_of(self, tag, attrs):   # furniture inside the main block
        return False

    def file_of(self, text):   # the source file holding one of the texts
        return ""


class Jekyll(Kind):
    name = "jekyll"
    pages = [("home", "/", "index.html"),
             ("market", "/2026/11/20/market.html", "2026/11/20/market.html"),
             ("meeting", "/2026/11/21/meeting.html", "2026/11/21/meeting.html"),
             ("release", "/2026/11/22/release.html", "2026/11/22/release.html"),
             ("about", "/about/", "about/index.html")]
    furniture = r"Generated on|hanako@example\.com|Notes of a small garden club"

    def init(self, now):
        write(self.src + "/_config.yml",
              "title: Plum Diary\nemail: hanako@example.com\n"
              "description: Notes of a small garden club.\nbaseurl: \"\"\nurl: \"\"\n"
              "timezone: UTC\ntheme: minima\nplugins:\n  - jekyll-feed\n")
        for k in ("market", "meeting", "release"):
            self.post(DAYS[k], "10:00:00", k, TITLES[k], globals()[k.upper()])
        write(self.src + "/index.markdown", "---\nlayout: home\n---\n")
        write(self.src + "/about.markdown", "---\nlayout: page\ntitle: About\npermalink: /about/\n"
              "---\n\nWe are a small garden club on the hill behind the hall.\n")
        # what people do with minima: its footer, plus the build's time
        foot = glob.glob("/usr/share/rubygems-integration/all/gems/minima-*/_includes/footer.html")
        with open(sorted(foot)[-1], encoding="utf-8") as f:
            t = f.read()
        write(self.src + "/_includes/footer.html", t.replace(
            "</footer>", '<div class="wrapper"><p class="build">Generated on '
            '{{ site.time | date: "%Y-%m-%d %H:%M" }}</p></div>\n</footer>'))

    def post(self, day, clock, slug, title, body):
        write("%s/_posts/%s-%s.md" % (self.src, day, slug),
              "---\nlayout: post\ntitle: \"%s\"\ndate: %s %s +0000\n---\n%s" % (title, day, clock, body))

    def new_post(self, now):
        self.post(now.strftime("%Y-%m-%d"), now.strftime("%H:%M:%S"), "harvest",
                  "Harvest festival", HARVEST)

    def file_of(self, text):
        return "%s/_posts/%s-%s.md" % (self.src, DAYS[text], text)

    def build(self):
        return ["jekyll", "build", "-q", "-s", self.src, "-d", self.out]

    def main_of(self, tag, attrs):
        return tag == "main"


class Pelican(Kind):
    name = "pelican"
    pages = [("index", "/", "index.html"), ("archives", "/archives.html", "archives.html"),
             ("category", "/category/notes.html", "category/notes.html"),
             ("market", "/market.html", "market.html"), ("meeting", "/meeting.html", "meeting.html"),
             ("release", "/release.html", "release.html")]
    furniture = r"Proudly powered|great advantage"

    def init(self, now):
        write(self.src + "/pelicanconf.py",
              "AUTHOR = 'Hanako'\nSITENAME = 'Plum Notes'\nSITEURL = ''\nPATH = 'content'\n"
              "TIMEZONE = 'UTC'\nDEFAULT_LANG = 'en'\nFEED_ALL_ATOM = 'feeds/all.atom.xml'\n"
              "LINKS = (('Pelican', 'https://getpelican.com/'),)\nDEFAULT_PAGINATION = 10\n")
        for k in ("market", "meeting", "release"):
            self.post(DAYS[k] + " 10:00", k, TITLES[k], globals()[k.upper()])
        write(self.src + "/content/pages/about.md", "Title: About\n\nA small garden club.\n")

    def post(self, date, slug, title, body):
        write("%s/content/%s.md" % (self.src, slug),
              "Title: %s\nDate: %s\nCategory: Notes\nTags: garden\nSlug: %s\n"
              "Summary: %s, from the club.\n\n%s" % (title, date, slug, title, body))

    def new_post(self, now):
        self.post(now.strftime("%Y-%m-%d %H:%M"), "harvest", "Harvest festival", HARVEST)

    def file_of(self, text):
        return "%s/content/%s.md" % (self.src, text)

    def build(self):
        return ["pelican", "-q", self.src + "/content", "-s", self.src + "/pelicanconf.py",
                "-o", self.out]

    # the simple theme's archives page has no content block: the body
    # without the banner, the menu and the site's footer
    def main_of(self, tag, attrs):
        return tag == "body"

    def skip_of(self, tag, attrs):
        return (tag, attrs.get("id")) in (("header", "banner"), ("nav", "menu"),
                                          ("footer", "contentinfo"))


def rst(title, body):
    return "%s\n%s\n\n%s" % (title, "=" * (2 * len(title)), body)


class Sphinx(Kind):
    name = "sphinx"
    pages = [("index", "/", "index.html"), ("market", "/market.html", "market.html"),
             ("meeting", "/meeting.html", "meeting.html"), ("release", "/release.html", "release.html"),
             ("usage", "/usage.html", "usage.html")]
    furniture = r"Last updated on|Created using|Quick search|Previous topic|Next topic|Show Source|Copyright"

    def init(self, now):
        # classic: a theme Sphinx ships, with the "Last updated on" stamp
        write(self.src + "/conf.py", "project = 'Plum Handbook'\ncopyright = '2026, Hanako'\n"
              "author = 'Hanako'\nrelease = '1.4'\nhtml_theme = 'classic'\n"
              "html_last_updated_fmt = ''\n")
        self.toc = ["market", "meeting", "release", "usage"]
        self.index()
        for k in ("market", "meeting", "release"):
            write(self.file_of(k), rst(TITLES[k], globals()[k.upper()]))
        write(self.file_of("usage"), rst("Usage", USAGE))

    def index(self):
        write(self.src + "/index.rst", rst("Plum Handbook", "The garden club's handbook.\n\n"
              ".. toctree::\n   :maxdepth: 2\n\n" + "".join("   %s\n" % t for t in self.toc)))

    def new_post(self, now):
        write(self.file_of("harvest"), rst("Harvest festival", HARVEST))
        self.toc.insert(3, "harvest")
        self.index()

    def file_of(self, text):
        return "%s/%s.rst" % (self.src, text)

    def build(self):
        return ["sphinx-build", "-q", "-E", "-b", "html", self.src, self.out]

    def main_of(self, tag, attrs):
        return attrs.get("role") == "main"


class Mkdocs(Kind):
    name = "mkdocs"
    pages = [("index", "/", "index.html"), ("market", "/market/", "market/index.html"),
             ("meeting", "/meeting/", "meeting/index.html"),
             ("release", "/release/", "release/index.html"),
             ("glossary", "/glossary/", "glossary/index.html")]
    furniture = r"Documentation built with|Copyright 2026|Keyboard Shortcuts|Previous|Next|Search"

    def init(self, now):
        self.nav = [("Home", "index"), ("Plum market", "market"), ("Club meeting", "meeting"),
                    ("Garden log release", "release"), ("Glossary", "glossary")]
        self.config()
        for k in ("market", "meeting", "release"):
            write(self.file_of(k), "# %s\n\n%s" % (TITLES[k], globals()[k.upper()]))
        write(self.file_of("glossary"), "# Glossary\n\n" + USAGE)

    def config(self):
        write(self.src + "/mkdocs.yml", "site_name: Plum Handbook\ncopyright: Copyright 2026 Hanako\n"
              "nav:\n" + "".join("  - %s: %s.md\n" % n for n in self.nav))
        write(self.file_of("index"), "# Plum Handbook\n\nThe garden club's handbook.\n\n" +
              "".join("- [%s](%s.md)\n" % n for n in self.nav[1:]))

    def new_post(self, now):
        write(self.file_of("harvest"), "# Harvest festival\n\n" + HARVEST)
        self.nav.insert(4, ("Harvest festival", "harvest"))
        self.config()

    def file_of(self, text):
        return "%s/docs/%s.md" % (self.src, text)

    def build(self):
        return ["mkdocs", "build", "-q", "-f", self.src + "/mkdocs.yml", "-d", self.out]

    def main_of(self, tag, attrs):
        return attrs.get("role") == "main"


# Hugo ships no theme (`hugo new theme` writes empty layouts): every hugo
# site has layouts of its own or of a theme it fetched.  These are what
# such themes have: a menu, a sidebar with the recent posts and the tags
# with their counts, previous/next links under a post, a footer.
HUGO_BASE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} | {{ .Site.Title }}</title>
{{ with .OutputFormats.Get "rss" }}<link rel="alternate" type="application/rss+xml" href="{{ .RelPermalink }}">{{ end }}
</head><body>
<header class="site-header"><a href="/">{{ .Site.Title }}</a>
<nav class="menu"><a href="/">Home</a> <a href="/tags/">Tags</a></nav></header>
<div class="container">
<main id="content">{{ block "main" . }}{{ end }}</main>
<aside class="sidebar">
<h3>Recent posts</h3><ul>{{ range first 5 (where .Site.RegularPages "Section" "posts") }}
<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> ({{ .Date.Format "Jan 2" }})</li>{{ end }}</ul>
<h3>Tags</h3><ul>{{ range $name, $pages := .Site.Taxonomies.tags }}
<li><a href="/tags/{{ $name | urlize }}/">{{ $name }}</a> ({{ len $pages }})</li>{{ end }}</ul>
</aside></div>
<footer class="site-footer">&copy; 2026 {{ .Site.Title }} &middot; built with Hugo</footer>
</body></html>
"""
HUGO_SINGLE = """{{ define "main" }}<article class="post"><h1>{{ .Title }}</h1>
<time>{{ .Date.Format "2006-01-02" }}</time>
{{ .Content }}
<p class="tags">{{ range .Params.tags }}<a href="/tags/{{ . | urlize }}/">{{ . }}</a> {{ end }}</p>
</article>
<nav class="pager">{{ with .NextInSection }}<a href="{{ .RelPermalink }}">&larr; {{ .Title }}</a>{{ end }}
{{ with .PrevInSection }}<a href="{{ .RelPermalink }}">{{ .Title }} &rarr;</a>{{ end }}</nav>{{ end }}
"""
HUGO_LIST = """{{ define "main" }}<section class="list"><h1>{{ .Title }}</h1><ul>{{ range PAGES }}
<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> <time>{{ .Date.Format "2006-01-02" }}</time>
<div class="summary">{{ .Summary }}</div></li>{{ end }}</ul></section>{{ end }}
"""


class Hugo(Kind):
    name = "hugo"
    pages = [("home", "/", "index.html"), ("market", "/posts/market/", "posts/market/index.html"),
             ("meeting", "/posts/meeting/", "posts/meeting/index.html"),
             ("release", "/posts/release/", "posts/release/index.html"),
             ("tag", "/tags/garden/", "tags/garden/index.html")]
    furniture = r"Recent posts|Tags|built with Hugo|←|→"

    def init(self, now):
        # hugo is a Go program: libfaketime does not reach its clock, so
        # posts dated by the faked clock are "future" to it
        write(self.src + "/hugo.toml", 'baseURL = "/"\ntitle = "Plum Log"\nbuildFuture = true\n'
              'summaryLength = 12\n')
        write(self.src + "/layouts/_default/baseof.html", HUGO_BASE)
        write(self.src + "/layouts/_default/single.html", HUGO_SINGLE)
        write(self.src + "/layouts/_default/list.html", HUGO_LIST.replace("PAGES", ".Pages"))
        write(self.src + "/layouts/index.html", HUGO_LIST.replace(
            "PAGES", '(where .Site.RegularPages "Section" "posts")'))
        for k in ("market", "meeting", "release"):
            self.post(DAYS[k] + "T10:00:00Z", k, TITLES[k], globals()[k.upper()])

    def post(self, date, slug, title, body):
        # the summary an index shows: the author's, above <!--more-->
        write(self.file_of(slug), '---\ntitle: "%s"\ndate: %s\ntags: ["garden"]\n---\n'
              "%s, from the club.\n\n<!--more-->\n\n%s" % (title, date, title, body))

    def new_post(self, now):
        self.post(now.strftime("%Y-%m-%dT%H:%M:%SZ"), "harvest", "Harvest festival", HARVEST)

    def file_of(self, text):
        return "%s/content/posts/%s.md" % (self.src, text)

    def build(self):
        return ["hugo", "--quiet", "-s", self.src, "-d", self.out]

    def main_of(self, tag, attrs):
        return tag == "article" or (tag == "section" and attrs.get("class") == "list")


class NoValidators(Jekyll):
    """jekyll's built site again, served with no validators (drive.py serve)."""
    name = "jekyll-dyn"

    def __init__(self, work):
        super().__init__(work)
        self.src, self.out = (os.path.join(work, "jekyll", d) for d in ("src", "out"))


# ---- the oracle: a page's own content ------------------------------------------
class MainText(html.parser.HTMLParser):
    """The words inside the elements KIND.main_of picks (the theme's main
    block), without those KIND.skip_of picks inside it, script and style."""

    def __init__(self, kind):
        super().__init__(convert_charrefs=True)
        self.kind, self.words, self.script = kind, [], 0
        self.main = [None, 0]     # the main block's tag, and the depth in it
        self.out = [None, 0]      # a skipped element's, inside it

    @staticmethod
    def enter(st, tag, pick):
        if st[1]:
            st[1] += tag == st[0]
        elif pick:
            st[0], st[1] = tag, 1

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.main[1]:
            self.enter(self.out, tag, self.kind.skip_of(tag, a))
        self.enter(self.main, tag, self.kind.main_of(tag, a))
        self.script += tag in ("script", "style")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.script:
            self.script -= 1
        for st in (self.out, self.main):
            if st[1] and tag == st[0]:
                st[1] -= 1

    def handle_data(self, data):
        if self.main[1] and not self.out[1] and not self.script:
            self.words.extend(data.split())


def main_text(kind, path):
    p = MainText(kind)
    try:
        with open(path, encoding="utf-8") as f:
            p.feed(f.read())
    except OSError:
        return None
    return " ".join(p.words)


# ---- the run -------------------------------------------------------------------
def log(*a):
    print(*a, flush=True)


class Run:
    def __init__(self, work):
        self.work = work
        self.antenna = shlex.split(os.environ["RS_ANTENNA"])
        self.db = os.path.join(work, "antenna.db")
        self.clockfile = os.environ["RS_CLOCK"]
        self.env = dict(os.environ, TZ="UTC", LD_PRELOAD=os.environ["RS_FTLIB"],
                        FAKETIME_TIMESTAMP_FILE=self.clockfile, FAKETIME_NO_CACHE="1",
                        NO_FAKE_STAT="1", FAKETIME_DONT_FAKE_MONOTONIC="1")
        self.kinds = [Jekyll(work), Pelican(work), Sphinx(work), Mkdocs(work), Hugo(work),
                      NoValidators(work)]
        self.base = {k.name: os.environ["RS_BASE_" + k.name.replace("-", "_").upper()]
                     for k in self.kinds}
        self.off = 0

    def clock(self, off):
        self.off = off
        with open(self.clockfile, "w") as f:
            f.write("+%d\n" % off)

    def now(self):
        return int(time.time()) + self.off

    def ant(self, *args, check=True):
        r = subprocess.run(self.antenna + ["-d", self.db] + list(args), capture_output=True,
                           text=True, errors="replace")
        if check and r.returncode not in (0, 1):
            log("#   antenna %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr[-300:]))
        return r

    def url(self, kind, path):
        return self.base[kind.name] + path

    def build(self, kinds):
        """The generators under the faked clock, side by side; the files
        they wrote take the faked time as their mtime (nginx's
        Last-Modified and ETag)."""
        mark = os.path.join(self.work, "mark")
        write(mark, "")
        t0 = os.stat(mark).st_mtime_ns
        runs = [(k, subprocess.Popen(k.build(), env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)) for k in kinds]
        for k, r in runs:
            out = r.communicate()[0]
            if r.returncode != 0:
                sys.exit("drive.py: %s: %s" % (" ".join(k.build()), out[-800:]))
        t = self.now()
        for k in kinds:
            for d, _, files in os.walk(k.out):
                for f in files:
                    p = os.path.join(d, f)
                    if os.stat(p).st_mtime_ns >= t0:
                        os.utime(p, (t, t))

    def act(self, kind, what, now):
        """What the site's author does before the check; returns the step's
        WANT (the text an announced page's excerpt must show) or None."""
        if what == "post":
            kind.new_post(now)
        elif what in EDITS:
            text, old, new = EDITS[what]
            edit(kind.file_of(text), old, new)
        return WANT.get(what)

    def mains(self):
        return {(k.name, key): main_text(k, os.path.join(k.out, f))
                for k in self.kinds for key, _, f in k.pages}

    def check(self):
        """One antenna update a minute (of the faked clock) after the
        step's rebuild: a Last-Modified in the same second as the answer's
        Date is rightly not believed (it may change again within that
        second), and a check minutes after a rebuild is the common case.
        The pages announced, and why (the log's reason)."""
        self.clock(self.off + 60)
        r = self.ant("update", "--force", "--now", str(self.now()), "-v")
        self.nchecks = getattr(self, "nchecks", -1) + 1
        write(os.path.join(self.work, "check-%d.log" % self.nchecks), r.stderr)
        self.log = r.stderr
        ann, show = set(), {}
        for k in self.kinds:
            for key, path, _ in k.pages:
                u = self.url(k, path)
                if (u + ": updated") in r.stderr:
                    ann.add((k.name, key))
                    m = re.search(re.escape(u) + r": updated *([^\n]*)", r.stderr)
                    show[(k.name, key, "why")] = m.group(1) if m else ""
        return ann, show, r.stderr

    def showpage(self, kind, key):
        path = dict((k, p) for k, p, _ in kind.pages)[key]
        return self.ant("show", self.url(kind, path), check=False).stdout

    def run(self):
        real_now = int(time.time())
        day = datetime.datetime.fromtimestamp(real_now, datetime.timezone.utc).date()
        base = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(10),
                                         datetime.timezone.utc)
        off0 = int(base.timestamp()) - real_now
        self.clock(off0)
        built = {}
        for k in self.kinds:
            if k.out not in built:
                k.init(base)
                built[k.out] = k
        self.build(built.values())
        self.ant("init", "--title", "realstatic", "--base", "http://example.com/ant/")
        for k in self.kinds:
            for key, path, _ in k.pages:
                if self.ant("add", self.url(k, path)).returncode != 0:
                    log("#   add %s %s failed" % (k.name, key))
        before = self.mains()
        missing = [p for p, t in before.items() if not t]
        if missing:
            sys.exit("drive.py: no main text in %s" % missing)
        self.check()
        errs = [l for l in self.ant("list", "--format", "jsonl").stdout.splitlines()
                if '"last_error":null' not in l]
        print("BASELINE_ERRORS %d" % len(errs), file=self.tapout, flush=True)
        for l in errs:
            log("#   " + l[:300])
        # figures per kind: unchanged false real ontime late missed bad
        fig = {k.name: [0] * 7 for k in self.kinds}
        pending = {}           # (kind, key) -> WANT, edits not yet announced
        consumed = 0
        for n, (minutes, what) in enumerate(STEPS, 1):
            self.clock(off0 + minutes * 60)
            now = datetime.datetime.fromtimestamp(self.now(), datetime.timezone.utc)
            want, built = {}, {}
            for k in self.kinds:
                if what == "none" or k.out in built:
                    continue
                want[k.out] = self.act(k, what, now)
                built[k.out] = k
            self.build(built.values())
            after = self.mains()
            real = {p: want.get(dict((k.name, k.out) for k in self.kinds)[p[0]])
                    for p in after if after[p] != before[p]}
            before = after
            ann, why, _ = self.check()
            self.details = []
            line = {k.name: [0, 0, 0, 0, 0] for k in self.kinds}   # un false real late missed
            notes = []
            for p, w in sorted(pending.items()):
                consumed += 1
                f = fig[p[0]]
                if p in ann:
                    f[4] += 1
                    line[p[0]][3] += 1
                    notes.append("%s/%s late" % p)
                    self.judge_excerpt(p, w, "late", fig)
                else:
                    f[5] += 1
                    line[p[0]][4] += 1
                    notes.append("%s/%s MISSED" % p)
                    self.explain(p, "missed (step %d's edit, want '%s')" % (n - 1, w))
            last, pending = pending, {}
            for k in self.kinds:
                for key, _, _ in k.pages:
                    p = (k.name, key)
                    f = fig[k.name]
                    if p in real:
                        f[2] += 1
                        line[k.name][2] += 1
                        if p in ann:
                            f[3] += 1
                            self.judge_excerpt(p, real[p], "on time", fig)
                        else:
                            pending[p] = real[p]
                    elif p in last:
                        pass   # counted above: late or missed
                    else:
                        f[0] += 1
                        line[k.name][0] += 1
                        if p in ann:
                            f[1] += 1
                            line[k.name][1] += 1
                            notes.append("%s/%s FALSE" % p)
                            self.explain(p, "false update (%s)" % why.get(p + ("why",), ""))
            log("# step %d (+%d min, %s): %s%s" % (
                n, minutes, what,
                "; ".join("%s un %d false %d real %d" % (k, v[0], v[1], v[2])
                          for k, v in line.items()),
                " — " + ", ".join(notes) if notes else ""))
            for l in self.details:
                log(l)
            for p in sorted(pending):
                log("#   %s/%s not announced in its own check (want '%s')" % (p + (pending[p],)))
        for p in pending:      # the last step's: no next check
            fig[p[0]][5] += 1
        self.fig, self.consumed = fig, consumed
        return fig

    def judge_excerpt(self, p, want, when, fig):
        kind = [k for k in self.kinds if k.name == p[0]][0]
        s = self.showpage(kind, p[1])
        x = "".join(l[len("excerpt:"):].strip() for l in s.splitlines() if l.startswith("excerpt:"))
        bad = want and want not in x
        furn = re.search(kind.furniture, x)
        if bad or furn:
            fig[p[0]][6] += 1
            self.details.append("#   %s/%s (%s): excerpt '%s' (want '%s'%s)" % (
                p[0], p[1], when, x[:200], want, ", furniture '%s'" % furn.group(0) if furn else ""))

    def explain(self, p, what):
        kind = [k for k in self.kinds if k.name == p[0]][0]
        s = self.showpage(kind, p[1])
        self.details.append("#   %s/%s: %s" % (p[0], p[1], what))
        u = self.url(kind, dict((k, q) for k, q, _ in kind.pages)[p[1]])
        for l in self.log.splitlines():
            if l.startswith(u + ":") or l.startswith(u + " "):
                self.details.append("#     log: " + l[len(u):][:300])
        for l in s.splitlines():
            if re.match(r"(excerpt|furniture|noise|held|volatile|ignored|why|last change|changed)", l, re.I):
                self.details.append("#     " + l[:300])


def main_run(work):
    """Settings: RS_ANTENNA (the antenna command), RS_CLOCK (the faked
    clock's file), RS_FTLIB (libfaketime), RS_BASE_<KIND> (each kind's base
    URL, no trailing slash), RS_RESULTS (where the figures go), RS_TAP
    (where the baseline's error count goes)."""
    r = Run(work)
    r.tapout = open(os.environ["RS_TAP"], "w")
    fig = r.run()
    with open(os.environ["RS_RESULTS"], "w") as f:
        for k in r.kinds:
            f.write("%s %s\n" % (k.name, " ".join(str(v) for v in fig[k.name])))
    print("STEPS %d PAGES %d CONSUMED %d" % (len(STEPS), sum(len(k.pages) for k in r.kinds),
                                            r.consumed), file=r.tapout, flush=True)


# ---- the server with no validators -----------------------------------------------
class NoValidatorHandler(http.server.SimpleHTTPRequestHandler):
    """Static files as a script would send them: no Last-Modified, no
    ETag, Cache-Control: no-cache, never a 304."""

    def send_head(self):
        for h in ("If-Modified-Since", "If-None-Match"):
            del self.headers[h]
        return super().send_head()

    def send_header(self, k, v):
        if k.lower() not in ("last-modified", "etag"):
            super().send_header(k, v)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *a):   # like nginx's access log (REALSTATIC_KEEP)
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % a))


def serve(root, portfile):
    handler = lambda *a, **kw: NoValidatorHandler(*a, directory=root, **kw)
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    write(portfile + ".tmp", "%d\n" % s.server_address[1])
    os.rename(portfile + ".tmp", portfile)
    s.serve_forever()


def probe(url, ims=None):
    h = {"If-Modified-Since": ims} if ims else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=h), timeout=10) as f:
            st, hd = f.status, f.headers
    except urllib.error.HTTPError as e:
        st, hd = e.code, e.headers
    print(st)
    for k, v in hd.items():
        print("%s: %s" % (k, v))


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "run":
        main_run(a[1])
    elif a[0] == "serve":
        serve(a[1], a[2])
    elif a[0] == "probe":
        probe(a[1], a[2] if len(a) > 2 else None)
    else:
        sys.exit("drive.py: unknown action '%s'" % a[0])
