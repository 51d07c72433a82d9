/*
 * share.c - the HTML page of tool share's profiles (witch record
 * --craft=share): the JSON report; the text report's lines on how they
 * were sampled, the processes, the caveats and how to read a finding;
 * each shown pair's contexts on one line, and the call that allocated
 * each heap block it was seen in; source around the top pairs' accesses
 * and allocations; the flame graphs of all sharing by each context.
 * share.js draws them.
 */
#include "report/html/html.h"
#include "report/html/page.h"
#include "report/render.h"
#include "report/report.h"
#include "report/share.h"
#include "report/source.h"

static int sampling(FILE *out, void *arg)
{
	wr_text_source(out, arg);
	return 0;
}

static int processes(FILE *out, void *arg)
{
	wr_text_processes(out, arg);
	wr_text_command(out, arg);
	return 0;
}

static int caveats(FILE *out, void *arg)
{
	wr_text_caveats(out, arg);
	return 0;
}

static int reading(FILE *out, void *arg)
{
	(void)arg;
	wr_share_reading(out);
	return 0;
}

/* The text report's lines, each a JSON string: "key":"...". */
static int put_text(FILE *d, const char *key, int (*render)(FILE *out, void *arg),
		    const struct wr_report *r)
{
	fprintf(d, ",\"%s\":", key);
	return html_json_output(d, render, (void *)r);
}

/* A heap line's allocating context, as share_json.c's allocated_at
 * gives it: WR_NONE when the line has none. */
static uint32_t site_of(const struct wr_share_line *l)
{
	return l->module < 0 && l->block ? l->site : WR_NONE;
}

/* "sites":[for each of the first n ranked pairs, [for each of its lines
 * in the JSON report's order, its allocating context on one line, or
 * null]]. */
static int put_sites(FILE *d, const struct wr_report *r, struct wr_symbolizer *s, size_t n)
{
	const struct wr_shares *sh = r->shares;
	size_t i, j;
	int ret = 0;

	fputs(",\"sites\":[", d);
	for (i = 0; i < n && !ret; i++) {
		uint32_t p = r->ranked[i];

		fputs(i ? ",[" : "[", d);
		for (j = sh->pair_lines[p]; j < sh->pair_lines[p + 1] && !ret; j++) {
			uint32_t site = site_of(&sh->lines[sh->by_pair[j]]);

			if (j > sh->pair_lines[p])
				fputc(',', d);
			if (site == WR_NONE)
				fputs("null", d);
			else
				ret = html_chain(d, r, s, site);
		}
		fputc(']', d);
	}
	fputc(']', d);
	return ret;
}

/* "alloc_excerpts":[for each of the top pairs, the source around the
 * allocating call of its first line with one, or null]. */
static int put_alloc_excerpts(FILE *d, const struct wr_report *r, struct wr_symbolizer *s,
			      size_t n)
{
	const struct wr_shares *sh = r->shares;
	struct wr_sources src = { 0 };
	size_t i, j;
	int ret = 0;

	fputs(",\"alloc_excerpts\":[", d);
	for (i = 0; i < n && i < HTML_EXCERPT_PAIRS && !ret; i++) {
		uint32_t p = r->ranked[i], site = WR_NONE;

		for (j = sh->pair_lines[p]; j < sh->pair_lines[p + 1] && site == WR_NONE; j++)
			site = site_of(&sh->lines[sh->by_pair[j]]);
		if (i)
			fputc(',', d);
		if (site == WR_NONE)
			fputs("null", d);
		else
			ret = html_context_excerpt(d, s, &src, site);
	}
	fputc(']', d);
	wr_sources_free(&src);
	return ret;
}

int wr_html_share(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top)
{
	/* The pairs shown, as in the text report: those found. */
	size_t shown = top && top < r->nwaste ? top : r->nwaste;
	FILE *d;
	int ret;

	if (!(d = html_begin_report(out, r)))
		return -1;
	ret = wr_share_render_json(d, r, s, top);
	if (!ret)
		ret = put_text(d, "sampling", sampling, r);
	if (!ret)
		ret = put_text(d, "processes", processes, r);
	if (!ret)
		ret = put_text(d, "notes", caveats, r);
	if (!ret)
		ret = put_text(d, "reading", reading, r);
	/* The flame graph weighs every pair, not only those listed. */
	if (!ret)
		ret = html_pair_flames(d, r, s);
	if (!ret)
		ret = html_pair_chains(d, r, s, shown);
	if (!ret)
		ret = put_sites(d, r, s, shown);
	if (!ret)
		ret = html_pair_excerpts(d, r, s, shown);
	if (!ret)
		ret = put_alloc_excerpts(d, r, s, shown);
	fputc('}', d);
	if (html_end(out, d, "share.js"))
		ret = -1;
	return ret;
}
