/*
 * metrics.c - totals and ranking over a merged report.
 *
 * Redundancy is WITCH's Eq. 1: waste / (waste + use), over the watchpoints
 * whose outcome was observed (a trap that judged the access wasted or
 * used). Samples that armed nothing or watchpoints that never trapped are
 * in neither term; the stats say how many there were.
 *
 * Tool rvn counts instructions instead: its redundancy is the redundant
 * executions of a kind over all executions of that kind, from its stats,
 * and its pairs weigh their redundant executions.
 */
#include "report/loop.h"
#include "report/report.h"
#include "report/share.h"

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

double wr_ratio(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

static int counts_executions(const struct wr_report *r)
{
	return r->tool && r->tool->counts_executions;
}

uint64_t wr_weight(const struct wr_report *r, const struct wr_pair *pr)
{
	return counts_executions(r) ? pr->count : wr_all_waste(pr->waste_milli, pr->approx_milli);
}

uint64_t wr_total_weight(const struct wr_report *r)
{
	return counts_executions(r) ? r->redundant : wr_all_waste(r->waste_milli, r->approx_milli);
}

double wr_share(const struct wr_report *r, const struct wr_pair *pr)
{
	return wr_ratio(wr_weight(r, pr), wr_total_weight(r));
}

const char *wr_kind_name(char kind)
{
	switch (kind) {
	case 'c':
		return "computation";
	case 'l':
		return "load";
	case 's':
		return "store";
	}
	return "access";
}

void wr_kind_totals(const struct wr_report *r, struct wr_kind_total t[WR_KINDS + 1])
{
	size_t i;

	t[WR_KINDS] = (struct wr_kind_total){ .kind = "all" };
	for (i = 0; i < WR_KINDS; i++) {
		t[i].kind = wr_kind_name(wp_rvn_kinds[i]);
		t[i].all = wr_stat(r, wp_rvn_stats[i][0], NULL);
		t[i].redundant = wr_stat(r, wp_rvn_stats[i][1], NULL);
		t[WR_KINDS].all = add_sat(t[WR_KINDS].all, t[i].all);
		t[WR_KINDS].redundant = add_sat(t[WR_KINDS].redundant, t[i].redundant);
	}
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

/* Most waste (redundant executions) first; ties broken so that output
 * does not depend on qsort. */
static int compare_rank(const void *a, const void *b, void *report)
{
	const struct wr_report *r = report;
	const struct wr_pair *x = &r->pairs[*(const uint32_t *)a];
	const struct wr_pair *y = &r->pairs[*(const uint32_t *)b];
	uint64_t wx = wr_weight(r, x), wy = wr_weight(r, y);

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
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return 0;
}

int wr_report_finish(struct wr_report *r)
{
	size_t i;

	r->waste_milli = r->use_milli = r->approx_milli = r->redundant = 0;
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
		if (counts_executions(r))
			r->redundant = add_sat(r->redundant, pr->count);
		r->ranked[r->nranked++] = (uint32_t)i;
		if (wr_weight(r, pr))
			r->nwaste++;
	}
	qsort_r(r->ranked, r->nranked, sizeof(*r->ranked), compare_rank, r);
	if (r->shares && wr_shares_finish(r))
		return -1;
	return r->loops ? wr_loops_finish(r) : 0;
}
