/*
 * render_compare.c - witch compare's output, text and JSON.
 */
#include <math.h>

#include "report/compare.h"
#include "report/render.h"
#include "report/report.h"

static const char *method(const struct wr_side *s)
{
	return s->r->tool->method;
}

void wr_render_compare_text(FILE *out, const struct wr_comparison *c)
{
	size_t n = c->top, i, extra = 0;

	fprintf(out, "witch compare: %s, %s (sampled) vs %s (reference)\n", c->b.r->tool->what,
		method(&c->a), method(&c->b));
	fprintf(out, "%s: %.1f%% vs %.1f%%: %+.1f points (WITCH Eq. 1 on each side)\n",
		c->b.r->tool->fraction, 100 * c->a.redundancy, 100 * c->b.redundancy,
		100 * (c->a.redundancy - c->b.redundancy));
	fprintf(out, "reference pairs with >= 1%% of waste (top %zu) found by the sampled run: %zu of %zu\n",
		n, c->found, n);
	if (isnan(c->spearman))
		fprintf(out, "rank correlation: too few pairs to rank\n");
	else
		fprintf(out, "rank correlation (Spearman's rho over those %zu, missed pairs ranked "
			     "last): %.2f\n", n, c->spearman);
	fprintf(out, "\n rank   reference   sampled    error   pair (watch => trap)\n");
	for (i = 0; i < n; i++) {
		const struct wr_site_share *r = &c->b.sites[i];
		const struct wr_site_share *s = wr_compare_find(&c->a, r->key);

		if (s)
			fprintf(out, " %4zu   %8.1f%%  %7.1f%%  %+6.1f   %s\n", i + 1, 100 * r->share,
				100 * s->share, 100 * (s->share - r->share), r->key);
		else
			fprintf(out, " %4zu   %8.1f%%   missed             %s\n", i + 1, 100 * r->share,
				r->key);
	}
	for (i = 0; i < c->a.nsites && i < (n > 5 ? n : 5); i++) {
		const struct wr_site_share *s = &c->a.sites[i], *r = wr_compare_find(&c->b, s->key);

		if (r && r->rank <= n)
			continue;
		if (!extra++)
			fprintf(out, "\nsampled top pairs outside those:\n");
		fprintf(out, " %4zu   %8s   %7.1f%%           %s\n", s->rank,
			r ? "" : "absent", 100 * s->share, s->key);
	}
}

static void side_json(FILE *out, const struct wr_side *s)
{
	fputs("{\"tool\":", out);
	wr_json_string(out, s->r->tool->name);
	fprintf(out, ",\"redundancy\":%.6f,\"pairs\":%zu}", s->redundancy, s->nsites);
}

void wr_render_compare_json(FILE *out, const struct wr_comparison *c)
{
	size_t n = c->top, i;

	fputs("{\"kind\":", out);
	wr_json_string(out, c->b.r->tool->what);
	fputs(",\"sampled\":", out);
	side_json(out, &c->a);
	fputs(",\"reference\":", out);
	side_json(out, &c->b);
	fprintf(out, ",\"difference_points\":%.3f,\"top\":%zu,\"found\":%zu,\"spearman\":",
		100 * (c->a.redundancy - c->b.redundancy), n, c->found);
	if (isnan(c->spearman))
		fputs("null", out);
	else
		fprintf(out, "%.4f", c->spearman);
	fputs(",\"pairs\":[", out);
	for (i = 0; i < n; i++) {
		const struct wr_site_share *r = &c->b.sites[i];
		const struct wr_site_share *s = wr_compare_find(&c->a, r->key);

		fprintf(out, "%s{\"pair\":", i ? "," : "");
		wr_json_string(out, r->key);
		fprintf(out, ",\"reference_rank\":%zu,\"reference_share\":%.6f", i + 1, r->share);
		if (s)
			fprintf(out, ",\"sampled_rank\":%zu,\"sampled_share\":%.6f,\"error_points\":%.3f}",
				s->rank, s->share, 100 * (s->share - r->share));
		else
			fputs(",\"sampled_rank\":null,\"sampled_share\":0,\"error_points\":null}", out);
	}
	fputs("]}\n", out);
}
