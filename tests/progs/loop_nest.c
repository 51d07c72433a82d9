/*
 * loop_nest.c - loops of a known shape, for witch spy --tool=loop's loop
 * map (tests/e2e/80-loop-cli.t): nest() holds an outer loop around an
 * inner one (the line marked NEST-OUTER and NEST-INNER), single() one
 * loop alone (SINGLE). Each runs: the map holds only loops that ran.
 * Prints the sums, so that the loop run's output can be compared.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

static volatile long data[64];	/* volatile: no loop unrolled or removed */

NOIPA long nest(long n, long m)
{
	long s = 0;

	for (long i = 0; i < n; i++)		/* NEST-OUTER */
		for (long j = 0; j < m; j++)	/* NEST-INNER */
			s += data[(i + j) % 64];
	return s;
}

NOIPA long single(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)		/* SINGLE */
		s += data[i % 64] * 3;
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20;

	for (long i = 0; i < 64; i++)
		data[i] = i;
	printf("%ld %ld\n", nest(n, n), single(n));
	return 0;
}
