/*
 * share_json.c - tool share's report for tools: one JSON object on one
 * line, the text report's numbers with their units in their names.
 */
#include "report/render.h"
#include "report/report.h"
#include "report/share.h"
#include "report/symbolize.h"

#include <stdint.h>

static void put_milli(FILE *out, uint64_t milli)
{
	fprintf(out, "%llu.%03llu", (unsigned long long)(milli / 1000),
		(unsigned long long)(milli % 1000));
}

static void put_rate(FILE *out, const struct wr_report *r, uint64_t milli)
{
	wr_json_number(out, "%.3f", wr_share_rate(r, milli));
}

static int put_context(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		       const char *key, uint32_t ctx, int *first)
{
	const struct wr_frame *f;
	long n;

	wr_json_key(out, key, first);
	if ((n = wr_sym_context(s, ctx, &f)) < 0)
		return -1;
	wr_json_frames(out, r, f, n);
	return 0;
}

/* {"offset":8,"bytes":8,"variable":"adjacent","in_variable":8} */
static void put_access(FILE *out, struct wr_symbolizer *s, const struct wr_report *r,
		       const struct wr_share_line *l, unsigned off, unsigned len)
{
	struct wr_share_at at;
	int first = 1;

	wr_share_at(s, r, l, off, &at);
	fputc('{', out);
	wr_json_key(out, "offset", &first);
	fprintf(out, "%u", off);
	wr_json_key(out, "bytes", &first);
	fprintf(out, "%u", len);
	wr_json_key(out, "variable", &first);
	wr_json_string(out, at.place == WR_PLACE_VARIABLE ? at.variable : NULL);
	wr_json_key(out, at.place == WR_PLACE_HEAP ? "in_block" : "in_variable", &first);
	if (at.place == WR_PLACE_UNKNOWN)
		fputs("null", out);
	else
		fprintf(out, "%llu", (unsigned long long)at.offset);
	fputc('}', out);
}

static int put_line(FILE *out, struct wr_symbolizer *s, const struct wr_report *r,
		    const struct wr_share_line *l)
{
	int first = 1;

	fputc('{', out);
	wr_json_key(out, "module", &first);
	wr_json_string(out, l->module >= 0 ? r->mods[l->module].path : NULL);
	wr_json_key(out, l->module >= 0 ? "offset" : "address", &first);
	fprintf(out, "\"0x%llx\"", (unsigned long long)l->line);
	wr_json_key(out, "heap_block", &first);
	if (l->module < 0 && l->block) {
		int bfirst = 1;

		fputc('{', out);
		wr_json_key(out, "address", &bfirst);
		fprintf(out, "\"0x%llx\"", (unsigned long long)l->block);
		wr_json_key(out, "bytes", &bfirst);
		fprintf(out, "%llu", (unsigned long long)l->block_size);
		if (l->site != WR_NONE && put_context(out, r, s, "allocated_at", l->site, &bfirst))
			return -1;
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	wr_json_key(out, "first", &first);
	put_access(out, s, r, l, l->woff, l->wlen);
	wr_json_key(out, "second", &first);
	put_access(out, s, r, l, l->toff, l->tlen);
	wr_json_key(out, "weight", &first);
	put_milli(out, l->weight_milli);
	wr_json_key(out, "per_cpu_second", &first);
	put_rate(out, r, l->weight_milli);
	wr_json_key(out, "traps", &first);
	fprintf(out, "%llu", (unsigned long long)l->count);
	fputc('}', out);
	return 0;
}

static int put_pair(FILE *out, struct wr_symbolizer *s, const struct wr_report *r, uint32_t p)
{
	const struct wr_shares *sh = r->shares;
	const struct wr_pair *pr = &r->pairs[p];
	size_t i;
	int first = 1;

	fputc('{', out);
	wr_json_key(out, "kind", &first);
	wr_json_string(out, pr->kind == 't' ? "true" : "false");
	wr_json_key(out, "relation", &first);
	wr_json_string(out, wr_share_relation(pr->kind));
	wr_json_key(out, "share", &first);
	wr_json_fraction(out, wr_share(r, pr));
	wr_json_key(out, "weight", &first);
	put_milli(out, pr->waste_milli);
	wr_json_key(out, "per_cpu_second", &first);
	put_rate(out, r, pr->waste_milli);
	wr_json_key(out, "traps", &first);
	fprintf(out, "%llu", (unsigned long long)pr->count);
	if (put_context(out, r, s, "first", pr->watch, &first) ||
	    put_context(out, r, s, "second", pr->trap, &first))
		return -1;
	wr_json_key(out, "lines", &first);
	fputc('[', out);
	for (i = sh->pair_lines[p]; i < sh->pair_lines[p + 1]; i++) {
		if (i > sh->pair_lines[p])
			fputc(',', out);
		if (put_line(out, s, r, &sh->lines[sh->by_pair[i]]))
			return -1;
	}
	fputs("]}", out);
	return 0;
}

static void put_totals(FILE *out, const struct wr_report *r)
{
	const struct wr_shares *sh = r->shares;
	int first = 1;

	fputc('{', out);
	wr_json_key(out, "cpu_seconds", &first);
	wr_json_number(out, "%.6f", wr_share_cpu_seconds(r));
	wr_json_key(out, "weight", &first);
	put_milli(out, sh->false_milli + sh->true_milli);
	wr_json_key(out, "per_cpu_second", &first);
	put_rate(out, r, sh->false_milli + sh->true_milli);
	wr_json_key(out, "false_per_cpu_second", &first);
	put_rate(out, r, sh->false_milli);
	wr_json_key(out, "true_per_cpu_second", &first);
	put_rate(out, r, sh->true_milli);
	wr_json_key(out, "samples", &first);
	fprintf(out, "%llu", (unsigned long long)wr_stat(r, "samples", NULL));
	wr_json_key(out, "traps", &first);
	fprintf(out, "%llu", (unsigned long long)wr_stat(r, "traps", NULL));
	wr_json_key(out, "threads", &first);
	fprintf(out, "%zu", r->nthreads);
	wr_json_key(out, "most_threads_in_a_process", &first);
	fprintf(out, "%zu", sh->most_threads);
	wr_json_key(out, "pairs_found", &first);
	fprintf(out, "%zu", r->nwaste);
	wr_json_stats(out, r, &first);
	fputc('}', out);
}

int wr_share_render_json(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			 size_t top)
{
	size_t shown = top && top < r->nranked ? top : r->nranked, i;
	int first = 1;

	wr_json_head(out, r, &first);
	wr_json_key(out, "totals", &first);
	put_totals(out, r);
	wr_json_key(out, "pairs", &first);
	fputc('[', out);
	for (i = 0; i < shown; i++) {
		if (i)
			fputc(',', out);
		if (put_pair(out, s, r, r->ranked[i]))
			return -1;
	}
	fputs("]}\n", out);
	return 0;
}
