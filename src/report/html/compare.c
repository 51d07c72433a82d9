/*
 * compare.c - the HTML page of witch compare: the JSON comparison, the
 * two sides' methods and each side's own top pairs, so that the page
 * shows them side by side; compare.js draws them.
 */
#include "report/html/html.h"
#include "report/html/page.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/report.h"

/* Each side's own top pairs listed, at least. */
#define SIDE_PAIRS 10

static void side(FILE *d, const char *key, const struct wr_side *s, size_t n)
{
	size_t i;

	fprintf(d, ",\"%s\":{\"method\":", key);
	wr_json_string(d, s->r->tool->method);
	fputs(",\"pairs\":[", d);
	for (i = 0; i < n && i < s->nsites; i++) {
		fputs(i ? ",{\"pair\":" : "{\"pair\":", d);
		wr_json_string(d, s->sites[i].key);
		fprintf(d, ",\"rank\":%zu,\"share\":%.6f}", s->sites[i].rank, s->sites[i].share);
	}
	fputs("]}", d);
}

int wr_html_compare(FILE *out, const struct wr_comparison *c)
{
	size_t n = c->top > SIDE_PAIRS ? c->top : SIDE_PAIRS;
	char title[256];
	FILE *d;

	snprintf(title, sizeof(title), "witch compare: %s, %s vs %s", c->b.r->tool->what,
		 c->a.r->tool->method, c->b.r->tool->method);
	if (!(d = html_begin(out, title)))
		return -1;
	fputs("{\"report\":", d);
	wr_render_compare_json(d, c);
	side(d, "sampled_side", &c->a, n);
	side(d, "reference_side", &c->b, n);
	fputs("}", d);
	return html_end(out, d, "compare.js");
}
