/*
 * loop_rank.c - after the last profile: which rows are flagged, their
 * order, and each row's loads found without a search.
 *
 * Flagged loops come first: they are the findings. Within each group
 * the rows with the most redundant reads lead, as the waste the report
 * is about; reads break ties, so that of two loops with nothing
 * redundant the busier comes first.
 */
#include "report/loop.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Ties broken by loop and context so that output does not depend on
 * qsort. */
static int compare_rows(const void *a, const void *b, void *loops)
{
	const struct wr_loops *l = loops;
	const struct wr_loop_row *x = &l->rows[*(const uint32_t *)a];
	const struct wr_loop_row *y = &l->rows[*(const uint32_t *)b];

	if (x->flagged != y->flagged)
		return x->flagged ? -1 : 1;
	if (x->redundant_reads != y->redundant_reads)
		return x->redundant_reads > y->redundant_reads ? -1 : 1;
	if (x->reads != y->reads)
		return x->reads > y->reads ? -1 : 1;
	if (x->loop != y->loop)
		return x->loop < y->loop ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return 0;
}

/* Counting sort of the loads by row: row i's loads are by_row[row_loads[i]
 * .. row_loads[i + 1]). */
static int index_loads(struct wr_loops *l)
{
	size_t i;

	free(l->by_row);
	free(l->row_loads);
	l->by_row = malloc((l->nloads ? l->nloads : 1) * sizeof(*l->by_row));
	l->row_loads = calloc(l->nrows + 2, sizeof(*l->row_loads));
	if (!l->by_row || !l->row_loads)
		return -1;
	for (i = 0; i < l->nloads; i++)
		l->row_loads[l->loads[i].row + 2]++;
	for (i = 2; i < l->nrows + 2; i++)
		l->row_loads[i] += l->row_loads[i - 1];
	/* row_loads[row + 1] is now where row's loads start; filling moves
	 * it to where they end, which is where row + 1's start. */
	for (i = 0; i < l->nloads; i++)
		l->by_row[l->row_loads[l->loads[i].row + 1]++] = (uint32_t)i;
	return 0;
}

int wr_loops_finish(struct wr_report *r)
{
	struct wr_loops *l = r->loops;
	size_t i;

	free(l->ranked);
	l->ranked = malloc((l->nrows ? l->nrows : 1) * sizeof(*l->ranked));
	if (!l->ranked || index_loads(l))
		return -1;
	l->nflagged = l->nreading = 0;
	l->redundant_reads = 0;
	for (i = 0; i < l->nrows; i++) {
		struct wr_loop_row *row = &l->rows[i];

		row->flagged = wr_loop_flagged(&r->thresholds, row);
		l->nflagged += row->flagged != 0;
		l->nreading += row->reads > 0;
		l->redundant_reads = add_sat(l->redundant_reads, row->redundant_reads);
		l->ranked[i] = (uint32_t)i;
	}
	/* A read redundant for several nested loops is in each one's row:
	 * the profile counts each once (the stat), where it has the stat. */
	{
		int present = 0;
		uint64_t once = wr_stat(r, "redundant_reads", &present);

		if (present)
			l->redundant_reads = once;
	}
	qsort_r(l->ranked, l->nrows, sizeof(*l->ranked), compare_rows, l);
	return 0;
}
