/*
 * ant_export.h: the watch list written out, so that nobody is locked in:
 * every page with its group, ignore patterns, author, forced charset,
 * the title the user set, its --only patterns, the feed the user gave, its
 * check URL and --no-auto-ignore, and the sources with their kind (LIRS
 * or Atom) and whether they are relay sources ('add --relay').
 *
 *   opml       an OPML 2.0 outline (one outline per group; the antenna's
 *              own attributes in ANT_IMP_OPML_NS); a page's feed as xmlUrl and
 *              an Atom source as type="rss", for feed readers;
 *              import_opml.c reads it back
 *   samidare   samidare's config.yml (libyaml's emitter); what samidare
 *              has no key for in keys of ours; import_samidare.c reads it
 *              back
 *   jsonl      one JSON object per page (ant_export_page_json()) or source,
 *              with the update times; import_jsonl.c reads it back
 *
 * Each reads back with 'antenna import': export, import into a new
 * database, export gives the same bytes (tests/import/run.sh).  One escaping path per language: XML through
 * atom_xml_escape(), YAML through libyaml, JSON through lirs_jsonw.h.
 * The writers write to a stdio stream the caller opened; they never open
 * files or print messages.
 */
#ifndef ANT_EXPORT_H
#define ANT_EXPORT_H

#include <stdio.h>

#include "ant_store.h"
#include "lb_buf.h"
#include "lb_error.h"

typedef enum ant_export_format {
	ANT_EXPORT_OPML = 0,
	ANT_EXPORT_SAMIDARE,
	ANT_EXPORT_JSONL,
} ant_export_format;

/* The format named s ("opml", "samidare", "jsonl"); LB_EINVAL for another. */
int ant_export_format_from_name(const char *s);

/*
 * Writes the store's watch list to out in format f: pages in group order
 * (no group first, then groups by name, byte order), by URL within a
 * group, then the sources; the OPML title is the config's title
 * ("antenna" when unset).  Bytes go out in pieces as they are made, so a
 * failure can leave part of the list written.  Returns 0, or LB_EDB (the
 * store could not be read), LB_ENOMEM, LB_EINVAL (libyaml refused the
 * list; its reason in err), LB_ESINK (writing to out failed, errno in
 * err->sys).  out is not flushed.
 */
int ant_export(ant_store *s, ant_export_format f, FILE *out, lb_error *err);

/*
 * A page as one JSON object and a newline, appended to o: the one writer
 * of a page's JSON (export --format jsonl, list --format jsonl).  Keys in
 * this order: ("type":"page" in CONFIG,) url, title, (title_set_by_user,)
 * author, group, last_modified, last_detected, (STATE: source_url,
 * detected_by, last_error, fail_kind (ant_outcome.h's name, or null),
 * last_check, last_status, error_count,
 * next_check, excerpt,) feed_url, (STATE: feed_error,) check_url, ignore,
 * only (arrays of patterns), (CONFIG: force_charset,) no_auto_ignore.
 * feed_url is the feed in use in STATE, the feed the user gave in CONFIG
 * (null when none); import_jsonl.c reads CONFIG back.  0, or LB_ENOMEM.
 */
typedef enum ant_export_json {
	ANT_EXPORT_JSON_CONFIG = 0,   /* the settings, what an import reads back */
	ANT_EXPORT_JSON_STATE,        /* and what the checks found: 'antenna list' */
} ant_export_json;
int ant_export_page_json(lb_buf *o, const ant_store_page *p, ant_export_json what);

#endif
