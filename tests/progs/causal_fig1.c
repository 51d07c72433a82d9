/*
 * causal_fig1 - COZ's Figure 1, in rounds: each round main starts two
 * threads, one running a() and one b(), and joins both; a() runs 5 % longer
 * than b(). Each round is a progress point (the Debian coz.h: the ABI test).
 * Speeding up a() by any amount can make the program at most ~4.8 % faster
 * (then b() is the longer one); speeding up b() cannot help at all.
 *
 *   causal_fig1 [ROUNDS [A_PERCENT [ROUND_MS [pin]]]]
 *     A_PERCENT: a()'s work in % (100: as in the figure; 50: a() halved)
 *     ROUND_MS: b()'s CPU time (default 5 ms)
 *     pin: a() on CPU 0, b() on CPU 1 (a new thread starts on its
 *       creator's CPU; on a busy machine short threads may stay there)
 */
#include <coz.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal_calib.h"

static long a_iters, b_iters;

__attribute__((noinline)) static void a_loop(long n)
{
	for (volatile long x = 0; x < n; x++) {}	/* fig1: line a */
}

__attribute__((noinline)) static void b_loop(long n)
{
	for (volatile long y = 0; y < n; y++) {}	/* fig1: line b */
}

static void *a(void *arg)
{
	(void)arg;
	a_loop(a_iters);
	return NULL;
}

static void *b(void *arg)
{
	(void)arg;
	b_loop(b_iters);
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400, pct = argc > 2 ? atol(argv[2]) : 100, r;
	double ms = argc > 3 ? atof(argv[3]) : 5;
	int pin = argc > 4 && !strcmp(argv[4], "pin");
	pthread_attr_t attr_a, attr_b;
	cpu_set_t cpus;

	pthread_attr_init(&attr_a);
	pthread_attr_init(&attr_b);
	if (pin) {
		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		pthread_attr_setaffinity_np(&attr_a, sizeof(cpus), &cpus);
		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		pthread_attr_setaffinity_np(&attr_b, sizeof(cpus), &cpus);
	}

	b_iters = (long)(ms * 1e6 / calib_ns_per_iter(b_loop, 200000));
	a_iters = (long)(ms * 1e6 * 1.05 * pct / 100 / calib_ns_per_iter(a_loop, 200000));
	for (r = 0; r < rounds; r++) {
		pthread_t ta, tb;

		pthread_create(&ta, &attr_a, a, NULL);
		pthread_create(&tb, &attr_b, b, NULL);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		COZ_PROGRESS;
	}
	printf("%ld rounds\n", rounds);
	return 0;
}
