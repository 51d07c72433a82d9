/*
 * pmu.c - the PMU sample source (witch record --source=pmu), the WITCH
 * paper's: the CPU samples every Nth store (or load) retired and reports
 * its instruction and data address (Intel PEBS, AMD IBS; perf.c picks the
 * event). The access has executed by the time its signal arrives, so it
 * is watched at once: no walk, no probe register. Samples weigh accesses by
 * their count, where the timer source weighs them by the time before them.
 *
 * The kernel writes each sample to a ring buffer shared with this thread
 * and signals it (one wakeup per sample); the handler takes the newest.
 */
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/runtime.h"

#define CODE_PAGE 4096UL	/* x86-64's smallest page: code is mapped by at least this */

/* The ring's size. Handlers do not call sysconf: it reads libc data that
 * a watch may cover. */
static size_t ring_bytes(void)
{
	static size_t page;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	return (1 + WT_PMU_RING_PAGES) * page;
}

int wt_pmu_start(struct wt_thread *t)
{
	struct perf_event_attr a = wt_cfg.pmu_attr;
	size_t bytes = ring_bytes();
	void *ring;

	t->pmu_fd = core_perf_memory_open(&a);
	if (t->pmu_fd < 0)
		return -1;
	ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, t->pmu_fd, 0);
	if (ring == MAP_FAILED || core_perf_route(t->pmu_fd, wt_sig_sample, t->tid) < 0) {
		if (ring != MAP_FAILED)
			munmap(ring, bytes);
		close(t->pmu_fd);
		t->pmu_fd = -1;
		return -1;
	}
	t->pmu_ring = ring;
	return 0;
}

void wt_pmu_stop(struct wt_thread *t)
{
	if (t->pmu_fd < 0)
		return;
	ioctl(t->pmu_fd, PERF_EVENT_IOC_DISABLE, 0);
	munmap(t->pmu_ring, ring_bytes());
	wt_pmu_forget(t);
}

/*
 * A forked child's copy of its parent's event: not this process's to use.
 * Its ring was not copied (perf maps it VM_DONTCOPY), so only the
 * descriptor goes; whatever the child maps at that address is its own.
 */
void wt_pmu_forget(struct wt_thread *t)
{
	if (t->pmu_fd < 0)
		return;
	close(t->pmu_fd);
	t->pmu_fd = -1;
	t->pmu_ring = NULL;
}

void wt_pmu_pause(struct wt_thread *t)
{
	if (t->pmu_fd >= 0)
		ioctl(t->pmu_fd, PERF_EVENT_IOC_DISABLE, 0);
}

void wt_pmu_resume(struct wt_thread *t)
{
	if (t->pmu_fd >= 0)
		ioctl(t->pmu_fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* Copy n bytes at ring offset `at` (wrapping) to dst. */
static void ring_copy(void *dst, const uint8_t *data, uint64_t size, uint64_t at, size_t n)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = data[(at + i) & (size - 1)];
}

unsigned wt_pmu_drain(struct perf_event_mmap_page *meta, const uint8_t *data, uint64_t size,
		      struct wt_pmu_sample *last, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	unsigned samples = 0;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t body[2];

		ring_copy(&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;	/* torn or corrupt: drop the rest */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(body)) {
			ring_copy(body, data, size, tail + sizeof(h), sizeof(body));
			last->ip = body[0];
			last->addr = body[1];
			last->misc = h.misc;
			samples++;
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + sizeof(body)) {
			ring_copy(body, data, size, tail + sizeof(h), sizeof(body));
			*lost += body[1];	/* { id, lost } */
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return samples;
}

/* The instruction at ip, decoded; 0 when it cannot be read or decoded. */
static int decode_at(uintptr_t ip, struct wd_access *acc)
{
	uint8_t code[15];
	size_t n = sizeof(code), to_page_end = CODE_PAGE - (ip & (CODE_PAGE - 1));

	if (wt_read_target(code, ip, n) < 0) {
		n = to_page_end < n ? to_page_end : n;	/* the code ends on this page */
		if (wt_read_target(code, ip, n) < 0)
			return 0;
	}
	return wd_decode(code, n, ip, acc);
}

/*
 * Is the sample the program's own, at the access itself? A PMU that could
 * not filter the kernel's samples, an IP the CPU could not pin to the
 * instruction (IBS's RipInvalid, PEBS without its fix-up), and witch's own
 * code outside its handlers (the wrappers of malloc, pthread_create...)
 * give samples that are none.
 */
static int programs_own(const struct wt_pmu_sample *s)
{
	return (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER &&
	       (s->misc & PERF_RECORD_MISC_EXACT_IP) && s->addr &&
	       !wt_own_code(s->ip);
}

/* Can the craft watch this access, judged after it ran? */
static int usable(const struct wd_access *acc)
{
	int want_store = wt_craft_wants_store();

	if (acc->kind == WD_NONE || acc->kind == (want_store ? WD_LOAD : WD_STORE))
		return 0;
	if (acc->flags & WD_VSIB)
		return 0;	/* a gather or scatter: which address is this? */
	/* LoadCraft needs what a read-modify-write read, which it has
	 * overwritten by now. */
	return want_store || !wt_craft_reads_before(acc);
}

/*
 * The calling context of the sampled instruction, less itself. The signal
 * comes a few instructions after it (skid): usually in the same function,
 * whose context the interrupted stack gives; after a call, one frame
 * deeper; after a return, in the caller, right after the call to it.
 */
static uint32_t parent_context(struct wt_thread *t, uintptr_t ip, const uintptr_t *pcs, int n,
			       uintptr_t start, uintptr_t end)
{
	uintptr_t s, e;

	if ((ip >= start && ip < end) || !end)	/* !end: no unwind info, take it as the same */
		return n > 1 ? wt_cct_path(&t->cct, pcs + 1, n - 1) : 0;
	if (n > 1 && wt_proc_bounds(pcs[1] - 1, &s, &e) == 0 && ip >= s && ip < e)
		return n > 2 ? wt_cct_path(&t->cct, pcs + 2, n - 2) : 0;
	return wt_cct_path(&t->cct, pcs, n);
}

void wt_pmu_on_sample(struct wt_thread *t, ucontext_t *uc)
{
	uintptr_t pcs[WT_MAX_FRAMES], start, end;
	struct wt_pmu_sample s;
	struct wd_access acc;
	unsigned n, paused;
	uint32_t parent;
	int frames;

	if (!t->pmu_ring)
		return;
	/* Where the kernel says the data are (Linux 4.1 on; a page on). */
	n = wt_pmu_drain(t->pmu_ring, (const uint8_t *)t->pmu_ring + t->pmu_ring->data_offset,
			 t->pmu_ring->data_size, &s, &t->st.pmu_samples_lost);
	if (n == 0)
		return;	/* its record came with an earlier signal */
	t->st.samples++;
	t->st.pmu_samples_lost += n - 1;	/* one context for several: keep the newest */
	if (!programs_own(&s) || !decode_at(s.ip, &acc) || !usable(&acc)) {
		t->st.pmu_samples_other++;
		return;
	}
	if (acc.flags & WD_IMPLICIT) {
		t->st.samples_skipped_implicit++;	/* push, call: as the timer source */
		return;
	}
	paused = wt_pause_watches(t);	/* the unwinder reads the loader's data */
	frames = wt_unwind(uc, pcs, WT_MAX_FRAMES, &start, &end);
	if (frames > 0)
		parent = parent_context(t, s.ip, pcs, frames, start, end);
	wt_resume_watches(t, paused);
	if (frames <= 0) {
		t->st.samples_unwind_failed++;
		return;
	}
	if (frames == WT_MAX_FRAMES)
		t->cct.frames_truncated++;
	wt_probe_executed(t, parent, &acc, s.addr);
}
