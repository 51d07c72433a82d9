/*
 * causal_calib.h - for the causal validation programs: the CPU time one
 * iteration of a loop takes. Loops that look alike can differ by half in
 * speed (alignment, store forwarding); the programs size their loops in
 * time, not iterations.
 */
#include <time.h>

static double calib_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in ns: the wall time a thread took, waits included. */
static inline double calib_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Best of 7 runs of fn(n), in ns per iteration. */
static double calib_ns_per_iter(void (*fn)(long), long n)
{
	double best = 1e300;
	int i;

	for (i = 0; i < 7; i++) {
		double t0 = calib_cpu_ns(), t;

		fn(n);
		t = calib_cpu_ns() - t0;
		if (t < best)
			best = t;
	}
	return best / n;
}
