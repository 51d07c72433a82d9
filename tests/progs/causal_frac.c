/*
 * causal_frac - one thread; each iteration spends a fraction F of its CPU
 * time on the hot line and the rest on the cold line, then visits a
 * progress point. Speeding up the hot line by s makes the program f*s
 * faster.
 *
 *   causal_frac [F [ITERATIONS]]   (F in [0, 1], default 0.5; 1 ms each)
 */
#include <coz.h>
#include <stdio.h>
#include <stdlib.h>

#include "causal_calib.h"

__attribute__((noinline)) static void hot(long n)
{
	for (volatile long x = 0; x < n; x++) {}	/* frac: hot line */
}

__attribute__((noinline)) static void cold(long n)
{
	for (volatile long y = 0; y < n; y++) {}	/* frac: cold line */
}

int main(int argc, char **argv)
{
	double f = argc > 1 ? atof(argv[1]) : 0.5;
	long n = argc > 2 ? atol(argv[2]) : 2000, i;
	long nh = (long)(1e6 * f / calib_ns_per_iter("frac.hot", hot, 200000));
	long nc = (long)(1e6 * (1 - f) / calib_ns_per_iter("frac.cold", cold, 200000));

	for (i = 0; i < n; i++) {
		hot(nh);
		cold(nc);
		COZ_PROGRESS;
	}
	printf("%ld iterations\n", n);
	return 0;
}
