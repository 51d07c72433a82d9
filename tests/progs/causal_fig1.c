/*
 * causal_fig1 - COZ's Figure 1, in rounds: each round main starts two
 * threads, one running a() and one b(), and joins both; a() runs 5 % longer
 * than b(). Each round is a progress point (the Debian coz.h: the ABI test).
 * Speeding up a() by any amount can make the program at most ~4.8 % faster
 * (then b() is the longer one); speeding up b() cannot help at all.
 *
 *   causal_fig1 [ROUNDS [A_PERCENT [ROUND_MS [pin]]]]
 *     A_PERCENT: a()'s work in % (100: as in the figure; 50: a() halved);
 *       mix: each round draws 100, 50 or 1 and the program prints what
 *       halving and removing a() gained, from the rounds' mean wall times
 *       (create to join): the truth of one native run, which the drift of
 *       this VM's cores between separate runs does not blur
 *     ROUND_MS: b()'s CPU time (default 5 ms)
 *     pin: a() on the first CPU this process may use, b() on the second
 *       (a new thread starts on its creator's CPU; on a busy machine
 *       short threads may stay there); fails with fewer than two
 *
 * The ~4.8 % holds only where a() and b() each have a core that runs as
 * fast as the other. Here they often do not: one virtual CPU may run a
 * third slower than the other for seconds (the host's other guests), or
 * another program may share a()'s core; then a() really is the critical
 * path and removing it really gains up to 50 %. With CAUSAL_FIG1_TRUTH=FILE
 * the program appends to FILE what speeding up a() could gain in this very
 * run: from each round's a_r, the wall time a() took (slow core, shared
 * core and all), and b_r, the CPU time b() took (under witch its wall time
 * holds the pauses of the virtual speedup), for s = 0, 5, ..., 100 a line
 * "s gain" with gain = 100 * (1 - sum max((1 - s) a_r, b_r) / sum
 * max(a_r, b_r)). Thread creation and joining are left out: they do not
 * get faster, so this errs high. It also takes b_r as it was beside a():
 * where two busy cores slow each other (this VM's do), b() alone is faster
 * and removing a() gains more, which `mix` measures.
 */
#include <coz.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal_calib.h"

static long a_iters, b_iters;	/* a_iters: this round's */
static double *a_ns, *b_ns;	/* per round: a()'s wall time, b()'s CPU time */
static long round_no;

__attribute__((noinline)) static void a_loop(long n)
{
	for (volatile long x = 0; x < n; x++) {}	/* fig1: line a */
}

__attribute__((noinline)) static void b_loop(long n)
{
	for (volatile long y = 0; y < n; y++) {}	/* fig1: line b */
}

static void *a(void *arg)
{
	double t0 = calib_wall_ns();

	(void)arg;
	a_loop(a_iters);
	a_ns[round_no] = calib_wall_ns() - t0;
	return NULL;
}

static void *b(void *arg)
{
	double t0 = calib_cpu_ns();

	(void)arg;
	b_loop(b_iters);
	b_ns[round_no] = calib_cpu_ns() - t0;
	return NULL;
}

static double max2(double x, double y) { return x > y ? x : y; }

/* Appends "s gain" lines to PATH: see the comment at the top. */
static void write_truth(const char *path, long rounds)
{
	FILE *f = fopen(path, "a");
	int s;
	long r;

	if (!f) {
		perror(path);
		exit(1);
	}
	for (s = 0; s <= 100; s += 5) {
		double sped = 0, real = 0;

		for (r = 0; r < rounds; r++) {
			sped += max2((1 - s / 100.0) * a_ns[r], b_ns[r]);
			real += max2(a_ns[r], b_ns[r]);
		}
		fprintf(f, "%d %.1f\n", s, real > 0 ? 100 * (1 - sped / real) : 0.0);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400, pct = argc > 2 ? atol(argv[2]) : 100;
	int mix = argc > 2 && !strcmp(argv[2], "mix");
	static const long mix_pct[3] = { 100, 50, 1 };
	double mix_ns[3] = { 0, 0, 0 }, mix_n[3] = { 0, 0, 0 };
	unsigned long rng = 0x9E3779B97F4A7C15UL;
	long a_full;
	double ms = argc > 3 ? atof(argv[3]) : 5;
	int pin = argc > 4 && !strcmp(argv[4], "pin");
	const char *truth = getenv("CAUSAL_FIG1_TRUTH");
	pthread_attr_t attr_a, attr_b;
	cpu_set_t cpus;

	pthread_attr_init(&attr_a);
	pthread_attr_init(&attr_b);
	if (pin) {
		int cpu[2], n = 0, c;

		if (sched_getaffinity(0, sizeof(cpus), &cpus)) {
			perror("causal_fig1: sched_getaffinity");
			return 1;
		}
		for (c = 0; c < CPU_SETSIZE && n < 2; c++)
			if (CPU_ISSET(c, &cpus))
				cpu[n++] = c;
		if (n < 2) {
			fprintf(stderr, "causal_fig1: pin needs two CPUs, this process may use %d\n", n);
			return 1;
		}
		CPU_ZERO(&cpus);
		CPU_SET(cpu[0], &cpus);
		pthread_attr_setaffinity_np(&attr_a, sizeof(cpus), &cpus);
		CPU_ZERO(&cpus);
		CPU_SET(cpu[1], &cpus);
		pthread_attr_setaffinity_np(&attr_b, sizeof(cpus), &cpus);
	}

	a_ns = calloc(rounds > 0 ? rounds : 1, sizeof(*a_ns));
	b_ns = calloc(rounds > 0 ? rounds : 1, sizeof(*b_ns));
	if (!a_ns || !b_ns) {
		perror("causal_fig1");
		return 1;
	}
	b_iters = (long)(ms * 1e6 / calib_ns_per_iter("fig1.b", b_loop, 200000));
	a_full = (long)(ms * 1e6 * 1.05 / calib_ns_per_iter("fig1.a", a_loop, 200000));
	a_iters = mix ? a_full : a_full * pct / 100;
	for (round_no = 0; round_no < rounds; round_no++) {
		pthread_t ta, tb;
		int k = 0;
		double t0 = calib_wall_ns();

		if (mix) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			k = (int)(rng % 3);
			a_iters = a_full * mix_pct[k] / 100;
		}
		if (pthread_create(&ta, &attr_a, a, NULL) || pthread_create(&tb, &attr_b, b, NULL)) {
			fprintf(stderr, "causal_fig1: pthread_create failed\n");
			return 1;
		}
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		COZ_PROGRESS;
		mix_ns[k] += calib_wall_ns() - t0;
		mix_n[k]++;
	}
	if (mix && mix_n[0] && mix_n[1] && mix_n[2]) {
		double full = mix_ns[0] / mix_n[0];

		printf("mix: a() halved %+.1f%%, a() removed %+.1f%%\n",
		       100 * (1 - mix_ns[1] / mix_n[1] / full), 100 * (1 - mix_ns[2] / mix_n[2] / full));
	}
	if (truth)
		write_truth(truth, rounds);
	printf("%ld rounds\n", rounds);
	return 0;
}
