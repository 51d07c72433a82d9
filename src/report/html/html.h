/*
 * html.h - the report as one self-contained HTML page: inline CSS,
 * JavaScript and SVG, nothing fetched (the page forbids it). The page
 * embeds the JSON report with what it draws from besides (folded stacks,
 * source excerpts, code) as data, and a small script of the profile's
 * kind draws it (src/report/html/KIND.js). Each returns -1 when out of
 * memory or when writing fails.
 */
#ifndef WITCH_REPORT_HTML_H
#define WITCH_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

struct wr_report;
struct wr_symbolizer;
struct rc_profile;
struct rc_analysis;
struct cpi;
struct cpi_render_opts;
struct wr_comparison;

/* Rows shown when --top is not given: a page scrolls. */
#define WR_HTML_TOP 100

/* Record and spy profiles (rvn's too): totals, the top ranked pairs with
 * their contexts, a flame graph of all of them, source excerpts. */
int wr_html_pairs(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top);
/* Tool share's (witch record --craft=share): the totals, the pairs of
 * contexts that shared cache lines, false sharing first, each with its
 * lines, a flame graph of all of them, source excerpts. */
int wr_html_share(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top);
/* Tool loop's: the top rows, flagged first, with source excerpts. */
int wr_html_loops(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, size_t top);
/* Causal profiles: a plot per line, in the text report's order. */
int wr_html_causal(FILE *out, const struct rc_profile *p, const struct rc_analysis *a, size_t top);
/* witch cpi's: its tables and the code of its top functions. */
int wr_html_cpi(FILE *out, struct cpi *c, const struct cpi_render_opts *o);
/* witch compare: the sampled and the reference side by side. */
int wr_html_compare(FILE *out, const struct wr_comparison *c);

#endif
