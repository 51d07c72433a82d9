/*
 * loop_sites.c - a row's redundant loads as people look for them: the
 * function, file and line of each load (the leaf of its context), those
 * that several contexts or instructions share merged into one.
 *
 * The x records name each load by a context (witchspy's have one frame,
 * the instruction); the report lists instructions' lines, because that
 * is what one goes to fix.
 */
#include "report/loop.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdlib.h>
#include <string.h>

/* Sites are accumulated with the largest single contribution, whose
 * offset stands for the site (stands_before). */
struct site {
	struct wr_loop_site s;
	uint64_t largest;
};

static int compare_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* One site per (function, file, line); unsymbolized loads, with neither
 * function nor file, one per instruction. */
static int compare_key(const void *a, const void *b)
{
	const struct wr_loop_site *x = &((const struct site *)a)->s;
	const struct wr_loop_site *y = &((const struct site *)b)->s;
	int c;

	if ((c = compare_str(x->function, y->function)) || (c = compare_str(x->file, y->file)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->function || x->file)
		return 0;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int compare_reads(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->s.redundant_reads != y->s.redundant_reads)
		return x->s.redundant_reads > y->s.redundant_reads ? -1 : 1;
	return compare_key(a, b);
}

/* The load's leaf frame: the instruction itself, innermost inlined
 * function first. */
static int load_site(struct wr_symbolizer *s, const struct wr_report *r,
		     const struct wr_loop_load *ld, struct site *out)
{
	const struct wr_frame *f;
	long n = wr_sym_context(s, ld->load, &f);

	if (n < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->s.module = r->ctxs[ld->load].module;
	out->s.offset = r->ctxs[ld->load].offset;
	if (n > 0) {
		out->s.function = f[0].function;
		out->s.file = f[0].file;
		out->s.line = f[0].line;
	}
	out->s.redundant_reads = ld->redundant_reads;
	out->largest = ld->redundant_reads;
	return 0;
}

/* Does x's offset stand for their site rather than y's: the larger
 * contribution, or of equal ones the first instruction, whatever order
 * the profile listed them in. */
static int stands_before(const struct site *x, const struct site *y)
{
	if (x->largest != y->largest)
		return x->largest > y->largest;
	if (x->s.module != y->s.module)
		return x->s.module < y->s.module;
	return x->s.offset < y->s.offset;
}

long wr_loop_top_reads(struct wr_symbolizer *s, const struct wr_report *r, uint32_t row,
		       struct wr_loop_site *out, size_t max)
{
	const struct wr_loops *l = r->loops;
	size_t first = l->row_loads[row], n = l->row_loads[row + 1] - first, i, m = 0;
	struct site *sites;

	if (n == 0)
		return 0;
	sites = malloc(n * sizeof(*sites));
	if (!sites)
		return -1;
	for (i = 0; i < n; i++) {
		if (load_site(s, r, &l->loads[l->by_row[first + i]], &sites[i])) {
			free(sites);
			return -1;
		}
	}
	qsort(sites, n, sizeof(*sites), compare_key);
	/* Equal keys are adjacent now: fold each run into its first. */
	for (i = 0; i < n; i++) {
		struct site *into = m ? &sites[m - 1] : NULL;

		if (into && !compare_key(into, &sites[i])) {
			uint64_t room = UINT64_MAX - into->s.redundant_reads;

			into->s.redundant_reads += sites[i].s.redundant_reads < room
						   ? sites[i].s.redundant_reads : room;
			if (stands_before(&sites[i], into)) {
				into->largest = sites[i].largest;
				into->s.offset = sites[i].s.offset;
				into->s.module = sites[i].s.module;
			}
			continue;
		}
		sites[m++] = sites[i];
	}
	qsort(sites, m, sizeof(*sites), compare_reads);
	for (i = 0; i < m && i < max; i++)
		out[i] = sites[i].s;
	free(sites);
	return (long)i;
}

int wr_loop_sym_shown(struct wr_symbolizer *s, const struct wr_report *r, size_t top)
{
	const struct wr_loops *l = r->loops;
	const struct wr_frame *f;
	size_t i, j;

	for (i = 0; i < l->nrows && (!top || i < top); i++) {
		uint32_t row = l->ranked[i];

		if (wr_sym_context(s, l->rows[row].ctx, &f) < 0)
			return -1;
		for (j = l->row_loads[row]; j < l->row_loads[row + 1]; j++)
			if (wr_sym_context(s, l->loads[l->by_row[j]].load, &f) < 0)
				return -1;
	}
	return 0;
}
