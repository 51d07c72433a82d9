/*
 * report_gate.h - witch report --fail-above=FRACTION: the CI gate.
 *
 * A build fails when its profile shows more waste than the project
 * accepts: the report is printed as usual, then one line on stderr says
 * what was above what, and witch report exits GATE_ABOVE.
 */
#ifndef WITCH_CLI_REPORT_GATE_H
#define WITCH_CLI_REPORT_GATE_H

struct wr_report;

#define GATE_ABOVE 3	/* the exit status of a report above the limit */
#define GATE_MISUSE 2	/* a bad limit, or a profile the gate does not apply to */

/* "0.1", ".1", "1", "10%", "12.5%": a decimal in [0, 1] or a percentage
 * in [0, 100] into *limit, 0; -1 for anything else. */
int gate_parse(const char *s, double *limit);

/* The name of the figure the gate compares for r's tool ("dead
 * fraction"), or NULL when it applies to none of its figures. */
const char *gate_figure(const struct wr_report *r);

/*
 * Compare r's figure with limit (arg: --fail-above's value as given).
 * Above it (strictly): one line on stderr, GATE_ABOVE; else 0.
 */
int gate_judge(const struct wr_report *r, const char *arg, double limit);

#endif
