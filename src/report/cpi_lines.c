/*
 * cpi_lines.c - source lines: their instructions' time and executions.
 *
 * A line executes as often as its most executed instruction: the
 * compiler interleaves lines, so counting how often control came to a
 * line from another would count a line twice that another's instruction
 * splits. A line of a function inlined into several functions sums its
 * copies, one per function. The instructions a line executed are counted
 * apart.
 */
#include "report/cpi.h"
#include "report/grow.h"
#include "report/map.h"

#include <stdlib.h>
#include <string.h>

int cpi_lines(struct cpi *c)
{
	struct wr_map map = { 0 };
	double *best = NULL;
	uint64_t *most = NULL;
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
			    !(most = realloc(most, bcap * sizeof(*most))) ||
			    wr_map_put(&map, h, (uint64_t)in->src_line << 16 | (uint64_t)n, idx))
				goto out;
			memset(&c->lines[idx], 0, sizeof(c->lines[idx]));
			c->lines[idx].file = in->file;
			c->lines[idx].line = in->src_line;
			best[idx] = -1;
			most[idx] = 0;
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
	/* Per function in turn (instructions are in function order): the
	 * most executed instruction of each line there. */
	for (i = 0; i < c->ninsns; i = k) {
		for (k = (uint32_t)i; k < c->ninsns && c->insns[k].func == c->insns[i].func; k++)
			if (c->insns[k].line != CPI_NONE && c->insns[k].exec > most[c->insns[k].line])
				most[c->insns[k].line] = c->insns[k].exec;
		for (k = (uint32_t)i; k < c->ninsns && c->insns[k].func == c->insns[i].func; k++)
			if (c->insns[k].line != CPI_NONE) {
				c->lines[c->insns[k].line].execs += most[c->insns[k].line];
				most[c->insns[k].line] = 0;
			}
	}
	ret = 0;
out:
	wr_map_free(&map);
	free(best);
	free(most);
	return ret;
}
