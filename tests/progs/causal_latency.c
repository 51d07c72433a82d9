/*
 * causal_latency - requests through a pipe, with witch.h: the main thread
 * issues a request (COZ_BEGIN), a worker reads it, works on it and
 * completes it (COZ_END). The pipe is a blocking channel witch does not
 * interpose, so the program marks it with COZ_CATCH_UP (before waking the
 * worker) and COZ_PRE_BLOCK / COZ_POST_BLOCK (around the blocking read).
 *
 *   causal_latency [REQUESTS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "../../include/witch.h"

static int fds[2];
static long done_sum;

__attribute__((noinline)) static void work(long n)
{
	for (volatile long x = 0; x < n; x++) {}	/* latency: work line */
}

static void *worker(void *arg)
{
	long req;

	(void)arg;
	for (;;) {
		ssize_t n;

		COZ_PRE_BLOCK();
		n = read(fds[0], &req, sizeof(req));
		COZ_POST_BLOCK(1);
		if (n != sizeof(req) || req < 0)
			break;
		work(300000);
		done_sum += req;
		COZ_END("request");
		COZ_PROGRESS_NAMED("served");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000, i, stop = -1;
	pthread_t th;

	if (pipe(fds) < 0)
		return 1;
	pthread_create(&th, NULL, worker, NULL);
	for (i = 0; i < n; i++) {
		COZ_BEGIN("request");
		COZ_CATCH_UP();
		if (write(fds[1], &i, sizeof(i)) != sizeof(i))
			return 1;
		work(150000);
	}
	if (write(fds[1], &stop, sizeof(stop)) != sizeof(stop))
		return 1;
	pthread_join(th, NULL);
	printf("%ld requests, sum %ld\n", n, done_sum);
	return 0;
}
