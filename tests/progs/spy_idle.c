/*
 * spy_idle [N]: N threads (3) that have run, all of them waiting, and
 * the main one: prints "ready" when they are, then waits for end of input, lets the threads
 * end, and prints "done". A test reads the memory of the process running
 * it in the meantime (tests/e2e/28-spy-memory.t).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS_MAX 16

static int wake[2];
static pthread_barrier_t started;

static void *worker(void *arg)
{
	long s = 0, i;
	char c;

	for (i = 0; i < 100000; i++)
		s += i * (long)arg;
	pthread_barrier_wait(&started);
	if (read(wake[0], &c, 1) != 1)
		return NULL;
	return (void *)s;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS_MAX];
	long n = argc > 1 ? atol(argv[1]) : 3, i;
	char buf[64];

	if (n < 0 || n > THREADS_MAX || pipe(wake) || pthread_barrier_init(&started, NULL, n + 1))
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	pthread_barrier_wait(&started);
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < n; i++)
		if (write(wake[1], "x", 1) != 1)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
