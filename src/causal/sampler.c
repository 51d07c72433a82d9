/*
 * sampler.c - per-thread CPU-time samples, read from a ring buffer.
 *
 * A perf task-clock event (the only sample source without a PMU) writes
 * every sample into a ring buffer mapped in the thread's address space: the
 * interrupted IP and the top WC_STACK_BYTES of its user stack. With
 * O_ASYNC, perf signals the thread at every sample, whatever wakeup_events
 * says; the handler drains the buffer and pays the thread's delays. The
 * thread also drains at every interposed pthread call.
 *
 * A CPU-time POSIX timer every 10 periods would drain at about half the
 * CPU cost (bench/sampler-cost measures both), but up to 10 ms late: a
 * thread's delays are then paid late and its samples counted late, and
 * the predictions for programs sharing their cores with another came out
 * further from what they could gain than with a signal per sample, which
 * is why the signal stays.
 *
 * A sample outside the scope (in libc, libm, ...) is charged to the in-scope
 * call site: the first word of the copied stack that is an in-scope address
 * right after a call instruction. The kernel's own callchain walks frame
 * pointers, which -O2 code does not keep.
 */
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "causal/causal.h"
#include "core/perf.h"

int wc_next_line = -1;

static int open_clock(void)
{
	struct perf_event_attr a;

	core_perf_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = wc_cfg.period_ns;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_STACK_USER;
	a.sample_stack_user = WC_STACK_BYTES;
	a.wakeup_events = WC_WAKEUP;
	a.exclude_callchain_kernel = 1;
	/* Sample times on wc_now's clock, to compare with an experiment's start. */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	/* Context switches, with their time: preempted means runnable and
	 * waiting for a core; a voluntary switch is a sleep. */
	a.context_switch = 1;
	a.sample_id_all = 1;
	return core_perf_open(&a);
}

int wc_sampler_start(struct wc_thread *t)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	t->fd = open_clock();
	if (t->fd < 0)
		return -1;
	t->ring_bytes = (size_t)page * (1 + WC_RING_PAGES);
	p = mmap(NULL, t->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED) {
		close(t->fd);
		t->fd = -1;
		return -1;
	}
	t->ring = p;
	if (core_perf_route(t->fd, wc_signal, t->tid) < 0) {
		wc_sampler_stop(t);
		return -1;
	}
	t->rng = wc_now() ^ ((uint64_t)t->tid << 20) ^ 0x9E3779B97F4A7C15ULL;
	wc_sampler_jitter(t);
	return 0;
}

void wc_sampler_jitter(struct wc_thread *t)
{
	uint64_t p;

	if (t->fd < 0)
		return;
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	p = wc_cfg.period_ns * 3 / 4 + t->rng % (wc_cfg.period_ns / 2 + 1);
	ioctl(t->fd, PERF_EVENT_IOC_PERIOD, &p);
}

static int ring_trylock(struct wc_thread *t, long spins)
{
	while (__atomic_exchange_n(&t->ring_lock, 1, __ATOMIC_ACQUIRE)) {
		if (--spins <= 0)
			return 0;
		sched_yield();
	}
	return 1;
}

static void ring_unlock(struct wc_thread *t)
{
	__atomic_store_n(&t->ring_lock, 0, __ATOMIC_RELEASE);
}

void wc_sampler_stop(struct wc_thread *t)
{
	struct perf_event_mmap_page *ring;

	if (t->fd < 0)
		return;
	close(t->fd);
	t->fd = -1;
	/* Another thread may be reading the buffer. */
	ring_trylock(t, 1L << 30);
	ring = t->ring;
	t->ring = NULL;
	ring_unlock(t);
	if (ring)
		munmap(ring, t->ring_bytes);
}

/* Copy n bytes at ring offset `off` (which may wrap) into dst. */
static void ring_copy(const char *data, uint64_t size, uint64_t off, void *dst, size_t n)
{
	uint64_t o = off % size, first = size - o < n ? size - o : n;

	memcpy(dst, data + o, first);
	memcpy((char *)dst + first, data, n - first);
}

/* Record: header, ip, time, task-clock value, stack size, stack, dyn size. */
static void on_sample(struct wc_thread *t, const char *rec, size_t len)
{
	const size_t h = sizeof(struct perf_event_header);
	uint64_t ip, time, cpu, stack_size, dcpu, weight;
	int line;

	if (len < h + 32)
		return;
	memcpy(&ip, rec + h, 8);
	memcpy(&time, rec + h + 8, 8);
	memcpy(&cpu, rec + h + 16, 8);
	memcpy(&stack_size, rec + h + 24, 8);
	t->samples++;
	/* What the sample stands for: the CPU time since the thread's previous
	 * sample (the jittered period, exactly). Not the wall time: when this
	 * thread waited for a core because a sibling had it, the sibling
	 * pausing hands it the core, and counting the wait too would take the
	 * same time off twice. (Waits for other programs' threads are taken
	 * out of the experiment's duration instead: on_switch.) */
	dcpu = t->prev_cpu && cpu > t->prev_cpu ? cpu - t->prev_cpu : wc_cfg.period_ns;
	if (dcpu > 2 * wc_cfg.period_ns)
		dcpu = 2 * wc_cfg.period_ns;
	weight = dcpu;
	t->prev_cpu = cpu;
	t->prev_time = time;
	line = wc_line_of((uintptr_t)ip);
	if (stack_size && stack_size <= WC_STACK_BYTES && h + 32 + stack_size + 8 <= len) {
		uint64_t dyn, words[WC_STACK_BYTES / 8];
		size_t off = h + 32;
		int caller;

		memcpy(&dyn, rec + off + stack_size, 8);
		if (dyn > stack_size)
			dyn = stack_size;
		memcpy(words, rec + off, dyn & ~7ull);
		caller = wc_line_from_stack(words, (size_t)(dyn / 8));
		/* Out of scope, the sample is its caller's; in scope, the
		 * caller ran too (what witch causal tells of lines near an
		 * unreached --progress line). */
		if (line < 0)
			line = caller;
		else if (caller >= 0)
			__atomic_add_fetch(&wc_line_callers[caller], 1, __ATOMIC_RELAXED);
	}
	if (line < 0)
		return;
	__atomic_add_fetch(&wc_line_samples[line], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&wc_next_line, line, __ATOMIC_RELAXED);
	wc_on_line_sample(t, line, weight, time);
}

/*
 * A thread switched out while runnable (preempted) and back in: it waited
 * for a core. While it is the program's one thread not blocked, the
 * program as a whole waited for other programs: that time is not the
 * program's, and the experiment's duration leaves it out (the rates of
 * experiments then do not depend on what else the machine runs). With
 * siblings running, one may have had the core: nothing is left out. The
 * record is drained after the wait, when the count may be another: the
 * log of its changes tells what it was during the wait (unblocked.c).
 */
uint64_t wc_stolen_total_ns;

static void on_switch(struct wc_thread *t, unsigned misc, uint64_t time)
{
	if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
		t->preempted_at = (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? time : 0;
	} else if (t->preempted_at) {
		uint64_t alone = time > t->preempted_at ? wc_single_ns(t->preempted_at, time) : 0;

		if (alone) {
			__atomic_add_fetch(&wc_stolen_total_ns, alone, __ATOMIC_RELAXED);
			if (__atomic_load_n(&wc_exp.counting, __ATOMIC_RELAXED))
				__atomic_add_fetch(&wc_exp.stolen_ns, alone, __ATOMIC_RELAXED);
		}
		t->preempted_at = 0;
	}
}

void wc_drain(struct wc_thread *t)
{
	struct perf_event_mmap_page *m;
	const char *data;
	uint64_t head, tail, size;
	char rec[sizeof(struct perf_event_header) + 48 + WC_STACK_BYTES];

	if (!__atomic_load_n(&t->ring, __ATOMIC_ACQUIRE))
		return;
	/* The ring is read under the lock only: the thread may be ending and
	 * unmapping it (wc_sampler_stop). The holder finishes in microseconds
	 * unless it was preempted. */
	if (!ring_trylock(t, 64))
		return;
	m = t->ring;
	if (!m || __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE) == m->data_tail) {
		ring_unlock(t);
		return;
	}
	head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	tail = m->data_tail;
	data = (const char *)m + m->data_offset;
	size = m->data_size;
	while (tail < head) {
		struct perf_event_header h;

		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(rec)) {
			ring_copy(data, size, tail, rec, h.size);
			on_sample(t, rec, h.size);
		} else if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof(h) + 8) {
			uint64_t time;	/* sample_id: the time, last */

			ring_copy(data, size, tail + h.size - 8, &time, 8);
			on_switch(t, h.misc, time);
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t lost[2];

			ring_copy(data, size, tail + sizeof(h), lost, sizeof(lost));
			t->lost += lost[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
	ring_unlock(t);
}

void wc_drain_all(void)
{
	struct wc_thread *t;

	for (t = wc_threads(); t; t = t->next)
		if (__atomic_load_n(&t->alive, __ATOMIC_ACQUIRE))
			wc_drain(t);
}
