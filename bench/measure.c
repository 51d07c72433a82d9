/*
 * measure - run a command, print "WALL_SECONDS MAX_RSS_KB EXIT" on stderr
 * (fd 3 if open): the wall time and the peak resident set of the command
 * and the children it waited for, from wait4(2).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out = fdopen(3, "w");

	if (argc < 2) {
		fprintf(stderr, "usage: measure PROGRAM [ARGS...]\n");
		return 2;
	}
	if (!out)
		out = stderr;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("measure: exec");
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return 2;
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(out, "%.4f %ld %d\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
