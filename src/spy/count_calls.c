/*
 * count_calls.c - calls, returns and computed jumps in witch cpi's
 * counting run: the edges whose target is known only at run time, and the
 * instructions executed below each call site (OptiWISE Algorithm 1).
 *
 * Algorithm 1 keeps a counter stack: at a call, the instructions so far;
 * at the return, the difference goes to the call site. Here the frames of
 * the shadow call stack (callstack.c) hold the count at the call, and a
 * frame that ends for any reason (ret, longjmp, an exception) gives its
 * call site what ran below it. A recursive function would give it twice
 * over: the call site in f that called f again gets the instructions of
 * the deeper f, and so do the call sites in each f above. As for the
 * samples (docs/cpi.md), only the most recent instance of a function
 * counts: while a deeper instance of f runs (f itself, or any function f
 * called directly or not making a call), the frames f made above are
 * hidden, and their call sites do not get those instructions. A call
 * site's function is its symbol's; the function a call starts is its
 * target (a call through the PLT starts the PLT's stub, so recursion
 * through it is not seen).
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"

#include "spy.h"

#include "core/cct.h"

CntCall *cnt_calls;

/* ---- call sites, one per address ---- */

static CntCall **site_hash;
static UInt site_mask, nsites;

/* The start of the function holding a, from its symbol: "name+N". */
static Addr function_of(Addr a)
{
	const HChar *name, *plus;
	ULong off = 0;

	if (!VG_(get_fnname_w_offset)(VG_(current_DiEpoch)(), a, &name))
		return 0;
	plus = VG_(strrchr)(name, '+');
	if (plus && plus[1]) {
		const HChar *d;

		for (d = plus + 1; *d >= '0' && *d <= '9'; d++)
			off = off * 10 + (ULong)(*d - '0');
		if (*d)
			off = 0;	/* a '+' of the name itself */
	}
	return a - (Addr)off;
}

static void site_grow(void)
{
	UInt n = site_mask ? 2 * (site_mask + 1) : 1024, i;
	CntCall **h = VG_(calloc)("witchspy.count.sites", n, sizeof(*h));
	CntCall *c;

	for (c = cnt_calls; c; c = c->next) {
		for (i = (UInt)core_cct_hash(c->addr, 0) & (n - 1); h[i]; i = core_cct_next(i, n - 1))
			;
		h[i] = c;
	}
	VG_(free)(site_hash);
	site_hash = h;
	site_mask = n - 1;
}

CntCall *cnt_call_site(Addr addr, Addr ret)
{
	CntCall *c;
	UInt i;

	if (!site_hash || core_cct_full(nsites, site_mask))
		site_grow();
	for (i = (UInt)core_cct_hash(addr, 0) & site_mask; (c = site_hash[i]);
	     i = core_cct_next(i, site_mask))
		if (c->addr == addr)
			return c;
	c = VG_(calloc)("witchspy.count.site", 1, sizeof(*c));
	c->addr = addr;
	c->ret = ret;
	c->fn = function_of(addr);
	c->module = spy_module_of(addr);
	c->next = cnt_calls;
	cnt_calls = c;
	site_hash[i] = c;
	nsites++;
	return c;
}

/* ---- edges to computed targets ---- */

CntEdge *cnt_edges;
UInt cnt_edge_mask;
static UInt nedges;

static UInt edge_slot(const CntEdge *tab, UInt mask, Addr src, Addr dst)
{
	UInt i;

	for (i = (UInt)core_cct_hash(src, dst) & mask;
	     tab[i].kind && !(tab[i].src == src && tab[i].dst == dst); i = core_cct_next(i, mask))
		;
	return i;
}

void cnt_edge_add(Addr src, Addr dst, UChar kind, ULong count)
{
	UInt i;

	if (!cnt_edges || core_cct_full(nedges, cnt_edge_mask)) {
		UInt n = cnt_edge_mask ? 2 * (cnt_edge_mask + 1) : 1024, j;
		CntEdge *t = VG_(calloc)("witchspy.count.edges", n, sizeof(*t));

		for (j = 0; cnt_edge_mask && j <= cnt_edge_mask; j++)
			if (cnt_edges[j].kind)
				t[edge_slot(t, n - 1, cnt_edges[j].src, cnt_edges[j].dst)] = cnt_edges[j];
		VG_(free)(cnt_edges);
		cnt_edges = t;
		cnt_edge_mask = n - 1;
	}
	i = edge_slot(cnt_edges, cnt_edge_mask, src, dst);
	if (!cnt_edges[i].kind) {
		cnt_edges[i].src = src;
		cnt_edges[i].dst = dst;
		cnt_edges[i].kind = kind;
		nedges++;
	}
	cnt_edges[i].count += count;
}

/* The translation's computed end went to target: counted in its cache of
 * the last target, which goes to the table when the target changes. */
static void taken(CntSB *sb, Addr target, UChar kind)
{
	if (sb->ind_count && sb->ind_last == target) {
		sb->ind_count++;
		return;
	}
	if (sb->ind_count)
		cnt_edge_add(sb->insn[sb->ninsn - 1].addr, sb->ind_last, kind, sb->ind_count);
	sb->ind_last = target;
	sb->ind_count = 1;
}

VG_REGPARM(2) void cnt_on_computed(CntSB *sb, Addr target)
{
	taken(sb, target, 'j');
}

/* ---- Algorithm 1 over the shadow call stack ---- */

/* Per thread, the functions that made calls on its stack: the latest
 * frame each made. Chained, so that a node stays where it is and call
 * sites can keep a pointer to theirs (a lookup per call cost sqlite3's
 * counting run a tenth of its time). */
struct CntFn {
	Addr fn;
	Int top;		/* frame index, -1 if none now */
	struct CntFn *next;
};

struct CntFnTab {
	struct CntFn **bucket;
	UInt mask, n;
};

static Int *fn_top(SpyThread *t, Addr fn)
{
	struct CntFnTab *ft = t->fns;
	struct CntFn *f, *next;
	UInt i;

	if (!ft) {
		ft = t->fns = VG_(calloc)("witchspy.count.fns", 1, sizeof(*ft));
		ft->mask = 63;
		ft->bucket = VG_(calloc)("witchspy.count.fns", ft->mask + 1, sizeof(*ft->bucket));
	}
	for (f = ft->bucket[core_cct_hash(fn, 1) & ft->mask]; f; f = f->next)
		if (f->fn == fn)
			return &f->top;
	if (core_cct_full(ft->n, ft->mask)) {
		UInt n = 2 * (ft->mask + 1);
		struct CntFn **b = VG_(calloc)("witchspy.count.fns", n, sizeof(*b));

		for (i = 0; i <= ft->mask; i++)
			for (f = ft->bucket[i]; f; f = next) {
				next = f->next;
				f->next = b[core_cct_hash(f->fn, 1) & (n - 1)];
				b[core_cct_hash(f->fn, 1) & (n - 1)] = f;
			}
		VG_(free)(ft->bucket);
		ft->bucket = b;
		ft->mask = n - 1;
	}
	f = VG_(malloc)("witchspy.count.fn", sizeof(*f));
	f->fn = fn;
	f->top = -1;
	f->next = ft->bucket[core_cct_hash(fn, 1) & ft->mask];
	ft->bucket[core_cct_hash(fn, 1) & ft->mask] = f;
	ft->n++;
	return &f->top;
}

void cnt_thread_free(SpyThread *t)
{
	struct CntFn *f, *next;
	UInt i;

	if (!t->fns)
		return;
	for (i = 0; i <= t->fns->mask; i++)
		for (f = t->fns->bucket[i]; f; f = next) {
			next = f->next;
			VG_(free)(f);
		}
	VG_(free)(t->fns->bucket);
	VG_(free)(t->fns);
	t->fns = NULL;
}

/* Inside a helper, the count it was given; the running thread's. */
static ULong helper_now;
static const SpyThread *helper_thread;

static ULong icount_of(const SpyThread *t)
{
	ULong v = 0;

	if (t == helper_thread)
		return helper_now;
	if (t->exited)
		return t->icount;
	VG_(get_shadow_regs_area)(t->tid, (UChar *)&v, 1, CNT_ICOUNT, sizeof(v));
	return v;
}

void cnt_thread_exit(SpyThread *t)
{
	t->icount = icount_of(t);
	t->exited = True;
}

void cnt_thread_new(SpyThread *t)
{
	t->icount_base = icount_of(t);
}

/* Cheap enough twice a second: a read of each live thread's guest state. */
ULong cnt_instructions(void)
{
	const SpyThread *t;
	ULong n = 0;

	for (t = spy_threads; t; t = t->next)
		n += icount_of(t) - t->icount_base;
	return n;
}

/* Thread t calls target from cs; its instruction count is now. */
static void called(SpyThread *t, CntCall *cs, Addr sp, Addr target, ULong now)
{
	SpyFrame *f;
	Int j, *hidden;

	/* The call site's nodes in this thread's table, kept. */
	if (cs->cached != t) {
		cs->cached = t;
		cs->fn_top = cs->fn ? fn_top(t, cs->fn) : NULL;
		cs->target_top = cs->target ? fn_top(t, cs->target) : NULL;
		cs->seen = 0;
	}
	f = spy_frame_push(t, cs->ret, sp, SPY_ROOT);
	j = (Int)t->depth - 1;
	f->call = cs;
	f->start = now;
	f->hidden = 0;
	f->hidden_now = False;
	f->hides = -1;
	f->fn_top = cs->fn_top;
	if (cs->fn_top) {
		f->prev_same = *cs->fn_top;
		*cs->fn_top = j;
	}
	/* The callee is an instance of target: the frame target made last
	 * (this one, if it calls itself) is hidden until it returns. */
	if (target == cs->target && cs->target_top) {
		hidden = cs->target_top;
	} else {
		/* A computed call (an interpreter's, through a function
		 * pointer) mostly calls what it called last. */
		if (target != cs->seen || !cs->seen) {
			cs->seen = target;
			cs->seen_top = fn_top(t, target);
		}
		hidden = cs->seen_top;
	}
	if (*hidden >= 0 && !t->f[*hidden].hidden_now) {
		t->f[*hidden].hidden_now = True;
		t->f[*hidden].hidden_since = now;
		f->hides = *hidden;
	}
}

void cnt_on_call(CntSB *sb, Addr sp, Addr target, ULong icount)
{
	if (sb->computed)
		taken(sb, target, 'c');
	if (!spy_cur)
		return;
	helper_now = icount;
	helper_thread = spy_cur;
	called(spy_cur, sb->call, sp, target, icount);
	helper_thread = NULL;
}

VG_REGPARM(3) void cnt_on_chased_call(CntCall *cs, Addr sp, ULong icount)
{
	if (!spy_cur)
		return;
	helper_now = icount;
	helper_thread = spy_cur;
	called(spy_cur, cs, sp, cs->target, icount);
	helper_thread = NULL;
}

void cnt_frame_popped(SpyThread *t, SpyFrame *f)
{
	ULong now = icount_of(t);

	if (f->hides >= 0) {
		SpyFrame *h = &t->f[f->hides];

		h->hidden += now - h->hidden_since;
		h->hidden_now = False;
	}
	f->call->below += cnt_frame_below(t, f);
	if (f->fn_top)
		*f->fn_top = f->prev_same;
	f->call = NULL;
}

ULong cnt_frame_below(const SpyThread *t, const SpyFrame *f)
{
	ULong now = icount_of(t);

	return now - f->start - f->hidden - (f->hidden_now ? now - f->hidden_since : 0);
}

/*
 * A return to where the innermost call would return is counted on its
 * call site (the `f` edge, and the `r` edge from this return instruction,
 * which a call site mostly gets from one); SP is above the return address
 * it popped. Any other return goes to the table of edges.
 */
void cnt_on_ret(CntSB *sb, Addr sp, Addr target, ULong icount)
{
	SpyThread *t = spy_cur;
	SpyFrame *top = t && t->depth > t->sigbase ? &t->f[t->depth - 1] : NULL;
	CntCall *cs = top ? top->call : NULL;

	if (cs && top->slot + sizeof(Addr) == sp && top->ret == target) {
		cs->returns++;
		if (cs->ret_sb != sb) {
			if (cs->ret_count)
				cnt_edge_add(cs->ret_sb->insn[cs->ret_sb->ninsn - 1].addr, cs->ret, 'r',
					     cs->ret_count);
			cs->ret_sb = sb;
			cs->ret_count = 0;
		}
		cs->ret_count++;
	} else {
		taken(sb, target, 'r');
	}
	if (!t)
		return;
	helper_now = icount;
	helper_thread = t;
	spy_unwind(t, sp);
	helper_thread = NULL;
}

void cnt_after_fork(void)
{
	SpyThread *t;
	CntSB *sb;
	CntCall *c;
	UInt i;

	for (sb = cnt_sbs; sb; sb = sb->next) {
		sb->entries = sb->ind_count = 0;
		for (i = 0; i < sb->nexit; i++)
			sb->exit[i].count = 0;
	}
	for (c = cnt_calls; c; c = c->next) {
		c->returns = c->below = c->ret_count = 0;
		c->cached = NULL;	/* the threads' tables have gone */
	}
	for (i = 0; cnt_edge_mask && i <= cnt_edge_mask; i++)
		cnt_edges[i].count = 0;
	for (t = spy_threads; t; t = t->next) {
		ULong zero = 0;

		if (!t->exited)
			VG_(set_shadow_regs_area)(t->tid, 1, CNT_ICOUNT, sizeof(zero),
						  (const UChar *)&zero);
		t->icount = t->icount_base = 0;
		for (i = 0; i < t->depth; i++) {
			t->f[i].start = t->f[i].hidden = 0;
			t->f[i].hidden_since = 0;
		}
	}
}
