/*
 * unblocked.c - how many of the program's threads are not blocked, and
 * since when.
 *
 * A thread that waited for a core while it was the program's one thread
 * not blocked waited for another program (sampler.c, on_switch). The wait
 * is seen only when its switch records are drained, up to milliseconds
 * later, when the count may have changed many times: so every change is
 * logged with its time, and the question is asked of the log. Asking the
 * count at drain time took 12 % off the 0 % experiments' durations and 4 %
 * off the +20 % experiments' in a pipeline sharing its cores with another
 * program (70 % and 47 % with drains 10 ms late): a bias of its own.
 *
 * Writers are the threads themselves (start, end, around blocking calls):
 * a slot each, claimed with one atomic add, filled with one atomic store
 * of time << 1 | (count == 1), so a reader never pairs one change's time
 * with another's count. Two changes at the same moment may be logged in
 * either order: that errs by nanoseconds. A reader that comes between a
 * writer's add and its store reads that slot's previous lap, an older
 * time, and stops there: the wait then counts less, never more.
 */
#include "causal/causal.h"

#define LOG_SIZE 4096	/* changes remembered: a wait older than these counts 0 */

int wc_unblocked;
static uint64_t changes[LOG_SIZE];	/* wc_now() << 1 | one thread unblocked */
static uint64_t nchanges;

void wc_unblocked_add(int d)
{
	int n = __atomic_add_fetch(&wc_unblocked, d, __ATOMIC_RELAXED);
	uint64_t i = __atomic_fetch_add(&nchanges, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&changes[i % LOG_SIZE], wc_now() << 1 | (n == 1), __ATOMIC_RELEASE);
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
		uint64_t c = __atomic_load_n(&changes[--i % LOG_SIZE], __ATOMIC_ACQUIRE);
		uint64_t t = c >> 1;

		if (t >= end)
			continue;	/* after the wait (or logged out of order) */
		if (c & 1)
			sum += end - (t > a ? t : a);
		end = t;
	}
	return sum;
}
