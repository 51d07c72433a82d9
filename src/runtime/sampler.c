/*
 * sampler.c - the timer sample source and what a sample does.
 *
 * Without a PMU, a per-thread CPU-time timer interrupts the thread at an
 * instruction boundary; the next access of the wanted kind that the thread
 * executes is the sample (probe.c finds it).
 *
 * Two timers, chosen by rate: a POSIX CPU-time timer's signal is the
 * cheaper (about 5 us a sample on a VM, against about 46 us for a perf
 * task-clock sample) but it fires at most once per kernel tick (250 a
 * second with HZ=250), where the task clock has no such limit.
 * With --source=pmu the CPU samples accesses itself (pmu.c).
 *
 * witch cpi's sampled run takes the samples alone: each is the calling
 * context of the interrupted instruction, weighed by the thread's CPU
 * time since its previous sample (as OptiWISE weighs perf's samples by
 * the cycles since the last), so that the randomized intervals, and any
 * time a sample was late, count for what they were.
 */
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/perf.h"
#include "runtime/runtime.h"
#include "runtime/share.h"

static uint64_t period_ns(void)
{
	if (wt_cfg.period_ns > 0)
		return (uint64_t)wt_cfg.period_ns;
	return 1000000000ULL / (uint64_t)wt_cfg.rate_hz;
}

/*
 * The next interval is drawn uniformly from [T/2, 3T/2): a fixed period
 * strobes programs whose loops repeat at a commensurate period and sees
 * only some of their phases (the Figure 2 test showed 16% vs 26% shares
 * for the same site from one run to the next). The CPU time witch's own
 * handlers took since the last sample is added: the timers count it too,
 * and at a high rate on a program where samples are dear (deep stacks,
 * many traps) the program would otherwise hardly run at all.
 */
static uint64_t next_interval(struct wt_thread *t)
{
	uint64_t T = period_ns(), own = t->handler_ns_since_sample;

	t->handler_ns_since_sample = 0;
	return T / 2 + wt_rand(&t->rng) % (T ? T : 1) + own;
}

static void arm_timer(struct wt_thread *t)
{
	struct itimerspec it;
	uint64_t ns = next_interval(t);

	if (t->timer_fd >= 0) {
		ioctl(t->timer_fd, PERF_EVENT_IOC_PERIOD, &ns);
		return;
	}
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)(ns / 1000000000ULL);
	it.it_value.tv_nsec = (long)(ns % 1000000000ULL);
	timer_settime(t->timer, 0, &it, NULL);
}

/*
 * --watch=pages: the timer expired in witch's own time (a fault, a step,
 * a handler), not the program's. No sample: the next expiry is drawn as
 * usual. The expiries that remain fall in the program's own time, evenly.
 */
void wt_sampler_skip(struct wt_thread *t)
{
	t->st.samples_in_witch_time++;
	arm_timer(t);
}

int wt_sampler_start(struct wt_thread *t)
{
	uint64_t ns;

	t->timer_fd = -1;
	if (wt_cfg.pmu) {
		if (wt_pmu_start(t) < 0)
			return -1;
		t->sampling = 1;
		return 0;
	}
	ns = next_interval(t);
	if (wt_cfg.use_perf_clock) {
		t->timer_fd = core_perf_task_clock(ns);
		if (t->timer_fd < 0 || core_perf_route(t->timer_fd, wt_sig_sample, t->tid) < 0)
			return -1;
		t->sampling = 1;
		return 0;
	}
	if (core_cpu_timer(wt_sig_sample, t->tid, &t->timer) < 0)
		return -1;
	t->sampling = 1;
	arm_timer(t);
	return 0;
}

void wt_sampler_stop(struct wt_thread *t)
{
	if (!t->sampling)
		return;
	t->sampling = 0;
	if (wt_cfg.pmu) {
		wt_pmu_stop(t);
	} else if (t->timer_fd >= 0) {
		close(t->timer_fd);
		t->timer_fd = -1;
	} else {
		timer_delete(t->timer);
	}
}

/*
 * A sample of the sampled run. Where the stack cannot be followed the
 * instruction alone is kept, with its time. The time spent in witch's
 * own wrappers is not the program's: the counting run never runs them.
 */
static void time_sample(struct wt_thread *t, ucontext_t *uc)
{
	uintptr_t pcs[WT_MAX_FRAMES], start, end;
	uint64_t ns = t->cpu_now - t->cpu_mark;
	uint32_t node;
	int n;

	t->st.samples++;
	arm_timer(t);
	n = wt_unwind(uc, pcs, WT_MAX_FRAMES, &start, &end);
	if (n == 0) {
		t->st.samples_unwind_failed++;
		pcs[0] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
		n = 1;
	}
	if (wt_own_code(pcs[0])) {
		t->st.samples_own_code++;
		t->st.own_code_ns += ns;
		return;
	}
	if (n == WT_MAX_FRAMES)
		t->cct.frames_truncated++;
	node = wt_cct_path(&t->cct, pcs, n);
	t->cct.nodes[node].mu++;
	t->cct.nodes[node].ns += ns;
	t->st.sampled_ns += ns;
}

/* A sample's own access: led to by the probe, or given by the PMU. */
static void sample_access(struct wt_thread *t, ucontext_t *uc)
{
	uintptr_t pcs[WT_MAX_FRAMES], start, end;
	unsigned paused;
	int n;

	if (wt_cfg.pmu) {
		wt_pmu_on_sample(t, uc);
		return;
	}
	t->st.samples++;
	arm_timer(t);
	paused = wt_pause_watches(t);
	n = wt_unwind(uc, pcs, WT_MAX_FRAMES, &start, &end);
	wt_resume_watches(t, paused);
	if (n == 0 || !end) {
		t->st.samples_unwind_failed++;
		return;
	}
	if (n == WT_MAX_FRAMES)
		t->cct.frames_truncated++;
	wt_probe_start(t, pcs, n, start, end, uc);
}

void wt_on_sample(struct wt_thread *t, ucontext_t *uc)
{
	if (wt_cfg.samples_only) {
		time_sample(t, uc);
		return;
	}
	if (wt_cfg.craft != WT_CRAFT_SHARE) {
		sample_access(t, uc);
		return;
	}
	/* The watches of the last sample end before this one unwinds
	 * (none to pause), and the other threads' stores published since
	 * take the registers after. */
	wt_share_expire(t);
	sample_access(t, uc);
	wt_share_pickup(t);
}
