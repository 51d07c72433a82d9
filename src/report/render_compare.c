/*
 * render_compare.c - witch compare's output, text and JSON.
 */
#include <math.h>
#include <string.h>

#include "report/compare.h"
#include "report/render.h"
#include "report/report.h"

static const char *method(const struct wr_side *s)
{
	return s->r->tool->method;
}

/* A watched site's share of its side's judged bytes, and its redundancy. */
static double weight(const struct wr_side *side, const struct wr_watched *w)
{
	return side->judged > 0 ? w->judged / side->judged : 0;
}

static double site_redundancy(const struct wr_watched *w)
{
	return w->judged > 0 ? w->waste / w->judged : 0;
}

/* The reference's heaviest watched sites, with the sampled side's view. */
static void watched_text(FILE *out, const struct wr_comparison *c, size_t n)
{
	size_t i;

	if (!c->b.nwatched)
		return;	/* nothing judged: no table, as no reweighted line */
	fprintf(out, "\nreference's heaviest watched sites (weight: share of judged bytes)\n"
		     " rank   weight: reference  sampled   %s: reference  sampled   watch site\n",
		c->b.r->tool->fraction);
	for (i = 0; i < n && i < c->b.nwatched; i++) {
		const struct wr_watched *r = &c->b.watched[i];
		const struct wr_watched *s = wr_compare_find_watched(&c->a, r->key);

		if (s)
			fprintf(out, " %4zu   %17.1f%%  %6.1f%%   %*.1f%%  %6.1f%%   %s\n", i + 1,
				100 * weight(&c->b, r), 100 * weight(&c->a, s),
				(int)strlen(c->b.r->tool->fraction) + 10, 100 * site_redundancy(r),
				100 * site_redundancy(s), r->key);
		else
			fprintf(out, " %4zu   %17.1f%%   missed   %*.1f%%             %s\n", i + 1,
				100 * weight(&c->b, r), (int)strlen(c->b.r->tool->fraction) + 10,
				100 * site_redundancy(r), r->key);
	}
}

static void watched_json(FILE *out, const struct wr_comparison *c, size_t n)
{
	size_t i;

	fputs(",\"reweighted_redundancy\":", out);
	wr_json_number(out, "%.6f", c->reweighted);
	fputs(",\"reweighted_reference\":", out);
	wr_json_number(out, "%.6f", c->reweighted_reference);
	fprintf(out, ",\"reweighted_coverage\":%.6f,\"watched_sites\":[", c->coverage);
	for (i = 0; i < n && i < c->b.nwatched; i++) {
		const struct wr_watched *r = &c->b.watched[i];
		const struct wr_watched *s = wr_compare_find_watched(&c->a, r->key);

		fprintf(out, "%s{\"site\":", i ? "," : "");
		wr_json_string(out, r->key);
		fprintf(out, ",\"reference_weight\":%.6f,\"reference_redundancy\":%.6f",
			weight(&c->b, r), site_redundancy(r));
		if (s)
			fprintf(out, ",\"sampled_weight\":%.6f,\"sampled_redundancy\":%.6f}",
				weight(&c->a, s), site_redundancy(s));
		else
			fputs(",\"sampled_weight\":0,\"sampled_redundancy\":null}", out);
	}
	fputc(']', out);
}

void wr_render_compare_text(FILE *out, const struct wr_comparison *c)
{
	size_t n = c->top, i, extra = 0;

	fprintf(out, "witch compare: %s, %s (sampled) vs %s (reference)\n", c->b.r->tool->what,
		method(&c->a), method(&c->b));
	fprintf(out, "%s: %.1f%% vs %.1f%%: %+.1f points (WITCH Eq. 1 on each side)\n",
		c->b.r->tool->fraction, 100 * c->a.redundancy, 100 * c->b.redundancy,
		100 * (c->a.redundancy - c->b.redundancy));
	if (!isnan(c->reweighted)) {
		fprintf(out, "%s with the reference's weight for each watched site: %.1f%% (%+.1f points; "
			     "those sites hold %.1f%% of the reference's judged bytes)\n",
			c->b.r->tool->fraction, 100 * c->reweighted,
			100 * (c->reweighted - c->b.redundancy), 100 * c->coverage);
		fprintf(out, "on those sites the reference says %.1f%%: the verdicts there differ by "
			     "%+.1f points, the sites never watched account for the other %+.1f\n",
			100 * c->reweighted_reference,
			100 * (c->reweighted - c->reweighted_reference),
			100 * (c->reweighted_reference - c->b.redundancy));
	}
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
	watched_text(out, c, n > 5 ? n : 5);
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
	wr_json_number(out, "%.4f", c->spearman);
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
	fputc(']', out);
	watched_json(out, c, n > 5 ? n : 5);
	fputs("}\n", out);
}
