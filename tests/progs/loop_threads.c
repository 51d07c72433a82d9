/*
 * Threads and a forked child, for witch spy --tool=loop's per-thread
 * read sets:
 *
 *   loop_threads threads|fork [N [M]]
 *
 * threads: two threads each sum a shared table of N values once (the
 * marked `loop: once` runs one pass: nothing is re-read within a thread,
 * whatever the other thread read), then each counts M wanted values by
 * scanning the table for each (`loop: scan`, re-reading it). fork: the
 * child does the scan and the parent waits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

static long n = 1000, m = 200;
static int *table;

NOIPA static long sum_once(void)
{
	long s = 0;

	for (long i = 0; i < n; i++) /* loop: once */
		s += table[i];
	return s;
}

NOIPA static long scan(long salt)
{
	long found = 0;

	for (long k = 0; k < m; k++) { /* loop: scan */
		int want = (int)((k * 7919 + salt) % (2 * n));

		for (long i = 0; i < n; i++)
			if (table[i] == want) {
				found++;
				break;
			}
	}
	return found;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	return (void *)(sum_once() + scan(id));
}

int main(int argc, char **argv)
{
	int fork_mode = argc > 1 && !strcmp(argv[1], "fork");
	pthread_t t[2];
	void *r[2];

	if (argc < 2 || (!fork_mode && strcmp(argv[1], "threads"))) {
		fprintf(stderr, "usage: loop_threads threads|fork [N [M]]\n");
		return 2;
	}
	if (argc > 2)
		n = atol(argv[2]);
	if (argc > 3)
		m = atol(argv[3]);
	table = malloc(sizeof(int) * (size_t)n);
	if (!table || n < 1 || m < 1)
		return 2;
	for (long i = 0; i < n; i++)
		table[i] = (int)(2 * i);
	if (fork_mode) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			printf("child %ld\n", scan(1));
			return 0;
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
		printf("parent %d\n", WEXITSTATUS(status));
		return 0;
	}
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	printf("%ld %ld\n", (long)r[0], (long)r[1]);
	return 0;
}
