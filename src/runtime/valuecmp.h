/*
 * valuecmp.h - are two values of an access the same? Exactly, or, for
 * floating-point data, within a relative tolerance (SilentCraft, LoadCraft).
 */
#ifndef WITCH_VALUECMP_H
#define WITCH_VALUECMP_H

#include <stddef.h>
#include <stdint.h>

enum wt_verdict { WT_USE = 0, WT_WASTE, WT_APPROX };

/*
 * Compare old and now (both `total` bytes, the whole access) over the
 * bytes [off, off + n). WT_WASTE when those bytes are identical; else, for
 * dtype WD_F32/WD_F64 and tol > 0, WT_APPROX when every element wholly in
 * the range is within tol of the other relatively (elements only partly in
 * the range must match exactly); else WT_USE. NaN matches NaN, -0 matches
 * +0, an infinity matches only itself.
 */
enum wt_verdict wt_compare_values(const uint8_t *old, const uint8_t *now, size_t total,
				  size_t off, size_t n, int dtype, double tol);

#endif
