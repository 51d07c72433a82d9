/*
 * causal.h - state shared by the parts of libwitchcausal.so, the runtime of
 * `witch causal` (COZ, docs/causal.md).
 *
 * Every thread samples its own CPU time with a perf task-clock event whose
 * ring buffer it drains at perf's signal (every sample, see sampler.c) and
 * at every interposed pthread call. A profiler thread runs experiments:
 * while one runs, a sample in the selected line raises the thread's local
 * delay count and, when that passes the global count, the global count; a
 * thread whose local count is behind the global one pauses for the
 * difference (virtual speedup, COZ section 3). The profile is a text file
 * appended to with write(2) (profile.c).
 */
#ifndef WITCH_CAUSAL_H
#define WITCH_CAUSAL_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/contract.h"
#include "core/fmt.h"

#define WC_EXPORT __attribute__((visibility("default")))

#define WC_MAX_COUNTERS 256
#define WC_MAX_BREAKPOINTS CAUSAL_MAX_PROGRESS_ADDRS
#define WC_NAME_MAX 256
#define WC_WAKEUP 10		/* samples per poll wakeup (signals come every sample) */
#define WC_STACK_BYTES 512	/* user stack copied with each sample */
#define WC_RING_PAGES 8	/* data pages of each thread's ring buffer */

/* --- configuration (thread.c) ------------------------------------------ */
struct wc_config {
	char outdir[4096];
	char lines_path[4096];
	int end_to_end;
	int progress_uprobes;	/* WITCH_CAUSAL_PROGRESS_COUNTER=uprobe */
	int fixed_line;		/* -1: chosen by samples */
	int fixed_speedup;	/* -1: random */
	int speedups[CAUSAL_MAX_SPEEDUPS];	/* --speedups: draw from these */
	int nspeedups;
	int speedups_have_zero;	/* else a third are 0 % baselines, as by default */
	uint64_t period_ns;
	uint64_t min_experiment_ns;
	uint64_t cooloff_ns;
	int delay_budget;	/* % of the run the pauses may take; 100: no limit */
};
extern struct wc_config wc_cfg;
extern int wc_active;		/* 0: every wrapper passes straight through */
extern int wc_signal;		/* the ring buffers' wakeup signal */

uint64_t wc_now(void);		/* CLOCK_MONOTONIC ns */

/* --- threads (thread.c) ------------------------------------------------- */
struct wc_thread {
	struct wc_thread *next;		/* all threads ever started (never freed) */
	struct wc_thread *free_next;	/* ended: reused by a new thread */
	pid_t tid;
	volatile int alive;
	volatile int busy;		/* draining or paying: the handler backs off */
	volatile int blocked;		/* inside a blocking call (Table 2) */
	int fd;				/* task-clock sampler, -1 if none */
	int ring_lock;			/* whoever drains the ring (any thread) */
	struct perf_event_mmap_page *ring;
	size_t ring_bytes;
	uint64_t local;			/* ns of delay executed or skipped (atomic) */
	uint64_t block_global;		/* global count when it blocked */
	uint64_t block_local;		/* and its own */
	int64_t carry_ns;		/* oversleep, taken off the next pause */
	uint64_t samples, lost;
	uint64_t prev_cpu, prev_time;	/* CPU time and clock at the last sample */
	uint64_t preempted_at;		/* switched out while runnable, at */
	uint64_t rng;
};
struct wc_thread *wc_self(void);
/* Threads started and not ended nor blocked in an interposed call
 * (unblocked.c); changed only with wc_unblocked_add, which logs when. */
extern int wc_unblocked;
void wc_unblocked_add(int d);
void wc_unblocked_reset(void);	/* a forked child: its one thread starts again */
/* How much of [a, b] (wc_now's clock) the program had one thread unblocked. */
uint64_t wc_single_ns(uint64_t a, uint64_t b);
/* The whole run's time the program's one running thread waited for a core
 * (the experiments' share is wc_exp.stolen_ns). */
extern uint64_t wc_stolen_total_ns;
struct wc_thread *wc_threads(void);
/* Pending state for a thread being created: the creator's local count. */
void wc_thread_begin(uint64_t inherited_local);
void wc_thread_end(void);

/* --- line table (lines.c) ----------------------------------------------- */
struct wc_line {
	char *loc;		/* FILE:LINE */
	char *function;
};
extern int wc_nlines;
extern struct wc_line *wc_lines;
extern uint64_t *wc_line_samples;	/* per line, whole run (atomic) */
/* Per line, the samples of code it called: the innermost in-scope return
 * address on the sampled stack is in it (atomic). */
extern uint64_t *wc_line_callers;
int wc_lines_load(const char *path);
/* Resolve modules against the loaded objects; not async-signal-safe. */
void wc_lines_resolve(void);
int wc_lines_unresolved(void);
/* Line of a run-time address, or -1. Async-signal-safe. */
int wc_line_of(uintptr_t pc);
/* Line of the first in-scope return address in a copy of the stack. */
int wc_line_from_stack(const uint64_t *words, size_t n);
/* One address of a breakpoint progress point; the `progress` records
 * that share a name are one point, whose visits are their counts summed. */
struct wc_bp {
	uintptr_t addr;		/* run time */
	char name[WC_NAME_MAX];
	int resolved;
	int point;		/* the first slot with this name */
};
extern int wc_nbps;
extern struct wc_bp wc_bps[WC_MAX_BREAKPOINTS];

/* --- progress points (counters.c) ---------------------------------------- */
enum { WC_THROUGHPUT = 1, WC_BEGIN = 2, WC_END = 3 };
struct wc_coz_counter {
	size_t count;
	size_t backoff;
};
struct wc_counter {
	struct wc_coz_counter c;	/* what _coz_get_counter hands out */
	int type;
	char name[WC_NAME_MAX];
};
extern struct wc_counter wc_counters[WC_MAX_COUNTERS];
int wc_ncounters(void);
/* Breakpoint progress points: inherited counting events (no signal). */
void wc_breakpoints_open(void);
void wc_breakpoints_close(void);
uint64_t wc_breakpoint_count(int i);
/* Visits of the point whose first slot is i: its slots' counts summed. */
uint64_t wc_breakpoint_point_count(int i);

/* --- sampling (sampler.c) ------------------------------------------------ */
int wc_sampler_start(struct wc_thread *t);
void wc_sampler_stop(struct wc_thread *t);
/* Process the samples t's ring buffer holds (any thread may: a sample
 * counts when the first thread that looks at it sees it). Caller sets its
 * own busy flag. */
void wc_drain(struct wc_thread *t);
/* All threads' buffers. */
void wc_drain_all(void);
/* A new sampling period, uniform in [3/4, 5/4] of the configured one: a
 * fixed period strobes loops of a commensurate length. */
void wc_sampler_jitter(struct wc_thread *t);
extern int wc_next_line;	/* line of the latest in-scope sample */

/* --- virtual speedup (delay.c) -------------------------------------------- */
struct wc_experiment_state {
	uint64_t global;		/* ns of delay every thread owes (atomic) */
	int line;			/* selected line, -1 none */
	int counting;			/* samples in `line` count as delays */
	int settling;			/* it ended: threads pay what they owe */
	uint64_t speedup;		/* percent */
	uint64_t g0;			/* global count at the start: older debts are void */
	uint64_t t0;			/* its start (wc_now): older samples do not count */
	uint64_t selected_samples;	/* samples in the line during the experiment */
	uint64_t delays;		/* of them, those that raised the global count */
	uint64_t stolen_ns;		/* the program's one running thread waited for a core */
};
extern struct wc_experiment_state wc_exp;
/* A sample of thread t, taken at `time` (wc_now's clock), landed in
 * `line`; it stands for `ns` of the thread's CPU time. */
void wc_on_line_sample(struct wc_thread *t, int line, uint64_t ns, uint64_t time);
/* Drain the samples, then pause for what t owes. Table 1, thread exit. */
void wc_catch_up(struct wc_thread *t);
/* The same from the thread's own samples only (before taking a lock). */
void wc_pay_own(struct wc_thread *t);
void wc_pre_block(struct wc_thread *t);
void wc_post_block(struct wc_thread *t, int skip);
/* The pauses so far: their total, their number, and how much longer they
 * took than asked. */
void wc_delays_paused(uint64_t *ns, uint64_t *n, uint64_t *over_ns);

/* --- experiments (experiment.c) ------------------------------------------ */
int wc_profiler_start(void);
/* How long the delay budget has held the next experiment back (ns). */
extern uint64_t wc_budget_held_ns;
/* The process ends: the experiment running is dropped (end-to-end: closed). */
void wc_profiler_stop(void);

/* --- profile (profile.c) ------------------------------------------------ */
int wc_profile_open(void);
void wc_profile_progress(const char *name, const char *kind);
/* One record (may be several lines), written with one write(2). */
void wc_profile_record(const struct core_fmt *rec);
/* `samples`, `runtime` and `end` lines; rename to the final name. */
void wc_profile_finish(int complete, int status);
/* Around exec: finish, and undo if the exec failed. */
void wc_profile_before_exec(void);
void wc_profile_drop(void);	/* before an exec of a launcher (core/job.h) */
void wc_profile_exec_failed(void);

/* A record, formatted by the core (core/fmt.h) into its own buffer:
 * what does not fit is cut. Async-signal-safe. */
struct wc_record {
	struct core_fmt f;
	char buf[16384];
};
struct core_fmt *wc_record_start(struct wc_record *r);
/* The causal profile's fields: a name with its tabs and newlines made
 * spaces, and num/den with two decimals. */
void wc_put_name(struct core_fmt *f, const char *s);
void wc_put_frac(struct core_fmt *f, uint64_t num, uint64_t den);

#endif
