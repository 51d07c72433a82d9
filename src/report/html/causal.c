/*
 * causal.c - the HTML page of causal profiles: the JSON report, whose
 * lines come ranked as the text report ranks them, each curve with its
 * points' spread; causal.js plots them.
 */
#include "report/html/html.h"
#include "report/html/page.h"
#include "report/causal_analysis.h"
#include "report/causal_profile.h"
#include "report/causal_render.h"

int wr_html_causal(FILE *out, const struct rc_profile *p, const struct rc_analysis *a, size_t top)
{
	FILE *d = html_begin(out, "witch report: causal profile");
	int ret;

	if (!d)
		return -1;
	fputs("{\"report\":", d);
	ret = rc_render_json(d, p, a, top);
	fputs("}", d);
	if (html_end(out, d, "causal.js"))
		ret = -1;
	return ret;
}
