/*
 * publish_stage.c: the HTML files of one publish switched together
 * (priv/publish_stage.h).
 *
 * A visitor never sees the files of two publishes mixed (a new
 * index-2.html beside the old index.html, after a disk filled half way):
 * every HTML file is written to its temporary file first, each synced and
 * closed but none renamed (the staged files below); only when all of them
 * are whole are they renamed, the numbered ones, then index.html last.
 * So a write that fails (disk full, a size limit, an I/O error) changes
 * nothing a visitor sees: its temporary files are removed and the old
 * listing stays, whole.  The renames come after a check that each target
 * can be replaced (not a directory), and a rename in one directory needs
 * no new data block, so the step that could fail half way is not reached
 * with a listing half written.
 *
 * The file names stay index.html, index-2.html, ... (not a generation
 * number in each name, the other way to make the switch atomic): links and
 * bookmarks to index-2.html keep working, and a crash between two renames
 * (the one window left) leaves at worst the newer files of one publish
 * beside its older ones, each file whole, until the next publish.
 */
#include "publish_stage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lb_buf.h"

/* Closes f's temporary file synced, unrenamed, into st; on an error it
 * is removed.  The message names path. */
int ant_pub_stage_close(ant_pub_staged *st, lb_afile *f, const char *path, lb_error *err)
{
	lb_afile *nf = lb_grow(st->f, &st->cap, st->n + 1, sizeof *nf, 8);

	if (!nf) {
		lb_afile_abort(f);
		return lb_err_code(err, LB_ENOMEM);
	}
	st->f = nf;
	errno = 0;
	if (fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0 || lb_afile_close_unrenamed(f) < 0) {
		int rc = lb_err_sys(err, "cannot write '%s'", path);

		lb_afile_abort(f);
		return rc;
	}
	st->f[st->n++] = *f;
	return 0;
}

/* Renames the staged files in the order they were written: the numbered
 * files, then index.html (pager_finish() writes it last).  Before the
 * first rename every target is checked: a directory in a target's place
 * fails the publish with nothing renamed. */
int ant_pub_stage_commit(ant_pub_staged *st, lb_error *err)
{
	struct stat sb;

	for (size_t i = 0; i < st->n; i++)
		if (lstat(st->f[i].path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			errno = EISDIR;
			return lb_err_sys(err, "cannot write '%s'", st->f[i].path);
		}
	for (size_t i = 0; i < st->n; i++) {
		char *path = strdup(st->f[i].path);

		if (lb_afile_rename(&st->f[i]) < 0) {
			int rc = path ? lb_err_sys(err, "cannot write '%s'", path)
				      : lb_err_code(err, LB_EIO);

			free(path);
			return rc;
		}
		free(path);
	}
	return 0;
}

/* Removes what was staged and not renamed. */
void ant_pub_stage_release(ant_pub_staged *st)
{
	for (size_t i = 0; i < st->n; i++)
		lb_afile_abort(&st->f[i]);
	free(st->f);
	memset(st, 0, sizeof *st);
}
