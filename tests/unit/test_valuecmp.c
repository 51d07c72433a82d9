/*
 * The value comparison of SilentCraft and LoadCraft: exact bytes, and
 * floating-point elements within a relative tolerance.
 */
#include <math.h>
#include <string.h>

#include "runtime/decode.h"
#include "runtime/valuecmp.h"
#include "tap.h"

static enum wt_verdict dd(double a, double b, double tol)
{
	return wt_compare_values((uint8_t *)&a, (uint8_t *)&b, 8, 0, 8, WD_F64, tol);
}

static enum wt_verdict ff(float a, float b, double tol)
{
	return wt_compare_values((uint8_t *)&a, (uint8_t *)&b, 4, 0, 4, WD_F32, tol);
}

int main(void)
{
	double v4a[4] = { 1, 2, 3, 4 }, v4b[4] = { 1, 2, 3.00001, 4 }, v4c[4] = { 1, 2, 3, 5 };
	int ia = 7, ib = 7, ic = 8;

	tap_ok(dd(1.5, 1.5, 0.01) == WT_WASTE, "identical doubles are exact waste");
	tap_ok(dd(1.0, 1.00001, 0.01) == WT_APPROX, "1 vs 1.00001: approximate");
	tap_ok(dd(1.0, 1.00001, 0) == WT_USE, "with tolerance 0: use");
	tap_ok(dd(1.0, 1.1, 0.01) == WT_USE, "10 %% apart: use");
	tap_ok(dd(-1.0, 1.0, 0.01) == WT_USE, "opposite signs: use");
	tap_ok(dd(0.0, -0.0, 0.01) == WT_APPROX, "+0 and -0: approximate (bytes differ)");
	tap_ok(dd(0.0, 1e-300, 0.01) == WT_USE, "0 and a tiny number: use (relative)");
	tap_ok(dd(NAN, NAN, 0.01) == WT_WASTE, "same NaN bytes: exact");
	tap_ok(dd(NAN, -NAN, 0.01) == WT_APPROX, "NaN and another NaN: approximate");
	tap_ok(dd(NAN, 1.0, 0.01) == WT_USE, "NaN and a number: use");
	tap_ok(dd(INFINITY, INFINITY, 0.01) == WT_WASTE, "same infinity: exact");
	tap_ok(dd(INFINITY, -INFINITY, 0.01) == WT_USE, "opposite infinities: use");
	tap_ok(dd(INFINITY, 1e308, 0.01) == WT_USE, "infinity and a large finite number: use");
	tap_ok(ff(100.0f, 100.5f, 0.01) == WT_APPROX, "floats within 0.5 %%: approximate");
	tap_ok(ff(100.0f, 102.0f, 0.01) == WT_USE, "floats 2 %% apart: use");
	tap_ok(wt_compare_values((uint8_t *)v4a, (uint8_t *)v4b, 32, 0, 32, WD_F64, 0.01) == WT_APPROX,
	       "a vector with one element slightly off: approximate");
	tap_ok(wt_compare_values((uint8_t *)v4a, (uint8_t *)v4c, 32, 0, 32, WD_F64, 0.01) == WT_USE,
	       "a vector with one element far off: use");
	tap_ok(wt_compare_values((uint8_t *)v4a, (uint8_t *)v4c, 32, 0, 16, WD_F64, 0.01) == WT_WASTE,
	       "only the overlapping bytes count");
	tap_ok(wt_compare_values((uint8_t *)v4a, (uint8_t *)v4b, 32, 20, 8, WD_F64, 0.01) == WT_USE,
	       "an element only partly in the overlap must match exactly");
	tap_ok(wt_compare_values((uint8_t *)&ia, (uint8_t *)&ib, 4, 0, 4, WD_INT, 0.01) == WT_WASTE,
	       "equal integers: waste");
	tap_ok(wt_compare_values((uint8_t *)&ia, (uint8_t *)&ic, 4, 0, 4, WD_INT, 0.5) == WT_USE,
	       "integers never match approximately");
	return tap_done();
}
