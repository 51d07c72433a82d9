/*
 * visit_starts.c - the rule of visit_starts.h: loops from code_flow.c,
 * then a forward dataflow of "in which visit may control be" over the
 * function's blocks.
 */
#include "cli/visit_starts.h"

#include <stdlib.h>
#include <string.h>

/* States, a bit each: in no visit, or in a visit of copy k. */
#define OUT 1ull
static uint64_t in_copy(uint32_t copy)
{
	return 2ull << (copy % 63);
}

struct work {
	char *foreign;		/* per loop: it holds code of other lines */
	size_t *loop;		/* per candidate: its innermost foreign loop, SIZE_MAX none */
	int *kept;		/* per candidate: step 2 keeps it */
	uint64_t *mark;		/* per block: the state a kept candidate starting it sets */
	uint64_t *at;		/* per block: the states control may enter it in */
};

/* How many foreign loops hold block k; *innermost: the smallest. */
static int depth_of(const struct flow *f, const char *foreign, uint32_t k, size_t *innermost)
{
	size_t i;
	int depth = 0;

	*innermost = SIZE_MAX;
	for (i = 0; i < f->nloops; i++) {
		if (!foreign[i] || !flow_loop_holds(&f->loops[i], k))
			continue;
		depth++;
		if (*innermost == SIZE_MAX || f->loops[i].nblocks < f->loops[*innermost].nblocks)
			*innermost = i;
	}
	return depth;
}

/* Step 1 and 2 for the candidates of c[first]'s copy. */
static void keep_deepest(const struct flow *f, struct work *w, const struct visit_cand *c,
			 size_t n, size_t first)
{
	uint32_t copy = c[first].copy;
	int any_stmt = 0, deepest = -1, *depth = w->kept;	/* reused: kept after */
	size_t i;

	for (i = first; i < n; i++)
		any_stmt |= c[i].copy == copy && c[i].stmt;
	for (i = first; i < n; i++) {
		if (c[i].copy != copy)
			continue;
		depth[i] = (c[i].stmt || !any_stmt) && c[i].block != FLOW_NONE
				   ? depth_of(f, w->foreign, c[i].block, &w->loop[i]) : -1;
		if (depth[i] > deepest)
			deepest = depth[i];
	}
	for (i = first; i < n; i++) {
		if (c[i].copy != copy)
			continue;
		w->kept[i] = deepest >= 0 && depth[i] == deepest;
		if (w->kept[i] && !w->mark[c[i].block])
			w->mark[c[i].block] = in_copy(copy);
	}
}

/* Step 3's dataflow: w->at from the entry, in no visit. */
static int flow_states(const struct flow *f, const char *other, struct work *w)
{
	uint32_t *stack = malloc((f->nb + 1) * sizeof(*stack));
	char *queued = calloc(f->nb + 1, 1);
	size_t depth = 0, i;

	if (!stack || !queued) {
		free(stack);
		free(queued);
		return -1;
	}
	w->at[f->entry] = OUT;
	stack[depth++] = f->entry;
	queued[f->entry] = 1;
	while (depth) {
		uint32_t k = stack[--depth];
		uint64_t after = other[k] ? OUT : w->mark[k] ? w->mark[k] : w->at[k];

		queued[k] = 0;
		for (i = 0; i < f->b[k].nsucc; i++) {
			uint32_t s = f->succ[f->b[k].first_succ + i];

			if ((w->at[s] | after) == w->at[s])
				continue;
			w->at[s] |= after;
			if (!queued[s]) {
				queued[s] = 1;
				stack[depth++] = s;
			}
		}
	}
	free(stack);
	free(queued);
	return 0;
}

/* Whether another kept candidate of c[i]'s copy dominates it within their
 * loop: it runs first in every iteration that reaches c[i]. */
static int follows_another(const struct flow *f, const struct work *w,
			   const struct visit_cand *c, size_t n, size_t i)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (w->kept[j] && c[j].copy == c[i].copy && w->loop[j] == w->loop[i] &&
		    c[j].block != c[i].block && flow_dominates(f, c[j].block, c[i].block))
			return 1;
	return 0;
}

int visit_starts(const struct flow *f, const char *other, struct visit_cand *c, size_t n)
{
	struct work w;
	size_t i, j;
	int ret = -1;

	w.foreign = calloc(f->nloops + 1, 1);
	w.loop = calloc(n + 1, sizeof(*w.loop));
	w.kept = calloc(n + 1, sizeof(*w.kept));
	w.mark = calloc(f->nb + 1, sizeof(*w.mark));
	w.at = calloc(f->nb + 1, sizeof(*w.at));
	if (!w.foreign || !w.loop || !w.kept || !w.mark || !w.at)
		goto out;
	for (i = 0; i < f->nloops; i++)
		for (j = 0; j < f->loops[i].nblocks && !w.foreign[i]; j++)
			w.foreign[i] = other[f->loops[i].blocks[j]];
	for (i = 0; i < n; i++) {
		c[i].start = c[i].again = 0;
		for (j = 0; j < i && c[j].copy != c[i].copy; j++)
			;
		if (j == i)	/* the first of its copy */
			keep_deepest(f, &w, c, n, i);
	}
	if (f->nb && flow_states(f, other, &w))
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t at, own = in_copy(c[i].copy);

		if (!w.kept[i])
			continue;
		at = w.at[c[i].block];
		c[i].start = (at & ~own) && !follows_another(f, &w, c, n, i);
		c[i].again = c[i].start && (at & own);
	}
	ret = 0;
out:
	free(w.foreign);
	free(w.loop);
	free(w.kept);
	free(w.mark);
	free(w.at);
	return ret;
}
