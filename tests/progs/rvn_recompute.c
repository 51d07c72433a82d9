/*
 * A function called again on unchanged memory: the sum of (k + 1) / norm(v)
 * for k < M, where norm(v) sums the squares of the LEN doubles of v, which
 * nothing writes between the calls.
 *
 *   rvn_recompute bad|fixed [M [LEN]]
 *
 * bad: scale_bad() calls norm() for each of the M terms, and every call
 * after the first repeats every multiply and add of norm's loop (the
 * marked line) on the same loaded elements. fixed: scale_fixed() calls
 * norm() once, before its loop. LEN is 4 by default: a tool that keeps
 * only the last few numbers each instruction made (RVN thesis §2.5.2) finds
 * the repeats of a loop no longer than that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))
#define MAXLEN 4096

static double v[MAXLEN];

NOIPA static double norm(const double *a, long n)
{
	double s = a[0] * a[0];

	for (long i = 1; i < n; i++)
		s += a[i] * a[i]; /* rvn: marked */
	return s;
}

NOIPA static double scale_bad(long m, long len)
{
	double s = 0;

	for (long k = 0; k < m; k++)
		s += (double)(k + 1) / norm(v, len);
	return s;
}

NOIPA static double scale_fixed(long m, long len)
{
	double s = 0, nv = norm(v, len);

	for (long k = 0; k < m; k++)
		s += (double)(k + 1) / nv;
	return s;
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && strcmp(argv[1], "bad") == 0;
	long m = argc > 2 ? atol(argv[2]) : 500000;
	long len = argc > 3 ? atol(argv[3]) : 4;
	unsigned long x = 88172645463325252ul;

	if (argc < 2 || (!bad && strcmp(argv[1], "fixed") != 0) || len < 1 || len > MAXLEN) {
		fprintf(stderr, "usage: %s bad|fixed [M [LEN (1-%d)]]\n", argv[0], MAXLEN);
		return 2;
	}
	for (long i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (double)(x >> 11) / (1ul << 53);
	}
	printf("%.17g\n", bad ? scale_bad(m, len) : scale_fixed(m, len));
	return 0;
}
