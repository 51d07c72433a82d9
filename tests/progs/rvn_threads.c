/*
 * rvn_threads - value numbering is per thread: two threads each compute
 * the sum of squares of one shared, unchanging array once (no thread
 * repeats itself: nothing redundant at the marked line), then the main
 * thread computes it twice (the second time redundant).
 *
 *   rvn_threads [N [serial]]    N elements (default 64)
 *
 * serial: the second thread starts after the first has ended, and gets
 * its ThreadId from Valgrind again: still another thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static double a[4096];
static long n = 64;
static volatile double sink;

__attribute__((noipa)) static double squares(void)
{
	double s = 0;

	for (long i = 0; i < n; i++)
		s += a[i] * a[i]; /* rvn: marked */
	return s;
}

static void *worker(void *arg)
{
	(void)arg;
	sink = squares();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		n = atol(argv[1]);
	if (n < 1 || n > 4096) {
		fprintf(stderr, "usage: rvn_threads [N [serial]], N from 1 to 4096\n");
		return 2;
	}
	for (long i = 0; i < n; i++)
		a[i] = (double)(i % 17) + 0.5;
	if (argc > 2) {
		for (int k = 0; k < 2; k++) {
			pthread_create(&t[k], NULL, worker, NULL);
			pthread_join(t[k], NULL);
		}
	} else {
		for (int k = 0; k < 2; k++)
			pthread_create(&t[k], NULL, worker, NULL);
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
	}
	printf("%.1f %.1f\n", squares(), squares());
	return 0;
}
