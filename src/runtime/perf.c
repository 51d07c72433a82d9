#include <fcntl.h>
#include <signal.h>
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/perf.h"

void wt_perf_breakpoint_attr(struct perf_event_attr *a, int bp_type, uintptr_t addr,
			     unsigned len)
{
	/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES insists every other field matches
	 * the open-time attributes, so one function builds both. */
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = bp_type;
	a->bp_addr = addr;
	a->bp_len = bp_type == HW_BREAKPOINT_X ? sizeof(long) : len;
	a->sample_period = 1;
	a->wakeup_events = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int perf_open(struct perf_event_attr *a)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int wt_perf_breakpoint(int bp_type, uintptr_t addr, unsigned len, int enabled)
{
	struct perf_event_attr a;

	wt_perf_breakpoint_attr(&a, bp_type, addr, len);
	a.disabled = !enabled;
	return perf_open(&a);
}

int wt_perf_route(int fd, int sig, int tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };

	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || fcntl(fd, F_SETSIG, sig) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0)
		return -1;
	return 0;
}

int wt_perf_task_clock(uint64_t period_ns)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.wakeup_events = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a);
}

int wt_cpu_timer(int sig, int tid, timer_t *timer)
{
	struct sigevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = sig;
	ev._sigev_un._tid = tid;
	return timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, timer) < 0 ? -1 : 0;
}
