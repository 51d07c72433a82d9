/*
 * cpi_runs.c - a program for witch cpi's two runs (tests/e2e/62-cpi-cli.t):
 * reads a number from stdin and sums that many numbers in a loop of its
 * own, prints the sum, exits with status 3.
 *
 *   cpi_runs            as above
 *   cpi_runs family     also forks a child and starts a thread, each of
 *                       which runs the loop too
 *   cpi_runs differ     runs differently with witch's sampler preloaded:
 *                       another exit status, one more thread
 *   cpi_runs diverge    with witch's sampler preloaded, runs its loop in
 *                       another function, which the counting run never runs
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long n;

__attribute__((noipa)) static long sum(long count)
{
	long s = 0;

	for (long i = 0; i < count; i++)	/* cpi: sum loop */
		s += i ^ (s >> 3);
	return s;
}

/* sum()'s loop, as another function's code. */
__attribute__((noipa)) static long elsewhere(long count)
{
	long s = 1;

	for (long i = 0; i < count; i++)
		s += i ^ (s >> 5);
	return s;
}

static void *thread(void *arg)
{
	(void)arg;
	return (void *)sum(n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *preload = getenv("LD_PRELOAD");
	int sampled = preload && strstr(preload, "libwitch");
	pthread_t t;
	void *r;

	if (scanf("%ld", &n) != 1)
		n = 0;
	printf("%ld\n", !strcmp(mode, "diverge") && sampled ? elsewhere(n) : sum(n));
	fflush(stdout);
	if (!strcmp(mode, "family") || (!strcmp(mode, "differ") && sampled)) {
		pthread_create(&t, NULL, thread, NULL);
		pthread_join(t, &r);
	}
	if (!strcmp(mode, "family")) {
		pid_t pid = fork();

		if (pid == 0)
			_exit((int)(sum(n) & 1));
		waitpid(pid, NULL, 0);
	}
	return !strcmp(mode, "differ") && sampled ? 4 : 3;
}
