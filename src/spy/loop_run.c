/*
 * loop_run.c - the helpers of --witch-tool=loop: which loops are running
 * in each thread, and which of their reads re-read what an earlier
 * iteration read (Prometheus §III, in software and exact).
 *
 * A thread's active loops form a stack of activations (invocations), each
 * tagged with the depth of the shadow call stack it runs at: a loop point
 * in a function ends that frame's activations that do not hold it, and
 * at a loop's header begins an iteration or an invocation; a frame that
 * goes ends the activations it held (loop_frames_popped). Callees run
 * inside their callers' activations: their reads count for them.
 *
 * Read sets without a set per activation: the thread's clock ticks at
 * each read and each iteration start, and its read set (loop_reads.c)
 * keeps, per word of memory, the bytes last read there, when, and for
 * each active loop whether that read was redundant for it. For
 * activation k with invocation start I and iteration start S, a read of
 * the bytes a word last gave at time t is redundant iff some earlier read
 * of them fell in [I, S): if t >= S they were already read in this
 * iteration, and the answer is the one given then; else iff t >= I.
 * Activations nest in time (an inner one began inside its outer one's
 * current iteration), so one lookup judges the read for all of them. The
 * set forgets everything when no loop is active (its epoch moves on).
 *
 * A read that re-reads what an earlier iteration of several active loops
 * read is redundant for each of them, as Prometheus judges each loop on
 * its own, except that an inner loop flagged so far (its redundant
 * iterations already RI of its data-intensive ones) claims it: the loops
 * around it do not count it. So an outer loop that repeats a whole
 * wasteful loop is not flagged for that loop's waste, and an outer loop
 * whose inner parts re-read little on their own (a loop split by the
 * compiler into nested natural loops) still is (docs/spy.md).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "spy.h"
#include "loop.h"
#include "loop_reads.h"
#include "core/contract.h"

UInt loop_a = LOOP_A_DEFAULT;
double loop_r = LOOP_R_DEFAULT, loop_ri = LOOP_RI_DEFAULT;
UInt loop_active;
LoopStats loop_st;

typedef struct {
	LoopDesc *loop;
	UInt depth;		/* the thread's frames when it began */
	UInt rec;		/* its record in the thread's records */
	UInt node;		/* the record's, and whether it is flagged: */
	Bool flagged;		/* copies, as each read needs them */
	ULong inv_start, iter_start;	/* clock */
	ULong judged_before;	/* the thread's judged reads when this iteration began */
	ULong redundant;	/* in this iteration */
} LoopAct;

typedef struct LoopThread {
	LoopAct act[LOOP_MAX_ACTIVE];
	UInt n;
	ULong now;
	ULong judged;		/* reads made while a loop was active: each
				   counts for every active loop */
	LoopReads reads;
	LoopRec *recs;
	UInt nrecs, cap_recs;
	UInt *rec_hash;		/* node -> record index + 1 */
	UInt rec_mask;
} LoopThread;

static LoopThread *thread_state(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (LIKELY(lt != NULL))
		return lt;
	lt = VG_(calloc)("witchspy.loop", 1, sizeof(*lt));
	loop_reads_init(&lt->reads);
	lt->rec_mask = 255;
	lt->rec_hash = VG_(calloc)("witchspy.looprecs", lt->rec_mask + 1, sizeof(UInt));
	t->loop = lt;
	return lt;
}

static void mirror(SpyThread *t)
{
	if (t == spy_cur)
		loop_active = t->loop ? t->loop->n : 0;
}

void loop_switch(SpyThread *t)
{
	loop_active = t && t->loop ? t->loop->n : 0;
}

/* ---- records: one per loop and calling context ---- */

static UInt node_hash(UInt node)
{
	return node * 0x9E3779B1u;
}

static UInt find_rec(LoopThread *lt, LoopDesc *l, UInt node)
{
	UInt h, k;

	for (h = node_hash(node) & lt->rec_mask; (k = lt->rec_hash[h]) != 0; h = (h + 1) & lt->rec_mask)
		if (lt->recs[k - 1].node == node)
			return k - 1;
	if (lt->nrecs == lt->cap_recs) {
		lt->cap_recs = lt->cap_recs ? 2 * lt->cap_recs : 64;
		lt->recs = VG_(realloc)("witchspy.looprecs", lt->recs, lt->cap_recs * sizeof(LoopRec));
	}
	k = lt->nrecs++;
	VG_(memset)(&lt->recs[k], 0, sizeof(LoopRec));
	lt->recs[k].loop = l;
	lt->recs[k].node = node;
	lt->rec_hash[h] = k + 1;
	if (2 * lt->nrecs > lt->rec_mask) {
		UInt i, mask = 2 * lt->rec_mask + 1;
		UInt *hash = VG_(calloc)("witchspy.looprecs", mask + 1, sizeof(UInt));

		for (i = 0; i < lt->nrecs; i++) {
			for (h = node_hash(lt->recs[i].node) & mask; hash[h]; h = (h + 1) & mask)
				;
			hash[h] = i + 1;
		}
		VG_(free)(lt->rec_hash);
		lt->rec_hash = hash;
		lt->rec_mask = mask;
	}
	return k;
}

const LoopRec *loop_thread_rec(const SpyThread *t, UInt node)
{
	const LoopThread *lt = t->loop;
	UInt h, k;

	if (!lt)
		return NULL;
	for (h = node_hash(node) & lt->rec_mask; (k = lt->rec_hash[h]) != 0; h = (h + 1) & lt->rec_mask)
		if (lt->recs[k - 1].node == node)
			return &lt->recs[k - 1];
	return NULL;
}

UInt loop_thread_records(const SpyThread *t, const LoopRec **recs)
{
	*recs = t->loop ? t->loop->recs : NULL;
	return t->loop ? t->loop->nrecs : 0;
}

/* ---- activations ---- */

/* Record r's flagged changed: its activations' copies follow. */
static void set_flagged(LoopThread *lt, UInt rec, Bool flagged)
{
	UInt k;

	lt->recs[rec].flagged = flagged;
	for (k = 0; k < lt->n; k++)
		if (lt->act[k].rec == rec)
			lt->act[k].flagged = flagged;
}

static void close_iteration(LoopThread *lt, LoopAct *a)
{
	LoopRec *r = &lt->recs[a->rec];
	ULong reads = lt->judged - a->judged_before;
	Bool flagged;

	r->iterations++;
	r->reads += reads;
	r->redundant_reads += a->redundant;
	if (reads >= loop_a) {
		r->data_iterations++;
		if ((double)a->redundant >= loop_r * (double)reads)
			r->redundant_iterations++;
		flagged = (double)r->redundant_iterations >= loop_ri * (double)r->data_iterations;
		if (flagged != r->flagged)
			set_flagged(lt, a->rec, flagged);
	}
	a->judged_before = lt->judged;
	a->redundant = 0;
	a->iter_start = ++lt->now;
}

static void end_top(LoopThread *lt)
{
	close_iteration(lt, &lt->act[--lt->n]);
	/* Nothing active: every pair read so far is history. */
	if (!lt->n)
		loop_reads_forget(&lt->reads);
}

static void begin(SpyThread *t, LoopThread *lt, LoopPoint *p)
{
	UInt parent = spy_thread_node(t);
	LoopAct *a;

	if (lt->n == LOOP_MAX_ACTIVE) {
		loop_st.loops_untracked++;
		return;
	}
	if (p->cached != t || p->cached_parent != parent) {
		p->cached_rec = find_rec(lt, p->head, spy_cct_child(parent, p->pc, DT_INT));
		p->cached = t;
		p->cached_parent = parent;
	}
	a = &lt->act[lt->n++];
	a->loop = p->head;
	a->depth = t->depth;
	a->rec = p->cached_rec;
	a->node = lt->recs[a->rec].node;
	a->flagged = lt->recs[a->rec].flagged;
	a->inv_start = a->iter_start = ++lt->now;
	a->judged_before = lt->judged;
	a->redundant = 0;
	lt->recs[a->rec].invocations++;
}

/* Is the instruction whose innermost loop is inner in loop l? */
static Bool holds(const LoopDesc *l, const LoopDesc *inner)
{
	for (; inner; inner = inner->parent)
		if (inner == l)
			return True;
	return False;
}

VG_REGPARM(2) void loop_point(LoopPoint *p, Addr sp)
{
	SpyThread *t = spy_cur;
	LoopThread *lt;
	LoopAct *top;

	if (sp > spy_cur_limit)
		spy_unwind(t, sp);	/* a return: its frame's loops end */
	lt = thread_state(t);
	while (lt->n) {
		top = &lt->act[lt->n - 1];
		if (top->depth < t->depth || (top->depth == t->depth && holds(top->loop, p->inner)))
			break;
		end_top(lt);
	}
	if (p->head) {
		top = lt->n ? &lt->act[lt->n - 1] : NULL;
		if (top && top->depth == t->depth && top->loop == p->head)
			close_iteration(lt, top);
		else
			begin(t, lt, p);
	}
	mirror(t);
}

void loop_frames_popped(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (!lt)
		return;
	while (lt->n && lt->act[lt->n - 1].depth > t->depth)
		end_top(lt);
	mirror(t);
}

/* ---- judging a read ---- */

/* Activations 0 to n - 1, a bit each. */
static UInt first_acts(UInt n)
{
	return n >= 32 ? ~0u : (1u << n) - 1;
}

/*
 * The activations for which re-reading the bytes word w last gave is
 * redundant. From the innermost out, the first activation whose
 * invocation began by that read (clock w->last) decides: the ones inside
 * it began later, and for the ones around it the read fell in their
 * current iteration, where w->red kept the answer. So does it for that
 * one if its current iteration began by then too; else the read was in
 * an earlier iteration of its invocation: redundant for it.
 */
static UInt redundant_for(const LoopThread *lt, const LoopWord *w)
{
	Int k;

	for (k = (Int)lt->n - 1; k >= 0; k--) {
		const LoopAct *a = &lt->act[k];

		if (w->last >= a->iter_start)
			return w->red & first_acts((UInt)k + 1);
		if (w->last >= a->inv_start)
			return 1u << k | (w->red & first_acts((UInt)k));
	}
	return 0;
}

/*
 * The activations (a bit each) for which the read of len bytes at offset
 * o of word w, whose bytes are x (in place), is redundant; then w holds
 * this read. A part of a read whose bytes are not what was last read
 * there (or were never read) is a new pair: redundant for none.
 */
static UInt judge_word(LoopThread *lt, LoopWord *w, UInt o, UInt len, ULong x, ULong now)
{
	UInt bytes = ((1u << len) - 1) << o, red = 0;
	ULong mask = len == 8 ? ~0ULL : (((1ULL << (8 * len)) - 1) << (8 * o));

	if (w->epoch != lt->reads.epoch) {
		w->epoch = lt->reads.epoch;
		w->known = 0;
	}
	if ((w->known & bytes) == bytes && !((w->v ^ x) & mask))
		red = redundant_for(lt, w);
	w->v = (w->v & ~mask) | (x & mask);
	w->known |= (UChar)bytes;
	w->last = now;
	w->red = red;
	return red;
}

/* Load `load`'s redundant read for the loop in context node: in its site's
 * memo while it goes to one pair (most reads of a loop), as LoadSpy's;
 * a read that counts for more loops than one counts in the memo for the
 * innermost only (memo says so), or the memo would change pair at each. */
static void count_load(SpyThread *t, SpySite *site, UInt load, UInt node, Bool memo)
{
	SpyMemo *m = &site->memo;

	if (!memo) {
		spy_pair(&t->pairs, node, load)->count++;
		return;
	}
	if (UNLIKELY(m->t != t || m->p.watch != node || m->p.trap != load)) {
		spy_memo_flush(m);
		m->t = t;
		m->p.watch = node;
		m->p.trap = load;
	}
	m->p.count++;
}

/* The part of a read in the word at `at` & ~7: len bytes at its offset,
 * whose bytes are x (in place). */
static UInt judge_part(LoopThread *lt, Addr at, UInt len, ULong x, ULong now)
{
	LoopWord *w = loop_reads_word(&lt->reads, at & ~(Addr)7);

	if (UNLIKELY(!w)) {
		loop_st.reads_untracked++;
		return 0;
	}
	return judge_word(lt, w, (UInt)(at & 7), len, x, now);
}

/* The read is over: red says for which activations it was redundant. */
static void count_read(SpyThread *t, LoopThread *lt, UInt red, SpySite *site)
{
	Bool counted = False;
	UInt load;

	red &= first_acts(lt->n);
	lt->judged++;
	if (!red)
		return;
	loop_st.redundant_reads++;
	load = spy_site_handle(site);
	/* From the innermost out, until a flagged loop claims the read. */
	while (red) {
		UInt k = 31 - (UInt)__builtin_clz(red);
		LoopAct *x = &lt->act[k];

		x->redundant++;
		count_load(t, site, load, x->node, !counted);
		counted = True;
		if (x->flagged)
			break;
		red &= ~(1u << k);
	}
}

/* A read of size bytes at a, whose value's bytes are at p (little-endian):
 * judged word by word, redundant for an activation when every part is. */
static void judge(Addr a, UInt size, const UChar *p, SpySite *site)
{
	SpyThread *t = spy_cur;
	LoopThread *lt = t->loop;
	UInt red = ~0u, off = 0;
	ULong now;

	if (UNLIKELY(!lt || !lt->n))
		return;
	loop_st.reads_in_loops++;
	now = ++lt->now;
	while (off < size) {
		Addr at = a + off;
		UInt o = (UInt)(at & 7), len = 8 - o < size - off ? 8 - o : size - off, i;
		ULong x = 0;

		for (i = 0; i < len; i++)
			x |= (ULong)p[off + i] << (8 * (o + i));
		red &= judge_part(lt, at, len, x, now);
		off += len;
	}
	count_read(t, lt, red, site);
}

/* Most reads lie within one word: their value goes in place at once. */
VG_REGPARM(3) void loop_read(Addr a, UWord size, SpySite *site, ULong v)
{
	SpyThread *t = spy_cur;
	LoopThread *lt = t->loop;
	UInt o = (UInt)(a & 7);

	if (UNLIKELY(o + size > 8)) {
		judge(a, (UInt)size, (const UChar *)&v, site);
		return;
	}
	if (UNLIKELY(!lt || !lt->n))
		return;
	loop_st.reads_in_loops++;
	if (size < 8)
		v &= (1ULL << (8 * size)) - 1;
	count_read(t, lt, judge_part(lt, a, (UInt)size, v << (8 * o), ++lt->now), site);
}

void loop_read16(Addr a, SpySite *site, ULong v0, ULong v1)
{
	ULong v[2] = { v0, v1 };

	judge(a, 16, (const UChar *)v, site);
}

void loop_read32(Addr a, SpySite *site, ULong v0, ULong v1, ULong v2, ULong v3)
{
	ULong v[4] = { v0, v1, v2, v3 };

	judge(a, 32, (const UChar *)v, site);
}

/* A read whose value the IR does not hold (x87, fxrstor): memory after. */
void loop_read_mem(Addr a, UWord size, SpySite *site)
{
	judge(a, (UInt)size, (const UChar *)a, site);
}

/* ---- threads, fork, the end ---- */

void loop_thread_free(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (!lt)
		return;
	loop_reads_free(&lt->reads);
	VG_(free)(lt->recs);
	VG_(free)(lt->rec_hash);
	VG_(free)(lt);
	t->loop = NULL;
}

ULong loop_shadow_bytes(void)
{
	const SpyThread *t;
	ULong n = 0;

	for (t = spy_threads; t; t = t->next)
		if (t->loop)
			n += loop_reads_bytes(&t->loop->reads);
	return n;
}

/* The child goes on inside the same loops, and counts from zero. */
void loop_after_fork(void)
{
	SpyThread *t;
	UInt i;

	for (t = spy_threads; t; t = t->next)
		if (t->loop)
			for (i = 0; i < t->loop->nrecs; i++) {
				LoopRec *r = &t->loop->recs[i];

				r->invocations = r->iterations = r->data_iterations = 0;
				r->redundant_iterations = r->reads = r->redundant_reads = 0;
				r->flagged = False;
			}
	for (t = spy_threads; t; t = t->next)
		if (t->loop)
			for (i = 0; i < t->loop->n; i++) {
				t->loop->recs[t->loop->act[i].rec].invocations++;
				t->loop->act[i].flagged = False;
			}
	VG_(memset)(&loop_st, 0, sizeof(loop_st));
}

void loop_finish(void)
{
	SpyThread *t;

	for (t = spy_threads; t; t = t->next)
		while (t->loop && t->loop->n)
			end_top(t->loop);
	loop_active = 0;
}
