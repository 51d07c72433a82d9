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
#include <time.h>
#include <unistd.h>

#include "causal/causal.h"
#include "core/clock.h"
#include "core/job_here.h"
#include "core/outfile.h"
#include "core/outname.h"

static int fd = -1;
static int lock;
static int closed;
static char path[4200], tmp[4200];
static uint64_t start_ns;
static off_t size_before_exec = -1;
static char fin[16384];	/* the header and the closing records go out through it */

/* --- the causal profile's fields ------------------------------------------ */

struct core_fmt *wc_record_start(struct wc_record *r)
{
	core_fmt_init(&r->f, r->buf, sizeof(r->buf), NULL, NULL);
	return &r->f;
}

void wc_put_name(struct core_fmt *f, const char *s)
{
	for (; *s; s++) {
		char c = (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s;

		core_fmt_bytes(f, &c, 1);
	}
}

/* num/den with two decimals (speedups are whole percents). */
void wc_put_frac(struct core_fmt *f, uint64_t num, uint64_t den)
{
	uint64_t c = den ? (num * 100 + den / 2) / den : 0;
	char d[3] = { '.', (char)('0' + c / 10 % 10), (char)('0' + c % 10) };

	core_fmt_u64(f, c / 100);
	core_fmt_bytes(f, d, 3);
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

/* The file's sink (core/fmt.h): what goes out after it closed is dropped. */
static int write_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	return fd >= 0 ? core_outfile_write(fd, s, n) : 0;
}

void wc_profile_record(const struct core_fmt *rec)
{
	int e = errno;

	take_lock();
	if (!closed)
		write_sink(NULL, rec->buf, rec->len);
	drop_lock();
	errno = e;
}

static void put_command(struct core_fmt *f)
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
	wc_put_name(f, cmd);
}

/* The host, and a launcher's rank and world size, as header fields. */
static void put_job(struct core_fmt *f, const struct core_job *j)
{
	if (j->host[0]) {
		core_fmt_str(f, "\thost=");
		wc_put_name(f, j->host);
	}
	if (j->rank < 0)
		return;
	core_fmt_str(f, "\trank=");
	core_fmt_u64(f, (uint64_t)j->rank);
	if (j->size) {
		core_fmt_str(f, "\tworld-size=");
		core_fmt_u64(f, j->size);
	}
}

/* causal.PID (a launcher's rank: causal.hHOST.rRANK.PID), or with .N
 * after it when an earlier image of this process (before an exec) already
 * wrote one; written as .causal.PID[.N].tmp. */
int wc_profile_open(void)
{
	struct core_job job;
	struct core_outname name = { wc_cfg.outdir, CAUSAL_PROFILE_STEM, '.', (uint64_t)getpid(),
				     "", &job };
	struct core_outname tmp_name = name;
	struct core_fmt f;
	unsigned n;

	if (fd >= 0)
		close(fd);	/* a fork child's copy of its parent's file */
	fd = -1;
	core_job_here(&job);
	closed = 0;
	lock = 0;
	size_before_exec = -1;
	n = core_outname_free(&name, path, sizeof(path), core_outfile_exists);
	tmp_name.stem = "." CAUSAL_PROFILE_STEM;
	tmp_name.suffix = PROFILE_TMP_SUFFIX;
	core_outname_put(&tmp_name, n, tmp, sizeof(tmp));
	fd = core_outfile_create(tmp);
	if (fd < 0)
		return -1;
	start_ns = wc_now();
	core_fmt_init(&f, fin, sizeof(fin), write_sink, NULL);
	core_fmt_str(&f, "witch-causal\tversion=1\tpid=");
	core_fmt_u64(&f, (uint64_t)getpid());
	put_job(&f, &job);
	core_fmt_str(&f, "\tcommand=");
	put_command(&f);
	core_fmt_str(&f, "\nstartup\ttime=");
	core_fmt_u64(&f, core_clock_ns(CLOCK_REALTIME));
	core_fmt_str(&f, "\n");
	if (wc_cfg.end_to_end)
		core_fmt_str(&f, "progress\tname=end-to-end\tkind=end-to-end\n");
	core_fmt_flush(&f);
	return 0;
}

void wc_profile_progress(const char *name, const char *kind)
{
	struct wc_record r;
	struct core_fmt *f = wc_record_start(&r);

	core_fmt_str(f, "progress\tname=");
	wc_put_name(f, name);
	core_fmt_str(f, "\tkind=");
	core_fmt_str(f, kind);
	core_fmt_str(f, "\n");
	wc_profile_record(f);
}

/* The closing records; the lock is held. */
static void put_end(int complete, int status)
{
	uint64_t wall, delays, stolen, paused, npauses, over;
	struct core_fmt fmt, *f = &fmt;
	int i;

	core_fmt_init(f, fin, sizeof(fin), write_sink, NULL);
	for (i = 0; i < wc_nlines; i++) {
		uint64_t n = __atomic_load_n(&wc_line_samples[i], __ATOMIC_RELAXED);
		uint64_t c = __atomic_load_n(&wc_line_callers[i], __ATOMIC_RELAXED);

		if (n && wc_lines[i].loc) {
			core_fmt_str(f, "samples\tlocation=");
			wc_put_name(f, wc_lines[i].loc);
			core_fmt_str(f, "\tcount=");
			core_fmt_u64(f, n);
			core_fmt_str(f, "\n");
		}
		if (c && wc_lines[i].loc) {
			core_fmt_str(f, "callers\tlocation=");
			wc_put_name(f, wc_lines[i].loc);
			core_fmt_str(f, "\tcount=");
			core_fmt_u64(f, c);
			core_fmt_str(f, "\n");
		}
	}
	/* Eq. 6's T, in the experiments' units: durations leave out the
	 * virtual delays and the time spent waiting for a core, so T does
	 * too (else a loaded machine or many delays shrink every prediction). */
	wall = wc_now() - start_ns;
	delays = __atomic_load_n(&wc_exp.global, __ATOMIC_ACQUIRE);
	stolen = __atomic_load_n(&wc_stolen_total_ns, __ATOMIC_RELAXED);
	core_fmt_str(f, "runtime\ttime=");
	core_fmt_u64(f, wall > delays + stolen ? wall - delays - stolen : 0);
	core_fmt_str(f, "\twall=");
	core_fmt_u64(f, wall);
	core_fmt_str(f, "\tdelay-ns=");
	core_fmt_u64(f, delays);
	core_fmt_str(f, "\twaited-for-cpu-ns=");
	core_fmt_u64(f, stolen);
	wc_delays_paused(&paused, &npauses, &over);
	core_fmt_str(f, "\tpaused-ns=");
	core_fmt_u64(f, paused);
	core_fmt_str(f, "\tpauses=");
	core_fmt_u64(f, npauses);
	core_fmt_str(f, "\toversleep-ns=");
	core_fmt_u64(f, over);
	core_fmt_str(f, "\tbudget-held-ns=");
	core_fmt_u64(f, __atomic_load_n(&wc_budget_held_ns, __ATOMIC_RELAXED));
	core_fmt_str(f, "\nend\tstatus=");
	if (status == -1000) {
		core_fmt_str(f, "exec");
	} else if (status < 0) {
		core_fmt_str(f, "signal:");
		core_fmt_u64(f, (uint64_t)-status);
	} else {
		core_fmt_str(f, "exit:");
		core_fmt_u64(f, (uint64_t)status);
	}
	core_fmt_str(f, complete ? "\tcomplete=1\n" : "\tcomplete=0\n");
	core_fmt_flush(f);
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

/* An image that runs a launcher was starting it, not the application:
 * its file goes (if the exec fails, the rest of the image is lost). */
void wc_profile_drop(void)
{
	int e = errno;

	take_lock();
	if (!closed && fd >= 0) {
		unlink(tmp);
		closed = 1;
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
