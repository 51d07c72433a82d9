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
 * each iteration start (and invocation start, and end), a read takes its
 * time, and its read set (loop_reads.c)
 * keeps, per word of memory, the bytes last read there, when, and for
 * each active loop whether that read was redundant for it (and, with
 * --witch-exact-parts, the same for bytes of the word read before the
 * innermost loop began: older parts, judge_split). For
 * activation k with invocation start I and iteration start S, a read of
 * the bytes a word last gave at time t is redundant iff some earlier read
 * of them fell in [I, S): if t >= S they were already read in this
 * iteration, and the answer is the one given then; else iff t >= I.
 * Activations nest in time (an inner one began inside its outer one's
 * current iteration), so one lookup judges the read for all of them. The
 * set forgets everything when no loop is active (its horizon moves up to
 * the present). Only those comparisons with the active loops' starts
 * matter, so when the clock wraps every time becomes its rank among them
 * (renumber).
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
Bool loop_exact_parts;
double loop_r = LOOP_R_DEFAULT, loop_ri = LOOP_RI_DEFAULT;
UInt loop_active;
LoopStats loop_st;
UInt loop_threads_gen;

typedef struct {
	LoopDesc *loop;
	UInt depth;		/* the thread's frames when it began */
	UInt sig;		/* and the signal handlers it was in */
	UInt rec;		/* its record in the thread's records */
	UInt node;		/* the record's, and whether it is flagged: */
	Bool flagged;		/* copies, as each read needs them */
	UInt inv_start, iter_start;	/* clock */
	ULong judged_before;	/* the thread's judged reads when this iteration began */
	ULong redundant;	/* in this iteration */
	UInt stack;		/* activations 0 to this one (loop_stacks.c) */
} LoopAct;

/*
 * A redundant read counts, for each loop that it counts for, in the pair
 * (that loop's node, the load): per read, that is one pair per active
 * loop, and looking the pairs up at each read cost bzip2 a fifth of its
 * time. So the read counts in its site's memo, keyed by the activations
 * it counted for: the stack of the innermost (SpyMemo's watch) and a bit
 * for each (its waste), and goes to their nodes when the memo changes
 * key, through the thread's counts, a direct-mapped cache of its pairs'
 * counts: a program whose loops begin and end all the time (perl)
 * changes keys about as often as it reads, among few pairs.
 */
#define LOOP_COUNT_BITS 12
typedef struct {
	UInt node, load;
	ULong count;		/* 0: empty */
} LoopCount;

typedef struct LoopThread {
	LoopAct act[LOOP_MAX_ACTIVE];
	UInt n;
	UInt now;		/* the clock, at most LOOP_CLOCK_MAX */
	ULong judged;		/* reads made while a loop was active: each
				   counts for every active loop */
	LoopReads reads;
	LoopRec *recs;
	UInt nrecs, cap_recs;
	UInt *rec_hash;		/* node -> record index + 1 */
	UInt rec_mask;
	LoopCount counts[1u << LOOP_COUNT_BITS];
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
static __attribute__((noinline))
void set_flagged(LoopThread *lt, UInt rec, Bool flagged)
{
	UInt k;

	lt->recs[rec].flagged = flagged;
	for (k = 0; k < lt->n; k++)
		if (lt->act[k].rec == rec)
			lt->act[k].flagged = flagged;
}

/* Put rank's times on the activations' starts, the read set's words and
 * the clock: those comparisons are all that is asked of them. */
static void renumber(LoopThread *lt)
{
	UInt b[2 * LOOP_MAX_ACTIVE + 1], n = 0, i, j, k;

	b[n++] = lt->reads.horizon;
	for (k = 0; k < lt->n; k++) {
		b[n++] = lt->act[k].inv_start;
		b[n++] = lt->act[k].iter_start;
	}
	for (i = 1; i < n; i++)	/* nearly sorted already: starts nest */
		for (j = i; j > 0 && b[j - 1] > b[j]; j--) {
			UInt x = b[j];

			b[j] = b[j - 1];
			b[j - 1] = x;
		}
	for (i = j = 1; i < n; i++)
		if (b[i] != b[j - 1])
			b[j++] = b[i];
	n = j;
	for (k = 0; k < lt->n; k++) {
		lt->act[k].inv_start = loop_reads_rank(lt->act[k].inv_start, b, n);
		lt->act[k].iter_start = loop_reads_rank(lt->act[k].iter_start, b, n);
	}
	lt->now = loop_reads_rank(lt->now, b, n);
	loop_reads_renumber(&lt->reads, b, n);
}

static UInt tick(LoopThread *lt)
{
	if (UNLIKELY(lt->now == LOOP_CLOCK_MAX))
		renumber(lt);
	return ++lt->now;
}

static inline __attribute__((always_inline))
void close_iteration(LoopThread *lt, LoopAct *a)
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
	a->iter_start = tick(lt);
}

static void end_top(LoopThread *lt)
{
	close_iteration(lt, &lt->act[--lt->n]);
	/* Nothing active: every pair read so far is history. */
	if (!lt->n)
		loop_reads_forget(&lt->reads, lt->now);
}

static void begin(SpyThread *t, LoopThread *lt, LoopPoint *p)
{
	UInt parent = spy_thread_node(t), below;
	LoopAct *a;
	Bool fresh;

	if (lt->n == LOOP_MAX_ACTIVE) {
		loop_st.loops_untracked++;
		return;
	}
	below = lt->n ? lt->act[lt->n - 1].stack : 0;
	/* A thread freed since may have left its address to t. */
	fresh = p->cached != t || p->cached_parent != parent || p->cached_gen != loop_threads_gen;
	if (fresh) {
		p->cached_rec = find_rec(lt, p->head, spy_cct_child(parent, p->pc, DT_INT));
		p->cached = t;
		p->cached_parent = parent;
		p->cached_gen = loop_threads_gen;
	}
	if (fresh || p->cached_below != below) {
		p->cached_stack = loop_stack_push(below, lt->recs[p->cached_rec].node);
		p->cached_below = below;
	}
	a = &lt->act[lt->n++];
	a->stack = p->cached_stack;
	a->loop = p->head;
	a->depth = t->depth;
	a->sig = t->nsig;
	a->rec = p->cached_rec;
	a->node = lt->recs[a->rec].node;
	a->flagged = lt->recs[a->rec].flagged;
	a->inv_start = a->iter_start = tick(lt);
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

/* Any other point: a return, a loop left, begun, or its next iteration
 * in another frame. */
static __attribute__((noinline))
void point_slow(SpyThread *t, LoopPoint *p, Addr sp)
{
	LoopThread *lt;
	LoopAct *top;

	if (sp > spy_cur_limit)
		spy_unwind(t, sp);	/* a return: its frame's loops end */
	lt = thread_state(t);
	/* A handler runs in the frame it interrupted: the loops it found
	 * running are like a caller's. */
	while (lt->n) {
		top = &lt->act[lt->n - 1];
		if (top->sig < t->nsig || top->depth < t->depth ||
		    (top->depth == t->depth && holds(top->loop, p->inner)))
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

VG_REGPARM(2) void loop_point(LoopPoint *p, Addr sp)
{
	SpyThread *t = spy_cur;
	LoopThread *lt = t->loop;

	/* Most points are the header of the innermost active loop, in the
	 * same frame: the next iteration, and nothing else changes. */
	if (LIKELY(sp <= spy_cur_limit && lt && lt->n && p->head)) {
		LoopAct *top = &lt->act[lt->n - 1];

		if (LIKELY(top->loop == p->head && top->depth == t->depth)) {
			close_iteration(lt, top);
			return;
		}
	}
	point_slow(t, p, sp);
}

void loop_frames_popped(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (!lt)
		return;
	while (lt->n && (lt->act[lt->n - 1].depth > t->depth || lt->act[lt->n - 1].sig > t->nsig))
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
 * The activations for which re-reading bytes last read at clock `last`,
 * with answers `red`, is redundant. From the innermost out, the first
 * activation whose invocation began by that read decides: the ones
 * inside it began later, and for the ones around it the read fell in
 * their current iteration, where red kept the answer. So does it for
 * that one if its current iteration began by then too; else the read was
 * in an earlier iteration of its invocation: redundant for it.
 */
static inline __attribute__((always_inline))
UInt redundant_for(const LoopThread *lt, UInt last, UInt red)
{
	Int k;

	for (k = (Int)lt->n - 1; k >= 0; k--) {
		const LoopAct *a = &lt->act[k];

		if (last >= a->iter_start)
			return red & first_acts((UInt)k + 1);
		if (last >= a->inv_start)
			return 1u << k | (red & first_acts((UInt)k));
	}
	return 0;
}

/* How many of the active loops began by clock t. Times of one depth
 * compare alike with the starts of the loops active now, but for the
 * current iterations' (which, once over, differ from neither). */
static UInt depth_of(const LoopThread *lt, UInt t)
{
	UInt k = 0;

	while (k < lt->n && lt->act[k].inv_start <= t)
		k++;
	return k;
}

/* w holds the read of bytes x (in place, mask) at time now, with flags
 * (LOOP_WORD_SPLIT, known bytes) and answers red; red is returned. */
static inline __attribute__((always_inline))
UInt put_read(LoopWord *w, ULong mask, ULong x, UInt now, UInt flags, UInt red)
{
	w->v = (w->v & ~mask) | (x & mask);
	w->when = loop_when(now, flags);
	w->red = red;
	return red;
}

/*
 * judge_exact for a split word whose older bytes this read reads, or
 * whose newest part (`main`, the bytes read at `last`) was read before
 * the innermost loop began. Most often the read is of the one older
 * part's bytes, and the newest part was read since that loop began: it
 * joins the read. Else the word's parts, its older ones (oldest first)
 * and then the newest, judge the read, redundant for an activation where
 * each part it reads is. Then what was read since the innermost loop
 * began joins the read, a time of its depth; of what is left, parts of
 * one depth become one (at the later time, redundant where both were),
 * and the two oldest too where three depths are left.
 */
static __attribute__((noinline))
UInt judge_split(LoopThread *lt, LoopWord *w, UInt bytes, ULong mask, ULong x, UInt now,
		 UInt main)
{
	UInt inner = lt->act[lt->n - 1].inv_start, last = loop_word_last(w);
	UInt red = 0, np = 0, nq = 0, known = main, left = 0, i;
	LoopOld *od = loop_reads_old(&lt->reads, w);
	/* Parts as arrays of fields: a part copied whole is read back across
	 * the stores that made it, which stalled a fifth of this function. */
	UInt pt[LOOP_OLD_PARTS + 1], pb[LOOP_OLD_PARTS + 1], pr[LOOP_OLD_PARTS + 1];
	UInt qt[LOOP_OLD_PARTS + 1], qb[LOOP_OLD_PARTS + 1], qr[LOOP_OLD_PARTS + 1];

	if (!loop_when_bytes(od->when[1]) && !(bytes & ~loop_when_bytes(od->when[0])) &&
	    last >= inner) {
		if (!((w->v ^ x) & mask))
			red = redundant_for(lt, loop_when_time(od->when[0]), od->red[0]);
		od->when[0] &= ~bytes;
		return put_read(w, mask, x, now,
				(loop_when_bytes(od->when[0]) ? LOOP_WORD_SPLIT : 0) | main | bytes, red);
	}
	for (i = 0; i < LOOP_OLD_PARTS; i++)
		if (loop_when_bytes(od->when[i])) {
			pt[np] = loop_when_time(od->when[i]);
			pb[np] = loop_when_bytes(od->when[i]);
			pr[np++] = od->red[i];
			known |= pb[np - 1];
		}
	pt[np] = last;
	pb[np] = main;
	pr[np++] = w->red;
	if ((known & bytes) == bytes && !((w->v ^ x) & mask)) {
		red = ~0u;
		for (i = 0; i < np; i++)
			if (pb[i] & bytes)
				red &= redundant_for(lt, pt[i], pr[i]);
	}
	for (i = 0; i < np; i++) {
		UInt b = pb[i] & ~bytes;

		if (!b || pt[i] >= inner)
			continue;
		left |= b;
		if (nq && depth_of(lt, qt[nq - 1]) == depth_of(lt, pt[i])) {
			qt[nq - 1] = pt[i];
			qb[nq - 1] |= b;
			qr[nq - 1] &= pr[i];
		} else {
			qt[nq] = pt[i];
			qb[nq] = b;
			qr[nq++] = pr[i];
		}
	}
	if (nq > LOOP_OLD_PARTS) {
		qt[0] = qt[1];
		qb[0] |= qb[1];
		qr[0] &= qr[1];
		qt[1] = qt[2];
		qb[1] = qb[2];
		qr[1] = qr[2];
		nq--;
	}
	for (i = 0; i < LOOP_OLD_PARTS; i++) {
		od->when[i] = i < nq ? loop_when(qt[i], qb[i]) : 0;
		od->red[i] = i < nq ? qr[i] : 0;
	}
	return put_read(w, mask, x, now, (nq ? LOOP_WORD_SPLIT : 0) | ((known | bytes) & ~left), red);
}

/* The bytes `others` of w, read before the innermost loop began, become
 * its one older part (judge_exact). */
static __attribute__((noinline))
void split_word(LoopThread *lt, const LoopWord *w, UInt others)
{
	LoopOld *od = loop_reads_old(&lt->reads, w);

	od->when[0] = loop_when(loop_word_last(w), others);
	od->red[0] = w->red;
	od->when[1] = 0;
}

/*
 * judge_word with loop_exact_parts. Where this read is of some of w's
 * bytes and the others were read before the innermost loop began, the
 * word splits: the others become its older part, and keep their time
 * and answers (split_word); a split word's `known` is then its newest
 * part's bytes, whose reads alone are judged here as any word's. Reads
 * of its older bytes, or of its newest part's when that was read before
 * the innermost loop began, go to judge_split.
 */
static __attribute__((noinline))
UInt judge_exact(LoopThread *lt, LoopWord *w, UInt bytes, ULong mask, ULong x, UInt now)
{
	UInt last = loop_word_last(w), red = 0;
	UInt known = last > lt->reads.horizon ? loop_word_known(w) : 0;
	UInt split = known ? w->when & LOOP_WORD_SPLIT : 0;
	UInt older = (known & ~bytes) && last < lt->act[lt->n - 1].inv_start;

	if (split && ((bytes & ~known) || older))
		return judge_split(lt, w, bytes, mask, x, now, known);
	if ((known & bytes) == bytes && !((w->v ^ x) & mask))
		red = redundant_for(lt, last, w->red);
	if (!split && older) {
		split_word(lt, w, known & ~bytes);
		split = LOOP_WORD_SPLIT;
		known = bytes;
	}
	return put_read(w, mask, x, now, split | known | bytes, red);
}

/*
 * The activations (a bit each) for which the read of len bytes at offset
 * o of word w, whose bytes are x (in place), is redundant; then w holds
 * this read, at time now. A part of a read whose bytes are not what was
 * last read there (or were never read) is a new pair: redundant for none.
 *
 * A word's bytes share one time. Where this read is of some of them and
 * the others were read before the innermost loop began, the others take
 * this read's time: re-read in a later iteration, they look re-read,
 * though they were not read in this invocation before (a column of a
 * byte or int matrix read an element an iteration: each element's word
 * was read by the iteration before, which read its neighbour), unless
 * loop_exact_parts keeps them apart (judge_exact). Bytes read since that
 * loop began may join the read: their times differ from its only within
 * the current iterations.
 */
static inline __attribute__((always_inline))
UInt judge_word(LoopThread *lt, LoopWord *w, UInt o, UInt len, ULong x, UInt now)
{
	UInt bytes = ((1u << len) - 1) << o, red = 0;
	ULong mask = len == 8 ? ~0ULL : (((1ULL << (8 * len)) - 1) << (8 * o));
	UInt known = loop_word_last(w) > lt->reads.horizon ? loop_word_known(w) : 0;

	if (UNLIKELY(loop_exact_parts))
		return judge_exact(lt, w, bytes, mask, x, now);
	if ((known & bytes) == bytes && !((w->v ^ x) & mask))
		red = redundant_for(lt, loop_word_last(w), w->red);
	return put_read(w, mask, x, now, known | bytes, red);
}

/* The count goes to its pair, and is empty. */
static void count_spill(SpyThread *t, LoopCount *c)
{
	if (c->count)
		spy_pair(&t->pairs, c->node, c->load)->count += c->count;
	c->count = 0;
}

/* n more redundant reads of load `load` for the loop in context node. */
static void count_add(SpyThread *t, LoopThread *lt, UInt node, UInt load, ULong n)
{
	UInt h = (node * 0x9E3779B1u + load * 0x85EBCA77u) >> (32 - LOOP_COUNT_BITS);
	LoopCount *c = &lt->counts[h];

	if (UNLIKELY(c->node != node || c->load != load)) {
		count_spill(t, c);
		c->node = node;
		c->load = load;
	}
	c->count += n;
}

/* The thread's counts go to its pairs (drop: they are forgotten). */
static void counts_flush(SpyThread *t, Bool drop)
{
	LoopThread *lt = t->loop;
	UInt i;

	for (i = 0; lt && i < (1u << LOOP_COUNT_BITS); i++) {
		if (drop)
			lt->counts[i].count = 0;
		else
			count_spill(t, &lt->counts[i]);
	}
}

/* The memo's count goes to the loops of the activations it was kept for. */
static void memo_flush(SpyMemo *m)
{
	SpyThread *o = m->t;
	UInt stack = m->p.watch, acts = (UInt)m->p.waste, k;

	if (!o)
		return;
	/* From the innermost's stack down, a loop for each bit. */
	for (k = 31 - (UInt)__builtin_clz(acts); acts; k--, stack = loop_stack_below(stack))
		if (acts & 1u << k) {
			count_add(o, o->loop, loop_stack_node(stack), m->p.trap, m->p.count);
			acts &= ~(1u << k);
		}
	m->t = NULL;
	m->p.count = 0;
}

/* The site's memo is kept for thread t's activations acts, the innermost
 * of which has stack `stack`, from now on. */
static __attribute__((noinline))
void memo_take(SpyThread *t, SpyMemo *m, UInt stack, UInt acts, UInt load)
{
	memo_flush(m);
	m->t = t;
	m->p.watch = stack;
	m->p.waste = acts;
	m->p.trap = load;
}

/* The part of a read in the word at `at` & ~7: len bytes at its offset,
 * whose bytes are x (in place). */
static inline __attribute__((always_inline))
UInt judge_part(LoopThread *lt, Addr at, UInt len, ULong x, UInt now)
{
	LoopWord *w = loop_reads_word(&lt->reads, at & ~(Addr)7);

	if (UNLIKELY(!w)) {
		loop_st.reads_untracked++;
		return 0;
	}
	return judge_word(lt, w, (UInt)(at & 7), len, x, now);
}

/*
 * The load a redundant read counts for: its instruction alone, a context
 * of one frame. The report lists loads by their lines and the loop gives
 * the calling context, so the load's own would only cost a tree lookup
 * at each change of context (a fifth of sqlite3's time) and split its
 * counts over more pairs. Looked up once per site: the site's context is
 * the root, which no other helper of this tool asks for.
 */
static UInt load_of(SpySite *site)
{
	if (UNLIKELY(site->node != SPY_ROOT)) {
		site->handle = spy_handle(spy_cct_child(SPY_ROOT, site->pc, (UChar)site->dtype));
		site->node = SPY_ROOT;
	}
	return site->handle;
}

/* A redundant read (red: for which activations) is over. It counts for
 * them from the innermost out, until a flagged loop claims it. */
static inline __attribute__((always_inline))
void count_redundant(SpyThread *t, LoopThread *lt, UInt red, SpySite *site)
{
	SpyMemo *m = &site->memo;
	UInt k = 31 - (UInt)__builtin_clz(red), stack = lt->act[k].stack, acts = 0;

	loop_st.redundant_reads++;
	do {
		k = 31 - (UInt)__builtin_clz(red);
		acts |= 1u << k;
		lt->act[k].redundant++;
		red &= ~(1u << k);
	} while (red && !lt->act[k].flagged);
	if (UNLIKELY(stack == LOOP_STACK_NONE)) {
		loop_st.reads_unattributed++;
		return;
	}
	if (UNLIKELY(m->t != t || m->p.watch != stack || m->p.waste != acts))
		memo_take(t, m, stack, acts, load_of(site));
	m->p.count++;
}

/* The read is over: red says for which activations it was redundant. */
static inline void count_read(SpyThread *t, LoopThread *lt, UInt red, SpySite *site)
{
	lt->judged++;
	red &= first_acts(lt->n);
	if (red)
		count_redundant(t, lt, red, site);
}

/* A read of size bytes at a, whose value's bytes are at p (little-endian):
 * judged word by word, redundant for an activation when every part is. */
static void judge(Addr a, UInt size, const UChar *p, SpySite *site)
{
	SpyThread *t = spy_cur;
	LoopThread *lt = t->loop;
	UInt red = ~0u, off = 0;

	if (UNLIKELY(!lt || !lt->n))
		return;
	loop_st.reads_in_loops++;
	while (off < size) {
		Addr at = a + off;
		UInt o = (UInt)(at & 7), len = 8 - o < size - off ? 8 - o : size - off, i;
		ULong x = 0;

		for (i = 0; i < len; i++)
			x |= (ULong)p[off + i] << (8 * (o + i));
		red &= judge_part(lt, at, len, x, lt->now);
		off += len;
	}
	count_read(t, lt, red, site);
}

/* A read of size bytes at a within one word, w (NULL: not tracked), whose
 * value is in v's low bytes: it goes in place at once. */
static inline __attribute__((always_inline))
void judge_in_word(SpyThread *t, LoopThread *lt, LoopWord *w, Addr a, UInt size, ULong v,
		   SpySite *site)
{
	UInt o = (UInt)(a & 7), red = 0;

	loop_st.reads_in_loops++;
	if (size < 8)
		v &= (1ULL << (8 * size)) - 1;
	if (LIKELY(w != NULL))
		red = judge_word(lt, w, o, size, v << (8 * o), lt->now);
	else
		loop_st.reads_untracked++;
	count_read(t, lt, red, site);
}

VG_REGPARM(3) void loop_read(Addr a, UWord size, SpySite *site, ULong v)
{
	SpyThread *t = spy_cur;
	LoopThread *lt = t->loop;

	if (UNLIKELY((a & 7) + size > 8)) {
		judge(a, (UInt)size, (const UChar *)&v, site);
		return;
	}
	if (UNLIKELY(!lt || !lt->n))
		return;
	judge_in_word(t, lt, loop_reads_word(&lt->reads, a & ~(Addr)7), a, (UInt)size, v, site);
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

void loop_thread_exit(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (!lt)
		return;
	while (lt->n)
		end_top(lt);
	loop_reads_free(&lt->reads);
	mirror(t);
}

void loop_thread_free(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (!lt)
		return;
	loop_threads_gen++;
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
		counts_flush(t, True);	/* the memos are dropped already */
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
				LoopAct *a = &t->loop->act[i];

				t->loop->recs[a->rec].invocations++;
				a->flagged = False;
				/* The parent counts the iteration so far. */
				a->judged_before = t->loop->judged;
				a->redundant = 0;
			}
	VG_(memset)(&loop_st, 0, sizeof(loop_st));
}

void loop_finish(void)
{
	SpyThread *t;

	for (t = spy_threads; t; t = t->next) {
		while (t->loop && t->loop->n)
			end_top(t->loop);
	}
	/* Before the profile is written: spy_memos_flush would take the
	 * memos' keys for pairs. */
	spy_memos_each(memo_flush);
	for (t = spy_threads; t; t = t->next)
		counts_flush(t, False);
	loop_active = 0;
}
