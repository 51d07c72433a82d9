/*
 * report_gate.c - witch report --fail-above (cli/report_gate.h).
 *
 * The figure is the report's headline, the one a person reads first and
 * JSON gives as totals.redundancy: the exact waste fraction of WITCH's
 * Eq. 1 for the access tools (approximate floating-point matches are
 * reported apart and do not count), and for rvn the redundant share of its
 * computations, the tool's own measure. A profile with nothing observed
 * has 0: no evidence of waste is not waste.
 */
#include "cli/oneline.h"
#include "cli/report_gate.h"
#include "report/loop.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gate_parse(const char *s, double *limit)
{
	size_t n = strlen(s), digits = strspn(s, "0123456789.");
	int percent = n && s[n - 1] == '%';
	const char *dot = strchr(s, '.');
	char buf[64];
	double v;

	/* Digits and at most one point, then '%' or nothing: strtod alone
	 * would take " 1", "-0", "1e-1", "0x1p-3", "nan" and "inf". */
	if (digits != n - (size_t)percent || digits == 0 || (dot && strchr(dot + 1, '.')) ||
	    strspn(s, ".") == digits || digits + 4 > sizeof(buf))
		return -1;
	/* "12.5%" as "12.5e-2": one correctly rounded conversion, so that
	 * "10%" and "0.1" are the same double and compare alike. */
	snprintf(buf, sizeof(buf), "%.*s%s", (int)digits, s, percent ? "e-2" : "");
	v = strtod(buf, NULL);
	if (!(v >= 0 && v <= 1))
		return -1;
	*limit = v;
	return 0;
}

const char *gate_figure(const struct wr_report *r)
{
	static const char *const waste_tools[] = {
		"dead", "silent", "load", "deadspy", "redspy", "loadspy",
	};
	size_t i;

	if (!strcmp(r->tool->name, "rvn"))
		return "redundant computations";
	for (i = 0; i < sizeof(waste_tools) / sizeof(waste_tools[0]); i++)
		if (!strcmp(r->tool->name, waste_tools[i]))
			return r->tool->fraction;
	/* Tool loop has no fraction: its gate is any flagged loop. */
	if (r->loops)
		return "flagged loops";
	return NULL;
}

static double figure(const struct wr_report *r)
{
	struct wr_kind_total t[WR_KINDS + 1];

	if (r->tool->counts_executions) {
		wr_kind_totals(r, t);
		return wr_ratio(t[0].redundant, t[0].all);
	}
	/* As render_json.c's totals.redundancy: approximate waste with use. */
	return wr_redundancy(r->waste_milli, wr_all_waste(r->use_milli, r->approx_milli));
}

int gate_judge(const struct wr_report *r, const char *arg, double limit)
{
	double v;
	char pct[32];
	int p;

	if (r->loops) {
		if (!r->loops->nflagged)
			return 0;
		return cli_fail("witch report", GATE_ABOVE, "%zu loop%s flagged, --fail-above allows none",
				r->loops->nflagged, r->loops->nflagged == 1 ? "" : "s");
	}
	v = figure(r);
	if (!(v > limit))
		return 0;
	/* As few decimals as show it above: 10.004% must not read 10.0%. */
	for (p = 1; p < 9; p++) {
		snprintf(pct, sizeof(pct), "%.*f", p, 100.0 * v);
		if (strtod(pct, NULL) / 100.0 > limit)
			break;
	}
	return cli_fail("witch report", GATE_ABOVE, "%s %s%% is above --fail-above=%s",
			gate_figure(r), pct, arg);
}
