/*
 * cpi_join.c - the sampled run's time onto the counting run's
 * instructions (OptiWISE §III and §IV-D).
 *
 * Where a sample lands: a timer interrupt stops the thread at an
 * instruction boundary, after the oldest instruction in flight retires, so
 * the cost of a slow instruction (a load that misses the caches, a divide)
 * is seen on the instruction after it: on the machines witch was measured
 * on, 91 % of a cache-missing load's samples and 89 % of a divide's
 * landed on the next instruction and none on themselves (docs/cpi.md,
 * "Where a sample lands"). So each sample stands for the instruction that
 * executed before the one it landed on (OptiWISE §V-B): the previous one,
 * or, at the start of a block, the instructions that lead there, shared in
 * proportion to how often each did (a jump, a fall-through, the call
 * before a function's first instruction, the return before a return
 * site).
 *
 * A sample credits its instruction, and every call on its stack (the
 * instruction before each return address) with the time below it; a
 * function that is on the stack more than once (recursion) is credited
 * at its most recent instance only, as the counting run counts (src/spy/
 * count_calls.c), so no time is counted twice for one function or loop.
 * Time below a call that the counting run never made, or made but counted
 * nothing below (its frame never seen to run), has no instructions to
 * divide by: it is counted apart, as uncounted.
 */
#include "report/cpi.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 512

/* The vdso and anonymous code: no counting run can see them. */
static int unseen_module(const struct cpi *c, int32_t m)
{
	const char *p;

	if (m < 0)
		return 1;
	p = c->r->mods[m].path;
	return !*p || p[0] == '[' || strstr(p, "linux-vdso") || strstr(p, "linux-gate");
}

/* The function holding the code at (module, offset): by the instruction
 * there, else by the symbol, among the functions that ran. */
static uint32_t function_at(const struct cpi *c, int32_t module, uint64_t offset)
{
	struct wr_addr_info info;
	size_t lo = 0, hi = c->nfuncs;

	wr_sym_addr(c->sym, module, offset, 1, &info);
	if (!info.function)
		return CPI_NONE;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct cpi_func *f = &c->funcs[mid];

		if (f->module < module || (f->module == module && f->start < info.start))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nfuncs && c->funcs[lo].module == module && c->funcs[lo].start == info.start &&
			       c->funcs[lo].name
		       ? (uint32_t)lo
		       : CPI_NONE;
}

struct frame {
	int32_t module;
	uint64_t offset;	/* a return address */
};

/* Credit a sample's weight: its instruction, and the calls on its stack
 * (innermost first), once per function. */
static void credit(struct cpi *c, uint32_t leaf, const struct frame *ra, int n, double samples,
		   double ns)
{
	uint32_t seen[MAX_FRAMES + 1];
	int nseen = 0, i, j;

	c->insns[leaf].samples += samples;
	c->insns[leaf].ns += ns;
	seen[nseen++] = c->insns[leaf].func;
	c->funcs[c->insns[leaf].func].incl_samples += samples;
	c->funcs[c->insns[leaf].func].incl_ns += ns;
	for (i = 0; i < n; i++) {
		uint32_t call, f;

		if (wr_map_get(&c->end_map, (uint64_t)(ra[i].module + 1), ra[i].offset, &call))
			f = c->insns[call].func;
		else if ((f = function_at(c, ra[i].module, ra[i].offset - 1)) != CPI_NONE)
			call = CPI_NONE;
		else
			continue;
		for (j = 0; j < nseen && seen[j] != f; j++)
			;
		if (j < nseen)
			continue;	/* a deeper instance of f has it */
		seen[nseen++] = f;
		c->funcs[f].incl_samples += samples;
		c->funcs[f].incl_ns += ns;
		if (call == CPI_NONE || !c->insns[call].below)
			c->funcs[f].uncounted_ns += ns;
		if (call != CPI_NONE) {
			c->insns[call].below_samples += samples;
			c->insns[call].below_ns += ns;
		}
	}
}

/* The sample that landed on instruction at, its return addresses ra[0..n),
 * stands for the instructions that executed just before: credit each its
 * share. */
static void attribute(struct cpi *c, uint32_t at, struct frame *ra, int n, double samples,
		      double ns)
{
	const struct cpi_insn *in = &c->insns[at];
	uint64_t total = 0;
	uint32_t k;

	c->insns[at].landed += samples;
	if (c->blocks[in->block].first != at) {
		c->moved += samples;
		credit(c, at - 1, ra, n, samples, ns);
		return;
	}
	/* The start of a block: every way in, by how often. */
	for (k = 0; k < in->nin; k++) {
		const struct cpi_edge *e = &c->edges[c->in_edges[in->in + k]];

		if (e->kind != 'f')
			total += e->count;
	}
	if (at > 0 && !c->insns[at - 1].nout && c->insns[at - 1].module == in->module &&
	    c->insns[at - 1].offset + c->insns[at - 1].len == in->offset)
		total += c->insns[at - 1].exec;
	if (!total) {
		credit(c, at, ra, n, samples, ns);
		return;
	}
	c->moved += samples;
	if (at > 0 && !c->insns[at - 1].nout && c->insns[at - 1].module == in->module &&
	    c->insns[at - 1].offset + c->insns[at - 1].len == in->offset)
		credit(c, at - 1, ra, n, samples * c->insns[at - 1].exec / total,
		       ns * c->insns[at - 1].exec / total);
	for (k = 0; k < in->nin; k++) {
		const struct cpi_edge *e = &c->edges[c->in_edges[in->in + k]];
		double share = (double)e->count / total;

		if (e->kind == 'f' || !e->count)
			continue;
		if (e->kind == 'c') {
			/* Back in the caller, at its call: its frame is the
			 * return address's. */
			credit(c, e->src, ra + (n > 0), n - (n > 0), samples * share, ns * share);
		} else if (e->kind == 'r' && n < MAX_FRAMES) {
			/* In the callee, at its return: the return site is
			 * a return address again. */
			ra[-1].module = in->module;
			ra[-1].offset = in->offset;
			credit(c, e->src, ra - 1, n + 1, samples * share, ns * share);
		} else {
			credit(c, e->src, ra, n, samples * share, ns * share);
		}
	}
}

int cpi_join(struct cpi *c)
{
	const struct wr_report *r = c->r;
	/* One slot before the return addresses, for a return site. */
	struct frame frames[MAX_FRAMES + 1], *ra = frames + 1;
	size_t i, f;

	for (i = 1; i < r->nctxs; i++) {
		const struct wr_ctx *leaf = &r->ctxs[i];
		uint32_t at, p;
		int n = 0;

		if (!leaf->samples && !leaf->ns)
			continue;
		if (unseen_module(c, leaf->module)) {
			c->unseen_samples += (double)leaf->samples;
			c->unseen_ns += (double)leaf->ns;
			continue;
		}
		at = cpi_insn_at(c, leaf->module, leaf->offset);
		if (at == CPI_NONE) {
			c->diverged_samples += (double)leaf->samples;
			c->diverged_ns += (double)leaf->ns;
			continue;
		}
		for (p = leaf->parent; p != WR_ROOT && p != WR_NONE && n < MAX_FRAMES - 1;
		     p = r->ctxs[p].parent) {
			ra[n].module = r->ctxs[p].module;
			ra[n].offset = r->ctxs[p].offset;
			n++;
		}
		attribute(c, at, ra, n, (double)leaf->samples, (double)leaf->ns);
	}
	for (f = 0; f < c->nfuncs; f++) {
		struct cpi_func *fn = &c->funcs[f];
		uint32_t k;

		fn->incl_insns = fn->self_insns;
		for (k = fn->first; k < fn->first + fn->n; k++) {
			fn->self_samples += c->insns[k].samples;
			fn->self_ns += c->insns[k].ns;
			fn->incl_insns += c->insns[k].below;
		}
	}
	for (i = 0; i < c->ninsns; i++) {
		c->blocks[c->insns[i].block].samples += c->insns[i].samples;
		c->blocks[c->insns[i].block].ns += c->insns[i].ns;
	}
	return 0;
}
