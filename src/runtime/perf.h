/*
 * perf.h - the few perf_event_open calls the runtime makes, and the other
 * sample source: a POSIX timer on a thread's CPU time.
 */
#ifndef WITCH_PERF_H
#define WITCH_PERF_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <time.h>

/* A breakpoint event on the calling thread, disabled or enabled. -1 + errno on failure. */
int wt_perf_breakpoint(int bp_type, uintptr_t addr, unsigned len, int enabled);
void wt_perf_breakpoint_attr(struct perf_event_attr *a, int bp_type, uintptr_t addr,
			     unsigned len);
/* Route the event's overflow signal `sig` to thread `tid`. 0 or -1. */
int wt_perf_route(int fd, int sig, int tid);
/* A task-clock event sampling every `period_ns` of this thread's CPU time. */
int wt_perf_task_clock(uint64_t period_ns);
/* A timer on thread `tid`'s CPU time that signals `sig` to that thread,
 * not armed yet. 0 or -1. */
int wt_cpu_timer(int sig, int tid, timer_t *timer);

/* Where sysfs lists the perf PMUs (a test passes a directory of its own). */
#define WT_SYSFS_PMUS "/sys/bus/event_source/devices"

enum wt_cpu_vendor { WT_CPU_OTHER = 0, WT_CPU_INTEL, WT_CPU_AMD };
enum wt_cpu_vendor wt_cpu_vendor(void);

/* The perf type of PMU `pmu` under `root` (NULL: WT_SYSFS_PMUS), or -1. */
int wt_perf_pmu_type(const char *root, const char *pmu);

/*
 * The precise memory event of witch record --source=pmu on a CPU of vendor
 * v: a sample every `period` stores (want_store) or loads retired (0: the
 * default), carrying the instruction's address and the data address
 * (PERF_SAMPLE_IP, PERF_SAMPLE_ADDR), one wakeup per sample. 0, or -1 with
 * why this machine has none.
 */
int wt_perf_memory_attr(struct perf_event_attr *a, enum wt_cpu_vendor v, const char *root,
			int want_store, uint64_t period, char *why, size_t cap);
/* What period 0 means: accesses (Intel) or ops (AMD IBS) per sample. */
uint64_t wt_perf_memory_default_period(enum wt_cpu_vendor v, int want_store);
/* Open it on the calling thread, without the kernel filter if this PMU
 * cannot filter (a is updated to what opened). fd, or -1 with errno. */
int wt_perf_memory_open(struct perf_event_attr *a);

#endif
