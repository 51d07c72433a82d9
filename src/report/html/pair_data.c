/*
 * pair_data.c - what the pages of pairs (pairs.c, share.c) embed alike
 * (page.h): the shown pairs' contexts on one line each, source around
 * the top pairs' accesses, and the flame graphs of every pair.
 */
#include "report/html/page.h"
#include "report/render.h"
#include "report/report.h"
#include "report/source.h"

int html_pair_chains(FILE *data, const struct wr_report *r, struct wr_symbolizer *s, size_t n)
{
	size_t i;
	int ret = 0;

	fputs(",\"chains\":[", data);
	for (i = 0; i < n && !ret; i++) {
		fputs(i ? ",[" : "[", data);
		ret = html_chain(data, r, s, r->pairs[r->ranked[i]].watch);
		fputc(',', data);
		if (!ret)
			ret = html_chain(data, r, s, r->pairs[r->ranked[i]].trap);
		fputc(']', data);
	}
	fputc(']', data);
	return ret;
}

int html_pair_excerpts(FILE *data, const struct wr_report *r, struct wr_symbolizer *s, size_t n)
{
	struct wr_sources src = { 0 };
	size_t i;
	int ret = 0;

	fputs(",\"excerpts\":[", data);
	for (i = 0; i < n && i < HTML_EXCERPT_PAIRS && !ret; i++) {
		const struct wr_pair *pr = &r->pairs[r->ranked[i]];

		fputs(i ? ",[" : "[", data);
		ret = html_context_excerpt(data, s, &src, pr->watch);
		fputc(',', data);
		if (!ret)
			ret = html_context_excerpt(data, s, &src, pr->trap);
		fputc(']', data);
	}
	fputc(']', data);
	wr_sources_free(&src);
	return ret;
}

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

int html_pair_flames(FILE *data, const struct wr_report *r, struct wr_symbolizer *s)
{
	struct folded_by by = { r, s, 0 };
	int ret;

	fputs(",\"flame\":{\"first\":", data);
	ret = html_flame(data, folded, &by);
	by.second = 1;
	fputs(",\"second\":", data);
	if (!ret)
		ret = html_flame(data, folded, &by);
	fputc('}', data);
	return ret;
}
