/*
 * cpi_loops.c - the loops of each function's control-flow graph
 * (OptiWISE §II-C, §IV-E).
 *
 * A back edge is an edge whose target (the loop's header) dominates its
 * source (the tail); its natural loop is the header and the blocks that
 * reach the tail without passing through the header. Dominators are
 * Cooper, Harvey and Kennedy's iteration over reverse postorder, from a
 * root that leads to the function's first block and to every block
 * entered from outside it (a call, a jump from another function) or not
 * at all. Loops stay within their function: calls and returns are not
 * edges of its graph.
 *
 * Back edges sharing a header are one loop or nested loops by OptiWISE's
 * rule (§IV-E): among them, a loop is nested if it is a proper subset of
 * another and its back edge is taken at least T = 3 times as often as all
 * its supersets' together. Those that are not make the outermost loop,
 * the union of their blocks; the rule then applies again to the nested
 * ones alone, level by level. A back edge never taken (the counting
 * run knows it from the jump's other side) still makes a loop of one
 * iteration per invocation, but never a nested one.
 */
#include "report/cpi.h"
#include "report/grow.h"

#include <stdlib.h>
#include <string.h>

static int subset(const uint64_t *a, const uint64_t *b, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (a[i] & ~b[i])
			return 0;
	return 1;
}

static int proper_subset(const uint64_t *a, const uint64_t *b, size_t words)
{
	return subset(a, b, words) && !subset(b, a, words);
}

int cpi_merge_levels(const uint64_t *const *sets, const uint64_t *counts, size_t nloops,
		     size_t words, int *level)
{
	char *left = calloc(nloops ? nloops : 1, 1), *nested = calloc(nloops ? nloops : 1, 1);
	size_t i, j, remaining = nloops;
	int lvl = 0;

	if (!left || !nested) {
		free(left);
		free(nested);
		return -1;
	}
	memset(left, 1, nloops);
	while (remaining) {
		for (i = 0; i < nloops; i++) {
			uint64_t above = 0;
			int has = 0;

			if (!left[i])
				continue;
			for (j = 0; j < nloops; j++)
				if (j != i && left[j] && proper_subset(sets[i], sets[j], words)) {
					above += counts[j];
					has = 1;
				}
			/* A back edge never taken is no frequent path of its own. */
			nested[i] = has && counts[i] && counts[i] >= CPI_MERGE_T * above;
		}
		for (i = 0; i < nloops; i++)
			if (left[i] && !nested[i]) {
				level[i] = lvl;
				left[i] = 0;
				remaining--;
			}
		lvl++;
	}
	free(left);
	free(nested);
	return lvl;
}

/* The graph of one function, in local block numbers 0..nb-1, nb the root. */
struct graph {
	struct cpi *c;
	uint32_t fb, nb;	/* its blocks: c->blocks[fb..fb+nb) */
	uint32_t *idom, *rpo, *order;	/* order: a block's place in rpo */
	uint32_t *stack;
	char *root;		/* entered from outside, or from nowhere */
	size_t words;
};

static uint32_t arc_to(const struct graph *g, uint32_t b, uint32_t k)
{
	return g->c->arcs[g->c->succ[g->c->blocks[g->fb + b].succ + k]].to - g->fb;
}

static uint32_t arc_from(const struct graph *g, uint32_t b, uint32_t k)
{
	return g->c->arcs[g->c->pred[g->c->blocks[g->fb + b].pred + k]].from - g->fb;
}

/* Which blocks the root leads to. */
static void find_roots(struct graph *g)
{
	const struct cpi *c = g->c;
	uint32_t b, k;

	for (b = 0; b < g->nb; b++) {
		const struct cpi_block *bl = &c->blocks[g->fb + b];
		const struct cpi_insn *in = &c->insns[bl->first];

		g->root[b] = b == 0 || !bl->npred;
		for (k = 0; k < in->nin && !g->root[b]; k++) {
			const struct cpi_edge *e = &c->edges[c->in_edges[in->in + k]];

			g->root[b] = e->kind == 'c' || (e->kind == 'j' && c->insns[e->src].func != bl->func);
		}
	}
}

/* Depth-first from the root: postorder into rpo, then reversed. Blocks
 * nothing led to are roots too. */
static uint32_t postorder(struct graph *g)
{
	uint32_t n = 0, sp, b, r;
	uint32_t *next = calloc(g->nb + 1, sizeof(*next));
	char *seen = calloc(g->nb + 1, 1);

	if (!next || !seen) {
		free(next);
		free(seen);
		return CPI_NONE;
	}
	for (int pass = 0; pass < 2; pass++)
		for (r = 0; r < g->nb; r++) {
			if (seen[r] || (pass == 0 && !g->root[r]))
				continue;
			g->root[r] = 1;
			sp = 0;
			g->stack[sp++] = r;
			seen[r] = 1;
			while (sp) {
				b = g->stack[sp - 1];
				if (next[b] < g->c->blocks[g->fb + b].nsucc) {
					uint32_t s = arc_to(g, b, next[b]++);

					if (!seen[s]) {
						seen[s] = 1;
						g->stack[sp++] = s;
					}
					continue;
				}
				g->rpo[n++] = b;
				sp--;
			}
		}
	g->rpo[n++] = g->nb;	/* the root */
	for (b = 0; b < n / 2; b++) {
		uint32_t t = g->rpo[b];

		g->rpo[b] = g->rpo[n - 1 - b];
		g->rpo[n - 1 - b] = t;
	}
	for (b = 0; b < n; b++)
		g->order[g->rpo[b]] = b;
	free(next);
	free(seen);
	return n;
}

static uint32_t intersect(const struct graph *g, uint32_t a, uint32_t b)
{
	while (a != b) {
		while (g->order[a] > g->order[b])
			a = g->idom[a];
		while (g->order[b] > g->order[a])
			b = g->idom[b];
	}
	return a;
}

static void dominators(struct graph *g, uint32_t n)
{
	int changed = 1;
	uint32_t i, k;

	for (i = 0; i <= g->nb; i++)
		g->idom[i] = CPI_NONE;
	g->idom[g->nb] = g->nb;
	while (changed) {
		changed = 0;
		for (i = 1; i < n; i++) {
			uint32_t b = g->rpo[i], d = g->root[b] ? g->nb : CPI_NONE;

			for (k = 0; k < g->c->blocks[g->fb + b].npred; k++) {
				uint32_t p = arc_from(g, b, k);

				if (g->idom[p] == CPI_NONE)
					continue;
				d = d == CPI_NONE ? p : intersect(g, p, d);
			}
			if (d != CPI_NONE && g->idom[b] != d) {
				g->idom[b] = d;
				changed = 1;
			}
		}
	}
}

static int dominates(const struct graph *g, uint32_t h, uint32_t b)
{
	while (b != h && b != g->nb && g->idom[b] != CPI_NONE)
		b = g->idom[b];
	return b == h;
}

/* The natural loop of the back edge tail -> head, into set. */
static void natural_loop(struct graph *g, uint32_t head, uint32_t tail, uint64_t *set)
{
	uint32_t sp = 0, b, k;

	set[head / 64] |= 1ULL << (head % 64);
	if (set[tail / 64] & (1ULL << (tail % 64)))
		return;
	set[tail / 64] |= 1ULL << (tail % 64);
	g->stack[sp++] = tail;
	while (sp) {
		b = g->stack[--sp];
		for (k = 0; k < g->c->blocks[g->fb + b].npred; k++) {
			uint32_t p = arc_from(g, b, k);

			if (!(set[p / 64] & (1ULL << (p % 64)))) {
				set[p / 64] |= 1ULL << (p % 64);
				g->stack[sp++] = p;
			}
		}
	}
}

/* A function's back edges: the arcs, their sets. */
struct back {
	uint32_t arc;
	uint32_t head, tail;	/* local blocks */
	uint64_t *set;
	int level;
};

/* A loop made of the back edges of one level: its figures. */
static int add_loop(struct cpi *c, size_t *cap, const struct graph *g, struct back *bk,
		    size_t nbk, uint32_t head, int lvl, uint64_t *set, size_t *bcap)
{
	struct cpi_loop *l;
	const struct cpi_insn *hin;
	uint64_t into = 0, back = 0, top = 0;
	uint32_t b, k, i, best = CPI_NONE;
	size_t j;

	if (wr_grow((void **)&c->loops, cap, c->nloops + 1, sizeof(*c->loops)))
		return -1;
	l = &c->loops[c->nloops];
	memset(l, 0, sizeof(*l));
	l->func = c->blocks[g->fb].func;
	l->header = g->fb + head;
	l->parent = CPI_NONE;
	memset(set, 0, g->words * sizeof(*set));
	for (j = 0; j < nbk; j++) {
		if (bk[j].head != head || bk[j].level != lvl)
			continue;
		for (k = 0; k < g->words; k++)
			set[k] |= bk[j].set[k];
		back += c->arcs[bk[j].arc].count;
		if (best == CPI_NONE || c->arcs[bk[j].arc].count > top) {
			top = c->arcs[bk[j].arc].count;
			best = bk[j].tail;
		}
	}
	l->tail = c->blocks[g->fb + best].first + c->blocks[g->fb + best].n - 1;
	l->blocks = (uint32_t)c->nloop_blocks;
	for (b = 0; b < g->nb; b++) {
		const struct cpi_block *bl = &c->blocks[g->fb + b];

		if (!(set[b / 64] & (1ULL << (b % 64))))
			continue;
		if (wr_grow((void **)&c->loop_blocks, bcap, c->nloop_blocks + 1,
			    sizeof(*c->loop_blocks)))
			return -1;
		c->loop_blocks[c->nloop_blocks++] = g->fb + b;
		l->nblocks++;
		for (i = bl->first; i < bl->first + bl->n; i++) {
			const struct cpi_insn *in = &c->insns[i];

			l->self_insns += in->exec;
			l->self_samples += in->samples;
			l->self_ns += in->ns;
			l->incl_insns += in->exec + in->below;
			l->incl_samples += in->samples + in->below_samples;
			l->incl_ns += in->ns + in->below_ns;
			if (!in->below)
				l->uncounted_ns += in->below_ns;
		}
	}
	/* Entries to the header: all, less those from inside the loop. */
	for (k = 0; k < c->blocks[g->fb + head].npred; k++) {
		const struct cpi_arc *a = &c->arcs[c->pred[c->blocks[g->fb + head].pred + k]];
		uint32_t from = a->from - g->fb;

		if (set[from / 64] & (1ULL << (from % 64)))
			into += a->count;
	}
	hin = &c->insns[c->blocks[g->fb + head].first];
	l->invocations = hin->exec > into ? hin->exec - into : 0;
	l->iterations = l->invocations + back;
	c->nloops++;
	return 0;
}

/* Nest a function's loops [from, nloops): each in the smallest loop that
 * holds all its blocks and more. */
static void nest(struct cpi *c, size_t from, const uint64_t *sets, size_t words)
{
	size_t i, j;

	for (i = from; i < c->nloops; i++)
		for (j = from; j < c->nloops; j++) {
			const uint64_t *a = sets + (i - from) * words, *b = sets + (j - from) * words;

			if (i == j || !proper_subset(a, b, words))
				continue;
			if (c->loops[i].parent == CPI_NONE ||
			    c->loops[j].nblocks < c->loops[c->loops[i].parent].nblocks)
				c->loops[i].parent = (uint32_t)j;
		}
	for (i = from; i < c->nloops; i++)
		for (j = c->loops[i].parent; j != CPI_NONE; j = c->loops[j].parent)
			c->loops[i].depth++;
}

/* Where a loop's source lines are: its header's file, the range of its
 * lines there. */
static void loop_lines(struct cpi *c, struct cpi_loop *l)
{
	uint32_t b, i;

	l->file = c->insns[c->blocks[l->header].first].file;
	for (b = 0; b < l->nblocks && !l->file; b++)
		l->file = c->insns[c->blocks[c->loop_blocks[l->blocks + b]].first].file;
	for (b = 0; b < l->nblocks; b++) {
		const struct cpi_block *bl = &c->blocks[c->loop_blocks[l->blocks + b]];

		for (i = bl->first; i < bl->first + bl->n; i++) {
			const struct cpi_insn *in = &c->insns[i];

			if (!in->file || !l->file || strcmp(in->file, l->file) || !in->src_line)
				continue;
			if (!l->first_line || in->src_line < l->first_line)
				l->first_line = in->src_line;
			if (in->src_line > l->last_line)
				l->last_line = in->src_line;
		}
	}
}

static int by_head(const void *a, const void *b)
{
	const struct back *x = a, *y = b;

	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	return (x->tail > y->tail) - (x->tail < y->tail);
}

static int function_loops(struct cpi *c, struct graph *g, size_t *cap, size_t *bcap)
{
	struct back *bk = NULL;
	size_t nbk = 0, kcap = 0, i, j, m, from = c->nloops, *idx = NULL;
	uint64_t *pool = NULL, *merged = NULL, *counts = NULL;
	const uint64_t **sets = NULL;
	int *levels = NULL, nlev, lvl;
	uint32_t b, k, n;
	int ret = -1;

	find_roots(g);
	n = postorder(g);
	if (n == CPI_NONE)
		return -1;
	dominators(g, n);
	for (b = 0; b < g->nb; b++)
		for (k = 0; k < c->blocks[g->fb + b].nsucc; k++) {
			uint32_t arc = c->succ[c->blocks[g->fb + b].succ + k], h = arc_to(g, b, k);

			if (g->idom[b] == CPI_NONE || !dominates(g, h, b))
				continue;
			if (wr_grow((void **)&bk, &kcap, nbk + 1, sizeof(*bk)))
				goto out;
			bk[nbk].arc = arc;
			bk[nbk].head = h;
			bk[nbk].tail = b;
			nbk++;
		}
	if (!nbk) {
		ret = 0;
		goto out;
	}
	qsort(bk, nbk, sizeof(*bk), by_head);
	pool = calloc(nbk * g->words, sizeof(*pool));
	merged = calloc((nbk + 1) * g->words, sizeof(*merged));
	sets = calloc(nbk, sizeof(*sets));
	counts = calloc(nbk, sizeof(*counts));
	levels = calloc(nbk, sizeof(*levels));
	idx = calloc(nbk, sizeof(*idx));
	if (!pool || !merged || !sets || !counts || !levels || !idx)
		goto out;
	for (i = 0; i < nbk; i++) {
		bk[i].set = pool + i * g->words;
		natural_loop(g, bk[i].head, bk[i].tail, bk[i].set);
	}
	/* Per header, OptiWISE's levels; a loop per level. */
	for (i = 0; i < nbk; i++) {
		if (i && bk[i - 1].head == bk[i].head)
			continue;	/* sorted: a header's back edges run together */
		for (j = i, m = 0; j < nbk && bk[j].head == bk[i].head; j++) {
			sets[m] = bk[j].set;
			counts[m] = c->arcs[bk[j].arc].count;
			idx[m++] = j;
		}
		nlev = cpi_merge_levels(sets, counts, m, g->words, levels);
		if (nlev < 0)
			goto out;
		for (j = 0; j < m; j++)
			bk[idx[j]].level = levels[j];
		for (lvl = 0; lvl < nlev; lvl++)
			if (add_loop(c, cap, g, bk, nbk, bk[i].head, lvl,
				     merged + (c->nloops - from) * g->words, bcap))
				goto out;
	}
	nest(c, from, merged, g->words);
	for (i = from; i < c->nloops; i++)
		loop_lines(c, &c->loops[i]);
	ret = 0;
out:
	free(bk);
	free(pool);
	free(merged);
	free(sets);
	free(counts);
	free(levels);
	free(idx);
	return ret;
}

int cpi_loops(struct cpi *c)
{
	size_t cap = 0, bcap = 0, f;
	struct graph g;
	int ret = 0;

	memset(&g, 0, sizeof(g));
	g.c = c;
	for (f = 0; f < c->nfuncs && !ret; f++) {
		uint32_t nb = c->funcs[f].nblocks;

		g.fb = c->funcs[f].first_block;
		g.nb = nb;
		g.words = (nb + 63) / 64;
		g.idom = calloc(nb + 1, sizeof(*g.idom));
		g.rpo = calloc(nb + 1, sizeof(*g.rpo));
		g.order = calloc(nb + 1, sizeof(*g.order));
		g.stack = calloc(2 * (size_t)nb + 2 + c->narcs, sizeof(*g.stack));
		g.root = calloc(nb + 1, 1);
		ret = !g.idom || !g.rpo || !g.order || !g.stack || !g.root ||
		      function_loops(c, &g, &cap, &bcap);
		free(g.idom);
		free(g.rpo);
		free(g.order);
		free(g.stack);
		free(g.root);
	}
	return ret ? -1 : 0;
}
