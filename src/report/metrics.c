/*
 * metrics.c - totals and ranking over a merged report.
 *
 * Redundancy is WITCH's Eq. 1: waste / (waste + use), over the watchpoints
 * whose outcome was observed (a trap that judged the access wasted or
 * used). Samples that armed nothing or watchpoints that never trapped are
 * in neither term; the stats say how many there were.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

uint64_t wr_stat(const struct wr_report *r, const char *name, int *present)
{
	size_t i;

	for (i = 0; i < r->nstats; i++) {
		if (!strcmp(r->stats[i].name, name)) {
			if (present)
				*present = 1;
			return r->stats[i].value;
		}
	}
	if (present)
		*present = 0;
	return 0;
}

double wr_redundancy(uint64_t waste_milli, uint64_t use_milli)
{
	double w = (double)waste_milli, u = (double)use_milli;

	return w + u > 0 ? w / (w + u) : 0.0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t wr_all_waste(uint64_t waste_milli, uint64_t approx_milli)
{
	return add_sat(waste_milli, approx_milli);
}

/* Share of all waste, exact and approximate together. */
double wr_share(const struct wr_report *r, const struct wr_pair *pr)
{
	uint64_t all = wr_all_waste(r->waste_milli, r->approx_milli);

	return all ? (double)wr_all_waste(pr->waste_milli, pr->approx_milli) / (double)all : 0.0;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and deduplicate: a tid may have several sections in one profile. */
static size_t unique_tids(uint64_t *tids, size_t n)
{
	size_t i, m = 0;

	qsort(tids, n, sizeof(*tids), compare_u64);
	for (i = 0; i < n; i++)
		if (m == 0 || tids[m - 1] != tids[i])
			tids[m++] = tids[i];
	return m;
}

/* Most waste first; ties broken so that output does not depend on qsort. */
static int compare_rank(const void *a, const void *b, void *pairs)
{
	const struct wr_pair *x = (struct wr_pair *)pairs + *(const uint32_t *)a;
	const struct wr_pair *y = (struct wr_pair *)pairs + *(const uint32_t *)b;

	uint64_t wx = wr_all_waste(x->waste_milli, x->approx_milli);
	uint64_t wy = wr_all_waste(y->waste_milli, y->approx_milli);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->use_milli != y->use_milli)
		return x->use_milli > y->use_milli ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->watch != y->watch)
		return x->watch < y->watch ? -1 : 1;
	if (x->trap != y->trap)
		return x->trap < y->trap ? -1 : 1;
	return 0;
}

int wr_report_finish(struct wr_report *r)
{
	size_t i;

	r->waste_milli = r->use_milli = r->approx_milli = 0;
	r->nthreads = 0;
	for (i = 0; i < r->nprocs; i++) {
		r->procs[i].ntids = unique_tids(r->procs[i].tids,
						r->procs[i].ntids);
		r->nthreads += r->procs[i].ntids;
	}
	free(r->ranked);
	r->ranked = malloc((r->npairs ? r->npairs : 1) * sizeof(*r->ranked));
	if (!r->ranked)
		return -1;
	r->nranked = r->nwaste = 0;
	for (i = 0; i < r->npairs; i++) {
		const struct wr_pair *pr = &r->pairs[i];

		r->waste_milli = add_sat(r->waste_milli, pr->waste_milli);
		r->use_milli = add_sat(r->use_milli, pr->use_milli);
		r->approx_milli = add_sat(r->approx_milli, pr->approx_milli);
		r->ranked[r->nranked++] = (uint32_t)i;
		if (pr->waste_milli || pr->approx_milli)
			r->nwaste++;
	}
	qsort_r(r->ranked, r->nranked, sizeof(*r->ranked), compare_rank,
		r->pairs);
	return 0;
}
