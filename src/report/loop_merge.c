/*
 * loop_merge.c - fold tool loop's loops and records into the report: the
 * same loop (module, header) from any process is one loop, the same loop
 * in the same calling context one row, and a row's loads are one per
 * load context.
 */
#include "report/grow.h"
#include "report/loop.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

/* Counters from many processes must not wrap into small numbers. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The report loop at (module, header); a new one takes the profile's
 * lines and file (every process has them from the same loop map). */
static int intern_loop(struct wr_loops *l, int32_t module, const struct wp_loop *pl,
		       uint32_t *out)
{
	uint64_t a = (uint32_t)module;
	struct wr_loop *nl;

	if (wr_map_get(&l->loop_map, a, pl->header, out))
		return 0;
	if (l->nloops >= WR_NONE ||
	    wr_grow((void **)&l->loops, &l->cap_loops, l->nloops + 1, sizeof(*l->loops)))
		return -1;
	nl = &l->loops[l->nloops];
	memset(nl, 0, sizeof(*nl));
	nl->module = module;
	nl->header = pl->header;
	nl->parent = WR_NONE;
	nl->depth = pl->depth;
	nl->first_line = pl->first_line;
	nl->last_line = pl->last_line;
	if ((pl->file && !(nl->file = strdup(pl->file))) ||
	    wr_map_put(&l->loop_map, a, pl->header, (uint32_t)l->nloops)) {
		free(nl->file);
		return -1;
	}
	*out = (uint32_t)l->nloops++;
	return 0;
}

int wr_loops_add(struct wr_report *r, const struct wp_profile *p, const int32_t *modmap,
		 uint32_t **lmap)
{
	struct wr_loops *l = r->loops;
	size_t i;

	*lmap = NULL;
	if (!l && !(l = r->loops = calloc(1, sizeof(*l))))
		return -1;
	*lmap = calloc(p->nloops ? p->nloops : 1, sizeof(**lmap));
	if (!*lmap)
		return -1;
	for (i = 0; i < p->nloops; i++)
		if (intern_loop(l, modmap[p->loops[i].module], &p->loops[i], &(*lmap)[i]))
			return -1;
	/* Parents once every loop has its index; the first profile that
	 * describes a loop says where it is nested. */
	for (i = 0; i < p->nloops; i++) {
		struct wr_loop *nl = &l->loops[(*lmap)[i]];

		if (p->loops[i].parent >= 0 && nl->parent == WR_NONE)
			nl->parent = (*lmap)[p->loops[i].parent];
	}
	return 0;
}

static int find_row(struct wr_loops *l, uint32_t loop, uint32_t ctx, uint32_t *out)
{
	struct wr_loop_row *row;

	if (wr_map_get(&l->row_map, loop, ctx, out))
		return 0;
	if (l->nrows >= WR_NONE ||
	    wr_grow((void **)&l->rows, &l->cap_rows, l->nrows + 1, sizeof(*l->rows)) ||
	    wr_map_put(&l->row_map, loop, ctx, (uint32_t)l->nrows))
		return -1;
	row = &l->rows[l->nrows];
	memset(row, 0, sizeof(*row));
	row->loop = loop;
	row->ctx = ctx;
	*out = (uint32_t)l->nrows++;
	return 0;
}

static int add_load(struct wr_loops *l, uint32_t row, uint32_t load, uint64_t redundant_reads)
{
	struct wr_loop_load *ld;
	uint32_t idx;

	if (!wr_map_get(&l->load_map, row, load, &idx)) {
		if (l->nloads >= WR_NONE ||
		    wr_grow((void **)&l->loads, &l->cap_loads, l->nloads + 1, sizeof(*l->loads)) ||
		    wr_map_put(&l->load_map, row, load, (uint32_t)l->nloads))
			return -1;
		idx = (uint32_t)l->nloads++;
		ld = &l->loads[idx];
		ld->row = row;
		ld->load = load;
		ld->redundant_reads = 0;
	}
	ld = &l->loads[idx];
	ld->redundant_reads = add_sat(ld->redundant_reads, redundant_reads);
	return 0;
}

int wr_loops_add_thread(struct wr_report *r, const struct wp_thread *t, const uint32_t *lmap,
			const uint32_t *ctxof)
{
	struct wr_loops *l = r->loops;
	uint32_t i, row;

	for (i = 0; i < t->nloop_recs; i++) {
		const struct wp_loop_rec *rec = &t->loop_recs[i];
		struct wr_loop_row *w;

		if (find_row(l, lmap[rec->loop], ctxof[rec->node], &row))
			return -1;
		w = &l->rows[row];
		w->invocations = add_sat(w->invocations, rec->invocations);
		w->iterations = add_sat(w->iterations, rec->iterations);
		w->data_iterations = add_sat(w->data_iterations, rec->data_iterations);
		w->redundant_iterations = add_sat(w->redundant_iterations, rec->redundant_iterations);
		w->reads = add_sat(w->reads, rec->reads);
		w->redundant_reads = add_sat(w->redundant_reads, rec->redundant_reads);
	}
	/* An x record without its l record still makes a row: its reads
	 * are not lost, though the loop's counters are unknown (zero). */
	for (i = 0; i < t->nloop_reads; i++) {
		const struct wp_loop_read *rd = &t->loop_reads[i];

		if (find_row(l, lmap[rd->loop], ctxof[rd->node], &row) ||
		    add_load(l, row, ctxof[rd->load], rd->redundant_reads))
			return -1;
	}
	return 0;
}

void wr_loops_free(struct wr_loops *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nloops; i++)
		free(l->loops[i].file);
	free(l->loops);
	free(l->rows);
	free(l->loads);
	free(l->ranked);
	free(l->by_row);
	free(l->row_loads);
	wr_map_free(&l->loop_map);
	wr_map_free(&l->row_map);
	wr_map_free(&l->load_map);
	free(l);
}
