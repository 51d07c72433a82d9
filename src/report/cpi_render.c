/*
 * cpi_render.c - witch cpi's report as text and JSON: functions by time
 * with callees, loops (OptiWISE Figure 1), source lines by time, then one
 * function's basic blocks by time and its instructions with its source
 * lines. Each row's time per
 * execution is its time over its executions; with the CPU's nominal
 * frequency, also an estimated CPI. A row of fewer than CPI_SIGNIFICANT
 * samples is marked not significant.
 */
#include "report/cpi.h"
#include "report/names.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NOT_SIGNIFICANT "~"

/* Rows in order of time: indices sorted by a key, most first. */
static const double *sort_key;

static int by_key(const void *a, const void *b)
{
	double x = sort_key[*(const uint32_t *)a], y = sort_key[*(const uint32_t *)b];

	if (x != y)
		return x < y ? 1 : -1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* The rows [0, n) kept by keep (NULL: all), by key, at most top (0: all). */
static uint32_t *ranked(const double *key, size_t n, int (*keep)(const struct cpi *, uint32_t,
								 uint32_t),
			const struct cpi *c, uint32_t fn, size_t top, size_t *out)
{
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	size_t i, m = 0;

	if (!idx)
		return NULL;
	for (i = 0; i < n; i++)
		if (!keep || keep(c, (uint32_t)i, fn))
			idx[m++] = (uint32_t)i;
	sort_key = key;
	qsort(idx, m, sizeof(*idx), by_key);
	*out = top && top < m ? top : m;
	return idx;
}

static double share(const struct cpi *c, double ns)
{
	return c->total_ns > 0 ? 100.0 * ns / c->total_ns : 0;
}

static double per(double num, uint64_t den)
{
	return den ? num / (double)den : NAN;
}

/* Time per instruction with callees; unknown when too much of the time
 * is below calls that the counting run counted nothing below. */
static double incl_per(double ns, uint64_t insns, double uncounted)
{
	return uncounted > 0 && uncounted >= CPI_UNCOUNTED * ns ? NAN : per(ns, insns);
}

static const char *func_name(const struct cpi *c, uint32_t f, char *buf, size_t cap)
{
	const struct cpi_func *fn = &c->funcs[f];

	if (fn->name)
		return fn->name;
	snprintf(buf, cap, "%s+0x%llx", fn->module >= 0 ? wr_basename(c->r->mods[fn->module].path) : "?",
		 (unsigned long long)fn->start);
	return buf;
}

/* The short form, for a column or an "in f()" at the end of a row. */
static const char *func_brief(const struct cpi *c, uint32_t f, char *buf, size_t cap)
{
	const struct cpi_func *fn = &c->funcs[f];

	return fn->name ? wr_short_name(fn->name, buf, cap) : func_name(c, f, buf, cap);
}

static const char *module_name(const struct cpi *c, int32_t m)
{
	return m >= 0 ? wr_basename(c->r->mods[m].path) : "?";
}

static int in_func(const struct cpi *c, uint32_t i, uint32_t fn)
{
	(void)c;
	return fn == CPI_NONE || i == fn;
}

static int loop_in(const struct cpi *c, uint32_t i, uint32_t fn)
{
	return fn == CPI_NONE || c->loops[i].func == fn;
}

static int block_in(const struct cpi *c, uint32_t i, uint32_t fn)
{
	return fn == CPI_NONE || c->blocks[i].func == fn;
}

static int line_in(const struct cpi *c, uint32_t i, uint32_t fn)
{
	return (fn == CPI_NONE || c->lines[i].func == fn) && c->lines[i].execs + c->lines[i].samples;
}

static int insn_in(const struct cpi *c, uint32_t i, uint32_t fn)
{
	return (fn == CPI_NONE || c->insns[i].func == fn) &&
	       (c->insns[i].samples > 0 || c->insns[i].landed > 0);
}

/* Named by its full name, its short one (all overloads) or its symbol. */
static int named(const struct cpi_func *f, const char *name)
{
	char brief[512];

	return f->name && (!strcmp(f->name, name) || (f->linkage && !strcmp(f->linkage, name)) ||
			   !strcmp(wr_short_name(f->name, brief, sizeof(brief)), name));
}

uint32_t cpi_function_named(const struct cpi *c, const char *name)
{
	uint32_t f, best = CPI_NONE;

	for (f = 0; f < c->nfuncs; f++)
		if (named(&c->funcs[f], name) &&
		    (best == CPI_NONE || c->funcs[f].incl_ns > c->funcs[best].incl_ns))
			best = f;
	return best;
}

size_t cpi_top_functions(const struct cpi *c, uint32_t *top, size_t max)
{
	size_t n = 0, i, j;

	/* Insertion into the few kept: max is small. */
	for (i = 0; i < c->nfuncs; i++) {
		if (!(c->funcs[i].self_ns > 0))
			continue;
		for (j = n; j > 0 && c->funcs[i].self_ns > c->funcs[top[j - 1]].self_ns; j--)
			if (j < max)
				top[j] = top[j - 1];
		if (j < max) {
			top[j] = (uint32_t)i;
			n += n < max;
		}
	}
	return n;
}

/* Keys for ranking. */
struct keys {
	double *func, *loop, *block, *line, *insn;
};

static void free_keys(struct keys *k)
{
	free(k->func);
	free(k->loop);
	free(k->block);
	free(k->line);
	free(k->insn);
}

static int make_keys(const struct cpi *c, struct keys *k)
{
	size_t i;

	k->func = malloc((c->nfuncs + 1) * sizeof(double));
	k->loop = malloc((c->nloops + 1) * sizeof(double));
	k->block = malloc((c->nblocks + 1) * sizeof(double));
	k->line = malloc((c->nlines + 1) * sizeof(double));
	k->insn = malloc((c->ninsns + 1) * sizeof(double));
	if (!k->func || !k->loop || !k->block || !k->line || !k->insn) {
		free_keys(k);
		return -1;
	}
	for (i = 0; i < c->nfuncs; i++)
		k->func[i] = c->funcs[i].incl_ns;
	for (i = 0; i < c->nloops; i++)
		k->loop[i] = c->loops[i].incl_ns;
	for (i = 0; i < c->nblocks; i++)
		k->block[i] = c->blocks[i].ns;
	for (i = 0; i < c->nlines; i++)
		k->line[i] = c->lines[i].ns;
	for (i = 0; i < c->ninsns; i++)
		k->insn[i] = c->insns[i].ns;
	return 0;
}

/* ---- text ---- */

/* "12.34" or "-" when unknown, right-aligned in width. */
static void num(FILE *out, int width, int prec, double v)
{
	if (isfinite(v))
		fprintf(out, " %*.*f", width, prec, v);
	else
		fprintf(out, " %*s", width, "-");
}

static const char *mark(double samples)
{
	return samples < CPI_SIGNIFICANT ? NOT_SIGNIFICANT : " ";
}

static void header(FILE *out, const struct cpi *c, const struct cpi_render_opts *o)
{
	fprintf(out, "witch report: time per execution (witch cpi): a sampled run, %.0f samples at "
		     "%llu Hz (%.3f s of CPU), and a counting run, %llu instructions\n",
		c->total_samples, (unsigned long long)c->rate_hz, c->total_ns / 1e9,
		(unsigned long long)c->total_insns);
	fprintf(out, "runs: sampled %u process%s, %llu thread%s; counted %u process%s, %llu thread%s\n",
		c->sampled.processes, c->sampled.processes == 1 ? "" : "es",
		(unsigned long long)c->sampled.threads, c->sampled.threads == 1 ? "" : "s",
		c->counted.processes, c->counted.processes == 1 ? "" : "es",
		(unsigned long long)c->counted.threads, c->counted.threads == 1 ? "" : "s");
	if (o->ghz > 0)
		fprintf(out, "est. CPI: time per instruction x %.2f GHz, the CPU's nominal frequency "
			     "(an estimate: the clock may run faster or slower)\n", o->ghz);
	fprintf(out, "time: each sample's thread CPU time, given to the instruction before the "
		     "one it landed on; " NOT_SIGNIFICANT " marks rows of fewer than %d samples "
		     "(not significant)\n", CPI_SIGNIFICANT);
	if (c->diverged_samples > 0)
		fprintf(out, "diverged: %.0f samples (%.1f%% of the time) on code the counting run "
			     "never executed\n", c->diverged_samples, share(c, c->diverged_ns));
	if (c->unseen_samples > 0)
		fprintf(out, "unseen: %.0f samples (%.1f%% of the time) in code the counting run "
			     "cannot see (the vdso, code without a file)\n", c->unseen_samples,
			share(c, c->unseen_ns));
}

static void functions_text(FILE *out, const struct cpi *c, const struct keys *k,
			   const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->func, c->nfuncs, in_func, c, fn, o->top, &n);
	char buf[128];

	if (!idx)
		return;
	fprintf(out, "\nfunctions, by time with callees\n");
	fprintf(out, "  %6s %6s %12s %14s %14s %8s%s  function\n", "time%", "self%", "invocations",
		"instructions", "incl.instr", "ns/insn", o->ghz > 0 ? "  est.CPI" : "");
	for (i = 0; i < n; i++) {
		const struct cpi_func *f = &c->funcs[idx[i]];
		double npi = per(f->self_ns, f->self_insns);

		fprintf(out, "%s", mark(f->incl_samples));
		num(out, 6, 1, share(c, f->incl_ns));
		num(out, 6, 1, share(c, f->self_ns));
		fprintf(out, " %12llu %14llu %14llu", (unsigned long long)f->invocations,
			(unsigned long long)f->self_insns, (unsigned long long)f->incl_insns);
		num(out, 8, 2, npi);
		if (o->ghz > 0)
			num(out, 8, 2, npi * o->ghz);
		fprintf(out, "  %s (%s)\n", func_name(c, idx[i], buf, sizeof(buf)),
			module_name(c, f->module));
	}
	free(idx);
}

static void loops_text(FILE *out, const struct cpi *c, const struct keys *k,
		       const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->loop, c->nloops, loop_in, c, fn, o->top, &n);
	char buf[128], loop[64], lines[160];

	if (!idx)
		return;
	fprintf(out, "\nloops, by time with callees (head<-tail; ns/iter with callees; time and ns/insn: "
		     "self/with callees)\n");
	fprintf(out, "  %-22s %-24s %11s %10s %9s %10s %13s %13s  function\n", "loop", "lines",
		"invocations", "iter/inv", "insn/iter", "ns/iter", "time%", "ns/insn");
	for (i = 0; i < n; i++) {
		const struct cpi_loop *l = &c->loops[idx[i]];
		char pair[40];
		int len;

		len = snprintf(loop, sizeof(loop), "%*s0x%llx<-0x%llx", (int)(2 * l->depth), "",
			       (unsigned long long)c->insns[c->blocks[l->header].first].offset,
			       (unsigned long long)c->insns[l->tail].offset);
		(void)len;
		if (l->file)
			snprintf(lines, sizeof(lines), "%s:%d-%d", wr_basename(l->file), l->first_line,
				 l->last_line);
		else
			snprintf(lines, sizeof(lines), "-");
		fprintf(out, "%s %-22s %-24s %11llu", mark(l->incl_samples), loop, lines,
			(unsigned long long)l->invocations);
		num(out, 10, 1, per((double)l->iterations, l->invocations));
		num(out, 9, 1, per((double)l->self_insns, l->iterations));
		num(out, 10, 2, per(l->incl_ns, l->iterations));
		snprintf(pair, sizeof(pair), "%.1f/%.1f", share(c, l->self_ns), share(c, l->incl_ns));
		fprintf(out, " %13s", pair);
		snprintf(pair, sizeof(pair), "%.2f/", per(l->self_ns, l->self_insns));
		if (isfinite(incl_per(l->incl_ns, l->incl_insns, l->uncounted_ns)))
			snprintf(pair + strlen(pair), sizeof(pair) - strlen(pair), "%.2f",
				 per(l->incl_ns, l->incl_insns));
		else
			strcat(pair, "-");
		fprintf(out, " %13s  %s\n", pair, func_brief(c, l->func, buf, sizeof(buf)));
	}
	if (!n)
		fprintf(out, "  (none)\n");
	free(idx);
}

static void lines_text(FILE *out, const struct cpi *c, const struct keys *k,
		       const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->line, c->nlines, line_in, c, fn, o->top, &n);
	char buf[128];

	if (!idx)
		return;
	fprintf(out, "\nsource lines, by time\n");
	fprintf(out, "  %6s %8s %12s %10s%s  line\n", "time%", "samples", "executions", "ns/exec",
		o->ghz > 0 ? "  est.CPI" : "");
	for (i = 0; i < n; i++) {
		const struct cpi_line *l = &c->lines[idx[i]];

		fprintf(out, "%s", mark(l->samples));
		num(out, 6, 1, share(c, l->ns));
		num(out, 8, 1, l->samples);
		fprintf(out, " %12llu", (unsigned long long)l->execs);
		num(out, 10, 2, per(l->ns, l->execs));
		if (o->ghz > 0)
			num(out, 8, 2, per(l->ns, l->insns) * o->ghz);
		fprintf(out, "  %s:%d in %s()\n", wr_basename(l->file), l->line,
			func_brief(c, l->func, buf, sizeof(buf)));
	}
	free(idx);
}

static void block_lines(const struct cpi *c, const struct cpi_block *b, char *buf, size_t cap)
{
	if (b->file && b->first_line)
		snprintf(buf, cap, "%s:%d-%d", wr_basename(b->file), b->first_line, b->last_line);
	else
		snprintf(buf, cap, "-");
	(void)c;
}

/* The function's basic blocks by time: where its time per execution is
 * high, before the instructions that say why. */
static void blocks_text(FILE *out, const struct cpi *c, const struct keys *k,
			const struct cpi_render_opts *o, uint32_t f)
{
	size_t n, i;
	uint32_t *idx = ranked(k->block, c->nblocks, block_in, c, f, o->top, &n);
	char buf[128], lines[160];

	if (!idx)
		return;
	fprintf(out, "\n%s (%s): its basic blocks, by time\n", func_name(c, f, buf, sizeof(buf)),
		module_name(c, c->funcs[f].module));
	fprintf(out, "  %10s %10s %-24s %12s %9s %6s %8s %10s%s\n", "head", "tail", "lines",
		"executions", "insn/exec", "time%", "samples", "ns/exec", o->ghz > 0 ? "  est.CPI" : "");
	for (i = 0; i < n; i++) {
		const struct cpi_block *b = &c->blocks[idx[i]];

		block_lines(c, b, lines, sizeof(lines));
		fprintf(out, "%s %10llx %10llx %-24s %12llu", mark(b->samples),
			(unsigned long long)c->insns[b->first].offset,
			(unsigned long long)c->insns[b->first + b->n - 1].offset, lines,
			(unsigned long long)b->execs);
		num(out, 9, 1, per((double)b->insns, b->execs));
		num(out, 6, 1, share(c, b->ns));
		num(out, 8, 1, b->samples);
		num(out, 10, 2, per(b->ns, b->execs));
		if (o->ghz > 0)
			num(out, 8, 2, per(b->ns, b->insns) * o->ghz);
		fputc('\n', out);
	}
	free(idx);
}

/* The function's instructions in address order, each source line before
 * the instructions that are its, as often as it comes back. */
static void code_text(FILE *out, struct cpi *c, const struct cpi_render_opts *o, uint32_t f)
{
	const struct cpi_func *fn = &c->funcs[f];
	const char *file = NULL;
	char buf[128], dis[128];
	int line = 0;
	uint32_t i;

	fprintf(out, "\n%s (%s): its instructions, with their source lines\n",
		func_name(c, f, buf, sizeof(buf)), module_name(c, fn->module));
	fprintf(out, "  %10s  %-40s %8s %12s %10s%s\n", "offset", "instruction", "samples",
		"executions", "ns/exec", o->ghz > 0 ? "  est.CPI" : "");
	for (i = fn->first; i < fn->first + fn->n; i++) {
		const struct cpi_insn *in = &c->insns[i];

		if (in->file && (in->src_line != line || !file || strcmp(in->file, file))) {
			const char *text = cpi_source_line(c, in->file, in->src_line);

			file = in->file;
			line = in->src_line;
			fprintf(out, "  %s:%d  %s\n", wr_basename(file), line, text ? text : "");
		}
		cpi_disassemble(c, i, dis, sizeof(dis));
		fprintf(out, "%s %10llx  %-40s", in->samples > 0 ? mark(in->samples) : " ",
			(unsigned long long)in->offset, dis[0] ? dis : "?");
		num(out, 8, 1, in->samples);
		fprintf(out, " %12llu", (unsigned long long)in->exec);
		num(out, 10, 2, per(in->ns, in->exec));
		if (o->ghz > 0)
			num(out, 8, 2, per(in->ns, in->exec) * o->ghz);
		fputc('\n', out);
	}
}

static void warnings(const struct cpi *c)
{
	if (c->total_ns > 0 && c->diverged_ns / c->total_ns >= 0.01)
		fprintf(stderr, "witch report: warning: %.1f%% of the sampled time is on code the "
				"counting run never executed: the two runs took different paths (input, "
				"time, randomness, threads); its figures are not in the tables\n",
			share(c, c->diverged_ns));
	if (c->inexact)
		fprintf(stderr, "witch report: warning: %llu translations of the counting run could not "
				"be counted exactly; report it as a bug\n",
			(unsigned long long)c->inexact);
	if (!c->total_samples)
		fprintf(stderr, "witch report: warning: the sampled run took no sample (it ran for less "
				"than a sampling interval of CPU time): there is no time to show\n");
}

int cpi_render_text(FILE *out, struct cpi *c, const struct cpi_render_opts *o)
{
	struct keys k;
	uint32_t fn = CPI_NONE, top;

	if (make_keys(c, &k))
		return -1;
	if (o->function)
		fn = cpi_function_named(c, o->function);
	warnings(c);
	header(out, c, o);
	functions_text(out, c, &k, o, fn);
	loops_text(out, c, &k, o, fn);
	lines_text(out, c, &k, o, fn);
	/* The function whose own code took the most time, or the one asked for. */
	top = fn;
	if (fn == CPI_NONE && !cpi_top_functions(c, &top, 1))
		top = CPI_NONE;
	if (top != CPI_NONE) {
		blocks_text(out, c, &k, o, top);
		code_text(out, c, o, top);
	}
	free_keys(&k);
	return 0;
}

/* ---- JSON ---- */

static void jkey(FILE *out, const char *key, int *first)
{
	fputs(*first ? "" : ",", out);
	*first = 0;
	wr_json_string(out, key);
	fputc(':', out);
}

static void jnum(FILE *out, const char *key, const char *fmt, double v, int *first)
{
	jkey(out, key, first);
	wr_json_number(out, fmt, v);
}

static void jint(FILE *out, const char *key, uint64_t v, int *first)
{
	jkey(out, key, first);
	fprintf(out, "%llu", (unsigned long long)v);
}

/* "significant": whether a row rests on enough samples. */
static void jsig(FILE *out, double samples, int *first)
{
	jkey(out, "significant", first);
	fputs(samples >= CPI_SIGNIFICANT ? "true" : "false", out);
}

/* Time per instruction with callees, and the share of it below calls the
 * counting run did not count (a function's or a loop's). */
static void jinclusive(FILE *out, const struct cpi *c, double incl_ns, uint64_t incl_insns,
		       double uncounted_ns, int *first)
{
	jnum(out, "inclusive_ns_per_instruction", "%.4f", incl_per(incl_ns, incl_insns, uncounted_ns),
	     first);
	jnum(out, "uncounted_share", "%.4f", share(c, uncounted_ns) / 100, first);
}

static void jstr(FILE *out, const char *key, const char *s, int *first)
{
	jkey(out, key, first);
	wr_json_string(out, s);
}

static void functions_json(FILE *out, const struct cpi *c, const struct keys *k,
			   const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->func, c->nfuncs, in_func, c, fn, o->top, &n);
	char buf[128];

	fputs(",\"functions\":[", out);
	for (i = 0; idx && i < n; i++) {
		const struct cpi_func *f = &c->funcs[idx[i]];
		int first = 1;

		fputs(i ? ",{" : "{", out);
		jstr(out, "function", func_name(c, idx[i], buf, sizeof(buf)), &first);
		jstr(out, "linkage_name", f->linkage, &first);
		jstr(out, "module", f->module >= 0 ? c->r->mods[f->module].path : NULL, &first);
		jnum(out, "samples", "%.1f", f->self_samples, &first);
		jnum(out, "inclusive_samples", "%.1f", f->incl_samples, &first);
		jnum(out, "samples_share", "%.4f", share(c, f->self_ns) / 100, &first);
		jnum(out, "inclusive_share", "%.4f", share(c, f->incl_ns) / 100, &first);
		jint(out, "executions", f->invocations, &first);
		jint(out, "instructions", f->self_insns, &first);
		jint(out, "inclusive_instructions", f->incl_insns, &first);
		jnum(out, "ns_per_instruction", "%.4f", per(f->self_ns, f->self_insns), &first);
		jinclusive(out, c, f->incl_ns, f->incl_insns, f->uncounted_ns, &first);
		jnum(out, "inclusive_ns_per_execution", "%.4f", per(f->incl_ns, f->invocations), &first);
		jsig(out, f->incl_samples, &first);
		fputc('}', out);
	}
	fputc(']', out);
	free(idx);
}

static void loops_json(FILE *out, const struct cpi *c, const struct keys *k,
		       const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->loop, c->nloops, loop_in, c, fn, o->top, &n);
	char buf[128];

	fputs(",\"loops\":[", out);
	for (i = 0; idx && i < n; i++) {
		const struct cpi_loop *l = &c->loops[idx[i]];
		int first = 1;

		fputs(i ? ",{" : "{", out);
		jstr(out, "function", func_name(c, l->func, buf, sizeof(buf)), &first);
		jstr(out, "file", l->file, &first);
		jint(out, "first_line", (uint64_t)l->first_line, &first);
		jint(out, "last_line", (uint64_t)l->last_line, &first);
		jint(out, "head", c->insns[c->blocks[l->header].first].offset, &first);
		jint(out, "tail", c->insns[l->tail].offset, &first);
		jint(out, "depth", l->depth, &first);
		jkey(out, "parent_head", &first);
		if (l->parent == CPI_NONE)
			fputs("null", out);
		else
			fprintf(out, "%llu", (unsigned long long)
				c->insns[c->blocks[c->loops[l->parent].header].first].offset);
		jint(out, "blocks", l->nblocks, &first);
		jint(out, "invocations", l->invocations, &first);
		jint(out, "iterations", l->iterations, &first);
		jnum(out, "iterations_per_invocation", "%.4f",
		     per((double)l->iterations, l->invocations), &first);
		jnum(out, "instructions_per_iteration", "%.4f",
		     per((double)l->self_insns, l->iterations), &first);
		jnum(out, "inclusive_instructions_per_iteration", "%.4f",
		     per((double)l->incl_insns, l->iterations), &first);
		jint(out, "instructions", l->self_insns, &first);
		jint(out, "inclusive_instructions", l->incl_insns, &first);
		jnum(out, "samples", "%.1f", l->self_samples, &first);
		jnum(out, "self_share", "%.4f", share(c, l->self_ns) / 100, &first);
		jnum(out, "inclusive_share", "%.4f", share(c, l->incl_ns) / 100, &first);
		jnum(out, "ns_per_iteration", "%.4f", per(l->incl_ns, l->iterations), &first);
		jnum(out, "ns_per_instruction", "%.4f", per(l->self_ns, l->self_insns), &first);
		jinclusive(out, c, l->incl_ns, l->incl_insns, l->uncounted_ns, &first);
		jsig(out, l->incl_samples, &first);
		fputc('}', out);
	}
	fputc(']', out);
	free(idx);
}

static void blocks_json(FILE *out, const struct cpi *c, const struct keys *k,
			const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->block, c->nblocks, block_in, c, fn, o->top, &n);
	char buf[128];

	fputs(",\"blocks\":[", out);
	for (i = 0; idx && i < n; i++) {
		const struct cpi_block *b = &c->blocks[idx[i]];
		const struct cpi_insn *head = &c->insns[b->first];
		int first = 1;

		fputs(i ? ",{" : "{", out);
		jstr(out, "module", head->module >= 0 ? c->r->mods[head->module].path : NULL, &first);
		jstr(out, "function", func_name(c, b->func, buf, sizeof(buf)), &first);
		jint(out, "head", head->offset, &first);
		jint(out, "tail", c->insns[b->first + b->n - 1].offset, &first);
		jstr(out, "file", b->file, &first);
		jint(out, "first_line", (uint64_t)b->first_line, &first);
		jint(out, "last_line", (uint64_t)b->last_line, &first);
		jint(out, "length", b->n, &first);
		jint(out, "executions", b->execs, &first);
		jint(out, "instructions", b->insns, &first);
		jnum(out, "samples", "%.1f", b->samples, &first);
		jnum(out, "samples_share", "%.4f", share(c, b->ns) / 100, &first);
		jnum(out, "ns_per_execution", "%.4f", per(b->ns, b->execs), &first);
		jnum(out, "ns_per_instruction", "%.4f", per(b->ns, b->insns), &first);
		jsig(out, b->samples, &first);
		fputc('}', out);
	}
	fputc(']', out);
	free(idx);
}

static void lines_json(FILE *out, const struct cpi *c, const struct keys *k,
		       const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->line, c->nlines, line_in, c, fn, o->top, &n);
	char buf[128];

	fputs(",\"lines\":[", out);
	for (i = 0; idx && i < n; i++) {
		const struct cpi_line *l = &c->lines[idx[i]];
		int first = 1;

		fputs(i ? ",{" : "{", out);
		jstr(out, "file", l->file, &first);
		jint(out, "line", (uint64_t)l->line, &first);
		jstr(out, "function", func_name(c, l->func, buf, sizeof(buf)), &first);
		jnum(out, "samples", "%.1f", l->samples, &first);
		jnum(out, "samples_share", "%.4f", share(c, l->ns) / 100, &first);
		jint(out, "executions", l->execs, &first);
		jint(out, "instructions", l->insns, &first);
		jnum(out, "ns_per_execution", "%.4f", per(l->ns, l->execs), &first);
		jsig(out, l->samples, &first);
		fputc('}', out);
	}
	fputc(']', out);
	free(idx);
}

static void insns_json(FILE *out, struct cpi *c, const struct keys *k,
		       const struct cpi_render_opts *o, uint32_t fn)
{
	size_t n, i;
	uint32_t *idx = ranked(k->insn, c->ninsns, insn_in, c, fn, o->top, &n);
	char buf[128], dis[128];

	fputs(",\"instructions\":[", out);
	for (i = 0; idx && i < n; i++) {
		const struct cpi_insn *in = &c->insns[idx[i]];
		int first = 1;

		cpi_disassemble(c, idx[i], dis, sizeof(dis));
		fputs(i ? ",{" : "{", out);
		jstr(out, "module", in->module >= 0 ? c->r->mods[in->module].path : NULL, &first);
		jint(out, "offset", in->offset, &first);
		jstr(out, "function", func_name(c, in->func, buf, sizeof(buf)), &first);
		jstr(out, "file", in->file, &first);
		jint(out, "line", (uint64_t)in->src_line, &first);
		jstr(out, "disassembly", dis[0] ? dis : NULL, &first);
		jnum(out, "samples", "%.1f", in->samples, &first);
		jnum(out, "landed", "%.1f", in->landed, &first);
		jint(out, "executions", in->exec, &first);
		jnum(out, "ns_per_execution", "%.4f", per(in->ns, in->exec), &first);
		if (o->ghz > 0)
			jnum(out, "estimated_cpi", "%.3f", per(in->ns, in->exec) * o->ghz, &first);
		jsig(out, in->samples, &first);
		fputc('}', out);
	}
	fputc(']', out);
	free(idx);
}

int cpi_render_json(FILE *out, struct cpi *c, const struct cpi_render_opts *o)
{
	struct keys k;
	uint32_t fn = CPI_NONE;
	int first = 1;

	if (make_keys(c, &k))
		return -1;
	if (o->function)
		fn = cpi_function_named(c, o->function);
	warnings(c);
	fputs("{\"tool\":\"cpi\",\"totals\":{", out);
	jnum(out, "samples", "%.0f", c->total_samples, &first);
	jint(out, "instructions", c->total_insns, &first);
	jnum(out, "ns", "%.0f", c->total_ns, &first);
	jnum(out, "diverged_samples", "%.0f", c->diverged_samples, &first);
	jnum(out, "diverged_share", "%.4f", share(c, c->diverged_ns) / 100, &first);
	jnum(out, "unseen_samples", "%.0f", c->unseen_samples, &first);
	jint(out, "sampled_processes", c->sampled.processes, &first);
	jint(out, "sampled_threads", c->sampled.threads, &first);
	jint(out, "counted_processes", c->counted.processes, &first);
	jint(out, "counted_threads", c->counted.threads, &first);
	jint(out, "rate_hz", c->rate_hz, &first);
	fputs("},\"nominal_ghz\":", out);
	wr_json_number(out, "%.3f", o->ghz > 0 ? o->ghz : NAN);
	functions_json(out, c, &k, o, fn);
	loops_json(out, c, &k, o, fn);
	blocks_json(out, c, &k, o, fn);
	lines_json(out, c, &k, o, fn);
	insns_json(out, c, &k, o, fn);
	fputs("}\n", out);
	free_keys(&k);
	return 0;
}

/* The function's code as code_text shows it: each source line (with its
 * time) before the instructions that are its, in address order. */
int cpi_render_code_json(FILE *out, struct cpi *c, uint32_t f, double ghz)
{
	const struct cpi_func *fn = &c->funcs[f];
	const char *file = NULL;
	char buf[128], dis[128];
	int line = 0, first = 1;
	size_t rows = 0;
	uint32_t i;

	fputc('{', out);
	jstr(out, "function", func_name(c, f, buf, sizeof(buf)), &first);
	jstr(out, "module", fn->module >= 0 ? c->r->mods[fn->module].path : NULL, &first);
	jnum(out, "samples", "%.1f", fn->self_samples, &first);
	jnum(out, "samples_share", "%.4f", share(c, fn->self_ns) / 100, &first);
	jkey(out, "code", &first);
	fputc('[', out);
	for (i = fn->first; i < fn->first + fn->n; i++) {
		const struct cpi_insn *in = &c->insns[i];
		int rfirst = 1;

		if (in->file && (in->src_line != line || !file || strcmp(in->file, file))) {
			const struct cpi_line *l = in->line != CPI_NONE ? &c->lines[in->line] : NULL;

			file = in->file;
			line = in->src_line;
			fputs(rows++ ? ",{" : "{", out);
			jstr(out, "file", file, &rfirst);
			jint(out, "line", (uint64_t)line, &rfirst);
			jstr(out, "source", cpi_source_line(c, file, line), &rfirst);
			if (l) {
				jnum(out, "samples", "%.1f", l->samples, &rfirst);
				jnum(out, "samples_share", "%.4f", share(c, l->ns) / 100, &rfirst);
				jint(out, "executions", l->execs, &rfirst);
				jnum(out, "ns_per_execution", "%.4f", per(l->ns, l->execs), &rfirst);
			}
			fputc('}', out);
			rfirst = 1;
		}
		cpi_disassemble(c, i, dis, sizeof(dis));
		fputs(rows++ ? ",{" : "{", out);
		jint(out, "offset", in->offset, &rfirst);
		jstr(out, "disassembly", dis[0] ? dis : NULL, &rfirst);
		jnum(out, "samples", "%.1f", in->samples, &rfirst);
		jint(out, "executions", in->exec, &rfirst);
		jnum(out, "ns_per_execution", "%.4f", per(in->ns, in->exec), &rfirst);
		if (ghz > 0)
			jnum(out, "estimated_cpi", "%.3f", per(in->ns, in->exec) * ghz, &rfirst);
		jsig(out, in->samples, &rfirst);
		fputc('}', out);
	}
	fputs("]}", out);
	return ferror(out) ? -1 : 0;
}
