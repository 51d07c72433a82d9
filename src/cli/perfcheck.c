#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/hw_breakpoint.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/perfcheck.h"
#include "core/perf.h"
#include "core/uprobe.h"

int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

/* Why perf_event_open failed with e, or 0 when e is no refusal. */
static int explain_refusal(int e, char *err, size_t errlen)
{
	if (e == EACCES || e == EPERM) {
		int p = perf_paranoid();

		if (p > 2 && geteuid() != 0)
			snprintf(err, errlen,
				 "perf_event_open was refused (%s; kernel.perf_event_paranoid = %d): run "
				 "as root, or allow user-space events with `sysctl "
				 "kernel.perf_event_paranoid=2`", strerror(e), p);
		else
			snprintf(err, errlen,
				 "perf_event_open was refused (%s) although kernel.perf_event_paranoid "
				 "= %d allows it: a seccomp filter or container policy blocks it; allow "
				 "the perf_event_open system call", strerror(e), p);
		return -1;
	}
	if (e == ENOSYS) {
		snprintf(err, errlen, "this kernel has no perf_event_open (CONFIG_PERF_EVENTS is off)");
		return -1;
	}
	return 0;
}

/*
 * Does a watchpoint that opens also fire? A VM restored from a snapshot
 * (Firecracker here) was seen to accept breakpoint events and never
 * trigger them: record would run and write profiles without one watch.
 * 1 if it fires, 0 if not, -1 if it cannot be opened.
 */
static int breakpoint_fires(void)
{
	static volatile long probe;
	long count = 0;
	int fd = core_perf_breakpoint(HW_BREAKPOINT_W, (uintptr_t)&probe, 8, 1), i;

	if (fd < 0)
		return -1;
	for (i = 0; i < 4; i++)
		probe = i;
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	close(fd);
	return count > 0;
}

int perf_debug_registers(char *err, size_t errlen)
{
	static long target[8];
	int fds[8], n = 0, i, e = 0;

	while (n < 8) {
		fds[n] = core_perf_breakpoint(HW_BREAKPOINT_W, (uintptr_t)&target[n], 8, 0);
		if (fds[n] < 0) {
			e = errno;
			break;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (n > 0 && breakpoint_fires() == 0) {
		snprintf(err, errlen,
			 "hardware breakpoints open but never fire on this machine (the hypervisor "
			 "does not deliver debug traps; seen on a VM resumed from a snapshot): "
			 "restart the VM");
		return 0;
	}
	if (n > 0)
		return n;
	if (explain_refusal(e, err, errlen) < 0)
		return -1;
	snprintf(err, errlen,
		 "no hardware debug registers available (perf breakpoint events fail: %s); "
		 "witch record needs them (a debugger or another profiler may hold them all)",
		 strerror(e));
	return 0;
}

/*
 * --watch=pages needs syscall user dispatch (Linux 5.11) to keep protected
 * pages away from system calls. Asking it to stay off tells whether the
 * kernel knows it, without turning it on.
 */
int perf_page_watch_ok(char *err, size_t errlen)
{
	if (prctl(59 /* PR_SET_SYSCALL_USER_DISPATCH */, 0 /* OFF */, 0, 0, 0) == 0)
		return 0;
	snprintf(err, errlen,
		 "watching with page protection needs syscall user dispatch (Linux 5.11 or "
		 "later; prctl says: %s)",
		 strerror(errno));
	return -1;
}

int perf_memory_sampling_ok(int want_store, uint64_t period, char *err, size_t errlen)
{
	struct perf_event_attr a;
	char why[512];
	int fd, e;

	if (core_perf_memory_attr(&a, core_cpu_vendor(), NULL, want_store, period, why,
				sizeof(why)) < 0) {
		snprintf(err, errlen, "no precise memory sampling here (%s)", why);
		return -1;
	}
	fd = core_perf_memory_open(&a);
	e = errno;
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (explain_refusal(e, err, errlen) == 0)
		snprintf(err, errlen, "the CPU's precise %s event does not open (%s): a VM whose "
				      "virtual PMU lacks PEBS or IBS?", want_store ? "store" : "load",
			 strerror(e));
	return -1;
}

int perf_task_clock_ok(char *err, size_t errlen)
{
	int fd = core_perf_task_clock(1000000), e = errno;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (explain_refusal(e, err, errlen) == 0)
		snprintf(err, errlen, "perf's task-clock event cannot be opened (%s)", strerror(e));
	return -1;
}

/* Does this process have CAP_PERFMON or CAP_SYS_ADMIN, which uprobe
 * events need whatever kernel.perf_event_paranoid says? */
static int perfmon_capable(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return 0;
	return (d[CAP_PERFMON / 32].effective >> (CAP_PERFMON % 32) & 1) ||
	       (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32) & 1);
}

static void explain_uprobe_failure(int e, char *err, size_t errlen)
{
	if ((e == EACCES || e == EPERM) && !perfmon_capable())
		snprintf(err, errlen, "uprobe events were refused (%s): they need root or "
				      "CAP_PERFMON, whatever kernel.perf_event_paranoid allows", strerror(e));
	else if (explain_refusal(e, err, errlen) == 0)
		snprintf(err, errlen, "a uprobe on witch's own code cannot be opened (%s)", strerror(e));
}

/* What perf_uprobes_ok probes: its first instruction runs once a call. */
static volatile int probed_calls;
__attribute__((noinline)) static void probed(void)
{
	probed_calls++;
}

int perf_uprobes_ok(char *err, size_t errlen)
{
	static char path[PATH_MAX];	/* the kernel may read it while the event lives */
	uint64_t count = 0;
	int fd, i;

	if (core_uprobe_type() < 0) {
		snprintf(err, errlen, "this kernel has no uprobe perf events (no "
				      "/sys/bus/event_source/devices/uprobe: CONFIG_UPROBE_EVENTS is off)");
		return -1;
	}
	fd = core_uprobe_open((uintptr_t)probed, path, sizeof(path));
	if (fd < 0) {
		explain_uprobe_failure(errno, err, errlen);
		return -1;
	}
	for (i = 0; i < 5; i++)
		probed();
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	close(fd);
	if (count != 5) {
		snprintf(err, errlen, "a uprobe opens but counted %llu of 5 calls",
			 (unsigned long long)count);
		return -1;
	}
	return 0;
}
