/*
 * cpi_cfg.c - functions, basic blocks and each function's control-flow
 * graph, from the counting run's instructions and edges.
 *
 * A function is the ELF symbol holding its instructions; code without a
 * symbol (stripped objects) is in the function of its call frame entry,
 * which unwinding needs and strip keeps, else in a run of contiguous
 * instructions: instructions that never ran (an error path) would cut
 * a function into pieces, and its loops with it. A basic block starts at a
 * function's first instruction, after a gap, after an instruction with
 * edges of its own (a jump, a call, a return), and at an instruction that
 * edges lead to; it runs to the next such start. An instruction with no
 * edge falls through to the next one as often as it executes. Within a
 * function, a call leads to the instruction after it as often as it
 * returned there ('f' edges); calls, returns and jumps to other functions
 * leave the graph. A call that never returned there (exit, longjmp,
 * __libc_start_call_main) leads nowhere: unlike a conditional jump's side
 * never taken, nothing says the path exists, and the return site can be
 * a block that dominates the call, which would make a false loop.
 */
#include "report/cpi.h"
#include "report/grow.h"
#include "report/symbolize.h"

#include <stdlib.h>
#include <string.h>

static int contiguous(const struct cpi_insn *a, const struct cpi_insn *b)
{
	return a->module == b->module && a->offset + a->len == b->offset;
}

int cpi_functions(struct cpi *c)
{
	size_t cap = 0, i;
	struct wr_addr_info info, sym = { 0 };
	int32_t sym_module = -2;
	uint64_t start = 0;
	const char *name = NULL, *linkage = NULL;

	for (i = 0; i < c->ninsns; i++) {
		struct cpi_insn *in = &c->insns[i];
		struct cpi_func *f = c->nfuncs ? &c->funcs[c->nfuncs - 1] : NULL;
		/* Instructions come in address order: the last symbol holds
		 * the next ones until its end. */
		int known = (sym.function || sym.end > sym.start) && sym_module == in->module &&
			    in->offset >= sym.start && in->offset < sym.end;

		wr_sym_addr(c->sym, in->module, in->offset, !known, &info);
		if (!known) {
			sym = info;
			sym_module = in->module;
		}
		in->file = info.file;
		in->src_line = info.line;
		if (sym.function) {
			name = sym.function;
			linkage = sym.linkage;
			start = sym.start;
		} else if (sym.end > sym.start) {
			name = NULL;
			linkage = NULL;
			start = sym.start;
		} else {
			name = NULL;
			linkage = NULL;
			start = f && !f->name && contiguous(&c->insns[i - 1], in) ? f->start : in->offset;
		}
		if (!f || f->module != in->module || f->start != start || (f->name == NULL) != !name) {
			if (wr_grow((void **)&c->funcs, &cap, c->nfuncs + 1, sizeof(*c->funcs)))
				return -1;
			f = &c->funcs[c->nfuncs++];
			memset(f, 0, sizeof(*f));
			f->module = in->module;
			f->start = start;
			f->name = name;
			f->linkage = linkage;
			f->first = (uint32_t)i;
		}
		f->n++;
		f->self_insns += in->exec;
		in->func = (uint32_t)(f - c->funcs);
	}
	/* Invocations: calls to its first instruction, and jumps to it from
	 * other functions (tail calls). */
	for (i = 0; i < c->nfuncs; i++) {
		struct cpi_func *f = &c->funcs[i];
		const struct cpi_insn *entry = &c->insns[f->first];
		uint32_t k;

		if (entry->offset != f->start)
			continue;
		for (k = 0; k < entry->nin; k++) {
			const struct cpi_edge *e = &c->edges[c->in_edges[entry->in + k]];

			if (e->kind == 'c' || (e->kind == 'j' && c->insns[e->src].func != i))
				f->invocations += e->count;
		}
	}
	return 0;
}

static int leader(const struct cpi *c, const struct cpi_func *f, uint32_t i)
{
	const struct cpi_insn *in = &c->insns[i], *prev = &c->insns[i - 1];

	return i == f->first || !contiguous(prev, in) || prev->nout || in->nin;
}

static int add_arc(struct cpi *c, size_t *cap, uint32_t from, uint32_t to, uint64_t count)
{
	if (wr_grow((void **)&c->arcs, cap, c->narcs + 1, sizeof(*c->arcs)))
		return -1;
	c->arcs[c->narcs].from = from;
	c->arcs[c->narcs].to = to;
	c->arcs[c->narcs].count = count;
	c->narcs++;
	return 0;
}

/* Index arcs by block: succ by their source, pred by their target. */
static int index_arcs(struct cpi *c)
{
	size_t i;

	c->succ = calloc(c->narcs + 1, sizeof(*c->succ));
	c->pred = calloc(c->narcs + 1, sizeof(*c->pred));
	if (!c->succ || !c->pred)
		return -1;
	for (i = 0; i < c->narcs; i++) {
		c->blocks[c->arcs[i].from].nsucc++;
		c->blocks[c->arcs[i].to].npred++;
	}
	for (i = 1; i < c->nblocks; i++) {
		c->blocks[i].succ = c->blocks[i - 1].succ + c->blocks[i - 1].nsucc;
		c->blocks[i].pred = c->blocks[i - 1].pred + c->blocks[i - 1].npred;
	}
	for (i = 0; i < c->nblocks; i++)
		c->blocks[i].nsucc = c->blocks[i].npred = 0;
	for (i = 0; i < c->narcs; i++) {
		struct cpi_block *from = &c->blocks[c->arcs[i].from], *to = &c->blocks[c->arcs[i].to];

		c->succ[from->succ + from->nsucc++] = (uint32_t)i;
		c->pred[to->pred + to->npred++] = (uint32_t)i;
	}
	return 0;
}

/* A block's executions, the instructions it executed, and the range of
 * its lines in its first instruction's file. */
static void block_figures(struct cpi *c, struct cpi_block *bl)
{
	uint32_t i;

	bl->execs = c->insns[bl->first].exec;
	bl->file = c->insns[bl->first].file;
	for (i = bl->first; i < bl->first + bl->n; i++) {
		const struct cpi_insn *in = &c->insns[i];

		bl->insns += in->exec;
		if (!in->file || !bl->file || strcmp(in->file, bl->file) || !in->src_line)
			continue;
		if (!bl->first_line || in->src_line < bl->first_line)
			bl->first_line = in->src_line;
		if (in->src_line > bl->last_line)
			bl->last_line = in->src_line;
	}
}

int cpi_blocks(struct cpi *c)
{
	size_t cap = 0, acap = 0, f, b;
	uint32_t i, k;

	for (f = 0; f < c->nfuncs; f++) {
		struct cpi_func *fn = &c->funcs[f];

		fn->first_block = (uint32_t)c->nblocks;
		for (i = fn->first; i < fn->first + fn->n; i++) {
			if (leader(c, fn, i)) {
				if (wr_grow((void **)&c->blocks, &cap, c->nblocks + 1, sizeof(*c->blocks)))
					return -1;
				memset(&c->blocks[c->nblocks], 0, sizeof(c->blocks[0]));
				c->blocks[c->nblocks].func = (uint32_t)f;
				c->blocks[c->nblocks].first = i;
				c->nblocks++;
				fn->nblocks++;
			}
			c->blocks[c->nblocks - 1].n++;
			c->insns[i].block = (uint32_t)c->nblocks - 1;
		}
	}
	for (b = 0; b < c->nblocks; b++) {
		struct cpi_block *bl = &c->blocks[b];
		uint32_t last = bl->first + bl->n - 1;
		const struct cpi_insn *in = &c->insns[last];

		block_figures(c, bl);
		if (!in->nout) {
			if (last + 1 < c->ninsns && c->insns[last + 1].func == bl->func &&
			    contiguous(in, &c->insns[last + 1]) &&
			    add_arc(c, &acap, (uint32_t)b, c->insns[last + 1].block, in->exec))
				return -1;
			continue;
		}
		for (k = 0; k < in->nout; k++) {
			const struct cpi_edge *e = &c->edges[in->out + k];

			if ((e->kind == 'j' || (e->kind == 'f' && e->count)) && e->dst != CPI_NONE &&
			    c->insns[e->dst].func == bl->func &&
			    add_arc(c, &acap, (uint32_t)b, c->insns[e->dst].block, e->count))
				return -1;
		}
	}
	return index_arcs(c);
}
