/*
 * libFuzzer target: arbitrary bytes through the profile reader, then, when
 * they parse, through merging and the metrics. Must never crash, leak or
 * hit undefined behaviour (built with ASan and UBSan).
 */
#include <stdint.h>

#include "profile/reader.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wp_profile *p;
	struct wr_report *r;
	char err[512];

	if (wp_parse("fuzz.witch", (const char *)data, size, &p, err, sizeof(err)) == 0) {
		r = wr_report_new();
		if (r && wr_merge(r, p, err, sizeof(err)) == 0 && wr_merge(r, p, err, sizeof(err)) == 0)
			wr_report_finish(r);
		wr_report_free(r);
		wp_free(p);
	}
	return 0;
}
