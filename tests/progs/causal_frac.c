/*
 * causal_frac - one thread; each iteration spends a fraction F of its CPU
 * time on the hot line and the rest on the cold line, then visits a
 * progress point. Speeding up the hot line by s makes the program f*s
 * faster.
 *
 *   causal_frac [F [ITERATIONS [MS]]]   (F in [0, 1], default 0.5; MS ms
 *                                        each, default 1)
 *
 * With CAUSAL_FRAC_VISITS=FILE, the time of each visit (CLOCK_MONOTONIC,
 * ns) is written to FILE at the end, a line each.
 *
 * With CAUSAL_FRAC_SPLIT=FILE, the share of the loop's CPU time the hot
 * line really took is appended to FILE: the truth is that share times s,
 * not F times s. F sizes the loops from a calibration at the start, and
 * this VM's cores change speed for seconds at a time: the share came out
 * 0.49-0.57 for F = 0.5 (by the samples on each line).
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
	double ms = argc > 3 ? atof(argv[3]) : 1;
	long nh = (long)(ms * 1e6 * f / calib_ns_per_iter("frac.hot", hot, 200000));
	long nc = (long)(ms * 1e6 * (1 - f) / calib_ns_per_iter("frac.cold", cold, 200000));

	const char *visits_path = getenv("CAUSAL_FRAC_VISITS");
	double *visits = visits_path ? calloc(n > 0 ? n : 1, sizeof(*visits)) : NULL;

	const char *split_path = getenv("CAUSAL_FRAC_SPLIT");
	double hot_ns = 0, cold_ns = 0, t0, t1, t2;

	if (visits_path && !visits) {
		perror("causal_frac");
		return 1;
	}
	for (i = 0; i < n; i++) {
		t0 = split_path ? calib_cpu_ns() : 0;
		hot(nh);
		t1 = split_path ? calib_cpu_ns() : 0;
		cold(nc);
		t2 = split_path ? calib_cpu_ns() : 0;
		hot_ns += t1 - t0;
		cold_ns += t2 - t1;
		COZ_PROGRESS;
		if (visits)
			visits[i] = calib_wall_ns();
	}
	if (visits) {
		FILE *out = fopen(visits_path, "w");

		if (!out) {
			perror(visits_path);
			return 1;
		}
		for (i = 0; i < n; i++)
			fprintf(out, "%.0f\n", visits[i]);
		fclose(out);
	}
	if (split_path) {
		FILE *out = fopen(split_path, "a");

		if (!out) {
			perror(split_path);
			return 1;
		}
		fprintf(out, "%.4f\n", hot_ns + cold_ns > 0 ? hot_ns / (hot_ns + cold_ns) : 0);
		fclose(out);
	}
	printf("%ld iterations\n", n);
	return 0;
}
