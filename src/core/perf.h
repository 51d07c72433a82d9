/*
 * perf.h - the perf_event_open calls of both runtimes and the CLI's
 * checks of them, and the timer sample source: a POSIX timer on a
 * thread's CPU time. Events are the calling thread's, user space only.
 */
#ifndef WITCH_CORE_PERF_H
#define WITCH_CORE_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Zero *a and set what every event here has: its size, type and config,
 * and neither kernel nor hypervisor counted. */
void core_perf_attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config);
/* Open a on the calling thread, any CPU, close-on-exec. fd, or -1 + errno. */
int core_perf_open(struct perf_event_attr *a);

/* A breakpoint event on the calling thread, disabled or enabled. -1 + errno on failure. */
int core_perf_breakpoint(int bp_type, uintptr_t addr, unsigned len, int enabled);
void core_perf_breakpoint_attr(struct perf_event_attr *a, int bp_type, uintptr_t addr,
			       unsigned len);
/* Route the event's overflow signal `sig` to thread `tid`. 0 or -1. */
int core_perf_route(int fd, int sig, int tid);
/* A task-clock event sampling every `period_ns` of this thread's CPU time. */
int core_perf_task_clock(uint64_t period_ns);
/* A timer on thread `tid`'s CPU time that signals `sig` to that thread,
 * not armed yet. 0 or -1. */
int core_cpu_timer(int sig, int tid, timer_t *timer);

/* Where sysfs lists the perf PMUs (a test passes a directory of its own). */
#define CORE_SYSFS_PMUS "/sys/bus/event_source/devices"

enum core_cpu_vendor { CORE_CPU_OTHER = 0, CORE_CPU_INTEL, CORE_CPU_AMD };
enum core_cpu_vendor core_cpu_vendor(void);

/* The perf type of PMU `pmu` under `root` (NULL: CORE_SYSFS_PMUS), or -1. */
int core_perf_pmu_type(const char *root, const char *pmu);

/*
 * The precise memory event of witch record --source=pmu on a CPU of vendor
 * v: a sample every `period` stores (want_store) or loads retired (0: the
 * default), carrying the instruction's address and the data address
 * (PERF_SAMPLE_IP, PERF_SAMPLE_ADDR), one wakeup per sample. 0, or -1 with
 * why this machine has none.
 */
int core_perf_memory_attr(struct perf_event_attr *a, enum core_cpu_vendor v, const char *root,
			  int want_store, uint64_t period, char *why, size_t cap);
/* What period 0 means: accesses (Intel) or ops (AMD IBS) per sample. */
uint64_t core_perf_memory_default_period(enum core_cpu_vendor v, int want_store);
/* Open it on the calling thread, without the kernel filter if this PMU
 * cannot filter (a is updated to what opened). fd, or -1 with errno. */
int core_perf_memory_open(struct perf_event_attr *a);

#endif
