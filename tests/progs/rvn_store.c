/*
 * Redundant stores (RVN's hmmer mc[k] case): mc[k] = mpp[k-1] + tpmm[k-1]
 * for k = 1..M, around a call to other(), which never touches mc.
 *
 *   rvn_store bad|fixed [REPS]
 *
 * bad: scores_bad() stores the same register to mc[k] before and after
 * the call; the second store (the marked line) writes the value number
 * that mc[k] already holds, every time. fixed: scores_fixed() stores once.
 * main() refills mpp and tpmm with new numbers before each of the REPS
 * passes, so no pass stores again what the one before stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))
#define M 4096

static long mc[M + 1], mpp[M], tpmm[M], trace[64];

NOIPA static void other(long v)
{
	trace[v & 63] += v;
}

NOIPA static void scores_bad(long m)
{
	for (long k = 1; k <= m; k++) {
		long v = mpp[k - 1] + tpmm[k - 1];

		mc[k] = v;
		other(v);
		mc[k] = v; /* rvn: marked */
	}
}

NOIPA static void scores_fixed(long m)
{
	for (long k = 1; k <= m; k++) {
		long v = mpp[k - 1] + tpmm[k - 1];

		mc[k] = v;
		other(v);
	}
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && strcmp(argv[1], "bad") == 0;
	long reps = argc > 2 ? atol(argv[2]) : 400;
	unsigned long x = 88172645463325252ul;
	long s = 0;

	if (argc < 2 || (!bad && strcmp(argv[1], "fixed") != 0)) {
		fprintf(stderr, "usage: %s bad|fixed [REPS]\n", argv[0]);
		return 2;
	}
	for (long r = 0; r < reps; r++) {
		for (long k = 0; k < M; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			mpp[k] = (long)(x >> 34);
			tpmm[k] = (long)(x & 0x3fffffff);
		}
		(bad ? scores_bad : scores_fixed)(M);
		s += mc[1 + r * 97 % M];
	}
	for (long k = 0; k <= M; k++)
		s += mc[k] ^ k;
	for (long k = 0; k < 64; k++)
		s += trace[k];
	printf("%ld\n", s);
	return 0;
}
