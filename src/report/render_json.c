/*
 * render_json.c - the report for tools: one JSON object on one line.
 *
 * Strings come from profiles and debug info, which are bytes, not text:
 * JSON must be UTF-8, so invalid sequences become U+FFFD. Byte counts are
 * printed with their three decimals, exactly as summed.
 */
#include "report/ranks.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and beyond U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void wr_json_number(FILE *out, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(out, fmt, v);
	else
		fputs("null", out);
}

void wr_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s) {
		size_t n = utf8_len(s);

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s, out);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s == '\t') {
			fputs("\\t", out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s);
		} else if (n == 0) {
			fputs("\\ufffd", out);
			n = 1;
		} else {
			fwrite(s, 1, n, out);
		}
		s += n ? n : 1;
	}
	fputc('"', out);
}

void wr_json_key(FILE *out, const char *key, int *first)
{
	if (!*first)
		fputc(',', out);
	*first = 0;
	wr_json_string(out, key);
	fputc(':', out);
}

static void put_milli(FILE *out, uint64_t milli)
{
	fprintf(out, "%llu.%03llu", (unsigned long long)(milli / 1000),
		(unsigned long long)(milli % 1000));
}

/* A fraction in [0, 1]; never NaN or infinite by construction. */
void wr_json_fraction(FILE *out, double x)
{
	fprintf(out, "%.6f", x == x && x >= 0 && x <= 1 ? x : 0.0);
}

void wr_json_frames(FILE *out, const struct wr_report *r,
		       const struct wr_frame *f, long n)
{
	long i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		int first = 1;

		fputs(i ? ",{" : "{", out);
		wr_json_key(out, "function", &first);
		wr_json_string(out, f[i].function);
		wr_json_key(out, "linkage_name", &first);
		wr_json_string(out, f[i].linkage);
		wr_json_key(out, "file", &first);
		wr_json_string(out, f[i].file);
		wr_json_key(out, "line", &first);
		if (f[i].line)
			fprintf(out, "%d", f[i].line);
		else
			fputs("null", out);
		wr_json_key(out, "module", &first);
		wr_json_string(out, f[i].module >= 0 ? r->mods[f[i].module].path
						 : NULL);
		wr_json_key(out, "offset", &first);
		fprintf(out, "\"0x%llx\"", (unsigned long long)f[i].offset);
		wr_json_key(out, "inlined", &first);
		fputs(f[i].inlined ? "true" : "false", out);
		fputc('}', out);
	}
	fputc(']', out);
}

/* "key":[frames] of one context. */
static int put_context(FILE *out, const struct wr_report *r, struct wr_symbolizer *s,
		       const char *key, uint32_t ctx, int *first)
{
	const struct wr_frame *f;
	long n;

	wr_json_key(out, key, first);
	if ((n = wr_sym_context(s, ctx, &f)) < 0)
		return -1;
	wr_json_frames(out, r, f, n);
	return 0;
}

/* Tool rvn: the instruction that computed a value first and the one
 * that computed it again, and how often it did. */
static int put_redundant_pair(FILE *out, const struct wr_report *r,
			      struct wr_symbolizer *s, const struct wr_pair *pr)
{
	int first = 1;

	fputc('{', out);
	wr_json_key(out, "kind", &first);
	wr_json_string(out, wr_kind_name(pr->kind));
	wr_json_key(out, "redundant", &first);
	fprintf(out, "%llu", (unsigned long long)pr->count);
	wr_json_key(out, "share", &first);
	wr_json_fraction(out, wr_share(r, pr));
	if (put_context(out, r, s, "first", pr->watch, &first) ||
	    put_context(out, r, s, "again", pr->trap, &first))
		return -1;
	fputc('}', out);
	return 0;
}

static int put_pair(FILE *out, const struct wr_report *r,
		    struct wr_symbolizer *s, const struct wr_pair *pr)
{
	int first = 1;

	if (r->tool->counts_executions)
		return put_redundant_pair(out, r, s, pr);
	fputc('{', out);
	wr_json_key(out, "waste_bytes", &first);
	put_milli(out, pr->waste_milli);
	wr_json_key(out, "use_bytes", &first);
	put_milli(out, pr->use_milli);
	wr_json_key(out, "approx_waste_bytes", &first);
	put_milli(out, pr->approx_milli);
	wr_json_key(out, "share", &first);
	wr_json_fraction(out, wr_share(r, pr));
	wr_json_key(out, "traps", &first);
	fprintf(out, "%llu", (unsigned long long)pr->count);
	if (put_context(out, r, s, "watch", pr->watch, &first) ||
	    put_context(out, r, s, "trap", pr->trap, &first))
		return -1;
	fputc('}', out);
	return 0;
}

void wr_json_args(FILE *out, const struct wr_process *p)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < p->nargs; i++) {
		if (i)
			fputc(',', out);
		wr_json_string(out, p->args[i]);
	}
	fputc(']', out);
}

void wr_json_processes(FILE *out, const struct wr_report *r)
{
	size_t i, j;

	wr_json_string(out, "processes");
	fputs(":[", out);
	for (i = 0; i < r->nprocs; i++)
		fprintf(out, "%s%llu", i ? "," : "",
			(unsigned long long)r->procs[i].pid);
	fputs("],", out);
	wr_json_string(out, "process_details");
	fputs(":[", out);
	for (i = 0; i < r->nprocs; i++) {
		const struct wr_process *p = &r->procs[i];
		int first = 1;

		fputs(i ? ",{" : "{", out);
		wr_json_key(out, "pid", &first);
		fprintf(out, "%llu", (unsigned long long)p->pid);
		wr_json_key(out, "profile", &first);
		wr_json_string(out, p->file);
		wr_json_key(out, "status", &first);
		wr_json_string(out, p->incomplete ? "incomplete" : "complete");
		wr_json_key(out, "command", &first);
		wr_json_args(out, p);
		wr_json_key(out, "threads", &first);
		fputc('[', out);
		for (j = 0; j < p->ntids; j++)
			fprintf(out, "%s%llu", j ? "," : "",
				(unsigned long long)p->tids[j]);
		fputc(']', out);
		wr_json_key(out, "host", &first);
		wr_json_string(out, p->host);
		wr_json_key(out, "rank", &first);
		if (p->rank >= 0)
			fprintf(out, "%lld", (long long)p->rank);
		else
			fputs("null", out);
		wr_json_key(out, "world_size", &first);
		if (p->world_size)
			fprintf(out, "%llu", (unsigned long long)p->world_size);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("],", out);
	wr_json_ranks(out, r);
}

/* "stats":{every stat, summed}. */
void wr_json_stats(FILE *out, const struct wr_report *r, int *first)
{
	size_t i;

	wr_json_key(out, "stats", first);
	fputc('{', out);
	for (i = 0; i < r->nstats; i++) {
		int sfirst = i == 0;

		wr_json_key(out, r->stats[i].name, &sfirst);
		fprintf(out, "%llu", (unsigned long long)r->stats[i].value);
	}
	fputc('}', out);
}

/* Tool rvn's totals: keys for all executions of each kind (in
 * wr_kind_totals() order), the redundant ones, and their ratio. */
static const char *const kind_keys[WR_KINDS + 1][3] = {
	{ "computations", "redundant", "redundancy" },
	{ "loads", "redundant_loads", "load_redundancy" },
	{ "stores", "redundant_stores", "store_redundancy" },
	{ "all", "all_redundant", "all_redundancy" },
};

static void put_kind_totals(FILE *out, const struct wr_report *r)
{
	struct wr_kind_total t[WR_KINDS + 1];
	int first = 1;
	size_t i;

	wr_kind_totals(r, t);
	fputc('{', out);
	for (i = 0; i <= WR_KINDS; i++) {
		wr_json_key(out, kind_keys[i][0], &first);
		fprintf(out, "%llu", (unsigned long long)t[i].all);
		wr_json_key(out, kind_keys[i][1], &first);
		fprintf(out, "%llu", (unsigned long long)t[i].redundant);
		wr_json_key(out, kind_keys[i][2], &first);
		wr_json_fraction(out, wr_ratio(t[i].redundant, t[i].all));
	}
	/* What the pairs account for: less than all_redundant when the
	 * tool's pair table was full. */
	wr_json_key(out, "redundant_in_pairs", &first);
	fprintf(out, "%llu", (unsigned long long)r->redundant);
	wr_json_key(out, "dropped", &first);
	fprintf(out, "%llu", (unsigned long long)wr_stat(r, "dropped", NULL));
	wr_json_key(out, "threads", &first);
	fprintf(out, "%zu", r->nthreads);
	wr_json_key(out, "pairs_found", &first);
	fprintf(out, "%zu", r->nwaste);
	wr_json_stats(out, r, &first);
	fputc('}', out);
}

static void put_totals(FILE *out, const struct wr_report *r)
{
	int first = 1, present;
	uint64_t all = wr_stat(r, "bytes_accessed", &present);

	if (r->tool->counts_executions) {
		put_kind_totals(out, r);
		return;
	}

	fputc('{', out);
	wr_json_key(out, "waste_bytes", &first);
	put_milli(out, r->waste_milli);
	wr_json_key(out, "use_bytes", &first);
	put_milli(out, r->use_milli);
	wr_json_key(out, "approx_waste_bytes", &first);
	put_milli(out, r->approx_milli);
	/* Exact redundancy counts approximate waste with use. */
	wr_json_key(out, "redundancy", &first);
	wr_json_fraction(out, wr_redundancy(r->waste_milli,
					wr_all_waste(r->use_milli, r->approx_milli)));
	wr_json_key(out, "approx_redundancy", &first);
	wr_json_fraction(out, wr_redundancy(r->approx_milli,
					wr_all_waste(r->use_milli, r->waste_milli)));
	wr_json_key(out, "waste_of_accessed", &first);
	if (present && all)
		wr_json_fraction(out, (double)r->waste_milli / 1000.0 / (double)all);
	else
		fputs("null", out);
	wr_json_key(out, "samples", &first);
	fprintf(out, "%llu", (unsigned long long)wr_stat(r, "samples", NULL));
	wr_json_key(out, "watchpoints_armed", &first);
	fprintf(out, "%llu",
		(unsigned long long)wr_stat(r, "watchpoints_armed", NULL));
	wr_json_key(out, "traps", &first);
	fprintf(out, "%llu", (unsigned long long)wr_stat(r, "traps", NULL));
	wr_json_key(out, "threads", &first);
	fprintf(out, "%zu", r->nthreads);
	wr_json_key(out, "pairs_with_waste", &first);
	fprintf(out, "%zu", r->nwaste);
	wr_json_stats(out, r, &first);
	fputc('}', out);
}

/* The fields a pairs profile's JSON opens with, from its tool to its
 * processes: "{" and those, *first updated. */
void wr_json_head(FILE *out, const struct wr_report *r, int *first)
{
	fputc('{', out);
	wr_json_key(out, "tool", first);
	wr_json_string(out, r->tool->name);
	if (r->by) {
		wr_json_key(out, "by", first);
		wr_json_string(out, r->by);
	}
	wr_json_key(out, "source", first);
	wr_json_string(out, r->source);
	wr_json_key(out, "rate_hz", first);
	fprintf(out, "%llu", (unsigned long long)r->rate_hz);
	wr_json_key(out, "period", first);
	fprintf(out, "%llu", (unsigned long long)r->period);
	wr_json_key(out, "spread", first);
	fprintf(out, "%llu", (unsigned long long)r->spread);
	wr_json_key(out, "reach", first);
	fprintf(out, "%llu", (unsigned long long)r->reach);
	wr_json_key(out, "mixed_rates", first);
	fputs(r->mixed_rates ? "true" : "false", out);
	wr_json_key(out, "command", first);
	wr_json_args(out, &r->procs[0]);
	fputc(',', out);
	wr_json_processes(out, r);
}

int wr_render_json(FILE *out, const struct wr_report *r,
		   struct wr_symbolizer *s, size_t top)
{
	size_t shown = top && top < r->nranked ? top : r->nranked;
	int first = 1;
	size_t i;

	wr_json_head(out, r, &first);
	wr_json_key(out, "totals", &first);
	put_totals(out, r);
	wr_json_key(out, "pairs", &first);
	fputc('[', out);
	for (i = 0; i < shown; i++) {
		if (i)
			fputc(',', out);
		if (put_pair(out, r, s, &r->pairs[r->ranked[i]]))
			return -1;
	}
	fputc(']', out);
	if (r->ranks) {
		fputc(',', out);
		wr_json_by_rank(out, r);
	}
	fputs("}\n", out);
	return 0;
}
