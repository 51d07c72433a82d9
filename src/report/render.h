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

/*
 * The same stacks and weights as a pprof profile (profile.proto, gzipped;
 * render_pprof.c): sample type waste in bytes, redundant executions (rvn)
 * or, _time, cpu in nanoseconds. -1 when out of memory or when writing
 * fails (ferror(out) then).
 */
int wr_render_pprof(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, int second);
int wr_render_pprof_time(FILE *out, const struct wr_report *r, struct wr_symbolizer *s);

/* A JSON string literal for str (null for NULL). */
void wr_json_string(FILE *out, const char *str);
/* v in the printf format fmt, or null when it is NaN or infinite (JSON
 * has neither). */
void wr_json_number(FILE *out, const char *fmt, double v);

/* Pieces of the text report that other reports (loop_text.c) share. */
struct wr_frame;
struct wr_process;
/* s with control bytes as '?'. */
void wr_text_printable(FILE *out, const char *s);
/* A context on one line, root first, with the leaf's file:line. */
void wr_text_chain(FILE *out, const struct wr_report *r, const struct wr_frame *f, long n);
/* A frame's function (brief: without parameters and template
 * arguments), or module+offset when unknown; may use buf. */
const char *wr_text_frame_label(const struct wr_report *r, const struct wr_frame *f, int brief,
				char *buf, size_t cap);
/* The "merged: pid ..." and "command: ..." lines. */
void wr_text_processes(FILE *out, const struct wr_report *r);
void wr_text_command(FILE *out, const struct wr_report *r);
/* How the profiles were sampled ("timer sampling at 200 Hz, ..."). */
void wr_text_source(FILE *out, const struct wr_report *r);
/* "note: ..." lines for what the numbers do not cover. */
void wr_text_caveats(FILE *out, const struct wr_report *r);
/* A pair's two contexts: on one line, root first, joined by relation,
 * then each leaf first under its tag ("watch:", "trap:"). -1 when out of
 * memory. */
struct wr_pair;
int wr_text_contexts(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		     const struct wr_pair *pr, const char *relation, const char *const tags[2]);

/* And of the JSON report. */
/* ',' unless first, then "key": */
void wr_json_key(FILE *out, const char *key, int *first);
/* Frames as an array of objects, leaf first. */
void wr_json_frames(FILE *out, const struct wr_report *r, const struct wr_frame *f, long n);
/* "processes":[pids],"process_details":[...],"ranks":[...],"hosts":[...]
 * (no leading comma). */
void wr_json_processes(FILE *out, const struct wr_report *r);
/* A pairs profile's JSON up to its processes, "{" first (render_json.c). */
void wr_json_head(FILE *out, const struct wr_report *r, int *first);
/* A process's command line as an array of strings. */
void wr_json_args(FILE *out, const struct wr_process *p);
/* "stats":{every stat, summed}. */
void wr_json_stats(FILE *out, const struct wr_report *r, int *first);
/* A fraction in [0, 1] with six decimals (0 for anything else). */
void wr_json_fraction(FILE *out, double x);

#endif
