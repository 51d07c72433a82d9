#include "report/grow.h"
#include "report/causal_analysis.h"
#include "report/map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char rc_guidance[] =
	"no progress point was reached, so no speedup can be measured: mark the end of each "
	"unit of work with COZ_PROGRESS (#include <coz.h> or <witch.h>), or run witch causal "
	"--progress=FILE:LINE on a line that runs once per unit of work, or --end-to-end to "
	"measure whole runs";

/* A weighted mean and sum of squared deviations, updated one value at a
 * time (West's algorithm): no cancellation between large sums. */
struct wstat {
	double w, w2;		/* the weights and their squares, summed */
	double mean, m2;
};

static void wstat_add(struct wstat *st, double x, double w)
{
	double d;

	if (!(w > 0) || !isfinite(x))
		return;
	st->w += w;
	st->w2 += w * w;
	d = x - st->mean;
	st->mean += w / st->w * d;
	st->m2 += w * d * (x - st->mean);
}

/* The standard error of the weighted mean, with Kish's effective number
 * of values; NaN with fewer than two. */
static double wstat_stderr(const struct wstat *st)
{
	double n = st->w2 > 0 ? st->w * st->w / st->w2 : 0;

	if (!(n > 1.000001))
		return NAN;
	return sqrt(st->m2 / st->w * n / (n - 1) / n);
}

/* Experiments summed for one (line, point, speedup). */
struct acc {
	uint32_t line, point;
	int latency;
	uint32_t speedup;	/* per mille */
	uint64_t duration, experiments;
	uint64_t delta, arrivals, departures;
	double in_flight_ns;	/* sum of difference * duration */
	double expected_ns;	/* throughput: sum of delta * local baseline period */
	int no_local;		/* an experiment had no baseline near it */
	/*
	 * Each experiment's own measure, for the point's spread. The point
	 * is a weighted mean of them: the period (duration / visits,
	 * weighed by visits) or latency (weighed by arrivals) and, priced
	 * locally, duration / price (weighed by the price).
	 */
	struct wstat each, each_local;
};

struct accs {
	struct acc *a;
	size_t n, cap;
	struct wr_map map;
};

double rc_littles_latency(double in_flight, uint64_t arrivals, uint64_t duration_ns)
{
	if (!arrivals || !duration_ns || !(in_flight > 0))
		return -1;
	/* W = L / lambda, lambda = arrivals / duration. */
	return in_flight * (double)duration_ns / (double)arrivals;
}

double rc_phase_factor(uint64_t t_obs, uint64_t s_obs, uint64_t s, uint64_t T)
{
	double f;

	if (!t_obs || !s_obs || !s || !T)
		return 0;
	f = (double)t_obs / (double)s_obs * (double)s / (double)T;
	/* t_A = s * t_obs / s_obs cannot exceed T; beyond it is sampling noise. */
	return f > 1 ? 1 : f;
}

int rc_regress(const double *x, const double *y, size_t n, double *a, double *b, double *se)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, ssr = 0;
	size_t i;

	*se = -1;
	if (n < 2)
		return -1;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (!(sxx > 0))
		return -1;
	*b = sxy / sxx;
	*a = my - *b * mx;
	if (n < 3)
		return 0;
	for (i = 0; i < n; i++) {
		double r = y[i] - (*a + *b * x[i]);

		ssr += r * r;
	}
	*se = sqrt(ssr / (double)(n - 2) / sxx);
	return 0;
}

static struct acc *bucket(struct accs *s, uint32_t line, uint32_t point, int latency,
			  uint32_t speedup)
{
	uint64_t k1 = (uint64_t)line << 32 | point, k2 = (uint64_t)latency << 32 | speedup;
	uint32_t idx;

	if (wr_map_get(&s->map, k1, k2, &idx))
		return &s->a[idx];
	if (wr_grow((void **)&s->a, &s->cap, s->n + 1, sizeof(*s->a)) ||
	    wr_map_put(&s->map, k1, k2, (uint32_t)s->n))
		return NULL;
	memset(&s->a[s->n], 0, sizeof(*s->a));
	s->a[s->n].line = line;
	s->a[s->n].point = point;
	s->a[s->n].latency = latency;
	s->a[s->n].speedup = speedup;
	return &s->a[s->n++];
}

static void add_obs(struct acc *b, const struct rc_exp *e, const struct rc_obs *o)
{
	if (!b->latency && o->delta)
		wstat_add(&b->each, (double)e->duration / (double)o->delta, (double)o->delta);
	else if (b->latency && o->arrivals)
		wstat_add(&b->each, (double)o->difference * (double)e->duration / (double)o->arrivals,
			  (double)o->arrivals);
	b->duration += e->duration;
	b->experiments++;
	b->delta += o->delta;
	b->arrivals += o->arrivals;
	b->departures += o->departures;
	b->in_flight_ns += (double)o->difference * (double)e->duration;
}

/* The measure whose decrease is progress: period or latency, ns; -1 if undefined. */
static double measure(const struct acc *b)
{
	if (!b->duration)
		return -1;
	if (!b->latency)
		return b->delta ? (double)b->duration / (double)b->delta : -1;
	return rc_littles_latency(b->in_flight_ns / (double)b->duration, b->arrivals, b->duration);
}

static int cmp_acc(const void *x, const void *y)
{
	const struct acc *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->point != b->point)
		return a->point < b->point ? -1 : 1;
	if (a->latency != b->latency)
		return a->latency - b->latency;
	return a->speedup < b->speedup ? -1 : a->speedup > b->speedup;
}

/* Best first: curves with enough points, by slope; then the thin ones. */
static int cmp_curve(const void *x, const void *y)
{
	const struct rc_curve *a = x, *b = y;
	double sa = a->has_slope ? a->slope : -INFINITY, sb = b->has_slope ? b->slope : -INFINITY;

	if (a->thin != b->thin)
		return a->thin - b->thin;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->point < b->point ? -1 : a->point > b->point;
}

struct line_phase {
	uint64_t t_obs, s_obs, s;
};

static int end_to_end_point(const struct rc_profile *p, uint32_t point)
{
	size_t i;

	if (!strcmp(p->names.strs[point], "end-to-end"))
		return 1;
	for (i = 0; i < p->ndecls; i++)
		if (p->decls[i].name == point && !strcmp(p->names.strs[p->decls[i].kind], "end-to-end"))
			return 1;
	return 0;
}

static int summarize_points(const struct rc_profile *p, struct rc_analysis *a)
{
	size_t i, j;

	for (i = 0; i < p->nobs; i++) {
		const struct rc_obs *o = &p->obs[i];

		for (j = 0; j < a->npoints; j++)
			if (a->points[j].name == o->point && a->points[j].latency == o->latency)
				break;
		if (j == a->npoints) {
			struct rc_point_summary *ps =
				realloc(a->points, (a->npoints + 1) * sizeof(*ps));

			if (!ps)
				return -1;
			a->points = ps;
			memset(&ps[j], 0, sizeof(*ps));
			ps[j].name = o->point;
			ps[j].latency = o->latency;
			a->npoints++;
		}
		a->points[j].visits += o->latency ? o->arrivals : o->delta;
		a->points[j].departures += o->departures;
	}
	return 0;
}

/* Build the curve of the sorted buckets b[0..n) of one (line, point, kind). */
static int build_curve(const struct rc_profile *p, struct rc_analysis *a, const struct acc *b,
		       size_t n, const struct accs *all, const struct line_phase *ph,
		       uint64_t total_T)
{
	struct rc_curve c;
	struct acc pooled;
	double base = -1, *x, *y, ic, sl, se;
	size_t i, k;

	memset(&c, 0, sizeof(c));
	c.line = b[0].line;
	c.point = b[0].point;
	c.latency = b[0].latency;
	if (b[0].speedup == 0)
		base = measure(&b[0]);
	c.baseline = RC_BASE_LINE;
	if (!(base > 0)) {
		memset(&pooled, 0, sizeof(pooled));
		pooled.latency = c.latency;
		for (i = 0; i < all->n; i++) {
			const struct acc *o = &all->a[i];

			if (o->speedup || o->point != c.point || o->latency != c.latency)
				continue;
			pooled.duration += o->duration;
			pooled.delta += o->delta;
			pooled.arrivals += o->arrivals;
			pooled.in_flight_ns += o->in_flight_ns;
		}
		base = measure(&pooled);
		c.baseline = RC_BASE_POOLED;
	}
	if (!(base > 0)) {
		a->nnobase++;
		return 0;
	}
	/* Local pricing for all sped-up points or none: one curve, one yardstick. */
	c.local = !c.latency;
	for (i = 0; i < n; i++)
		if (b[i].speedup && (b[i].no_local || !(b[i].expected_ns > 0)))
			c.local = 0;
	c.correction = 1;
	if (!end_to_end_point(p, c.point)) {
		double f = rc_phase_factor(ph->t_obs, ph->s_obs, ph->s, total_T);

		if (f > 0) {
			c.correction = f;
			c.corrected = 1;
		}
	}
	c.pts = calloc(n, sizeof(*c.pts));
	x = calloc(n, sizeof(*x));
	y = calloc(n, sizeof(*y));
	if (!c.pts || !x || !y) {
		free(c.pts);
		free(x);
		free(y);
		return -1;
	}
	for (i = 0, k = 0; i < n; i++) {
		double m = measure(&b[i]);

		c.experiments += b[i].experiments;
		if (!(m > 0))
			continue;
		c.pts[k].line_speedup = b[i].speedup / 1000.0;
		c.pts[k].program_speedup =
			(c.local && b[i].speedup
				 ? (b[i].expected_ns - (double)b[i].duration) / b[i].expected_ns
				 : (base - m) / base) *
			c.correction;
		/* Both are linear in the measures averaged. */
		c.pts[k].spread = (c.local && b[i].speedup ? wstat_stderr(&b[i].each_local)
							  : wstat_stderr(&b[i].each) / base) *
				  c.correction;
		c.pts[k].experiments = b[i].experiments;
		c.pts[k].duration = b[i].duration;
		x[k] = c.pts[k].line_speedup;
		y[k] = c.pts[k].program_speedup;
		if (!k || y[k] > c.max_speedup)
			c.max_speedup = y[k];
		k++;
	}
	c.npts = k;
	if (!rc_regress(x, y, k, &ic, &sl, &se)) {
		c.has_slope = 1;
		c.slope = sl;
		c.intercept = ic;
		c.has_se = se >= 0;
		c.slope_se = se;
	}
	free(x);
	free(y);
	if (!k) {
		free(c.pts);
		a->nnobase++;
		return 0;
	}
	c.thin = k < RC_MIN_SPEEDUPS;
	a->nthin += (size_t)c.thin;
	a->npooled += c.baseline == RC_BASE_POOLED;
	if (wr_grow((void **)&a->curves, &a->cap_curves, a->ncurves + 1, sizeof(*a->curves))) {
		free(c.pts);
		return -1;
	}
	a->curves[a->ncurves++] = c;
	return 0;
}

/* Visits of throughput `point` in experiment e, -1 if it was not observed. */
static int64_t visits(const struct rc_profile *p, const struct rc_exp *e, uint32_t point)
{
	size_t j;

	for (j = e->obs; j < e->obs + e->nobs; j++)
		if (p->obs[j].point == point && !p->obs[j].latency)
			return (int64_t)p->obs[j].delta;
	return -1;
}

/* From experiment i, walking by `step` (+1 or -1) within its run, add the
 * durations and visits of up to RC_LOCAL_BASELINES 0 % experiments. */
static void add_neighbours(const struct rc_profile *p, size_t i, int step, uint32_t point,
			   uint64_t *dur, uint64_t *vis)
{
	size_t k = i;
	int found = 0;

	while (found < RC_LOCAL_BASELINES && (step < 0 ? k > 0 : k + 1 < p->nexps)) {
		const struct rc_exp *e = &p->exps[k = k + step];
		int64_t v;

		if (e->run != p->exps[i].run)
			break;
		if (e->speedup || (v = visits(p, e, point)) < 0)
			continue;
		*dur += e->duration;
		*vis += (uint64_t)v;
		found++;
	}
}

/*
 * The period of `point` (ns per visit) without any speedup, around the
 * time of experiment i: from the RC_LOCAL_BASELINES nearest 0 % experiments
 * of the same run before it and as many after, whatever their line. The
 * machine's speed drifts (on a VM one core may run a third slower for
 * seconds); against baselines pooled over the whole run that drift is
 * noise in every point, against the neighbours mostly not. -1 if none.
 */
static double local_period(const struct rc_profile *p, size_t i, uint32_t point)
{
	uint64_t dur = 0, vis = 0;

	add_neighbours(p, i, -1, point, &dur, &vis);
	add_neighbours(p, i, +1, point, &dur, &vis);
	return vis ? (double)dur / (double)vis : -1;
}

int rc_analyze(const struct rc_profile *p, struct rc_analysis *a)
{
	struct accs s;
	struct line_phase *ph;
	uint64_t total_T = 0;
	size_t i, j, start;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	memset(&s, 0, sizeof(s));
	ph = calloc(p->names.n ? p->names.n : 1, sizeof(*ph));
	if (!ph)
		return -1;
	for (i = 0; i < p->nruns; i++) {
		const struct rc_run *r = &p->runs[i];

		a->nincomplete += !r->has_end || !r->complete;
		/* s and T from the same runs: those that wrote both. */
		if (!r->has_runtime)
			continue;
		total_T += r->runtime;
		for (j = r->smp; j < r->smp + r->nsmp; j++)
			ph[p->samples[j].line].s += p->samples[j].count;
	}
	for (i = 0; i < p->nexps; i++) {
		const struct rc_exp *e = &p->exps[i];

		a->nexps++;
		a->exp_ns += e->duration;
		ph[e->line].t_obs += e->duration;
		ph[e->line].s_obs += e->selected_samples;
		for (j = e->obs; j < e->obs + e->nobs; j++) {
			struct acc *b = bucket(&s, e->line, p->obs[j].point, p->obs[j].latency,
					       e->speedup);

			if (!b)
				goto out;
			add_obs(b, e, &p->obs[j]);
			if (e->speedup && !p->obs[j].latency) {
				double lp = local_period(p, i, p->obs[j].point);

				if (lp > 0) {
					double price = (double)p->obs[j].delta * lp;

					b->expected_ns += price;
					wstat_add(&b->each_local, (double)e->duration / price, price);
				} else
					b->no_local = 1;
			}
			a->end_to_end |= end_to_end_point(p, p->obs[j].point);
		}
	}
	if (summarize_points(p, a))
		goto out;
	a->status = RC_NO_PROGRESS;
	for (i = 0; i < a->npoints; i++)
		if (a->points[i].visits || a->points[i].departures)
			a->status = RC_OK;
	if (!a->nexps)
		a->status = RC_NO_EXPERIMENTS;
	if (s.n)
		qsort(s.a, s.n, sizeof(*s.a), cmp_acc);
	/* The map's indices are stale after sorting; only s.a is used now. */
	for (start = 0; start < s.n; start = i) {
		for (i = start + 1; i < s.n && s.a[i].line == s.a[start].line &&
				    s.a[i].point == s.a[start].point &&
				    s.a[i].latency == s.a[start].latency;
		     i++)
			;
		if (build_curve(p, a, &s.a[start], i - start, &s, &ph[s.a[start].line], total_T))
			goto out;
	}
	if (a->ncurves)
		qsort(a->curves, a->ncurves, sizeof(*a->curves), cmp_curve);
	ret = 0;
out:
	free(ph);
	free(s.a);
	wr_map_free(&s.map);
	return ret;
}

void rc_analysis_free(struct rc_analysis *a)
{
	size_t i;

	for (i = 0; i < a->ncurves; i++)
		free(a->curves[i].pts);
	free(a->curves);
	free(a->points);
	memset(a, 0, sizeof(*a));
}
