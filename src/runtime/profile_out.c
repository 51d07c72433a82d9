/*
 * profile_out.c - writes the process profile (docs/profile-format.md):
 * what goes in it; the core spells its lines (core/profile.h). Everything
 * comes from static or preallocated memory and goes out with write(2), so
 * a crash path can call it too.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/contract.h"
#include "core/outfile.h"
#include "core/outname.h"
#include "core/profile.h"
#include "runtime/modules.h"
#include "runtime/profile_out.h"
#include "runtime/runtime.h"

static struct core_profile out;
static char out_buf[1 << 16];
static struct wt_module mods[WT_MAX_MODULES];
static uint64_t start_ns;
static int unsampled_threads;
static char cmdline[1 << 16];
static size_t cmdline_len;

void wt_profile_reset(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	start_ns = core_clock_ns(CLOCK_REALTIME);
	unsampled_threads = 0;
	cmdline_len = 0;
	if (fd < 0)
		return;
	while (cmdline_len < sizeof(cmdline) - 1 &&
	       (n = read(fd, cmdline + cmdline_len, sizeof(cmdline) - 1 - cmdline_len)) > 0)
		cmdline_len += (size_t)n;
	cmdline[cmdline_len] = 0;
	close(fd);
}

void wt_count_unsampled_thread(void)
{
	__atomic_add_fetch(&unsampled_threads, 1, __ATOMIC_RELAXED);
}

static void kv(const char *key, const char *value)
{
	core_profile_kv(&out, key, value);
}

static void kv_u64(const char *key, uint64_t value)
{
	core_profile_kv_u64(&out, key, value);
}

static void stat_line(const char *name, uint64_t value)
{
	core_profile_stat(&out, name, value);
}

static void write_args(void)
{
	size_t off = 0;
	uint64_t i = 0;

	while (off < cmdline_len) {
		core_profile_arg(&out, i++, cmdline + off);
		off += strlen(cmdline + off) + 1;
	}
}

static const char *craft_name(void)
{
	static const char *names[] = { "dead", "silent", "load" };

	return names[wt_cfg.craft];
}

/* Give each module that some node refers to an id, in order of first use. */
static int number_modules(int nmods)
{
	struct wt_thread *t;
	uint32_t i;
	int next = 0, m;

	for (t = wt_threads(); t; t = t->next)
		for (i = 1; i < t->cct.nnodes; i++) {
			m = wt_modules_find(mods, nmods, t->cct.nodes[i].pc);
			if (m >= 0 && mods[m].id < 0)
				mods[m].id = next++;
		}
	return next;
}

static void write_modules(int nmods)
{
	int m;

	for (m = 0; m < nmods; m++) {
		if (mods[m].id >= 0)
			core_profile_module(&out, mods[m].id, mods[m].build_id, mods[m].bias,
					    mods[m].path);
	}
}

static void write_stats(void)
{
	struct wt_stats sum;
	struct wt_thread *t;
	uint64_t threads = 0, dropped = 0, truncated = 0, pairs_dropped = 0;

	memset(&sum, 0, sizeof(sum));
	for (t = wt_threads(); t; t = t->next) {
		const uint64_t *a = (const uint64_t *)&t->st;
		uint64_t *s = (uint64_t *)&sum;
		size_t i;

		for (i = 0; i < sizeof(sum) / sizeof(uint64_t); i++)
			s[i] += a[i];
		threads++;
		dropped += t->cct.nodes_dropped;
		truncated += t->cct.frames_truncated;
		pairs_dropped += t->cct.pairs_dropped;
	}
	stat_line("samples", sum.samples);
	stat_line("samples_no_access", sum.samples_no_access);
	stat_line("samples_out_of_reach", sum.samples_out_of_reach);
	stat_line("samples_skipped_implicit", sum.samples_skipped_implicit);
	stat_line("samples_reservoir_dropped", sum.samples_reservoir_dropped);
	stat_line("samples_unwind_failed", sum.samples_unwind_failed);
	stat_line("watchpoints_armed", sum.watchpoints_armed);
	stat_line("probe_traps", sum.probe_traps);
	stat_line("probes_missed", sum.probes_missed);
	stat_line("traps", sum.traps);
	stat_line("self_traps", sum.self_traps);
	stat_line("traps_unresolved", sum.traps_unresolved);
	stat_line("traps_lost", sum.traps_lost);
	stat_line("stores_ignored", sum.stores_ignored);
	stat_line("handler_ns", sum.handler_ns);
	{
		struct rusage ru;

		/* The process's own peak, for overhead figures without the CLI. */
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			stat_line("peak_rss_kb", (uint64_t)ru.ru_maxrss);
	}
	stat_line("arm_failed", sum.arm_failed);
	stat_line("watches_released", sum.watches_released);
	stat_line("syscall_buffer_hits", sum.syscall_buffer_hits);
	stat_line("traps_witch", sum.traps_witch);
	if (wt_cfg.pmu) {
		stat_line("pmu_samples_other", sum.pmu_samples_other);
		stat_line("pmu_samples_lost", sum.pmu_samples_lost);
	}
	if (wt_pages_mode) {
		stat_line("false_faults", sum.false_faults);
		stat_line("watches_ended", sum.watches_ended);
		stat_line("steps", sum.steps);
		stat_line("samples_in_witch_time", sum.samples_in_witch_time);
		stat_line("syscalls_stepped", sum.syscalls_stepped);
	}
	stat_line("threads", threads);
	stat_line("threads_unsampled", (uint64_t)unsampled_threads);
	stat_line("nodes_dropped", dropped);
	stat_line("frames_truncated", truncated);
	stat_line("pairs_dropped", pairs_dropped);
}

static void write_thread(const struct wt_thread *t, int nmods)
{
	const struct wt_cct *c = &t->cct;
	uint32_t i;

	core_profile_thread(&out, (uint64_t)t->tid, c->nnodes, c->npairs);
	core_profile_node(&out, 0, -1, -1, 0, 0);
	for (i = 1; i < c->nnodes; i++) {
		const struct wt_cct_node *n = &c->nodes[i];
		int m = wt_modules_find(mods, nmods, n->pc);

		core_profile_node(&out, i, n->parent, m >= 0 ? mods[m].id : -1,
				  m >= 0 ? n->pc - mods[m].bias : n->pc, n->mu);
	}
	for (i = 0; i < c->npairs; i++) {
		const struct wt_pair *p = &c->pairs[i];
		double r = wt_attrib_remainder(&c->nodes[p->watch]);

		core_profile_pair(&out, p->watch, p->trap, core_milli(p->waste * r),
				  core_milli(p->use * r), p->count, wt_cfg.craft != WT_CRAFT_DEAD,
				  core_milli(p->approx * r));
	}
}

/* <outdir>/<program>-<pid>.witch, or -<n> after it if an earlier image of
 * this pid (before an exec) already wrote one. */
int wt_profile_write(int complete, char *path_out, size_t cap)
{
	extern char *program_invocation_short_name;
	static char path[4200], tmp[4210];
	struct core_outname name = { wt_cfg.outdir, program_invocation_short_name, '-',
				     (uint64_t)getpid(), PROFILE_SUFFIX };
	struct wt_thread *t;
	int nmods, saved = errno, rc, fd;

	nmods = wt_modules_scan(mods, WT_MAX_MODULES);
	number_modules(nmods);
	core_outname_free(&name, path, sizeof(path), core_outfile_exists);
	memcpy(tmp, path, strlen(path));
	memcpy(tmp + strlen(path), PROFILE_TMP_SUFFIX, sizeof(PROFILE_TMP_SUFFIX));
	fd = core_outfile_create(tmp);
	if (fd < 0) {
		errno = saved;
		return -1;
	}
	core_fmt_init(&out.out, out_buf, sizeof(out_buf), core_outfile_sink, &fd);
	out.lines = 0;
	kv("WITCH-PROFILE", "1");
	kv("tool", craft_name());
	if (wt_cfg.pmu) {
		kv("source", "pmu");
		kv_u64("rate_hz", 0);
		kv_u64("period", wt_cfg.pmu_attr.sample_period);	/* events per sample */
	} else {
		kv("source", "timer");
		kv_u64("rate_hz", wt_cfg.period_ns > 0 ? 0 : (uint64_t)wt_cfg.rate_hz);
		kv_u64("period", (uint64_t)(wt_cfg.period_ns > 0 ? wt_cfg.period_ns : 0));
		kv_u64("spread", (uint64_t)wt_cfg.spread);
		kv_u64("reach", (uint64_t)wt_cfg.reach);
	}
	kv_u64("registers", (uint64_t)wt_cfg.registers);
	kv_u64("pid", (uint64_t)getpid());
	kv_u64("start_ns", start_ns);
	kv_u64("end_ns", core_clock_ns(CLOCK_REALTIME));
	kv("status", complete ? "complete" : "incomplete");
	write_args();
	write_modules(nmods);
	write_stats();
	for (t = wt_threads(); t; t = t->next)
		write_thread(t, nmods);
	rc = core_profile_end(&out);
	rc = core_outfile_commit(fd, rc < 0, tmp, path);
	if (rc == 0 && path_out && cap > strlen(path))
		memcpy(path_out, path, strlen(path) + 1);
	errno = saved;
	return rc;
}
