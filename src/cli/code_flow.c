/*
 * code_flow.c - basic blocks, dominators (Cooper, Harvey and Kennedy's
 * iterative algorithm over the reverse post-order) and natural loops of
 * one function, from a linear sweep of its bytes with Zydis: compilers
 * keep jump tables out of the code, so every byte of a function's ranges
 * is an instruction or padding.
 */
#include "cli/code_flow.h"

#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>

enum kind {
	K_FALL,		/* on to the next instruction (calls too) */
	K_JUMP,		/* to target */
	K_COND,		/* to target or on */
	K_STOP,		/* nowhere in this function: ret, ud2, hlt, undecodable */
	K_INDIRECT,	/* through a register or memory */
};

struct insn {
	uint64_t addr, target;
	uint8_t len, kind, lead;
	uint32_t block;
};

static enum kind kind_of(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			 uint64_t addr, uint64_t *target)
{
	ZyanU64 t;
	int relative = in->operand_count > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		       ops[0].imm.is_relative &&
		       ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &ops[0], addr, &t));

	if (relative)
		*target = t;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_SYSENTER:
		return K_STOP;
	case ZYDIS_MNEMONIC_XBEGIN:	/* an abort resumes at target */
		return relative ? K_COND : K_FALL;
	default:
		break;
	}
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return relative ? K_COND : K_FALL;
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (in->mnemonic != ZYDIS_MNEMONIC_JMP)
			return K_FALL;	/* xabort: a no-op outside a transaction */
		return relative ? K_JUMP : K_INDIRECT;
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSRET:
		return K_STOP;
	default:
		return K_FALL;
	}
}

static int decode(const struct flow_code *code, size_t ncode, struct insn **out, size_t *n)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	struct insn *v = NULL;
	size_t i, off, cap = 0, total = 0;

	for (i = 0; i < ncode; i++)
		total += code[i].len;
	*n = 0;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (i = 0; i < ncode; i++)
		for (off = 0; off < code[i].len;) {
			struct insn *x;

			if (*n == cap) {
				cap = cap ? cap * 2 : total / 3 + 16;
				x = realloc(v, cap * sizeof(*v));
				if (!x) {
					free(v);
					return -1;
				}
				v = x;
			}
			x = &v[(*n)++];
			memset(x, 0, sizeof(*x));
			x->addr = code[i].start + off;
			x->lead = off == 0;
			if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code[i].bytes + off,
								 code[i].len - off, &in, ops))) {
				x->len = in.length;
				x->kind = (uint8_t)kind_of(&in, ops, x->addr, &x->target);
			} else {
				x->len = 1;
				x->kind = K_STOP;
			}
			off += x->len;
		}
	*out = v;
	return 0;
}

/* The instruction starting at addr, or *n when none does. */
static size_t insn_at(const struct insn *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].addr == addr ? lo : n;
}

struct edges {
	uint32_t (*e)[2];
	size_t n, cap;
};

static int add_edge(struct edges *es, uint32_t from, uint32_t to)
{
	size_t i;

	for (i = es->n; i-- > 0 && es->e[i][0] == from;)
		if (es->e[i][1] == to)
			return 0;
	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 64;
		void *p = realloc(es->e, cap * sizeof(*es->e));

		if (!p)
			return -1;
		es->e = p;
		es->cap = cap;
	}
	es->e[es->n][0] = from;
	es->e[es->n][1] = to;
	es->n++;
	return 0;
}

/* Blocks from the leaders, and their direct edges. */
static int make_blocks(struct flow *f, struct insn *v, size_t n, struct edges *es)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		if (i == 0 || v[i].lead)
			f->nb++;
	f->b = calloc(f->nb ? f->nb : 1, sizeof(*f->b));
	if (!f->b)
		return -1;
	for (i = 0, k = 0; i < n; i++) {
		if (i > 0 && v[i].lead)
			k++;
		if (i == 0 || v[i].lead)
			f->b[k].start = v[i].addr;
		f->b[k].end = v[i].addr + v[i].len;
		v[i].block = (uint32_t)k;
	}
	for (i = 0; i < n; i++) {
		const struct insn *x = &v[i];
		size_t t;

		if (i + 1 < n && !v[i + 1].lead)
			continue;	/* not the last of its block */
		if ((x->kind == K_FALL || x->kind == K_COND) && i + 1 < n &&
		    v[i + 1].addr == x->addr + x->len && add_edge(es, x->block, v[i + 1].block))
			return -1;
		if ((x->kind == K_JUMP || x->kind == K_COND) &&
		    (t = insn_at(v, n, x->target)) < n && add_edge(es, x->block, v[t].block))
			return -1;
	}
	return 0;
}

/* Jump tables: every block nothing else reaches may follow an indirect jump. */
static int add_indirect(struct flow *f, const struct insn *v, size_t n, struct edges *es)
{
	char *reached = calloc(f->nb ? f->nb : 1, 1);
	size_t i, j, direct = es->n;
	int ret = 0;

	if (!reached)
		return -1;
	for (i = 0; i < direct; i++)
		reached[es->e[i][1]] = 1;
	reached[f->entry] = 1;
	for (i = 0; i < n && !ret; i++) {
		if (v[i].kind != K_INDIRECT || (i + 1 < n && !v[i + 1].lead))
			continue;
		for (j = 0; j < f->nb && !ret; j++)
			if (!reached[j])
				ret = add_edge(es, v[i].block, (uint32_t)j);
	}
	free(reached);
	return ret;
}

static int cmp_edge(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Successor and predecessor lists from the edges. */
static int link_blocks(struct flow *f, struct edges *es)
{
	size_t i;

	f->succ = malloc((es->n ? es->n : 1) * sizeof(*f->succ));
	f->pred = malloc((es->n ? es->n : 1) * sizeof(*f->pred));
	if (!f->succ || !f->pred)
		return -1;
	if (es->n)
		qsort(es->e, es->n, sizeof(*es->e), cmp_edge);
	for (i = 0; i < es->n; i++) {
		struct flow_block *b = &f->b[es->e[i][0]];

		if (!b->nsucc)
			b->first_succ = (uint32_t)i;
		f->succ[i] = es->e[i][1];
		b->nsucc++;
		f->b[es->e[i][1]].npred++;
	}
	for (i = 0; i < f->nb; i++)
		f->b[i].first_pred = i ? f->b[i - 1].first_pred + f->b[i - 1].npred : 0;
	for (i = 0; i < f->nb; i++)
		f->b[i].npred = 0;
	for (i = 0; i < es->n; i++) {
		struct flow_block *b = &f->b[es->e[i][1]];

		f->pred[b->first_pred + b->npred++] = es->e[i][0];
	}
	return 0;
}

/* Reverse post-order numbers from the entry (FLOW_NONE: not reached), and
 * the blocks in that order. */
static int number(const struct flow *f, uint32_t *rpo, uint32_t *order, size_t *nreached)
{
	uint32_t *stack = malloc(f->nb * sizeof(*stack)), *next = calloc(f->nb, sizeof(*next));
	size_t depth = 0, post = 0, i;

	if (!stack || !next) {
		free(stack);
		free(next);
		return -1;
	}
	for (i = 0; i < f->nb; i++)
		rpo[i] = FLOW_NONE;
	rpo[f->entry] = 0;	/* seen */
	stack[depth++] = f->entry;
	while (depth) {
		uint32_t b = stack[depth - 1];

		if (next[b] < f->b[b].nsucc) {
			uint32_t s = f->succ[f->b[b].first_succ + next[b]++];

			if (rpo[s] == FLOW_NONE) {
				rpo[s] = 0;
				stack[depth++] = s;
			}
			continue;
		}
		order[post++] = b;
		depth--;
	}
	for (i = 0; i < post / 2; i++) {
		uint32_t t = order[i];

		order[i] = order[post - 1 - i];
		order[post - 1 - i] = t;
	}
	for (i = 0; i < post; i++)
		rpo[order[i]] = (uint32_t)i;
	*nreached = post;
	free(stack);
	free(next);
	return 0;
}

static int dominators(struct flow *f)
{
	uint32_t *rpo = malloc(f->nb * sizeof(*rpo)), *order = malloc(f->nb * sizeof(*order));
	size_t n, i, j;
	int changed = 1;

	if (!rpo || !order || number(f, rpo, order, &n)) {
		free(rpo);
		free(order);
		return -1;
	}
	for (i = 0; i < f->nb; i++)
		f->b[i].idom = FLOW_NONE;
	f->b[f->entry].idom = f->entry;
	while (changed) {
		changed = 0;
		for (i = 1; i < n; i++) {
			const struct flow_block *b = &f->b[order[i]];
			uint32_t d = FLOW_NONE;

			for (j = 0; j < b->npred; j++) {
				uint32_t p = f->pred[b->first_pred + j], x = d;

				if (f->b[p].idom == FLOW_NONE)
					continue;
				if (d == FLOW_NONE) {
					d = p;
					continue;
				}
				while (p != x) {
					while (rpo[p] > rpo[x])
						p = f->b[p].idom;
					while (rpo[x] > rpo[p])
						x = f->b[x].idom;
				}
				d = p;
			}
			if (f->b[order[i]].idom != d) {
				f->b[order[i]].idom = d;
				changed = 1;
			}
		}
	}
	free(rpo);
	free(order);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The natural loop of header h: h and what reaches its back edges' sources
 * without passing h. */
static int loop_of(struct flow *f, uint32_t h, char *in, uint32_t *work)
{
	struct flow_loop *l;
	size_t nwork = 0, i;
	int back = 0;
	void *p;

	memset(in, 0, f->nb);
	in[h] = 1;
	for (i = 0; i < f->b[h].npred; i++) {
		uint32_t u = f->pred[f->b[h].first_pred + i];

		if (!flow_dominates(f, h, u))
			continue;
		back = 1;
		if (!in[u]) {
			in[u] = 1;
			work[nwork++] = u;
		}
	}
	if (!back)
		return 0;
	while (nwork) {
		const struct flow_block *b = &f->b[work[--nwork]];

		for (i = 0; i < b->npred; i++) {
			uint32_t u = f->pred[b->first_pred + i];

			if (!in[u] && f->b[u].idom != FLOW_NONE) {
				in[u] = 1;
				work[nwork++] = u;
			}
		}
	}
	p = realloc(f->loops, (f->nloops + 1) * sizeof(*f->loops));
	if (!p)
		return -1;
	f->loops = p;
	l = &f->loops[f->nloops++];
	memset(l, 0, sizeof(*l));
	l->header = h;
	for (i = 0; i < f->nb; i++)
		l->nblocks += in[i];
	l->blocks = malloc(l->nblocks * sizeof(*l->blocks));
	if (!l->blocks)
		return -1;
	for (i = 0, l->nblocks = 0; i < f->nb; i++)
		if (in[i])
			l->blocks[l->nblocks++] = (uint32_t)i;
	return 0;
}

static int loops(struct flow *f)
{
	char *in = malloc(f->nb);
	uint32_t *work = malloc(f->nb * sizeof(*work));
	size_t h;
	int ret = 0;

	if (!in || !work)
		ret = -1;
	for (h = 0; h < f->nb && !ret; h++)
		if (f->b[h].idom != FLOW_NONE)
			ret = loop_of(f, (uint32_t)h, in, work);
	free(in);
	free(work);
	return ret;
}

int flow_build(struct flow *f, const struct flow_code *code, size_t ncode, uint64_t entry,
	       const uint64_t *cuts, size_t ncuts)
{
	struct edges es = { 0 };
	struct insn *v = NULL;
	size_t n, i, j;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	if (decode(code, ncode, &v, &n))
		return -1;
	if (!n) {
		free(v);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (v[i].kind != K_FALL && i + 1 < n)
			v[i + 1].lead = 1;
		if ((v[i].kind == K_JUMP || v[i].kind == K_COND) &&
		    (j = insn_at(v, n, v[i].target)) < n)
			v[j].lead = 1;
	}
	if ((j = insn_at(v, n, entry)) < n)
		v[j].lead = 1;
	for (i = 0; i < ncuts; i++)
		if ((j = insn_at(v, n, cuts[i])) < n)
			v[j].lead = 1;
	if (make_blocks(f, v, n, &es) || !(f->insn = malloc(n * sizeof(*f->insn))))
		goto out;
	for (i = 0; i < n; i++)
		f->insn[i] = v[i].addr;
	f->ninsn = n;
	f->entry = (j = insn_at(v, n, entry)) < n ? v[j].block : 0;
	if (add_indirect(f, v, n, &es) || link_blocks(f, &es) || dominators(f) || loops(f))
		goto out;
	ret = 0;
out:
	free(v);
	free(es.e);
	if (ret)
		flow_free(f);
	return ret;
}

uint32_t flow_block_at(const struct flow *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->b[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nb && f->b[lo].start <= addr ? (uint32_t)lo : FLOW_NONE;
}

int flow_dominates(const struct flow *f, uint32_t a, uint32_t b)
{
	if (f->b[b].idom == FLOW_NONE)
		return 0;
	for (;;) {
		if (a == b)
			return 1;
		if (b == f->entry)
			return 0;
		b = f->b[b].idom;
	}
}

int flow_loop_holds(const struct flow_loop *l, uint32_t b)
{
	return bsearch(&b, l->blocks, l->nblocks, sizeof(b), cmp_u32) != NULL;
}

void flow_free(struct flow *f)
{
	size_t i;

	for (i = 0; i < f->nloops; i++)
		free(f->loops[i].blocks);
	free(f->loops);
	free(f->b);
	free(f->succ);
	free(f->pred);
	free(f->insn);
	memset(f, 0, sizeof(*f));
}
