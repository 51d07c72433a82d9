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

static ULong start_ns;

static ULong now_ns(void)
{
	struct vki_timespec ts;

	VG_(clock_gettime)(&ts, VKI_CLOCK_REALTIME);
	return (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
}

void spy_profile_start(void)
{
	start_ns = now_ns();
}

/* ---- buffered output ---- */

static struct {
	Int fd;
	Bool failed;
	UInt len;
	ULong lines;
	HChar buf[1 << 16];
} o;

static void flush(void)
{
	UInt off = 0;

	while (off < o.len && !o.failed) {
		Int n = VG_(write)(o.fd, o.buf + off, (Int)(o.len - off));

		if (n <= 0)
			o.failed = True;
		else
			off += (UInt)n;
	}
	o.len = 0;
}

static void put_bytes(const HChar *s, SizeT n)
{
	while (n) {
		SizeT room = sizeof(o.buf) - o.len, k = n < room ? n : room;

		VG_(memcpy)(o.buf + o.len, s, k);
		o.len += (UInt)k;
		s += k;
		n -= k;
		if (o.len == sizeof(o.buf))
			flush();
	}
}

static void put(const HChar *s)
{
	put_bytes(s, VG_(strlen)(s));
}

static void put_base(ULong v, UInt base)
{
	HChar tmp[24];
	Int i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	put_bytes(tmp + i, sizeof(tmp) - (SizeT)i);
}

static void put_u64(ULong v)
{
	put_base(v, 10);
}

static void put_i64(Long v)
{
	if (v < 0) {
		put("-");
		put_base((ULong)0 - (ULong)v, 10);
	} else {
		put_base((ULong)v, 10);
	}
}

static void put_hex(ULong v)
{
	put_base(v, 16);
}

/* Exact byte counts, in the format's three-decimal notation. */
static void put_bytes_metric(ULong v)
{
	put_u64(v);
	put(".000");
}

static void put_esc(const HChar *s)
{
	if (!*s) {
		put("%");
		return;
	}
	for (; *s; s++) {
		UChar ch = (UChar)*s;

		if (ch <= 0x20 || ch == '%' || ch >= 0x7f) {
			HChar e[3] = { '%', "0123456789ABCDEF"[ch >> 4], "0123456789ABCDEF"[ch & 15] };

			put_bytes(e, 3);
		} else {
			put_bytes(s, 1);
		}
	}
}

static void sp(void)
{
	put(" ");
}

static void endl(void)
{
	put("\n");
	o.lines++;
}

static void kv(const HChar *k, const HChar *v)
{
	put(k);
	sp();
	put(v);
	endl();
}

static void kv_u64(const HChar *k, ULong v)
{
	put(k);
	sp();
	put_u64(v);
	endl();
}

static void stat_line(const HChar *name, ULong v)
{
	put("stat ");
	kv_u64(name, v);
}

/* ---- build-id from the file's PT_NOTE segments ---- */

static Bool pread_all(Int fd, void *buf, SizeT n, Off64T off)
{
	if (VG_(lseek)(fd, off, VKI_SEEK_SET) != off)
		return False;
	return VG_(read)(fd, buf, (Int)n) == (Int)n;
}

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
	for (i = 0; i < phnum && !out[0]; i++) {
		UInt type;
		ULong off, size, pos = 0;

		if (!pread_all(fd, ph, sizeof(ph), (Off64T)(phoff + (ULong)i * phentsize)))
			break;
		VG_(memcpy)(&type, ph, 4);
		VG_(memcpy)(&off, ph + 8, 8);
		VG_(memcpy)(&size, ph + 32, 8);
		if (type != 4 /* PT_NOTE */)
			continue;
		if (size > sizeof(note))
			size = sizeof(note);
		if (!pread_all(fd, note, size, (Off64T)off))
			continue;
		while (pos + 12 <= size) {
			UInt namesz, descsz, ntype, k;
			ULong name_len, desc_len;

			VG_(memcpy)(&namesz, note + pos, 4);
			VG_(memcpy)(&descsz, note + pos + 4, 4);
			VG_(memcpy)(&ntype, note + pos + 8, 4);
			name_len = (namesz + 3) & ~3u;
			desc_len = (descsz + 3) & ~3u;
			if (pos + 12 + name_len + desc_len > size)
				break;
			if (ntype == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
			    !VG_(memcmp)(note + pos + 12, "GNU", 4)) {
				for (k = 0; k < descsz && k < 20; k++) {
					UChar b = note[pos + 12 + name_len + k];

					out[2 * k] = "0123456789abcdef"[b >> 4];
					out[2 * k + 1] = "0123456789abcdef"[b & 15];
				}
				out[2 * k] = 0;
				break;
			}
			pos += 12 + name_len + desc_len;
		}
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

static void collect(struct tlist *l, UInt epoch)
{
	UInt i, cap = 64;

	l->n = 0;
	l->ids = VG_(malloc)("witchspy.write", cap * sizeof(UInt));
	for (i = 0; i < 2 * l->t->pairs.n; i++) {
		const SpyPair *p = &l->t->pairs.v[i / 2];
		UInt id = i & 1 ? p->trap : p->watch;

		while (id != SPY_ROOT && stamp[id] != epoch) {
			stamp[id] = epoch;
			if (l->n == cap) {
				cap *= 2;
				l->ids = VG_(realloc)("witchspy.write", l->ids, cap * sizeof(UInt));
			}
			l->ids[l->n++] = id;
			id = spy_nodes[id].parent;
		}
	}
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
	put("thread ");
	put_u64((ULong)l->t->lwpid);
	sp();
	put_u64(l->n + 1);
	sp();
	put_u64(pt->n);
	endl();
	put("n 0 -1 -1 0 0");
	endl();
	for (i = 0; i < l->n; i++) {
		const SpyNode *n = &spy_nodes[l->ids[i]];
		const SpyModule *m = n->module >= 0 ? &spy_mods[n->module] : NULL;

		put("n ");
		put_u64(i + 1);
		sp();
		put_u64(local[n->parent]);
		sp();
		put_i64(m ? m->id : -1);
		sp();
		put_hex(m ? n->pc - m->bias : n->pc);
		put(" 0");
		endl();
	}
	for (i = 0; i < pt->n; i++) {
		const SpyPair *p = &pt->v[i];

		put("p ");
		put_u64(local[p->watch]);
		sp();
		put_u64(local[p->trap]);
		sp();
		put_bytes_metric(p->waste);
		sp();
		put_bytes_metric(p->use);
		sp();
		put_u64(p->count);
		if (spy_cfg.tool != SPY_DEAD) {	/* approximate waste, like the crafts */
			sp();
			put_bytes_metric(p->approx);
		}
		endl();
	}
}

static const HChar *tool_name(void)
{
	static const HChar *names[] = { "deadspy", "redspy", "loadspy" };

	return names[spy_cfg.tool];
}

static void write_args(void)
{
	Word i, n = VG_(sizeXA)(VG_(args_for_client));

	put("arg 0 ");
	put_esc(VG_(args_the_exename) ? VG_(args_the_exename) : "");
	endl();
	for (i = 0; i < n; i++) {
		put("arg ");
		put_u64((ULong)i + 1);
		sp();
		put_esc(*(HChar **)VG_(indexXA)(VG_(args_for_client), i));
		endl();
	}
}

static void write_modules(struct tlist *lists, UInt nt)
{
	UInt i, k;
	Int next = 0, m;

	for (m = 0; m < spy_nmods; m++)
		spy_mods[m].id = -1;
	for (k = 0; k < nt; k++)
		for (i = 0; i < lists[k].n; i++) {
			m = spy_nodes[lists[k].ids[i]].module;
			if (m >= 0 && spy_mods[m].id < 0)
				spy_mods[m].id = next++;
		}
	for (k = 0; k < (UInt)next; k++) {
		HChar id[41];

		for (m = 0; spy_mods[m].id != (Int)k; m++)
			;
		build_id(spy_mods[m].path, id);
		put("module ");
		put_u64((ULong)spy_mods[m].id);
		sp();
		put(id[0] ? id : "-");
		sp();
		put_hex(spy_mods[m].bias);
		sp();
		put_esc(spy_mods[m].path);
		endl();
	}
}

static void write_stats(UInt nthreads)
{
	stat_line("samples", 0);
	stat_line("bytes_accessed", spy_st.bytes_accessed);
	stat_line("threads", nthreads);
	stat_line("nodes_dropped", spy_nodes_dropped);
	stat_line("pairs_dropped", 0);
	stat_line("kernel_bytes_read", spy_st.kernel_bytes_read);
	stat_line("kernel_bytes_written", spy_st.kernel_bytes_written);
	stat_line("heap_blocks_cleared", spy_st.frees);
	stat_line("superblocks", spy_st.superblocks);
	stat_line("shadow_chunks", sh_chunks_in_use());
	stat_line("cct_nodes", spy_nnodes);
	if (spy_cfg.tool == SPY_LOAD)
		stat_line("handles_overflowed", spy_st.handles_overflowed);
	if (spy_cfg.tool != SPY_DEAD) {
		ULong approx = 0;
		SpyThread *t;
		UInt i;

		for (t = spy_threads; t; t = t->next)
			for (i = 0; i < t->pairs.n; i++)
				approx += t->pairs.v[i].approx;
		stat_line("approx_bytes", approx);
	}
}

static Bool exists(const HChar *path)
{
	struct vg_stat st;

	return !sr_isError(VG_(stat)(path, &st));
}

/* <outdir>/<program>-<pid>.witch, -<n> after it if an earlier image of
 * this pid (before an exec) wrote one. */
static void profile_path(HChar *path, SizeT cap)
{
	const HChar *exe = VG_(args_the_exename) ? VG_(args_the_exename) : "program";
	const HChar *base = VG_(strrchr)(exe, '/') ? VG_(strrchr)(exe, '/') + 1 : exe;
	Int n;

	for (n = 0; n < 1000; n++) {
		if (n)
			VG_(snprintf)(path, (Int)cap, "%s/%s-%d-%d.witch", spy_cfg.outdir, base,
				      VG_(getpid)(), n);
		else
			VG_(snprintf)(path, (Int)cap, "%s/%s-%d.witch", spy_cfg.outdir, base,
				      VG_(getpid)());
		if (!exists(path))
			return;
	}
}

const HChar *spy_profile_write(Bool complete)
{
	static HChar path[4200], tmp[4210];
	struct tlist *lists;
	SpyThread *t;
	UInt nt = 0, k;
	SysRes r;

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
	VG_(snprintf)(tmp, sizeof(tmp), "%s.tmp", path);
	r = VG_(open)(tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0644);
	if (sr_isError(r)) {
		path[0] = 0;
		goto out;
	}
	o.fd = (Int)sr_Res(r);
	o.failed = False;
	o.len = 0;
	o.lines = 0;
	kv("WITCH-PROFILE", "1");
	kv("tool", tool_name());
	kv("source", "exhaustive");
	kv_u64("rate_hz", 0);
	kv_u64("period", 0);
	kv_u64("registers", 0);
	kv_u64("pid", (ULong)VG_(getpid)());
	kv_u64("start_ns", start_ns);
	kv_u64("end_ns", now_ns());
	kv("status", complete ? "complete" : "incomplete");
	write_args();
	write_modules(lists, nt);
	write_stats(nt);
	for (k = 0; k < nt; k++)
		write_thread(&lists[k]);
	put("end ");
	put_u64(o.lines);
	put("\n");
	flush();
	VG_(close)(o.fd);
	if (o.failed || VG_(rename)(tmp, path) != 0) {
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
