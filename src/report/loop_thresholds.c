/*
 * loop_thresholds.c - what tool loop's thresholds decide, and how they
 * are written back to people.
 *
 * R and RI are kept in billionths as the profile wrote them, so that a
 * loop whose redundant iterations are exactly RI of its data-intensive
 * ones is flagged (Prometheus's ">= RI_TH"), which floating point could
 * get wrong either way.
 */
#include "report/loop.h"

#include <stdio.h>
#include <string.h>

int wr_loop_flagged(const struct wp_thresholds *t, const struct wr_loop_row *row)
{
	unsigned __int128 redundant = row->redundant_iterations, data = row->data_iterations;

	return data > 0 && redundant * WP_BILLION >= data * t->ri;
}

const char *wr_loop_fraction(uint32_t billionths, char *buf, size_t cap)
{
	char digits[16];
	int n;

	if (billionths % WP_BILLION == 0) {
		snprintf(buf, cap, "%u", billionths / WP_BILLION);
		return buf;
	}
	n = snprintf(digits, sizeof(digits), "%09u", billionths % WP_BILLION);
	while (n > 1 && digits[n - 1] == '0')
		digits[--n] = '\0';
	snprintf(buf, cap, "%u.%s", billionths / WP_BILLION, digits);
	return buf;
}

const char *wr_loop_thresholds(const struct wp_thresholds *t, char *buf, size_t cap)
{
	char r[24], ri[24];

	snprintf(buf, cap, "%llu,%s,%s", (unsigned long long)t->a,
		 wr_loop_fraction(t->r, r, sizeof(r)), wr_loop_fraction(t->ri, ri, sizeof(ri)));
	return buf;
}
