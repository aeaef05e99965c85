/*
 * afile.c: atomically replaced files (lb_afile.h): a temporary file
 * beside the target, fsync, rename; a device or a pipe written in place.
 */
#include "lb_afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A target that is a device, a pipe or a socket: opened as it is. */
static int open_direct(lb_afile *f, const char *path)
{
	f->direct = 1;
	f->path = strdup(path);
	if (!f->path) {
		errno = ENOMEM;
		return LB_EIO;
	}
	f->fp = fopen(path, "wb");
	if (!f->fp) {
		int e = errno;

		free(f->path);
		memset(f, 0, sizeof *f);
		errno = e;
		return LB_EIO;
	}
	return 0;
}

int lb_afile_open(lb_afile *f, const char *path)
{
	size_t n = strlen(path);
	struct stat st;
	int fd;
	mode_t um;

	memset(f, 0, sizeof *f);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return open_direct(f, path);
	f->path = strdup(path);
	f->tmp = malloc(n + sizeof ".tmp.XXXXXX");
	if (!f->path || !f->tmp)
		goto fail;
	memcpy(f->tmp, path, n);
	memcpy(f->tmp + n, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
	fd = mkstemp(f->tmp);
	if (fd < 0)
		goto fail;
	/* mkstemp makes 0600; published files must be readable by the web server. */
	um = umask(0);
	umask(um);
	fchmod(fd, 0644 & ~um);
	f->fp = fdopen(fd, "wb");
	if (!f->fp) {
		int e = errno;
		close(fd);
		unlink(f->tmp);
		errno = e;
		goto fail;
	}
	return 0;
fail:
	{
		int e = errno ? errno : ENOMEM;
		free(f->path);
		free(f->tmp);
		memset(f, 0, sizeof *f);
		errno = e;
	}
	return LB_EIO;
}

/* Flushes and closes f (fsync first when sync); on an error the
 * temporary file is removed and f released, errno set. */
static int close_tmp(lb_afile *f, int sync)
{
	int e = 0;

	/* a device or a pipe has nothing to fsync (EINVAL) */
	if (fflush(f->fp) != 0 || ferror(f->fp) ||
	    (sync && !f->direct && fsync(fileno(f->fp)) != 0))
		e = errno ? errno : EIO;
	if (fclose(f->fp) != 0 && !e)
		e = errno;
	f->fp = NULL;
	if (e) {
		lb_afile_abort(f);
		errno = e;
		return LB_EIO;
	}
	return 0;
}

int lb_afile_commit(lb_afile *f)
{
	if (close_tmp(f, !f->nosync) < 0)
		return LB_EIO;
	return lb_afile_rename(f);
}

int lb_afile_close_unrenamed(lb_afile *f)
{
	return close_tmp(f, 0);
}

int lb_afile_rename(lb_afile *f)
{
	int e = f->direct ? 0 : rename(f->tmp, f->path) != 0 ? errno : 0;

	if (e)
		unlink(f->tmp);
	free(f->path);
	free(f->tmp);
	f->path = f->tmp = NULL;
	errno = e;
	return e ? LB_EIO : 0;
}

int lb_afile_fsyncdir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), rc;

	if (fd < 0)
		return LB_EIO;
	rc = fsync(fd);
	{
		int e = errno;
		close(fd);
		errno = e;
	}
	return rc == 0 ? 0 : LB_EIO;
}

int lb_afile_syncdir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), rc;

	if (fd < 0)
		return LB_EIO;
	rc = syncfs(fd);
	if (rc == 0)
		rc = fsync(fd);   /* the renames themselves */
	{
		int e = errno;
		close(fd);
		errno = e;
	}
	return rc == 0 ? 0 : LB_EIO;
}

void lb_afile_abort(lb_afile *f)
{
	if (f->fp)
		fclose(f->fp);
	if (f->tmp)
		unlink(f->tmp);
	free(f->path);
	free(f->tmp);
	memset(f, 0, sizeof *f);
}

int lb_mkdir_p(const char *dir, int mode)
{
	char *p, *s = strdup(dir);

	if (!s)
		return LB_ENOMEM;   /* errno is ENOMEM too */
	for (p = s + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(s, (mode_t)mode) != 0 && errno != EEXIST) {
				int e = errno;
				free(s);
				errno = e;
				return LB_EIO;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	free(s);
	return 0;
}
