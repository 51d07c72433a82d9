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
 * each read and each iteration start, and one table keyed by (address,
 * size, value) keeps when that pair was last read and, for each active
 * loop, whether that read was redundant for it. For activation k with
 * invocation start I and iteration start S, a read whose pair was last
 * read at time t is redundant iff some earlier read of the pair fell in
 * [I, S): if t >= S the pair was already read in this iteration, and the
 * answer is the one given then; else iff t >= I. Activations nest in
 * time (an inner one began inside its outer one's current iteration), so
 * this is exact for all of them with one lookup. The table forgets
 * everything when no loop is active (its epoch moves on).
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
#include "core/contract.h"

UInt loop_a = LOOP_A_DEFAULT;
double loop_r = LOOP_R_DEFAULT, loop_ri = LOOP_RI_DEFAULT;
UInt loop_active;
LoopStats loop_st;

typedef struct {
	LoopDesc *loop;
	UInt depth;		/* the thread's frames when it began */
	UInt rec;		/* its record in the thread's records */
	ULong inv_start, iter_start;	/* clock */
	ULong reads, redundant;	/* in this iteration */
} LoopAct;

/* A pair read while loops were active, by a 64-bit fingerprint of its
 * address, size and value (two pairs of a table share one with a
 * chance of about 2^-40); empty when epoch is not the table's. */
typedef struct {
	ULong key;
	ULong last;		/* clock of its last read */
	UInt red;		/* bit k: that read was redundant for activation k */
	UInt epoch;
} ReadEnt;

#define READS_MIN 1024u

typedef struct LoopThread {
	LoopAct act[LOOP_MAX_ACTIVE];
	UInt n;
	ULong now;
	ReadEnt *tab;
	UInt mask, live, epoch;
	UInt floor;		/* activations below it stopped adding to the set */
	UInt full;		/* not 0: not even activation full - 1 fits, no new
				   pairs until it ends */
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
	lt->mask = READS_MIN - 1;
	lt->tab = VG_(calloc)("witchspy.loopreads", READS_MIN, sizeof(ReadEnt));
	lt->epoch = 1;
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

static void close_iteration(LoopThread *lt, LoopAct *a)
{
	LoopRec *r = &lt->recs[a->rec];

	r->iterations++;
	r->reads += a->reads;
	r->redundant_reads += a->redundant;
	if (a->reads >= loop_a) {
		r->data_iterations++;
		if ((double)a->redundant >= loop_r * (double)a->reads)
			r->redundant_iterations++;
		r->flagged = (double)r->redundant_iterations >= loop_ri * (double)r->data_iterations;
	}
	a->reads = a->redundant = 0;
	a->iter_start = ++lt->now;
}

static void end_top(LoopThread *lt)
{
	close_iteration(lt, &lt->act[--lt->n]);
	if (lt->full > lt->n)
		lt->full = 0;
	if (lt->floor > lt->n)
		lt->floor = lt->n;
	if (lt->n)
		return;
	/* Nothing active: every pair read so far is history. */
	lt->live = 0;
	lt->full = False;
	if (++lt->epoch == 0) {
		VG_(memset)(lt->tab, 0, (lt->mask + 1) * sizeof(ReadEnt));
		lt->epoch = 1;
	}
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
	a->inv_start = a->iter_start = ++lt->now;
	a->reads = a->redundant = 0;
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

/* ---- the read set ---- */

static ULong fmix(ULong h)
{
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ULL;
	return h ^ (h >> 33);
}

static ULong read_key(Addr a, UInt size, ULong v)
{
	return fmix(a * 0x9E3779B97F4A7C15ULL ^ fmix(v ^ ((ULong)size << 58)));
}

static UInt slot_of_key(ULong key, UInt mask)
{
	return (UInt)(key >> 24) & mask;
}

/* Keep, in a table of mask + 1 slots, the entries that an activation
 * from lt->floor up can still be asked about. */
static void rehash(LoopThread *lt, UInt mask)
{
	ReadEnt *old = lt->tab;
	UInt i, h, n = lt->mask + 1;
	ULong oldest = lt->floor < lt->n ? lt->act[lt->floor].inv_start : ~0ULL;

	lt->tab = VG_(calloc)("witchspy.loopreads", mask + 1, sizeof(ReadEnt));
	lt->mask = mask;
	lt->live = 0;
	for (i = 0; i < n; i++) {
		const ReadEnt *e = &old[i];

		if (e->epoch != lt->epoch || e->last < oldest)
			continue;
		for (h = slot_of_key(e->key, mask); lt->tab[h].epoch == lt->epoch; h = (h + 1) & mask)
			;
		lt->tab[h] = *e;
		lt->live++;
	}
	VG_(free)(old);
}

/*
 * Room for one more pair. Below the limit the table doubles. At it, the
 * outermost activations' read sets stop growing, one after the other,
 * until the pairs the others need fill a quarter of it: an outer loop
 * that runs for the whole program must not blind its inner loops. When
 * the innermost alone fills that much, no pair is added until it ends.
 */
static Bool make_room(LoopThread *lt)
{
	UInt slots = lt->mask + 1;

	if (2 * (lt->live + 1) <= slots)
		return True;
	if (lt->full)
		return False;
	if (slots < LOOP_READS_MAX) {
		rehash(lt, 2 * slots - 1);
		return True;
	}
	rehash(lt, slots - 1);
	while (4 * lt->live > slots && lt->floor + 1 < lt->n) {
		lt->floor++;
		loop_st.read_sets_truncated++;
		rehash(lt, slots - 1);
	}
	lt->full = 4 * lt->live > slots ? lt->n : 0;
	return !lt->full;
}

/* The entry of key, *found telling whether it was there; NULL when it
 * was not and there is no room for it. */
static ReadEnt *entry(LoopThread *lt, ULong key, Bool *found)
{
	UInt h;
	ReadEnt *e;

	for (h = slot_of_key(key, lt->mask);; h = (h + 1) & lt->mask) {
		e = &lt->tab[h];
		if (e->epoch != lt->epoch)
			break;
		if (e->key == key) {
			*found = True;
			return e;
		}
	}
	*found = False;
	if (2 * (lt->live + 1) > lt->mask + 1) {
		if (!make_room(lt))
			return NULL;
		for (h = slot_of_key(key, lt->mask); lt->tab[h].epoch == lt->epoch;
		     h = (h + 1) & lt->mask)
			;
		e = &lt->tab[h];
	}
	e->key = key;
	e->epoch = lt->epoch;
	lt->live++;
	return e;
}

static void judge(Addr a, UInt size, ULong v, SpySite *site)
{
	SpyThread *t = spy_cur;
	LoopThread *lt = t->loop;
	ULong now, last = 0;
	UInt old = 0, red = 0;
	Int k;
	Bool found, claimed = False;
	ReadEnt *e;

	if (UNLIKELY(!lt || !lt->n))
		return;
	loop_st.reads_in_loops++;
	now = ++lt->now;
	e = entry(lt, read_key(a, size, v), &found);
	if (found) {
		last = e->last;
		old = e->red;
	}
	for (k = (Int)lt->n - 1; k >= 0; k--) {
		LoopAct *x = &lt->act[k];
		const LoopRec *rec = &lt->recs[x->rec];

		x->reads++;
		if (last >= x->iter_start ? !((old >> k) & 1) : last < x->inv_start)
			continue;
		red |= 1u << k;
		if (!claimed) {
			x->redundant++;
			spy_pair(&t->pairs, rec->node, spy_site_handle(site))->count++;
		}
		claimed |= rec->flagged;
	}
	if (e) {
		e->last = now;
		e->red = red;
	} else {
		loop_st.reads_untracked++;
	}
}

static ULong mix(ULong h, ULong v)
{
	h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
	return h * 0xFF51AFD7ED558CCDULL;
}

VG_REGPARM(3) void loop_read(Addr a, UWord size, SpySite *site, ULong v)
{
	judge(a, (UInt)size, v, site);
}

void loop_read16(Addr a, SpySite *site, ULong v0, ULong v1)
{
	judge(a, 16, mix(v0, v1), site);
}

void loop_read32(Addr a, SpySite *site, ULong v0, ULong v1, ULong v2, ULong v3)
{
	judge(a, 32, mix(mix(mix(v0, v1), v2), v3), site);
}

/* A read whose value the IR does not hold (x87, fxrstor): memory after. */
void loop_read_mem(Addr a, UWord size, SpySite *site)
{
	const UChar *p = (const UChar *)a;
	ULong h = 0;
	UWord i;

	for (i = 0; i < size; i++)
		h = mix(h, p[i]);
	judge(a, (UInt)size, h, site);
}

/* ---- threads, fork, the end ---- */

void loop_thread_free(SpyThread *t)
{
	LoopThread *lt = t->loop;

	if (!lt)
		return;
	VG_(free)(lt->tab);
	VG_(free)(lt->recs);
	VG_(free)(lt->rec_hash);
	VG_(free)(lt);
	t->loop = NULL;
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
			for (i = 0; i < t->loop->n; i++)
				t->loop->recs[t->loop->act[i].rec].invocations++;
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
