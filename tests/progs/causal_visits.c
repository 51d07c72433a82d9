/*
 * causal_visits - lines whose visits `witch causal --progress=FILE:LINE`
 * must count as a COZ_PROGRESS on the same line counts them
 * (tests/e2e/54-causal-progress.t); the COZ_PROGRESS_NAMED on each
 * marked line ("visits: MODE") is named MODE. Built -O2 -g, each mode's
 * loop runs ROUNDS rounds and spreads its marked line out:
 *
 *   hoisted  the line's lowest address is code hoisted before the loop
 *   split    the line's code is in a condition, both arms and after them,
 *            and its lowest address is hoisted too
 *   inlined  the line is in a static inline function called twice a round
 *   header   the line of the loop's header, whose latch the compiler copies
 *            into two paths
 *   never    the line never runs; its neighbours do
 *   again    a goto enters the line midway: visits start at its first
 *            statement or at the label, and those from the first pass
 *            the label too
 *
 *   causal_visits MODE [ROUNDS [N]]   (N: the length of each round's work,
 *                                      default 20000)
 */
#include <coz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static double spin(long n, double k)
{
	double s = 0;

	for (volatile long i = 0; i < n; i++)
		s += k;
	return s;
}

static inline double helper(double v, long n)
{
	double r = spin(n, v) * 0.5; COZ_PROGRESS_NAMED("inlined"); return r;	/* visits: inlined */
}

__attribute__((noinline)) static double hoisted(long rounds, long n)
{
	double t = 0;

	for (long r = 0; r < rounds; r++) {
		t += spin(n, 1.0);
		t += spin(n, 2.0);
		if (t < -1) puts("never"); COZ_PROGRESS_NAMED("hoisted");	/* visits: hoisted */
	}
	return t;
}

__attribute__((noinline)) static double split(long rounds, long n)
{
	double t = 0;

	for (long r = 0; r < rounds; r++) {
		if (r % 3) t += spin(n, 1.0); else t -= spin(2 * n, 0.5); COZ_PROGRESS_NAMED("split");	/* visits: split */
		t *= 0.999;
	}
	return t;
}

__attribute__((noinline)) static double inlined(long rounds, long n)
{
	double t = 0;

	for (long r = 0; r < rounds; r++) {
		t += helper(1.0, n);
		t -= helper(t, n / 2);
	}
	return t;
}

__attribute__((noinline)) static double header(long rounds, long n)
{
	double t = 0;

	for (long r = 0; r < rounds; r++, ({ COZ_PROGRESS_NAMED("header"); })) {	/* visits: header */
		t += spin(n, (double)r);
		if (t < -1)
			puts("never");
	}
	return t;
}

__attribute__((noinline)) static double never(long rounds, long n)
{
	double t = 0;

	for (long r = 0; r < rounds; r++) {
		t += spin(n, 1.0);
		if (t < -1) {
			t = spin(n, t);	/* visits: never */
			puts("never");
		}
		t *= 0.999;
	}
	return t;
}

__attribute__((noinline)) static double again(long rounds, long n)
{
	double t = 0;

	for (long r = 0; r < rounds; r++) {
		if (r & 1)
			goto mid;
		t += spin(n, 1.0); mid: t += spin(n, 2.0);	/* visits: again */
	}
	return t;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		double (*run)(long, long);
	} modes[] = {
		{ "hoisted", hoisted }, { "split", split }, { "inlined", inlined },
		{ "header", header }, { "never", never }, { "again", again },
	};
	long rounds = argc > 2 ? atol(argv[2]) : 4000, n = argc > 3 ? atol(argv[3]) : 20000;
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name)) {
			printf("%s: %ld rounds, %.0f\n", argv[1], rounds, modes[i].run(rounds, n));
			return 0;
		}
	fprintf(stderr, "usage: causal_visits hoisted|split|inlined|header|never|again "
			"[ROUNDS [N]]\n");
	return 2;
}
