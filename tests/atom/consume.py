#!/usr/bin/python3
"""A small RFC 5005 §4.2 consumer: start at the subscription document, follow
prev-archive links until there are none, and print every entry's
"id<TAB>updated<TAB>document" once per occurrence.  Links are mapped from
BASE to the local DIR.  Checks on the way (exit 1 with a message):
every href is absolute http(s), archives have fh:archive and rel=current,
no archive is visited twice.  Standard library only.

usage: consume.py BASE DIR
"""
import sys
import xml.etree.ElementTree as ET

A = "{http://www.w3.org/2005/Atom}"
FH = "{http://purl.org/syndication/history/1.0}"


def fail(msg):
    print("consume: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    base, root = sys.argv[1], sys.argv[2]
    if not base.endswith("/"):
        base += "/"
    url, seen, first = base + "index.atom", set(), True
    while url:
        if url in seen:
            fail("loop at " + url)
        seen.add(url)
        if not url.startswith(base):
            fail("link outside the base: " + url)
        doc = ET.parse(root + "/" + url[len(base):]).getroot()
        for link in doc.iter(A + "link"):
            href = link.get("href", "")
            if not (href.startswith("http://") or href.startswith("https://")):
                fail("relative or non-http link %r in %s" % (href, url))
        rels = {l.get("rel", "alternate"): l.get("href") for l in doc.findall(A + "link")}
        if not first:
            if doc.find(FH + "archive") is None:
                fail("no fh:archive in " + url)
            if rels.get("current") != base + "index.atom":
                fail("no rel=current in " + url)
        if rels.get("self") != url:
            fail("rel=self is not %s" % url)
        for e in doc.findall(A + "entry"):
            print("%s\t%s\t%s" % (e.findtext(A + "id"), e.findtext(A + "updated"), url))
        url, first = rels.get("prev-archive"), False


main()
