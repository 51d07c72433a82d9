/*
 * perfcheck.h - can this machine and user do what witch record needs?
 */
#ifndef WITCH_PERFCHECK_H
#define WITCH_PERFCHECK_H

#include <stddef.h>

/* perf_event_paranoid as an integer, or -99 when unreadable. */
int perf_paranoid(void);

/* Number of hardware breakpoints this process can open (0..8); -1 with
 * a reason in err when perf_event_open itself is refused or missing. */
int perf_debug_registers(char *err, size_t errlen);

#endif
