/*
 * runtime.h - state shared by the parts of the preloaded runtime.
 *
 * The runtime is libwitch.so, preloaded into the target. Per thread it owns a
 * sample source (a CPU-time timer), up to four debug-register slots and a
 * calling context tree in preallocated memory. Handlers run on an alternate
 * signal stack and are async-signal-safe: no malloc, no locks, no stdio.
 */
#ifndef WITCH_RUNTIME_H
#define WITCH_RUNTIME_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "runtime/cct.h"
#include "runtime/decode.h"
#include "core/perf.h"
#include "runtime/reservoir.h"

#define WT_MAX_SLOTS 4
#define WT_MAX_FRAMES 256
#define WT_RESUME_REGS (REG_RIP + 1)	/* r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip */

enum wt_craft { WT_CRAFT_DEAD = 0, WT_CRAFT_SILENT, WT_CRAFT_LOAD, WT_CRAFT_SHARE };

/* Process-wide settings, read from the environment the CLI sets. */
struct wt_config {
	int craft;		/* enum wt_craft */
	long rate_hz;		/* timer samples per second of thread CPU time */
	long period_ns;		/* alternative to rate: CPU ns per sample */
	double approx;		/* relative tolerance for floating-point equality */
	int registers;		/* debug registers to use (<= discovered) */
	int spread;		/* --spread: a timer sample stands for one of the next spread accesses */
	int reach;		/* --reach: a timer sample finds its access at most reach
				   instructions on, or stands for none (0: no limit) */
	int use_perf_clock;	/* 1: perf task-clock source, 0: POSIX CPU timer */
	int pmu;		/* --source=pmu: pmu_attr samples, not a timer */
	int samples_only;	/* witch cpi: time samples, no probe or watchpoints */
	uint64_t nominal_khz;	/* witch cpi: the CPU's nominal frequency, 0 if unknown */
	struct perf_event_attr pmu_attr;
	uintptr_t own_text_lo, own_text_hi;	/* libwitch.so's code: no access there is the program's */
	char outdir[4096];
};

/* Counters kept per thread, summed into the profile's `stat` lines. */
struct wt_stats {
	uint64_t samples;
	uint64_t samples_no_access;
	uint64_t samples_out_of_reach;	/* --reach: the access came more instructions on */
	uint64_t samples_skipped_implicit;
	uint64_t samples_reservoir_dropped;
	uint64_t samples_unwind_failed;
	uint64_t watchpoints_armed;
	uint64_t probe_traps;
	uint64_t probes_missed;
	uint64_t traps;
	uint64_t self_traps;
	uint64_t traps_unresolved;
	uint64_t traps_lost;
	uint64_t stores_ignored;
	uint64_t handler_ns;		/* CPU time spent in witch's handlers */
	uint64_t arm_failed;
	uint64_t false_faults;		/* --watch=pages: faults on other bytes of a watched page */
	uint64_t watches_ended;		/* --watch=pages: ended unjudged by a system call or thread */
	uint64_t steps;			/* --watch=pages: single steps of the probe */
	uint64_t samples_in_witch_time;	/* --watch=pages: timer expiries witch's own time took, not sampled */
	uint64_t syscalls_stepped;	/* --watch=pages: system calls run with the pages exposed, watches kept */
	uint64_t watches_released;	/* ended unjudged: the program released their bytes (heap.c) */
	uint64_t syscall_buffer_hits;	/* watches a system call's buffer covered (kernelio.c) */
	uint64_t traps_witch;		/* traps in witch's wrappers: the watch ends unjudged */
	uint64_t pmu_samples_other;	/* --source=pmu: an op of another kind, in the kernel, without
					   an address, or one the craft cannot judge after it ran */
	uint64_t pmu_samples_lost;	/* --source=pmu: lost by the kernel, or several per signal */
	uint64_t traps_masked_off;	/* a masked access whose mask left the watched bytes alone */
	uint64_t sampled_ns;		/* samples only: CPU time the samples stood for */
	uint64_t samples_own_code;	/* samples only: in witch's own code, not the program's */
	uint64_t own_code_ns;		/* ... and their time */
	/* --craft=share (share.c) */
	uint64_t shared_samples;	/* stores published to the other threads */
	uint64_t private_samples;	/* stores to the thread's own stack frames: not published */
	uint64_t share_candidates;	/* other threads' stores this thread could watch */
	uint64_t share_stale;		/* ... published too long before it looked */
	uint64_t share_watches;		/* watches it armed on their lines */
	uint64_t share_expired;		/* ... that its next sample ended untripped */
};

/* WT_SLOT_KERNEL: LoadCraft's watch, disabled while a system call reads or
 * writes its bytes (kernelio.c); it is still the slot's watch. */
enum wt_slot_state { WT_SLOT_FREE = 0, WT_SLOT_WATCH, WT_SLOT_KERNEL };

/* One debug register watching the bytes of a sampled access. */
struct wt_slot {
	int fd;			/* perf breakpoint event, -1 when never opened */
	int state;		/* enum wt_slot_state */
	int bp_type;		/* HW_BREAKPOINT_* currently programmed */
	uintptr_t addr;		/* watched address (aligned) */
	unsigned len;		/* watched length: 1, 2, 4 or 8 */
	uintptr_t page;		/* --watch=pages: the protected page, 0 if none */
	uint32_t watch_node;	/* CCT node of the sampled access */
	struct wd_access acc;	/* the sampled access */
	uintptr_t ea;		/* its effective address */
	uint64_t own;		/* bit i: byte ea + i is the sampled access's (all,
				   or those its AVX-512 mask selected) */
	uintptr_t seen_rip;	/* where the thread was when the watch last saw it:
				   armed, or a trap that kept it (hit.h) */
	uint64_t seen_rcx;	/* and its RCX then */
	int skip_self;		/* the sampled access has yet to run (a string op, or
				   one that overwrites its address registers): its
				   own trap comes first and is not judged */
	int have_value;		/* value holds the sampled access's bytes */
	int value_before;	/* value was read before the access ran (load:
				   what a read-modify-write read, not wrote) */
	uint8_t value[64];	/* silent/load: bytes the sampled access wrote/read */
	uint8_t cur[64];	/* load: bytes as the last ignored store left them */
	double weight;		/* share: what a trap of this watch stands for */
};

/* Does slot s watch (armed, not paused) any byte of [lo, hi)? */
static inline int wt_slot_watches(const struct wt_slot *s, uintptr_t lo, uintptr_t hi)
{
	return s->state == WT_SLOT_WATCH && s->addr < hi && s->addr + s->len > lo;
}

enum wt_probe_state { WT_PROBE_IDLE = 0, WT_PROBE_BEFORE, WT_PROBE_ACCESS };

/*
 * The probe: one debug register kept for execute breakpoints that lead a
 * timer sample to its access. From the interrupted PC the probe walks
 * straight-line code. A conditional jump whose flags are not computed yet,
 * or a string instruction whose rdi/rsi are not, gets an execute
 * breakpoint (BEFORE) and the walk resumes there. An ordinary access gets
 * an execute breakpoint on the instruction after it (ACCESS), where it has
 * just executed, so its address comes from the registers and its own access
 * is never taken for the next one. A string instruction repeats, and
 * `mov 8(%rax),%rax` loses its address as it runs: those are watched from
 * right before they run, and their own trap is skipped (skip_self).
 */
/* Where a sample's walk is: what a draw made again (--spread) rewinds. */
struct wt_walk {
	int hops;		/* jumps, calls, returns and breakpoints followed for this sample */
	int skip;		/* accesses of the wanted kind still to pass over (--spread) */
	int moved;		/* the walk has left rip: the registers are not the ones
				   of an instruction it reaches (a loop brings it back) */
	int reach;		/* instructions the walk may still pass before the first
				   access (wt_cfg.reach) */
	int reached;		/* it met that access: no limit from there (--spread) */
	int passed;		/* accesses passed over since the walk last had registers */
	int pass_breakpoints;	/* breakpoints set for this sample only to pass over more */
	uint32_t parent_node;	/* calling context of the sample, minus the leaf */
	uintptr_t proc_start, proc_end;	/* function being walked */
};

struct wt_probe {
	struct wt_slot reg;	/* the register (fd, programmed address) */
	int state;		/* enum wt_probe_state */
	struct wt_walk walk;
	int target_slot;	/* ACCESS: watch slot the reservoir chose */
	uint32_t node;		/* ACCESS: context of the access */
	struct wd_access acc;	/* BEFORE: the jump or string op; ACCESS: the access */
};

/* kernelio.c: a system call reading or writing the program's buffers. */
enum wt_kernel_dir { WT_KERNEL_READS, WT_KERNEL_WRITES };
/* v- calls of more buffers are not judged: the copy may be on a small
 * signal stack (sysbuf.c's wrappers keep theirs on the program's). */
#define WT_KCALL_MAX_IOV 16
struct wt_kcall {
	uintptr_t leaf;		/* the verdict's leaf: the library function, or the
				   system call instruction */
	ucontext_t *uc;		/* caught in a handler: its context; NULL: unwind here */
	int dir;		/* enum wt_kernel_dir */
	int n;			/* buffers */
	struct iovec iov[WT_KCALL_MAX_IOV];
	unsigned paused;	/* LoadCraft's slots waiting through the call */
	int live;		/* --watch=pages: the call runs, its end is to judge */
};

struct wt_share_recs;

struct wt_thread {
	struct wt_thread *next;		/* all threads, for the profile writer */
	pid_t tid;
	int ready;			/* handlers may use this state */
	int exited;
	uintptr_t fs_base, gs_base;
	timer_t timer;
	int timer_fd;			/* perf task-clock source, -1 if POSIX timer */
	int sampling;			/* its sample source (timer or PMU event) runs */
	int pmu_fd;			/* --source=pmu: the memory event, -1 if none */
	struct perf_event_mmap_page *pmu_ring;	/* its ring buffer: this page, then the data */
	struct wt_slot slot[WT_MAX_SLOTS];
	int nslots;			/* watch slots: registers - 1 (the probe's), or all with --source=pmu */
	struct wt_probe probe;
	struct wt_reservoir reservoir;
	uint64_t rng;
	struct wt_cct cct;
	struct wd_pc_cache *pc_cache;
	struct wt_stats st;
	uint64_t share_next;		/* share: the next published store to look at */
	struct wt_share_recs *share;	/* share: what its watches found */
	uint64_t handler_ns_since_sample;	/* handler CPU time since the timer was armed */
	uint64_t cpu_mark;		/* samples only: thread CPU time when the last
					   sample's handler ended (or the thread began) */
	uint64_t cpu_now;		/* samples only: ... and when this one's began */
	stack_t altstack;
	/* --watch=pages (pagewatch.c) */
	volatile char sud_selector;	/* syscall user dispatch: 1 blocks system calls */
	ucontext_t *uc;			/* the running handler's context */
	uintptr_t step_to;		/* the probe steps until this PC */
	int steps_left;
	int fault_step;			/* an instruction steps over a fault */
	int syscall_step;		/* a system call runs with the pages exposed */
	struct wt_kcall kcall;		/* a caught call's buffers (kernelio.c) */
	int fault_slot;			/* the watch it hit, or -1 */
	greg_t resumed[WT_RESUME_REGS];	/* registers witch's last handler returned to */
	int resumed_valid;
};

extern struct wt_config wt_cfg;

/* libwitch.so's code: its wrappers (sysbuf.c, heap.c) run in the
 * program's time, but neither their accesses nor their time are the
 * program's. */
static inline int wt_own_code(uintptr_t pc)
{
	return pc >= wt_cfg.own_text_lo && pc < wt_cfg.own_text_hi;
}

extern int wt_sig_sample, wt_sig_trap;
extern volatile int wt_stopping;

/* thread.c: process life cycle */
void wt_own_tls(const struct wt_thread *t, uintptr_t *lo, uintptr_t *hi);
void wt_process_exit(int complete);

/* thread.c */
struct wt_thread *wt_self(void);
struct wt_thread *wt_threads(void);
/* The calling thread, when the program's own calls (outside witch's
 * handlers) may end or judge its watches; else NULL. */
struct wt_thread *wt_self_watching(void);
/* Hold off witch's signals while the program's call changes the slots. */
void wt_block_own_signals(sigset_t *old);
void wt_restore_signals(const sigset_t *old);
int wt_thread_start(void);
void wt_thread_stop(void);

/* sampler.c */
int wt_sampler_start(struct wt_thread *t);
void wt_sampler_stop(struct wt_thread *t);
void wt_on_sample(struct wt_thread *t, ucontext_t *uc);
void wt_sampler_skip(struct wt_thread *t);

/* pmu.c: the PMU sample source */
struct wt_pmu_sample {
	uint64_t ip, addr;
	uint16_t misc;		/* the record's PERF_RECORD_MISC_* */
};
/* Data pages after the ring's first; a power of two. A record is 24 bytes
 * and each brings a signal: one page holds 170. The pages count against
 * the user's locked-memory limit for perf. */
#define WT_PMU_RING_PAGES 1
int wt_pmu_start(struct wt_thread *t);
void wt_pmu_stop(struct wt_thread *t);
void wt_pmu_forget(struct wt_thread *t);
void wt_pmu_on_sample(struct wt_thread *t, ucontext_t *uc);
/* Around witch's own handlers: their stores and loads are not the program's. */
void wt_pmu_pause(struct wt_thread *t);
void wt_pmu_resume(struct wt_thread *t);
/*
 * Consume the records the kernel wrote to ring `meta` (its data: `size`
 * bytes, a power of two, right after meta's page) since the last call.
 * Returns the samples among them, the newest in *last; adds the samples
 * the kernel reported lost to *lost. Async-signal-safe.
 */
unsigned wt_pmu_drain(struct perf_event_mmap_page *meta, const uint8_t *data, uint64_t size,
		      struct wt_pmu_sample *last, uint64_t *lost);

/* probe.c */
/* A sampled access that has already executed (a PMU sample): watch its
 * bytes at ea, in context parent + its pc. */
void wt_probe_executed(struct wt_thread *t, uint32_t parent, const struct wd_access *acc,
		       uintptr_t ea);
void wt_probe_start(struct wt_thread *t, const uintptr_t *pcs, int n, uintptr_t proc_start,
		    uintptr_t proc_end, ucontext_t *uc);
void wt_probe_fired(struct wt_thread *t, ucontext_t *uc);
void wt_probe_cancel(struct wt_thread *t);

/* watch.c */
int wt_debug_registers(void);
int wt_slot_program(struct wt_thread *t, struct wt_slot *s, int bp_type, uintptr_t addr,
		    unsigned len);
void wt_slot_disable(struct wt_thread *t, struct wt_slot *s);
void wt_slot_free(struct wt_thread *t, struct wt_slot *s);
void wt_slots_close(struct wt_thread *t);
void wt_on_trap(struct wt_thread *t, int fd, ucontext_t *uc);
void wt_watch_trap(struct wt_thread *t, struct wt_slot *s, ucontext_t *uc);
struct wt_watched;
void wt_slot_watched(const struct wt_thread *t, const struct wt_slot *s, struct wt_watched *w);
/* The watch of slot s sees the thread at uc (NULL: nowhere known). */
void wt_slot_seen(struct wt_slot *s, const ucontext_t *uc);
/*
 * The piece of the access [ea, ea + size) that a watch covers, the one
 * holding byte r % size of it: its address in *piece, its length returned.
 * A verdict on the piece stands for the whole access (WITCH §6.4), so which
 * piece must not lean to one end: a vector store clearing a struct would
 * otherwise be judged by its first 8 bytes only, every time.
 */
unsigned wt_watch_piece(uintptr_t ea, unsigned size, uint64_t r, uintptr_t *piece);
/* The same among the bytes of the access that `own` selects (bit i: byte
 * ea + i; size <= 64), the piece made of selected bytes only: a masked
 * store is watched where it wrote. 0 when own selects none. */
unsigned wt_watch_piece_of(uintptr_t ea, unsigned size, uint64_t own, uint64_t r,
			   uintptr_t *piece);
unsigned wt_occupied(const struct wt_thread *t);
unsigned wt_pause_watches(struct wt_thread *t);
void wt_resume_watches(struct wt_thread *t, unsigned paused);

/* pagewatch.c: watches without debug registers */
extern int wt_pages_mode;
int wt_pages_thread_start(struct wt_thread *t);
int wt_pages_program(struct wt_thread *t, struct wt_slot *s, int bp_type, uintptr_t addr,
		     unsigned len);
void wt_pages_release(struct wt_thread *t, struct wt_slot *s);
void wt_pages_enter(struct wt_thread *t, ucontext_t *uc);
void wt_pages_leave(struct wt_thread *t);
void wt_pages_second_thread(void);
void wt_pages_after_fork(void);
void wt_pages_stop(struct wt_thread *t);
int wt_pages_fault(struct wt_thread *t, siginfo_t *si, ucontext_t *uc);
int wt_pages_step(struct wt_thread *t, siginfo_t *si, ucontext_t *uc);
int wt_pages_syscall(struct wt_thread *t, siginfo_t *si, ucontext_t *uc);
void wt_pages_resume_mark(struct wt_thread *t, const ucontext_t *uc);
int wt_pages_in_own_time(const struct wt_thread *t, const ucontext_t *uc);
int wt_pages_sigaction(int sig, void (*fn)(int, siginfo_t *, void *), const sigset_t *mask);

/* kernelio.c: judge the kernel's accesses as the spy does. touches is the
 * cheap test on the first len bytes of c's buffers; before and after
 * bracket the call (done: what it returned). The caller fills c: take_buf
 * with one buffer, take_iov with a v- call's iovecs, copied by the kernel
 * (0 bytes when none to judge). Both return the bytes the buffers span. */
int wt_kcall_touches(const struct wt_thread *t, const struct wt_kcall *c, size_t len);
size_t wt_kcall_take_buf(struct wt_kcall *c, uintptr_t buf, size_t n);
size_t wt_kcall_take_iov(const struct wt_thread *t, struct wt_kcall *c, const struct iovec *iov,
			 int n);
void wt_kcall_before(struct wt_thread *t, struct wt_kcall *c, size_t len);
void wt_kcall_after(struct wt_thread *t, const struct wt_kcall *c, ssize_t done);
/* --watch=pages: system call nr caught at uc (rip on the instruction),
 * about to run with the trap flag set; and the step trap after it. */
void wt_kcall_syscall_begin(struct wt_thread *t, ucontext_t *uc, long nr);
void wt_kcall_syscall_end(struct wt_thread *t, ucontext_t *uc);

/* unwind.c */
int wt_unwind(ucontext_t *uc, uintptr_t *pcs, int max, uintptr_t *proc_start,
	      uintptr_t *proc_end);
void wt_unwind_init(void);
int wt_proc_bounds(uintptr_t ip, uintptr_t *start, uintptr_t *end);
/* loaderlock.c: find the dynamic loader's lock (at init, not in a
 * handler); whether a handler must not unwind now, its thread maybe in
 * the middle of taking or releasing it (async-signal-safe); the lock
 * found (NULL: none). */
void wt_loader_lock_find(void);
int wt_loader_busy(void);
const volatile pthread_mutex_t *wt_loader_lock(void);

/* craft.c: what each craft samples and how it judges a trap */
int wt_craft_wants_store(void);
void wt_craft_armed(struct wt_thread *t, struct wt_slot *s);
int wt_craft_reads_before(const struct wd_access *acc);
void wt_craft_before(struct wt_thread *t, struct wt_slot *s);
/* Copy the target's memory without touching it (no watch traps, no
 * SIGSEGV on a bad address). 0 or -1. */
int wt_read_target(void *dst, uintptr_t src, size_t n);
/* Judge what the trapping access did (hit.h) in context trap_node.
 * Returns 1 to keep watching (the trap was not the access the craft
 * waits for). */
struct wt_hit;
int wt_craft_judge(struct wt_thread *t, struct wt_slot *s, const struct wt_hit *hit,
		   uint32_t trap_node);

/* rng: xorshift64*, deterministic per thread, no locks */
static inline uint64_t wt_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif
