"""tests/realdyn/replay.py SRC OUT ANTENNA [KIND...]: a rule's effect on
the real software's answers in seconds, not a suite (no software runs).
SRC is a record kept by `REALDYN_SNAP=1 REALDYN_KEEP=SRC sh
tests/realdyn/run.sh` (each check's time now.S, each page's answer
text.S/KEY.raw and its validators .hdr); the answers are served again
from 127.0.0.1 (one port per site of the record, 304s to the validators),
the ANTENNA binary checks them at the record's times, one check a step,
and OUT gets dyn.py score's layout:
    python3 tests/realdyn/dyn.py score OUT 13
KINDs (hgweb mhonarc zim awstats) limit the pages; replay every kind of
one site together, since a site's template is learned from its pages."""
import os, sys, subprocess, threading, http.server, socketserver, shutil, urllib.parse, email.utils
src, out, ant = sys.argv[1], sys.argv[2], sys.argv[3]
kinds = sys.argv[4:]
pages = [l.split("\t") for l in open(os.path.join(src, "pages")).read().split("\n") if l]
if kinds:
    pages = [p for p in pages if p[0].split("-")[0] in kinds]
step = [0]
byhost = {}
for k, u in pages:
    pu = urllib.parse.urlsplit(u)
    byhost.setdefault(pu.netloc, {})[pu.path] = k
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        m = self.server.map
        path = urllib.parse.urlsplit(self.path).path
        k = m.get(path)
        if not k:
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
        base = os.path.join(src, "text.%d" % step[0], k)
        body = open(base + ".raw", "rb").read()
        hdr = dict(l.split(": ", 1) for l in open(base + ".hdr").read().split("\n") if l)
        inm, ims = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
        if (inm and hdr.get("ETag") == inm) or (not inm and ims and hdr.get("Last-Modified") == ims):
            self.send_response(304); self.end_headers(); return
        self.send_response(200)
        for h, v in hdr.items(): self.send_header(h, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
newurl = {}
for host, m in byhost.items():
    s = S(("127.0.0.1", 0), H); s.map = m
    threading.Thread(target=s.serve_forever, daemon=True).start()
    for path, k in m.items():
        newurl[k] = "http://127.0.0.1:%d%s" % (s.server_address[1], path)
shutil.rmtree(out, ignore_errors=True); os.makedirs(out)
with open(os.path.join(out, "pages"), "w") as f:
    for k, u in pages: f.write("%s\t%s\n" % (k, newurl[k]))
db = os.path.join(out, "db")
subprocess.run([ant, "-d", db, "init", "--title", "rp", "--base", "http://example.com/ant/"], check=True, stdout=subprocess.DEVNULL)
for k, u in pages: subprocess.run([ant, "-d", db, "add", newurl[k]], check=True, stdout=subprocess.DEVNULL)
steps = max(int(n.split(".")[1]) for n in os.listdir(src) if n.startswith("now."))
for s in range(0, steps + 1):
    step[0] = s
    now = open(os.path.join(src, "now.%d" % s)).read().strip()
    r = subprocess.run([ant, "-d", db, "update", "--force", "--now", now, "-v"], capture_output=True, text=True)
    log = r.stderr
    open(os.path.join(out, "log.%d" % s), "w").write(log)
    if s: shutil.copy(os.path.join(src, "real.%d" % s), os.path.join(out, "real.%d" % s)) if os.path.exists(os.path.join(src, "real.%d" % s)) else open(os.path.join(out, "real.%d" % s), "w").close()
    os.makedirs(os.path.join(out, "show.%d" % s), exist_ok=True)
    with open(os.path.join(out, "ann.%d" % s), "w") as a:
        for k, u0 in pages:
            u = newurl[k]
            sh = subprocess.run([ant, "-d", db, "show", u], capture_output=True, text=True).stdout
            open(os.path.join(out, "show.%d" % s, k), "w").write(sh)
            for l in log.split("\n"):
                if l.startswith(u + ": updated"):
                    ex = [x for x in sh.split("\n") if x.startswith("excerpt:")]
                    a.write("%s\t%s\t%s\n" % (k, ex[0][8:].strip() if ex else "", l[len(u) + 2:]))
                    break
# keep only the real rows of the kinds replayed
keys = set(k for k, u in pages)
for s in range(1, steps + 1):
    p = os.path.join(out, "real.%d" % s)
    rows = [l for l in open(p).read().split("\n") if l and l.split("\t")[0] in keys]
    open(p, "w").write("".join(r + "\n" for r in rows))
print(steps)
