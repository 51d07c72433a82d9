/*
 * thread.c - process and thread life cycle of the runtime: configuration,
 * signal handlers, per-thread state and fork. It is libwitch.so's side of
 * the core (core/tool.h): the core's pthread_create and interposition
 * call the hooks defined here.
 */
#include <asm/prctl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <limits.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/contract.h"
#include "core/env.h"
#include "core/image.h"
#include "core/interpose.h"
#include "core/job.h"
#include "core/thread.h"
#include "core/tool.h"
#include "runtime/profile_out.h"
#include "runtime/runtime.h"
#include "runtime/share.h"

#define ALTSTACK_BYTES (256 * 1024)	/* libunwind and the decoder run here */
#define CCT_NODES (1u << 18)
#define CCT_PAIRS (1u << 16)
#define PC_CACHE_ENTRIES 1024

struct wt_config wt_cfg;
int wt_sig_sample, wt_sig_trap;
volatile int wt_stopping;
static int active;
static char written_before_exec[4200];
/* File descriptors all threads together may hold for breakpoints: a
 * quarter of the limit, so the program keeps the rest. */
static int fd_budget, fd_budget_total;
static int nregisters;
static struct wt_thread *all_threads;
static __thread struct wt_thread *self __attribute__((tls_model("initial-exec")));
static __thread int handler_depth __attribute__((tls_model("initial-exec")));

/*
 * The thread's memory witch's handlers touch before they can expose
 * watched pages: its TLS variables, errno, and the thread control block
 * the stack protector reads (%fs:0x28). Static TLS lies just below the
 * TCB, so one range covers them. --watch=pages never protects it.
 */
void wt_own_tls(const struct wt_thread *t, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t a = (uintptr_t)&self, b = (uintptr_t)&handler_depth, e = (uintptr_t)&errno;

	*lo = a < b ? a : b;
	*lo = e < *lo ? e : *lo;
	*hi = t->fs_base + 64;
	if (*hi < *lo)
		*hi = (a > b ? a : b) + 64;
}

int tool_in_handler(void)
{
	return handler_depth;
}

struct wt_thread *wt_self(void)
{
	return self;
}

struct wt_thread *wt_self_watching(void)
{
	struct wt_thread *t = self;

	return t && t->ready && !wt_stopping && !wt_pages_mode && !wt_cfg.samples_only &&
			       !handler_depth ? t : NULL;
}

/* The raw system call: the program's sigprocmask is interposed. */
void wt_block_own_signals(sigset_t *old)
{
	sigset_t own;

	sigemptyset(&own);
	sigaddset(&own, wt_sig_sample);
	sigaddset(&own, wt_sig_trap);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &own, old, _NSIG / 8);
}

void wt_restore_signals(const sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}

struct wt_thread *wt_threads(void)
{
	return __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE);
}

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* CPU time a handler took: the sampler keeps witch's share of the thread's
 * CPU time bounded with it, and the profile reports it. Returns the
 * thread's CPU time now. */
static uint64_t charge(struct wt_thread *t, uint64_t start)
{
	uint64_t now = core_clock_ns(CLOCK_THREAD_CPUTIME_ID), ns = now - start;

	t->st.handler_ns += ns;
	t->handler_ns_since_sample += ns;
	return now;
}

static void on_sample_signal(int sig, siginfo_t *si, void *ucv)
{
	struct wt_thread *t = self && self->ready && !wt_stopping ? self : NULL;
	int saved;
	uint64_t start;

	(void)sig;
	(void)si;
	/* --watch=pages: the pages first. Even errno is reached through a
	 * slot in libc's data, which a load sample may have had watched (an
	 * sqlite3 run died here). */
	if (t && wt_pages_mode)
		wt_pages_enter(t, ucv);
	saved = errno;
	handler_depth++;
	if (t) {
		start = core_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		t->cpu_now = start;
		wt_pmu_pause(t);
		if (wt_pages_mode && wt_pages_in_own_time(t, ucv))
			wt_sampler_skip(t);
		else
			wt_on_sample(t, ucv);
		wt_pmu_resume(t);
		/* The next sample weighs the program's time from here. */
		t->cpu_mark = charge(t, start);
	}
	handler_depth--;
	errno = saved;
	if (t && wt_pages_mode) {
		wt_pages_resume_mark(t, ucv);
		wt_pages_leave(t);	/* last: nothing after it may read memory */
	}
}

static void on_trap_signal(int sig, siginfo_t *si, void *ucv)
{
	struct wt_thread *t = self;
	int saved = errno;
	uint64_t start;

	(void)sig;
	handler_depth++;
	if (t && t->ready && !wt_stopping) {
		start = core_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		wt_pmu_pause(t);
		wt_on_trap(t, si->si_fd, ucv);
		wt_pmu_resume(t);
		charge(t, start);
	}
	handler_depth--;
	errno = saved;
}

/*
 * --watch=pages: a fault, a single step or a dispatched system call is
 * witch's when pagewatch.c says so; anything else is the program's own
 * and goes where the program asked.
 */
static void on_page_signal(int sig, siginfo_t *si, void *ucv)
{
	struct wt_thread *t = self && self->ready ? self : NULL;

	/* A watched page, or a dispatched system call, met after sampling
	 * stopped on this thread: the pages are given back, the access or
	 * the call runs again. */
	if (!t && sig == SIGSEGV && wt_pages_fault(self, si, ucv))
		return;
	if (!t && sig == SIGSYS && wt_pages_syscall(self, si, ucv))
		return;
	int saved, mine;
	uint64_t start = 0;

	/* The pages first, errno after (on_sample_signal says why). */
	if (t)
		wt_pages_enter(t, ucv);
	saved = errno;
	handler_depth++;
	if (t)
		start = core_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (sig == SIGSEGV)
		mine = wt_pages_fault(t, si, ucv);
	else if (sig == SIGTRAP)
		mine = wt_pages_step(t, si, ucv);
	else
		mine = wt_pages_syscall(t, si, ucv);
	if (t) {
		uint64_t before = t->handler_ns_since_sample;

		charge(t, start);
		/* A timer expiry in this time is not taken (pagewatch.c), so
		 * it need not lengthen the next interval either. */
		t->handler_ns_since_sample = before;
		if (mine)
			wt_pages_resume_mark(t, ucv);
	}
	handler_depth--;
	errno = saved;
	/* The program's own handler runs with the pages exposed (its
	 * accesses there would fault while this signal is blocked); it may
	 * not return (siglongjmp): they stay exposed until witch's next
	 * handler leaves. */
	if (!mine)
		core_interpose_forward(sig, si, ucv);
	if (t)
		wt_pages_leave(t);	/* last: nothing after it may read memory */
}

/* A full real-time signal queue turns perf's signal into SIGIO, whose
 * default action would kill the target. */
static void on_sigio(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	(void)ucv;
	if (self)
		self->st.traps_lost++;
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	/* Traps and samples never interrupt each other's bookkeeping, and
	 * no handler of the program's runs inside witch's: one that jumps
	 * out (siglongjmp from an alarm) would leave witch's state half-way
	 * (handler_depth raised for good, a page stepped over, the pages
	 * exposed). The program's signals wait the few microseconds. Faults
	 * and traps stay deliverable: blocked, the kernel would kill
	 * without a word should witch's own code ever fault. */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGFPE);
	sigdelset(&sa.sa_mask, SIGTRAP);
	sigdelset(&sa.sa_mask, SIGSYS);
	/* --watch=pages: handlers return through code that may make a
	 * system call while the selector blocks them (pagewatch.c). */
	if (wt_pages_mode)
		wt_pages_sigaction(sig, fn, &sa.sa_mask);
	else
		core_real_sigaction(sig, &sa, NULL);
}

int wt_thread_start(void)
{
	struct wt_thread *t;
	int i;

	if (!active || self)
		return 0;
	/* Each thread holds one descriptor per debug register. */
	if (__atomic_sub_fetch(&fd_budget, nregisters, __ATOMIC_ACQ_REL) < 0) {
		__atomic_add_fetch(&fd_budget, nregisters, __ATOMIC_ACQ_REL);
		wt_count_unsampled_thread();
		return -1;
	}
	t = map(sizeof(*t));
	if (!t) {
		__atomic_add_fetch(&fd_budget, nregisters, __ATOMIC_ACQ_REL);
		wt_count_unsampled_thread();
		return -1;
	}
	t->tid = (pid_t)syscall(SYS_gettid);
	syscall(SYS_arch_prctl, ARCH_GET_FS, &t->fs_base);
	syscall(SYS_arch_prctl, ARCH_GET_GS, &t->gs_base);
	if (wt_pages_mode && wt_pages_thread_start(t) < 0) {
		__atomic_add_fetch(&fd_budget, nregisters, __ATOMIC_ACQ_REL);
		wt_count_unsampled_thread();
		return -1;
	}
	/* One register is the probe's; the others watch. PMU samples
	 * arrive at their access, with no probe to lead them there. The
	 * samples of witch cpi watch nothing. */
	t->nslots = wt_cfg.samples_only ? 0 : wt_cfg.pmu ? nregisters : nregisters - 1;
	for (i = 0; i < WT_MAX_SLOTS; i++)
		t->slot[i].fd = -1;
	t->probe.reg.fd = -1;
	t->pmu_fd = -1;
	wt_reservoir_init(&t->reservoir, (unsigned)t->nslots);
	t->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)t->tid << 17) ^ (uint64_t)(uintptr_t)t;
	if (!wt_cfg.samples_only)
		t->pc_cache = map(wd_pc_cache_bytes(PC_CACHE_ENTRIES));
	t->altstack.ss_sp = map(ALTSTACK_BYTES);
	t->altstack.ss_size = ALTSTACK_BYTES;
	if ((!t->pc_cache && !wt_cfg.samples_only) || !t->altstack.ss_sp ||
	    wt_cct_init(&t->cct, CCT_NODES, wt_cfg.samples_only ? 1 : CCT_PAIRS) < 0 ||
	    (wt_cfg.craft == WT_CRAFT_SHARE && wt_share_thread_init(t) < 0) ||
	    sigaltstack(&t->altstack, NULL) < 0) {
		__atomic_add_fetch(&fd_budget, nregisters, __ATOMIC_ACQ_REL);
		wt_count_unsampled_thread();
		return -1;
	}
	if (t->pc_cache)
		wd_pc_cache_init(t->pc_cache, PC_CACHE_ENTRIES);
	t->cpu_mark = core_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	CORE_THREAD_PUSH(all_threads, t);
	self = t;
	core_thread_mark(t);
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	if (wt_sampler_start(t) < 0) {
		wt_count_unsampled_thread();
		return -1;
	}
	return 0;
}

/* Stop sampling this thread; its tree stays for the profile. */
void wt_thread_stop(void)
{
	struct wt_thread *t = self;

	if (!t || t->exited)
		return;
	t->ready = 0;
	wt_sampler_stop(t);
	wt_slots_close(t);
	if (wt_pages_mode)
		wt_pages_stop(t);
	t->exited = 1;
	__atomic_add_fetch(&fd_budget, nregisters, __ATOMIC_ACQ_REL);
}

/* Hooks of the core's pthread_create (core/tool.h): threads the program
 * creates are sampled from their start until their exit. */
int tool_thread_creating(uint64_t *inherit)
{
	if (!active)
		return -1;
	wt_pages_second_thread();
	*inherit = 0;
	return 0;
}

void tool_thread_begin(uint64_t inherit)
{
	(void)inherit;
	wt_thread_start();
}

void tool_thread_end(void)
{
	wt_thread_stop();
}

/* --- process ------------------------------------------------------------ */

/*
 * --source=pmu: the CPU's memory event samples instead of a timer, and
 * WITCH_PERIOD counts its events, not nanoseconds. 0, or -1 when it
 * cannot be set up here (the CLI checked that it opens).
 */
static int read_pmu_source(void)
{
	char why[256];

	if (wt_pages_mode ||
	    core_perf_memory_attr(&wt_cfg.pmu_attr, core_cpu_vendor(), NULL, wt_craft_wants_store(),
				  (uint64_t)core_env_long(ENV_PERIOD, 0, 0, LONG_MAX), why,
				  sizeof(why)) < 0)
		return -1;
	wt_cfg.pmu = 1;
	wt_cfg.spread = 1;	/* the CPU picks the access itself: no draw */
	wt_cfg.use_perf_clock = 0;
	wt_cfg.period_ns = 0;	/* no timer runs */
	return 0;
}

static int read_config(void)
{
	const char *craft = getenv(ENV_CRAFT), *out = getenv(ENV_OUT);

	wt_cfg.samples_only = core_env_is(ENV_SAMPLES_ONLY, "1");
	if (wt_cfg.samples_only) {
		if (!out)
			return -1;
		wt_cfg.rate_hz = core_env_long(ENV_RATE, CPI_DEFAULT_RATE, 1, LONG_MAX);
		wt_cfg.use_perf_clock = wt_cfg.rate_hz > 250;
		wt_cfg.nominal_khz = (uint64_t)core_env_long(ENV_NOMINAL_KHZ, 0, 0, LONG_MAX);
		strncpy(wt_cfg.outdir, out, sizeof(wt_cfg.outdir) - 1);
		return 0;
	}
	if (!craft || !out)
		return -1;
	if (!strcmp(craft, "dead"))
		wt_cfg.craft = WT_CRAFT_DEAD;
	else if (!strcmp(craft, "silent"))
		wt_cfg.craft = WT_CRAFT_SILENT;
	else if (!strcmp(craft, "load"))
		wt_cfg.craft = WT_CRAFT_LOAD;
	else if (!strcmp(craft, "share"))
		wt_cfg.craft = WT_CRAFT_SHARE;
	else
		return -1;
	wt_pages_mode = core_env_is(ENV_WATCH, "pages");
	wt_cfg.rate_hz = core_env_long(ENV_RATE, RECORD_DEFAULT_RATE, 1, LONG_MAX);
	wt_cfg.period_ns = core_env_long(ENV_PERIOD, 0, 0, LONG_MAX);
	wt_cfg.registers = (int)core_env_long(ENV_REGISTERS, RECORD_MAX_REGISTERS, 1,
					      WT_MAX_SLOTS);
	wt_cfg.spread = (int)core_env_long(ENV_SPREAD, RECORD_DEFAULT_SPREAD, 1,
					   RECORD_MAX_SPREAD);
	wt_cfg.reach = (int)core_env_long(ENV_REACH,
					  RECORD_DEFAULT_REACH_FOR(wt_cfg.craft == WT_CRAFT_LOAD), 0,
					  RECORD_MAX_REACH);
	wt_cfg.approx = getenv(ENV_APPROX) ? strtod(getenv(ENV_APPROX), NULL) : RECORD_DEFAULT_APPROX;
	/* POSIX CPU timers tick at most HZ (250) times a second. */
	wt_cfg.use_perf_clock = wt_cfg.period_ns > 0 ? wt_cfg.period_ns < 4000000
						     : wt_cfg.rate_hz > 250;
	if (wt_pages_mode && wt_cfg.use_perf_clock) {
		/* --watch=pages: a sample can cost a thousand faults on
		 * its watched page; the cheap POSIX timer's 250 Hz is the
		 * most worth paying for (the CLI says so). */
		wt_cfg.use_perf_clock = 0;
		wt_cfg.period_ns = 0;
		wt_cfg.rate_hz = 250;
	}
	if (core_env_is(ENV_SOURCE, "pmu") && read_pmu_source() < 0)
		return -1;
	strncpy(wt_cfg.outdir, out, sizeof(wt_cfg.outdir) - 1);
	return 0;
}

/*
 * The process image ends (exit, _exit, a fatal signal): stop sampling and
 * write the profile, once, whichever thread gets here first.
 */
void wt_process_exit(int complete)
{
	if (!active || !core_image_end())
		return;
	wt_stopping = 1;
	wt_thread_stop();
	wt_profile_write(complete, NULL, 0);
}

void tool_process_ended(int complete, int status)
{
	(void)status;
	wt_process_exit(complete);
}

/* exec replaces the image: write what it measured (a vfork child must not:
 * the memory, and so the profile, are its parent's). An image that runs a
 * launcher (MPI's singleton start runs orted so) was starting it: not the
 * application's work, no profile. */
void tool_before_exec(const char *path)
{
	written_before_exec[0] = 0;
	if (!active || !core_image_ours())
		return;
	wt_stopping = 1;
	if (core_job_is_launcher(path))
		return;
	if (wt_profile_write(1, written_before_exec, sizeof(written_before_exec)) < 0)
		written_before_exec[0] = 0;
}

/* exec failed: the image goes on, and its profile at exit includes all. */
void tool_exec_failed(void)
{
	if (written_before_exec[0])
		unlink(written_before_exec);
	written_before_exec[0] = 0;
	if (active && core_image_ours())
		wt_stopping = 0;
}

static void after_fork_child(void)
{
	struct wt_thread *t;

	/* The child starts a profile of its own; the parent's trees are not its. */
	for (t = all_threads; t; t = t->next) {
		t->ready = 0;
		wt_slots_close(t);
		wt_pmu_forget(t);
	}
	all_threads = NULL;
	self = NULL;
	fd_budget = fd_budget_total;	/* the child has one thread */
	wt_share_after_fork();
	if (wt_pages_mode)
		wt_pages_after_fork();
	core_image_begin();
	wt_stopping = 0;
	if (getenv(ENV_NO_FOLLOW)) {
		active = 0;	/* --no-follow: only the first process */
		return;
	}
	wt_profile_reset();
	wt_thread_start();
}

/* libwitch.so's ELF header and the end of its text, from the linker. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char __etext[] __attribute__((visibility("hidden")));

__attribute__((constructor)) static void witch_init(void)
{
	extern char *program_invocation_short_name;

	/* A launcher's own process (mpirun, orted...) is not the application;
	 * the ranks it starts keep the environment and are measured. */
	if (read_config() < 0 || core_job_is_launcher(program_invocation_short_name))
		return;
	wt_cfg.own_text_lo = (uintptr_t)__ehdr_start;
	wt_cfg.own_text_hi = (uintptr_t)__etext;
	/* --watch=pages stands in for all four registers; witch cpi's
	 * samples need none. */
	if (wt_cfg.samples_only) {
		nregisters = 0;
	} else {
		nregisters = wt_pages_mode ? WT_MAX_SLOTS : wt_debug_registers();
		if (nregisters > wt_cfg.registers)
			nregisters = wt_cfg.registers;
		if (nregisters > WT_MAX_SLOTS)
			nregisters = WT_MAX_SLOTS;
		if (nregisters < 2)
			return;
	}
	/* --craft=share names heap lines by their blocks (alloc.c). */
	if (wt_cfg.craft == WT_CRAFT_SHARE && wt_blocks_init() < 0)
		return;
	wd_init();
	wt_unwind_init();
	wt_sig_trap = SIGRTMAX - 2;	/* lower number: delivered before a pending sample */
	wt_sig_sample = SIGRTMAX - 1;
	core_interpose_resolve();
	install(wt_sig_sample, on_sample_signal);
	install(wt_sig_trap, on_trap_signal);
	core_interpose_signals((const int[]){ wt_sig_sample, wt_sig_trap }, 2, on_sigio);
	if (wt_pages_mode) {
		core_interpose_alt_stack_only();
		core_interpose_share(SIGSEGV);
		core_interpose_share(SIGTRAP);
		core_interpose_share(SIGSYS);
		install(SIGSEGV, on_page_signal);
		install(SIGTRAP, on_page_signal);
		install(SIGSYS, on_page_signal);
	}
	core_image_begin();
	if (getenv(ENV_NO_FOLLOW)) {
		/* Programs this one starts are not profiled. */
		unsetenv("LD_PRELOAD");
		unsetenv(ENV_CRAFT);
		unsetenv(ENV_SAMPLES_ONLY);
	}
	core_threads_init(0);
	pthread_atfork(NULL, NULL, after_fork_child);
	wt_profile_reset();
	wt_cfg.registers = nregisters;
	{
		struct rlimit rl;

		fd_budget = 256;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			fd_budget = (int)(rl.rlim_cur / 4);
		fd_budget_total = fd_budget;
	}
	active = 1;
	wt_thread_start();
}

__attribute__((destructor)) static void witch_fini(void)
{
	wt_process_exit(1);
}
