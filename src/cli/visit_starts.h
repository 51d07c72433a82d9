/*
 * visit_starts.h - where visits of a source line start, given one
 * function's control flow, which of its blocks hold code of other lines,
 * and the line's candidate places (docs/causal.md, "Which addresses
 * --progress counts"):
 *
 *  1. candidates: the line's statement rows, or all its rows when a copy
 *     of the line has none;
 *  2. hoisted code: a loop that holds code of other lines and candidates
 *     of a copy runs the line each iteration; the copy's candidates
 *     outside it ran once before or after it (code moved out of the loop,
 *     the loop's set-up). Only those in the most deeply nested such loops
 *     stay;
 *  3. starts: control is in a visit of a copy from one of its candidates
 *     on, until it runs code of another line. A candidate reached while in
 *     no visit of its copy starts one; one reached in such a visit is a
 *     later step of it, and so is one that another candidate of its copy
 *     precedes on every path within their loop's iteration (dominates):
 *     the compiler scheduled other code between two of its statements.
 */
#ifndef WITCH_CLI_VISIT_STARTS_H
#define WITCH_CLI_VISIT_STARTS_H

#include <stddef.h>
#include <stdint.h>

#include "cli/code_flow.h"

struct visit_cand {
	uint32_t block;		/* the block it starts; FLOW_NONE: not reached */
	uint32_t copy;		/* which copy of the line: the function's own or an inlined one */
	int stmt;		/* a statement row */
	int start;		/* out: visits start here */
	int again;		/* out: a visit of its copy begun elsewhere may pass here too,
				   and counts twice then */
};

/* Mark the starts among c[0..n); other[b]: block b holds code of other
 * lines. -1 when out of memory. */
int visit_starts(const struct flow *f, const char *other, struct visit_cand *c, size_t n);

#endif
