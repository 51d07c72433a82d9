/*
 * page.h - what every HTML page shares (page.c): the skeleton, the data
 * embedded in it, flame graphs (flame.c) and source excerpts (excerpt.c).
 */
#ifndef WITCH_REPORT_HTML_PAGE_H
#define WITCH_REPORT_HTML_PAGE_H

#include <stdint.h>
#include <stdio.h>

struct wr_report;
struct wr_symbolizer;
struct wr_sources;

/* The CSS and JavaScript files, embedded (embed.awk); ends with { 0, 0 }. */
struct html_asset {
	const char *name;	/* "page.css", "pairs.js" */
	const char *text;
};
extern const struct html_asset html_assets[];

/*
 * Write the page up to its data, titled title, and return the stream to
 * write the data to: one JSON object, which the page's script reads. The
 * stream writes '<' as "\u003c", which inside a JSON string (the only
 * place JSON has one) is the same character, so that nothing in the data
 * can end its <script> element. NULL when out of memory.
 */
FILE *html_begin(FILE *out, const char *title);

/* html_begin for a profile of r's tool, titled as its text report is,
 * the data opened with {"report": (the JSON report comes next). */
struct wr_report;
FILE *html_begin_report(FILE *out, const struct wr_report *r);

/* Close data and end the page with its scripts: page.js, then script
 * (the kind's, such as "pairs.js"). -1 when writing failed. */
int html_end(FILE *out, FILE *data, const char *script);

/* What render writes to its stream, as one JSON string into data. -1
 * when render fails or memory runs out. */
int html_json_output(FILE *data, int (*render)(FILE *out, void *arg), void *arg);

/* A calling context on one line, as the text report writes it (root
 * first, long ones cut short), as a JSON string into data; -1 when out
 * of memory. */
int html_chain(FILE *data, const struct wr_report *r, struct wr_symbolizer *s, uint32_t ctx);

/* The flame graph's data (flame.c): the folded stacks that folded writes
 * (render_folded.c's format) as one tree, into data. -1 when folded fails
 * or memory runs out. */
int html_flame(FILE *data, int (*folded)(FILE *out, void *arg), void *arg);

/* Lines of source shown before and after a site. */
#define HTML_AROUND 4
/* Lines of a range (a loop) shown at most. */
#define HTML_RANGE_MAX 60

/*
 * The source lines first..last of the file at path, with HTML_AROUND
 * lines around them (a range of more than HTML_RANGE_MAX lines is cut),
 * as {"path","mark":[first,last],"first":N,"text":[...]}, or, when it
 * cannot be read or is shorter, {"path","mark":[...],"error":"why"}.
 */
void html_excerpt(FILE *data, struct wr_sources *src, const char *path, int first, int last);

/*
 * Around a calling context's access: its innermost frame whose source
 * can be read, as html_excerpt with "frame" (its index, leaf first) and
 * "function"; when that is not the leaf, "leaf_error" says why the
 * leaf's cannot be. {"frame":null,"error":"why"} when none can. -1 when
 * out of memory.
 */
int html_context_excerpt(FILE *data, struct wr_symbolizer *s, struct wr_sources *src,
			 uint32_t ctx);

/*
 * The data of the pages of pairs (pair_data.c), each with a comma
 * first: "chains", each of the first n ranked pairs' two contexts on one
 * line (html_chain), [first, second]; "excerpts", around their accesses
 * (html_context_excerpt), [first, second], for at most the first
 * HTML_EXCERPT_PAIRS; "flame", {"first","second"}: the flame graphs of
 * every pair's weight by its first and by its second context. -1 when
 * out of memory.
 */
#define HTML_EXCERPT_PAIRS 20
int html_pair_chains(FILE *data, const struct wr_report *r, struct wr_symbolizer *s, size_t n);
int html_pair_excerpts(FILE *data, const struct wr_report *r, struct wr_symbolizer *s, size_t n);
int html_pair_flames(FILE *data, const struct wr_report *r, struct wr_symbolizer *s);

#endif
