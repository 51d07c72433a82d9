/*
 * Loops with known trip counts, for witch spy --tool=loop's exact counts:
 *
 *   loop_trips [CALLS]
 *
 * with CALLS (default 3) calls of nested(): an outer loop of 7 iterations
 * around an inner one of 5 (per call: 1 and 7 invocations, 7 and 35
 * iterations); caller() once: a loop of 4 iterations calling callee(),
 * whose loop runs 6 iterations (4 invocations, 24 iterations); once():
 * a loop that runs 1 iteration; and rec(3): a loop of 2 iterations in a
 * function that calls itself from it (15 invocations, 30 iterations).
 * Trip counts come from globals the compiler cannot see through, so that
 * it keeps the loops.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

volatile long n_outer = 7, n_inner = 5, n_caller = 4, n_callee = 6, n_once = 1, n_rec = 2;
static long a[64];
static long sink;

NOIPA static long nested(void)
{
	long s = 0, no = n_outer, ni = n_inner;

	for (long i = 0; i < no; i++) /* loop: outer */
		for (long j = 0; j < ni; j++) /* loop: inner */
			s += a[(i * ni + j) & 63];
	return s;
}

NOIPA static long callee(long k)
{
	long s = 0, n = n_callee;

	for (long j = 0; j < n; j++) /* loop: callee */
		s += a[(k + j) & 63];
	return s;
}

NOIPA static long caller(void)
{
	long s = 0, n = n_caller;

	for (long k = 0; k < n; k++) /* loop: caller */
		s += callee(k);
	return s;
}

NOIPA static long once(void)
{
	long s = 0, i = 0;

	do {
		s += a[i]; /* loop: once (its first line) */
		i++;
	} while (i < n_once);
	return s;
}

NOIPA static long rec(long d)
{
	long s = 0, n = n_rec;

	for (long i = 0; i < n; i++) { /* loop: rec */
		s += a[(d + i) & 63];
		if (d > 0)
			s += rec(d - 1);
	}
	return s;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 3;

	for (long i = 0; i < 64; i++)
		a[i] = i;
	for (long c = 0; c < calls; c++) /* loop: calls */
		sink += nested();
	sink += caller();
	sink += once();
	sink += rec(3);
	printf("%ld\n", sink);
	return 0;
}
