/*
 * test_unblocked.c - src/causal/unblocked.c: how much of a past wait the
 * program had one thread unblocked, asked after the count has moved on
 * (a switch record is drained milliseconds after the wait it reports).
 */
#include "tap.h"

static unsigned long long fake_now;

#include "../../src/causal/unblocked.c"

uint64_t wc_now(void)
{
	return fake_now;
}

static void change_at(unsigned long long t, int d)
{
	fake_now = t;
	wc_unblocked_add(d);
}

int main(void)
{
	int i;

	wc_unblocked_reset();
	change_at(100, 1);	/* one thread from 100 */
	change_at(200, 1);	/* two from 200 */
	change_at(300, -1);	/* one from 300 */
	change_at(400, -1);	/* none from 400 */
	change_at(500, 1);	/* one from 500, still */
	fake_now = 1000;

	tap_ok(wc_unblocked == 1, "the count follows the changes (%d)", wc_unblocked);
	tap_ok(wc_single_ns(100, 200) == 100, "a wait while alone, asked when two are running");
	tap_ok(wc_single_ns(150, 250) == 50, "a wait that ends after a second thread starts: its first half");
	tap_ok(wc_single_ns(200, 300) == 0, "a wait while two ran: nothing");
	tap_ok(wc_single_ns(100, 400) == 200, "across two single periods: both (%llu)",
	       (unsigned long long)wc_single_ns(100, 400));
	tap_ok(wc_single_ns(350, 450) == 50, "until the count fell to none");
	tap_ok(wc_single_ns(600, 900) == 300, "after the last change: its count holds");
	tap_ok(wc_single_ns(50, 150) == 50, "before the first change nothing is known: 0 for that part");

	/* A forked child starts again: the parent's log is not its past. */
	wc_unblocked_reset();
	change_at(2000, 1);
	fake_now = 3000;
	tap_ok(wc_single_ns(100, 200) == 0, "after a reset, the old log is gone");
	tap_ok(wc_single_ns(2500, 2600) == 100, "and the new one counts");

	/* More changes than the log holds: an old wait counts 0, a recent one
	 * is still answered. */
	for (i = 0; i < LOG_SIZE + 10; i++)
		change_at(4000 + 10ULL * (unsigned)i, i % 2 ? 1 : -1);
	tap_ok(wc_single_ns(2500, 2600) == 0, "a wait older than the log counts 0");
	fake_now += 100;
	tap_ok(wc_single_ns(fake_now - 100 - 25, fake_now - 100 - 5) == 10,
	       "a recent one is still answered (%llu)",
	       (unsigned long long)wc_single_ns(fake_now - 125, fake_now - 105));
	return tap_done();
}
