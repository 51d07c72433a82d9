/*
 * The PMU sample source (witch record --source=pmu) as far as a machine
 * without a PMU can check it: which event perf.c asks for on Intel and AMD
 * (from a sysfs tree of the test's own), how pmu.c reads the ring buffer
 * the kernel writes, and the whole path from a sample record to a verdict:
 * a record naming a store that has just run, delivered in a real signal
 * right after it (an execute breakpoint stands in for the PMU interrupt),
 * arms a real watchpoint whose trap judges the next access.
 */
#include <fcntl.h>
#include <ftw.h>
#include <linux/hw_breakpoint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/perf.h"
#include "runtime/runtime.h"
#include "tap.h"

/* ---- the event ---- */

static char root[64];

static void put_file(const char *rel, const char *text)
{
	char path[256], dir[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	strcpy(dir, path);
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(dir, 0755);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		tap_diag("cannot write %s", path);
	close(fd);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void test_events(void)
{
	struct perf_event_attr a;
	char why[256];

	strcpy(root, "/tmp/witch-pmu-XXXXXX");
	if (!mkdtemp(root)) {
		tap_ok(0, "mkdtemp");
		return;
	}
	why[0] = 0;
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_INTEL, root, 1, 0, why, sizeof(why)) < 0 &&
		       strstr(why, "no Intel core PMU"),
	       "Intel without a cpu PMU: none, and why (%s)", why);
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_AMD, root, 1, 0, why, sizeof(why)) < 0 &&
		       strstr(why, "ibs_op"),
	       "AMD without IBS: none, and why (%s)", why);
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_OTHER, root, 1, 0, why, sizeof(why)) < 0,
	       "another vendor: none (%s)", why);

	put_file("cpu/type", "4\n");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_INTEL, root, 1, 0, why, sizeof(why)) == 0 &&
		       a.type == PERF_TYPE_RAW && a.config == 0x82d0 && a.precise_ip == 2 &&
		       a.sample_period == 5000011,
	       "Intel stores: raw 0x82d0 (ALL_STORES), PEBS, every 5000011");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_INTEL, root, 0, 0, why, sizeof(why)) == 0 &&
		       a.config == 0x81d0 && a.sample_period == 10000019,
	       "Intel loads: raw 0x81d0 (ALL_LOADS), every 10000019");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_INTEL, root, 1, 777, why, sizeof(why)) == 0 &&
		       a.sample_period == 777,
	       "a period given is kept");
	tap_ok(a.sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR) && a.wakeup_events == 1 &&
		       a.exclude_kernel && !a.disabled,
	       "samples carry ip and address, one wakeup each, user space only, enabled");
	put_file("cpu_core/type", "8\n");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_INTEL, root, 1, 0, why, sizeof(why)) == 0 &&
		       a.type == 8 && a.config == 0x82d0,
	       "a hybrid Intel: the cpu_core PMU's type");

	put_file("ibs_op/type", "11\n");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_AMD, root, 1, 0, why, sizeof(why)) < 0 &&
		       strstr(why, "cnt_ctl"),
	       "IBS that counts only cycles: refused (%s)", why);
	put_file("ibs_op/format/cnt_ctl", "config:19\n");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_AMD, root, 0, 0, why, sizeof(why)) == 0 &&
		       a.type == 11 && a.config == 1ULL << 19 && a.sample_period == 1000000,
	       "AMD: ibs_op counting ops (cnt_ctl bit 19), every 1000000 ops");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_AMD, root, 0, 1001, why, sizeof(why)) == 0 &&
		       a.sample_period == 1008,
	       "IBS periods round up to a multiple of 16");
	tap_ok(!a.exclude_kernel && !a.exclude_hv && a.config2 == 0,
	       "IBS without swfilt: no exclude flags (it refuses them)");
	put_file("ibs_op/format/swfilt", "config2:0\n");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_AMD, root, 0, 0, why, sizeof(why)) == 0 &&
		       a.config2 == 1 && a.exclude_kernel && !a.exclude_hv,
	       "IBS with swfilt (config2:0): it filters out the kernel");
	put_file("ibs_op/format/cnt_ctl", "config1:3\n");
	tap_ok(core_perf_memory_attr(&a, CORE_CPU_AMD, root, 0, 0, why, sizeof(why)) < 0,
	       "a cnt_ctl field elsewhere than config: refused");
	tap_ok(core_perf_pmu_type(root, "cpu") == 4 && core_perf_pmu_type(root, "nope") == -1,
	       "pmu types read from sysfs");
	put_file("bad/type", "x\n");
	tap_ok(core_perf_pmu_type(root, "bad") == -1, "a type that is no number: none");
	/* The sysfs tree is the test's own: none is left in /tmp. */
	tap_ok(nftw(root, remove_one, 8, FTW_DEPTH | FTW_PHYS) == 0, "the test's sysfs tree removed");
}

/* ---- the ring ---- */

/* A ring as the kernel lays it out: its first page, then `size` bytes of
 * data; here also a small one, to wrap records around its end. */
struct ring {
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;
};

static void put_record(struct ring *r, uint32_t type, uint16_t misc, const uint64_t *body, int n)
{
	struct perf_event_header h = { .type = type, .misc = misc,
				       .size = (uint16_t)(sizeof(h) + 8 * n) };
	const uint8_t *src[2] = { (const uint8_t *)&h, (const uint8_t *)body };
	size_t len[2] = { sizeof(h), 8 * (size_t)n };
	int part;
	size_t i;

	for (part = 0; part < 2; part++)
		for (i = 0; i < len[part]; i++)
			r->data[r->meta->data_head++ % r->size] = src[part][i];
}

/* A sample as a PEBS or IBS record of user code brings it: the IP exact. */
#define USER_EXACT (PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP)

static void put_sample_misc(struct ring *r, uint64_t ip, uint64_t addr, uint16_t misc)
{
	uint64_t body[2] = { ip, addr };

	put_record(r, PERF_RECORD_SAMPLE, misc, body, 2);
}

static void put_sample(struct ring *r, uint64_t ip, uint64_t addr)
{
	put_sample_misc(r, ip, addr, USER_EXACT);
}

static int drain(struct ring *r, struct wt_pmu_sample *s, uint64_t *lost)
{
	return (int)wt_pmu_drain(r->meta, r->data, r->size, s, lost);
}

static void test_ring(void)
{
	static struct perf_event_mmap_page meta;
	static uint8_t data[256];
	struct ring ring = { &meta, data, sizeof(data) }, *r = &ring;
	struct wt_pmu_sample s = { 0, 0, 0 };
	uint64_t lost = 0, lostrec[2] = { 7, 5 }, throttle[3] = { 1, 2, 3 };
	int i;

	tap_ok(drain(r, &s, &lost) == 0 && r->meta->data_tail == 0,
	       "an empty ring: no sample");
	put_sample(r, 0x401000, 0x7000);
	tap_ok(drain(r, &s, &lost) == 1 && s.ip == 0x401000 && s.misc == USER_EXACT &&
		       s.addr == 0x7000 && r->meta->data_tail == r->meta->data_head,
	       "one sample: its ip and address, and the ring consumed");
	put_sample(r, 1, 10);
	put_record(r, PERF_RECORD_LOST, 0, lostrec, 2);
	put_record(r, PERF_RECORD_THROTTLE, 0, throttle, 3);
	put_sample(r, 2, 20);
	tap_ok(drain(r, &s, &lost) == 2 && s.ip == 2 && s.addr == 20 &&
		       lost == 5,
	       "two samples, a lost and a throttle record: the newest sample, 5 lost");
	for (i = 0; i < 40; i++) {	/* each 24 bytes: the records wrap around */
		put_sample(r, 100 + i, 1000 + i);
		if (drain(r, &s, &lost) != 1 || s.ip != 100 + (uint64_t)i ||
		    s.addr != 1000 + (uint64_t)i)
			break;
	}
	tap_ok(i == 40, "records that wrap around the ring's end read whole (%d of 40)", i);
	put_sample(r, 3, 30);
	r->meta->data_head -= 4;	/* the kernel's write is not all there */
	tap_ok(drain(r, &s, &lost) == 0 &&
		       r->meta->data_tail == r->meta->data_head,
	       "a torn record: dropped, not read past");
}

/* ---- from a sample record to a verdict ---- */

/* The store a record names; an execute breakpoint on the instruction
 * after it delivers the sample's signal as a PMU interrupt would. */
extern const char pmu_store[], pmu_after[];
__attribute__((noinline, noclone)) static void store_once(volatile long *p, long v)
{
	__asm__ volatile(".globl pmu_store\npmu_store: movq %1, (%0)\n"
			 ".globl pmu_after\npmu_after: nop\n" ::"r"(p), "r"(v) : "memory");
}

static struct wt_thread th;
static struct ring ring;	/* th's */
static volatile long target, other;
static int breakpoint_fd = -1;
static volatile int traps;
static uintptr_t sample_addr;

static void on_breakpoint(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	ioctl(breakpoint_fd, PERF_EVENT_IOC_DISABLE, 0);
	put_sample(&ring, (uintptr_t)pmu_store, sample_addr);
	wt_pmu_on_sample(&th, uc);
}

static void on_watch_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	traps++;
	wt_on_trap(&th, si->si_fd, uc);
}

static void handle(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

/* The sample's signal right after store_once(p)'s store, with a record
 * naming it at address addr. */
static void sample_store(volatile long *p, uintptr_t addr)
{
	sample_addr = addr;
	breakpoint_fd = core_perf_breakpoint(HW_BREAKPOINT_X, (uintptr_t)pmu_after, 8, 1);
	if (breakpoint_fd < 0 || core_perf_route(breakpoint_fd, SIGUSR1, th.tid) < 0)
		tap_diag("no execute breakpoint");
	store_once(p, 1);
	close(breakpoint_fd);
}

static int watching(uintptr_t addr)
{
	int i;

	for (i = 0; i < th.nslots; i++)
		if (th.slot[i].state == WT_SLOT_WATCH && th.slot[i].ea == addr)
			return i;
	return -1;
}

static double pair_total(int waste)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; i < th.cct.npairs; i++)
		sum += waste ? th.cct.pairs[i].waste : th.cct.pairs[i].use;
	return sum;
}

static void test_sample_to_verdict(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct ring *r = &ring;
	int slot;
	long v;

	wd_init();
	wt_unwind_init();
	wt_cfg.craft = WT_CRAFT_DEAD;
	wt_cfg.pmu = 1;
	wt_sig_trap = SIGUSR2;
	handle(SIGUSR1, on_breakpoint);
	handle(SIGUSR2, on_watch_trap);
	memset(&th, 0, sizeof(th));
	th.tid = (pid_t)syscall(SYS_gettid);
	th.nslots = WT_MAX_SLOTS;
	for (slot = 0; slot < WT_MAX_SLOTS; slot++)
		th.slot[slot].fd = -1;
	th.probe.reg.fd = -1;
	th.pmu_fd = -1;
	wt_reservoir_init(&th.reservoir, WT_MAX_SLOTS);
	th.rng = 42;
	th.pc_cache = malloc(wd_pc_cache_bytes(64));
	wd_pc_cache_init(th.pc_cache, 64);
	/* The ring's geometry as the kernel's: its page, then the data. */
	th.pmu_ring = mmap(NULL, (1 + WT_PMU_RING_PAGES) * page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ring.meta = th.pmu_ring;
	ring.meta->data_offset = page;	/* as the kernel fills them in */
	ring.meta->data_size = WT_PMU_RING_PAGES * page;
	ring.data = (uint8_t *)th.pmu_ring + page;
	ring.size = WT_PMU_RING_PAGES * page;
	if (wt_cct_init(&th.cct, 4096, 256) < 0 || th.pmu_ring == MAP_FAILED || !th.pc_cache) {
		tap_ok(0, "set up a thread");
		return;
	}

	sample_store(&target, (uintptr_t)&target);
	slot = watching((uintptr_t)&target);
	tap_ok(th.st.samples == 1 && slot >= 0, "a store sample arms a watch on its address");
	if (slot < 0)
		return;
	tap_ok(th.slot[slot].acc.pc == (uintptr_t)pmu_store && th.slot[slot].acc.kind == WD_STORE &&
		       th.slot[slot].acc.size == 8 && th.slot[slot].bp_type == HW_BREAKPOINT_RW,
	       "the watch knows the sampled store (pc, 8 bytes) and traps on reads and writes");
	tap_ok(th.cct.nodes[th.slot[slot].watch_node].pc == (uintptr_t)pmu_store &&
		       th.cct.nodes[th.slot[slot].watch_node].parent != 0,
	       "its context: the store, under store_once's callers");
	store_once(&target, 2);
	tap_ok(traps == 1 && pair_total(1) > 0 && pair_total(0) == 0 && watching((uintptr_t)&target) < 0,
	       "the next store traps and is judged dead (waste %.1f), the watch ends", pair_total(1));

	sample_store(&target, (uintptr_t)&target);
	v = target;
	__asm__ volatile("" ::: "memory");	/* its trap's handler changed th */
	tap_ok(traps == 2 && v == 1 && pair_total(0) > 0, "a load after the sample: used (%.1f)",
	       pair_total(0));

	sample_store(&target, 0);
	tap_ok(th.st.pmu_samples_other == 1 && watching(0) < 0, "a sample without an address: not watched");
	sample_store(&other, (uintptr_t)&other);
	put_sample_misc(r, (uintptr_t)pmu_store, (uintptr_t)&other,
			PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_EXACT_IP);
	wt_pmu_on_sample(&th, NULL);	/* none of these reaches the unwinder */
	tap_ok(th.st.pmu_samples_other == 2, "a sample in the kernel: not watched");
	put_sample_misc(r, (uintptr_t)pmu_store, (uintptr_t)&other, PERF_RECORD_MISC_USER);
	wt_pmu_on_sample(&th, NULL);
	tap_ok(th.st.pmu_samples_other == 3, "a sample whose IP is not exact: not watched");
	wt_cfg.own_text_lo = (uintptr_t)pmu_store;
	wt_cfg.own_text_hi = (uintptr_t)pmu_after;
	put_sample(r, (uintptr_t)pmu_store, (uintptr_t)&other);
	wt_pmu_on_sample(&th, NULL);
	wt_cfg.own_text_lo = wt_cfg.own_text_hi = 0;
	tap_ok(th.st.pmu_samples_other == 4, "a sample in witch's own code: not watched");
	put_sample(r, (uintptr_t)test_ring, (uintptr_t)&other);	/* a function's first bytes: no store */
	put_sample(r, (uintptr_t)pmu_store, 0);
	wt_pmu_on_sample(&th, NULL);
	tap_ok(th.st.pmu_samples_lost == 1 && th.st.pmu_samples_other == 5,
	       "two records in one signal: the older counted lost");
	wt_slots_close(&th);
}

int main(void)
{
	test_events();
	test_ring();
	test_sample_to_verdict();
	return tap_done();
}
