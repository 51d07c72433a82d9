/*
 * by_rank.c - --by-rank: each top pair's weight in each rank (ranks.h).
 *
 * The spread over the ranks is computed after the ranking, by reading the
 * merged profiles a second time: only the pairs shown are summed per rank, so
 * memory stays that of the merged report plus top pairs times ranks,
 * however many ranks and pairs the profiles hold.
 */
#include "report/err.h"
#include "report/ranks.h"
#include "report/report.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int by_rank(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The second reading's state. */
struct pass {
	struct wr_report *r;
	struct wr_ranks *k;
	uint32_t *slot;		/* report pair -> ranked position, WR_NONE: not spread */
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The report's context of each node, WR_NONE where the report has none
 * (a profile rewritten since the first reading). */
static void locate(const struct wr_report *r, const struct wp_thread *t, const int32_t *modmap,
		   uint32_t *ctxof)
{
	uint32_t i;

	for (i = 0; i < t->nnodes; i++) {
		const struct wp_node *n = &t->nodes[i];
		int32_t mod = n->module < 0 ? -1 : modmap[n->module];

		if (n->parent < 0)
			ctxof[i] = WR_ROOT;
		else if (ctxof[n->parent] == WR_NONE || (n->module >= 0 && mod < 0) ||
			 wr_find_ctx(r, ctxof[n->parent], mod, n->offset, &ctxof[i]))
			ctxof[i] = WR_NONE;
	}
}

static int add_profile(void *ctx, const struct wp_profile *p, char *err, size_t errlen)
{
	struct pass *ps = ctx;
	const int64_t *at;
	int32_t *modmap;
	uint32_t *ctxof, maxnodes = 1;
	size_t i, j, ri;

	at = bsearch(&p->rank, ps->k->ranks, ps->k->nranks, sizeof(*at), by_rank);
	if (!at)
		return 0;	/* rewritten since the first reading */
	ri = (size_t)(at - ps->k->ranks);
	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].nnodes > maxnodes)
			maxnodes = p->threads[i].nnodes;
	modmap = malloc((p->nmodules ? p->nmodules : 1) * sizeof(*modmap));
	ctxof = malloc(maxnodes * sizeof(*ctxof));
	if (!modmap || !ctxof) {
		free(modmap);
		free(ctxof);
		return rp_error(err, errlen, "out of memory while reading the profiles by rank");
	}
	for (i = 0; i < p->nmodules; i++)
		modmap[i] = wr_find_module(ps->r, p->modules[i].path, p->modules[i].build_id);
	for (i = 0; i < p->nthreads; i++) {
		const struct wp_thread *t = &p->threads[i];

		locate(ps->r, t, modmap, ctxof);
		for (j = 0; j < t->npairs; j++) {
			const struct wp_pair *wp = &t->pairs[j];
			struct wr_pair one = { 0 };
			uint32_t pr, k;
			uint64_t *w;

			if (ctxof[wp->watch] == WR_NONE || ctxof[wp->trap] == WR_NONE)
				continue;
			pr = wr_find_pair(ps->r, ctxof[wp->watch], ctxof[wp->trap], wp->kind);
			if (pr == WR_NONE || (k = ps->slot[pr]) == WR_NONE)
				continue;
			one.waste_milli = wp->waste_milli;
			one.approx_milli = wp->approx_milli;
			one.count = wp->count;
			w = &ps->k->weight[k * ps->k->nranks + ri];
			*w = add_sat(*w, wr_weight(ps->r, &one));
		}
	}
	free(modmap);
	free(ctxof);
	return 0;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Min, median and max of one pair's row, and the ranks at the ends. */
static void spread(struct wr_ranks *k, size_t pair, uint64_t *sorted)
{
	const uint64_t *row = &k->weight[pair * k->nranks];
	struct wr_rank_spread *s = &k->spread[pair];
	size_t n = k->nranks, i;

	memcpy(sorted, row, n * sizeof(*row));
	qsort(sorted, n, sizeof(*sorted), by_value);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? (double)sorted[n / 2]
			  : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
	s->at_min = s->at_max = 0;
	for (i = n; i-- > 0;) {
		if (row[i] == s->min) {
			s->min_rank = k->ranks[i];
			s->at_min++;
		}
		if (row[i] == s->max) {
			s->max_rank = k->ranks[i];
			s->at_max++;
		}
	}
}

int wr_by_rank(struct wr_report *r, size_t top, char *err, size_t errlen)
{
	struct pass ps = { r, NULL, NULL };
	uint64_t *sorted = NULL;
	char **files = NULL;
	size_t unranked, i;
	long n;
	int ret = -1;

	ps.k = calloc(1, sizeof(*ps.k));
	if (!ps.k || (n = wr_rank_list(r, &ps.k->ranks, &unranked)) < 0)
		goto oom;
	ps.k->nranks = (size_t)n;
	if (unranked) {
		rp_error(err, errlen, "--by-rank compares the ranks of a parallel job, but %zu of "
			 "the %zu processes have no rank (no launcher started them: mpirun, srun); "
			 "report those apart, or use --pid", unranked, r->nprocs);
		goto out;
	}
	ps.k->npairs = top && top < r->nranked ? top : r->nranked;
	if (!ps.k->nranks)
		ps.k->npairs = 0;
	ps.k->spread = calloc(ps.k->npairs ? ps.k->npairs : 1, sizeof(*ps.k->spread));
	ps.k->weight = calloc(ps.k->npairs * ps.k->nranks + 1, sizeof(*ps.k->weight));
	ps.slot = malloc((r->npairs ? r->npairs : 1) * sizeof(*ps.slot));
	sorted = malloc((ps.k->nranks ? ps.k->nranks : 1) * sizeof(*sorted));
	files = malloc((r->nprocs ? r->nprocs : 1) * sizeof(*files));
	if (!ps.k->spread || !ps.k->weight || !ps.slot || !sorted || !files || r->nprocs > INT_MAX)
		goto oom;
	/* The files merged: one per process, not what the paths hold now. */
	for (i = 0; i < r->nprocs; i++)
		files[i] = r->procs[i].file;
	for (i = 0; i < r->npairs; i++)
		ps.slot[i] = WR_NONE;
	for (i = 0; i < ps.k->npairs; i++)
		ps.slot[r->ranked[i]] = (uint32_t)i;
	if (ps.k->npairs && wr_load_each(files, (int)r->nprocs, add_profile, &ps, err, errlen))
		goto out;
	for (i = 0; i < ps.k->npairs; i++)
		spread(ps.k, i, sorted);
	r->ranks = ps.k;
	ps.k = NULL;
	ret = 0;
	goto out;
oom:
	rp_error(err, errlen, "out of memory while summing the pairs by rank");
out:
	wr_ranks_free(ps.k);
	free(ps.slot);
	free(sorted);
	free(files);
	return ret;
}
