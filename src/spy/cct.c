/*
 * cct.c - the calling context tree shared by all threads (Valgrind runs
 * one thread at a time), the per-thread tables of context pairs, and the
 * ELF objects that nodes point into.
 *
 * A node is (parent, pc): return addresses on the way down, the accessing
 * instruction at the leaf. Its module and ELF offset are fixed when it is
 * created, while Valgrind still knows the object, so an object unloaded
 * before the end is still named in the profile.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "spy.h"
#include "rvn.h"

#include "core/cct.h"

SpyNode **spy_node_chunks;
UInt spy_nnodes;
ULong spy_nodes_dropped;
SpyModule *spy_mods;
Int spy_nmods;

#define NO_ID CORE_NO_ID
#define MAX_NODES 0x7fffffffu

/*
 * The tables hash as the core's (core/cct.h), but the node table's keys
 * are copied into its slots: a lookup touches one cache line, not a slot
 * and then a node. Lookups (a call, a site's first access in a new
 * context) led DeadSpy's profile of sqlite3, each waiting on two
 * dependent misses. The runtime's tables keep 4-byte slots: their memory
 * is reserved per thread, and lookups are far fewer.
 */
struct node_slot {
	Addr pc;
	UInt parent;
	UInt id;		/* NO_ID: empty */
};

static UInt node_chunks, node_chunks_cap;
static struct node_slot *node_hash;
static UInt node_mask;
static Int mods_cap;
static Int last_mod = -1;

static UInt *new_table(UInt slots)
{
	UInt *t = VG_(malloc)("witchspy.hash", slots * sizeof(UInt));

	VG_(memset)(t, 0xff, slots * sizeof(UInt));
	return t;
}

static struct node_slot *new_node_table(UInt slots)
{
	struct node_slot *t = VG_(malloc)("witchspy.hash", slots * sizeof(*t));
	UInt i;

	for (i = 0; i < slots; i++)
		t[i].id = NO_ID;
	return t;
}

/* Room for node id: a chunk more when it starts one. */
static void node_room(UInt id)
{
	if (id & ((1u << SPY_NODE_CHUNK_BITS) - 1))
		return;
	if (node_chunks == node_chunks_cap) {
		node_chunks_cap = node_chunks_cap ? 2 * node_chunks_cap : 16;
		spy_node_chunks = VG_(realloc)("witchspy.nodes", spy_node_chunks,
					       node_chunks_cap * sizeof(*spy_node_chunks));
	}
	spy_node_chunks[node_chunks++] = VG_(malloc)("witchspy.nodes",
						     sizeof(SpyNode) << SPY_NODE_CHUNK_BITS);
}

void spy_cct_init(void)
{
	SpyNode *root;

	node_room(0);
	node_mask = (1 << 10) - 1;
	node_hash = new_node_table(node_mask + 1);
	root = spy_node(0);
	root->pc = 0;
	root->parent = NO_ID;
	root->module = -1;
	root->dtype = DT_INT;
	root->hashed = False;
	spy_nnodes = 1;
}

/* The table is let fill to three quarters: its slots are 16 bytes, and
 * the keys are copied in, so a longer probe stays in few lines. */
static UInt nhashed;

static void grow_node_hash(void)
{
	UInt i;

	VG_(free)(node_hash);
	node_mask = node_mask * 2 + 1;
	node_hash = new_node_table(node_mask + 1);
	for (i = 1; i < spy_nnodes; i++) {
		const SpyNode *n = spy_node(i);
		UInt h = core_cct_hash(n->parent, n->pc) & node_mask;

		if (!n->hashed)
			continue;
		while (node_hash[h].id != NO_ID)
			h = core_cct_next(h, node_mask);
		node_hash[h].pc = n->pc;
		node_hash[h].parent = n->parent;
		node_hash[h].id = i;
	}
}

static Int add_module(const HChar *path, Addr bias, Addr lo, Addr hi)
{
	if (spy_nmods == SPY_MAX_MODULES)
		return -1;
	if (spy_nmods == mods_cap) {
		mods_cap = mods_cap ? 2 * mods_cap : 32;
		spy_mods = VG_(realloc)("witchspy.mods", spy_mods, mods_cap * sizeof(SpyModule));
	}
	spy_mods[spy_nmods].path = VG_(strdup)("witchspy.mods.path", path);
	spy_mods[spy_nmods].bias = bias;
	spy_mods[spy_nmods].lo = lo;
	spy_mods[spy_nmods].hi = hi;
	spy_mods[spy_nmods].id = -1;
	return last_mod = spy_nmods++;
}

/*
 * Code outside .text and the PLT (.init, .plt.got, .plt.sec): the object
 * whose executable mapping holds pc, by the mapped file's name. Its
 * module takes the whole mapping, so pc is found at once next time.
 */
static Int module_of_mapping(Addr pc)
{
	NSegment const *seg = VG_(am_find_nsegment)(pc);
	const DebugInfo *di;
	const HChar *file;
	Addr bias;
	Int i;

	if (!seg || !seg->hasX || !(file = VG_(am_get_filename)(seg)))
		return -1;
	for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di))
		if (VG_(DebugInfo_get_filename)(di) &&
		    !VG_(strcmp)(VG_(DebugInfo_get_filename)(di), file))
			break;
	if (!di)
		return -1;
	bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
	for (i = 0; i < spy_nmods; i++)
		if (spy_mods[i].bias == bias && !VG_(strcmp)(spy_mods[i].path, file)) {
			if (seg->start < spy_mods[i].lo)
				spy_mods[i].lo = seg->start;
			if (seg->end + 1 > spy_mods[i].hi)
				spy_mods[i].hi = seg->end + 1;
			return last_mod = i;
		}
	return add_module(file, bias, seg->start, seg->end + 1);
}

/* The object holding pc, as an index in spy_mods, or -1. */
Int spy_module_of(Addr pc)
{
	DebugInfo *di;
	const HChar *path;
	Addr lo, hi, plt;
	SizeT plt_size;
	Int i;

	if (last_mod >= 0 && pc >= spy_mods[last_mod].lo && pc < spy_mods[last_mod].hi)
		return last_mod;
	for (i = 0; i < spy_nmods; i++)
		if (pc >= spy_mods[i].lo && pc < spy_mods[i].hi)
			return last_mod = i;
	di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), pc);
	if (!di)
		return module_of_mapping(pc);
	path = VG_(DebugInfo_get_filename)(di);
	lo = VG_(DebugInfo_get_text_avma)(di);
	hi = lo + VG_(DebugInfo_get_text_size)(di);
	/* The PLT is code of the object too (its stubs load from the GOT),
	 * next to .text in the same executable segment. */
	plt = VG_(DebugInfo_get_plt_avma)(di);
	plt_size = VG_(DebugInfo_get_plt_size)(di);
	if (plt_size && plt < lo)
		lo = plt;
	if (plt_size && plt + plt_size > hi)
		hi = plt + plt_size;
	if (!path || pc < lo || pc >= hi)
		return module_of_mapping(pc);
	/* All segments of an ELF object share one bias; the text's is it. */
	return add_module(path, (Addr)VG_(DebugInfo_get_text_bias)(di), lo, hi);
}

/* A node more, or NO_ID when there are as many as can be. */
static UInt new_node(UInt parent, Addr pc, UChar dtype, Bool hashed)
{
	UInt id;
	SpyNode *n;

	if (spy_nnodes >= MAX_NODES) {
		spy_nodes_dropped++;
		return NO_ID;
	}
	node_room(spy_nnodes);
	id = spy_nnodes++;
	n = spy_node(id);
	n->pc = pc;
	n->parent = parent;
	n->module = (Short)spy_module_of(pc);
	n->dtype = dtype;
	n->hashed = hashed;
	return id;
}

UInt spy_cct_child(UInt parent, Addr pc, UChar dtype)
{
	UInt h, id;

	for (h = core_cct_hash(parent, pc) & node_mask; (id = node_hash[h].id) != NO_ID;
	     h = core_cct_next(h, node_mask))
		if (node_hash[h].parent == parent && node_hash[h].pc == pc)
			return id;
	id = new_node(parent, pc, dtype, True);
	if (id == NO_ID)
		return parent ? parent : 1;
	node_hash[h].pc = pc;
	node_hash[h].parent = parent;
	node_hash[h].id = id;
	if (++nhashed * 4 > (ULong)node_mask * 3)
		grow_node_hash();
	return id;
}

UInt spy_cct_leaf(UInt parent, Addr pc, UChar dtype)
{
	UInt id = new_node(parent, pc, dtype, False);

	return id == NO_ID ? (parent ? parent : 1) : id;
}

/* ---- pairs ---- */

void spy_pairs_init(SpyPairTab *t)
{
	t->cap = 256;
	t->v = VG_(malloc)("witchspy.pairs", t->cap * sizeof(SpyPair));
	t->n = 0;
	t->mask = 511;
	t->hash = new_table(t->mask + 1);
	VG_(memset)(t->cache, 0, sizeof(t->cache));
}

void spy_pairs_free(SpyPairTab *t)
{
	VG_(free)(t->v);
	VG_(free)(t->hash);
	VG_(memset)(t, 0, sizeof(*t));
}

static void grow_pair_hash(SpyPairTab *t)
{
	UInt i;

	VG_(free)(t->hash);
	t->mask = t->mask * 2 + 1;
	t->hash = new_table(t->mask + 1);
	for (i = 0; i < t->n; i++)
		core_cct_place(t->hash, t->mask, core_cct_hash(t->v[i].watch, t->v[i].trap), i);
}

SpyPair *spy_pair_slow(SpyPairTab *t, UInt watch, UInt trap)
{
	UInt h, id;
	SpyPair *p;

	for (h = core_cct_hash(watch, trap) & t->mask; (id = t->hash[h]) != NO_ID;
	     h = core_cct_next(h, t->mask))
		if (t->v[id].watch == watch && t->v[id].trap == trap) {
			t->cache[spy_pair_slot(watch, trap)] = id + 1;
			return &t->v[id];
		}
	if (t->n == t->cap) {
		t->cap *= 2;
		t->v = VG_(realloc)("witchspy.pairs", t->v, t->cap * sizeof(SpyPair));
	}
	id = t->n++;
	p = &t->v[id];
	VG_(memset)(p, 0, sizeof(*p));
	p->watch = watch;
	p->trap = trap;
	t->hash[h] = id;
	t->cache[spy_pair_slot(watch, trap)] = id + 1;
	if (core_cct_full(t->n, t->mask))
		grow_pair_hash(t);
	return p;
}

/* ---- sites' memos of their last pair ---- */

SpySB *spy_sbs;

void spy_pair_add(SpyPairTab *t, const SpyPair *d)
{
	SpyPair *p = spy_pair(t, d->watch, d->trap);

	p->waste += d->waste;
	p->use += d->use;
	p->approx += d->approx;
	p->count += d->count;
}

void spy_memo_flush(SpyMemo *m)
{
	if (!m->t)
		return;
	spy_pair_add(&m->t->pairs, &m->p);
	m->t = NULL;
	m->p.waste = m->p.use = m->p.approx = m->p.count = 0;
}

void spy_memos_each(void (*fn)(SpyMemo *m))
{
	SpySB *sb;
	UInt k;

	for (sb = spy_sbs; sb; sb = sb->next)
		for (k = 0; k < sb->n; k++)
			fn(&sb->site[k].memo);
}

void spy_memos_flush(void)
{
	spy_memos_each(spy_memo_flush);
	if (spy_cfg.tool == SPY_RVN)
		rvn_memos_flush();
}

static void memo_drop(SpyMemo *m)
{
	VG_(memset)(m, 0, sizeof(*m));
}

void spy_memos_drop(void)
{
	spy_memos_each(memo_drop);
	if (spy_cfg.tool == SPY_RVN)
		rvn_memos_drop();
}

/* LoadSpy packs a 24-bit handle with a byte, rvn a 27-bit one with the
 * bits of a read (rvn_run.c): contexts beyond that share one node
 * (counted; no program measured comes near 16 million). */
UInt spy_handle(UInt node)
{
	static UInt overflow;
	UInt limit = spy_cfg.tool == SPY_LOAD ? 1u << 24 : spy_cfg.tool == SPY_RVN ? RVN_HANDLES : 0;

	if (!limit || node < limit)
		return node;
	spy_st.handles_overflowed++;
	if (!overflow)
		overflow = spy_cct_child(SPY_ROOT, 0, DT_INT);
	return overflow < limit ? overflow : 1;
}
