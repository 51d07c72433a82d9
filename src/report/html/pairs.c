/*
 * pairs.c - the HTML page of record and spy profiles (dead, silent,
 * load, and rvn's pairs): the JSON report, the tool's words, each shown
 * pair's contexts on one line as the text report writes them, the flame
 * graphs of all pairs by each context, and source excerpts around the
 * top pairs' accesses; pairs.js draws them.
 */
#include "report/html/html.h"
#include "report/html/page.h"
#include "report/render.h"
#include "report/report.h"
#include "report/source.h"
#include "report/symbolize.h"

#include <string.h>

/* Pairs whose accesses get source excerpts. */
#define EXCERPT_PAIRS 20

struct folded_by {
	const struct wr_report *r;
	struct wr_symbolizer *s;
	int second;
};

static int folded(FILE *out, void *arg)
{
	const struct folded_by *f = arg;

	return wr_render_folded(out, f->r, f->s, f->second);
}

/* "chains":[[first, second] of each shown pair]. */
static int put_chains(FILE *d, const struct wr_report *r, struct wr_symbolizer *s, size_t n)
{
	size_t i;
	int ret = 0;

	fputs(",\"chains\":[", d);
	for (i = 0; i < n && !ret; i++) {
		fputs(i ? ",[" : "[", d);
		ret = html_chain(d, r, s, r->pairs[r->ranked[i]].watch);
		fputc(',', d);
		if (!ret)
			ret = html_chain(d, r, s, r->pairs[r->ranked[i]].trap);
		fputc(']', d);
	}
	fputc(']', d);
	return ret;
}

static void put_words(FILE *d, const struct wr_tool *t)
{
	int first = 1;

	wr_json_key(d, "words", &first);
	fputc('{', d);
	first = 1;
	wr_json_key(d, "what", &first);
	wr_json_string(d, t->what);
	wr_json_key(d, "method", &first);
	wr_json_string(d, t->method);
	wr_json_key(d, "relation", &first);
	wr_json_string(d, t->relation);
	wr_json_key(d, "fraction", &first);
	wr_json_string(d, t->fraction);
	wr_json_key(d, "access", &first);
	wr_json_string(d, t->access);
	wr_json_key(d, "accessed", &first);
	wr_json_string(d, t->accessed);
	wr_json_key(d, "exhaustive", &first);
	fputs(t->exhaustive ? "true" : "false", d);
	wr_json_key(d, "counts_executions", &first);
	fputs(t->counts_executions ? "true" : "false", d);
	fputc('}', d);
}

static int put_excerpts(FILE *d, const struct wr_report *r, struct wr_symbolizer *s, size_t n)
{
	struct wr_sources src = { 0 };
	size_t i;
	int ret = 0;

	fputs(",\"excerpts\":[", d);
	for (i = 0; i < n && !ret; i++) {
		const struct wr_pair *pr = &r->pairs[r->ranked[i]];

		fputs(i ? ",[" : "[", d);
		ret = html_context_excerpt(d, s, &src, pr->watch);
		fputc(',', d);
		if (!ret)
			ret = html_context_excerpt(d, s, &src, pr->trap);
		fputc(']', d);
	}
	fputc(']', d);
	wr_sources_free(&src);
	return ret;
}

int wr_html_pairs(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top)
{
	struct folded_by by = { r, s, 0 };
	/* The pairs shown, as in the text report: those with waste. */
	size_t shown = top && top < r->nwaste ? top : r->nwaste;
	FILE *d;
	int ret;

	if (!(d = html_begin_report(out, r)))
		return -1;
	ret = wr_render_json(d, r, s, top);
	fputc(',', d);
	put_words(d, r->tool);
	/* The flame graph weighs every pair, not only those listed. */
	fputs(",\"flame\":{\"first\":", d);
	if (!ret)
		ret = html_flame(d, folded, &by);
	by.second = 1;
	fputs(",\"second\":", d);
	if (!ret)
		ret = html_flame(d, folded, &by);
	fputc('}', d);
	if (!ret)
		ret = put_chains(d, r, s, shown);
	if (!ret)
		ret = put_excerpts(d, r, s, shown < EXCERPT_PAIRS ? shown : EXCERPT_PAIRS);
	fputc('}', d);
	if (html_end(out, d, "pairs.js"))
		ret = -1;
	return ret;
}
