/*
 * fuzz_causal.c - libFuzzer on the causal profile reader, the analysis and
 * the three renderers, and on the line-table reader of the report: any
 * bytes either read or fail with a message, never crash.
 */
#include "report/causal_analysis.h"
#include "report/causal_profile.h"
#include "report/causal_render.h"

#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct rc_profile p;
	struct rc_analysis a;
	char err[512];
	FILE *null;

	memset(&p, 0, sizeof(p));
	if (rc_read_text(&p, (const char *)data, size, "fuzz", err, sizeof(err)) == 0 &&
	    rc_analyze(&p, &a) == 0) {
		null = fopen("/dev/null", "w");
		if (null) {
			rc_render_text(null, &p, &a, 0);
			rc_render_json(null, &p, &a, 3);
			rc_render_coz(null, &p);
			rc_render_warnings(null, &p, &a);
			fclose(null);
		}
		rc_analysis_free(&a);
	}
	rc_read_functions(&p, (const char *)data, size);
	rc_profile_free(&p);
	return 0;
}
