/*
 * test_compare.c - witch compare's arithmetic on hand-made sides: the
 * sampled redundancy reweighted by the reference's judged bytes per
 * watched site, how much of the reference those sites cover, and what the
 * reference itself says on them.
 */
#include "tap.h"
#include "report/compare.h"

#include <math.h>
#include <string.h>

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void side(struct wr_side *s, struct wr_watched *w, size_t n)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->watched = w;
	s->nwatched = n;
	for (i = 0; i < n; i++)
		s->judged += w[i].judged;
}

int main(void)
{
	/* The demo's shape: a site all waste and a site all use, equal in
	 * the truth; the sampler saw the useful one nine times as often. */
	struct wr_watched ref[] = { { "clear", 100, 100 }, { "blur", 0, 100 } };
	struct wr_watched samp[] = { { "blur", 0, 90 }, { "clear", 10, 10 } };
	struct wr_watched part[] = { { "clear", 3, 4 } };
	struct wr_watched none[] = { { "elsewhere", 1, 1 } };
	struct wr_comparison c;

	memset(&c, 0, sizeof(c));
	side(&c.a, samp, 2);
	side(&c.b, ref, 2);
	wr_compare(&c, 5);
	tap_ok(near(c.reweighted, 0.5), "weighted as the reference weighs its sites: 0.5 (got %g)",
	       c.reweighted);
	tap_ok(near(c.coverage, 1.0), "every reference site sampled: coverage 1 (got %g)", c.coverage);
	tap_ok(near(c.reweighted_reference, 0.5), "the reference on the same sites: 0.5 (got %g)",
	       c.reweighted_reference);

	/* Only one of the two sites sampled, at 3/4 waste: the reweighted
	 * value is that site's, over half the reference. */
	side(&c.a, part, 1);
	wr_compare(&c, 5);
	tap_ok(near(c.reweighted, 0.75), "one site: its own redundancy, 0.75 (got %g)", c.reweighted);
	tap_ok(near(c.coverage, 0.5), "it holds half the reference (got %g)", c.coverage);
	tap_ok(near(c.reweighted_reference, 1.0),
	       "where the reference says all waste: the verdicts are 0.25 off, the unwatched site "
	       "the rest (got %g)", c.reweighted_reference);

	/* No site in common: nothing to reweigh. */
	side(&c.a, none, 1);
	wr_compare(&c, 5);
	tap_ok(isnan(c.reweighted) && isnan(c.reweighted_reference),
	       "no common site: no reweighted redundancy");
	tap_ok(near(c.coverage, 0.0), "and coverage 0 (got %g)", c.coverage);

	/* A site the sampler saw but never judged (all its watches ended
	 * unresolved) cannot lend a redundancy. */
	samp[1].judged = 0;
	samp[1].waste = 0;
	side(&c.a, samp, 2);
	wr_compare(&c, 5);
	tap_ok(near(c.reweighted, 0.0) && near(c.coverage, 0.5),
	       "a site with nothing judged is left out (got %g over %g)", c.reweighted, c.coverage);
	return tap_done();
}
