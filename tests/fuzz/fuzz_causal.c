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
	struct wc_profile p;
	struct wc_analysis a;
	char err[512];
	FILE *null;

	memset(&p, 0, sizeof(p));
	if (wc_read_text(&p, (const char *)data, size, "fuzz", err, sizeof(err)) == 0 &&
	    wc_analyze(&p, &a) == 0) {
		null = fopen("/dev/null", "w");
		if (null) {
			wc_render_text(null, &p, &a, 0);
			wc_render_json(null, &p, &a, 3);
			wc_render_coz(null, &p);
			wc_render_warnings(null, &p, &a);
			fclose(null);
		}
		wc_analysis_free(&a);
	}
	wc_read_functions(&p, (const char *)data, size);
	wc_profile_free(&p);
	return 0;
}
