/*
 * Redundant calls to pow (RVN's bwaves case): a loop of N iterations adds
 * up pow(x, 0.75), where x = base[i / 1000] changes only every 1000
 * iterations.
 *
 *   rvn_pow bad|fixed [N]
 *
 * bad: pows() calls pow every iteration (the marked line): 999 calls in
 * 1000 compute everything inside pow again from the same loaded base.
 * fixed: pows_memo() remembers the last base and its power and calls pow
 * only when the base changes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))
#define RUN 1000

NOIPA static double pows(const double *base, long n)
{
	double s = 0;

	for (long i = 0; i < n; i++) {
		long k = i / RUN;
		double y = pow(base[k], 0.75); /* rvn: marked */

		s += y;
	}
	return s;
}

NOIPA static double pows_memo(const double *base, long n)
{
	double s = 0, last = -1, y = 0;

	for (long i = 0; i < n; i++) {
		double x = base[i / RUN];

		if (x != last) {
			y = pow(x, 0.75);
			last = x;
		}
		s += y;
	}
	return s;
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && strcmp(argv[1], "bad") == 0;
	long n = argc > 2 ? atol(argv[2]) : 500000;
	double *base;

	if (argc < 2 || (!bad && strcmp(argv[1], "fixed") != 0) || n < 0) {
		fprintf(stderr, "usage: %s bad|fixed [N]\n", argv[0]);
		return 2;
	}
	base = malloc((n / RUN + 1) * sizeof *base);
	if (!base)
		return 1;
	for (long k = 0; k <= n / RUN; k++)
		base[k] = 1.5 + 0.37 * (double)k;
	printf("%.17g\n", bad ? pows(base, n) : pows_memo(base, n));
	free(base);
	return 0;
}
