/*
 * clock.h - a clock's time in nanoseconds: the runtimes take thread CPU
 * time in their handlers, the causal runtime the monotonic clock with
 * every sample, and profiles the wall clock. Async-signal-safe.
 */
#ifndef WITCH_CORE_CLOCK_H
#define WITCH_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t core_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
