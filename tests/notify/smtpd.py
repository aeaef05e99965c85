# tests/notify/smtpd.py PORTFILE MAILDIR [PORT]: a real SMTP server on
# 127.0.0.1 (aiosmtpd), each message saved as MAILDIR/NNN.eml with its
# envelope in NNN.env (recipients, then the sender); the port it listens
# on written to PORTFILE.  With $SMTP_AUTH=USER:PASSWORD it asks for a
# login (AUTH PLAIN or LOGIN; without TLS, on loopback) and refuses others.  "blackhole" as MAILDIR: a server that accepts
# connections and never answers (for the timeout).
import os, socket, sys, time

portfile, maildir = sys.argv[1], sys.argv[2]
port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
if maildir == "blackhole":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(8)
    open(portfile + ".tmp", "w").write(str(s.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    held = []
    while True:
        c, _ = s.accept()
        held.append(c)
from aiosmtpd.controller import Controller

class Saver:
    async def handle_DATA(self, server, session, envelope):
        n = len([f for f in os.listdir(maildir) if f.endswith(".eml")])
        with open(os.path.join(maildir, "%03d.env" % n), "w") as f:
            f.write(" ".join(envelope.rcpt_tos) + "\n" + envelope.mail_from + "\n")
        with open(os.path.join(maildir, "%03d.eml.tmp" % n), "wb") as f:
            f.write(envelope.original_content)
        os.rename(os.path.join(maildir, "%03d.eml.tmp" % n), os.path.join(maildir, "%03d.eml" % n))
        return "250 OK"

if port == 0:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
kw = {}
if os.environ.get("SMTP_AUTH"):
    from aiosmtpd.smtp import AuthResult
    user, pw = os.environ["SMTP_AUTH"].split(":", 1)
    def check(server, session, envelope, mechanism, auth_data):
        good = auth_data.login == user.encode() and auth_data.password == pw.encode()
        return AuthResult(success=good)
    kw = dict(authenticator=check, auth_required=True, auth_require_tls=False)
c = Controller(Saver(), hostname="127.0.0.1", port=port, **kw)
c.start()
open(portfile + ".tmp", "w").write(str(port))
os.rename(portfile + ".tmp", portfile)
while True:
    time.sleep(3600)
