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

int wr_html_pairs(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top)
{
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
	if (!ret)
		ret = html_pair_flames(d, r, s);
	if (!ret)
		ret = html_pair_chains(d, r, s, shown);
	if (!ret)
		ret = html_pair_excerpts(d, r, s, shown);
	fputc('}', d);
	if (html_end(out, d, "pairs.js"))
		ret = -1;
	return ret;
}
