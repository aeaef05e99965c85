/*
 * store_published.c: what the site shows, read from the store in one
 * statement (ant_store.h's published rows): the watched pages and the
 * relayed records no watched page has, in the listing's order, with the
 * "new" mark from the update events.
 */
#include "store_int.h"

#include "lb_buf.h"

int ant_store_read_begin(ant_store *s, lb_error *err)
{
	/* BEGIN alone takes no snapshot: the first read does */
	return ant_st_exec(s, "BEGIN; SELECT count(*) FROM config", err);
}

/* A relay's row: fresh, of a URL key no watched page has, and newest of
 * the relay sources' fresh rows of that key (Last-Modified, then
 * Last-Detected, then the older source). */
/* A relay source not held back for its trust score (ant_trust.h).  A
 * relayed row's detected_by is store_pages.c's rule number (4 lirs, 6 atom),
 * of one type with the watched pages' column. */
#define NOT_HELD(s) \
	" AND NOT EXISTS (SELECT 1 FROM source_trust t WHERE t.source_id = " s ".id AND t.held <> 0)"
#define RELAYED_ROWS \
	" SELECT r.url, r.url_key, r.title, r.author, '' AS grp, r.last_modified," \
	" r.last_detected, r.content_length, CASE s.kind WHEN 'atom' THEN 6 ELSE 4 END," \
	" s.url, NULL, r.excerpt, 1 AS relayed, NULL AS fail_kind" \
	" FROM source_records r JOIN sources s ON s.id = r.source_id AND s.relay = 1" NOT_HELD("s") \
	" WHERE r.last_modified != 0 AND r.last_detected >= ?1" \
	" AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.key_hash = ant_key_hash(r.url_key)" \
	"  AND coalesce(p.url_key, p.url) = r.url_key)"
/* ...and the newest of the relays' rows of that key: only asked when
 * there are several relay sources (the probe is most of a row's cost) */
#define RELAYED_NEWEST \
	" AND NOT EXISTS (SELECT 1 FROM source_records r2 JOIN sources s2" \
	"  ON s2.id = r2.source_id AND s2.relay = 1" NOT_HELD("s2") " WHERE r2.url_key = r.url_key" \
	"  AND r2.last_modified != 0 AND r2.last_detected >= ?1 AND r2.source_id != r.source_id" \
	"  AND (r2.last_modified > r.last_modified OR (r2.last_modified = r.last_modified AND" \
	"   (r2.last_detected > r.last_detected OR (r2.last_detected = r.last_detected AND" \
	"    r2.source_id < r.source_id)))))"

#define WATCHED_ROWS \
	" SELECT url, coalesce(url_key, url) AS url_key, title, author, grp, last_modified," \
	" last_detected, max(content_length, 0) AS content_length, detected_by," \
	" CASE WHEN coalesce(source_url, '') = '' THEN url ELSE source_url END AS source_url," \
	" last_error, excerpt, 0 AS relayed, fail_kind FROM pages"

/* The statement for q: the update events table (atom_evstore.h) is read only
 * for the "new" marks, by its (url_key, last_modified) index.  relays: the
 * number of relay sources. */
static int pub_sql(lb_buf *b, const ant_store_pubq *q, int64_t relays)
{
	const char *part[] = {
		"SELECT url, url_key, title, author, grp, last_modified, last_detected,"
		" content_length, detected_by, source_url, last_error, excerpt, relayed, fail_kind, ",
		q->found_after < 0 ? "0" :
		"CASE WHEN EXISTS (SELECT 1 FROM ev_events e WHERE e.url_key = u.url_key"
		" AND e.last_modified = u.last_modified AND e.seq > ?2) THEN 1 ELSE -1 END",
		" FROM (" WATCHED_ROWS,
		q->fresh_only ? " WHERE last_modified != 0 AND last_detected != 0"
				" AND last_detected >= ?1" : "",
		" UNION ALL" RELAYED_ROWS,
		relays > 1 ? RELAYED_NEWEST : "",
		") u",
		q->order == ANT_PUBQ_ANY ? "" : " ORDER BY ",
		q->order == ANT_PUBQ_ANY ? "" : q->order == ANT_PUBQ_LISTING ?
		"(last_modified = 0 OR last_error IS NOT NULL),"
		" CASE WHEN last_modified = 0 OR last_error IS NOT NULL THEN 0"
		" ELSE last_modified END DESC,"
		" CASE title WHEN '' THEN url ELSE title END, url" :
		"last_modified DESC, url",
		q->limit > 0 ? " LIMIT ?3" : "",
	};

	for (size_t i = 0; i < sizeof part / sizeof *part; i++)
		if (lb_buf_adds(b, part[i]) < 0)
			return LB_ENOMEM;
	return 0;
}

static const char *col_str(atom_db_st *st, int i)
{
	const unsigned char *t = atom_db_column_text(st, i);

	return t ? (const char *)t : "";
}

static void pubrow_of(atom_db_st *st, ant_store_pubrow *r)
{
	*r = (ant_store_pubrow){
		.url = col_str(st, 0), .url_key = col_str(st, 1), .title = col_str(st, 2),
		.author = col_str(st, 3), .group = col_str(st, 4),
		.last_modified = atom_db_column_int64(st, 5),
		.last_detected = atom_db_column_int64(st, 6),
		.content_length = atom_db_column_int64(st, 7),
		.detected_by = ant_st_rule_name(st, 8),
		.source_url = col_str(st, 9),
		.last_error = (const char *)atom_db_column_text(st, 10),
		.excerpt = col_str(st, 11),
		.relayed = atom_db_column_int(st, 12),
		.fail_kind = ant_fail_kind_parse((const char *)atom_db_column_text(st, 13)),
		.found = atom_db_column_int(st, 14),
	};
	if (r->content_length < 0)
		r->content_length = 0;
}

int ant_store_published_each(ant_store *s, const ant_store_pubq *q, ant_store_pub_fn fn,
			     void *ctx, lb_error *err)
{
	lb_buf sql = LB_BUF_INIT;
	atom_db_st *st;
	ant_store_pubrow r;
	int rc;

	int64_t relays = ant_st_pragma_int(s, "SELECT count(*) FROM sources WHERE relay = 1");

	if (relays < 0)
		return ant_st_dberr(s, err, "cannot count the relay sources");
	if (pub_sql(&sql, q, relays) < 0) {
		lb_buf_release(&sql);
		return lb_err_code(err, LB_ENOMEM);
	}
	rc = ant_st_prep(s, &st, sql.data, err);
	lb_buf_release(&sql);
	if (rc < 0)
		return rc;
	atom_db_bind_int64(st, 1, q->fresh_since);
	if (q->found_after >= 0)
		atom_db_bind_int64(st, 2, q->found_after);
	if (q->limit > 0)
		atom_db_bind_int64(st, 3, q->limit);
	atom_db_stream(st);	/* every published row: PostgreSQL's in batches */
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		pubrow_of(st, &r);
		if ((rc = fn(ctx, &r)) != 0) {
			atom_db_finalize(st);
			return rc;
		}
	}
	atom_db_finalize(st);
	return rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
}
