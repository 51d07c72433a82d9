/*
 * loop.h - tool loop's profiles merged: loops whose iterations re-read the
 * (address, value) pairs that earlier iterations of the same invocation
 * read (witch spy --tool=loop, docs/spy.md).
 *
 * A loop is its module and header offset, whatever process described it.
 * A row is one loop in one calling context (the context's leaf is the
 * loop's header), its counters summed over threads and processes; a
 * row's loads are its x records, merged by the load's context. Which
 * loops are flagged follows from the profiles' thresholds, which must
 * agree.
 */
#ifndef WITCH_REPORT_LOOP_H
#define WITCH_REPORT_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/reader.h"
#include "report/map.h"

struct wr_report;
struct wr_symbolizer;

struct wr_loop {
	int32_t module;		/* report module index */
	uint64_t header;	/* offset of its header's first instruction */
	uint32_t parent;	/* index into loops of the enclosing loop; WR_NONE */
	uint32_t depth;
	uint32_t first_line, last_line;	/* 0 when unknown */
	char *file;		/* NULL when unknown */
};

struct wr_loop_row {
	uint32_t loop;		/* index into loops */
	uint32_t ctx;		/* its calling context, the header as leaf */
	uint64_t invocations, iterations, data_iterations, redundant_iterations;
	uint64_t reads, redundant_reads;
	int flagged;		/* set by wr_loops_finish() */
};

struct wr_loop_load {
	uint32_t row;		/* index into rows */
	uint32_t load;		/* the load's context */
	uint64_t redundant_reads;
};

struct wr_loops {
	struct wr_loop *loops;
	size_t nloops, cap_loops;
	struct wr_loop_row *rows;
	size_t nrows, cap_rows;
	struct wr_loop_load *loads;
	size_t nloads, cap_loads;
	struct wr_map loop_map, row_map, load_map;

	/* Set by wr_loops_finish(). */
	uint32_t *ranked;	/* every row: flagged first, then by redundant reads, reads */
	size_t nflagged;	/* the first nflagged ranked rows */
	size_t nreading;	/* rows that read something */
	uint64_t redundant_reads;	/* all rows' */
	uint32_t *by_row;	/* loads' indices grouped by row ... */
	size_t *row_loads;	/* ... row i's from by_row[row_loads[i]] to [row_loads[i + 1]] */
};

/* Merging (loop_merge.c). The profile's loops as report loops: *lmap[i]
 * is the index of the profile's loop i (malloc'd). -1 when out of memory. */
int wr_loops_add(struct wr_report *r, const struct wp_profile *p, const int32_t *modmap,
		 uint32_t **lmap);
/* A thread's l and x records, its nodes already mapped to contexts. */
int wr_loops_add_thread(struct wr_report *r, const struct wp_thread *t, const uint32_t *lmap,
			const uint32_t *ctxof);
void wr_loops_free(struct wr_loops *l);

/* The thresholds (loop_thresholds.c). Is the row flagged: data-intensive
 * iterations, and redundant ones at least RI of them (exactly)? */
int wr_loop_flagged(const struct wp_thresholds *t, const struct wr_loop_row *row);
/* "10,0.9,0.8", as --thresholds takes them, into buf. */
const char *wr_loop_thresholds(const struct wp_thresholds *t, char *buf, size_t cap);
/* A fraction in billionths as a short decimal ("0.9", "1"), into buf. */
const char *wr_loop_fraction(uint32_t billionths, char *buf, size_t cap);

/* After the last profile (loop_rank.c): flags, ranking, the loads'
 * index by row. -1 when out of memory. */
int wr_loops_finish(struct wr_report *r);

/* One load instruction's redundant reads in a row (loop_sites.c). */
struct wr_loop_site {
	const char *function;	/* NULL when unknown */
	const char *file;	/* NULL when unknown */
	int line;		/* 0 when unknown */
	int32_t module;		/* the load's, -1 when none */
	uint64_t offset;	/* the load's (the largest one's, for a line of several) */
	uint64_t redundant_reads;
};

#define WR_LOOP_TOP_READS 5	/* load instructions shown per loop */

/* The row's load instructions, merged by (function, file, line), most
 * redundant reads first: at most max into out; their number, or -1 when
 * out of memory. */
long wr_loop_top_reads(struct wr_symbolizer *s, const struct wr_report *r, uint32_t row,
		       struct wr_loop_site *out, size_t max);
/* Symbolize the top ranked rows (0: all) and their loads now, so that
 * warnings about modules come before the report. -1 when out of memory. */
int wr_loop_sym_shown(struct wr_symbolizer *s, const struct wr_report *r, size_t top);

/* The report (loop_text.c, loop_json.c): at most top rows (0: all);
 * text shows only rows that read something. -1 on failure. */
int wr_loop_render_text(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			size_t top);
int wr_loop_render_json(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			size_t top);

#endif
