/*
 * cmd_compare.c - `witch compare SAMPLED REFERENCE`: how far a sampled
 * profile is from an exhaustive one (or any two profiles of one kind).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/number.h"
#include "cli/report_out.h"
#include "report/compare.h"
#include "report/html/html.h"
#include "report/report.h"
#include "report/symbolize.h"
#include "cli/oneline.h"

#define USAGE "usage: witch compare [--top=N] [--full-contexts] [--format=text|json|html] [-o FILE] " \
	"SAMPLED REFERENCE"

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_HTML };

/* One line on stderr, whatever the paths it quotes hold (cli/oneline.h). */
#define fail(...) cli_fail("witch compare", 1, __VA_ARGS__)

static int load(struct wr_side *side, char *path, char *err, size_t errlen)
{
	side->r = wr_report_new();
	if (!side->r)
		return snprintf(err, errlen, "out of memory"), -1;
	if (wr_load(side->r, &path, 1, err, errlen) || wr_report_finish(side->r))
		return -1;
	side->s = wr_sym_new(side->r, stderr);
	if (!side->s)
		return snprintf(err, errlen, "out of memory"), -1;
	return 0;
}

/* Both loaded: how to key each module's frames, then the sites. */
static int sites(struct wr_comparison *c, int full, char *err, size_t errlen)
{
	if (wr_sides_agree(&c->a, &c->b) || wr_side_sites(&c->a, full) || wr_side_sites(&c->b, full))
		return snprintf(err, errlen, "out of memory"), -1;
	return 0;
}

/* Comparing weighs bytes wasted and used: the tools that judge accesses
 * have them, rvn's counts and witch cpi's times do not. */
static int comparable(const char *path, const struct wr_report *r, char *err, size_t errlen)
{
	if (r->tool->relation && !r->tool->counts_executions)
		return 0;
	snprintf(err, errlen, "compare takes dead, silent or load profiles (of witch record or witch "
		 "spy); %s holds tool %s's: see it with `witch report %s`", path, r->tool->name, path);
	return -1;
}

static void unload(struct wr_side *side)
{
	wr_side_free(side);
	if (side->s)
		wr_sym_free(side->s);
	if (side->r)
		wr_report_free(side->r);
}

/* Both loaded and comparable: the comparison on stdout; the exit status. */
static int compare(char **paths, int full, enum format format, long top)
{
	struct wr_comparison c;
	char err[1024];
	int rc = 0;

	memset(&c, 0, sizeof(c));
	if (load(&c.a, paths[0], err, sizeof(err)) || load(&c.b, paths[1], err, sizeof(err)) ||
	    comparable(paths[0], c.a.r, err, sizeof(err)) ||
	    comparable(paths[1], c.b.r, err, sizeof(err)) || sites(&c, full, err, sizeof(err))) {
		rc = fail("%s", err);
	} else if (strcmp(c.a.r->tool->what, c.b.r->tool->what)) {
		snprintf(err, sizeof(err), "%s measures %s but %s measures %s; compare profiles of one kind",
			 paths[0], c.a.r->tool->what, paths[1], c.b.r->tool->what);
		rc = fail("%s", err);
	} else {
		wr_compare(&c, (size_t)top);
		if (format == FORMAT_HTML)
			rc = wr_html_compare(stdout, &c) ? fail("out of memory") : 0;
		else if (format == FORMAT_JSON)
			wr_render_compare_json(stdout, &c);
		else
			wr_render_compare_text(stdout, &c);
		if (!rc && (fflush(stdout) || ferror(stdout)))
			rc = fail("cannot write the comparison: %s", strerror(errno));
	}
	unload(&c.a);
	unload(&c.b);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	enum format format = FORMAT_TEXT;
	struct report_out out;
	const char *file = NULL;
	char *paths[2];
	int i, np = 0, full = 0, rc;
	long top = 5;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--top=", 6)) {
			if (cli_long(a + 6, 1, 1000000, &top))
				return fail("--top needs a positive whole number, not '%s'", a + 6);
		} else if (!strcmp(a, "--full-contexts")) {
			full = 1;
		} else if (!strcmp(a, "--format=json")) {
			format = FORMAT_JSON;
		} else if (!strcmp(a, "--format=text")) {
			format = FORMAT_TEXT;
		} else if (!strcmp(a, "--format=html")) {
			format = FORMAT_HTML;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 == argc)
				return fail("%s needs a file name; %s", a, USAGE);
			file = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			file = a + 9;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("%s\n\nCompares the redundancy and the top pairs of a sampled profile with a "
			       "reference\n(exhaustive) one of the same program and kind. Pairs match on the "
			       "source\nlocations of their watch and trap sites (the first frame outside "
			       "glibc's\nstring routines), or, for a binary with debug information on one "
			       "side only,\ntheir functions and code offsets; --full-contexts matches whole "
			       "calling contexts.\n\n--format=html writes a page to open in a browser, the two "
			       "sides side by side;\n-o FILE writes to FILE (whole, or not at all) instead of "
			       "stdout.\n",
			       USAGE);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			return fail("unknown option '%s'; " USAGE, a);
		} else if (np < 2) {
			paths[np++] = argv[i];
		} else {
			return fail("give exactly two profiles; %s", USAGE);
		}
	}
	if (np != 2)
		return fail("give two profiles (sampled, then reference); %s", USAGE);
	if (file && report_out_open(&out, "witch compare", file))
		return 1;
	rc = compare(paths, full, format, top);
	if (file && report_out_close(&out, "witch compare", rc == 0))
		rc = 1;
	return rc;
}
