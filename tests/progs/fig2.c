/*
 * WITCH Figure 2: three dead-store sites whose dead bytes are in a 3:2:1
 * ratio (arrays a, b, x of 3M, 2M and 1M ints). Each array is filled, then
 * overwritten before any read (the first fill is dead), then read (the
 * second fill is used). The three sites run identical code on arrays far
 * larger than the last-level cache (32 MiB here), so every byte costs the
 * same time and time-based samples see them in proportion to their bytes,
 * whatever the other core does to the shared cache. (With arrays of a few
 * MiB, a busy neighbour shifted the shares by up to 7 points.)
 */
#include <stdio.h>
#include <stdlib.h>

#define M (8 * 1024 * 1024)

static int a[3 * M], b[2 * M], x[M];

#define FILL(name)                                                        \
	__attribute__((noipa)) static void name(int *p, long n, int v)    \
	{                                                                 \
		for (long i = 0; i < n; i++)                              \
			p[i] = v;                                         \
	}

FILL(dead_a)
FILL(dead_b)
FILL(dead_x)
FILL(live_a)
FILL(live_b)
FILL(live_x)

__attribute__((noipa)) static long sum(const int *p, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += p[i];
	return s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 40;
	long s = 0;

	for (int r = 0; r < reps; r++) {
		dead_a(a, 3 * M, r);
		live_a(a, 3 * M, r + 1);
		dead_b(b, 2 * M, r);
		live_b(b, 2 * M, r + 1);
		dead_x(x, M, r);
		live_x(x, M, r + 1);
		s += sum(a, 3 * M) + sum(b, 2 * M) + sum(x, M);
	}
	printf("%ld\n", s);
	return 0;
}
