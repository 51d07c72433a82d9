/*
 * One function, fill(), called from two lines of main(): the stores of the
 * first call are overwritten by overwrite() before anyone reads them (dead);
 * those of the second call are read by sum() (used). Only calling contexts
 * tell the two apart. put() is inlined into fill().
 */
#include <stdio.h>
#include <stdlib.h>

#define N (256 * 1024)

static int p[N], q[N];

/* Inlined into fill(): the report shows it as a frame of its own. */
static inline __attribute__((always_inline)) void put(int *a, long i, int v)
{
	a[i] = v; /* PUT_LINE */
}

__attribute__((noipa)) static void fill(int *a, long n, int v)
{
	for (long i = 0; i < n; i++)
		put(a, i, v); /* FILL_CALL */
}

__attribute__((noipa)) static void overwrite(int *a, long n, int v)
{
	for (long i = 0; i < n; i++)
		a[i] = v + (int)i;
}

__attribute__((noipa)) static long sum(const int *a, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += a[i];
	return s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3000;
	long s = 0;

	for (int r = 0; r < reps; r++) {
		fill(p, N, r); /* DEAD_CALL */
		overwrite(p, N, r);
		fill(q, N, r); /* LIVE_CALL */
		s += sum(p, N) + sum(q, N);
	}
	printf("%ld\n", s);
	return 0;
}
