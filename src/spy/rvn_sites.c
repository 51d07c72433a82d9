/*
 * rvn_sites.c - the instructions of witch spy --tool=rvn (RvnSite, rvn.h):
 * one per address, and their handles in the calling contexts they run in.
 *
 * A handle is the context tree's node for an instruction under a context.
 * sqlite3's instructions run in a new context for a third of their
 * events, mostly a context they ran in before but not among the last few
 * they keep: a function called from many places in turn. A lookup in the
 * tree's table is a cache miss; so each context keeps the handles of the
 * instructions that ran in it, in a small table of its own: while the
 * program runs in a context, its instructions find their handles in the
 * same few lines. These tables are the only index of those nodes
 * (spy_cct_leaf): the tree's table holds the calling contexts alone, a
 * tenth as many.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "rvn.h"
#include "addrmap.h"

/*
 * The sites, one per address whatever translations hold it: a translation
 * made again (Valgrind discards them when its cache is full, or their
 * code is unmapped) finds its sites, their rings and their loads' names
 * as it left them, instead of leaking new ones.
 */
static SpyAddrMap sites_by_pc;
static UInt nsites;

/* Sites come in slabs, never freed (a block of the arena each cost a
 * fifth more); a site's id, from 1, is its place in them, which the
 * helpers find in two loads from a table that stays in the cache. */
RvnSite **rvn_slabs;
static UInt slabs_cap;

RvnSite *rvn_site_at(Addr pc)
{
	RvnSite *s = spy_addrmap_get(&sites_by_pc, pc);
	UInt k = nsites / RVN_SLAB;
	Int i;

	if (s)
		return s;
	if (nsites % RVN_SLAB == 0) {
		if (k == slabs_cap) {
			slabs_cap = slabs_cap ? 2 * slabs_cap : 64;
			rvn_slabs = VG_(realloc)("witchspy.rvn.sites", rvn_slabs, slabs_cap * sizeof(*rvn_slabs));
		}
		rvn_slabs[k] = VG_(malloc)("witchspy.rvn.sites", RVN_SLAB * sizeof(RvnSite));
	}
	/* Cleared one by one: a slab's untouched end costs no memory. */
	s = &rvn_slabs[k][nsites % RVN_SLAB];
	VG_(memset)(s, 0, sizeof(*s));
	s->pc = pc;
	for (i = 0; i < RVN_CONTEXTS; i++)
		s->ctx[i] = SPY_NO_NODE;
	s->id = ++nsites;
	spy_addrmap_put(&sites_by_pc, pc, s);
	return s;
}

void rvn_memos_flush(void)
{
	UInt id;

	for (id = 1; id <= nsites; id++)
		rvn_memo_flush(&rvn_site_by_id(id)->memo);
}

void rvn_memos_drop(void)
{
	UInt id;

	for (id = 1; id <= nsites; id++)
		VG_(memset)(&rvn_site_by_id(id)->memo, 0, sizeof(RvnMemo));
}

/* A context's handles by site id: open addressing, at most three
 * quarters full (there are as many tables as contexts). */
struct ctx_tab {
	UInt mask, used;
	struct {
		UInt id;	/* 0: empty */
		UInt handle;
	} e[];
};

/* The tables by context node: only contexts where sites ran have one. */
static SpyAddrMap tabs;

static struct ctx_tab *new_tab(UInt slots)
{
	struct ctx_tab *t = VG_(calloc)("witchspy.rvn.ctx", 1, sizeof(*t) + slots * sizeof(t->e[0]));

	t->mask = slots - 1;
	return t;
}

static UInt home(const struct ctx_tab *t, UInt id)
{
	return (id * 0x9E3779B1u >> 8) & t->mask;
}

static void tab_put(struct ctx_tab *t, UInt id, UInt handle)
{
	UInt i = home(t, id);

	while (t->e[i].id)
		i = (i + 1) & t->mask;
	t->e[i].id = id;
	t->e[i].handle = handle;
	t->used++;
}

/* The table of context node, made or grown to take one more. The last
 * one is kept at hand: the sites running in a context new to them come
 * one after the other. */
static struct ctx_tab *tab_of(UInt node)
{
	static UInt last_node = SPY_NO_NODE;
	static struct ctx_tab *last;
	struct ctx_tab *t, *old;
	UInt i;

	if (node == last_node)
		t = last;
	else if (!(t = spy_addrmap_get(&tabs, node))) {
		t = new_tab(8);
		spy_addrmap_put(&tabs, node, t);
	}
	last_node = node;
	last = t;
	if (4 * (t->used + 1) <= 3 * (t->mask + 1))
		return t;
	old = t;
	t = last = new_tab(2 * (old->mask + 1));
	for (i = 0; i <= old->mask; i++)
		if (old->e[i].id)
			tab_put(t, old->e[i].id, old->e[i].handle);
	VG_(free)(old);
	spy_addrmap_set(&tabs, node, t);
	return t;
}

static UInt handle_in(UInt node, const RvnSite *s)
{
	struct ctx_tab *t = tab_of(node);
	UInt i, h;

	for (i = home(t, s->id); t->e[i].id; i = (i + 1) & t->mask)
		if (t->e[i].id == s->id)
			return t->e[i].handle;
	h = spy_handle(spy_cct_leaf(node, s->pc, DT_INT));
	tab_put(t, s->id, h);
	return h;
}

/* The site's handle in the current context, which is not its latest. */
UInt rvn_site_resolve(RvnSite *s)
{
	UInt node = spy_cur_node, h;
	Int i;

	for (i = 1; i < RVN_CONTEXTS - 1 && s->ctx[i] != node; i++)
		;
	h = s->ctx[i] == node ? s->handle[i] : handle_in(node, s);
	for (; i > 0; i--) {
		s->ctx[i] = s->ctx[i - 1];
		s->handle[i] = s->handle[i - 1];
	}
	s->ctx[0] = node;
	s->handle[0] = h;
	return h;
}
