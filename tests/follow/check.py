# tests/follow/check.py WHAT SITE [ARGS]: reads the published site as a
# follower's software would and prints what tests/follow compares.
#   jsonfeed SITE   feed.json against JSON Feed 1.1 (jsonfeed-1.1.schema.json,
#                   with jsonschema; dates as RFC 3339): "ok N" (N items) or
#                   the first fault (Debian's feedparser 6.0 reads no JSON)
#   ids SITE        "same" when feed.json's item ids are current.atom's entry
#                   ids in the same order, else both lists
#   mf2 SITE        index.html through mf2py: "h-feed N" and each h-entry's
#                   name, url, updated on a line
#   hubs SITE FILE  the rel="hub" and rel="self" links of FILE (an Atom file)
import json
import sys
import xml.etree.ElementTree as ET

what, site = sys.argv[1], sys.argv[2]
A = "{http://www.w3.org/2005/Atom}"


def jsonfeed():
    import datetime
    import jsonschema
    with open(site + "/feed.json", encoding="utf-8") as f:
        d = json.load(f)
    with open(sys.argv[0].rsplit("/", 1)[0] + "/jsonfeed-1.1.schema.json") as f:
        schema = json.load(f)
    try:
        jsonschema.validate(d, schema)
    except jsonschema.ValidationError as e:
        return "schema: %s at %s" % (e.message, list(e.absolute_path))
    for it in d["items"]:   # RFC 3339, as the spec says
        for k in ("date_published", "date_modified"):
            if k in it:
                datetime.datetime.fromisoformat(it[k].replace("Z", "+00:00"))
    return "ok %d" % len(d["items"])


def ids():
    with open(site + "/feed.json", encoding="utf-8") as f:
        j = [i["id"] for i in json.load(f)["items"]]
    a = [e.find(A + "id").text for e in ET.parse(site + "/current.atom").getroot().findall(A + "entry")]
    return "same" if j == a and j else "json %r atom %r" % (j, a)


def mf2():
    import mf2py
    with open(site + "/index.html", encoding="utf-8") as f:
        p = mf2py.parse(doc=f.read())
    feeds = [i for i in p["items"] if "h-feed" in i["type"]]
    out = ["h-feed %d" % len(feeds)]
    for e in feeds[0].get("children", []) if feeds else []:
        pr = e["properties"]
        out.append("%s|%s|%s|%s" % (" ".join(e["type"]), pr.get("name", [""])[0].strip(),
                                 pr.get("url", [""])[0], pr.get("updated", [""])[0]))
    return "\n".join(out)


def hubs():
    root = ET.parse(site + "/" + sys.argv[3]).getroot()
    return " ".join("%s=%s" % (l.get("rel"), l.get("href")) for l in root.findall(A + "link")
                    if l.get("rel") in ("hub", "self"))


print({"jsonfeed": jsonfeed, "ids": ids, "mf2": mf2, "hubs": hubs}[what]())
