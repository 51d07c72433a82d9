/*
 * loop_map.c - the loop map from witch cpi's analysis (loop_map.h).
 *
 * The analysis lists loops by function with an inner loop's header
 * sometimes before its outer loop's (a rotated loop), so each function's
 * loops are written in preorder of their nesting: a parent's id is known
 * when its children are written, and the tool can keep a stack.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/loop_map.h"
#include "core/escape.h"
#include "report/cpi.h"
#include "report/report.h"

struct writer {
	FILE *f;
	const struct cpi *c;
	uint32_t *order;	/* the loops, grouped by module and function */
	size_t n;
	uint32_t *id;		/* by loop: its id in the map, CPI_NONE until written */
	char *in;		/* by block: in the loop being written */
	long next;
};

static const struct cpi *sort_c;

static int by_function(const void *a, const void *b)
{
	const struct cpi_loop *x = &sort_c->loops[*(const uint32_t *)a];
	const struct cpi_loop *y = &sort_c->loops[*(const uint32_t *)b];
	const struct cpi_func *fx = &sort_c->funcs[x->func], *fy = &sort_c->funcs[y->func];

	if (fx->module != fy->module)
		return fx->module < fy->module ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	/* The analysis's order within a function, kept. */
	return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* An escaped string field; NULL and "" are "-", unknown. */
static void put_string(FILE *f, const char *s)
{
	size_t n;
	char *e;

	if (!s || !*s) {
		fputs("-", f);
		return;
	}
	n = core_escape_len(s) + 1;
	e = malloc(n);
	if (!e) {
		fputs("-", f);	/* a file name only labels the loop */
		return;
	}
	core_escape(e, n, s);
	fputs(e, f);
	free(e);
}

/* [first instruction, past the last) of insns[first..first+n). */
static void put_range(FILE *f, const char *tag, const struct cpi *c, uint32_t first, uint32_t n)
{
	const struct cpi_insn *lo = &c->insns[first], *hi = &c->insns[first + n - 1];

	fprintf(f, "%s %" PRIx64 " %" PRIx64 "\n", tag, lo->offset, hi->offset + hi->len);
}

static void put_loop(struct writer *w, uint32_t l)
{
	const struct cpi *c = w->c;
	const struct cpi_loop *lp = &c->loops[l];
	uint32_t b;

	w->id[l] = (uint32_t)w->next++;
	fprintf(w->f, "loop %" PRIu32 " %" PRIx64 " %ld %" PRIu32 " %d %d ", w->id[l],
		c->insns[c->blocks[lp->header].first].offset,
		lp->parent == CPI_NONE ? -1L : (long)w->id[lp->parent], lp->depth,
		lp->first_line > 0 ? lp->first_line : 0, lp->last_line > 0 ? lp->last_line : 0);
	put_string(w->f, lp->file);
	fputc('\n', w->f);
	for (b = 0; b < lp->nblocks; b++) {
		const struct cpi_block *bl = &c->blocks[c->loop_blocks[lp->blocks + b]];

		put_range(w->f, "b", c, bl->first, bl->n);
		w->in[c->loop_blocks[lp->blocks + b]] = 1;
	}
	/* Where control leaves it: the tool ends an invocation there, and
	 * needs no look at any other block. */
	for (b = 0; b < lp->nblocks; b++) {
		const struct cpi_block *bl = &c->blocks[c->loop_blocks[lp->blocks + b]];
		uint32_t k;

		for (k = 0; k < bl->nsucc; k++) {
			uint32_t to = c->arcs[c->succ[bl->succ + k]].to;

			if (!w->in[to])
				fprintf(w->f, "e %" PRIx64 "\n", c->insns[c->blocks[to].first].offset);
		}
	}
	for (b = 0; b < lp->nblocks; b++)
		w->in[c->loop_blocks[lp->blocks + b]] = 0;
}

/* The loops order[from..to) of one function, in preorder from parent. */
static void put_nest(struct writer *w, size_t from, size_t to, uint32_t parent)
{
	size_t i;

	for (i = from; i < to; i++)
		if (w->c->loops[w->order[i]].parent == parent) {
			put_loop(w, w->order[i]);
			put_nest(w, from, to, w->order[i]);
		}
}

long loop_map_write(FILE *f, const struct cpi *c)
{
	struct writer w = { f, c, NULL, 0, NULL, NULL, 0 };
	int32_t module = -1;
	size_t i, j;

	w.order = malloc((c->nloops ? c->nloops : 1) * sizeof(*w.order));
	w.id = malloc((c->nloops ? c->nloops : 1) * sizeof(*w.id));
	w.in = calloc(c->nblocks ? c->nblocks : 1, 1);
	if (!w.order || !w.id || !w.in) {
		free(w.order);
		free(w.id);
		free(w.in);
		return -1;
	}
	for (i = 0; i < c->nloops; i++) {
		w.id[i] = CPI_NONE;
		/* Code outside any module (generated at run time) has no
		 * offsets that a later run could find again. */
		if (c->funcs[c->loops[i].func].module >= 0)
			w.order[w.n++] = (uint32_t)i;
	}
	sort_c = c;
	qsort(w.order, w.n, sizeof(*w.order), by_function);
	fputs("witch-loops 1\n", f);
	for (i = 0; i < w.n; i = j) {
		const struct cpi_func *fn = &c->funcs[c->loops[w.order[i]].func];

		for (j = i; j < w.n && c->loops[w.order[j]].func == c->loops[w.order[i]].func; j++)
			;
		if (fn->module != module) {
			module = fn->module;
			fputs("module ", f);
			put_string(f, c->r->mods[module].path);
			fputc('\n', f);
		}
		put_range(f, "f", c, fn->first, fn->n);
		put_nest(&w, i, j, CPI_NONE);
	}
	fputs("end\n", f);
	free(w.order);
	free(w.id);
	free(w.in);
	return ferror(f) ? -1 : w.next;
}
