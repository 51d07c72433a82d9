/*
 * No dead stores: every element written is read before it is written again.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (256 * 1024)

static long buf[N];

__attribute__((noipa)) static void produce(long *p, long n, long seed)
{
	for (long i = 0; i < n; i++)
		p[i] = seed ^ i;
}

__attribute__((noipa)) static long consume(const long *p, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += p[i] * 3;
	return s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3000;
	long s = 0;

	for (int r = 0; r < reps; r++) {
		produce(buf, N, r);
		s += consume(buf, N);
	}
	printf("%ld\n", s);
	return 0;
}
