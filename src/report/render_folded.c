/*
 * render_folded.c - folded stacks: "frame;frame;frame weight", root first,
 * one line per distinct stack, the input of flamegraph.pl, inferno and
 * speedscope.
 *
 * Several contexts fold into one stack when their frames have the same
 * names (two instructions of one function are one frame to a flame
 * graph), so stacks are built as strings first, then sorted and merged.
 * Weights are summed exactly before rounding: each line rounds once.
 */
#include "report/grow.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN "[unknown]"

struct stack {
	char *frames;		/* "main;scale", root first */
	uint64_t weight;
};

struct folded {
	struct stack *stacks;
	size_t n, cap;
	char *buf;		/* the stack being built */
	size_t len, bufcap;
};

static int put(struct folded *f, const char *s, size_t n)
{
	if (wr_grow((void **)&f->buf, &f->bufcap, f->len + n + 1, 1))
		return -1;
	memcpy(f->buf + f->len, s, n);
	f->len += n;
	f->buf[f->len] = '\0';
	return 0;
}

/*
 * One frame, made safe for the format: ';' separates frames and the last
 * space the weight, and a newline ends the line, so ';' and control bytes
 * become '?' and the name loses its outer spaces (inner ones, as in
 * "f(int, long)", are fine: readers split at the last one).
 */
static int put_frame(struct folded *f, const struct wr_report *r, const struct wr_frame *fr)
{
	const char *name = fr->function;
	char label[512];
	size_t start = f->len, i, n;

	if (!name && fr->module >= 0) {
		/* The module, as perf's stack collapsers name unknown code:
		 * its offsets would split one function into many frames. */
		snprintf(label, sizeof(label), "[%s]", wr_basename(r->mods[fr->module].path));
		name = label;
	}
	if (!name)
		name = UNKNOWN;
	while (*name == ' ')
		name++;
	n = strlen(name);
	while (n && name[n - 1] == ' ')
		n--;
	if (!n)
		return put(f, UNKNOWN, strlen(UNKNOWN));
	if (put(f, name, n))
		return -1;
	for (i = start; i < f->len; i++)
		if ((unsigned char)f->buf[i] < 0x20 || f->buf[i] == 0x7f || f->buf[i] == ';')
			f->buf[i] = '?';
	return 0;
}

/* Context ctx's stack, root first, with weight. */
static int add(struct folded *f, struct wr_symbolizer *s, const struct wr_report *r,
	       uint32_t ctx, uint64_t weight)
{
	const struct wr_frame *fr;
	long n = wr_sym_context(s, ctx, &fr), i;

	if (n < 0)
		return -1;
	f->len = 0;
	if (put(f, "", 0))
		return -1;
	for (i = n - 1; i >= 0; i--)
		if ((i < n - 1 && put(f, ";", 1)) || put_frame(f, r, &fr[i]))
			return -1;
	/* A context with no frames still needs a name to carry its weight. */
	if (n == 0 && put(f, UNKNOWN, strlen(UNKNOWN)))
		return -1;
	if (wr_grow((void **)&f->stacks, &f->cap, f->n + 1, sizeof(*f->stacks)))
		return -1;
	f->stacks[f->n].frames = strdup(f->buf);
	if (!f->stacks[f->n].frames)
		return -1;
	f->stacks[f->n++].weight = weight;
	return 0;
}

static int by_frames(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->frames, ((const struct stack *)b)->frames);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Merge equal stacks and print them, weights divided by unit (rounded
 * to nearest); lines that round to 0 say nothing and are left out. */
static void emit(FILE *out, struct folded *f, uint64_t unit)
{
	size_t i, j;

	qsort(f->stacks, f->n, sizeof(*f->stacks), by_frames);
	for (i = 0; i < f->n; i = j) {
		uint64_t w = 0;

		for (j = i; j < f->n && !strcmp(f->stacks[i].frames, f->stacks[j].frames); j++)
			w = add_sat(w, f->stacks[j].weight);
		w = w / unit + (w % unit >= unit - unit / 2);
		if (w)
			fprintf(out, "%s %llu\n", f->stacks[i].frames, (unsigned long long)w);
	}
}

static void folded_free(struct folded *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->stacks[i].frames);
	free(f->stacks);
	free(f->buf);
}

int wr_render_folded(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, int second)
{
	struct folded f = { 0 };
	size_t i;
	int ret = 0;

	/* Pairs only: a pair with no weight would make a line of 0. */
	for (i = 0; i < r->nwaste && !ret; i++) {
		const struct wr_pair *pr = &r->pairs[r->ranked[i]];

		ret = add(&f, s, r, second ? pr->trap : pr->watch, wr_weight(r, pr));
	}
	/* Waste is in thousandths of a byte; counts are whole already. */
	if (!ret)
		emit(out, &f, r->tool->counts_executions ? 1 : 1000);
	folded_free(&f);
	return ret;
}

int wr_render_folded_time(FILE *out, const struct wr_report *r, struct wr_symbolizer *s)
{
	struct folded f = { 0 };
	size_t i;
	int ret = 0;

	/* A context's ns are its own samples', not its callees': what a
	 * folded line weighs. */
	for (i = 0; i < r->nctxs && !ret; i++)
		if (r->ctxs[i].ns)
			ret = add(&f, s, r, (uint32_t)i, r->ctxs[i].ns);
	if (!ret)
		emit(out, &f, 1);
	folded_free(&f);
	return ret;
}
