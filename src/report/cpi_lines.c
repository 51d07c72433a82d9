/*
 * cpi_lines.c - source lines: their instructions' time and executions.
 *
 * A line executes each time control comes to it from another line (or
 * from no line): by falling through, a jump, a call to the function it
 * begins, or a call on another line returning to it. Jumps within the
 * line, the iterations of a loop written on one line among them, do not
 * execute it again, so its time per execution is what one visit costs;
 * the instructions it executed are counted apart. A line of a function
 * inlined in several places sums its copies.
 */
#include "report/cpi.h"
#include "report/grow.h"
#include "report/map.h"

#include <stdlib.h>
#include <string.h>

static int same_line(const struct cpi_insn *a, const struct cpi_insn *b)
{
	return a->file && b->file && a->src_line == b->src_line &&
	       (a->file == b->file || !strcmp(a->file, b->file));
}

int cpi_lines(struct cpi *c)
{
	struct wr_map map = { 0 };
	double *best = NULL;
	size_t cap = 0, bcap = 0, i;
	uint32_t k;
	int ret = -1;

	for (i = 0; i < c->ninsns; i++) {
		struct cpi_insn *in = &c->insns[i];
		uint64_t h;
		uint32_t idx;
		int n;

		if (!in->file || !in->src_line)
			continue;
		h = wr_hash_str(WR_HASH_INIT, in->file);
		for (n = 0; wr_map_get(&map, h, (uint64_t)in->src_line << 16 | (uint64_t)n, &idx) &&
			    strcmp(c->lines[idx].file, in->file);
		     n++)
			;
		if (!wr_map_get(&map, h, (uint64_t)in->src_line << 16 | (uint64_t)n, &idx)) {
			idx = (uint32_t)c->nlines;
			if (wr_grow((void **)&c->lines, &cap, c->nlines + 1, sizeof(*c->lines)) ||
			    wr_grow((void **)&best, &bcap, c->nlines + 1, sizeof(*best)) ||
			    wr_map_put(&map, h, (uint64_t)in->src_line << 16 | (uint64_t)n, idx))
				goto out;
			memset(&c->lines[idx], 0, sizeof(c->lines[idx]));
			c->lines[idx].file = in->file;
			c->lines[idx].line = in->src_line;
			best[idx] = -1;
			c->nlines++;
		}
		in->line = idx;
		c->lines[idx].insns += in->exec;
		c->lines[idx].samples += in->samples;
		c->lines[idx].ns += in->ns;
		if (in->ns > best[idx]) {
			best[idx] = in->ns;
			c->lines[idx].func = in->func;
		}
	}
	for (i = 0; i < c->ninsns; i++) {
		const struct cpi_insn *in = &c->insns[i], *prev = i ? &c->insns[i - 1] : NULL;

		if (in->line == CPI_NONE)
			continue;
		if (prev && !prev->nout && prev->module == in->module &&
		    prev->offset + prev->len == in->offset && !same_line(prev, in))
			c->lines[in->line].entries += prev->exec;
		for (k = 0; k < in->nin; k++) {
			const struct cpi_edge *e = &c->edges[c->in_edges[in->in + k]];

			if (e->kind != 'r' && !same_line(&c->insns[e->src], in))
				c->lines[in->line].entries += e->count;
		}
	}
	ret = 0;
out:
	wr_map_free(&map);
	free(best);
	return ret;
}
