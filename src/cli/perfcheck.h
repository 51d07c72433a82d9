/*
 * perfcheck.h - can this machine and user do what witch record and causal need?
 */
#ifndef WITCH_PERFCHECK_H
#define WITCH_PERFCHECK_H

#include <stddef.h>
#include <stdint.h>

/* perf_event_paranoid as an integer, or -99 when unreadable. */
int perf_paranoid(void);

/* Number of hardware breakpoints this process can open (0..8); 0 with a
 * reason in err also when they open but a test watchpoint never fires;
 * -1 with a reason when perf_event_open itself is refused or missing. */
int perf_debug_registers(char *err, size_t errlen);

/* 0 if witch record --watch=pages can run here, else -1 and why in err. */
int perf_page_watch_ok(char *err, size_t errlen);

/* 0 when the CPU's precise store (want_store) or load sampling event,
 * one sample in `period` (0: the default), opens for witch record
 * --source=pmu; -1 with the reason in err. */
int perf_memory_sampling_ok(int want_store, uint64_t period, char *err, size_t errlen);

/* 0 when a perf task-clock event (witch causal's sampler) can be opened;
 * -1 with the reason in err. */
int perf_task_clock_ok(char *err, size_t errlen);

/* 0 when a uprobe on witch's own code counts its calls exactly (witch
 * causal --progress without hardware breakpoints); -1 with the reason. */
int perf_uprobes_ok(char *err, size_t errlen);

#endif
