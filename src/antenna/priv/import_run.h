/*
 * import_run.h: what ant_import()'s two halves share: import_files.c
 * reads the files and hands their entries to import_apply.c, which
 * applies them to the database.
 */
#ifndef ANT_IMPORT_RUN_H
#define ANT_IMPORT_RUN_H

#include <stdarg.h>

#include "ant_import.h"
#include "import_int.h"
#include "ant_store.h"
#include "lb_buf.h"
#include "lb_error.h"

struct ant_imp_tfiles;

typedef struct ant_imp_run {
	ant_store *s;
	const ant_import_opts *o;
	const char *file;        /* being read */
	const char *group;       /* for pages without one: tama.cfg's output name, or o->group */
	int allow_file;          /* the database's allow_file: file:/// URLs are pages */
	int64_t skew;            /* the database's max_future */
	ant_imp_format fmt;
	ant_import_stats f;      /* of the file being read */
	ant_import_stats sum;    /* of the files read (errors: see total_errors) */
	unsigned total_errors;
	int rc;                  /* the first database or memory failure: stops the import */
	lb_error *err;
	lb_buf tmp, msg;
	struct ant_imp_tfiles *tf; /* tama.cfg being read */
} ant_imp_run;

/* One record's times (a LIRS record's, or a page's in jsonl). */
typedef struct ant_imp_times {
	const char *url;
	unsigned long line;
	int64_t last_modified, last_detected;
	const char *source_url;  /* who announced it (LIRS), or NULL */
	const char *by;          /* detected_by: "lirs", or NULL (jsonl does not say) */
} ant_imp_times;

/* "would " in a dry run, else "". */
const char *ant_imp_would(const ant_imp_run *m);
/* Says something through on_note: about m->file at line (0: the whole
 * file); an error counts in m->f.errors, unmapped in m->f.unmapped. */
void ant_imp_vnote(ant_imp_run *m, ant_imp_severity sev, const char *file, unsigned long line,
		   unsigned long col, const char *fmt, va_list ap);
void ant_imp_note(ant_imp_run *m, ant_imp_severity sev, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ant_imp_note_at(ant_imp_run *m, ant_imp_severity sev, unsigned long line, unsigned long col,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A line of the report (ANT_IMP_REPORT): what was or would be changed. */
void ant_imp_report(ant_imp_run *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Keeps the first failure (rc < 0) in m->rc; returns m->rc. */
int ant_imp_fail(ant_imp_run *m, int rc);
/* 1 when e->url can be watched (else an error said why). */
int ant_imp_url_usable(ant_imp_run *m, const ant_imp_entry *e);
/* One entry into the database; 0, or < 0 (LB_EDB, LB_ENOMEM). */
int ant_imp_apply(ant_imp_run *m, const ant_imp_entry *e);
/* The record's times onto the page of key, when newer than the page's:
 * no event, no recheck.  0, or < 0 (LB_EDB, LB_ENOMEM). */
int ant_imp_take_times(ant_imp_run *m, const ant_imp_times *r, const char *key);

#endif
