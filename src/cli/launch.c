#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/launch.h"
#include "cli/oneline.h"

static volatile pid_t child;

/* A user's Ctrl-C reaches the child through the terminal; a kill aimed at
 * witch alone is passed on, so the child ends the way the user asked. */
static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int launch_and_wait(const char *path, char **argv, const char *who)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	int status, err_pipe[2], err = 0;
	struct sigaction sa;
	size_t i;
	ssize_t n;

	/* The child reports a failed exec through a close-on-exec pipe. */
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: cannot create a pipe: %s\n", who, strerror(errno));
		return -1;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "%s: cannot fork: %s\n", who, strerror(errno));
		return -1;
	}
	if (child == 0) {
		close(err_pipe[0]);
		execv(path, argv);
		err = errno;
		if (write(err_pipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(err_pipe[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	n = read(err_pipe[0], &err, sizeof(err));
	close(err_pipe[0]);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (n == sizeof(err)) {
		cli_fail(who, -1, "cannot run %s: %s", path, strerror(err));
		return -1;
	}
	return status;
}

int launch_quietly(const char *path, char **argv, const char *who)
{
	int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC), status;

	if (out < 0 || err < 0 || null < 0) {
		close(out);
		close(err);
		close(null);
		return cli_fail(who, -1, "cannot redirect the counting run's output: %s",
				strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	dup2(null, 1);
	dup2(null, 2);
	status = launch_and_wait(path, argv, who);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	close(null);
	return status < 0 ? cli_fail(who, -1, "cannot run %s under Valgrind", path) : status;
}

void exit_like(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = { 0, 0 };
		sigset_t set;

		/* Die of the same signal, without a second core dump. */
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		exit(128 + sig);
	}
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
