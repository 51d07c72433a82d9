/*
 * progress.c - a program that computes for a given wall-clock time, for
 * the progress line's test (tests/e2e/85-progress.t): whatever Valgrind's
 * speed, the run lasts as long as the test needs. Prints a line on stdout
 * and one on stderr, computes for SECONDS (argv[1], default 1.5), prints
 * its result on both and exits with status 5.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.5, end = now() + seconds;
	static long v[4096];
	long s = 0;

	printf("start\n");
	fflush(stdout);
	fprintf(stderr, "working\n");
	/* The clock every 100,000 steps: most of the time goes to the loop. */
	while (now() < end)
		for (long i = 0; i < 100000; i++) {
			v[i & 4095] += i;
			s += v[(i * 7) & 4095] >> 3;
		}
	printf("done %d\n", s != 0);
	fprintf(stderr, "end\n");
	return 5;
}
