/*
 * Silent stores: out[i] += in[i] * k where 90 % of in[] is zero (in aligned
 * blocks of 8, so vector stores are silent as a whole) rewrites the value
 * already there. stamp() stores fresh values every time: never silent.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (256 * 1024)

static int in[N], out[N], fresh[N];

__attribute__((noipa)) static void axpy(int *o, const int *x, long n, int k)
{
	for (long i = 0; i < n; i++)
		o[i] += x[i] * k; /* SILENT_SITE */
}

__attribute__((noipa)) static void stamp(int *o, long n, int base)
{
	for (long i = 0; i < n; i++)
		o[i] = base + (int)i; /* FRESH_SITE */
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3000;
	long s = 0;

	for (long i = 0; i < N; i++)
		in[i] = (i / 8) % 10 == 0 ? (int)i : 0;
	for (int r = 0; r < reps; r++) {
		axpy(out, in, N, 3);
		stamp(fresh, N, r * 7);
		s += out[r % N] + fresh[(r * 13) % N];
	}
	printf("%ld\n", s);
	return 0;
}
