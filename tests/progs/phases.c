/*
 * Two phases of equal native time: one sweeps a large array with stores
 * (a watched page there faults on every element), one computes in
 * registers only (no access to sample, nothing to watch). A sampler that
 * follows the program's own time sees both alike; one that follows CPU
 * time including witch's faults sees the sweep far more.
 *   phases calibrate      prints the spin iterations that take as long as
 *                         one sweep, natively
 *   phases REPS SPIN      runs REPS rounds of sweep + SPIN iterations and
 *                         prints its CPU seconds on stderr
 * Each round spins between SPIN/2 and 3*SPIN/2 iterations, SPIN on
 * average: rounds of one length (0.5 ms here) divide the kernel's 4 ms
 * tick, which the CPU-time timer fires on, so run after run the samples
 * landed in the same phase for long stretches (the sweep's share came out
 * 0.34-0.60; with lengths drawn, 0.47-0.51 in six runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (1 << 20)

int array[N];	/* not static: the stores must stay */

__attribute__((noipa, optimize("no-tree-vectorize"))) static void sweep(int v)
{
	for (int i = 0; i < N; i++)
		array[i] = v;
}

__attribute__((noipa)) static unsigned long spin(long n, unsigned long x)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long x = 1, draw = 1;

	if (argc == 2) {
		/* Best of several: the other core may be busy. */
		double sw = 1e9, sp = 1e9;
		long n = 1000000;

		for (int k = 0; k < 7; k++) {
			double t0 = cpu_s(), t1, t2;

			sweep(k);
			t1 = cpu_s();
			x = spin(n, x);
			t2 = cpu_s();
			sw = t1 - t0 < sw ? t1 - t0 : sw;
			sp = t2 - t1 < sp ? t2 - t1 : sp;
		}
		printf("%ld\n", (long)(n * sw / sp) + (long)(x & 1));
		return 0;
	}
	int reps = argc > 1 ? atoi(argv[1]) : 1000;
	long n = argc > 2 ? atol(argv[2]) : 1000000;

	for (int r = 0; r < reps; r++) {
		sweep(r);
		draw = draw * 6364136223846793005UL + 1;
		x = spin(n / 2 + (long)((draw >> 33) % (unsigned long)(n > 0 ? n : 1)), x);
	}
	printf("%lu\n", x & 0xff);
	fprintf(stderr, "%.3f\n", cpu_s());
	return 0;
}
