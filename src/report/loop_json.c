/*
 * loop_json.c - tool loop's report for tools: one JSON object on one
 * line, every loop in every calling context (those that read nothing
 * too), in the text report's order.
 */
#include "report/loop.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdint.h>

static void put_u64(FILE *out, const char *key, uint64_t v, int *first)
{
	wr_json_key(out, key, first);
	fprintf(out, "%llu", (unsigned long long)v);
}

/* A line number, null when unknown (0). */
static void put_line(FILE *out, const char *key, uint32_t line, int *first)
{
	wr_json_key(out, key, first);
	if (line)
		fprintf(out, "%u", line);
	else
		fputs("null", out);
}

static void put_thresholds(FILE *out, const struct wr_report *r, int *first)
{
	char buf[24];
	int tfirst = 1;

	wr_json_key(out, "thresholds", first);
	fputc('{', out);
	put_u64(out, "a", r->thresholds.a, &tfirst);
	/* The profile's decimals exactly: "0.9", not 0.900000. */
	wr_json_key(out, "r", &tfirst);
	fputs(wr_loop_fraction(r->thresholds.r, buf, sizeof(buf)), out);
	wr_json_key(out, "ri", &tfirst);
	fputs(wr_loop_fraction(r->thresholds.ri, buf, sizeof(buf)), out);
	fputc('}', out);
}

static void put_totals(FILE *out, const struct wr_report *r, int *first)
{
	const struct wr_loops *l = r->loops;
	uint64_t reads = wr_stat(r, "reads", NULL);
	int tfirst = 1;

	wr_json_key(out, "totals", first);
	fputc('{', out);
	put_u64(out, "reads", reads, &tfirst);
	put_u64(out, "reads_in_loops", wr_stat(r, "reads_in_loops", NULL), &tfirst);
	put_u64(out, "redundant_reads", l->redundant_reads, &tfirst);
	wr_json_key(out, "redundant_share", &tfirst);
	wr_json_fraction(out, wr_ratio(l->redundant_reads, reads));
	put_u64(out, "reads_untracked", wr_stat(r, "reads_untracked", NULL), &tfirst);
	put_u64(out, "loops_untracked", wr_stat(r, "loops_untracked", NULL), &tfirst);
	put_u64(out, "reads_unattributed", wr_stat(r, "reads_unattributed", NULL), &tfirst);
	put_u64(out, "modules_unmapped", wr_stat(r, "modules_unmapped", NULL), &tfirst);
	put_u64(out, "loops", l->nrows, &tfirst);
	put_u64(out, "loops_reading", l->nreading, &tfirst);
	put_u64(out, "loops_flagged", l->nflagged, &tfirst);
	put_u64(out, "threads", r->nthreads, &tfirst);
	wr_json_stats(out, r, &tfirst);
	fputc('}', out);
}

/* {"file","first_line","last_line"} of the enclosing loop, or null. */
static void put_parent(FILE *out, const struct wr_report *r, const struct wr_loop *lp,
		       int *first)
{
	const struct wr_loop *up;
	int pfirst = 1;

	wr_json_key(out, "parent", first);
	if (lp->parent == WR_NONE) {
		fputs("null", out);
		return;
	}
	up = &r->loops->loops[lp->parent];
	fputc('{', out);
	wr_json_key(out, "file", &pfirst);
	wr_json_string(out, up->file);
	put_line(out, "first_line", up->first_line, &pfirst);
	put_line(out, "last_line", up->last_line, &pfirst);
	fputc('}', out);
}

static int put_top_reads(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			 uint32_t rowi, int *first)
{
	struct wr_loop_site sites[WR_LOOP_TOP_READS];
	long n = wr_loop_top_reads(s, r, rowi, sites, WR_LOOP_TOP_READS), i;

	if (n < 0)
		return -1;
	wr_json_key(out, "top_reads", first);
	fputc('[', out);
	for (i = 0; i < n; i++) {
		int sfirst = 1;

		fputs(i ? ",{" : "{", out);
		wr_json_key(out, "function", &sfirst);
		wr_json_string(out, sites[i].function);
		wr_json_key(out, "file", &sfirst);
		wr_json_string(out, sites[i].file);
		put_line(out, "line", (uint32_t)sites[i].line, &sfirst);
		wr_json_key(out, "module", &sfirst);
		wr_json_string(out, sites[i].module >= 0 ? r->mods[sites[i].module].path : NULL);
		wr_json_key(out, "offset", &sfirst);
		fprintf(out, "\"0x%llx\"", (unsigned long long)sites[i].offset);
		put_u64(out, "redundant_reads", sites[i].redundant_reads, &sfirst);
		fputc('}', out);
	}
	fputc(']', out);
	return 0;
}

static int put_row(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, uint32_t rowi)
{
	const struct wr_loop_row *row = &r->loops->rows[rowi];
	const struct wr_loop *lp = &r->loops->loops[row->loop];
	const struct wr_frame *f;
	long n = wr_sym_context(s, row->ctx, &f);
	int first = 1;

	if (n < 0)
		return -1;
	fputc('{', out);
	wr_json_key(out, "function", &first);
	wr_json_string(out, n > 0 ? f[0].function : NULL);
	wr_json_key(out, "file", &first);
	wr_json_string(out, lp->file);
	put_line(out, "first_line", lp->first_line, &first);
	put_line(out, "last_line", lp->last_line, &first);
	wr_json_key(out, "module", &first);
	wr_json_string(out, r->mods[lp->module].path);
	wr_json_key(out, "header", &first);
	fprintf(out, "\"0x%llx\"", (unsigned long long)lp->header);
	put_u64(out, "depth", lp->depth, &first);
	wr_json_key(out, "context", &first);
	wr_json_frames(out, r, f, n);
	put_u64(out, "invocations", row->invocations, &first);
	put_u64(out, "iterations", row->iterations, &first);
	put_u64(out, "data_iterations", row->data_iterations, &first);
	put_u64(out, "redundant_iterations", row->redundant_iterations, &first);
	wr_json_key(out, "ratio", &first);
	wr_json_fraction(out, wr_ratio(row->redundant_iterations, row->data_iterations));
	put_u64(out, "reads", row->reads, &first);
	wr_json_key(out, "reads_per_iteration", &first);
	wr_json_number(out, "%.3f", row->iterations ? (double)row->reads / (double)row->iterations : 0);
	put_u64(out, "redundant_reads", row->redundant_reads, &first);
	wr_json_key(out, "redundant_share", &first);
	wr_json_fraction(out, wr_ratio(row->redundant_reads, row->reads));
	wr_json_key(out, "flagged", &first);
	fputs(row->flagged ? "true" : "false", out);
	put_parent(out, r, lp, &first);
	if (put_top_reads(out, r, s, rowi, &first))
		return -1;
	fputc('}', out);
	return 0;
}

int wr_loop_render_json(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			size_t top)
{
	const struct wr_loops *l = r->loops;
	size_t shown = top && top < l->nrows ? top : l->nrows, i;
	int first = 1;

	fputc('{', out);
	wr_json_key(out, "tool", &first);
	wr_json_string(out, r->tool->name);
	put_thresholds(out, r, &first);
	wr_json_key(out, "source", &first);
	wr_json_string(out, r->source);
	wr_json_key(out, "command", &first);
	wr_json_args(out, &r->procs[0]);
	fputc(',', out);
	wr_json_processes(out, r);
	put_totals(out, r, &first);
	wr_json_key(out, "loops", &first);
	fputc('[', out);
	for (i = 0; i < shown; i++) {
		if (i)
			fputc(',', out);
		if (put_row(out, r, s, l->ranked[i]))
			return -1;
	}
	fputs("]}\n", out);
	return 0;
}
