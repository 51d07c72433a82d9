/*
 * share.h - tool share's profiles merged (witch record --craft=share):
 * pairs of calling contexts that shared cache lines across threads.
 *
 * A pair (struct wr_pair) is a sampled store's context (watch), another
 * thread's access to the same line (trap) and the kind, 'f' for false
 * sharing and 't' for true; its waste_milli is its weight, what its traps
 * stand for (share.c in the runtime says how), and its count the traps.
 * So pairs rank, and fold into flame graphs, as the other tools' do.
 * What only tool share has is the lines: the cache lines each pair was
 * seen on, where in them the two accesses were, and the object there.
 */
#ifndef WITCH_REPORT_SHARE_H
#define WITCH_REPORT_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/reader.h"
#include "report/map.h"

struct wr_report;
struct wr_symbolizer;

struct wr_share_line {
	uint32_t pair;		/* index into the report's pairs */
	int32_t module;		/* report module index of the line; -1: an address */
	uint64_t line;		/* offset in module (ELF vaddr), or the address */
	uint8_t woff, wlen;	/* the store's bytes in the line */
	uint8_t toff, tlen;	/* the other access's; in order of offset when the
				   two contexts are one */
	uint64_t block, block_size;	/* the heap block holding the store; 0: none known */
	uint32_t site;		/* context whose leaf allocated it; WR_NONE: none */
	uint64_t weight_milli, count;
};

struct wr_shares {
	struct wr_share_line *lines;
	size_t nlines, cap_lines;
	struct wr_map line_map;

	/* Set by wr_shares_finish(). */
	uint32_t *by_pair;	/* lines' indices grouped by pair, most weight first ... */
	size_t *pair_lines;	/* ... pair i's from by_pair[pair_lines[i]] to [pair_lines[i + 1]] */
	uint64_t false_milli, true_milli;	/* all pairs' weight, by kind */
	size_t most_threads;	/* threads of the process that had the most */
};

/* Merging (share_merge.c): a thread's s records, its nodes already
 * mapped to contexts. -1 when out of memory. */
int wr_shares_add_thread(struct wr_report *r, const struct wp_thread *t, const int32_t *modmap,
			 const uint32_t *ctxof);
/* After the last profile: lines by pair, totals. -1 when out of memory. */
int wr_shares_finish(struct wr_report *r);
void wr_shares_free(struct wr_shares *s);

/* The relation of a pair of kind 'f' or 't': FALSE_SHARING_WITH ... */
const char *wr_share_relation(char kind);
/* "false sharing", "true sharing" */
const char *wr_share_kind_name(char kind);
/* The threads' CPU time, in seconds (stat cpu_ns). */
double wr_share_cpu_seconds(const struct wr_report *r);
/* Thousandths of weight per second of the threads' CPU time. */
double wr_share_rate(const struct wr_report *r, uint64_t milli);

/* What byte off of line l is (share_object.c): in a variable of a
 * module, or in the heap block the line's store was in. */
enum wr_share_place { WR_PLACE_UNKNOWN, WR_PLACE_VARIABLE, WR_PLACE_HEAP };
struct wr_share_at {
	enum wr_share_place place;
	const char *variable;	/* WR_PLACE_VARIABLE: its name */
	uint64_t offset;	/* the byte's offset in the variable or the block */
};
void wr_share_at(struct wr_symbolizer *s, const struct wr_report *r, const struct wr_share_line *l,
		 unsigned off, struct wr_share_at *at);

/* The report (share_text.c, share_json.c): at most top pairs (0: all).
 * -1 on failure. */
int wr_share_render_text(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			 size_t top);
int wr_share_render_json(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
			 size_t top);
/* How to read a finding: the text report's closing lines ("reading it:
 * ..."), which the HTML page shows too. */
void wr_share_reading(FILE *out);

#endif
