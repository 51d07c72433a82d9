/*
 * Redundant and fresh loads in equal measure, for comparing LoadCraft with
 * LoadSpy where timer samples are unbiased: sum_same() reads an array that
 * never changes (every load after the first pass returns the bytes loaded
 * before), sum_fresh() reads an array rewritten before each pass (never
 * redundant). Both run identical code on arrays larger than the last-level
 * cache, so every byte loaded costs the same time.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (8 * 1024 * 1024)

static int same[N], fresh[N];

#define SUM(name)                                                         \
	__attribute__((noipa)) static long name(const int *p, long n)     \
	{                                                                 \
		long s = 0;                                               \
		for (long i = 0; i < n; i++)                              \
			s += p[i];                                        \
		return s;                                                 \
	}

SUM(sum_same)
SUM(sum_fresh)

__attribute__((noipa)) static void refill(int *p, long n, int v)
{
	for (long i = 0; i < n; i++)
		p[i] = v + (int)i;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 80;
	long s = 0;

	for (long i = 0; i < N; i++)
		same[i] = (int)(i * 7);
	for (int r = 0; r < reps; r++) {
		refill(fresh, N, r);
		s += sum_same(same, N);
		s += sum_fresh(fresh, N);
	}
	printf("%ld\n", s);
	return 0;
}
