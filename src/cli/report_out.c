/*
 * report_out.c - witch report -o FILE (see report_out.h).
 */
#include "cli/report_out.h"
#include "cli/oneline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A descriptor for the report's bytes: a temporary file beside o->target,
 * or FILE itself when it is no regular file. -1 with errno set. */
static int open_output(struct report_out *o)
{
	size_t n;
	struct stat st;
	mode_t mask;
	int fd;

	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode))
		return open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	/* Replace what a link points at, not the link. */
	o->target = realpath(o->path, NULL);
	if (!o->target && !(o->target = strdup(o->path)))
		return -1;
	n = strlen(o->target);
	o->tmp = malloc(n + sizeof(".XXXXXX"));
	if (!o->tmp)
		return -1;
	memcpy(o->tmp, o->target, n);
	memcpy(o->tmp + n, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* Readable as one the shell's redirection writes (mkstemp's is
	 * the owner's only). */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	return fd;
}

static void release(struct report_out *o, int remove_tmp)
{
	if (o->tmp && remove_tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

int report_out_open(struct report_out *o, const char *who, const char *path)
{
	size_t n = strlen(path);
	struct stat st;
	int fd;

	o->path = path;
	o->target = o->tmp = NULL;
	o->saved_stdout = -1;
	if (!n)
		return cli_fail(who, -1, "-o needs a file name for the report");
	if (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return cli_fail(who, -1, "-o %s is a directory; name the file to write the report "
				"to, such as %s%sreport.html", path, path, path[n - 1] == '/' ? "" : "/");
	fd = open_output(o);
	if (fd < 0) {
		cli_fail(who, -1, "cannot write %s: %s; check that its directory exists and is "
			 "writable", path, strerror(errno));
		release(o, 0);
		return -1;
	}
	fflush(stdout);
	o->saved_stdout = dup(STDOUT_FILENO);
	if (o->saved_stdout < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		cli_fail(who, -1, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		if (o->saved_stdout >= 0)
			close(o->saved_stdout);
		o->saved_stdout = -1;
		release(o, 1);
		return -1;
	}
	close(fd);
	return 0;
}

int report_out_close(struct report_out *o, const char *who, int ok)
{
	int ret = 0;

	if (o->saved_stdout < 0)
		return 0;
	if (fflush(stdout) || ferror(stdout)) {
		if (ok)
			ret = cli_fail(who, -1, "cannot write %s: %s", o->path, strerror(errno));
		ok = 0;
	}
	dup2(o->saved_stdout, STDOUT_FILENO);
	close(o->saved_stdout);
	o->saved_stdout = -1;
	clearerr(stdout);
	if (ok && o->tmp && rename(o->tmp, o->target) < 0) {
		ret = cli_fail(who, -1, "cannot write %s: %s", o->path, strerror(errno));
		ok = 0;
	}
	release(o, !ok);
	return ret;
}
