/*
 * test_causal.c - the causal report's reader and arithmetic on synthetic
 * profiles whose answers are known: baselines (own, pooled, local in time), throughput
 * periods, Little's law, COZ Eq. 6, least squares, ranking, coz output.
 */
#include "tap.h"
#include "report/causal_analysis.h"
#include "report/causal_profile.h"
#include "report/causal_render.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static char text[1 << 16];
static size_t len;

static void put(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	len += (size_t)vsnprintf(text + len, sizeof(text) - len, fmt, ap);
	va_end(ap);
}

static void header(int pid)
{
	put("witch-causal\tversion=1\tpid=%d\tcommand=./app\n", pid);
	put("startup\ttime=1000\n");
}

static void exp_tp(const char *line, double speedup, unsigned long dur, unsigned long ss,
		   unsigned long delta)
{
	put("experiment\tselected=%s\tspeedup=%.2f\tduration=%lu\tselected-samples=%lu\tdelays=1"
	    "\tdelay-ns=5\n", line, speedup, dur, ss);
	put("throughput-point\tname=app.c:99\tdelta=%lu\n", delta);
}

/* A new profile with one throughput progress point, app.c:99. */
static void throughput_profile(void)
{
	len = 0;
	header(1);
	put("progress\tname=app.c:99\tkind=throughput\n");
}

static int load(struct rc_profile *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	return rc_read_text(p, text, len, "causal.1", err, errlen);
}

static const struct rc_curve *curve(const struct rc_profile *p, const struct rc_analysis *a,
				    const char *line)
{
	size_t i;

	for (i = 0; i < a->ncurves; i++)
		if (!strcmp(p->names.strs[a->curves[i].line], line))
			return &a->curves[i];
	return NULL;
}

static const struct rc_cpoint *at(const struct rc_curve *c, double x)
{
	size_t i;

	for (i = 0; c && i < c->npts; i++)
		if (NEAR(c->pts[i].line_speedup, x, 1e-9))
			return &c->pts[i];
	return NULL;
}

static void test_math(void)
{
	double x[] = { 0, 1, 2 }, y[] = { 0, 1, 1 }, x2[] = { 0, 0.5, 1 }, y2[] = { 0.1, 0.35, 0.6 };
	double a, b, se;

	tap_ok(rc_regress(x, y, 3, &a, &b, &se) == 0 && NEAR(b, 0.5, 1e-12) &&
		       NEAR(a, 1.0 / 6, 1e-12),
	       "least squares through (0,0) (1,1) (2,1): slope 1/2, intercept 1/6");
	/* Residuals -1/6, 1/3, -1/6: SSR = 1/6, n - 2 = 1, Sxx = 2. */
	tap_ok(NEAR(se, sqrt(1.0 / 12), 1e-12), "its slope's standard error is sqrt(1/12) (%g)", se);
	tap_ok(rc_regress(x2, y2, 3, &a, &b, &se) == 0 && NEAR(b, 0.5, 1e-12) && NEAR(se, 0, 1e-9),
	       "points on a line: exact slope, zero standard error");
	tap_ok(rc_regress(x2, y2, 2, &a, &b, &se) == 0 && se < 0,
	       "two points: a slope but no standard error");
	tap_ok(rc_regress(x2, y2, 1, &a, &b, &se) < 0, "one point: no slope");
	/* L = 4 in flight, 100 arrivals in 1 s: lambda = 1e-7 /ns, W = 4e7 ns. */
	tap_ok(NEAR(rc_littles_latency(4, 100, 1000000000), 4e7, 1e-3),
	       "Little's law: L = 4, lambda = 100/s gives W = 40 ms");
	tap_ok(rc_littles_latency(4, 0, 1000) < 0 && rc_littles_latency(0, 5, 1000) < 0,
	       "Little's law is undefined without arrivals or with nothing in flight");
	/* t_obs / s_obs = 1e6 ns per sample; s / T = 1000 / 4e9. */
	tap_ok(NEAR(rc_phase_factor(2000000000, 2000, 1000, 4000000000ull), 0.25, 1e-12),
	       "Eq. 6: t_obs/s_obs * s/T = 0.25");
	tap_ok(rc_phase_factor(1000, 1, 1000, 1000) == 1, "Eq. 6's factor is clamped to 1");
	tap_ok(rc_phase_factor(1000, 0, 10, 10) == 0 && rc_phase_factor(1000, 5, 10, 0) == 0,
	       "Eq. 6 without samples or runtime: no factor");
}

/*
 * Line a.c:1 halves the period at 100 % (program speedup 0.5 x), with its
 * own 0 % experiments; b.c:2 has none and uses the pooled baseline. The
 * phase factor of a.c:1: t_obs = 5 experiments * 1e8 ns, s_obs = 500,
 * s = 800, T = 1.6e9: 1e6 * 5e-7 = 0.5. b.c:2 has no samples record.
 */
static void test_throughput(void)
{
	struct rc_profile p;
	struct rc_analysis a;
	const struct rc_curve *ca, *cb;
	const struct rc_cpoint *pt;
	char err[512];
	int i;

	throughput_profile();
	for (i = 0; i < 5; i++) {
		double s = i * 0.25;

		/* period = 1e6 * (1 - 0.5 s): delta = 1e8 / period */
		exp_tp("a.c:1", s, 100000000, 100, (unsigned long)lround(100.0 / (1 - 0.5 * s)));
	}
	exp_tp("b.c:2", 0.5, 100000000, 10, 125);	/* period 0.8e6 */
	exp_tp("b.c:2", 1.0, 100000000, 10, 150);
	put("samples\tlocation=a.c:1\tcount=800\n");
	put("callers\tlocation=c.c:9\tcount=7\n");
	put("runtime\ttime=1600000000\n");
	put("end\tstatus=exit:0\tcomplete=1\n");
	tap_ok(load(&p, err, sizeof(err)) == 0, "a synthetic profile reads (%s)", err);
	tap_ok(p.ncallers == 1 && p.callers[0].count == 7 &&
		       !strcmp(p.names.strs[p.callers[0].line], "c.c:9"),
	       "a callers record: the samples of code c.c:9 called");
	tap_ok(rc_analyze(&p, &a) == 0 && a.status == RC_OK, "and analyzes");
	ca = curve(&p, &a, "a.c:1");
	cb = curve(&p, &a, "b.c:2");
	tap_ok(ca && ca->baseline == RC_BASE_LINE && ca->npts == 5, "a.c:1 has its own baseline");
	tap_ok(ca && ca->corrected && NEAR(ca->correction, 0.5, 1e-12),
	       "a.c:1's phase correction is 0.5 (%g)", ca ? ca->correction : -1);
	pt = at(ca, 1.0);
	/* raw (1e6 - 0.5e6)/1e6 = 0.5, times 0.5 */
	tap_ok(pt && NEAR(pt->program_speedup, 0.25, 1e-9),
	       "a.c:1 at 100%%: program speedup 0.5 x 0.5 = 0.25 (%g)", pt ? pt->program_speedup : -1);
	pt = at(ca, 0.5);
	tap_ok(pt && NEAR(pt->program_speedup, 0.125, 0.002), "a.c:1 at 50%%: 0.125 (%g)",
	       pt ? pt->program_speedup : -1);
	tap_ok(ca && NEAR(ca->slope, 0.25, 0.003) && ca->has_se, "a.c:1's slope is 0.25 (%g)",
	       ca ? ca->slope : -1);
	tap_ok(ca && ca->thin == 0, "five line speedups are not thin");
	/* Pooled baseline: only a.c:1's 0 % experiment, period 1e6. */
	tap_ok(cb && cb->baseline == RC_BASE_POOLED && !cb->corrected,
	       "b.c:2 has no 0%% experiment: pooled baseline, no samples: uncorrected");
	pt = at(cb, 1.0);
	tap_ok(pt && NEAR(pt->program_speedup, 1 - 1e8 / 150 / 1e6, 1e-9),
	       "b.c:2 at 100%% against the pooled baseline: 1 - 0.667 (%g)",
	       pt ? pt->program_speedup : -1);
	tap_ok(cb && cb->thin && a.nthin == 1 && a.npooled == 1, "b.c:2 is thin and pooled");
	tap_ok(a.ncurves == 2 && a.curves[0].line == ca->line,
	       "the curve with enough points ranks first although b.c:2's slope is steeper");
	rc_analysis_free(&a);
	rc_profile_free(&p);
}

/*
 * The machine slows down to half speed during the run: four 0 %
 * experiments at a period of 1e6 ns, then three at 2e6, the 50 % one at
 * 1.6e6 (20 % faster than its time's 2e6), three more at 2e6. Priced at
 * its neighbours' period the 50 % point is +0.2; against the whole run's
 * baseline (1.43e6) it would be -0.12.
 */
static void test_drift(void)
{
	struct rc_profile p;
	struct rc_analysis a;
	const struct rc_cpoint *pt;
	char err[512];
	int i;

	throughput_profile();
	for (i = 0; i < 4; i++)
		exp_tp("a.c:1", 0, 100000000, 100, 100);
	for (i = 0; i < 3; i++)
		exp_tp("a.c:1", 0, 100000000, 100, 50);
	exp_tp("a.c:1", 0.5, 80000000, 100, 50);
	for (i = 0; i < 3; i++)
		exp_tp("a.c:1", 0, 100000000, 100, 50);
	put("end\tstatus=exit:0\tcomplete=1\n");
	tap_ok(load(&p, err, sizeof(err)) == 0 && rc_analyze(&p, &a) == 0, "a drifting run analyzes (%s)",
	       err);
	tap_ok(curve(&p, &a, "a.c:1") && curve(&p, &a, "a.c:1")->local, "the curve says so (local)");
	pt = at(curve(&p, &a, "a.c:1"), 0.5);
	tap_ok(pt && NEAR(pt->program_speedup, 0.2, 1e-9),
	       "the 50%% experiment is priced at its neighbours' period: +0.2 (%g)",
	       pt ? pt->program_speedup : -1);
	rc_analysis_free(&a);
	rc_profile_free(&p);
}

/*
 * Latency: arrivals 100 per 1e8 ns (lambda = 1e-6 /ns); in flight 4 at
 * 0 %, 2 at 50 %: W0 = 4e6 ns, W = 2e6 ns, program speedup 0.5. Two runs
 * merged: the 0 % experiments come from both, L averaged by duration.
 */
static void test_latency(void)
{
	struct rc_profile p;
	struct rc_analysis a;
	const struct rc_curve *c;
	const struct rc_cpoint *pt;
	char err[512];

	len = 0;
	header(1);
	put("experiment\tselected=l.c:5\tspeedup=0\tduration=100000000\tselected-samples=3\n");
	put("latency-point\tname=req\tarrivals=100\tdepartures=99\tdifference=3\n");
	put("experiment\tselected=l.c:5\tspeedup=0.5\tduration=100000000\tselected-samples=3\n");
	put("latency-point\tname=req\tarrivals=100\tdepartures=101\tdifference=2\n");
	put("end\tstatus=exit:0\tcomplete=1\n");
	header(2);
	/* 3 for 1e8 and 5 for 1e8: duration-weighted L = 4. */
	put("experiment\tselected=l.c:5\tspeedup=0.00\tduration=100000000\tselected-samples=3\n");
	put("latency-point\tname=req\tarrivals=100\tdepartures=100\tdifference=5\n");
	put("end\tstatus=exit:0\tcomplete=1\n");
	tap_ok(load(&p, err, sizeof(err)) == 0 && p.nruns == 2, "two runs in one text read (%s)",
	       err);
	tap_ok(rc_analyze(&p, &a) == 0 && a.status == RC_OK, "latency analyzes");
	c = curve(&p, &a, "l.c:5");
	pt = at(c, 0.5);
	tap_ok(c && c->latency && pt && NEAR(pt->program_speedup, 0.5, 1e-9),
	       "Little's law: latency halves at 50%%, program speedup 0.5 (%g)",
	       pt ? pt->program_speedup : -1);
	tap_ok(c && !c->corrected && a.nincomplete == 0, "no samples, no phase correction");
	tap_ok(a.npoints == 1 && a.points[0].latency && a.points[0].visits == 300 &&
		       a.points[0].departures == 300,
	       "the latency point sums 300 arrivals and 300 departures over the runs");
	rc_analysis_free(&a);
	rc_profile_free(&p);
}

/*
 * Each point's spread: the standard error of the weighted mean its
 * experiments make. Priced locally (all 0 % experiments at a period of
 * 1e6 ns), the 50 % point has two experiments of 1e8 ns, priced 1.25e8
 * and 1e8 (duration over price 0.8 and 1, weighed by the price); the
 * 100 % point has one experiment, no spread. Against a whole baseline,
 * two 0 % experiments at periods 1e6 and 2e6 (weighed by their 100 and
 * 50 visits) spread the 0 % point of b.c:2.
 */
static void test_spread(void)
{
	struct rc_profile p;
	struct rc_analysis a;
	const struct rc_cpoint *pt;
	double mean, var, n;
	char err[512];
	int i;

	throughput_profile();
	for (i = 0; i < 3; i++)
		exp_tp("a.c:1", 0, 100000000, 100, 100);
	exp_tp("a.c:1", 0.5, 100000000, 100, 125);
	exp_tp("a.c:1", 0, 100000000, 100, 100);
	exp_tp("a.c:1", 0.5, 100000000, 100, 100);
	for (i = 0; i < 3; i++)
		exp_tp("a.c:1", 0, 100000000, 100, 100);
	exp_tp("a.c:1", 1, 100000000, 100, 125);
	for (i = 0; i < 3; i++)
		exp_tp("a.c:1", 0, 100000000, 100, 100);
	put("end\tstatus=exit:0\tcomplete=1\n");
	header(2);
	exp_tp("b.c:2", 0, 100000000, 100, 100);
	exp_tp("b.c:2", 0, 100000000, 100, 50);
	put("end\tstatus=exit:0\tcomplete=1\n");
	tap_ok(load(&p, err, sizeof(err)) == 0 && rc_analyze(&p, &a) == 0, "spread: reads (%s)",
	       err);
	tap_ok(curve(&p, &a, "a.c:1") && curve(&p, &a, "a.c:1")->local, "a.c:1 is priced locally");
	pt = at(curve(&p, &a, "a.c:1"), 0.5);
	mean = 2 / 2.25;
	var = (1.25 * (0.8 - mean) * (0.8 - mean) + (1 - mean) * (1 - mean)) / 2.25;
	n = 2.25 * 2.25 / (1.25 * 1.25 + 1);
	tap_ok(pt && NEAR(pt->program_speedup, 1 - mean, 1e-9) &&
		       NEAR(pt->spread, sqrt(var * n / (n - 1) / n), 1e-9),
	       "the 50%% point: %g +/- %g, the weighted mean's standard error",
	       pt ? pt->program_speedup : -1, pt ? pt->spread : -1);
	pt = at(curve(&p, &a, "a.c:1"), 0);
	tap_ok(pt && NEAR(pt->spread, 0, 1e-12), "0%% experiments alike: no spread (%g)",
	       pt ? pt->spread : -1);
	pt = at(curve(&p, &a, "a.c:1"), 1);
	tap_ok(pt && isnan(pt->spread), "one experiment: spread unknown");
	pt = at(curve(&p, &a, "b.c:2"), 0);
	mean = (100 * 1e6 + 50 * 2e6) / 150;
	var = (100 * (1e6 - mean) * (1e6 - mean) + 50 * (2e6 - mean) * (2e6 - mean)) / 150;
	n = 150.0 * 150 / (100 * 100 + 50 * 50);
	tap_ok(pt && NEAR(pt->spread, sqrt(var * n / (n - 1) / n) / mean, 1e-9),
	       "periods 1e6 and 2e6: the point's spread in program speedup (%g)",
	       pt ? pt->spread : -1);
	rc_analysis_free(&a);
	rc_profile_free(&p);
}

static void test_status_and_coz(void)
{
	struct rc_profile p;
	struct rc_analysis a;
	char err[512], *out = NULL;
	size_t outlen = 0;
	FILE *f;

	len = 0;
	header(7);
	exp_tp("a.c:1", 0, 1000, 1, 0);
	exp_tp("a.c:1", 0.5, 1000, 1, 0);
	put("runtime\ttime=5000\n");
	tap_ok(load(&p, err, sizeof(err)) == 0 && rc_analyze(&p, &a) == 0 &&
		       a.status == RC_NO_PROGRESS && a.nincomplete == 1,
	       "experiments without visits: no progress; no end record: incomplete");
	rc_analysis_free(&a);
	f = open_memstream(&out, &outlen);
	rc_render_coz(f, &p);
	fclose(f);
	tap_ok(out && !strcmp(out, "startup\ttime=1000\n"
				   "experiment\tselected=a.c:1\tspeedup=0\tduration=1000\tselected-samples=1\n"
				   "throughput-point\tname=app.c:99\tdelta=0\n"
				   "experiment\tselected=a.c:1\tspeedup=0.5\tduration=1000\tselected-samples=1\n"
				   "throughput-point\tname=app.c:99\tdelta=0\n"
				   "runtime\ttime=5000\n"),
	       "coz output keeps coz's keys only, in order");
	free(out);
	rc_profile_free(&p);

	len = 0;
	header(8);
	put("end\tstatus=signal:9\tcomplete=0\n");
	tap_ok(load(&p, err, sizeof(err)) == 0 && rc_analyze(&p, &a) == 0 &&
		       a.status == RC_NO_EXPERIMENTS,
	       "a run without experiments");
	rc_analysis_free(&a);
	rc_profile_free(&p);
}

static void bad(const char *body, const char *want, const char *what)
{
	struct rc_profile p;
	char err[512] = "";
	int rc;

	len = 0;
	put("%s", body);
	rc = load(&p, err, sizeof(err));
	tap_ok(rc < 0 && strstr(err, want) != NULL, "%s: '%s'", what, err);
	rc_profile_free(&p);
}

static void test_reader(void)
{
	struct rc_profile p;
	char err[512];

	bad("", "empty", "empty file");
	bad("witch-causal\tversion=1\tpid=1\nstartup\ttime=5", "causal.1:2: truncated",
	    "unterminated last line");
	bad("witch-causal\tversion=2\tpid=1\n", "causal.1:1: causal profile version 2", "version");
	bad("WITCH-PROFILE 1\n", "causal.1:1: not a witch causal profile", "another format");
	bad("witch-causal\tversion=1\n", "without pid=", "header without pid");
	bad("witch-causal\tversion=1\tpid=1\nthroughput-point\tname=x\tdelta=1\n",
	    "causal.1:2: throughput-point before any experiment", "point before experiment");
	bad("witch-causal\tversion=1\tpid=1\nexperiment\tselected=a.c:1\tspeedup=1.5\tduration=1"
	    "\tselected-samples=1\n", "causal.1:2: speedup=1.5", "speedup above 1");
	bad("witch-causal\tversion=1\tpid=1\nexperiment\tselected=a.c:1\tspeedup=0.5\tduration=-1"
	    "\tselected-samples=1\n", "duration=-1 is not a whole number", "negative duration");
	bad("witch-causal\tversion=1\tpid=1\nexperiment\tselected=a.c:1\tspeedup=0.5"
	    "\tselected-samples=1\n", "causal.1:2: experiment record without duration=",
	    "missing field");
	bad("witch-causal\tversion=1\tpid=1\nexperiment\tselected=a.c:1\tspeedup=0.5\tduration=1"
	    "\tselected-samples=1\tstart=12:30\n", "causal.1:2: start=12:30 is not a whole number",
	    "a start that is no time");
	bad("witch-causal\tversion=1\tpid=1\nsamples\tlocation=a.c:1\tcount\n",
	    "causal.1:2: field 'count' is not key=value", "field without =");
	bad("witch-causal\tversion=1\tpid=1\ncallers\tlocation=a.c:1\n",
	    "causal.1:2: callers record without count=", "a callers record without its count");
	bad("witch-causal\tversion=1\tpid=1\n\nruntime\ttime=1\n", "causal.1:2: empty line",
	    "empty line");
	bad("witch-causal\tversion=1\tpid=1\nend\tstatus=exit:0\tcomplete=1\nruntime\ttime=1\n",
	    "causal.1:3: runtime record after the end record", "record after end");
	bad("witch-causal\tversion=1\tpid=1\nBAD KIND\tx=1\n", "unknown record 'BAD KIND'",
	    "malformed record kind");
	len = 0;
	put("witch-causal\tversion=1\tpid=1\nstartup\ttime=1");
	text[len++] = '\0';
	text[len++] = '\n';
	memset(&p, 0, sizeof(p));
	tap_ok(rc_read_text(&p, text, len, "causal.1", err, sizeof(err)) < 0 &&
		       strstr(err, "causal.1:2: binary data"), "NUL byte: '%s'", err);
	rc_profile_free(&p);
	bad("witch-causal\tversion=1\tpid=1\nwitch-causal\tversion=1\tpid=2\n",
	    "causal.1:2: a second witch-causal header", "a second header before end");
	len = 0;
	put("witch-causal\tversion=1\tpid=1\tfuture=yes\nthread-stats\tn=4\nruntime\ttime=9\textra=1\n");
	memset(&p, 0, sizeof(p));
	tap_ok(rc_read_text(&p, text, len, "causal.1", err, sizeof(err)) == 0 && p.nruns == 1 &&
		       p.runs[0].has_runtime && p.runs[0].runtime == 9,
	       "unknown keys and well-formed unknown records are skipped");
	rc_profile_free(&p);
	tap_ok(rc_is_profile_name("causal.123") && rc_is_profile_name("causal.123.2") &&
		       !rc_is_profile_name("causal.123.tmp") && !rc_is_profile_name(".causal.123.tmp") &&
		       !rc_is_profile_name("causal.") && !rc_is_profile_name("causal.12.") &&
		       !rc_is_profile_name("causal.1..2") && !rc_is_profile_name("x.witch"),
	       "causal.PID and causal.PID.N names");
	tap_ok(rc_is_profile_name("causal.hnode-7.cl.r3.123") &&
		       rc_is_profile_name("causal.hnode-7.r0.123.1") &&
		       !rc_is_profile_name("causal.hnode-7.r3.123.tmp") &&
		       !rc_is_profile_name(".causal.hnode-7.r3.123.tmp") &&
		       !rc_is_profile_name("causal.hnode-7.123") && !rc_is_profile_name("causal.r3.123"),
	       "a launcher's ranks': causal.hHOST.rRANK.PID[.N]");
}

int main(void)
{
	test_math();
	test_throughput();
	test_drift();
	test_latency();
	test_spread();
	test_status_and_coz();
	test_reader();
	return tap_done();
}
