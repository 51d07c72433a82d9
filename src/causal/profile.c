/*
 * profile.c - the causal profile DIR/causal.PID (docs/causal.md section 2).
 *
 * The file is opened at start under a hidden temporary name and appended to
 * as records come (progress points when first seen, experiments when they
 * end), each record with one write(2) under a small lock. At the end of
 * the image the `samples`, `runtime` and `end` lines follow and the file is
 * renamed. Everything here is async-signal-safe: a fatal signal may end
 * the image.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "causal/causal.h"

static int fd = -1;
static int lock;
static int closed;
static char path[4200], tmp[4200];
static uint64_t start_ns;
static off_t size_before_exec = -1;
static struct wc_buf fin;	/* the final records; also a scratch buffer */

/* --- formatting ---------------------------------------------------------- */

static void put_bytes(struct wc_buf *b, const char *s, size_t n)
{
	if (n > sizeof(b->b) - b->len)
		n = sizeof(b->b) - b->len;
	memcpy(b->b + b->len, s, n);
	b->len += n;
}

void wc_put(struct wc_buf *b, const char *s)
{
	put_bytes(b, s, strlen(s));
}

void wc_put_name(struct wc_buf *b, const char *s)
{
	for (; *s && b->len < sizeof(b->b); s++)
		b->b[b->len++] = (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s;
}

void wc_put_u64(struct wc_buf *b, uint64_t v)
{
	char tmp_[24];
	int i = sizeof(tmp_);

	do {
		tmp_[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_bytes(b, tmp_ + i, sizeof(tmp_) - (size_t)i);
}

void wc_put_i64(struct wc_buf *b, int64_t v)
{
	if (v < 0) {
		put_bytes(b, "-", 1);
		wc_put_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		wc_put_u64(b, (uint64_t)v);
	}
}

/* num/den with two decimals (speedups are whole percents). */
void wc_put_frac(struct wc_buf *b, uint64_t num, uint64_t den)
{
	uint64_t c = den ? (num * 100 + den / 2) / den : 0;
	char f[3] = { '.', (char)('0' + c / 10 % 10), (char)('0' + c % 10) };

	wc_put_u64(b, c / 100);
	put_bytes(b, f, 3);
}

/* --- the file -------------------------------------------------------------- */

static void take_lock(void)
{
	long spins = 0;

	/* Bounded: a fatal signal may have stopped the holder for good. */
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE) && ++spins < 20000000)
		;
}

static void drop_lock(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static void write_all(const char *s, size_t n)
{
	while (n && fd >= 0) {
		ssize_t k = write(fd, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

void wc_profile_record(const char *text, size_t len)
{
	int e = errno;

	take_lock();
	if (!closed)
		write_all(text, len);
	drop_lock();
	errno = e;
}

static void make_path(char *dst, size_t cap, const char *prefix, int n, const char *suffix)
{
	struct wc_buf *b = &fin;

	b->len = 0;
	wc_put(b, wc_cfg.outdir);
	wc_put(b, prefix);
	wc_put_u64(b, (uint64_t)getpid());
	if (n) {
		wc_put(b, ".");
		wc_put_u64(b, (uint64_t)n);
	}
	wc_put(b, suffix);
	if (b->len >= cap)
		b->len = cap - 1;
	memcpy(dst, b->b, b->len);
	dst[b->len] = 0;
	b->len = 0;
}

static void put_command(struct wc_buf *b)
{
	char cmd[1024];
	int cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = cfd >= 0 ? read(cfd, cmd, sizeof(cmd) - 1) : -1;
	ssize_t i;

	if (cfd >= 0)
		close(cfd);
	if (n <= 0)
		return;
	cmd[n] = 0;
	for (i = 0; i < n - 1; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	wc_put_name(b, cmd);
}

/* causal.PID, or causal.PID.N when an earlier image of this process (before
 * an exec) already wrote one. */
int wc_profile_open(void)
{
	struct timespec ts;
	struct wc_buf *b = &fin;
	int n;

	if (fd >= 0)
		close(fd);	/* a fork child's copy of its parent's file */
	fd = -1;
	closed = 0;
	lock = 0;
	size_before_exec = -1;
	for (n = 0; n < 1000; n++) {
		make_path(path, sizeof(path), "/causal.", n, "");
		if (access(path, F_OK) < 0)
			break;
	}
	make_path(tmp, sizeof(tmp), "/.causal.", n, ".tmp");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	start_ns = wc_now();
	clock_gettime(CLOCK_REALTIME, &ts);
	b->len = 0;
	wc_put(b, "witch-causal\tversion=1\tpid=");
	wc_put_u64(b, (uint64_t)getpid());
	wc_put(b, "\tcommand=");
	put_command(b);
	wc_put(b, "\nstartup\ttime=");
	wc_put_u64(b, (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
	wc_put(b, "\n");
	if (wc_cfg.end_to_end)
		wc_put(b, "progress\tname=end-to-end\tkind=end-to-end\n");
	write_all(b->b, b->len);
	b->len = 0;
	return 0;
}

void wc_profile_progress(const char *name, const char *kind)
{
	struct wc_buf b;

	b.len = 0;
	wc_put(&b, "progress\tname=");
	wc_put_name(&b, name);
	wc_put(&b, "\tkind=");
	wc_put(&b, kind);
	wc_put(&b, "\n");
	wc_profile_record(b.b, b.len);
}

static void flush_fin(int force)
{
	if (fin.len && (force || fin.len > sizeof(fin.b) - 2048)) {
		write_all(fin.b, fin.len);
		fin.len = 0;
	}
}

/* The closing records; the lock is held. */
static void put_end(int complete, int status)
{
	uint64_t wall, delays, stolen, paused, npauses, over;
	int i;

	fin.len = 0;
	for (i = 0; i < wc_nlines; i++) {
		uint64_t n = __atomic_load_n(&wc_line_samples[i], __ATOMIC_RELAXED);

		if (!n || !wc_lines[i].loc)
			continue;
		wc_put(&fin, "samples\tlocation=");
		wc_put_name(&fin, wc_lines[i].loc);
		wc_put(&fin, "\tcount=");
		wc_put_u64(&fin, n);
		wc_put(&fin, "\n");
		flush_fin(0);
	}
	/* Eq. 6's T, in the experiments' units: durations leave out the
	 * virtual delays and the time spent waiting for a core, so T does
	 * too (else a loaded machine or many delays shrink every prediction). */
	wall = wc_now() - start_ns;
	delays = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	stolen = __atomic_load_n(&wc_stolen_total_ns, __ATOMIC_RELAXED);
	wc_put(&fin, "runtime\ttime=");
	wc_put_u64(&fin, wall > delays + stolen ? wall - delays - stolen : 0);
	wc_put(&fin, "\twall=");
	wc_put_u64(&fin, wall);
	wc_put(&fin, "\tdelay-ns=");
	wc_put_u64(&fin, delays);
	wc_put(&fin, "\twaited-for-cpu-ns=");
	wc_put_u64(&fin, stolen);
	wc_delays_paused(&paused, &npauses, &over);
	wc_put(&fin, "\tpaused-ns=");
	wc_put_u64(&fin, paused);
	wc_put(&fin, "\tpauses=");
	wc_put_u64(&fin, npauses);
	wc_put(&fin, "\toversleep-ns=");
	wc_put_u64(&fin, over);
	wc_put(&fin, "\tbudget-held-ns=");
	wc_put_u64(&fin, __atomic_load_n(&wc_budget_held_ns, __ATOMIC_RELAXED));
	wc_put(&fin, "\nend\tstatus=");
	if (status == -1000) {
		wc_put(&fin, "exec");
	} else if (status < 0) {
		wc_put(&fin, "signal:");
		wc_put_u64(&fin, (uint64_t)-status);
	} else {
		wc_put(&fin, "exit:");
		wc_put_u64(&fin, (uint64_t)status);
	}
	wc_put(&fin, complete ? "\tcomplete=1\n" : "\tcomplete=0\n");
	flush_fin(1);
}

void wc_profile_finish(int complete, int status)
{
	int e = errno;

	take_lock();
	if (!closed && fd >= 0) {
		put_end(complete, status);
		closed = 1;
		close(fd);
		fd = -1;
		rename(tmp, path);
	}
	drop_lock();
	errno = e;
}

void wc_profile_before_exec(void)
{
	int e = errno;

	take_lock();
	if (!closed && fd >= 0) {
		size_before_exec = lseek(fd, 0, SEEK_END);
		put_end(1, -1000);
		closed = 1;
		rename(tmp, path);
	}
	drop_lock();
	errno = e;
}

/* The exec failed: the image goes on with the same file. */
void wc_profile_exec_failed(void)
{
	int e = errno;

	take_lock();
	if (closed && fd >= 0 && size_before_exec >= 0) {
		if (ftruncate(fd, size_before_exec) == 0 && rename(path, tmp) == 0)
			closed = 0;
		size_before_exec = -1;
	}
	drop_lock();
	errno = e;
}
