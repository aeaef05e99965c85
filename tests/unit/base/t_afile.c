/*
 * t_afile: the atomic file writer (src/base/afile.c).  A write error at
 * the very last flush must fail the commit and leave the previous file
 * whole: the limit on file size (RLIMIT_FSIZE, SIGXFSZ
 * ignored) makes that flush fail for real, as a full disk would, without
 * root.  And the mode afile promises: 0644 less the umask, as open(2)
 * would make a file, never the 0600 mkstemp makes.
 *
 * Durability and failure: a replacement fsyncs the file it renames over
 * the target (counted by this program's own fsync(), below), and a
 * rename that fails (the target a non-empty directory, which fails even
 * for root) is LB_EIO with errno set and leaves no temporary file.
 */
#include "lb_afile.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

/*
 * The program's own fsync(): liblirs-base.a is a static library, so
 * afile.o's call to fsync() resolves to this definition (the program's
 * symbols come before libc's).  Each call is counted with the inode and
 * kind of what it synced, then made for real.  A check that expects a
 * call fails if the calls were not counted, so the wrapper cannot pass a
 * test by being bypassed.
 */
static int fsync_calls;
static struct stat fsync_last;   /* what the last call synced */

int fsync(int fd)
{
	fsync_calls++;
	if (fstat(fd, &fsync_last) != 0)
		memset(&fsync_last, 0, sizeof fsync_last);
	return (int)syscall(SYS_fsync, fd);
}

/* Nonzero when the last fsync() was of path's inode. */
static int synced(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_ino == fsync_last.st_ino &&
	       st.st_dev == fsync_last.st_dev;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *s;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	s = calloc(1, (size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(fp);
	return s;
}

/* Files in dir other than the targets: temporary files left behind. */
static int leftovers(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp."))
			n++;
	closedir(d);
	return n;
}

/* Writes text to path through afile; returns lb_afile_commit()'s value. */
static int put(const char *path, const char *text)
{
	lb_afile f;

	if (lb_afile_open(&f, path) != 0)
		return -2;
	fputs(text, f.fp);
	return lb_afile_commit(&f);
}

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* The last flush fails: everything was buffered, the limit on file size
 * stops it half way. */
static void test_final_flush(int unrenamed)
{
	char path[300], *big, *now;
	const char *how = unrenamed ? "close_unrenamed" : "commit";
	struct rlimit old, lim;
	lb_afile f;
	size_t n = 3000, wrote;
	int rc, e;

	snprintf(path, sizeof path, "%s/flush-%d.html", dir, unrenamed);
	IS_INT(put(path, "the published page\n"), 0, "%s: the first version is written", how);
	big = malloc(n);
	memset(big, 'x', n);
	IS_INT(lb_afile_open(&f, path), 0, "%s: the second version opened", how);
	/* Everything stays in the buffer until the final flush. */
	setvbuf(f.fp, NULL, _IOFBF, 1 << 16);
	wrote = fwrite(big, 1, n, f.fp);
	IS_INT(wrote, n, "%s: the writes themselves succeed (buffered)", how);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 1000;
	setrlimit(RLIMIT_FSIZE, &lim);
	errno = 0;
	if (unrenamed) {
		rc = lb_afile_close_unrenamed(&f);
		e = errno;
		if (rc == 0)
			lb_afile_rename(&f);   /* what a caller does next: the damage */
	} else {
		rc = lb_afile_commit(&f);
		e = errno;
	}
	setrlimit(RLIMIT_FSIZE, &old);
	IS_INT(rc, LB_EIO, "%s: fails when the final flush fails: LB_EIO", how);
	IS_INT(e, EFBIG, "%s: with the flush's errno (%s)", how, strerror(e));
	now = slurp(path);
	IS_STR(now, "the published page\n", "%s: the previous file is left whole", how);
	IS_INT(leftovers(), 0, "%s: no temporary file left behind", how);
	free(now);
	free(big);
}

static void test_mode(void)
{
	static const struct { mode_t umask; int want; } t[] = {
		{ 022, 0644 }, { 002, 0644 }, { 0, 0644 }, { 077, 0600 }, { 027, 0640 },
	};
	char path[300];
	mode_t um = umask(0);

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		snprintf(path, sizeof path, "%s/mode-%zu", dir, i);
		umask(t[i].umask);
		IS_INT(put(path, "m\n"), 0, "mode: written under umask %03o", (unsigned)t[i].umask);
		IS_INT(mode_of(path), t[i].want, "mode: 0644 less umask %03o is %04o",
		       (unsigned)t[i].umask, (unsigned)t[i].want);
	}
	/* Replacing a file gives the promised mode, not the old file's. */
	snprintf(path, sizeof path, "%s/mode-0", dir);
	chmod(path, 0600);
	umask(022);
	IS_INT(put(path, "again\n"), 0, "mode: a 0600 file replaced");
	IS_INT(mode_of(path), 0644, "mode: the replacement is 0644 under umask 022");
	umask(um);
}

static void test_abort(void)
{
	char path[300], *now;
	lb_afile f;

	snprintf(path, sizeof path, "%s/abort.txt", dir);
	IS_INT(put(path, "kept\n"), 0, "abort: the first version is written");
	IS_INT(lb_afile_open(&f, path), 0, "abort: the second version opened");
	fputs("dropped\n", f.fp);
	lb_afile_abort(&f);
	now = slurp(path);
	IS_STR(now, "kept\n", "abort: the target is untouched");
	IS_INT(leftovers(), 0, "abort: no temporary file left behind");
	free(now);
}

/* A replacement is durable before it is visible: the file renamed over
 * the target was fsynced, once; nosync and close_unrenamed leave it to
 * the caller; the directory syncs fsync the directory. */
static void test_fsync(void)
{
	char path[300];
	lb_afile f;

	snprintf(path, sizeof path, "%s/sync.txt", dir);
	fsync_calls = 0;
	IS_INT(put(path, "durable\n"), 0, "fsync: a replacement is committed");
	IS_INT(fsync_calls, 1, "fsync: the commit called fsync() once");
	OK(synced(path) && S_ISREG(fsync_last.st_mode),
	   "fsync: of the very file now under the target's name");

	fsync_calls = 0;
	IS_INT(lb_afile_open(&f, path), 0, "fsync: nosync: opened");
	f.nosync = 1;
	fputs("later\n", f.fp);
	IS_INT(lb_afile_commit(&f), 0, "fsync: nosync: committed");
	IS_INT(fsync_calls, 0, "fsync: nosync: no fsync (the caller syncs the batch)");

	IS_INT(lb_afile_open(&f, path), 0, "fsync: unrenamed: opened");
	fputs("batch\n", f.fp);
	IS_INT(lb_afile_close_unrenamed(&f), 0, "fsync: unrenamed: closed");
	IS_INT(fsync_calls, 0, "fsync: unrenamed: no fsync before the batch's syncfs");
	IS_INT(lb_afile_syncdir(dir), 0, "fsync: syncdir");
	IS_INT(fsync_calls, 1, "fsync: syncdir fsyncs the directory (the renames) after its syncfs");
	OK(synced(dir) && S_ISDIR(fsync_last.st_mode), "fsync: syncdir: of the directory");
	IS_INT(lb_afile_rename(&f), 0, "fsync: unrenamed: renamed");
	fsync_calls = 0;
	IS_INT(lb_afile_fsyncdir(dir), 0, "fsync: fsyncdir");
	IS_INT(fsync_calls, 1, "fsync: fsyncdir calls fsync() once");
	OK(synced(dir) && S_ISDIR(fsync_last.st_mode), "fsync: fsyncdir: of the directory");
}

/* The target is a non-empty directory: rename(2) fails (EISDIR), even for
 * root.  The commit must say so and leave no temporary file. */
static void test_rename_fails(int unrenamed)
{
	const char *what = unrenamed ? "rename fails: unrenamed" : "rename fails: commit";
	char path[300], inner[320], msg[160], *kept;
	lb_afile f;
	int rc;

	snprintf(path, sizeof path, "%s/busy%d", dir, unrenamed);
	snprintf(inner, sizeof inner, "%s/inside.txt", path);
	if (mkdir(path, 0755) != 0 || put(inner, "inside\n") != 0) {
		printf("not ok - %s: cannot make the directory '%s'\n", what, path);
		return;
	}
	IS_INT(lb_afile_open(&f, path), 0, "rename fails: opened beside the directory");
	fputs("new\n", f.fp);
	errno = 0;
	if (unrenamed)
		rc = lb_afile_close_unrenamed(&f) != 0 ? -2 : lb_afile_rename(&f);
	else
		rc = lb_afile_commit(&f);
	snprintf(msg, sizeof msg, "%s: LB_EIO", what);
	IS_INT(rc, LB_EIO, msg);
	snprintf(msg, sizeof msg, "%s: errno says why (EISDIR)", what);
	IS_INT(errno, EISDIR, msg);
	snprintf(msg, sizeof msg, "%s: no temporary file left behind", what);
	IS_INT(leftovers(), 0, msg);
	kept = slurp(inner);
	snprintf(msg, sizeof msg, "%s: the directory is untouched", what);
	IS_STR(kept, "inside\n", msg);
	free(kept);
}

/* A target that is no regular file (a FIFO here; /dev/stdout or
 * /dev/full for a user) is written in place: renaming a temporary file
 * over it would replace the device with a file (as root, /dev/full). */
static void test_direct(void)
{
	char path[300];
	lb_afile f;
	struct stat st;
	pid_t pid;
	int status = -1;

	snprintf(path, sizeof path, "%s/fifo", dir);
	if (mkfifo(path, 0600) != 0) {
		printf("not ok - mkfifo: %s\n", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {   /* the reader: exits with the count of bytes it read */
		FILE *r = fopen(path, "rb");
		int n = 0;

		while (r && fgetc(r) != EOF)
			n++;
		_exit(r ? n : 99);
	}
	IS_INT(lb_afile_open(&f, path), 0, "direct: a FIFO target opens");
	IS_INT(f.direct, 1, "direct: ... to be written in place");
	fputs("hello", f.fp);
	IS_INT(lb_afile_commit(&f), 0, "direct: commit succeeds");
	waitpid(pid, &status, 0);
	IS_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 5, "direct: the reader got the 5 bytes");
	IS_INT(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), 1, "direct: the FIFO is still a FIFO");
	IS_INT(leftovers(), 0, "direct: no temporary file");
	unlink(path);
}

int main(void)
{
	char cmd[300];

	TAP_PLAN(30 + 16 + 2 * 5 + 6);
	snprintf(dir, sizeof dir, "%s/t_afile.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		printf("not ok - cannot create a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	test_final_flush(0);
	test_final_flush(1);
	test_mode();
	test_abort();
	test_fsync();
	test_rename_fails(0);
	test_rename_fails(1);
	test_direct();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	TAP_DONE();
}
