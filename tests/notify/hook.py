# tests/notify/hook.py PORTFILE DIR: a webhook receiver on 127.0.0.1
# (http.server): each POST saved as DIR/NNN.json with its Content-Type in
# NNN.type; answers 500 while DIR/fail exists, else 204.
import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

portfile, d = sys.argv[1], sys.argv[2]

class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if os.path.exists(os.path.join(d, "fail")):
            self.send_response(500)
            self.end_headers()
            return
        n = len([f for f in os.listdir(d) if f.endswith(".json")])
        with open(os.path.join(d, "%03d.type" % n), "w") as f:
            f.write(self.headers.get("Content-Type", ""))
        with open(os.path.join(d, "%03d.json" % n), "wb") as f:
            f.write(body)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *a):
        pass

srv = HTTPServer(("127.0.0.1", 0), Hook)
open(portfile + ".tmp", "w").write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
