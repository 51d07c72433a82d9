/*
 * causal_calib.h - for the causal validation programs: the CPU time one
 * iteration of a loop takes. Loops that look alike can differ by half in
 * speed (alignment, store forwarding); the programs size their loops in
 * time, not iterations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * Best of 7 runs of fn(n), in ns per iteration. Under CAUSAL_CALIB_FILE,
 * the value the file holds for `name` ("NAME NS" lines), measured and
 * appended to it if absent: runs that are timed against each other
 * (bench/causal) then do the same work. This VM's cores change speed by up
 * to 2x for tenths of a second; each run measuring its own made the work
 * of two runs differ by as much.
 */
static double calib_ns_per_iter(const char *name, void (*fn)(long), long n)
{
	const char *path = getenv("CAUSAL_CALIB_FILE");
	double best = 1e300, v;
	char key[64];
	FILE *f;
	int i;

	if (path && (f = fopen(path, "r"))) {
		while (fscanf(f, "%63s %lf", key, &v) == 2) {
			if (!strcmp(key, name)) {
				fclose(f);
				return v;
			}
		}
		fclose(f);
	}
	for (i = 0; i < 7; i++) {
		double t0 = calib_cpu_ns(), t;

		fn(n);
		t = calib_cpu_ns() - t0;
		if (t < best)
			best = t;
	}
	if (path && (f = fopen(path, "a"))) {
		fprintf(f, "%s %.17g\n", name, best / n);
		fclose(f);
	}
	return best / n;
}
