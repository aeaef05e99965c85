# tests/notify/checkmail.py EML ENV RCPT SUBJECT [BODY-TEXT...]: one mail as
# the SMTP server received it, parsed with Python's email package
# (policy=default); TAP lines: the envelope, the headers (RFC 2047
# subject, From's display name, Date, Message-ID, MIME type and charset),
# line lengths (RFC 5322 §2.1.1; From's name is $FROM_NAME, else テスト・アンテナ), each BODY-TEXT in the decoded body; a
# text prefixed with '!' must NOT be there.
import email, email.header, email.policy, email.utils, os, sys

eml, env, rcpt, subject = sys.argv[1:5]
wants = sys.argv[5:]
raw = open(eml, "rb").read()
name = eml.rsplit("/", 1)[-1]

def ok(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ": " + what)
    if not cond and detail:
        print("#   " + detail.replace("\n", "\n#   "))

m = email.message_from_bytes(raw, policy=email.policy.default)
rcpts = open(env).read().split("\n")[0].split()
ok(rcpts == [rcpt], "envelope recipient is only " + rcpt, repr(rcpts))
ok(str(m["Subject"]) == subject, "subject decoded intact", repr(str(m["Subject"])))
ok(m["To"] is not None and m["To"].addresses[0].addr_spec == rcpt and len(m.get_all("To")) == 1,
   "one To header, the target", repr(m.get_all("To")))
ok(m.get_all("Bcc") is None and m.get_all("Cc") is None, "no Bcc/Cc header (no injection)")
# The From name by RFC 2047 §6.2 (the space between two encoded words is
# not text): email.header's decoder, as mail readers do; policy=default's
# address parser keeps that space (Python reads its own long names so too).
frm = m["From"].addresses[0]
want = os.environ.get("FROM_NAME", "テスト・アンテナ")
raw_from = email.message_from_bytes(raw)["From"]
decoded = str(email.header.make_header(email.header.decode_header(raw_from)))
ok(frm.addr_spec == "antenna@example.org" and decoded == want + " <antenna@example.org>"
   and frm.display_name.replace(" ", "") == want.replace(" ", ""),
   "From: display name and address", repr(decoded) + " " + repr(m["From"]))
ok(email.utils.parsedate_to_datetime(str(m["Date"])) is not None, "Date parses")
mid = str(m["Message-ID"])
ok(mid.startswith("<") and mid.endswith(">") and "@" in mid, "Message-ID", mid)
ok(m.get_content_type() == "text/plain" and m.get_content_charset() == "utf-8",
   "text/plain; charset=UTF-8", m["Content-Type"])
ok(m["Content-Transfer-Encoding"] in ("base64", "8bit"), "transfer encoding")
lines = raw.split(b"\r\n")
ok(all(len(l) <= 78 for l in lines) and b"\n" not in raw.replace(b"\r\n", b""),
   "CRLF lines of at most 78 octets", repr([l for l in lines if len(l) > 78][:2]))
defects = [d for p in m.walk() for d in p.defects]
ok(not defects and not m["Subject"].defects, "no MIME defects", repr(defects))
body = m.get_content()
for w in wants:
    if w.startswith("!"):
        ok(w[1:] not in body, "body has no " + repr(w[1:]), body)
    else:
        ok(w in body, "body has " + repr(w), body)
