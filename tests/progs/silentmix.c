/*
 * Silent and fresh stores in equal measure, for comparing SilentCraft with
 * RedSpy where timer samples are unbiased: fill_same() rewrites an array
 * with the values it already holds, fill_fresh() writes values that change
 * every pass. Both run identical code on arrays larger than the last-level
 * cache, so every byte stored costs the same time.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (8 * 1024 * 1024)

static int same[N], fresh[N];

#define FILL(name)                                                        \
	__attribute__((noipa)) static void name(int *p, long n, int v)    \
	{                                                                 \
		for (long i = 0; i < n; i++)                              \
			p[i] = v + (int)i;                                \
	}

FILL(fill_same)
FILL(fill_fresh)

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 60;
	long s = 0;

	for (int r = 0; r < reps; r++) {
		fill_same(same, N, 7);
		fill_fresh(fresh, N, r);
		s += same[(r * 131) % N] + fresh[(r * 17) % N];
	}
	printf("%ld\n", s);
	return 0;
}
