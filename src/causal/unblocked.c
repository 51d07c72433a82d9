/*
 * unblocked.c - how many of the program's threads are not blocked, and
 * since when.
 *
 * A thread that waited for a core while it was the program's one thread
 * not blocked waited for another program (sampler.c, on_switch). The wait
 * is seen only when its switch records are drained, up to milliseconds
 * later, when the count may have changed many times: so every change is
 * logged with its time, and the question is asked of the log. Asking the
 * count at drain time took 70 % off some experiments' durations and 47 %
 * off others' in a pipeline sharing its cores with another program.
 *
 * Writers are the threads themselves (start, end, around blocking calls):
 * a slot each, claimed with one atomic add. Two changes at the same moment
 * may be logged in either order; a reader sees a slot being written as it
 * was or as it will be. Both err by nanoseconds.
 */
#include "causal/causal.h"

#define LOG_SIZE 4096	/* changes remembered: a wait older than these counts 0 */

struct change {
	uint64_t t;	/* wc_now() */
	int n;		/* the count from then on */
};

int wc_unblocked;
static struct change changes[LOG_SIZE];
static uint64_t nchanges;

void wc_unblocked_add(int d)
{
	int n = __atomic_add_fetch(&wc_unblocked, d, __ATOMIC_RELAXED);
	uint64_t i = __atomic_fetch_add(&nchanges, 1, __ATOMIC_RELAXED);
	struct change *c = &changes[i % LOG_SIZE];

	__atomic_store_n(&c->t, wc_now(), __ATOMIC_RELAXED);
	__atomic_store_n(&c->n, n, __ATOMIC_RELEASE);
}

void wc_unblocked_reset(void)
{
	wc_unblocked = 0;
	nchanges = 0;
}

uint64_t wc_single_ns(uint64_t a, uint64_t b)
{
	uint64_t i = __atomic_load_n(&nchanges, __ATOMIC_ACQUIRE), end = b, sum = 0;
	uint64_t oldest = i > LOG_SIZE ? i - LOG_SIZE : 0;

	/* Newest change first: the count held from its time to the next
	 * change's (the last one's until now). */
	while (i > oldest && end > a) {
		const struct change *c = &changes[--i % LOG_SIZE];
		uint64_t t = __atomic_load_n(&c->t, __ATOMIC_RELAXED);
		uint64_t from = t > a ? t : a;

		if (t < end && __atomic_load_n(&c->n, __ATOMIC_ACQUIRE) == 1 && from < end)
			sum += end - from;
		if (t < end)
			end = t;
	}
	return sum;
}
