/*
 * share_object.c - what a shared cache line holds (share.h): the
 * variable a byte of it belongs to, from the module's symbol table, or
 * the heap block the runtime found the store in.
 */
#include "report/report.h"
#include "report/share.h"
#include "report/symbolize.h"

#include <string.h>

void wr_share_at(struct wr_symbolizer *s, const struct wr_report *r, const struct wr_share_line *l,
		 unsigned off, struct wr_share_at *at)
{
	uint64_t a = l->line + off, start;

	(void)r;
	memset(at, 0, sizeof(*at));
	if (l->module >= 0) {
		if (wr_sym_data(s, l->module, a, &at->variable, &start)) {
			at->place = WR_PLACE_VARIABLE;
			at->offset = a - start;
		}
		return;
	}
	if (l->block && a >= l->block && a - l->block < l->block_size) {
		at->place = WR_PLACE_HEAP;
		at->offset = a - l->block;
	}
}
