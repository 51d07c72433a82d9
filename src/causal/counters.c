/*
 * counters.c - progress points.
 *
 * Source-level points are coz.h's ABI: the program asks
 * _coz_get_counter(type, name) once per site and then increments
 * `count` atomically. Counters live in a fixed table and never move.
 *
 * Breakpoint points (`progress` records of the line table) count visits of
 * an address (or of several, summed: the records that share a name) with
 * a perf execute breakpoint in counting mode, or, where the
 * CLI found that hardware breakpoints do not fire, with a uprobe (a
 * software breakpoint the kernel counts): no signal either way, opened once
 * in the main thread and inherited by the threads it and its descendants
 * create (not by forked processes).
 */
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <unistd.h>

#include "causal/causal.h"
#include "core/perf.h"
#include "core/uprobe.h"

struct wc_counter wc_counters[WC_MAX_COUNTERS];
static int ncounters;
static int table_lock;
static int bp_fd[WC_MAX_BREAKPOINTS] = { -1, -1, -1, -1 };
/* Uprobes' file paths, which the kernel reads at every thread creation. */
static char bp_path[WC_MAX_BREAKPOINTS][PATH_MAX];

int wc_ncounters(void)
{
	return __atomic_load_n(&ncounters, __ATOMIC_ACQUIRE);
}

static const char *kind_name(int type)
{
	return type == WC_BEGIN ? "begin" : type == WC_END ? "end" : "throughput";
}

WC_EXPORT struct wc_coz_counter *_coz_get_counter(int type, const char *name);

struct wc_coz_counter *_coz_get_counter(int type, const char *name)
{
	struct wc_counter *c = NULL;
	int i, n;

	if (!wc_active || !name || type < WC_THROUGHPUT || type > WC_END)
		return NULL;
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		;
	n = ncounters;
	for (i = 0; i < n; i++) {
		if (wc_counters[i].type == type && !strncmp(wc_counters[i].name, name, WC_NAME_MAX - 1)) {
			c = &wc_counters[i];
			break;
		}
	}
	if (!c && n < WC_MAX_COUNTERS) {
		c = &wc_counters[n];
		c->type = type;
		strncpy(c->name, name, WC_NAME_MAX - 1);
		__atomic_store_n(&ncounters, n + 1, __ATOMIC_RELEASE);
		wc_profile_progress(c->name, kind_name(type));
	}
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
	return c ? &c->c : NULL;
}

static int execute_breakpoint(uintptr_t addr)
{
	struct perf_event_attr a;

	/* Counting mode (no sample period): no signal, only a count. */
	core_perf_attr_init(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = addr;
	a.bp_len = sizeof(long);
	a.inherit = 1;
	a.inherit_thread = 1;
	return core_perf_open(&a);
}

/* Whether slot i is the first resolved slot of its point: the point is
 * declared once, whichever of its addresses the loaded objects have. */
static int first_resolved(int i)
{
	int j;

	for (j = wc_bps[i].point; j < i; j++)
		if (wc_bps[j].point == wc_bps[i].point && wc_bps[j].resolved)
			return 0;
	return 1;
}

void wc_breakpoints_open(void)
{
	int i;

	for (i = 0; i < wc_nbps; i++) {
		if (!wc_bps[i].resolved)
			continue;
		bp_fd[i] = wc_cfg.progress_uprobes
				   ? core_uprobe_open(wc_bps[i].addr, bp_path[i], sizeof(bp_path[i]))
				   : execute_breakpoint(wc_bps[i].addr);
		if (first_resolved(i))
			wc_profile_progress(wc_bps[i].name, "breakpoint");
	}
}

void wc_breakpoints_close(void)
{
	int i;

	for (i = 0; i < WC_MAX_BREAKPOINTS; i++) {
		if (bp_fd[i] >= 0)
			close(bp_fd[i]);
		bp_fd[i] = -1;
	}
}

/* Visits by all threads, living and ended (the kernel sums inherited counts). */
uint64_t wc_breakpoint_count(int i)
{
	uint64_t v = 0;

	if (i < 0 || i >= WC_MAX_BREAKPOINTS || bp_fd[i] < 0 || read(bp_fd[i], &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

uint64_t wc_breakpoint_point_count(int i)
{
	uint64_t v = 0;
	int j;

	for (j = i; j < wc_nbps; j++)
		if (wc_bps[j].point == i)
			v += wc_breakpoint_count(j);
	return v;
}
