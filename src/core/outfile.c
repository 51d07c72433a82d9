/*
 * outfile.c - output files written atomically (outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "core/outfile.h"

int core_outfile_create(const char *tmp)
{
	return open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

int core_outfile_write(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int core_outfile_sink(void *ctx, const char *p, size_t n)
{
	return core_outfile_write(*(const int *)ctx, p, n);
}

int core_outfile_commit(int fd, int failed, const char *tmp, const char *path)
{
	if (close(fd) < 0)
		failed = 1;
	if (failed || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int core_outfile_exists(const char *path)
{
	return access(path, F_OK) == 0;
}
