/*
 * experiment.c - the profiler thread: one performance experiment after
 * another (COZ section 3.1), each followed by a cool-off.
 *
 * An experiment selects the line of the latest in-scope sample (so lines
 * are chosen in proportion to their samples) or the fixed line, a speedup
 * from {0, 5, ..., 100} % (a third of them 0 %, the baselines) or the fixed
 * one, runs for the adaptive length, then ends in two steps: samples stop
 * counting as delays, and every thread still running that owes delays is
 * nudged to pay them before the end is measured. Otherwise the program's
 * progress at the end would include work of threads that were due to pause
 * and had not yet, while the duration already took their pauses off.
 *
 * The thread only ever sleeps: on two cores a spinning profiler would take
 * a core from the program, and every pause of a program thread would hand
 * that core back to another.
 *
 * The pauses of a virtual speedup are the measurement, and most of what
 * causal profiling costs a multithreaded program: with experiments back to
 * back, Figure 1 paused for ~15 % of its run. So the cool-off lasts until
 * what the pauses cost since the start is within the budget (delay_budget %
 * of the time since the start). Over budget, the thread idles rather than
 * running 0 % baselines instead: the speedups stay drawn independently of
 * what the program is doing, which a swap would not (baselines would
 * gather in the phases where the line is hot).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "causal/causal.h"
#include "core/thread.h"

#define MAX_EXPERIMENT_NS 2000000000ULL

/*
 * Progress comes in whole visits: in an experiment of 50 ms, a point
 * visited every 7 ms counts 7 or 8 visits depending on where the
 * experiment fell between them, an error of up to one visit in seven
 * whatever the line did. So where the last experiment counted few visits
 * of a point (ALIGN_MAX_VISITS), the next starts and ends right after a
 * visit of the point: its count then covers whole periods. The profiler
 * looks at the count every ALIGN_STEP_NS (a few hundred wake-ups a second,
 * no spinning), for at most a quarter of the experiment's length.
 */
#define ALIGN_MAX_VISITS 100
#define ALIGN_STEP_NS 500000ULL

static volatile int stopping;
uint64_t wc_budget_held_ns;
static uint64_t rng;

struct snapshot {
	uint64_t t, global;
	uint64_t count[WC_MAX_COUNTERS];
	uint64_t bp[WC_MAX_BREAKPOINTS];
	int ncounters;
};

static struct snapshot e2e_start;	/* end-to-end: the one experiment */
static int e2e_line = -1, e2e_speedup;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Sleep ns, in steps that notice the end of the run. */
static void rest(uint64_t ns)
{
	while (ns && !stopping) {
		uint64_t step = ns < 50000000ULL ? ns : 50000000ULL;

		nap(step);
		ns -= step;
	}
}

/* The time the pauses have cost the run so far: at most the global delay
 * (threads pause for it side by side), and at most what the threads did
 * pause (nothing when the sped-up thread is the only one running). */
static uint64_t delay_cost(void)
{
	uint64_t paused, n, over, g = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);

	wc_delays_paused(&paused, &n, &over);
	return paused < g ? paused : g;
}

/* How much longer to cool off so that the cost of the delays since t0
 * (cost0 then) is within the budget. */
static uint64_t over_budget_ns(uint64_t t0, uint64_t cost0)
{
	uint64_t elapsed = wc_now() - t0, need;

	if (wc_cfg.delay_budget >= 100)
		return 0;
	need = (delay_cost() - cost0) / (uint64_t)wc_cfg.delay_budget * 100;
	return need > elapsed ? need - elapsed : 0;
}

static void take(struct snapshot *s)
{
	int i;

	s->ncounters = wc_ncounters();
	for (i = 0; i < s->ncounters; i++)
		s->count[i] = __atomic_load_n(&wc_counters[i].c.count, __ATOMIC_RELAXED);
	for (i = 0; i < wc_nbps; i++)
		s->bp[i] = wc_breakpoint_count(i);
	s->global = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	s->t = wc_now();
}

/* Visits of counter i from s0 to s1 (one made since s0 counts from 0). */
static uint64_t counter_delta(const struct snapshot *s0, const struct snapshot *s1, int i)
{
	return s1->count[i] - (i < s0->ncounters ? s0->count[i] : 0);
}

/* Visits of the breakpoint point whose first slot is i, from s0 to s1;
 * -1 when none of its addresses is in a loaded object. */
static int64_t bp_delta(const struct snapshot *s0, const struct snapshot *s1, int i)
{
	uint64_t d = 0;
	int j, resolved = 0;

	for (j = i; j < wc_nbps; j++)
		if (wc_bps[j].point == i && wc_bps[j].resolved) {
			d += s1->bp[j] - s0->bp[j];
			resolved = 1;
		}
	return resolved ? (int64_t)d : -1;
}

/* The count of progress point `point`: throughput counter `point`, or
 * breakpoint point - WC_MAX_COUNTERS. */
static uint64_t point_count(int point)
{
	if (point < WC_MAX_COUNTERS)
		return __atomic_load_n(&wc_counters[point].c.count, __ATOMIC_RELAXED);
	return wc_breakpoint_point_count(point - WC_MAX_COUNTERS);
}

/* The throughput point the experiment s0..s1 saw fewest times (at least
 * once, at most ALIGN_MAX_VISITS), or -1. */
static int fewest_visits(const struct snapshot *s0, const struct snapshot *s1)
{
	uint64_t least = ALIGN_MAX_VISITS + 1;
	int i, point = -1;

	for (i = 0; i < s1->ncounters; i++) {
		uint64_t d = counter_delta(s0, s1, i);

		if (wc_counters[i].type == WC_THROUGHPUT && d && d < least) {
			least = d;
			point = i;
		}
	}
	for (i = 0; i < wc_nbps; i++) {
		int64_t d = wc_bps[i].point == i ? bp_delta(s0, s1, i) : -1;

		if (d > 0 && (uint64_t)d < least) {
			least = (uint64_t)d;
			point = WC_MAX_COUNTERS + i;
		}
	}
	return point;
}

/* Sleep until `point` is visited, for at most max_ns (see ALIGN_MAX_VISITS). */
static void await_visit(int point, uint64_t max_ns)
{
	uint64_t c0, t0 = wc_now();

	if (point < 0)
		return;
	c0 = point_count(point);
	while (!stopping && point_count(point) == c0 && wc_now() - t0 < max_ns)
		nap(ALIGN_STEP_NS);
}

static int pick_speedup(void)
{
	if (wc_cfg.fixed_speedup >= 0)
		return wc_cfg.fixed_speedup;
	/* A third of the experiments are 0 % baselines, unless the given
	 * list has its own. */
	if (!(wc_cfg.nspeedups && wc_cfg.speedups_have_zero) && next_rand() % 3 == 0)
		return 0;
	if (wc_cfg.nspeedups)
		return wc_cfg.speedups[next_rand() % (uint64_t)wc_cfg.nspeedups];
	return (int)(1 + next_rand() % 20) * 5;
}

static void begin(int line, int speedup, struct snapshot *s)
{
	__atomic_store_n(&wc_exp.speedup, (uint64_t)speedup, __ATOMIC_RELAXED);
	__atomic_store_n(&wc_exp.selected_samples, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&wc_exp.delays, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&wc_exp.stolen_ns, 0, __ATOMIC_RELAXED);
	take(s);
	/* Debts and samples from before are void (delay.c checks g0, t0). */
	__atomic_store_n(&wc_exp.t0, s->t, __ATOMIC_RELAXED);
	__atomic_store_n(&wc_exp.g0, s->global, __ATOMIC_RELEASE);
	__atomic_store_n(&wc_exp.line, line, __ATOMIC_RELEASE);
	__atomic_store_n(&wc_exp.counting, 1, __ATOMIC_RELEASE);
}

/* Scheduler state of a thread ('R' running or runnable), or 0. */
static char task_state(pid_t tid)
{
	char p[64], buf[512], *c;
	struct core_fmt path;
	int f;
	ssize_t n;

	core_fmt_init(&path, p, sizeof(p) - 1, NULL, NULL);
	core_fmt_str(&path, "/proc/self/task/");
	core_fmt_u64(&path, (uint64_t)tid);
	core_fmt_str(&path, "/stat");
	p[path.len] = 0;
	f = open(p, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	c = strrchr(buf, ')');
	return c && c[1] == ' ' ? c[2] : 0;
}

/* Has every thread executed the delays of the experiment? A thread blocked
 * in an interposed call is excused when woken; one sleeping elsewhere (not
 * pausing for witch) cannot pay before it wakes and is not waited for. */
static int settled(uint64_t g, int nudge)
{
	struct wc_thread *t;
	int all = 1;

	for (t = wc_threads(); t; t = t->next) {
		if (!__atomic_load_n(&t->alive, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&t->blocked, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&t->local, __ATOMIC_ACQUIRE) >= g)
			continue;
		if (!t->busy && task_state(t->tid) != 'R')
			continue;
		all = 0;
		if (nudge && !t->busy)
			syscall(SYS_tgkill, getpid(), t->tid, wc_signal);
	}
	return all;
}

static void put_points(struct core_fmt *b, const struct snapshot *s0, const struct snapshot *s1,
		       uint64_t *max_delta)
{
	int i, j;

	*max_delta = 0;
	for (i = 0; i < s1->ncounters; i++) {
		const struct wc_counter *c = &wc_counters[i];
		uint64_t d = counter_delta(s0, s1, i);

		if (c->type == WC_THROUGHPUT) {
			core_fmt_str(b, "throughput-point\tname=");
			wc_put_name(b, c->name);
			core_fmt_str(b, "\tdelta=");
			core_fmt_u64(b, d);
			core_fmt_str(b, "\n");
			if (d > *max_delta)
				*max_delta = d;
		} else if (c->type == WC_BEGIN) {
			uint64_t e0 = 0, e1 = 0;

			for (j = 0; j < s1->ncounters; j++) {
				if (wc_counters[j].type == WC_END && !strcmp(wc_counters[j].name, c->name)) {
					e1 = s1->count[j];
					e0 = j < s0->ncounters ? s0->count[j] : 0;
				}
			}
			core_fmt_str(b, "latency-point\tname=");
			wc_put_name(b, c->name);
			core_fmt_str(b, "\tarrivals=");
			core_fmt_u64(b, d);
			core_fmt_str(b, "\tdepartures=");
			core_fmt_u64(b, e1 - e0);
			/* In flight when the experiment ends (docs/causal.md). */
			core_fmt_str(b, "\tdifference=");
			core_fmt_i64(b, (int64_t)(s1->count[i] - e1));
			core_fmt_str(b, "\n");
			if (d > *max_delta)
				*max_delta = d;
		}
	}
	for (i = 0; i < wc_nbps; i++) {
		int64_t d = wc_bps[i].point == i ? bp_delta(s0, s1, i) : -1;

		if (d < 0)
			continue;
		core_fmt_str(b, "throughput-point\tname=");
		wc_put_name(b, wc_bps[i].name);
		core_fmt_str(b, "\tdelta=");
		core_fmt_u64(b, (uint64_t)d);
		core_fmt_str(b, "\n");
		if ((uint64_t)d > *max_delta)
			*max_delta = (uint64_t)d;
	}
}

/* `waited`: the global delay added during the experiment (ns). The
 * duration also leaves out the time other programs held the cores while
 * the program had one thread running (sampler.c, on_switch). */
static void put_experiment(struct core_fmt *b, int line, int speedup, uint64_t start,
			   uint64_t wall, uint64_t waited)
{
	uint64_t stolen = __atomic_load_n(&wc_exp.stolen_ns, __ATOMIC_RELAXED);

	core_fmt_str(b, "experiment\tselected=");
	wc_put_name(b, line >= 0 && wc_lines[line].loc ? wc_lines[line].loc : "?");
	core_fmt_str(b, "\tspeedup=");
	wc_put_frac(b, (uint64_t)speedup, 100);
	core_fmt_str(b, "\tduration=");
	core_fmt_u64(b, wall > waited + stolen ? wall - waited - stolen : 0);
	core_fmt_str(b, "\tselected-samples=");
	core_fmt_u64(b, __atomic_load_n(&wc_exp.selected_samples, __ATOMIC_RELAXED));
	core_fmt_str(b, "\tdelays=");
	core_fmt_u64(b, __atomic_load_n(&wc_exp.delays, __ATOMIC_RELAXED));
	core_fmt_str(b, "\tdelay-ns=");
	core_fmt_u64(b, waited);
	core_fmt_str(b, "\twaited-for-cpu-ns=");
	core_fmt_u64(b, stolen);
	core_fmt_str(b, "\tstart=");
	core_fmt_u64(b, start);
	core_fmt_str(b, "\n");
}

/* End the experiment; returns the largest progress delta, and in *align
 * the point the next experiment aligns on (see ALIGN_MAX_VISITS). */
static uint64_t end(int line, int speedup, const struct snapshot *s0, int *align)
{
	static struct snapshot s1;
	static struct wc_record r;
	struct core_fmt *b;
	uint64_t g, deadline, max_delta;

	/* Samples taken before the end count, wherever they still are. */
	wc_drain_all();
	__atomic_store_n(&wc_exp.settling, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&wc_exp.counting, 0, __ATOMIC_RELEASE);
	g = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	deadline = wc_now() + 20000000ULL + (g - s0->global);
	if (!settled(g, 1)) {
		do
			nap(200000);
		while (!settled(g, 0) && wc_now() < deadline && !stopping);
	}
	take(&s1);
	s1.global = g;
	__atomic_store_n(&wc_exp.settling, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&wc_exp.line, -1, __ATOMIC_RELEASE);
	b = wc_record_start(&r);
	put_experiment(b, line, speedup, s0->t, s1.t - s0->t, g - s0->global);
	put_points(b, s0, &s1, &max_delta);
	if (!stopping)
		wc_profile_record(b);
	*align = fewest_visits(s0, &s1);
	return max_delta;
}

static void run_end_to_end(void)
{
	/* The run is the experiment: it starts at once, the line is the fixed
	 * one or the first line sampled. */
	e2e_speedup = pick_speedup();
	__atomic_store_n(&wc_exp.speedup, (uint64_t)e2e_speedup, __ATOMIC_RELAXED);
	while (!stopping) {
		int line = wc_cfg.fixed_line >= 0 ? wc_cfg.fixed_line
						  : __atomic_load_n(&wc_next_line, __ATOMIC_RELAXED);

		if (line >= 0 && line < wc_nlines) {
			e2e_line = line;
			__atomic_store_n(&wc_exp.line, line, __ATOMIC_RELEASE);
			__atomic_store_n(&wc_exp.counting, 1, __ATOMIC_RELEASE);
			return;
		}
		nap(1000000);
	}
}

static void *profiler(void *arg)
{
	static struct snapshot s0;
	uint64_t length = wc_cfg.min_experiment_ns, last_resolve = wc_now(), max_delta;
	uint64_t t0 = wc_now(), cost0 = delay_cost(), held;
	int align = -1;
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(long));
	if (wc_cfg.end_to_end) {
		run_end_to_end();
		return NULL;
	}
	while (!stopping) {
		int line, speedup;

		nap(wc_cfg.cooloff_ns);
		held = wc_now();
		rest(over_budget_ns(t0, cost0));
		__atomic_add_fetch(&wc_budget_held_ns, wc_now() - held, __ATOMIC_RELAXED);
		if (stopping)
			break;
		if (wc_lines_unresolved() && wc_now() - last_resolve > 1000000000ULL) {
			wc_lines_resolve();	/* a dlopen'd in-scope library */
			last_resolve = wc_now();
		}
		line = wc_cfg.fixed_line >= 0 ? wc_cfg.fixed_line
					      : __atomic_load_n(&wc_next_line, __ATOMIC_RELAXED);
		if (line < 0 || line >= wc_nlines)
			continue;
		speedup = pick_speedup();
		await_visit(align, length / 4);
		begin(line, speedup, &s0);
		rest(length);
		await_visit(align, length / 4);
		if (stopping)
			break;
		max_delta = end(line, speedup, &s0, &align);
		/* Too few visits to measure a rate: longer experiments (COZ 3.4). */
		if (wc_ncounters() || wc_nbps) {
			if (max_delta < 5 && length < MAX_EXPERIMENT_NS)
				length *= 2;
			else if (max_delta > 100 && length / 2 >= wc_cfg.min_experiment_ns)
				length /= 2;
		}
	}
	return NULL;
}

int wc_profiler_start(void)
{
	pthread_attr_t attr;
	pthread_t th;
	int rc;

	stopping = 0;
	wc_budget_held_ns = 0;	/* a forked child's run starts here */
	rng = wc_now() ^ ((uint64_t)getpid() << 32) ^ 0x9E3779B97F4A7C15ULL;
	if (wc_cfg.end_to_end)
		take(&e2e_start);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = core_real_pthread_create(&th, &attr, profiler, NULL);
	pthread_attr_destroy(&attr);
	return rc ? -1 : 0;
}

void wc_profiler_stop(void)
{
	static struct snapshot s1;
	static struct wc_record r;
	struct core_fmt *b;
	uint64_t max_delta, g;

	stopping = 1;
	if (!wc_cfg.end_to_end || e2e_line < 0) {
		__atomic_store_n(&wc_exp.counting, 0, __ATOMIC_RELEASE);
		return;
	}
	/* End-to-end: the experiment ends with the run. */
	__atomic_store_n(&wc_exp.counting, 0, __ATOMIC_RELEASE);
	g = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	take(&s1);
	b = wc_record_start(&r);
	put_experiment(b, e2e_line, e2e_speedup, e2e_start.t, s1.t - e2e_start.t,
		       g - e2e_start.global);
	core_fmt_str(b, "throughput-point\tname=end-to-end\tdelta=1\n");
	put_points(b, &e2e_start, &s1, &max_delta);
	wc_profile_record(b);
}
