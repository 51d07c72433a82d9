/*
 * render.h - a merged, ranked report as text for people or JSON for tools.
 */
#ifndef WITCH_REPORT_RENDER_H
#define WITCH_REPORT_RENDER_H

#include <stddef.h>
#include <stdio.h>

struct wr_report;
struct wr_symbolizer;

/* Both show at most top ranked pairs (0: all) and return -1 on failure. */
int wr_render_text(FILE *out, const struct wr_report *r,
		   struct wr_symbolizer *s, size_t top);
int wr_render_json(FILE *out, const struct wr_report *r,
		   struct wr_symbolizer *s, size_t top);

/*
 * Folded stacks ("frame;frame weight", root first, one line per distinct
 * stack; render_folded.c). wr_render_folded: each pair's weight (waste in
 * whole bytes, rounded; rvn: redundant executions) on its first context
 * (watch, rvn's first) or, with second, its second (trap, again). _time:
 * witch cpi's sampled run, each context's own CPU nanoseconds. -1 when
 * out of memory.
 */
int wr_render_folded(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, int second);
int wr_render_folded_time(FILE *out, const struct wr_report *r, struct wr_symbolizer *s);

/* A JSON string literal for str (null for NULL). */
void wr_json_string(FILE *out, const char *str);
/* v in the printf format fmt, or null when it is NaN or infinite (JSON
 * has neither). */
void wr_json_number(FILE *out, const char *fmt, double v);

#endif
