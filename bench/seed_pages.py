# bench/seed_pages.py: the watched pages of bench/publish-big.sh's
# databases, made with SQL in seconds (imported by its seeding scripts).
# As store.c writes a page whose key and source are its url: both NULL,
# the rule "text" as its number (2), key_hash the FNV-1a 64 of the key.


def key_hash(s):
    h = 14695981039346656037
    for b in s.encode():
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h - (1 << 64) if h >= 1 << 63 else h


def seed(c, n, now, age=0):
    """n diary pages, 20 groups, page i last modified at now - age - i."""
    c.create_function("key_hash", 1, key_hash, deterministic=True)
    c.execute("""WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
  INSERT INTO pages(url, url_key, title, title_set_by_user, author, grp, source_url, created,
    last_modified, last_detected, last_ok, last_check, content_length, detected_by, text_hash,
    key_hash)
  SELECT u, NULL, '日記ページ ' || i || ' <&>', 1, CASE WHEN i % 3 THEN '山田太郎' ELSE '' END,
    'グループ ' || (i % 20), NULL, ?, ? - i, ?, ?, ?, 1500, 2, i, key_hash(u)
  FROM (SELECT i, 'http://pages.example.jp/diary/' || i || '.html' AS u FROM k)""",
              (n - 1, now, now - age, now - age, now, now))


def events(c, where=""):
    """The update events of the newest 10,000 pages (of those WHERE)."""
    c.execute("""INSERT INTO ev_events(url, url_key, last_modified, last_detected, tz_offset,
    content_length, title, author, source_url)
  SELECT url, url, last_modified, last_detected, 32400, 1500, title, author, url
  FROM (SELECT * FROM pages %s ORDER BY last_modified DESC LIMIT 10000) ORDER BY last_modified""" % where)
