/*
 * thread.c - life cycle of libwitchcausal.so: configuration, the wakeup
 * signal, per-thread state, thread exit, fork, exec and the endings of the
 * process image.
 *
 * Thread creation, signal dispositions and masks, exec and _exit are the
 * core's (src/core, shared with libwitch.so): it calls the tool_* hooks
 * defined here (core/tool.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "causal/causal.h"
#include "core/clock.h"
#include "core/contract.h"
#include "core/env.h"
#include "core/image.h"
#include "core/interpose.h"
#include "core/job.h"
#include "core/thread.h"
#include "core/tool.h"

struct wc_config wc_cfg;
int wc_active;
int wc_signal;

static struct wc_thread *all_threads;
static struct wc_thread *free_threads;
static int free_lock;
static __thread struct wc_thread *self __attribute__((tls_model("initial-exec")));
static __thread int handler_depth __attribute__((tls_model("initial-exec")));

uint64_t wc_now(void)
{
	return core_clock_ns(CLOCK_MONOTONIC);
}

struct wc_thread *wc_self(void)
{
	return self && self->alive ? self : NULL;
}

struct wc_thread *wc_threads(void)
{
	return __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE);
}

/* perf's signal (every sample) or the profiler's
 * nudge at the end of an experiment: drain and pay. */
static void on_wakeup(int sig, siginfo_t *si, void *uc)
{
	struct wc_thread *t = self;
	int saved = errno;

	(void)sig;
	(void)si;
	(void)uc;
	handler_depth++;
	if (t && t->alive && !t->busy) {
		wc_sampler_jitter(t);
		wc_catch_up(t);
	}
	handler_depth--;
	errno = saved;
}

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

static void lock_free_list(void)
{
	while (__atomic_exchange_n(&free_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static struct wc_thread *new_thread(void)
{
	struct wc_thread *t;

	lock_free_list();
	t = free_threads;
	if (t)
		free_threads = t->free_next;
	__atomic_store_n(&free_lock, 0, __ATOMIC_RELEASE);
	if (t)
		return t;
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->fd = -1;
	CORE_THREAD_PUSH(all_threads, t);
	return t;
}

void wc_thread_begin(uint64_t inherited_local)
{
	struct wc_thread *t;

	if (!wc_active || (self && self->alive))
		return;
	t = new_thread();
	if (!t)
		return;
	t->tid = (pid_t)syscall(SYS_gettid);
	t->local = inherited_local;
	t->carry_ns = 0;
	t->busy = 0;
	t->blocked = 0;
	t->samples = t->lost = 0;
	t->prev_cpu = t->prev_time = 0;
	t->preempted_at = 0;
	/* Pauses are short: the default 50 us of timer slack would be most of one. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	self = t;
	core_thread_mark(t);
	__atomic_store_n(&t->alive, 1, __ATOMIC_RELEASE);
	wc_unblocked_add(1);
	wc_sampler_start(t);
}

/* The thread ends: execute what it owes first (Table 1), then stop. */
void wc_thread_end(void)
{
	struct wc_thread *t = self;

	if (!t || !t->alive)
		return;
	if (wc_active)
		wc_catch_up(t);
	t->busy = 1;
	__atomic_store_n(&t->alive, 0, __ATOMIC_RELEASE);
	wc_unblocked_add(-1);
	wc_sampler_stop(t);
	self = NULL;	/* the state goes to the next thread created */
	lock_free_list();
	t->free_next = free_threads;
	free_threads = t;
	__atomic_store_n(&free_lock, 0, __ATOMIC_RELEASE);
}

/* --- thread creation (core/tool.h) ---------------------------------------- */

int tool_thread_creating(uint64_t *inherit)
{
	struct wc_thread *t;

	if (!wc_active)
		return -1;
	/* The new thread owes what its creator owes (COZ 3.4). */
	t = wc_self();
	*inherit = t ? __atomic_load_n(&t->local, __ATOMIC_ACQUIRE)
		     : __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	return 0;
}

void tool_thread_begin(uint64_t inherit)
{
	wc_thread_begin(inherit);
}

/* At the return of the thread's function too (core_threads_init(1)): it
 * pays what it owes before the program's thread-local destructors run. */
void tool_thread_end(void)
{
	wc_thread_end();
}

WC_EXPORT void pthread_exit(void *rv);

void pthread_exit(void *rv)
{
	static void (*real)(void *);

	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_exit");
	wc_thread_end();
	real(rv);
	__builtin_unreachable();
}

/* --- configuration and process ----------------------------------------------- */

/* A setting the CLI gave as a whole number, or def. */
static long env_long(const char *name, long def)
{
	return core_env_long(name, def, LONG_MIN, LONG_MAX);
}

static int read_config(void)
{
	const char *out = core_env_str(ENV_OUT), *lines = core_env_str(ENV_CAUSAL_LINES);

	if (!out || !lines)
		return -1;
	strncpy(wc_cfg.outdir, out, sizeof(wc_cfg.outdir) - 1);
	strncpy(wc_cfg.lines_path, lines, sizeof(wc_cfg.lines_path) - 1);
	wc_cfg.end_to_end = core_env_is(ENV_CAUSAL_END_TO_END, "1");
	wc_cfg.progress_uprobes = core_env_is(ENV_CAUSAL_PROGRESS_COUNTER, "uprobe");
	wc_cfg.fixed_line = (int)env_long(ENV_CAUSAL_FIXED_LINE, -1);
	wc_cfg.fixed_speedup = (int)env_long(ENV_CAUSAL_FIXED_SPEEDUP, -1);
	if (wc_cfg.fixed_speedup > 100)
		wc_cfg.fixed_speedup = 100;
	{
		/* --speedups: a comma-separated set to draw from. */
		const char *l = getenv(ENV_CAUSAL_SPEEDUPS);
		char *end;

		while (l && *l && wc_cfg.nspeedups < CAUSAL_MAX_SPEEDUPS) {
			long v = strtol(l, &end, 10);

			if (end == l)
				break;
			if (v >= 0 && v <= 100)
				wc_cfg.speedups[wc_cfg.nspeedups++] = (int)v;
			if (v == 0)
				wc_cfg.speedups_have_zero = 1;
			l = *end == ',' ? end + 1 : end;
		}
	}
	wc_cfg.period_ns = (uint64_t)env_long(ENV_CAUSAL_PERIOD_NS, CAUSAL_DEFAULT_PERIOD_NS);
	if (wc_cfg.period_ns < CAUSAL_MIN_PERIOD_NS)
		wc_cfg.period_ns = CAUSAL_MIN_PERIOD_NS;
	/* Experiment length and cool-off (undocumented knobs, for bench/causal). */
	wc_cfg.min_experiment_ns = (uint64_t)env_long(ENV_CAUSAL_MIN_EXPERIMENT_NS, 0);
	if (!wc_cfg.min_experiment_ns)
		wc_cfg.min_experiment_ns = 50 * wc_cfg.period_ns;
	wc_cfg.cooloff_ns = (uint64_t)env_long(ENV_CAUSAL_COOLOFF_NS, CAUSAL_DEFAULT_COOLOFF_NS);
	wc_cfg.delay_budget = (int)env_long(ENV_CAUSAL_DELAY_BUDGET,
					     CAUSAL_DEFAULT_DELAY_BUDGET);
	if (wc_cfg.delay_budget < 1 || wc_cfg.delay_budget > 100)
		wc_cfg.delay_budget = CAUSAL_DEFAULT_DELAY_BUDGET;
	return 0;
}

/* The image ends, whichever way comes first; status >= 0: exit status,
 * < 0: the fatal signal. */
static void process_end(int complete, int status)
{
	if (!wc_active || !core_image_end())
		return;
	wc_profiler_stop();
	wc_profile_finish(complete, status);
}

static void on_exit_handler(int status, void *arg)
{
	(void)arg;
	process_end(1, status);
}

/* Hooks of the core's interposition (core/tool.h). */
int tool_in_handler(void)
{
	return handler_depth;
}

void tool_process_ended(int complete, int status)
{
	process_end(complete, status);
}

/* An image that runs a launcher (MPI's singleton start runs orted so)
 * was starting it: not the application's run, no profile. */
void tool_before_exec(const char *path)
{
	if (wc_active && core_image_ours() && core_job_is_launcher(path))
		wc_profile_drop();
	else if (wc_active && core_image_ours())
		wc_profile_before_exec();
}

void tool_exec_failed(void)
{
	if (wc_active && core_image_ours())
		wc_profile_exec_failed();
}

static void stop_all_samplers(void)
{
	struct wc_thread *t;

	for (t = all_threads; t; t = t->next) {
		if (t->alive) {
			t->alive = 0;
			wc_sampler_stop(t);
		}
	}
	free_threads = NULL;
	free_lock = 0;
}

/* The child of a fork has one thread and a profile of its own (or none). */
static void after_fork_child(void)
{
	struct wc_thread *me = self;
	uint64_t local;

	if (!wc_active)
		return;
	local = me ? me->local : 0;
	/* Their events and ring buffers are the parent's threads'. */
	stop_all_samplers();
	wc_breakpoints_close();
	self = NULL;
	core_image_begin();
	if (getenv(ENV_NO_FOLLOW)) {
		wc_active = 0;
		return;
	}
	memset(&wc_exp, 0, sizeof(wc_exp));
	wc_exp.line = -1;
	wc_unblocked_reset();
	memset(wc_line_samples, 0, sizeof(uint64_t) * (size_t)(wc_nlines ? wc_nlines : 1));
	memset(wc_line_callers, 0, sizeof(uint64_t) * (size_t)(wc_nlines ? wc_nlines : 1));
	(void)local;
	if (wc_profile_open() < 0) {
		wc_active = 0;
		return;
	}
	wc_breakpoints_open();
	wc_thread_begin(0);
	wc_profiler_start();
}

static void install_wakeup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_wakeup;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	core_real_sigaction(wc_signal, &sa, NULL);
}

__attribute__((constructor)) static void causal_init(void)
{
	extern char *program_invocation_short_name;

	/* A launcher's own process (mpirun, orted...) is not the application. */
	if (core_job_is_launcher(program_invocation_short_name) || read_config() < 0 ||
	    wc_lines_load(wc_cfg.lines_path) < 0)
		return;
	wc_lines_resolve();
	wc_signal = SIGRTMAX - 3;
	core_interpose_resolve();
	install_wakeup();
	core_interpose_signals(&wc_signal, 1, on_sigio);
	core_image_begin();
	if (getenv(ENV_NO_FOLLOW))
		unsetenv("LD_PRELOAD");	/* programs this one runs are not profiled */
	core_threads_init(1);
	pthread_atfork(NULL, NULL, after_fork_child);
	if (wc_profile_open() < 0)
		return;
	on_exit(on_exit_handler, NULL);
	wc_active = 1;
	wc_breakpoints_open();
	wc_thread_begin(0);
	wc_profiler_start();
}

__attribute__((destructor)) static void causal_fini(void)
{
	process_end(1, 0);
}
