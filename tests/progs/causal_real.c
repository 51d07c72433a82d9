/*
 * causal_real - a two-stage pipeline whose first stage's hot line can really
 * be made X % faster. The producer computes an item (the hot line) and
 * hands it to the consumer through a bounded queue (mutex and condition
 * variables); the consumer finishes it (the cold line, 75 % of the hot
 * line's CPU time) and visits the progress point. Throughput follows the slower
 * stage: speeding up the hot line by X % makes the program X % faster up to
 * 25 %, where the consumer becomes the bottleneck.
 *
 *   causal_real [X [ITEMS]]   (items of 2 ms, default 1000)
 *
 * Where the threads run decides the answer: on a VM one core may run a
 * third slower for seconds, and a slow consumer is the bottleneck (then
 * the hot line gains nothing); sharing one core, the two stages add up.
 * With CAUSAL_REAL_TRUTH=FILE the program appends what speeding up the hot
 * line by s could gain in this very run, from H, the wall time of all hot
 * line calls, and C, the CPU time of all cold line calls plus the time the
 * consumer waited for a core (/proc/thread-self/schedstat; under witch the
 * consumer's wall time holds the pauses of the virtual speedup): for s = 0,
 * 5, ..., 100 a line "s parallel shared waits" with parallel = 100 * (1 -
 * max((1 - s) H, C) / max(H, C)) (two cores), shared = 100 * s H / (H + C)
 * (one core between them) and waits = 100 * (H / the hot line's CPU time
 * - 1), how much longer the hot line took than it ran: the share of a core
 * it waited for.
 */
#include <coz.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "causal_calib.h"

#define QCAP 4

static long hot_iters, cold_iters, items;
static double hot_wall_ns, hot_cpu_ns, cold_cpu_ns;	/* CAUSAL_REAL_TRUTH */
static double consumer_waited_ns;
static long queue[QCAP], qhead, qlen;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;

__attribute__((noinline)) static void hot(long n)
{
	for (volatile long x = 0; x < n; x++) {}	/* real: hot line */
}

__attribute__((noinline)) static void cold(long n)
{
	for (volatile long y = 0; y < n; y++) {}	/* real: cold line */
}

/* Appends "s parallel shared waits" lines to PATH: see the comment at the top. */
static void write_truth(const char *path)
{
	double h = hot_wall_ns, c = cold_cpu_ns + consumer_waited_ns, m = h > c ? h : c;
	FILE *f = fopen(path, "a");
	int s;

	if (!f) {
		perror(path);
		exit(1);
	}
	for (s = 0; s <= 100; s += 5) {
		double sh = (1 - s / 100.0) * h;

		fprintf(f, "%d %.1f %.1f %.1f\n", s, m > 0 ? 100 * (1 - (sh > c ? sh : c) / m) : 0.0,
			h + c > 0 ? s * h / (h + c) : 0.0,
			hot_cpu_ns > 0 ? 100 * (h / hot_cpu_ns - 1) : 0.0);
	}
	fclose(f);
}

/* ns this thread has waited on a run queue, 0 if unknown */
static double waited_for_core_ns(void)
{
	unsigned long long run, wait;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (double)wait : 0;
}

static void *producer(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < items; i++) {
		double t0 = calib_wall_ns(), c0 = calib_cpu_ns();

		hot(hot_iters);
		hot_wall_ns += calib_wall_ns() - t0;
		hot_cpu_ns += calib_cpu_ns() - c0;
		pthread_mutex_lock(&lock);
		while (qlen == QCAP)
			pthread_cond_wait(&not_full, &lock);
		queue[(qhead + qlen++) % QCAP] = i;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long i, sum = 0;
	double t0;

	(void)arg;
	for (i = 0; i < items; i++) {
		pthread_mutex_lock(&lock);
		while (qlen == 0)
			pthread_cond_wait(&not_empty, &lock);
		sum += queue[qhead];
		qhead = (qhead + 1) % QCAP;
		qlen--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		t0 = calib_cpu_ns();
		cold(cold_iters);
		cold_cpu_ns += calib_cpu_ns() - t0;
		COZ_PROGRESS;
	}
	consumer_waited_ns = waited_for_core_ns();
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long x = argc > 1 ? atol(argv[1]) : 0;
	pthread_t p, c;
	void *sum;

	items = argc > 2 ? atol(argv[2]) : 1000;
	/* 2 ms per item in the producer, 1.5 ms in the consumer */
	hot_iters = (long)(2e6 * (100 - x) / 100 / calib_ns_per_iter("real.hot", hot, 200000));
	cold_iters = (long)(1.5e6 / calib_ns_per_iter("real.cold", cold, 200000));
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	if (getenv("CAUSAL_REAL_TRUTH"))
		write_truth(getenv("CAUSAL_REAL_TRUTH"));
	printf("%ld items, checksum %ld\n", items, (long)sum);
	return 0;
}
