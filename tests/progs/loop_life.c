/*
 * Threads, forks and memory over a run, for witch spy --tool=loop's
 * per-thread state:
 *
 *   loop_life forkthread    a thread scans and is joined, the process
 *                           forks, and the child scans in a new thread
 *   loop_life forkmid       the parent forks in the middle of an
 *                           iteration of `loop: outer`, whose iterations
 *                           read the table 3 times; the child only exits
 *   loop_life fresh K       K scans, one after another with no loop
 *                           around them, each of a fresh 64 KiB mapping
 *   loop_life pool K        K threads one after another, each summing
 *                           16 MiB once
 *   loop_life signal K      `loop: rounds` (K iterations) runs a scan in
 *                           each, in its own frame, while a CPU-time timer
 *                           interrupts it every millisecond with a handler
 *                           that runs `loop: handler`; how many signals came
 *                           goes to stderr
 *
 * The scan (`loop: scan`) looks for each of 50 values in a table of 4096
 * ints: it re-reads the table.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))
#define N 4096			/* ints: 16 KiB */
#define POOL_INTS (1 << 22)	/* 16 MiB */

static volatile long sink;

NOIPA static long scan(const int *a)
{
	long found = 0;

	for (int j = 0; j < 50; j++) /* loop: scan */
		for (int i = 0; i < N; i++)
			if (a[i] == j * 7 + 1) {
				found++;
				break;
			}
	return found;
}

static int *fresh_table(void)
{
	int *a = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (int i = 0; i < N; i++)
		a[i] = 2 * i;
	return a;		/* kept mapped: the next one lies elsewhere */
}

static int *table;

static void *scanner(void *arg)
{
	(void)arg;
	sink = scan(table);
	return NULL;
}

static void *summer(void *arg)
{
	const int *a = arg;
	long s = 0;

	for (long i = 0; i < POOL_INTS; i++)
		s += a[i];
	sink = s;
	return NULL;
}

static void in_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg) || pthread_join(t, NULL)) {
		fprintf(stderr, "loop_life: no thread\n");
		exit(1);
	}
}

NOIPA static int wait_child(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

NOIPA static long outer(int iters)
{
	long s = 0;

	for (int r = 0; r < iters; r++) { /* loop: outer */
		for (int k = 0; k < 3; k++)
			for (int i = 0; i < N; i++)
				s += ((volatile int *)table)[i];
		if (r == iters - 1) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(0);
			if (wait_child(pid))
				return -1;
		}
	}
	return s;
}

static volatile int handler_table[64];
static volatile long handler_sum;
static volatile sig_atomic_t signals;

static void on_prof(int sig)
{
	(void)sig;
	signals++;
	for (int i = 0; i < 64; i++) /* loop: handler */
		handler_sum += handler_table[i];
}

/* The scan inline, in this frame: where the timer strikes. */
NOIPA static long rounds(long k)
{
	struct itimerval every = { { 0, 1000 }, { 0, 1000 } }, stop = { { 0, 0 }, { 0, 0 } };
	long found = 0;

	signal(SIGPROF, on_prof);
	setitimer(ITIMER_PROF, &every, NULL);
	for (long j = 0; j < k; j++) /* loop: rounds */
		for (int i = 0; i < N; i++) /* loop: each */
			if (((volatile int *)table)[i] == (int)(j * 7 + 1)) {
				found++;
				break;
			}
	setitimer(ITIMER_PROF, &stop, NULL);
	signal(SIGPROF, SIG_IGN);	/* one still pending goes unhandled */
	fprintf(stderr, "%d signals\n", (int)signals);
	return found;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long k = argc > 2 ? atol(argv[2]) : 0;

	table = fresh_table();
	if (!strcmp(mode, "forkthread")) {
		pid_t pid;

		in_thread(scanner, NULL);
		pid = fork();
		if (pid == 0) {
			in_thread(scanner, NULL);
			printf("child found %ld\n", sink);
			return 0;
		}
		printf("parent found %ld, child exit %d\n", sink, wait_child(pid));
	} else if (!strcmp(mode, "forkmid")) {
		printf("sum %ld\n", outer(4));
	} else if (!strcmp(mode, "fresh") && k > 0) {
		long found = 0;

		while (k-- > 0)
			found += scan(fresh_table());
		printf("found %ld\n", found);
	} else if (!strcmp(mode, "pool") && k > 0) {
		int *a = calloc(POOL_INTS, sizeof(int));

		if (!a)
			return 1;
		while (k-- > 0)
			in_thread(summer, a);
		printf("sum %ld\n", sink);
	} else if (!strcmp(mode, "signal") && k > 0) {
		printf("found %ld\n", rounds(k));
	} else {
		fprintf(stderr, "usage: loop_life forkthread|forkmid|fresh K|pool K|signal K\n");
		return 2;
	}
	return 0;
}
