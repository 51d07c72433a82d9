/*
 * share MODE [MS]: threads that share cache lines, and threads that do
 * not, each running MS milliseconds of its own CPU time (default 600):
 * a run takes as long whether the threads run side by side or take
 * turns on one core.
 *
 *   false   two threads increment adjacent counters of one line: false
 *           sharing at bump()
 *   heap    the same, the counters in a block from malloc
 *   padded  the same counters, each on a line of its own: nothing
 *   true    two threads increment one counter atomically: true sharing
 *           at bump_shared()
 *   table   four threads read one table, each summing into a line of
 *           its own: nothing (only reads are shared)
 *   one     the false mode's loop in the main thread alone
 *
 * Prints what each mode computed, which does not depend on timing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TABLE 4096
#define CHECK_EVERY 65536	/* iterations between looks at the clock */

struct padded {
	volatile long v;
	char pad[64 - sizeof(long)];
};

static volatile long adjacent[2] __attribute__((aligned(64)));
static struct padded apart[2] __attribute__((aligned(64)));
static struct padded shared_counter __attribute__((aligned(64)));
static long table[TABLE];
static struct padded sums[4] __attribute__((aligned(64)));
static long run_ns = 600000000L;

struct job {
	volatile long *counter;	/* false, heap, padded: this thread's */
	int id;
	long done;		/* iterations this thread made */
};

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noipa)) static long bump(volatile long *c)
{
	long start = cpu_ns(), n = 0;

	do {
		for (int i = 0; i < CHECK_EVERY; i++)
			(*c)++;
		n += CHECK_EVERY;
	} while (cpu_ns() - start < run_ns);
	return n;
}

__attribute__((noipa)) static long bump_shared(void)
{
	long start = cpu_ns(), n = 0;

	do {
		for (int i = 0; i < CHECK_EVERY; i++)
			__atomic_fetch_add(&shared_counter.v, 1, __ATOMIC_RELAXED);
		n += CHECK_EVERY;
	} while (cpu_ns() - start < run_ns);
	return n;
}

__attribute__((noipa)) static long sum_table(volatile long *sum)
{
	long start = cpu_ns(), n = 0;

	do {
		for (int i = 0; i < CHECK_EVERY; i++)
			*sum += table[i % TABLE];
		n += CHECK_EVERY;
	} while (cpu_ns() - start < run_ns);
	return n;
}

static void *counting(void *arg)
{
	struct job *j = arg;

	j->done = bump(j->counter);
	return NULL;
}

static void *atomic_counting(void *arg)
{
	struct job *j = arg;

	j->done = bump_shared();
	return NULL;
}

static void *reading(void *arg)
{
	struct job *j = arg;

	j->done = sum_table(&sums[j->id].v);
	return NULL;
}

static void run(int n, void *(*fn)(void *), struct job *jobs)
{
	pthread_t t[4];
	int i;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, &jobs[i])) {
			perror("pthread_create");
			exit(1);
		}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* Each thread's counter holds what it counted. */
static int counted(const struct job *jobs, int n)
{
	for (int i = 0; i < n; i++)
		if (*jobs[i].counter != jobs[i].done)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct job jobs[4];
	const char *mode = argc > 1 ? argv[1] : "";
	int ok;

	if (argc > 2)
		run_ns = atol(argv[2]) * 1000000L;
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < 4; i++)
		jobs[i].id = i;
	if (!strcmp(mode, "false") || !strcmp(mode, "one")) {
		jobs[0].counter = &adjacent[0];
		jobs[1].counter = &adjacent[1];
		if (!strcmp(mode, "one"))
			jobs[0].done = bump(jobs[0].counter);
		else
			run(2, counting, jobs);
		ok = counted(jobs, mode[0] == 'o' ? 1 : 2);
	} else if (!strcmp(mode, "heap")) {
		volatile long *c = malloc(2 * sizeof(long));

		c[0] = c[1] = 0;
		jobs[0].counter = &c[0];
		jobs[1].counter = &c[1];
		run(2, counting, jobs);
		ok = counted(jobs, 2);
		free((void *)c);
	} else if (!strcmp(mode, "padded")) {
		jobs[0].counter = &apart[0].v;
		jobs[1].counter = &apart[1].v;
		run(2, counting, jobs);
		ok = counted(jobs, 2);
	} else if (!strcmp(mode, "true")) {
		run(2, atomic_counting, jobs);
		ok = shared_counter.v == jobs[0].done + jobs[1].done;
	} else if (!strcmp(mode, "table")) {
		long each = 0, whole = 0;

		for (int i = 0; i < TABLE; i++)
			whole += table[i] = i % 7;
		run(4, reading, jobs);
		/* A thread's sum is whole tables and a part of one. */
		ok = 1;
		for (int i = 0; i < 4; i++) {
			each = jobs[i].done / TABLE * whole;
			for (long k = 0; k < jobs[i].done % TABLE; k++)
				each += table[k];
			ok &= sums[i].v == each;
		}
	} else {
		fprintf(stderr, "usage: share false|heap|padded|true|table|one [MS]\n");
		return 2;
	}
	printf("%s: %s\n", mode, ok ? "every count adds up" : "COUNTS DIFFER");
	return ok ? 0 : 1;
}
