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
 */
#include <coz.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "causal_calib.h"

#define QCAP 4

static long hot_iters, cold_iters, items;
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

static void *producer(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < items; i++) {
		hot(hot_iters);
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
		cold(cold_iters);
		COZ_PROGRESS;
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long x = argc > 1 ? atol(argv[1]) : 0;
	pthread_t p, c;
	void *sum;

	items = argc > 2 ? atol(argv[2]) : 1000;
	/* 2 ms per item in the producer, 1.5 ms in the consumer */
	hot_iters = (long)(2e6 * (100 - x) / 100 / calib_ns_per_iter(hot, 200000));
	cold_iters = (long)(1.5e6 / calib_ns_per_iter(cold, 200000));
	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	printf("%ld items, checksum %ld\n", items, (long)sum);
	return 0;
}
