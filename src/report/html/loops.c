/*
 * loops.c - the HTML page of tool loop's profiles: the JSON report (its
 * rows ranked, flagged first), each shown row's context on one line, and
 * its loop in its source, its lines marked; loops.js draws them.
 */
#include "report/html/html.h"
#include "report/html/page.h"
#include "report/loop.h"
#include "report/render.h"
#include "report/report.h"
#include "report/source.h"

/* Rows whose loops get source excerpts: the flagged ones come first. */
#define EXCERPT_ROWS 50

int wr_html_loops(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top)
{
	const struct wr_loops *l = r->loops;
	size_t shown = top && top < l->nrows ? top : l->nrows, i;
	struct wr_sources src = { 0 };
	FILE *d;
	int ret;

	if (!(d = html_begin_report(out, r)))
		return -1;
	ret = wr_loop_render_json(d, r, s, top);
	fputs(",\"chains\":[", d);
	for (i = 0; i < shown && !ret; i++) {
		if (i)
			fputc(',', d);
		ret = html_chain(d, r, s, l->rows[l->ranked[i]].ctx);
	}
	fputs("],\"excerpts\":[", d);
	for (i = 0; i < shown && i < EXCERPT_ROWS; i++) {
		const struct wr_loop *lp = &l->loops[l->rows[l->ranked[i]].loop];

		if (i)
			fputc(',', d);
		html_excerpt(d, &src, lp->file, (int)lp->first_line, (int)lp->last_line);
	}
	fputs("]}", d);
	wr_sources_free(&src);
	if (html_end(out, d, "loops.js"))
		ret = -1;
	return ret;
}
