# tests/follow/hub.py PORTFILE LOG [STATUS]: a WebSub hub's publish
# endpoint on 127.0.0.1 for tests/follow: each POST's Content-Type and
# body appended to LOG as one line, answered STATUS (default 204).
import http.server
import sys

port_file, log = sys.argv[1], sys.argv[2]
status = int(sys.argv[3]) if len(sys.argv) > 3 else 204


class Hub(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("ascii", "replace")
        with open(log, "a") as f:
            f.write("%s\t%s\n" % (self.headers.get("Content-Type", ""), body))
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), Hub)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(port_file + ".tmp", port_file)
srv.timeout = 1
import time
end = time.time() + 120
while time.time() < end:
    srv.handle_request()
