/*
 * perf.c - perf events and CPU timers (perf.h). Not for handlers, except
 * core_perf_breakpoint_attr and core_perf_open (system calls only).
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/perf.h"

void core_perf_attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

int core_perf_open(struct perf_event_attr *a)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void core_perf_breakpoint_attr(struct perf_event_attr *a, int bp_type, uintptr_t addr,
			       unsigned len)
{
	/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES insists every other field matches
	 * the open-time attributes, so one function builds both. */
	core_perf_attr_init(a, PERF_TYPE_BREAKPOINT, 0);
	a->bp_type = bp_type;
	a->bp_addr = addr;
	a->bp_len = bp_type == HW_BREAKPOINT_X ? sizeof(long) : len;
	a->sample_period = 1;
	a->wakeup_events = 1;
}

int core_perf_breakpoint(int bp_type, uintptr_t addr, unsigned len, int enabled)
{
	struct perf_event_attr a;

	core_perf_breakpoint_attr(&a, bp_type, addr, len);
	a.disabled = !enabled;
	return core_perf_open(&a);
}

int core_perf_route(int fd, int sig, int tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };

	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || fcntl(fd, F_SETSIG, sig) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0)
		return -1;
	return 0;
}

int core_perf_task_clock(uint64_t period_ns)
{
	struct perf_event_attr a;

	core_perf_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = period_ns;
	a.wakeup_events = 1;
	return core_perf_open(&a);
}

int core_cpu_timer(int sig, int tid, timer_t *timer)
{
	struct sigevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = sig;
	ev._sigev_un._tid = tid;
	return timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, timer) < 0 ? -1 : 0;
}

enum core_cpu_vendor core_cpu_vendor(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return CORE_CPU_OTHER;
	/* The vendor string is in ebx, edx, ecx. */
	if (b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e)	/* GenuineIntel */
		return CORE_CPU_INTEL;
	if (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163)	/* AuthenticAMD */
		return CORE_CPU_AMD;
	return CORE_CPU_OTHER;
}

/* The first line of ROOT/PMU/FILE into buf; 0 or -1. Not for handlers. */
static int read_pmu_file(const char *root, const char *pmu, const char *file, char *buf,
			 size_t cap)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", root ? root : CORE_SYSFS_PMUS, pmu, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int core_perf_pmu_type(const char *root, const char *pmu)
{
	char buf[32], *end;
	long v;

	if (read_pmu_file(root, pmu, "type", buf, sizeof(buf)) < 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end != buf && !*end && v >= 0 && v < 1L << 30 ? (int)v : -1;
}

/* The bit a one-bit format field sets (FILE holds "config:N", or
 * "config2:N" in config word 2): the bit, and the word in *word; -1 if none. */
static int format_bit(const char *root, const char *pmu, const char *field, int *word)
{
	char buf[64], file[64];
	int bit, n = 0;

	snprintf(file, sizeof(file), "format/%s", field);
	if (read_pmu_file(root, pmu, file, buf, sizeof(buf)) < 0)
		return -1;
	*word = 0;
	if (sscanf(buf, "config:%d%n", &bit, &n) != 1 &&
	    (sscanf(buf, "config%d:%d%n", word, &bit, &n) != 2 || *word < 1 || *word > 2))
		return -1;
	return buf[n] || bit < 0 || bit > 63 ? -1 : bit;
}

uint64_t core_perf_memory_default_period(enum core_cpu_vendor v, int want_store)
{
	if (v == CORE_CPU_AMD)
		return 1000000;	/* ops of every kind, a multiple of 16 */
	return want_store ? 5000011 : 10000019;	/* WITCH §7: 5M stores, 10M loads, prime */
}

/*
 * Intel: PEBS on MEM_INST_RETIRED.ALL_STORES / ALL_LOADS (event 0xd0,
 * umask 0x82 / 0x81; MEM_UOPS_RETIRED before Skylake, the same code), the
 * WITCH paper's events. A hybrid CPU's P-cores are the cpu_core PMU; its
 * E-cores (cpu_atom) are not sampled. AMD: IBS op sampling counting
 * dispatched ops (cnt_ctl), one op in `period` of every kind; the handler
 * keeps the accesses of the wanted kind, which is still one in so many of
 * them.
 */
int core_perf_memory_attr(struct perf_event_attr *a, enum core_cpu_vendor v, const char *root,
			  int want_store, uint64_t period, char *why, size_t cap)
{
	int type, bit, word;

	core_perf_attr_init(a, 0, 0);	/* type and config by vendor */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	a->wakeup_events = 1;
	a->sample_period = period ? period : core_perf_memory_default_period(v, want_store);
	if (v == CORE_CPU_INTEL) {
		type = core_perf_pmu_type(root, "cpu_core");
		if (type < 0 && core_perf_pmu_type(root, "cpu") < 0) {
			snprintf(why, cap, "no Intel core PMU (no %s/cpu): a VM without a virtual PMU?",
				 root ? root : CORE_SYSFS_PMUS);
			return -1;
		}
		a->type = type >= 0 ? (uint32_t)type : PERF_TYPE_RAW;
		a->config = want_store ? 0x82d0 : 0x81d0;
		a->precise_ip = 2;
		return 0;
	}
	if (v == CORE_CPU_AMD) {
		type = core_perf_pmu_type(root, "ibs_op");
		if (type < 0) {
			snprintf(why, cap, "no AMD IBS op PMU (no %s/ibs_op): a VM, or a CPU "
					   "without IBS?", root ? root : CORE_SYSFS_PMUS);
			return -1;
		}
		bit = format_bit(root, "ibs_op", "cnt_ctl", &word);
		if (bit < 0 || word != 0) {
			snprintf(why, cap, "this kernel's IBS op PMU cannot count ops (no "
					   "format/cnt_ctl), only cycles, which would weigh accesses "
					   "by time");
			return -1;
		}
		a->type = (uint32_t)type;
		a->config = 1ULL << bit;
		a->sample_period = (a->sample_period + 15) & ~15ULL;	/* IBS counts by 16 */
		/* IBS filters privilege levels only with its swfilt bit (Linux
		 * 6.14); before, it refuses every exclude flag, and the handler
		 * drops kernel samples itself. */
		a->exclude_hv = 0;
		bit = format_bit(root, "ibs_op", "swfilt", &word);
		if (bit >= 0 && word == 2)
			a->config2 = 1ULL << bit;
		else
			a->exclude_kernel = 0;
		return 0;
	}
	snprintf(why, cap, "precise memory sampling needs an Intel (PEBS) or AMD (IBS) CPU");
	return -1;
}

int core_perf_memory_open(struct perf_event_attr *a)
{
	int fd = core_perf_open(a);

	/* A kernel that cannot filter this PMU's samples by privilege level
	 * refuses the flag (the handler then drops kernel samples). Lower
	 * precision is never taken: without precise_ip 2 the IP is the next
	 * instruction's, not the access's. */
	if (fd < 0 && (errno == EINVAL || errno == EOPNOTSUPP) && a->exclude_kernel) {
		a->exclude_kernel = 0;
		a->exclude_hv = 0;
		fd = core_perf_open(a);
	}
	return fd;
}
