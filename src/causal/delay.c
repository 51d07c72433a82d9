/*
 * delay.c - virtual speedup (COZ section 3.2-3.4).
 *
 * wc_exp.global counts (in ns) the delay every thread must have executed;
 * each thread's `local` what it executed or was excused from. A sample of
 * thread T in the selected line stands for the CPU time T ran since its
 * previous sample (the jittered period): T raises its local count by
 * speedup x that time (it is the thread being sped up, so it does not
 * pause) and, if it is now ahead of the global count, the global one with
 * it; if T was behind, the sample pays its own debts instead (minimizing
 * delays, 3.3). A thread behind the global count pauses for the
 * difference, and takes the oversleep of one pause off the next.
 *
 * Blocking calls (Table 2) remember the global count and, when the thread
 * was woken by another thread (which caught up before waking it, Table 1),
 * excuse the delays added while it was blocked.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <time.h>

#include "causal/causal.h"

struct wc_experiment_state wc_exp = { .line = -1 };
/* All threads' pauses, for the profile's runtime record: what the virtual
 * speedups cost the run (bench/causal reads them). */
static uint64_t paused_ns, pauses, oversleep_ns;

/* Debts of an experiment that is over are void. Any thread may update
 * another's local count (draining its samples): atomics throughout. */
static void forgive(struct wc_thread *t)
{
	uint64_t g0 = __atomic_load_n(&wc_exp.g0, __ATOMIC_ACQUIRE);
	uint64_t l = __atomic_load_n(&t->local, __ATOMIC_ACQUIRE);

	while (l < g0 &&
	       !__atomic_compare_exchange_n(&t->local, &l, g0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

/* local = max(local, g) */
static void raise_to(struct wc_thread *t, uint64_t g)
{
	uint64_t l = __atomic_load_n(&t->local, __ATOMIC_ACQUIRE);

	while (l < g &&
	       !__atomic_compare_exchange_n(&t->local, &l, g, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

void wc_on_line_sample(struct wc_thread *t, int line, uint64_t ns, uint64_t time)
{
	uint64_t g, local, add;

	/* A sample from before the experiment, drained after it began, is not
	 * part of it. */
	if (!__atomic_load_n(&wc_exp.counting, __ATOMIC_ACQUIRE) ||
	    line != __atomic_load_n(&wc_exp.line, __ATOMIC_RELAXED) ||
	    time < __atomic_load_n(&wc_exp.t0, __ATOMIC_RELAXED))
		return;
	__atomic_add_fetch(&wc_exp.selected_samples, 1, __ATOMIC_RELAXED);
	add = ns * __atomic_load_n(&wc_exp.speedup, __ATOMIC_RELAXED) / 100;
	if (!add)
		return;
	forgive(t);
	local = __atomic_add_fetch(&t->local, add, __ATOMIC_ACQ_REL);
	g = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	while (g < local &&
	       !__atomic_compare_exchange_n(&wc_exp.global, &g, local, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
	if (g < local)
		__atomic_add_fetch(&wc_exp.delays, 1, __ATOMIC_RELAXED);
}

/* The kernel may end a sleep up to the thread's timer slack late (50 us
 * by default) to batch wake-ups; a pause wants its length, not an energy
 * saving: ~100 us over a 250 us pause here, ~45 us without the slack. What
 * is still over is taken off the next pause (carry_ns), but a thread that
 * ends after its last pause (Figure 1's, every round) keeps it. The
 * program's own slack is given back. */
static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
	long slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	if (slack > 1)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	if (slack > 1)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
}

/* Pause until this thread's local count reaches the global one. During an
 * experiment the other threads' samples are looked at first: a thread that
 * is about to wake another, or to end, must not miss delays because the
 * thread that ran the selected line has not drained its buffer yet. */
static void pay(struct wc_thread *t, int all)
{
	for (;;) {
		uint64_t g, local, start, slept;
		int64_t want;

		if (all && __atomic_load_n(&wc_exp.counting, __ATOMIC_ACQUIRE))
			wc_drain_all();
		else
			wc_drain(t);
		forgive(t);
		g = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
		if (!__atomic_load_n(&wc_exp.counting, __ATOMIC_ACQUIRE) &&
		    !__atomic_load_n(&wc_exp.settling, __ATOMIC_ACQUIRE)) {
			raise_to(t, g);	/* between experiments nothing is owed */
			return;
		}
		local = __atomic_load_n(&t->local, __ATOMIC_ACQUIRE);
		if (local >= g)
			return;
		want = (int64_t)(g - local) - t->carry_ns;
		if (want > 0) {
			start = wc_now();
			sleep_ns(want);
			slept = wc_now() - start;
			t->carry_ns = (int64_t)slept - want;
			__atomic_add_fetch(&paused_ns, slept, __ATOMIC_RELAXED);
			__atomic_add_fetch(&pauses, 1, __ATOMIC_RELAXED);
			if (t->carry_ns > 0)
				__atomic_add_fetch(&oversleep_ns, (uint64_t)t->carry_ns, __ATOMIC_RELAXED);
		} else {
			t->carry_ns = -want;
		}
		raise_to(t, g);
	}
}

static void catch_up(struct wc_thread *t, int all)
{
	int e = errno;

	if (!t || t->busy)
		return;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pay(t, all);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	errno = e;
}

void wc_catch_up(struct wc_thread *t)
{
	catch_up(t, 1);
}

/* Before taking a lock: what this thread's own buffer says it owes (the
 * others' buffers are for wakeups, Table 1, and thread exit: a lock taken
 * a million times a second must not look at every thread's buffer). */
void wc_pay_own(struct wc_thread *t)
{
	catch_up(t, 0);
}

void wc_pre_block(struct wc_thread *t)
{
	if (!t)
		return;
	wc_catch_up(t);
	t->block_global = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	t->block_local = __atomic_load_n(&t->local, __ATOMIC_ACQUIRE);
	__atomic_store_n(&t->blocked, 1, __ATOMIC_RELEASE);
	wc_unblocked_add(-1);
}

void wc_post_block(struct wc_thread *t, int skip)
{
	if (!t)
		return;
	/* Excused: what the others added meanwhile. Not on top of what this
	 * thread's own samples (drained by another thread while it was
	 * blocked) already added to both counts: max, not a sum. */
	if (skip)
		raise_to(t, t->block_local + (__atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE) -
					      t->block_global));
	__atomic_store_n(&t->blocked, 0, __ATOMIC_RELEASE);
	wc_unblocked_add(1);
	wc_catch_up(t);
}

void wc_delays_paused(uint64_t *ns, uint64_t *n, uint64_t *over_ns)
{
	*ns = __atomic_load_n(&paused_ns, __ATOMIC_RELAXED);
	*n = __atomic_load_n(&pauses, __ATOMIC_RELAXED);
	*over_ns = __atomic_load_n(&oversleep_ns, __ATOMIC_RELAXED);
}

/* --- the coz.h / witch.h hooks for custom synchronisation ----------------- */

WC_EXPORT void _coz_pre_block(void);
WC_EXPORT void _coz_post_block(int skip_delays);
WC_EXPORT void _coz_catch_up(void);

void _coz_pre_block(void)
{
	if (wc_active)
		wc_pre_block(wc_self());
}

void _coz_post_block(int skip_delays)
{
	if (wc_active)
		wc_post_block(wc_self(), skip_delays);
}

void _coz_catch_up(void)
{
	if (wc_active)
		wc_catch_up(wc_self());
}
