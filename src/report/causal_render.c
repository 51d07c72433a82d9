/*
 * causal_render.c - text, JSON and coz output of a causal analysis.
 */
#include "report/causal_render.h"
#include "report/causal_analysis.h"
#include "report/causal_profile.h"
#include "report/names.h"
#include "report/render.h"

#include <math.h>
#include <string.h>

#define PLOT_W 21		/* one column per 5 % of line speedup */
#define PLOT_H 7

static const char *name(const struct rc_profile *p, uint32_t id)
{
	return p->names.strs[id];
}

/* Printable on one line: profiles are bytes from the program under test. */
static void put_text(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static size_t warnings(const struct rc_profile *p, const struct rc_analysis *a, char w[][256],
		       size_t max)
{
	size_t n = 0;

	if (a->nincomplete && n < max)
		snprintf(w[n++], 256, "%zu of %zu runs did not end cleanly (killed or crashed); their "
			 "experiments count, but their phase correction may be missing",
			 a->nincomplete, p->nruns);
	if (a->nthin && n < max)
		snprintf(w[n++], 256, "%zu of %zu lines have fewer than %d line speedups measured "
			 "(marked thin, ranked last): run longer, or repeat runs into the same "
			 "directory (they accumulate)", a->nthin, a->ncurves, RC_MIN_SPEEDUPS);
	if (a->nthin && n < max) {
		uint64_t held = 0, wall = 0;
		size_t i;

		for (i = 0; i < p->nruns; i++) {
			held += p->runs[i].budget_held;
			wall += p->runs[i].wall;
		}
		if (held && wall)
			snprintf(w[n++], 256, "the delay budget held experiments back for %.0f%% of the "
				 "runs' time: --delay-budget=100 runs them back to back, for more "
				 "experiments a run at more overhead", 100.0 * (double)held / (double)wall);
	}
	if (a->npooled && n < max)
		snprintf(w[n++], 256, "%zu of %zu lines had no 0%% experiment of their own and are "
			 "compared with the 0%% experiments of all lines (baseline \"pooled\")",
			 a->npooled, a->ncurves);
	if (a->nnobase && n < max)
		snprintf(w[n++], 256, "%zu (line, progress point) pairs are left out: no usable 0%% "
			 "baseline (no visits during 0%% experiments)", a->nnobase);
	if (p->ntmp && n < max)
		snprintf(w[n++], 256, "%zu unfinished causal.*.tmp files were skipped (a run was killed "
			 "while writing)", p->ntmp);
	return n;
}

void rc_render_warnings(FILE *out, const struct rc_profile *p, const struct rc_analysis *a)
{
	char w[8][256];
	size_t i, n = warnings(p, a, w, 8);

	for (i = 0; i < n; i++)
		fprintf(out, "witch report: warning: %s\n", w[i]);
}

static const char *point_kind(const struct rc_profile *p, uint32_t point, int latency)
{
	size_t i;

	if (latency)
		return "latency";
	for (i = 0; i < p->ndecls; i++)
		if (p->decls[i].name == point && !strcmp(name(p, p->decls[i].kind), "end-to-end"))
			return "end-to-end";
	return !strcmp(name(p, point), "end-to-end") ? "end-to-end" : "throughput";
}

/* y value to plot row, row 0 at the top. */
static int row_of(double y, double lo, double hi)
{
	int r = (int)lround((hi - y) / (hi - lo) * (PLOT_H - 1));

	return r < 0 ? 0 : r > PLOT_H - 1 ? PLOT_H - 1 : r;
}

static void plot(FILE *out, const struct rc_curve *c)
{
	char grid[PLOT_H][PLOT_W + 1];
	double lo = 0, hi = 0;
	size_t i;
	int r, col, zero;

	for (i = 0; i < c->npts; i++) {
		if (c->pts[i].program_speedup < lo)
			lo = c->pts[i].program_speedup;
		if (c->pts[i].program_speedup > hi)
			hi = c->pts[i].program_speedup;
	}
	if (hi - lo < 0.02)
		hi = lo + 0.02;
	memset(grid, ' ', sizeof(grid));
	zero = row_of(0, lo, hi);
	for (col = 0; col < PLOT_W; col++)
		grid[zero][col] = '-';
	if (c->has_slope)
		for (col = 0; col < PLOT_W; col++) {
			double y = c->intercept + c->slope * col / (PLOT_W - 1.0);

			if (y >= lo && y <= hi)
				grid[row_of(y, lo, hi)][col] = '.';
		}
	for (i = 0; i < c->npts; i++) {
		col = (int)lround(c->pts[i].line_speedup * (PLOT_W - 1));
		grid[row_of(c->pts[i].program_speedup, lo, hi)][col] = '*';
	}
	for (r = 0; r < PLOT_H; r++) {
		grid[r][PLOT_W] = '\0';
		if (r == 0)
			fprintf(out, "    %+6.1f%% |%s\n", hi * 100, grid[r]);
		else if (r == PLOT_H - 1)
			fprintf(out, "    %+6.1f%% |%s\n", lo * 100, grid[r]);
		else if (r == zero)
			fprintf(out, "    %6s%% |%s\n", "0", grid[r]);
		else
			fprintf(out, "    %7s |%s\n", "", grid[r]);
	}
	fprintf(out, "    %7s +%.*s\n", "", PLOT_W, "---------------------------------");
	fprintf(out, "    %7s  0%%       50%%      100%%  line speedup (*: measured, .: fit)\n", "");
}

static void curve_text(FILE *out, const struct rc_profile *p, const struct rc_curve *c,
		       size_t rank)
{
	const char *fn = rc_function(p, c->line);
	size_t i, col;

	fprintf(out, "#%zu  ", rank);
	put_text(out, name(p, c->line));
	if (fn) {
		char brief[512];

		fputs("  in ", out);
		put_text(out, wr_short_name(fn, brief, sizeof(brief)));
		fputs("()", out);
	}
	fputs("   -> ", out);
	put_text(out, name(p, c->point));
	fprintf(out, " (%s)%s\n", point_kind(p, c->point, c->latency), c->thin ? "  [thin]" : "");
	if (c->has_slope)
		fprintf(out, "    impact %+.3f (program speedup per unit of line speedup", c->slope);
	else
		fprintf(out, "    impact unknown (one line speedup only");
	if (c->has_se)
		fprintf(out, ", +/- %.3f", c->slope_se);
	fprintf(out, "); best measured %+.1f%%\n", c->max_speedup * 100);
	fprintf(out, "    %zu line speedups, %llu experiments; baseline: %s%s; phase correction ",
		c->npts, (unsigned long long)c->experiments,
		c->baseline == RC_BASE_LINE ? "this line's 0% experiments"
					    : "all lines' 0% experiments (pooled)",
		c->local ? ", each point against those nearest in time" : "");
	if (c->corrected)
		fprintf(out, "x%.3f\n", c->correction);
	else
		fprintf(out, "none (%s)\n", !strcmp(point_kind(p, c->point, c->latency), "end-to-end")
						    ? "end-to-end runs need none"
						    : "no samples or runtime recorded");
	plot(out, c);
	fputs("    line -> program speedup (experiments):", out);
	for (i = 0, col = 99; i < c->npts; i++) {
		if (col > 80) {
			fputs("\n     ", out);
			col = 5;
		}
		col += (size_t)fprintf(out, " %.0f%%->%+.1f%% (%llu)", c->pts[i].line_speedup * 100,
				       c->pts[i].program_speedup * 100,
				       (unsigned long long)c->pts[i].experiments);
	}
	fputs("\n\n", out);
}

int rc_render_text(FILE *out, const struct rc_profile *p, const struct rc_analysis *a, size_t top)
{
	size_t i, n = top && top < a->ncurves ? top : a->ncurves;

	fprintf(out, "witch causal profile: %zu run%s, %zu experiment%s, %.3f s of experiments "
		"(delays excluded)\n", p->nruns, p->nruns == 1 ? "" : "s", a->nexps,
		a->nexps == 1 ? "" : "s", (double)a->exp_ns / 1e9);
	fputs("progress points:\n", out);
	for (i = 0; i < a->npoints; i++) {
		const struct rc_point_summary *ps = &a->points[i];

		fputs("  ", out);
		put_text(out, name(p, ps->name));
		if (ps->latency)
			fprintf(out, "  latency  %llu arrivals, %llu departures during experiments\n",
				(unsigned long long)ps->visits, (unsigned long long)ps->departures);
		else
			fprintf(out, "  %s  %llu visits during experiments\n",
				point_kind(p, ps->name, 0), (unsigned long long)ps->visits);
	}
	fprintf(out, "\nlines ranked by impact: the slope of a least-squares line through the "
		"program speedups\n(what speeding the line up by x%% would gain the program, "
		"per x%%); %zu of %zu shown\n\n", n, a->ncurves);
	for (i = 0; i < n; i++)
		curve_text(out, p, &a->curves[i], i + 1);
	if (!a->ncurves)
		fputs("no line has a usable curve yet: see the warnings\n", out);
	return ferror(out) ? -1 : 0;
}

static void key(FILE *out, const char *k)
{
	wr_json_string(out, k);
	fputc(':', out);
}

int rc_render_json(FILE *out, const struct rc_profile *p, const struct rc_analysis *a, size_t top)
{
	size_t i, j, n = top && top < a->ncurves ? top : a->ncurves, nw;
	char w[8][256];

	fputs("{\"tool\":\"causal\",\"impact\":\"slope\",", out);
	fprintf(out, "\"runs\":%zu,\"experiments\":%zu,\"experiment_ns\":%llu,", p->nruns, a->nexps,
		(unsigned long long)a->exp_ns);
	key(out, "progress_points");
	fputc('[', out);
	for (i = 0; i < a->npoints; i++) {
		const struct rc_point_summary *ps = &a->points[i];

		fputs(i ? ",{" : "{", out);
		key(out, "name");
		wr_json_string(out, name(p, ps->name));
		fputs(",\"kind\":", out);
		wr_json_string(out, point_kind(p, ps->name, ps->latency));
		if (ps->latency)
			fprintf(out, ",\"arrivals\":%llu,\"departures\":%llu}",
				(unsigned long long)ps->visits, (unsigned long long)ps->departures);
		else
			fprintf(out, ",\"visits\":%llu}", (unsigned long long)ps->visits);
	}
	fputs("],\"lines\":[", out);
	for (i = 0; i < n; i++) {
		const struct rc_curve *c = &a->curves[i];

		fputs(i ? ",{" : "{", out);
		key(out, "location");
		wr_json_string(out, name(p, c->line));
		fputc(',', out);
		key(out, "function");
		wr_json_string(out, rc_function(p, c->line));
		fputc(',', out);
		key(out, "progress_point");
		wr_json_string(out, name(p, c->point));
		fputs(",\"impact\":", out);
		wr_json_number(out, "%.6g", c->has_slope ? c->slope : NAN);
		fputs(",\"slope\":", out);
		wr_json_number(out, "%.6g", c->has_slope ? c->slope : NAN);
		fputs(",\"slope_stderr\":", out);
		wr_json_number(out, "%.6g", c->has_se ? c->slope_se : NAN);
		fputs(",\"intercept\":", out);
		wr_json_number(out, "%.6g", c->has_slope ? c->intercept : NAN);
		fputs(",\"max_program_speedup\":", out);
		wr_json_number(out, "%.6g", c->max_speedup);
		fprintf(out, ",\"baseline\":\"%s\",\"local_baseline\":%s,\"phase_correction\":",
			c->baseline == RC_BASE_LINE ? "line" : "pooled", c->local ? "true" : "false");
		wr_json_number(out, "%.6g", c->corrected ? c->correction : NAN);
		fprintf(out, ",\"thin\":%s,\"experiments\":%llu,\"points\":[", c->thin ? "true" : "false",
			(unsigned long long)c->experiments);
		for (j = 0; j < c->npts; j++) {
			fputs(j ? ",{\"line_speedup\":" : "{\"line_speedup\":", out);
			wr_json_number(out, "%.6g", c->pts[j].line_speedup);
			fputs(",\"program_speedup\":", out);
			wr_json_number(out, "%.6g", c->pts[j].program_speedup);
			fputs(",\"program_speedup_stderr\":", out);
			wr_json_number(out, "%.6g", c->pts[j].spread);
			fprintf(out, ",\"experiments\":%llu,\"duration_ns\":%llu}",
				(unsigned long long)c->pts[j].experiments,
				(unsigned long long)c->pts[j].duration);
		}
		fputs("]}", out);
	}
	fputs("],\"warnings\":[", out);
	nw = warnings(p, a, w, 8);
	for (i = 0; i < nw; i++) {
		if (i)
			fputc(',', out);
		wr_json_string(out, w[i]);
	}
	fputs("]}\n", out);
	return ferror(out) ? -1 : 0;
}

/* coz splits records on tabs and fields on the first '=': keep both out of values. */
static void coz_value(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

int rc_render_coz(FILE *out, const struct rc_profile *p)
{
	size_t i, j, k;

	for (i = 0; i < p->nruns; i++) {
		const struct rc_run *r = &p->runs[i];

		fprintf(out, "startup\ttime=%llu\n", (unsigned long long)r->startup);
		for (j = r->exp; j < r->exp + r->nexp; j++) {
			const struct rc_exp *e = &p->exps[j];

			fputs("experiment\tselected=", out);
			coz_value(out, name(p, e->line));
			/* %g: 0 prints "0", the key coz's viewer looks its baseline up by. */
			fprintf(out, "\tspeedup=%g\tduration=%llu\tselected-samples=%llu\n",
				e->speedup / 1000.0, (unsigned long long)e->duration,
				(unsigned long long)e->selected_samples);
			for (k = e->obs; k < e->obs + e->nobs; k++) {
				const struct rc_obs *o = &p->obs[k];

				fputs(o->latency ? "latency-point\tname=" : "throughput-point\tname=", out);
				coz_value(out, name(p, o->point));
				if (o->latency)
					fprintf(out, "\tarrivals=%llu\tdepartures=%llu\tdifference=%lld\n",
						(unsigned long long)o->arrivals,
						(unsigned long long)o->departures, (long long)o->difference);
				else
					fprintf(out, "\tdelta=%llu\n", (unsigned long long)o->delta);
			}
		}
		for (j = r->smp; j < r->smp + r->nsmp; j++) {
			fputs("samples\tlocation=", out);
			coz_value(out, name(p, p->samples[j].line));
			fprintf(out, "\tcount=%llu\n", (unsigned long long)p->samples[j].count);
		}
		if (r->has_runtime)
			fprintf(out, "runtime\ttime=%llu\n", (unsigned long long)r->runtime);
	}
	return ferror(out) ? -1 : 0;
}
