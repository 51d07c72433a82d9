/*
 * rvn_run.c - the helpers of witch spy --tool=rvn and their tables.
 *
 * Numbers in memory live in the shadow memory's chunks (shadow.c), which
 * give each byte a 32-bit word: a 4-byte cell uses its four words for its
 * VN (two), the context that put it there, and whether it holds one.
 *
 * A redundant event goes to the running thread's pair (first context,
 * again context), whose three counters are its kinds: `waste` counts
 * computations, `use` loads, `approx` stores (profile.c writes them as
 * `r` lines).
 *
 * Computations are judged per thread: a number's key in the table is the
 * number and the thread's record (not its ThreadId, which Valgrind gives
 * again to a thread started after another ended). The table keeps, per static instruction, the
 * last RVN_KEEP numbers it made (thesis §2.4: the last N per
 * instruction); a number an instruction makes again is not kept twice.
 * Loads are judged in the cells (rvn_load).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"

#include "rvn.h"

#include "core/profile.h"

struct rvn_stats rvn_st;

static ULong next_fresh = 1;

ULong rvn_fresh(void)
{
	return rvn_fmix(next_fresh++ * 0xA24BAED4963EE407ULL);
}

/* ---- memory: 4-byte cells in the shadow chunks ---- */

struct cell {
	UInt lo, hi;		/* the VN */
	UInt node;		/* who put it there: a store, or the load that first read it;
				   CELL_HAS set once it holds a number */
	UInt reader;		/* the load instruction (RvnSite.id) that read the number
				   last, 0 if none since it was put there */
};

#define CELL_HAS 0x80000000u

static struct cell *cell_at(Addr a, Bool create)
{
	UInt *c = create ? sh_chunk_w(a) : sh_chunk(a);

	return c ? (struct cell *)&c[(a & (SH_CHUNK - 1)) & ~(Addr)(RVN_CELL - 1)] : NULL;
}

static ULong cell_vn(const struct cell *c)
{
	return (ULong)c->hi << 32 | c->lo;
}

static void cell_set(struct cell *c, ULong vn, UInt node)
{
	c->lo = (UInt)vn;
	c->hi = (UInt)(vn >> 32);
	c->node = node | CELL_HAS;
	c->reader = 0;
}

static Bool cell_has(const struct cell *c)
{
	return (c->node & CELL_HAS) != 0;
}

static UInt cell_node(const struct cell *c)
{
	return c->node & ~CELL_HAS;
}

/* Fill the cells of [a, a + n) that have no number, as if one value of n
 * bytes were there: a memory never written still reads the same twice. */
static void fill(Addr a, UInt n, UInt node)
{
	ULong vn = rvn_fresh();
	UInt k;

	for (k = 0; k < n; k += RVN_CELL) {
		struct cell *c = cell_at(a + k, True);

		if (!cell_has(c))
			cell_set(c, k ? rvn_piece(vn, RVN_CELL, k / RVN_CELL) : vn, node);
	}
}

/*
 * The number of the n bytes at a (NULL *first when some have none): one
 * value stored whole gives its own number; bytes within one cell, read
 * from its start, give the cell's; anything else a number of its parts.
 */
static ULong mem_vn(Addr a, UInt n, UInt *first)
{
	Addr c0 = a & ~(Addr)(RVN_CELL - 1);
	Addr end = a + n;
	struct cell *c = cell_at(c0, False);
	ULong vn, h;
	Bool whole;
	Addr p;

	*first = 0;
	if (!c || !cell_has(c))
		return 0;
	vn = cell_vn(c);
	*first = cell_node(c);
	if (end <= c0 + RVN_CELL)
		return a == c0 ? vn : rvn_mix(rvn_mix(vn, 0x5EC7), (a - c0) << 8 | n);
	whole = a == c0;
	h = rvn_mix(vn, 0x701E);
	for (p = c0 + RVN_CELL; p < end; p += RVN_CELL) {
		struct cell *q = cell_at(p, False);
		ULong v;

		if (!q || !cell_has(q)) {
			*first = 0;
			return 0;
		}
		v = cell_vn(q);
		whole &= v == rvn_piece(vn, RVN_CELL, (UInt)((p - c0) / RVN_CELL));
		h = rvn_mix(h, v);
	}
	return whole && end % RVN_CELL == 0 ? vn : rvn_mix(h, (a - c0) << 8 | n);
}

static void mem_put(Addr a, UInt n, ULong vn, UInt node)
{
	Addr c0 = a & ~(Addr)(RVN_CELL - 1), p;

	if (a == c0 && n % RVN_CELL == 0) {
		for (p = a; p < a + n; p += RVN_CELL)
			cell_set(cell_at(p, True), p == a ? vn : rvn_piece(vn, RVN_CELL,
									 (UInt)((p - a) / RVN_CELL)),
				 node);
		return;
	}
	/* Part of a cell, or across cells: each changes into a number of
	 * what it held and what was written into it. */
	for (p = c0; p < a + n; p += RVN_CELL) {
		struct cell *c = cell_at(p, True);
		ULong old = cell_has(c) ? cell_vn(c) : rvn_fresh();

		cell_set(c, rvn_mix(rvn_mix(old, vn), (a - p + 64) << 8 | n), node);
	}
}

/* ---- judging ---- */

/* A redundant event of site s, counted in its memo while its events go
 * to one pair: a pair's record is seldom in the cache, the site's is. */
static void redundant(RvnSite *s, UInt first, UInt again, int kind)
{
	SpyMemo *m = &s->memo;

	if (!spy_cur)
		return;
	if (UNLIKELY(m->t != spy_cur || m->p.watch != first || m->p.trap != again)) {
		spy_memo_flush(m);
		m->t = spy_cur;
		m->p.watch = first;
		m->p.trap = again;
	}
	m->p.count++;
	if (kind == 'c')
		m->p.waste++;
	else if (kind == 'l')
		m->p.use++;
	else
		m->p.approx++;
}

/*
 * A load is redundant when the same instruction read the same number at
 * the same address last: the cells remember which load instruction read
 * them last since their number was put there. (What another instruction
 * read in between makes the next read look new: a table of every
 * instruction's reads per address cost a cache miss per load, most of a
 * run's time.) Its pair is (the load, the load) in its context now.
 */
ULong rvn_load(RvnSite *s, Addr a, UWord flags)
{
	UInt n = RVN_SIZE(flags), first, node;
	ULong vn = mem_vn(a, n, &first);
	struct cell *c;

	/* The load's context only where it is needed: most loads are
	 * neither the first read nor redundant. */
	if (!vn) {
		fill(a, n, rvn_site_handle(s));
		vn = mem_vn(a, n, &first);
	}
	if (flags & RVN_IMPLICIT)
		return vn;
	rvn_st.loads++;
	c = cell_at(a, True);
	if (c->reader == s->id) {
		rvn_st.redundant_loads++;
		node = rvn_site_handle(s);
		redundant(s, node, node, 'l');
	}
	c->reader = s->id;
	return vn;
}

void rvn_store(RvnSite *s, Addr a, UWord flags, ULong vn)
{
	UInt n = RVN_SIZE(flags), first, node = rvn_site_handle(s);

	if (!(flags & RVN_IMPLICIT)) {
		rvn_st.stores++;
		if (mem_vn(a, n, &first) == vn && first) {
			rvn_st.redundant_stores++;
			redundant(s, first, node, 's');
			return;		/* the location keeps who put it there first */
		}
	}
	mem_put(a, n, vn, node);
}

/* Computations: an open-addressing set of keys, linear probing. */
static struct comp_ent {
	ULong key;		/* 0: empty */
	UInt node;
} *comps;
static UWord comp_mask, comp_used;

static UWord comp_slot(ULong key)
{
	UWord i = rvn_fmix(key) & comp_mask;

	while (comps[i].key && comps[i].key != key)
		i = (i + 1) & comp_mask;
	return i;
}

static void comp_grow(void)
{
	struct comp_ent *old = comps;
	UWord n = old ? 2 * (comp_mask + 1) : 1 << 12, i;

	comps = VG_(calloc)("witchspy.rvn.comps", n, sizeof(*comps));
	comp_mask = n - 1;
	for (i = 0; old && i < n / 2; i++)
		if (old[i].key)
			comps[comp_slot(old[i].key)] = old[i];
	VG_(free)(old);
}

/* Remove a key, shifting back the entries its probe sequence held up. */
static void comp_remove(ULong key)
{
	UWord i = comp_slot(key), j, home;

	if (!comps[i].key)
		return;
	comps[i].key = 0;
	comp_used--;
	for (j = (i + 1) & comp_mask; comps[j].key; j = (j + 1) & comp_mask) {
		home = rvn_fmix(comps[j].key) & comp_mask;
		/* Move j back to i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			comps[i] = comps[j];
			comps[j].key = 0;
			i = j;
		}
	}
}

static UInt epoch;

/* A site's rings are of the burst they were filled in. */
static void current(RvnSite *s)
{
	if (s->epoch == epoch)
		return;
	s->epoch = epoch;
	s->nkept = s->next_out = 0;
	s->nseen = s->next_seen = 0;
}

static void keep(RvnSite *s, ULong key)
{
	if (s->nkept == RVN_KEEP) {
		comp_remove(s->kept[s->next_out]);
		rvn_st.dropped++;
		s->kept[s->next_out] = key;
		s->next_out = (s->next_out + 1) % RVN_KEEP;
	} else {
		s->kept[s->nkept++] = key;
	}
}

VG_REGPARM(2) void rvn_judge(RvnSite *s, ULong vn)
{
	ULong key = rvn_mix(vn, (ULong)(Addr)spy_cur) | 1;
	UInt node = rvn_site_handle(s);
	UWord i;

	current(s);
	rvn_st.computations++;
	if (2 * (comp_used + 1) > comp_mask)
		comp_grow();
	i = comp_slot(key);
	if (comps[i].key) {
		rvn_st.redundant_computations++;
		redundant(s, comps[i].node, node, 'c');
		return;
	}
	comps[i].key = key;
	comps[i].node = node;
	comp_used++;
	keep(s, key);
}

/* --by=value: the same operator on the same operand values as one of the
 * instruction's last spy_cfg.history results. Per instruction, so that
 * the threads' results mix; a thread's own came mostly last anyway. */
VG_REGPARM(2) void rvn_judge_value(RvnSite *s, ULong h)
{
	UInt node = rvn_site_handle(s), j;

	current(s);
	rvn_st.computations++;
	if (!s->seen) {
		s->seen = VG_(malloc)("witchspy.rvn.seen", spy_cfg.history * sizeof(*s->seen));
		s->seen_node = VG_(malloc)("witchspy.rvn.seen", spy_cfg.history * sizeof(*s->seen_node));
	}
	for (j = 0; j < s->nseen; j++)
		if (s->seen[j] == h) {
			rvn_st.redundant_computations++;
			redundant(s, s->seen_node[j], node, 'c');
			return;
		}
	if (s->nseen < spy_cfg.history) {
		j = s->nseen++;
	} else {
		j = s->next_seen;
		s->next_seen = (s->next_seen + 1) % spy_cfg.history;
	}
	s->seen[j] = h;
	s->seen_node[j] = node;
}

/* ---- registers written outside the IR ---- */

static void fresh_regs(ThreadId tid, PtrdiffT off, SizeT size)
{
	PtrdiffT o;

	for (o = off & ~(PtrdiffT)7; o < off + (PtrdiffT)size; o += 8) {
		ULong vn = rvn_fresh();

		VG_(set_shadow_regs_area)(tid, 1, o, sizeof(vn), (const UChar *)&vn);
	}
}

void rvn_regs_written(UWord off, UWord size)
{
	fresh_regs(VG_(get_running_tid)(), (PtrdiffT)off, size);
}

void rvn_post_reg_write(CorePart part, ThreadId tid, PtrdiffT off, SizeT size)
{
	(void)part;
	fresh_regs(tid, off, size);
}

/* ---- bursts ---- */

ULong rvn_icount, rvn_next_switch;
static Bool on = True;
static ULong on_since;

Bool rvn_judging(void)
{
	return !spy_cfg.burst_on || on;
}

static void zero_regs(ThreadId tid)
{
	static const UChar zeros[sizeof(VexGuestAMD64State)];

	VG_(set_shadow_regs_area)(tid, 1, 0, sizeof(zeros), zeros);
}

/* Forget every number: the table's, memory's, the registers'. */
static void forget_all(void)
{
	VG_(memset)(comps, 0, (comp_mask + 1) * sizeof(*comps));
	comp_used = 0;
	epoch++;
	sh_clear(0, ~(SizeT)0);
	spy_threads_live(zero_regs);
}

void rvn_switch(void)
{
	if (on) {
		rvn_st.judged += rvn_icount - on_since;
		rvn_next_switch = rvn_icount + spy_cfg.burst_off;
	} else {
		forget_all();
		on_since = rvn_icount;
		rvn_st.bursts++;
		rvn_next_switch = rvn_icount + spy_cfg.burst_on;
	}
	on = !on;
}

/* A forked child's profile counts from the fork, its phase's rest ahead. */
void rvn_after_fork(void)
{
	ULong left = rvn_next_switch - rvn_icount;

	VG_(memset)(&rvn_st, 0, sizeof(rvn_st));
	rvn_st.bursts = on;
	on_since = 0;
	rvn_icount = 0;
	if (spy_cfg.burst_on)
		rvn_next_switch = left;
}

void rvn_init(void)
{
	comp_grow();
	rvn_next_switch = spy_cfg.burst_on ? spy_cfg.burst_on : ~0ULL;
	rvn_st.bursts = 1;
}

/* ---- the profile ---- */

void rvn_write_stats(struct core_profile *o)
{
	core_profile_stat(o, "computations", rvn_st.computations);
	core_profile_stat(o, "redundant_computations", rvn_st.redundant_computations);
	core_profile_stat(o, "loads", rvn_st.loads);
	core_profile_stat(o, "redundant_loads", rvn_st.redundant_loads);
	core_profile_stat(o, "stores", rvn_st.stores);
	core_profile_stat(o, "redundant_stores", rvn_st.redundant_stores);
	core_profile_stat(o, "dropped", rvn_st.dropped);
	if (spy_cfg.burst_on) {
		core_profile_stat(o, "instructions", rvn_icount);
		core_profile_stat(o, "instructions_judged", rvn_st.judged + (on ? rvn_icount - on_since : 0));
		core_profile_stat(o, "bursts", rvn_st.bursts);
	}
}

UInt rvn_pair_lines(const SpyPairTab *pt)
{
	UInt i, n = 0;

	for (i = 0; i < pt->n; i++)
		n += (pt->v[i].waste != 0) + (pt->v[i].use != 0) + (pt->v[i].approx != 0);
	return n;
}

void rvn_write_pairs(struct core_profile *o, const SpyPairTab *pt, const UInt *local)
{
	UInt i;

	for (i = 0; i < pt->n; i++) {
		const SpyPair *p = &pt->v[i];

		if (p->waste)
			core_profile_rvn_pair(o, local[p->watch], local[p->trap], 'c', p->waste);
		if (p->use)
			core_profile_rvn_pair(o, local[p->watch], local[p->trap], 'l', p->use);
		if (p->approx)
			core_profile_rvn_pair(o, local[p->watch], local[p->trap], 's', p->approx);
	}
}
