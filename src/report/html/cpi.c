/*
 * cpi.c - the HTML page of witch cpi's profiles: the JSON report's
 * tables and the code (annotated source and disassembly) of the
 * functions whose own code took the most time, or of --function's; cpi.js
 * draws them.
 */
#include "report/html/html.h"
#include "report/html/page.h"
#include "report/cpi.h"

/* Functions whose code is shown. */
#define CODE_FUNCTIONS 3

int wr_html_cpi(FILE *out, struct cpi *c, const struct cpi_render_opts *o)
{
	uint32_t top[CODE_FUNCTIONS];
	size_t n, i;
	FILE *d = html_begin(out, "witch report: time per execution (witch cpi)");
	int ret;

	if (!d)
		return -1;
	if (o->function) {
		top[0] = cpi_function_named(c, o->function);
		n = top[0] != CPI_NONE;
	} else {
		n = cpi_top_functions(c, top, CODE_FUNCTIONS);
	}
	fputs("{\"report\":", d);
	ret = cpi_render_json(d, c, o);
	fputs(",\"code\":[", d);
	for (i = 0; i < n && !ret; i++) {
		if (i)
			fputc(',', d);
		ret = cpi_render_code_json(d, c, top[i], o->ghz);
	}
	fputs("]}", d);
	if (html_end(out, d, "cpi.js"))
		ret = -1;
	return ret;
}
