/*
 * stacks.h - the weighted calling contexts that the stack formats show
 * (folded, pprof): one walk over a report's pairs, or witch cpi's
 * sampled contexts, shared by both so that they weigh the same.
 *
 * Each context comes with its frames' names as a folded stack names them
 * ("main;scale", root first). Several contexts read as one stack when
 * their frames have the same names (two instructions of one function are
 * one frame to a flame graph); sorted by those names, such contexts are
 * adjacent, and a stack's weight is rounded once, from their exact sum.
 */
#ifndef WITCH_REPORT_STACKS_H
#define WITCH_REPORT_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct wr_report;
struct wr_symbolizer;
struct wr_frame;

struct wr_stack {
	char *frames;		/* "main;scale", root first, names made safe */
	uint32_t ctx;		/* the context */
	uint64_t weight;	/* exact: unit of it make one of the output's */
};

struct wr_stacks {
	struct wr_stack *v;	/* sorted by frames, then context */
	size_t n, cap;
	uint64_t unit;		/* 1000 for waste, in thousandths of a byte; else 1 */
	char *buf;		/* the stack being named */
	size_t len, bufcap;
};

/*
 * Each pair with a weight (waste, or rvn's redundant executions; the
 * ranking's) on its first context (watch, rvn's first) or, with second,
 * its second (trap, again). -1 when out of memory; wr_stacks_free()
 * either way.
 */
int wr_stacks_of_pairs(struct wr_stacks *st, const struct wr_report *r, struct wr_symbolizer *s,
		       int second);

/* witch cpi's sampled run: each context with its own CPU time in ns
 * (its samples', not its callees'). */
int wr_stacks_of_time(struct wr_stacks *st, const struct wr_report *r, struct wr_symbolizer *s);

/* The end of the stack that starts at v[i]: the first entry past i whose
 * frames differ. */
size_t wr_stacks_end(const struct wr_stacks *st, size_t i);

/* An exact weight (or a sum of them) in whole output units, rounded to
 * nearest. */
uint64_t wr_stacks_whole(const struct wr_stacks *st, uint64_t weight);

/* a + b, at most UINT64_MAX. */
uint64_t wr_stacks_add(uint64_t a, uint64_t b);

void wr_stacks_free(struct wr_stacks *st);

/* What a stack calls a frame: its function, else "[module]" (the file's
 * base name, as perf's stack collapsers name unknown code: its offsets
 * would split one function into many frames), else "[unknown]". May use
 * buf. */
const char *wr_stack_frame_name(const struct wr_report *r, const struct wr_frame *fr, char *buf,
				size_t cap);

#endif
