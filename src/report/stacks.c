/*
 * stacks.c - weighted contexts named as folded stacks (see stacks.h).
 */
#include "report/grow.h"
#include "report/report.h"
#include "report/stacks.h"
#include "report/symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN "[unknown]"

const char *wr_stack_frame_name(const struct wr_report *r, const struct wr_frame *fr, char *buf,
				size_t cap)
{
	if (fr->function)
		return fr->function;
	if (fr->module >= 0 && (size_t)fr->module < r->nmods) {
		snprintf(buf, cap, "[%s]", wr_basename(r->mods[fr->module].path));
		return buf;
	}
	return UNKNOWN;
}

static int put(struct wr_stacks *st, const char *s, size_t n)
{
	if (wr_grow((void **)&st->buf, &st->bufcap, st->len + n + 1, 1))
		return -1;
	memcpy(st->buf + st->len, s, n);
	st->len += n;
	st->buf[st->len] = '\0';
	return 0;
}

/*
 * One frame, made safe for the folded format: ';' separates frames and
 * the last space the weight, and a newline ends the line, so ';' and
 * control bytes become '?' and the name loses its outer spaces (inner
 * ones, as in "f(int, long)", are fine: readers split at the last one).
 */
static int put_frame(struct wr_stacks *st, const struct wr_report *r, const struct wr_frame *fr)
{
	char label[512];
	const char *name = wr_stack_frame_name(r, fr, label, sizeof(label));
	size_t start = st->len, i, n;

	while (*name == ' ')
		name++;
	n = strlen(name);
	while (n && name[n - 1] == ' ')
		n--;
	if (!n)
		return put(st, UNKNOWN, strlen(UNKNOWN));
	if (put(st, name, n))
		return -1;
	for (i = start; i < st->len; i++)
		if ((unsigned char)st->buf[i] < 0x20 || st->buf[i] == 0x7f || st->buf[i] == ';')
			st->buf[i] = '?';
	return 0;
}

/* Context ctx, named root first, with weight. */
static int add(struct wr_stacks *st, struct wr_symbolizer *s, const struct wr_report *r,
	       uint32_t ctx, uint64_t weight)
{
	const struct wr_frame *fr;
	long n = wr_sym_context(s, ctx, &fr), i;

	if (n < 0)
		return -1;
	st->len = 0;
	if (put(st, "", 0))
		return -1;
	for (i = n - 1; i >= 0; i--)
		if ((i < n - 1 && put(st, ";", 1)) || put_frame(st, r, &fr[i]))
			return -1;
	/* A context with no frames still needs a name to carry its weight. */
	if (n == 0 && put(st, UNKNOWN, strlen(UNKNOWN)))
		return -1;
	if (wr_grow((void **)&st->v, &st->cap, st->n + 1, sizeof(*st->v)))
		return -1;
	st->v[st->n].frames = strdup(st->buf);
	if (!st->v[st->n].frames)
		return -1;
	st->v[st->n].ctx = ctx;
	st->v[st->n++].weight = weight;
	return 0;
}

static int by_frames(const void *a, const void *b)
{
	const struct wr_stack *x = a, *y = b;
	int c = strcmp(x->frames, y->frames);

	if (c)
		return c;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

static void sort(struct wr_stacks *st)
{
	qsort(st->v, st->n, sizeof(*st->v), by_frames);
}

int wr_stacks_of_pairs(struct wr_stacks *st, const struct wr_report *r, struct wr_symbolizer *s,
		       int second)
{
	size_t i;

	/* Waste is in thousandths of a byte; counts are whole already. */
	st->unit = r->tool->counts_executions ? 1 : 1000;
	/* Pairs only: a pair with no weight would make a stack of 0. */
	for (i = 0; i < r->nwaste; i++) {
		const struct wr_pair *pr = &r->pairs[r->ranked[i]];

		if (add(st, s, r, second ? pr->trap : pr->watch, wr_weight(r, pr)))
			return -1;
	}
	sort(st);
	return 0;
}

int wr_stacks_of_time(struct wr_stacks *st, const struct wr_report *r, struct wr_symbolizer *s)
{
	size_t i;

	st->unit = 1;
	for (i = 0; i < r->nctxs; i++)
		if (r->ctxs[i].ns && add(st, s, r, (uint32_t)i, r->ctxs[i].ns))
			return -1;
	sort(st);
	return 0;
}

size_t wr_stacks_end(const struct wr_stacks *st, size_t i)
{
	size_t j;

	for (j = i + 1; j < st->n && !strcmp(st->v[i].frames, st->v[j].frames); j++)
		;
	return j;
}

uint64_t wr_stacks_whole(const struct wr_stacks *st, uint64_t weight)
{
	uint64_t u = st->unit;

	return weight / u + (weight % u >= u - u / 2);
}

uint64_t wr_stacks_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void wr_stacks_free(struct wr_stacks *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		free(st->v[i].frames);
	free(st->v);
	free(st->buf);
	memset(st, 0, sizeof(*st));
}
