/*
 * cpi_stdin.c - witch cpi's stdin, given alike to its two runs.
 *
 * Stdin that is not a terminal can be read only once, so it is copied to
 * a file (unlinked) that the second run reads from its start. A file is
 * copied before the first run, which then reads the copy. A pipe (or a
 * socket, a device) may never end (`yes | witch cpi -- head -1`), so it is
 * streamed: a process of witch's reads it, appends each piece to the
 * copy and then writes it to a pipe that is the first run's stdin, and
 * stops when stdin ends or the first run's side of the pipe is closed.
 * Whatever the first run could read is then in the copy; what the second
 * run reads beyond it, it does not get (a program that reads the same
 * input the same way reads no further).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cpi_stdin.h"
#include "cli/oneline.h"
#include "core/outfile.h"

int cpi_stdin_open(struct cpi_stdin *s, const char *who, const char *outdir)
{
	char path[PATH_MAX + 32];

	memset(s, 0, sizeof(*s));
	s->saved = -1;
	if (isatty(0) || fcntl(0, F_GETFD) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/.stdin.XXXXXX", outdir);
	s->saved = mkstemp(path);
	if (s->saved < 0)
		return cli_fail(who, -2, "cannot save stdin for the second run in %s: %s", outdir,
				strerror(errno));
	unlink(path);
	s->stream = lseek(0, 0, SEEK_CUR) < 0;
	return 0;
}

/* Copy stdin to saved and out until stdin ends or out's reader is gone. */
static void stream(int saved, int out)
{
	struct pollfd p[2] = { { 0, POLLIN, 0 }, { out, 0, 0 } };
	char buf[1 << 16];
	ssize_t n;

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* The first run's side closed: no one will read what comes. */
		if (p[1].revents & (POLLERR | POLLHUP))
			break;
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || core_outfile_write(saved, buf, (size_t)n) ||
		    core_outfile_write(out, buf, (size_t)n))
			break;
	}
	_exit(0);
}

int cpi_stdin_first(struct cpi_stdin *s, const char *who)
{
	char buf[1 << 16];
	int fds[2];
	ssize_t n;

	if (s->saved < 0)
		return 0;
	if (!s->stream) {
		while ((n = read(0, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || core_outfile_write(s->saved, buf, (size_t)n))
				return cli_fail(who, -2, "cannot save stdin for the second run: %s",
						strerror(errno));
		}
		lseek(s->saved, 0, SEEK_SET);
		dup2(s->saved, 0);
		return 0;
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return cli_fail(who, -2, "cannot create a pipe for stdin: %s", strerror(errno));
	s->tee = fork();
	if (s->tee < 0)
		return cli_fail(who, -2, "cannot fork to stream stdin: %s", strerror(errno));
	if (s->tee == 0) {
		close(fds[0]);
		stream(s->saved, fds[1]);
	}
	close(fds[1]);
	dup2(fds[0], 0);	/* without close-on-exec: the first run's stdin */
	close(fds[0]);
	return 0;
}

void cpi_stdin_second(struct cpi_stdin *s)
{
	if (s->tee > 0) {
		/* The first run is over: what it could read is in the copy. */
		kill(s->tee, SIGTERM);
		while (waitpid(s->tee, NULL, 0) < 0 && errno == EINTR)
			;
		s->tee = 0;
	}
	if (s->saved < 0)
		return;
	lseek(s->saved, 0, SEEK_SET);
	dup2(s->saved, 0);
}
