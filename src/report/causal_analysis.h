/*
 * causal_analysis.h - from experiments to causal profile curves (COZ §2-3).
 *
 * For each selected line and progress point, experiments are summed per
 * line speedup. The program speedup at line speedup x is
 *
 *     (m0 - mx) / m0
 *
 * where m is the period of the progress point (effective duration /
 * visits, throughput) or its latency by Little's law (W = L / lambda, with
 * lambda = arrivals / duration and L the duration-weighted mean of the
 * requests in flight), and m0 comes from the same line's 0 % experiments
 * ("line" baseline) or, when the line has none, from all 0 % experiments
 * of that progress point ("pooled" baseline). Positive means faster.
 *
 * For throughput points m0 is local in time where it can be: each sped-up
 * experiment's visits are priced at the period of the nearest 0 %
 * experiments of its run (any line), and the point is (E - D) / E with E
 * the visits so priced and D the effective duration, summed per speedup.
 * The machine's speed drifts during a run (on a VM, a core a third slower
 * for seconds); a baseline from the whole run turns that drift into noise.
 *
 * Each program speedup is then corrected for phases (COZ Eq. 6): times
 * t_obs / s_obs * s / T, where t_obs and s_obs are the effective duration
 * of and samples in the selected line during all of that line's
 * experiments, s the line's samples over the whole runs and T the runs'
 * total time. End-to-end experiments span the whole run and need none.
 *
 * A point is a weighted mean of its experiments' own measures (each
 * period or latency; priced locally, each duration over its price); its
 * spread is that mean's standard error, the experiments weighed as the
 * point weighs them (Kish's effective count), in program speedup.
 *
 * A least-squares line through the (line speedup, program speedup) points
 * gives the slope and its standard error. Impact is the slope: the
 * program speedup per unit of line speedup (COZ §2 ranks by it). Curves
 * with fewer than RC_MIN_SPEEDUPS line speedups are "thin" and ranked
 * after all others.
 */
#ifndef WITCH_CAUSAL_ANALYSIS_H
#define WITCH_CAUSAL_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "report/causal_profile.h"

#define RC_MIN_SPEEDUPS 5
/* Throughput points: each sped-up experiment is held against the period of
 * this many 0 % experiments before it and as many after (local_period). */
#define RC_LOCAL_BASELINES 3

struct rc_cpoint {
	double line_speedup;	/* 0..1 */
	double program_speedup;	/* corrected; 0.1 = 10 % faster */
	double spread;		/* its standard error over the experiments summed
				   (each one's own program speedup); NaN with fewer
				   than two */
	uint64_t experiments;
	uint64_t duration;	/* ns */
};

enum rc_baseline { RC_BASE_LINE, RC_BASE_POOLED };

struct rc_curve {
	uint32_t line;		/* names id */
	uint32_t point;		/* names id of the progress point */
	int latency;
	enum rc_baseline baseline;	/* where the 0 % experiments come from */
	int local;		/* sped-up points priced at their neighbours in time */
	double correction;	/* the Eq. 6 factor applied (1 when none) */
	int corrected;		/* 0: no correction possible or needed */
	struct rc_cpoint *pts;	/* by line speedup */
	size_t npts;
	int has_slope;		/* npts >= 2 */
	double slope, intercept;
	int has_se;		/* npts >= 3 */
	double slope_se;
	double max_speedup;	/* largest program speedup of any point */
	int thin;		/* npts < RC_MIN_SPEEDUPS */
	uint64_t experiments;
};

struct rc_point_summary {
	uint32_t name;
	int latency;
	uint64_t visits;	/* throughput: delta; latency: arrivals (summed) */
	uint64_t departures;
};

enum rc_status {
	RC_OK,
	RC_NO_EXPERIMENTS,	/* no experiment finished */
	RC_NO_PROGRESS,		/* experiments, but no progress point was ever visited */
};

struct rc_analysis {
	enum rc_status status;
	struct rc_point_summary *points;
	size_t npoints;
	struct rc_curve *curves;	/* ranked, best first */
	size_t ncurves, cap_curves;
	size_t nexps;
	uint64_t exp_ns;	/* effective duration of all experiments */
	size_t nincomplete;	/* runs that did not end cleanly */
	size_t nthin, npooled;
	size_t nnobase;		/* (line, point) pairs with no usable baseline */
	int end_to_end;		/* some experiments are end-to-end */
};

/* -1 when out of memory. */
int rc_analyze(const struct rc_profile *p, struct rc_analysis *a);
void rc_analysis_free(struct rc_analysis *a);

/* Little's law: mean latency W = L / lambda in ns, lambda = arrivals /
 * duration_ns; -1 when undefined (no arrivals, L <= 0). */
double rc_littles_latency(double in_flight, uint64_t arrivals, uint64_t duration_ns);

/* COZ Eq. 6's factor t_obs / s_obs * s / T, clamped to (0, 1]; 0 when it
 * cannot be computed (no samples, no runtime). */
double rc_phase_factor(uint64_t t_obs, uint64_t s_obs, uint64_t s, uint64_t T);

/* Least squares y = a + b x over n points; returns 0 with b (and its
 * standard error when n >= 3, else se = -1), -1 when n < 2 or all x equal. */
int rc_regress(const double *x, const double *y, size_t n, double *a, double *b, double *se);

/* One line of guidance when no progress point was reached. */
extern const char rc_guidance[];

#endif
