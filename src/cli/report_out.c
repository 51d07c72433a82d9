/*
 * report_out.c - witch report -o FILE (see report_out.h).
 */
#include "cli/report_out.h"
#include "cli/oneline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int report_out_open(struct report_out *o, const char *who, const char *path)
{
	size_t n = strlen(path);
	struct stat st;
	mode_t mask;
	int fd;

	o->path = path;
	o->tmp = NULL;
	o->saved_stdout = -1;
	if (!n)
		return cli_fail(who, -1, "-o needs a file name for the report");
	if (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return cli_fail(who, -1, "-o %s is a directory; name the file to write the report "
				"to, such as %s%sreport.html", path, path, path[n - 1] == '/' ? "" : "/");
	o->tmp = malloc(n + sizeof(".XXXXXX"));
	if (!o->tmp)
		return cli_fail(who, -1, "out of memory");
	memcpy(o->tmp, path, n);
	memcpy(o->tmp + n, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		cli_fail(who, -1, "cannot write %s: %s; check that its directory exists and is "
			 "writable", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* Readable as one the shell's redirection writes (mkstemp's is
	 * the owner's only). */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	fflush(stdout);
	o->saved_stdout = dup(STDOUT_FILENO);
	if (o->saved_stdout < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		cli_fail(who, -1, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	close(fd);
	return 0;
}

int report_out_close(struct report_out *o, const char *who, int ok)
{
	int ret = 0;

	if (!o->tmp)
		return 0;
	if (fflush(stdout) || ferror(stdout)) {
		if (ok)
			ret = cli_fail(who, -1, "cannot write %s: %s", o->path, strerror(errno));
		ok = 0;
	}
	dup2(o->saved_stdout, STDOUT_FILENO);
	close(o->saved_stdout);
	clearerr(stdout);
	if (ok && rename(o->tmp, o->path) < 0) {
		ret = cli_fail(who, -1, "cannot write %s: %s", o->path, strerror(errno));
		ok = 0;
	}
	if (!ok)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}
