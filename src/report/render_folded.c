/*
 * render_folded.c - folded stacks: "frame;frame;frame weight", root first,
 * one line per distinct stack, the input of flamegraph.pl, inferno and
 * speedscope.
 *
 * The contexts and their names come from stacks.c; the contexts of one
 * stack are merged into its line, their weights summed exactly before
 * rounding: each line rounds once.
 */
#include "report/render.h"
#include "report/stacks.h"

#include <stdint.h>

/* Each stack's line; lines that round to 0 say nothing and are left out. */
static void emit(FILE *out, const struct wr_stacks *st)
{
	size_t i, j, k;

	for (i = 0; i < st->n; i = j) {
		uint64_t w = 0;

		j = wr_stacks_end(st, i);
		for (k = i; k < j; k++)
			w = wr_stacks_add(w, st->v[k].weight);
		w = wr_stacks_whole(st, w);
		if (w)
			fprintf(out, "%s %llu\n", st->v[i].frames, (unsigned long long)w);
	}
}

int wr_render_folded(FILE *out, const struct wr_report *r, struct wr_symbolizer *s, int second)
{
	struct wr_stacks st = { 0 };
	int ret = wr_stacks_of_pairs(&st, r, s, second);

	if (!ret)
		emit(out, &st);
	wr_stacks_free(&st);
	return ret;
}

int wr_render_folded_time(FILE *out, const struct wr_report *r, struct wr_symbolizer *s)
{
	struct wr_stacks st = { 0 };
	int ret = wr_stacks_of_time(&st, r, s);

	if (!ret)
		emit(out, &st);
	wr_stacks_free(&st);
	return ret;
}
