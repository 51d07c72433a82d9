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
#include "core/job_here.h"
#include "core/outfile.h"
#include "core/outname.h"
#include "core/profile.h"
#include "runtime/modules.h"
#include "runtime/profile_out.h"
#include "runtime/runtime.h"
#include "runtime/share.h"

static struct core_profile out;
static char out_buf[1 << 16];
static struct wt_module mods[WT_MAX_MODULES];
static uint64_t start_ns, start_cpu_ns;
static int unsampled_threads;
static char cmdline[1 << 16];
static size_t cmdline_len;
static struct core_job job;	/* read when the image starts: not on a crash path */

void wt_profile_reset(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	start_ns = core_clock_ns(CLOCK_REALTIME);
	start_cpu_ns = core_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	core_job_here(&job);
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

static void write_args(void)
{
	size_t off = 0;
	uint64_t i = 0;

	while (off < cmdline_len) {
		core_profile_arg(&out, i++, cmdline + off);
		off += strlen(cmdline + off) + 1;
	}
}

static const char *tool_name(void)
{
	static const char *names[] = { "dead", "silent", "load", "share" };

	return wt_cfg.samples_only ? "time" : names[wt_cfg.craft];
}

/* Give each module that some node refers to an id, in order of first use. */
static int number_modules(int nmods)
{
	struct wt_thread *t;
	uint32_t i;
	int next = 0, m;

	for (t = wt_threads(); t; t = t->next) {
		for (i = 1; i < t->cct.nnodes; i++) {
			m = wt_modules_find(mods, nmods, t->cct.nodes[i].pc);
			if (m >= 0 && mods[m].id < 0)
				mods[m].id = next++;
		}
		/* --craft=share: a shared line in a module's data */
		for (i = 0; t->share && i < t->share->n; i++) {
			m = wt_modules_find(mods, nmods, t->share->v[i].line);
			if (m >= 0 && mods[m].id < 0)
				mods[m].id = next++;
		}
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

/* The crafts' counters (docs/profile-format.md). */
static void write_craft_stats(const struct wt_stats *s)
{
	core_profile_stat(&out, "samples_no_access", s->samples_no_access);
	core_profile_stat(&out, "samples_out_of_reach", s->samples_out_of_reach);
	core_profile_stat(&out, "samples_skipped_implicit", s->samples_skipped_implicit);
	core_profile_stat(&out, "samples_reservoir_dropped", s->samples_reservoir_dropped);
	core_profile_stat(&out, "samples_unwind_failed", s->samples_unwind_failed);
	core_profile_stat(&out, "watchpoints_armed", s->watchpoints_armed);
	core_profile_stat(&out, "probe_traps", s->probe_traps);
	core_profile_stat(&out, "probes_missed", s->probes_missed);
	core_profile_stat(&out, "traps", s->traps);
	core_profile_stat(&out, "self_traps", s->self_traps);
	core_profile_stat(&out, "traps_unresolved", s->traps_unresolved);
	core_profile_stat(&out, "traps_lost", s->traps_lost);
	core_profile_stat(&out, "stores_ignored", s->stores_ignored);
	core_profile_stat(&out, "handler_ns", s->handler_ns);
	core_profile_stat(&out, "arm_failed", s->arm_failed);
	core_profile_stat(&out, "watches_released", s->watches_released);
	core_profile_stat(&out, "syscall_buffer_hits", s->syscall_buffer_hits);
	core_profile_stat(&out, "traps_witch", s->traps_witch);
	core_profile_stat(&out, "traps_masked_off", s->traps_masked_off);
	if (wt_cfg.pmu) {
		core_profile_stat(&out, "pmu_samples_other", s->pmu_samples_other);
		core_profile_stat(&out, "pmu_samples_lost", s->pmu_samples_lost);
	}
	if (wt_cfg.craft == WT_CRAFT_SHARE) {
		core_profile_stat(&out, "shared_samples", s->shared_samples);
		core_profile_stat(&out, "private_samples", s->private_samples);
		core_profile_stat(&out, "share_candidates", s->share_candidates);
		core_profile_stat(&out, "share_stale", s->share_stale);
		core_profile_stat(&out, "share_watches", s->share_watches);
		core_profile_stat(&out, "share_expired", s->share_expired);
		/* The program's CPU time, all its threads, witch's handlers
		 * left out: what sharing is counted per second of. */
		core_profile_stat(&out, "cpu_ns", core_clock_ns(CLOCK_PROCESS_CPUTIME_ID) -
						    start_cpu_ns - s->handler_ns);
	}
	if (wt_pages_mode) {
		core_profile_stat(&out, "false_faults", s->false_faults);
		core_profile_stat(&out, "watches_ended", s->watches_ended);
		core_profile_stat(&out, "steps", s->steps);
		core_profile_stat(&out, "samples_in_witch_time", s->samples_in_witch_time);
		core_profile_stat(&out, "syscalls_stepped", s->syscalls_stepped);
	}
}

/* witch cpi's sampled run. */
static void write_time_stats(const struct wt_stats *s)
{
	core_profile_stat(&out, "samples_unwind_failed", s->samples_unwind_failed);
	core_profile_stat(&out, "sampled_ns", s->sampled_ns);
	core_profile_stat(&out, "samples_own_code", s->samples_own_code);
	core_profile_stat(&out, "own_code_ns", s->own_code_ns);
	core_profile_stat(&out, "handler_ns", s->handler_ns);
	core_profile_stat(&out, "nominal_khz", wt_cfg.nominal_khz);
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
		pairs_dropped += t->cct.pairs_dropped + (t->share ? t->share->dropped : 0);
	}
	core_profile_stat(&out, "samples", sum.samples);
	if (wt_cfg.samples_only)
		write_time_stats(&sum);
	else
		write_craft_stats(&sum);
	{
		struct rusage ru;

		/* The process's own peak, for overhead figures without the CLI. */
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			core_profile_stat(&out, "peak_rss_kb", (uint64_t)ru.ru_maxrss);
	}
	core_profile_stat(&out, "threads", threads);
	core_profile_stat(&out, "threads_unsampled", (uint64_t)unsampled_threads);
	core_profile_stat(&out, "nodes_dropped", dropped);
	core_profile_stat(&out, "frames_truncated", truncated);
	if (!wt_cfg.samples_only)
		core_profile_stat(&out, "pairs_dropped", pairs_dropped);
}

/* --craft=share: the thread's records, lines as (module, offset). */
static void write_shares(const struct wt_share_recs *rs, int nmods)
{
	uint32_t i;

	for (i = 0; i < rs->n; i++) {
		const struct wt_share_rec *r = &rs->v[i];
		int m = wt_modules_find(mods, nmods, r->line);
		struct core_share_line l = {
			.watch = r->watch, .trap = r->trap, .kind = (char)r->kind,
			.count = r->count, .weight = core_milli(r->weight),
			.module = m >= 0 ? mods[m].id : -1,
			.line = m >= 0 ? r->line - mods[m].bias : r->line,
			.woff = r->woff, .wlen = r->wlen, .toff = r->toff, .tlen = r->tlen,
			.block = r->block, .block_size = r->block_size, .site = r->site,
		};

		core_profile_share(&out, &l);
	}
}

static void write_thread(const struct wt_thread *t, int nmods)
{
	const struct wt_cct *c = &t->cct;
	uint32_t i;

	core_profile_thread(&out, (uint64_t)t->tid, c->nnodes, t->share ? t->share->n : c->npairs);
	core_profile_node(&out, 0, -1, -1, 0, 0);
	for (i = 1; i < c->nnodes; i++) {
		const struct wt_cct_node *n = &c->nodes[i];
		int m = wt_modules_find(mods, nmods, n->pc);

		if (wt_cfg.samples_only)
			core_profile_node_ns(&out, i, n->parent, m >= 0 ? mods[m].id : -1,
					     m >= 0 ? n->pc - mods[m].bias : n->pc, n->mu, n->ns);
		else
			core_profile_node(&out, i, n->parent, m >= 0 ? mods[m].id : -1,
					  m >= 0 ? n->pc - mods[m].bias : n->pc, n->mu);
	}
	if (t->share) {
		write_shares(t->share, nmods);
		return;
	}
	for (i = 0; i < c->npairs; i++) {
		const struct wt_pair *p = &c->pairs[i];
		double r = wt_attrib_remainder(&c->nodes[p->watch]);

		core_profile_pair(&out, p->watch, p->trap, core_milli(p->waste * r),
				  core_milli(p->use * r), p->count, wt_cfg.craft != WT_CRAFT_DEAD,
				  core_milli(p->approx * r));
	}
}

/* <outdir>/<program>-<pid>.witch (a launcher's rank: with its host and
 * rank before the pid), or -<n> after it if an earlier image of this pid
 * (before an exec) already wrote one. */
int wt_profile_write(int complete, char *path_out, size_t cap)
{
	extern char *program_invocation_short_name;
	static char path[4200], tmp[4210];
	struct core_outname name = { wt_cfg.outdir, program_invocation_short_name, '-',
				     (uint64_t)getpid(), PROFILE_SUFFIX, &job };
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
	core_profile_kv(&out, "WITCH-PROFILE", "1");
	core_profile_kv(&out, "tool", tool_name());
	if (wt_cfg.pmu) {
		core_profile_kv(&out, "source", "pmu");
		core_profile_kv_u64(&out, "rate_hz", 0);
		/* events per sample */
		core_profile_kv_u64(&out, "period", wt_cfg.pmu_attr.sample_period);
	} else {
		uint64_t period = wt_cfg.period_ns > 0 ? (uint64_t)wt_cfg.period_ns : 0;

		core_profile_kv(&out, "source", "timer");
		core_profile_kv_u64(&out, "rate_hz", period ? 0 : (uint64_t)wt_cfg.rate_hz);
		core_profile_kv_u64(&out, "period", period);
		if (!wt_cfg.samples_only) {
			core_profile_kv_u64(&out, "spread", (uint64_t)wt_cfg.spread);
			core_profile_kv_u64(&out, "reach", (uint64_t)wt_cfg.reach);
		}
	}
	core_profile_kv_u64(&out, "registers", wt_cfg.samples_only ? 0 : (uint64_t)wt_cfg.registers);
	core_profile_kv_u64(&out, "pid", (uint64_t)getpid());
	core_profile_job(&out, &job);
	core_profile_kv_u64(&out, "start_ns", start_ns);
	core_profile_kv_u64(&out, "end_ns", core_clock_ns(CLOCK_REALTIME));
	core_profile_kv(&out, "status", complete ? "complete" : "incomplete");
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
