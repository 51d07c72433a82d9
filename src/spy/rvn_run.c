/*
 * rvn_run.c - the helpers of witch spy --tool=rvn and their tables.
 *
 * Numbers in memory live in the shadow memory's chunks (shadow.c), which
 * give each 4-byte cell two 32-bit words (struct cell).
 *
 * A redundant event goes to the running thread's pair (first context,
 * again context), whose three counters are its kinds: `waste` counts
 * computations, `use` loads, `approx` stores (profile.c writes them as
 * `r` lines).
 *
 * Computations are judged per thread: a number's key in the table
 * (rvn_table.c) is the number told apart by the thread's record (not its
 * ThreadId, which Valgrind gives again to a thread started after another
 * ended). The table keeps, per static instruction, the last RVN_KEEP
 * numbers it made (thesis §2.4: the last N per instruction); a number an
 * instruction makes again is not kept twice. Loads are judged in the
 * cells (rvn_load).
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

/* A bijection of 64 bits onto 64 bits, each reaching the top ones. */
static ULong mix64(ULong x)
{
	x ^= x >> 31;
	x *= 0x9E3779B97F4A7C15ULL;
	return x ^ (x >> 29);
}

/* Never 0, which in a cell means none. */
ULong rvn_fresh(void)
{
	ULong v;

	do
		v = rvn_top(rvn_stir(next_fresh++ * 0xA24BAED4963EE407ULL));
	while (!v);
	return v;
}

/* ---- memory: 4-byte cells in the shadow chunks ---- */

/*
 * A cell: its number, 0 when it has none (a computed number is 0 one time
 * in 2^32: the cell then reads as never written), and the access that
 * last put the number there or read it: its handle, and for a load
 * WHO_READ and which of the cell's bytes that instruction read since (a
 * loop over a string reads a cell's bytes one by one).
 */
struct cell {
	UInt vn;
	UInt who;
};

#define WHO_BYTES 0xfu
#define WHO_READ 0x10u
#define WHO_SHIFT 5

STATIC_ASSERT(WHO_SHIFT + RVN_HANDLE_BITS == 32);
STATIC_ASSERT(sizeof(struct cell) == RVN_CELL_SHADOW);

static struct cell *cell_at(Addr a, Bool create)
{
	UInt *c = create ? sh_chunk_w(a) : sh_chunk(a);

	return c ? (struct cell *)c + (a & (SH_CHUNK - 1)) / RVN_CELL : NULL;
}

/* The cell of p, whose cell follows c's: the next in c's chunk unless
 * it starts another chunk. */
static inline struct cell *next_cell(struct cell *c, Addr p, Bool create)
{
	return LIKELY((p & (SH_CHUNK - 1)) >= RVN_CELL) ? c + 1 : cell_at(p, create);
}

/* Each cell c, at p, of those from c0 (a cell's start; first its cell)
 * up to end. Where create is False, a chunk between may have no cells:
 * callers walk only cells that a number was put in, or read, whole. */
#define FOR_CELLS(c, p, c0, first, end, create)                          \
	for ((p) = (c0), (c) = (first); (p) < (end);                      \
	     (p) += RVN_CELL, (c) = (p) < (end) ? next_cell((c), (p), (create)) : (c))

static ULong cell_vn(const struct cell *c)
{
	return (ULong)(Long)(Int)c->vn;
}

static void cell_set(struct cell *c, ULong vn, UInt handle)
{
	c->vn = (UInt)vn;
	c->who = handle << WHO_SHIFT;
}

static Bool cell_has(const struct cell *c)
{
	return c && c->vn != 0;
}

/* The handle of the access that last put the cell's number or read it. */
static UInt cell_who(const struct cell *c)
{
	return c->who >> WHO_SHIFT;
}

/* Put one value numbered vn in the cells from c0 (a cell's start) up to
 * end, its pieces after the first; with empty, only in those that have
 * no number. */
static void put_whole(Addr c0, Addr end, ULong vn, UInt node, Bool empty)
{
	Addr p;
	struct cell *c;

	FOR_CELLS(c, p, c0, cell_at(c0, True), end, True)
		if (!empty || !cell_has(c))
			cell_set(c, p != c0 ? rvn_piece(vn, RVN_CELL, (UInt)((p - c0) / RVN_CELL)) : vn, node);
}

/* Fill the cells that [a, a + n) touches that have no number, as if one
 * value were there from a's cell on: a memory never written still reads
 * the same twice. */
static void fill(Addr a, UInt n, UInt node)
{
	put_whole(a & ~(Addr)(RVN_CELL - 1), a + n, rvn_fresh(), node, True);
}

/*
 * The number of the n bytes at a (0 when some have none; *last: the
 * last access of a's cell, 0 when none; *cp: a's cell, NULL when its
 * chunk has none): one value stored whole gives its own number; bytes
 * within one cell, read from its start, give the cell's; anything else
 * a number of its parts.
 */
/* A part of the cell numbered vn, at a: a number of the cell's and
 * where. Out of line, as mixed_vn: the loads of whole values stay short. */
static __attribute__((noinline)) ULong part_vn(ULong vn, Addr a, Addr c0, UInt n)
{
	ULong v[2] = { vn, (a - c0) << 8 | n };

	return rvn_num(RVN_OP_PART_READ, v, 2);
}

/* Cells from c (at c0) to end, not one value's: a number of theirs. */
static __attribute__((noinline)) ULong mixed_vn(struct cell *c, Addr c0, Addr a, UInt n)
{
	ULong v[32 / RVN_CELL + 2];	/* loads are at most 32 bytes: 9 cells */
	struct cell *q;
	Addr p;
	Int m = 0;

	tl_assert(n <= 32);
	FOR_CELLS(q, p, c0, c, a + n, False)
		v[m++] = cell_vn(q);
	v[m++] = (a - c0) << 8 | n;
	return rvn_num(RVN_OP_WHOLE_READ, v, m);
}

static ULong mem_vn(Addr a, UInt n, UInt *last, struct cell **cp)
{
	Addr c0 = a & ~(Addr)(RVN_CELL - 1);
	Addr end = a + n, p;
	struct cell *c = cell_at(c0, False), *q;
	ULong vn;
	Bool whole;

	*last = 0;
	*cp = c;
	if (!cell_has(c))
		return 0;
	vn = cell_vn(c);
	if (end <= c0 + RVN_CELL) {
		*last = cell_who(c);
		return a == c0 ? vn : part_vn(vn, a, c0, n);
	}
	whole = a == c0 && end % RVN_CELL == 0;
	FOR_CELLS(q, p, c0, c, end, False) {
		if (!cell_has(q))
			return 0;
		whole = whole && (p == c0 || cell_vn(q) == rvn_piece(vn, RVN_CELL, (UInt)((p - c0) / RVN_CELL)));
	}
	*last = cell_who(c);
	return whole ? vn : mixed_vn(c, c0, a, n);
}

static void mem_put(Addr a, UInt n, ULong vn, UInt node)
{
	Addr c0 = a & ~(Addr)(RVN_CELL - 1), p;
	struct cell *c;

	if (a == c0 && n % RVN_CELL == 0) {
		put_whole(c0, a + n, vn, node, False);
		return;
	}
	/* Part of a cell, or across cells: each changes into a number of
	 * what it held, what was written into it and where. */
	FOR_CELLS(c, p, c0, cell_at(c0, True), a + n, True) {
		ULong v[3] = { cell_has(c) ? cell_vn(c) : rvn_fresh(), vn, (a - p + 64) << 8 | n };

		cell_set(c, rvn_num(RVN_OP_PART_WRITE, v, 3), node);
	}
}

/* ---- judging ---- */

void rvn_memo_flush(RvnMemo *m)
{
	SpyPair d = { .watch = m->first, .trap = m->again, .waste = m->n[0], .use = m->n[1],
		      .approx = m->n[2], .count = (ULong)m->n[0] + m->n[1] + m->n[2] };

	if (!m->t)
		return;
	spy_pair_add(&m->t->pairs, &d);
	VG_(memset)(m, 0, sizeof(*m));
}

/* A redundant event of site s, of kind 0 (a computation), 1 (a load)
 * or 2 (a store), counted in its memo while its events go to one pair. */
static inline void redundant(RvnSite *s, UInt first, UInt again, int kind)
{
	RvnMemo *m = &s->memo;

	if (!spy_cur)
		return;
	if (UNLIKELY(m->t != spy_cur || m->first != first || m->again != again)) {
		rvn_memo_flush(m);
		m->t = spy_cur;
		m->first = first;
		m->again = again;
	}
	if (UNLIKELY(++m->n[kind] == 0xffffffffu))
		rvn_memo_flush(m);
}

/* The bytes of the cell at p that [a, end) covers, a bit each. */
static UInt cell_bytes(Addr p, Addr a, Addr end)
{
	Addr lo = a > p ? a : p, hi = end < p + RVN_CELL ? end : p + RVN_CELL;

	return ((1u << (hi - lo)) - 1) << (lo - p);
}

/* Whether handle h is of the instruction at pc: the handle in one
 * context, or its node in another. */
static Bool same_insn(UInt h, UInt handle, Addr pc)
{
	return h == handle || spy_node(h)->pc == pc;
}

/*
 * Whether the load at pc (its handle now) read every byte of [a, a + n)
 * since the numbers there were put (c: a's cell), and now it has: per
 * cell, the access that read it last and which of its bytes. (What
 * another instruction read in between makes the next read look new: a
 * table of every instruction's reads per address cost a cache miss per
 * load, most of a run's time.)
 */
static Bool read_again(struct cell *c0, Addr a, UInt n, UInt handle, Addr pc)
{
	Addr p, end = a + n;
	struct cell *c;
	Bool again = True;

	FOR_CELLS(c, p, a & ~(Addr)(RVN_CELL - 1), c0, end, False) {
		UInt bytes = cell_bytes(p, a, end), had = 0;

		if ((c->who & WHO_READ) && same_insn(cell_who(c), handle, pc))
			had = c->who & WHO_BYTES;
		again = again && (had & bytes) == bytes;
		c->who = handle << WHO_SHIFT | WHO_READ | had | bytes;
	}
	return again;
}

/* A load is redundant when the same instruction read the same number at
 * the same address last (read_again). Its pair is (the load, the load)
 * in its context now. */
ULong rvn_load(UWord flags, Addr a)
{
	RvnSite *s = rvn_site_by_id((UInt)(flags >> RVN_ID_SHIFT));
	UInt n = RVN_SIZE(flags), last, node;
	struct cell *c;
	ULong vn = mem_vn(a, n, &last, &c);

	if (!vn) {
		fill(a, n, rvn_site_handle(s));
		vn = mem_vn(a, n, &last, &c);
	}
	if (flags & RVN_IMPLICIT)
		return vn;
	rvn_st.loads++;
	node = rvn_site_handle(s);
	if (read_again(c, a, n, node, s->pc)) {
		rvn_st.redundant_loads++;
		redundant(s, node, node, 1);
	}
	return vn;
}

/* A store of handle wrote the numbers already in [a, a + n) (c: a's
 * cell): it is their last access, which comes between two loads. */
static void stored_again(struct cell *c0, Addr a, UInt n, UInt handle)
{
	Addr p;
	struct cell *c;

	FOR_CELLS(c, p, a & ~(Addr)(RVN_CELL - 1), c0, a + n, False)
		c->who = handle << WHO_SHIFT;
}

/* A store is redundant when the location holds its number already; its
 * pair is (the access that last put the number there or read it, the
 * store). */
void rvn_store(UWord flags, Addr a, ULong vn)
{
	RvnSite *s = rvn_site_by_id((UInt)(flags >> RVN_ID_SHIFT));
	UInt n = RVN_SIZE(flags), last, node = rvn_site_handle(s);
	struct cell *c;

	if (!(flags & RVN_IMPLICIT)) {
		rvn_st.stores++;
		if (vn && mem_vn(a, n, &last, &c) == vn) {
			rvn_st.redundant_stores++;
			redundant(s, last, node, 2);
			stored_again(c, a, n, node);
			return;
		}
	}
	mem_put(a, n, vn, node);
}

static UInt epoch;

/* A site's rings are of the burst they were filled in. */
static void current(RvnSite *s)
{
	if (s->epoch == epoch)
		return;
	s->epoch = epoch;
	s->nkept = s->next_out = 0;
	if (s->seen)
		s->seen->n = s->seen->next = 0;
}

static void keep(RvnSite *s, ULong key)
{
	if (s->nkept == RVN_KEEP) {
		rvn_table_remove(s->kept[s->next_out]);
		rvn_st.dropped++;
		s->kept[s->next_out] = key;
		s->next_out = (s->next_out + 1) % RVN_KEEP;
	} else {
		s->kept[s->nkept++] = key;
	}
}

/* A number's key: the number told apart per thread by a random mask of
 * the thread's record, mixed over 64 bits (numbers have 32, and the table
 * places keys by bits above them); a bijection, so no two numbers of a
 * thread share a key. */
static ULong thread_mask(void)
{
	static const SpyThread *of;
	static ULong m;

	if (LIKELY(spy_cur == of))
		return m;
	of = spy_cur;
	m = mix64((ULong)(Addr)spy_cur * 0xA24BAED4963EE407ULL + 1);
	return m;
}

/* s made key again: if it is one of s's own, it becomes the newest, so
 * that the ring holds the last RVN_KEEP numbers made, not the first. */
static void kept_again(RvnSite *s, ULong key)
{
	UInt newest = s->nkept == RVN_KEEP ? (s->next_out + RVN_KEEP - 1) % RVN_KEEP : s->nkept - 1;
	UInt j, k;

	for (j = 0; j < s->nkept && s->kept[j] != key; j++)
		;
	if (j == s->nkept)
		return;
	for (k = j; k != newest; k = (k + 1) % RVN_KEEP)
		s->kept[k] = s->kept[(k + 1) % RVN_KEEP];
	s->kept[newest] = key;
}

static void judge(RvnSite *s, ULong key)
{
	UInt node = rvn_site_handle(s), first;

	current(s);
	rvn_st.computations++;
	if (!rvn_table_add(key, node, &first)) {
		rvn_st.redundant_computations++;
		redundant(s, first, node, 0);
		kept_again(s, key);
		return;
	}
	keep(s, key);
}

Int rvn_pending_off;

VG_REGPARM(2) void rvn_judge_all(const UChar *gs, UWord n)
{
	const RvnPending *p = (const RvnPending *)(gs + rvn_pending_off);
	RvnSite *s[RVN_PENDING];
	ULong m = thread_mask(), keys[RVN_PENDING];
	UWord i;

	for (i = 0; i < n; i++) {
		s[i] = rvn_site_by_id(p[i].id);
		keys[i] = mix64((ULong)(Long)(Int)p[i].vn ^ m);
		rvn_table_prefetch(keys[i]);
		if (s[i]->nkept == RVN_KEEP && s[i]->epoch == epoch)
			rvn_table_prefetch(s[i]->kept[s[i]->next_out]);
	}
	for (i = 0; i < n; i++)
		judge(s[i], keys[i]);
}

/* --by=value: the same operator on the same operand values as one of the
 * instruction's last spy_cfg.history results. Per instruction, so that
 * the threads' results mix; a thread's own came mostly last anyway. */
VG_REGPARM(2) void rvn_judge_value(RvnSite *s, ULong h)
{
	UInt node = rvn_site_handle(s), j;
	RvnSeen *v;

	current(s);
	rvn_st.computations++;
	if (!s->seen) {
		s->seen = VG_(calloc)("witchspy.rvn.seen", 1, sizeof(RvnSeen));
		s->seen->h = VG_(malloc)("witchspy.rvn.seen", spy_cfg.history * sizeof(*s->seen->h));
		s->seen->node = VG_(malloc)("witchspy.rvn.seen", spy_cfg.history * sizeof(*s->seen->node));
	}
	v = s->seen;
	for (j = 0; j < v->n; j++)
		if (v->h[j] == h) {
			rvn_st.redundant_computations++;
			redundant(s, v->node[j], node, 0);
			return;
		}
	if (v->n < spy_cfg.history) {
		j = v->n++;
	} else {
		j = v->next;
		v->next = (v->next + 1) % spy_cfg.history;
	}
	v->h[j] = h;
	v->node[j] = node;
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

/* Every register a number of its own: a burst starts with none known.
 * (One number for all made every operation on two of them redundant.) */
static void fresh_all_regs(ThreadId tid)
{
	fresh_regs(tid, 0, sizeof(VexGuestAMD64State));
}

/* ---- bursts ---- */

ULong rvn_icount, rvn_next_switch;
ULong rvn_on = 1;
static ULong on_since;

/*
 * The phase switches out of generated code (rvn_burst.c). In a burst the
 * translations count their instructions; between bursts they do not, and
 * the blocks run stand for them at the bursts' rate of instructions per
 * block. Each time a thread is to run and the switch falls due within the
 * blocks it may go, the run stops there: the thread's event counter,
 * which the scheduler has just set to the blocks left in its quantum, is
 * lowered to those at that rate. The scheduler then counts the rest of
 * the quantum as run too, and the next count takes it off (cut). When it
 * stops, the switch is made if due, else the next run goes on towards it.
 */
static ULong sched_blocks, sched_icount, sched_cut;	/* at its last count */
static ULong sched_on = 1;		/* the phase its blocks since ran in */
static ULong burst_blocks, burst_insns;	/* run in bursts: the rate */

static void count_blocks(ULong blocks_done)
{
	ULong blocks = blocks_done - sched_blocks - sched_cut;

	sched_blocks = blocks_done;
	sched_cut = 0;
	/* The rate in floating point: a long run's products of counts pass
	 * 64 bits (10^9 instructions to go times 10^10 blocks run in bursts). */
	if (sched_on) {
		burst_blocks += blocks;
		burst_insns += rvn_icount - sched_icount;
	} else if (burst_blocks) {
		rvn_icount += (ULong)((double)blocks * ((double)burst_insns / (double)burst_blocks));
	}
	sched_icount = rvn_icount;
	sched_on = rvn_on;
}

void rvn_sched(ThreadId tid, ULong blocks_done)
{
	ULong left;
	UInt ctr;

	if (!spy_cfg.burst_on)
		return;
	count_blocks(blocks_done);
	if (!burst_insns || rvn_icount >= rvn_next_switch)
		return;
	left = (ULong)((double)(rvn_next_switch - rvn_icount) *
		       ((double)burst_blocks / (double)burst_insns)) + 1;
	VG_(get_shadow_regs_area)(tid, (UChar *)&ctr, 0,
				  offsetof(VexGuestAMD64State, host_EvC_COUNTER), sizeof(ctr));
	if (left < ctr) {
		sched_cut = ctr - left;
		ctr = (UInt)left;
		VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, host_EvC_COUNTER),
					  sizeof(ctr), (const UChar *)&ctr);
	}
}

/* Forget every number: the table's, memory's, the registers'. */
static void forget_all(void)
{
	rvn_table_clear();
	epoch++;
	sh_clear(0, ~(SizeT)0);
	spy_threads_live(fresh_all_regs);
}

/* The phase changes; its translations are the caller's to discard. */
static void switch_phase(void)
{
	if (rvn_on) {
		rvn_st.judged += rvn_icount - on_since;
		rvn_next_switch = rvn_icount + spy_cfg.burst_off;
	} else {
		forget_all();
		/* Calls were not followed between bursts: the stacks say where
		 * each thread is. */
		spy_threads_live(spy_stack_rebuild);
		on_since = rvn_icount;
		rvn_st.bursts++;
		rvn_next_switch = rvn_icount + spy_cfg.burst_on;
	}
	rvn_on = !rvn_on;
	sched_on = rvn_on;	/* the blocks from here on */
}

/* Every translation is of one phase, and all are discarded at a switch:
 * the client's whole address space. */
#define ALL_CODE_START ((Addr)0x1000)
#define ALL_CODE_LEN (~(ULong)0xfff)

/* The core's, in pub_core_transtab.h: the tool's own asserts that a
 * client request is being handled. Out of generated code it is safe. */
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);

void rvn_sched_stop(ThreadId tid, ULong blocks_done)
{
	(void)tid;
	if (!spy_cfg.burst_on)
		return;
	count_blocks(blocks_done);
	if (rvn_icount < rvn_next_switch)
		return;
	/* Out of generated code, where the scheduler looks up what runs next
	 * only after this. */
	switch_phase();
	VG_(discard_translations)(ALL_CODE_START, ALL_CODE_LEN, "witchspy rvn burst");
}

/* A forked child's profile counts from the fork, its phase's rest ahead. */
void rvn_after_fork(void)
{
	/* The fork's block may have passed the switch: due at once. */
	ULong left = rvn_next_switch > rvn_icount ? rvn_next_switch - rvn_icount : 0;

	VG_(memset)(&rvn_st, 0, sizeof(rvn_st));
	rvn_st.bursts = rvn_on;
	on_since = 0;
	rvn_icount = 0;
	sched_icount = 0;
	if (spy_cfg.burst_on)
		rvn_next_switch = left;
}

void rvn_init(void)
{
	rvn_table_init();
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
		core_profile_stat(o, "instructions_judged", rvn_st.judged + (rvn_on ? rvn_icount - on_since : 0));
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
