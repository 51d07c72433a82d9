#include <string.h>

#include "runtime/decode.h"
#include "runtime/valuecmp.h"

/* Without libm: it would add ~300 KB to every profiled process. */
static double magnitude(double x)
{
	return x < 0 ? -x : x;
}

static int close_enough(double a, double b, double tol)
{
	double ma = magnitude(a), mb = magnitude(b);

	if (a != a || b != b)			/* NaN matches only NaN */
		return a != a && b != b;
	if (ma > 1.7976931348623157e308 || mb > 1.7976931348623157e308)
		return a == b;			/* infinities match only themselves */
	return magnitude(a - b) <= tol * (ma > mb ? ma : mb);
}

static double element(const uint8_t *p, size_t esz)
{
	float f;
	double d;

	if (esz == 4) {
		memcpy(&f, p, 4);
		return f;
	}
	memcpy(&d, p, 8);
	return d;
}

enum wt_verdict wt_compare_values(const uint8_t *old, const uint8_t *now, size_t total,
				  size_t off, size_t n, int dtype, double tol)
{
	size_t esz = dtype == WD_F32 ? 4 : dtype == WD_F64 ? 8 : 0, i;

	if (!memcmp(old + off, now + off, n))
		return WT_WASTE;
	if (!esz || !(tol > 0))
		return WT_USE;
	for (i = 0; i + esz <= total; i += esz) {
		if (i + esz <= off || i >= off + n)
			continue;
		if (i < off || i + esz > off + n) {
			/* A partly covered element compares exactly. */
			if (memcmp(old + i, now + i, esz))
				return WT_USE;
			continue;
		}
		if (!close_enough(element(old + i, esz), element(now + i, esz), tol))
			return WT_USE;
	}
	return WT_APPROX;
}
