/*
 * sampler-cost - what witch causal's per-thread sampling costs the CPU,
 * measured so that this VM's drifting core speed cancels out.
 *
 *   sampler-cost [PERIOD_NS [PAIRS]]
 *
 * The cores of this VM run at speeds that change by up to 2x for tenths of
 * a second at a time, so whole runs timed against each other cannot show a
 * cost of 2 %. Here one thread runs a fixed busy loop in chunks of ~15 ms,
 * in pairs: one chunk with the sampler on, one with it off (in alternating
 * order), and prints the median and quartiles of on/off over the pairs.
 *
 * Two samplers, both a perf task-clock event at PERIOD_NS (default 1 ms)
 * writing the interrupted IP, time, count and 512 bytes of user stack into
 * a ring buffer, as src/causal/sampler.c opens it:
 *   - "perf signal": the ring buffer's fd with O_ASYNC; perf then signals
 *     every sample and the handler empties the buffer (what the runtime
 *     does);
 *   - "cpu timer": no signal from perf; a CPU-time POSIX timer signals
 *     every 10 periods and the handler empties the buffer (cheaper, but
 *     src/causal/sampler.c says why the runtime does not).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 8

static struct perf_event_mmap_page *ring;
static volatile long signals;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void on_signal(int sig)
{
	(void)sig;
	signals++;
	ring->data_tail = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
}

static int open_sampler(long period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = (unsigned long long)period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_STACK_USER;
	a.sample_stack_user = 512;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One chunk of fixed work; its seconds. */
static double chunk(void)
{
	static volatile unsigned long sink;
	double t = now();

	for (long i = 0; i < 40000000; i++)
		sink += (unsigned long)i;
	return now() - t;
}

/* Arm the timer (every `ns`, the first expiry after `left` ns if not 0) or
 * disarm it (ns 0); returns the time the first expiry was still away. The
 * sampler is off between chunks: the timer resumes where it stopped, or a
 * chunk shorter than its interval would never see it fire. */
static long set_timer(timer_t tm, long ns, long left)
{
	struct itimerspec its, old;
	long first = left ? left : ns;

	its.it_interval.tv_sec = ns / 1000000000L;
	its.it_interval.tv_nsec = ns % 1000000000L;
	its.it_value.tv_sec = ns ? first / 1000000000L : 0;
	its.it_value.tv_nsec = ns ? first % 1000000000L : 0;
	timer_settime(tm, 0, &its, &old);
	return old.it_value.tv_sec * 1000000000L + old.it_value.tv_nsec;
}

static void measure(const char *what, long period, int pairs, int with_timer)
{
	double *r = calloc((size_t)pairs, sizeof(*r)), t0 = 0, on_time = 0;
	long page = sysconf(_SC_PAGESIZE);
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	struct sigevent ev;
	timer_t tm = 0;
	long left = 0;
	int fd = open_sampler(period);

	if (fd < 0 || !r) {
		perror("sampler-cost: perf_event_open");
		exit(1);
	}
	ring = mmap(NULL, (size_t)page * (1 + RING_PAGES), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		perror("sampler-cost: mmap");
		exit(1);
	}
	signals = 0;
	if (with_timer) {
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGIO;
		ev._sigev_un._tid = owner.pid;
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tm) < 0) {
			perror("sampler-cost: timer_create");
			exit(1);
		}
	} else if (fcntl(fd, F_SETFL, O_ASYNC) < 0 || fcntl(fd, F_SETSIG, SIGIO) < 0 ||
		   fcntl(fd, F_SETOWN_EX, &owner) < 0) {
		perror("sampler-cost: fcntl");
		exit(1);
	}
	for (int k = 0; k < pairs; k++) {
		double t[2];

		for (int i = 0; i < 2; i++) {
			int on = (k & 1) ? !i : i;

			if (on) {
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
				if (with_timer)
					set_timer(tm, 10 * period, left);
				t0 = now();
			}
			t[on] = chunk();
			if (on) {
				on_time += now() - t0;
				if (with_timer)
					left = set_timer(tm, 0, 0);
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			}
		}
		r[k] = t[1] / t[0];
	}
	qsort(r, (size_t)pairs, sizeof(*r), cmp_double);
	printf("%-12s %8.4f %8.4f %8.4f %10.0f\n", what, r[pairs / 2], r[pairs / 4],
	       r[3 * pairs / 4], (double)signals / on_time);
	if (with_timer)
		timer_delete(tm);
	munmap(ring, (size_t)page * (1 + RING_PAGES));
	close(fd);
	free(r);
}

int main(int argc, char **argv)
{
	long period = argc > 1 ? atol(argv[1]) : 1000000;
	int pairs = argc > 2 ? atoi(argv[2]) : 200;

	if (period < 10000 || pairs < 4) {
		fprintf(stderr, "usage: sampler-cost [PERIOD_NS (>= 10000) [PAIRS (>= 4)]]\n");
		return 2;
	}
	signal(SIGIO, on_signal);
	printf("sampling period %ld ns, %d pairs of chunks (sampler on / off, CPU time of a busy loop)\n",
	       period, pairs);
	printf("%-12s %8s %8s %8s %10s\n", "signal", "median", "q1", "q3", "signals/s");
	measure("perf signal", period, pairs, 0);
	measure("cpu timer", period, pairs, 1);
	return 0;
}
