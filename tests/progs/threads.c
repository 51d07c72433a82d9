/*
 * threads [many]: four threads, each with a dead-store site of its own
 * (site0..site3 overwritten by overwrite()); with "many", 300 short-lived
 * threads one after another, four at a time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 16)

static int data[4][N];

#define SITE(k)                                                            \
	__attribute__((noipa)) static void site##k(int *a, int v)          \
	{                                                                  \
		for (int i = 0; i < N; i++)                                \
			a[i] = v;                                          \
	}
SITE(0)
SITE(1)
SITE(2)
SITE(3)

__attribute__((noipa)) static void overwrite(int *a, int v)
{
	for (int i = 0; i < N; i++)
		a[i] = v + i;
}

static void (*const sites[4])(int *, int) = { site0, site1, site2, site3 };

static void *worker(void *arg)
{
	long k = (long)arg, s = 0;

	for (int r = 0; r < 6000; r++) {
		sites[k](data[k], r);
		overwrite(data[k], r);
		s += data[k][r % N];
	}
	return (void *)s;
}

static void *tiny(void *arg)
{
	long k = (long)arg;

	for (int i = 0; i < 1000; i++)
		data[k % 4][i] = (int)k;
	return (void *)(k * 2);
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	long total = 0;

	if (argc > 1 && !strcmp(argv[1], "many")) {
		for (long i = 0; i < 300; i += 4) {
			for (long j = 0; j < 4; j++)
				pthread_create(&t[j], NULL, tiny, (void *)(i + j));
			for (long j = 0; j < 4; j++) {
				void *r;

				pthread_join(t[j], &r);
				total += (long)r;
			}
		}
		printf("many: %ld\n", total);
		return 0;
	}
	for (long k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	for (long k = 0; k < 4; k++) {
		void *r;

		pthread_join(t[k], &r);
		total += (long)r;
	}
	printf("%ld\n", total);
	return 0;
}
