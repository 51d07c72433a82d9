/*
 * count_out.c - the counting run's profile records (docs/profile-format.md,
 * tool count): per instruction its executions, per edge how often it was
 * taken, per call site the instructions below it.
 *
 * The counters live in the translations (count.c), several of which may
 * hold one instruction (a jump into a block's middle starts a translation
 * there; a discarded translation is made again): they are summed per
 * address here. Nothing is changed, so a profile written before an exec
 * that then fails is written again, whole, at exit.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "spy.h"

#include "core/cct.h"
#include "core/profile.h"

/* Records keyed by two addresses (an instruction: (addr, 0); an edge:
 * (src, dst)), summed. */
struct rec {
	Addr a, b;
	ULong count;
	UInt len;		/* instructions */
	UChar kind;		/* edges */
};

struct tab {
	struct rec *v;
	UInt n, cap;
	UInt *slot;		/* index + 1, 0 free */
	UInt mask;
};

/* The record for (a, b): made if need be when create, else NULL if none. */
static struct rec *lookup(struct tab *t, Addr a, Addr b, Bool create)
{
	UInt i;

	if (!t->slot || core_cct_full(t->n, t->mask)) {
		UInt n = t->mask ? 2 * (t->mask + 1) : 4096, k;
		UInt *s = VG_(calloc)("witchspy.count.out", n, sizeof(*s));

		for (k = 0; k < t->n; k++) {
			for (i = (UInt)core_cct_hash(t->v[k].a, t->v[k].b) & (n - 1); s[i];
			     i = core_cct_next(i, n - 1))
				;
			s[i] = k + 1;
		}
		VG_(free)(t->slot);
		t->slot = s;
		t->mask = n - 1;
	}
	for (i = (UInt)core_cct_hash(a, b) & t->mask; t->slot[i]; i = core_cct_next(i, t->mask)) {
		struct rec *r = &t->v[t->slot[i] - 1];

		if (r->a == a && r->b == b)
			return r;
	}
	if (!create)
		return NULL;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->v = VG_(realloc)("witchspy.count.out", t->v, t->cap * sizeof(*t->v));
	}
	t->slot[i] = t->n + 1;
	VG_(memset)(&t->v[t->n], 0, sizeof(t->v[0]));
	t->v[t->n].a = a;
	t->v[t->n].b = b;
	return &t->v[t->n++];
}

static struct rec *get(struct tab *t, Addr a, Addr b)
{
	return lookup(t, a, b, True);
}

static void edge(struct tab *edges, Addr src, Addr dst, UChar kind, ULong count)
{
	struct rec *r = get(edges, src, dst);

	r->kind = kind;
	r->count += count;
}

/* A rep string op's iterations: each side exit to other code ends one
 * execution, and is an edge. */
static void add_rep_loop(struct tab *insns, struct tab *edges, const CntSB *sb)
{
	Addr a = sb->insn[0].addr;
	struct rec *r = get(insns, a, 0);
	UInt x;

	r->len = sb->insn[0].len;
	for (x = 0; x < sb->nexit; x++)
		if (sb->exit[x].dst != a) {
			r->count += sb->exit[x].count;
			edge(edges, a, sb->exit[x].dst, 'j', sb->exit[x].count);
		}
}

/* One translation: its instructions' executions and its edges. */
static void add_sb(struct tab *insns, struct tab *edges, const CntSB *sb)
{
	static const UChar end_kind[] = { [CNT_JUMP] = 'j', [CNT_CALL] = 'c', [CNT_RET] = 'r' };
	ULong passes = sb->entries;
	UInt k, j, x = 0;

	if (sb->rep_loop) {
		add_rep_loop(insns, edges, sb);
		return;
	}
	for (k = 0; k < sb->ninsn; k++) {
		struct rec *r = get(insns, sb->insn[k].addr, 0);

		/* A join's skip goes on here. */
		for (j = 0; j < x; j++)
			if (sb->exit[j].resume == k)
				passes += sb->exit[j].count;
		r->len = sb->insn[k].len;
		if (!sb->insn[k].repeat)
			r->count += passes;
		for (; x < sb->nexit && sb->exit[x].insn == k; x++) {
			const CntExit *e = &sb->exit[x];

			passes -= e->count;
			if (e->dst == sb->insn[k].addr)
				r->count -= e->count;	/* a repetition */
			else
				edge(edges, sb->insn[k].addr, e->dst, 'j', e->count);
		}
		if (k + 1 == sb->ninsn || sb->insn[k + 1].repeat)
			continue;
		/* VEX followed a jump or a call, or unrolled a loop; or the next
		 * instruction is the other side of a conditional jump (an &&
		 * join): an edge as much as a translation's end would be. */
		if (sb->insn[k].addr + sb->insn[k].len != sb->insn[k + 1].addr)
			edge(edges, sb->insn[k].addr, sb->insn[k + 1].addr,
			     sb->insn[k].call ? 'c' : 'j', passes);
		else if (x && sb->exit[x - 1].insn == k)
			edge(edges, sb->insn[k].addr, sb->insn[k + 1].addr, 'j', passes);
	}
	if (!sb->ninsn || sb->end == CNT_NEXT)
		return;
	k = sb->ninsn - 1;
	if (sb->computed) {
		if (sb->ind_count)
			edge(edges, sb->insn[k].addr, sb->ind_last, end_kind[sb->end], sb->ind_count);
	} else if (sb->end_dst == sb->insn[k].addr) {
		get(insns, sb->insn[k].addr, 0)->count -= passes;
	} else {
		edge(edges, sb->insn[k].addr, sb->end_dst, end_kind[sb->end], passes);
	}
}

/* (module, offset) of a code address, and the module marked as written. */
static void where(Addr a, Int *mod, Addr *off, Int *next_id)
{
	*mod = spy_module_of(a);
	*off = a;
	if (*mod < 0)
		return;
	*off = a - spy_mods[*mod].bias;
	if (spy_mods[*mod].id < 0)
		spy_mods[*mod].id = (*next_id)++;
}

void cnt_write(struct core_profile *o)
{
	struct tab insns = { 0 }, edges = { 0 };
	ULong total = 0, threads = 0;
	Int m, next_id = 0, *imod, *emod, *cmod;
	Addr *ioff, *eoff, *coff;
	UInt i, ncalls = 0;
	SpyThread *t;
	CntSB *sb;
	CntCall *c;

	for (sb = cnt_sbs; sb; sb = sb->next)
		add_sb(&insns, &edges, sb);
	for (i = 0; cnt_edge_mask && i <= cnt_edge_mask; i++)
		if (cnt_edges[i].kind)
			edge(&edges, cnt_edges[i].src, cnt_edges[i].dst, cnt_edges[i].kind,
			     cnt_edges[i].count);
	for (c = cnt_calls; c; c = c->next) {
		edge(&edges, c->addr, c->ret, 'f', c->returns);
		if (c->ret_count)
			edge(&edges, c->ret_sb->insn[c->ret_sb->ninsn - 1].addr, c->ret, 'r', c->ret_count);
		ncalls++;
	}
	/* Edges out of code that never ran (a translation's blocks past an
	 * exit always taken) say nothing. */
	for (i = 0; i < edges.n; i++) {
		struct rec *src = lookup(&insns, edges.v[i].a, 0, False);

		if (!edges.v[i].count && (!src || !src->count))
			edges.v[i].kind = 0;
	}

	/* Modules get ids in order of first use, and their lines go first. */
	for (m = 0; m < spy_nmods; m++)
		spy_mods[m].id = -1;
	imod = VG_(malloc)("witchspy.count.out", (insns.n + 1) * sizeof(Int));
	ioff = VG_(malloc)("witchspy.count.out", (insns.n + 1) * sizeof(Addr));
	emod = VG_(malloc)("witchspy.count.out", (2 * edges.n + 1) * sizeof(Int));
	eoff = VG_(malloc)("witchspy.count.out", (2 * edges.n + 1) * sizeof(Addr));
	cmod = VG_(malloc)("witchspy.count.out", (ncalls + 1) * sizeof(Int));
	coff = VG_(malloc)("witchspy.count.out", (ncalls + 1) * sizeof(Addr));
	for (i = 0; i < insns.n; i++) {
		where(insns.v[i].a, &imod[i], &ioff[i], &next_id);
		total += insns.v[i].count;
	}
	for (i = 0; i < edges.n; i++) {
		if (!edges.v[i].kind)
			continue;
		where(edges.v[i].a, &emod[2 * i], &eoff[2 * i], &next_id);
		where(edges.v[i].b, &emod[2 * i + 1], &eoff[2 * i + 1], &next_id);
	}
	for (c = cnt_calls, i = 0; c; c = c->next, i++)
		where(c->addr, &cmod[i], &coff[i], &next_id);
	spy_profile_modules(o);

	for (t = spy_threads; t; t = t->next)
		threads += t->lwpid != 0;
	core_profile_stat(o, "instructions", total);
	core_profile_stat(o, "threads", threads);
	core_profile_stat(o, "superblocks", spy_st.superblocks);
	core_profile_stat(o, "inexact_translations", cnt_inexact);

	for (i = 0; i < insns.n; i++)
		if (insns.v[i].count)
			core_profile_insn(o, imod[i] < 0 ? -1 : spy_mods[imod[i]].id, ioff[i],
					  insns.v[i].len, insns.v[i].count);
	for (i = 0; i < edges.n; i++)
		if (edges.v[i].kind)
			core_profile_edge(o, emod[2 * i] < 0 ? -1 : spy_mods[emod[2 * i]].id, eoff[2 * i],
				  emod[2 * i + 1] < 0 ? -1 : spy_mods[emod[2 * i + 1]].id,
				  eoff[2 * i + 1], (char)edges.v[i].kind, edges.v[i].count);
	/* A call still on a stack (exit was called below it) counts so far. */
	for (c = cnt_calls; c; c = c->next)
		c->live = 0;
	for (t = spy_threads; t; t = t->next)
		for (i = 0; i < t->depth; i++)
			if (t->f[i].call)
				t->f[i].call->live += cnt_frame_below(t, &t->f[i]);
	for (c = cnt_calls, i = 0; c; c = c->next, i++)
		core_profile_call(o, cmod[i] < 0 ? -1 : spy_mods[cmod[i]].id, coff[i],
				  c->below + c->live);
	VG_(free)(imod);
	VG_(free)(ioff);
	VG_(free)(emod);
	VG_(free)(eoff);
	VG_(free)(cmod);
	VG_(free)(coff);
	VG_(free)(insns.v);
	VG_(free)(insns.slot);
	VG_(free)(edges.v);
	VG_(free)(edges.slot);
}
