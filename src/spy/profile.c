/*
 * profile.c - writes the process profile (docs/profile-format.md), the
 * same format `witch record` writes, with source `exhaustive` and exact
 * byte counts. Written to <name>.tmp and renamed into place.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "spy.h"
#include "rvn.h"
#include "loop.h"

#include "core/buildid.h"
#include "core/contract.h"
#include "core/job.h"
#include "core/outname.h"
#include "core/profile.h"

static ULong start_ns;
static struct core_job job;

static ULong now_ns(void)
{
	struct vki_timespec ts;

	VG_(clock_gettime)(&ts, VKI_CLOCK_REALTIME);
	return (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
}

static const char *get_env(const char *name)
{
	return VG_(getenv)(name);
}

/* The host's name as uname(2) gives it (the tool has no uname): the UTS
 * namespace's, which the file shows too. */
static void read_host(HChar *host, SizeT cap)
{
	SysRes r = VG_(open)("/proc/sys/kernel/hostname", VKI_O_RDONLY, 0);
	Int n = 0;

	host[0] = 0;
	if (sr_isError(r))
		return;
	n = VG_(read)((Int)sr_Res(r), host, (Int)cap - 1);
	VG_(close)((Int)sr_Res(r));
	host[n > 0 ? n : 0] = 0;
	if (n > 0 && host[n - 1] == '\n')
		host[n - 1] = 0;
}

void spy_profile_start(void)
{
	start_ns = now_ns();
	core_job_from_env(&job, get_env);
	read_host(job.host, sizeof(job.host));
}

Bool spy_is_launcher(const HChar *path)
{
	return core_job_is_launcher(path) ? True : False;
}

/* ---- the file, through the core's profile writer (core/profile.h) ---- */

static struct core_profile o;
static HChar o_buf[1 << 16];

static int write_sink(void *ctx, const char *p, size_t n)
{
	Int fd = *(const Int *)ctx;

	while (n) {
		Int k = VG_(write)(fd, p, (Int)n);

		if (k <= 0)
			return -1;
		p += k;
		n -= (SizeT)k;
	}
	return 0;
}

/* Exact byte counts, in the format's three-decimal notation. */
static ULong bytes_metric(ULong v)
{
	return v * 1000;	/* exact up to 1.8e16 bytes */
}

/* ---- build-id from the file's PT_NOTE segments ---- */

static Bool pread_all(Int fd, void *buf, SizeT n, Off64T off)
{
	if (VG_(lseek)(fd, off, VKI_SEEK_SET) != off)
		return False;
	return VG_(read)(fd, buf, (Int)n) == (Int)n;
}

/* The file's build id from its PT_NOTE segments (core/buildid.h), or "". */
static void build_id(const HChar *path, HChar *out)
{
	UChar eh[64], ph[56], note[4096];
	SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
	Int fd, i;
	UShort phnum, phentsize;
	ULong phoff;

	out[0] = 0;
	if (sr_isError(r))
		return;
	fd = (Int)sr_Res(r);
	if (!pread_all(fd, eh, sizeof(eh), 0) || VG_(memcmp)(eh, "\177ELF", 4) || eh[4] != 2)
		goto done;
	VG_(memcpy)(&phoff, eh + 32, 8);
	VG_(memcpy)(&phentsize, eh + 54, 2);
	VG_(memcpy)(&phnum, eh + 56, 2);
	if (phentsize < sizeof(ph))
		goto done;
	for (i = 0; i < phnum; i++) {
		UInt type;
		ULong off, size;

		if (!pread_all(fd, ph, sizeof(ph), (Off64T)(phoff + (ULong)i * phentsize)))
			break;
		VG_(memcpy)(&type, ph, 4);
		VG_(memcpy)(&off, ph + 8, 8);
		VG_(memcpy)(&size, ph + 32, 8);
		if (type != 4 /* PT_NOTE */)
			continue;
		if (size > sizeof(note))
			size = sizeof(note);
		if (pread_all(fd, note, size, (Off64T)off) && core_build_id(note, size, out))
			break;
	}
done:
	VG_(close)(fd);
}

/* ---- what to write: per thread, the nodes its pairs reach ---- */

struct tlist {
	SpyThread *t;
	UInt *ids;		/* global node ids, ascending: parents first */
	UInt n;
};

static UInt *stamp, *local;

static Int cmp_uint(const void *a, const void *b)
{
	UInt x = *(const UInt *)a, y = *(const UInt *)b;

	return x < y ? -1 : x > y;
}

struct path_of {
	struct tlist *l;
	UInt epoch, cap;
};

/* The node and its ancestors, each once. */
static void add_path(void *ctx, UInt id)
{
	struct path_of *c = ctx;
	struct tlist *l = c->l;

	while (id != SPY_ROOT && stamp[id] != c->epoch) {
		stamp[id] = c->epoch;
		if (l->n == c->cap) {
			c->cap *= 2;
			l->ids = VG_(realloc)("witchspy.write", l->ids, c->cap * sizeof(UInt));
		}
		l->ids[l->n++] = id;
		id = spy_node(id)->parent;
	}
}

static void collect(struct tlist *l, UInt epoch)
{
	struct path_of c = { l, epoch, 64 };
	UInt i;

	l->n = 0;
	l->ids = VG_(malloc)("witchspy.write", c.cap * sizeof(UInt));
	for (i = 0; i < 2 * l->t->pairs.n; i++) {
		const SpyPair *p = &l->t->pairs.v[i / 2];

		add_path(&c, i & 1 ? p->trap : p->watch);
	}
	if (spy_cfg.tool == SPY_LOOP)
		loop_thread_nodes(l->t, add_path, &c);
	/* A child is always created after its parent. */
	VG_(ssort)(l->ids, l->n, sizeof(UInt), cmp_uint);
}

static void write_thread(const struct tlist *l)
{
	const SpyPairTab *pt = &l->t->pairs;
	UInt i;

	for (i = 0; i < l->n; i++)
		local[l->ids[i]] = i + 1;
	local[SPY_ROOT] = 0;
	core_profile_thread(&o, (ULong)l->t->lwpid, l->n + 1,
			    spy_cfg.tool == SPY_RVN    ? rvn_pair_lines(pt)
			    : spy_cfg.tool == SPY_LOOP ? loop_thread_lines(l->t)
						       : pt->n);
	core_profile_node(&o, 0, -1, -1, 0, 0);
	for (i = 0; i < l->n; i++) {
		const SpyNode *n = spy_node(l->ids[i]);
		const SpyModule *m = n->module >= 0 ? &spy_mods[n->module] : NULL;

		core_profile_node(&o, i + 1, local[n->parent], m ? m->id : -1,
				  m ? n->pc - m->bias : n->pc, 0);
	}
	if (spy_cfg.tool == SPY_RVN) {
		rvn_write_pairs(&o, pt, local);
		return;
	}
	if (spy_cfg.tool == SPY_LOOP) {
		loop_write_thread(&o, l->t, local);
		return;
	}
	/* Approximate waste where the tool judges it, like the crafts. */
	for (i = 0; i < pt->n; i++) {
		const SpyPair *p = &pt->v[i];

		core_profile_pair(&o, local[p->watch], local[p->trap], bytes_metric(p->waste),
				  bytes_metric(p->use), p->count, spy_cfg.tool != SPY_DEAD,
				  bytes_metric(p->approx));
	}
}

static const HChar *tool_name(void)
{
	static const HChar *names[] = { "deadspy", "redspy", "loadspy", "count", "rvn", "loop" };

	return names[spy_cfg.tool];
}

static void write_args(void)
{
	Word i, n = VG_(sizeXA)(VG_(args_for_client));

	core_profile_arg(&o, 0, VG_(args_the_exename) ? VG_(args_the_exename) : "");
	for (i = 0; i < n; i++) {
		const HChar *arg = *(HChar **)VG_(indexXA)(VG_(args_for_client), i);

		core_profile_arg(&o, (ULong)i + 1, arg);
	}
}

void spy_profile_modules(struct core_profile *p)
{
	Int k, m, n = 0;

	for (m = 0; m < spy_nmods; m++)
		n += spy_mods[m].id >= 0;
	for (k = 0; k < n; k++) {
		HChar id[CORE_BUILD_ID_HEX];

		for (m = 0; spy_mods[m].id != k; m++)
			;
		build_id(spy_mods[m].path, id);
		core_profile_module(p, spy_mods[m].id, id, spy_mods[m].bias, spy_mods[m].path);
	}
}

/* Ids for the modules the threads' nodes are in, in order of first use. */
static void write_modules(struct tlist *lists, UInt nt)
{
	UInt i, k;
	Int next = 0, m;

	for (m = 0; m < spy_nmods; m++)
		spy_mods[m].id = -1;
	for (k = 0; k < nt; k++)
		for (i = 0; i < lists[k].n; i++) {
			m = spy_node(lists[k].ids[i])->module;
			if (m >= 0 && spy_mods[m].id < 0)
				spy_mods[m].id = next++;
		}
	spy_profile_modules(&o);
}

static void write_stats(UInt nthreads)
{
	core_profile_stat(&o, "samples", 0);
	core_profile_stat(&o, "bytes_accessed", spy_st.bytes_accessed);
	core_profile_stat(&o, "threads", nthreads);
	core_profile_stat(&o, "nodes_dropped", spy_nodes_dropped);
	core_profile_stat(&o, "pairs_dropped", 0);
	core_profile_stat(&o, "kernel_bytes_read", spy_st.kernel_bytes_read);
	core_profile_stat(&o, "kernel_bytes_written", spy_st.kernel_bytes_written);
	core_profile_stat(&o, "heap_blocks_cleared", spy_st.frees);
	core_profile_stat(&o, "superblocks", spy_st.superblocks);
	core_profile_stat(&o, "shadow_chunks", sh_chunks_in_use());
	core_profile_stat(&o, "cct_nodes", spy_nnodes);
	if (spy_cfg.tool == SPY_LOAD || spy_cfg.tool == SPY_RVN)
		core_profile_stat(&o, "handles_overflowed", spy_st.handles_overflowed);
	if (spy_cfg.tool == SPY_RVN) {
		rvn_write_stats(&o);
		return;
	}
	if (spy_cfg.tool == SPY_LOOP) {
		loop_write_stats(&o);
		return;
	}
	if (spy_cfg.tool != SPY_DEAD) {
		ULong approx = 0;
		SpyThread *t;
		UInt i;

		for (t = spy_threads; t; t = t->next)
			for (i = 0; i < t->pairs.n; i++)
				approx += t->pairs.v[i].approx;
		core_profile_stat(&o, "approx_bytes", approx);
	}
}

static int exists(const HChar *path)
{
	struct vg_stat st;

	return !sr_isError(VG_(stat)(path, &st));
}

/* <outdir>/<program>-<pid>.witch (a launcher's rank: with its host and
 * rank before the pid), -<n> after it if an earlier image of this pid
 * (before an exec) wrote one. */
static void profile_path(HChar *path, SizeT cap)
{
	const HChar *exe = VG_(args_the_exename) ? VG_(args_the_exename) : "program";
	const HChar *base = VG_(strrchr)(exe, '/') ? VG_(strrchr)(exe, '/') + 1 : exe;
	struct core_outname name = { spy_cfg.outdir, base, '-', (ULong)VG_(getpid)(),
				     PROFILE_SUFFIX, &job };

	core_outname_free(&name, path, cap, exists);
}

const HChar *spy_profile_write(Bool complete)
{
	static HChar path[4200], tmp[4210];
	struct tlist *lists;
	SpyThread *t;
	UInt nt = 0, k;
	SysRes r;
	Int fd;
	Bool failed;

	spy_memos_flush();
	for (t = spy_threads; t; t = t->next)
		nt += t->lwpid != 0;
	lists = VG_(calloc)("witchspy.write", nt ? nt : 1, sizeof(*lists));
	/* Oldest thread first: the list holds the newest first. */
	k = nt;
	for (t = spy_threads; t; t = t->next)
		if (t->lwpid)
			lists[--k].t = t;
	stamp = VG_(calloc)("witchspy.write", spy_nnodes, sizeof(UInt));
	local = VG_(calloc)("witchspy.write", spy_nnodes, sizeof(UInt));
	for (k = 0; k < nt; k++)
		collect(&lists[k], k + 1);

	profile_path(path, sizeof(path));
	VG_(snprintf)(tmp, sizeof(tmp), "%s" PROFILE_TMP_SUFFIX, path);
	r = VG_(open)(tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0644);
	if (sr_isError(r)) {
		path[0] = 0;
		goto out;
	}
	fd = (Int)sr_Res(r);
	core_fmt_init(&o.out, o_buf, sizeof(o_buf), write_sink, &fd);
	o.lines = 0;
	core_profile_kv(&o, "WITCH-PROFILE", "1");
	core_profile_kv(&o, "tool", tool_name());
	if (spy_cfg.tool == SPY_RVN)
		core_profile_kv(&o, "by", spy_cfg.by_value ? "value" : "symbol");
	if (spy_cfg.tool == SPY_LOOP)
		loop_write_header(&o);
	core_profile_kv(&o, "source", "exhaustive");
	core_profile_kv_u64(&o, "rate_hz", 0);
	core_profile_kv_u64(&o, "period", 0);
	core_profile_kv_u64(&o, "registers", 0);
	core_profile_kv_u64(&o, "pid", (ULong)VG_(getpid)());
	core_profile_job(&o, &job);
	core_profile_kv_u64(&o, "start_ns", start_ns);
	core_profile_kv_u64(&o, "end_ns", now_ns());
	core_profile_kv(&o, "status", complete ? "complete" : "incomplete");
	write_args();
	if (spy_cfg.tool == SPY_COUNT) {
		cnt_write(&o);
	} else {
		write_modules(lists, nt);
		if (spy_cfg.tool == SPY_LOOP)
			loop_write_defs(&o);
		write_stats(nt);
		for (k = 0; k < nt; k++)
			write_thread(&lists[k]);
	}
	failed = core_profile_end(&o) < 0;
	VG_(close)(fd);
	if (failed || VG_(rename)(tmp, path) != 0) {
		VG_(unlink)(tmp);
		path[0] = 0;
	}
out:
	for (k = 0; k < nt; k++)
		VG_(free)(lists[k].ids);
	VG_(free)(lists);
	VG_(free)(stamp);
	VG_(free)(local);
	return path[0] ? path : NULL;
}
