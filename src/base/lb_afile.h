/*
 * lb_afile.h: atomic file replacement.  Write to a temporary file in the
 * target's directory, then fsync and rename() over the target, so a
 * reader (or a web server) never sees half a file.
 */
#ifndef LB_AFILE_H
#define LB_AFILE_H

#include <stdio.h>

#include "lb_error.h"

typedef struct lb_afile {
	FILE *fp;       /* write here */
	char *path;     /* the target */
	char *tmp;      /* the temporary file beside it */
	int nosync;     /* skip the fsync: the caller syncs many files at once
	                   (lb_afile_syncdir) before relying on them */
	int direct;     /* the target is no regular file (a device, a pipe):
	                   written in place, never renamed over */
} lb_afile;

/* Opens a temporary file beside path.  Its mode, and so the target's, is
 * 0644 less the umask (0644 under umask 022, 0600 under 077), as open(2)
 * with O_CREAT would make it, never mkstemp's 0600.  A target that exists
 * and is no regular file (-o /dev/stdout, a FIFO, /dev/full) is written
 * in place (f->direct): renaming over it would replace the device with a
 * file.  Returns 0, or LB_EIO with errno set. */
int lb_afile_open(lb_afile *f, const char *path);
/* Flush, fsync, close and rename over the target.  Returns 0, or LB_EIO with
 * errno set (the temporary file is removed and the target untouched). */
int lb_afile_commit(lb_afile *f);
/* One syncfs() for the filesystem holding dir: after writing many files
 * with nosync, this makes them all durable at the cost of one sync instead
 * of one per file.  Returns 0, or LB_EIO with errno set. */
int lb_afile_syncdir(const char *dir);
/* For many files made durable at once: flush and close the temporary
 * file, without fsync or rename; then lb_afile_syncdir(), then
 * lb_afile_rename() each, then lb_afile_fsyncdir() for the renames.  A
 * crash before the renames leaves only temporary files, never a file
 * under its final name whose data is not on disk.  Returns 0, or LB_EIO
 * with errno set (the temporary file is removed). */
int lb_afile_close_unrenamed(lb_afile *f);
/* rename() the closed temporary file over the target.  Returns 0, or LB_EIO
 * with errno set (the temporary file is removed). */
int lb_afile_rename(lb_afile *f);
/* fsync() of the directory itself: the renames in it.  Returns 0, or LB_EIO
 * with errno set. */
int lb_afile_fsyncdir(const char *dir);
/* Close and remove the temporary file; the target is untouched. */
void lb_afile_abort(lb_afile *f);

/* mkdir -p; returns 0, or LB_EIO (LB_ENOMEM) with errno set. */
int lb_mkdir_p(const char *dir, int mode);

#endif
