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

#endif
