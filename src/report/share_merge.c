/*
 * share_merge.c - fold tool share's records into the report (share.h):
 * each is a pair, as the other tools' are, and a line of that pair; the
 * same line with the same offsets in the same pair, from any thread or
 * process, is one.
 */
#include "report/grow.h"
#include "report/report.h"
#include "report/share.h"

#include <stdlib.h>
#include <string.h>

/* Counters from many processes must not wrap into small numbers. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void wr_shares_free(struct wr_shares *s)
{
	if (!s)
		return;
	free(s->lines);
	wr_map_free(&s->line_map);
	free(s->by_pair);
	free(s->pair_lines);
	free(s);
}

/* The record's line, its offsets in order when both accesses are of one
 * context: two threads running the same code store each at its own
 * offset, and each watches the other's. */
static void line_of(struct wr_share_line *l, const struct wp_share *ws, uint32_t pair,
		    int32_t module, int same_context)
{
	memset(l, 0, sizeof(*l));
	l->pair = pair;
	l->module = module;
	l->line = ws->line;
	l->woff = ws->woff;
	l->wlen = ws->wlen;
	l->toff = ws->toff;
	l->tlen = ws->tlen;
	if (same_context && l->woff > l->toff) {
		l->woff = ws->toff;
		l->wlen = ws->tlen;
		l->toff = ws->woff;
		l->tlen = ws->wlen;
	}
	l->block = ws->block;
	l->block_size = ws->block_size;
	l->site = WR_NONE;
}

static int add_line(struct wr_shares *s, const struct wr_share_line *nl, const struct wp_share *ws)
{
	uint64_t a = (uint64_t)nl->pair << 32 | (uint32_t)nl->module;
	uint64_t b = nl->line ^ (uint64_t)nl->woff << 50 ^ (uint64_t)nl->toff << 57;
	struct wr_share_line *l;
	uint32_t idx;
	uint64_t k;

	/* Keys that alias (a corrupt line address) are told apart by k. */
	for (k = 0; wr_map_get(&s->line_map, a ^ k << 58, b, &idx); k++) {
		l = &s->lines[idx];
		if (l->pair == nl->pair && l->module == nl->module && l->line == nl->line &&
		    l->woff == nl->woff && l->toff == nl->toff)
			goto found;
	}
	if (s->nlines >= WR_NONE ||
	    wr_grow((void **)&s->lines, &s->cap_lines, s->nlines + 1, sizeof(*s->lines)) ||
	    wr_map_put(&s->line_map, a ^ k << 58, b, (uint32_t)s->nlines))
		return -1;
	idx = (uint32_t)s->nlines++;
	s->lines[idx] = *nl;
	l = &s->lines[idx];
found:
	l->weight_milli = add_sat(l->weight_milli, ws->weight_milli);
	l->count = add_sat(l->count, ws->count);
	if (l->site == WR_NONE)
		l->site = nl->site;
	return 0;
}

int wr_shares_add_thread(struct wr_report *r, const struct wp_thread *t, const int32_t *modmap,
			 const uint32_t *ctxof)
{
	struct wr_shares *s = r->shares;
	uint32_t i;

	if (!s && !(s = r->shares = calloc(1, sizeof(*s))))
		return -1;
	for (i = 0; i < t->nshares; i++) {
		const struct wp_share *ws = &t->shares[i];
		struct wp_pair wp = { .waste_milli = ws->weight_milli, .count = ws->count,
				      .kind = ws->kind };
		struct wr_share_line nl;
		uint32_t pair;

		if (wr_add_pair(r, ctxof[ws->watch], ctxof[ws->trap], &wp, &pair))
			return -1;
		line_of(&nl, ws, pair, ws->module < 0 ? -1 : modmap[ws->module],
			ctxof[ws->watch] == ctxof[ws->trap]);
		if (ws->site)
			nl.site = ctxof[ws->site];
		if (add_line(s, &nl, ws))
			return -1;
	}
	return 0;
}

/* Most weight first; ties by traps, then by line, for a stable order. */
static int compare_lines(const void *a, const void *b, void *shares)
{
	const struct wr_shares *s = shares;
	const struct wr_share_line *x = &s->lines[*(const uint32_t *)a];
	const struct wr_share_line *y = &s->lines[*(const uint32_t *)b];

	if (x->pair != y->pair)
		return x->pair < y->pair ? -1 : 1;
	if (x->weight_milli != y->weight_milli)
		return x->weight_milli > y->weight_milli ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->woff > y->woff) - (x->woff < y->woff);
}

int wr_shares_finish(struct wr_report *r)
{
	struct wr_shares *s = r->shares;
	uint32_t *by_kind;
	size_t i, k;

	free(s->by_pair);
	free(s->pair_lines);
	s->by_pair = malloc((s->nlines ? s->nlines : 1) * sizeof(*s->by_pair));
	s->pair_lines = calloc(r->npairs + 1, sizeof(*s->pair_lines));
	by_kind = malloc((r->nranked ? r->nranked : 1) * sizeof(*by_kind));
	if (!s->by_pair || !s->pair_lines || !by_kind) {
		free(by_kind);
		return -1;
	}
	for (i = 0; i < s->nlines; i++) {
		s->by_pair[i] = (uint32_t)i;
		s->pair_lines[s->lines[i].pair + 1]++;
	}
	for (i = 0; i < r->npairs; i++)
		s->pair_lines[i + 1] += s->pair_lines[i];
	qsort_r(s->by_pair, s->nlines, sizeof(*s->by_pair), compare_lines, s);
	/* False sharing first, then true sharing, each by weight (the
	 * ranking's order within a kind is kept). */
	for (i = 0, k = 0; i < r->nranked; i++)
		if (r->pairs[r->ranked[i]].kind != 't')
			by_kind[k++] = r->ranked[i];
	for (i = 0; i < r->nranked; i++)
		if (r->pairs[r->ranked[i]].kind == 't')
			by_kind[k++] = r->ranked[i];
	memcpy(r->ranked, by_kind, r->nranked * sizeof(*r->ranked));
	free(by_kind);
	s->false_milli = s->true_milli = 0;
	for (i = 0; i < r->npairs; i++) {
		uint64_t *sum = r->pairs[i].kind == 't' ? &s->true_milli : &s->false_milli;

		*sum = add_sat(*sum, r->pairs[i].waste_milli);
	}
	s->most_threads = 0;
	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i].ntids > s->most_threads)
			s->most_threads = r->procs[i].ntids;
	return 0;
}

const char *wr_share_relation(char kind)
{
	return kind == 't' ? "TRUE_SHARING_WITH" : "FALSE_SHARING_WITH";
}

const char *wr_share_kind_name(char kind)
{
	return kind == 't' ? "true sharing" : "false sharing";
}

double wr_share_cpu_seconds(const struct wr_report *r)
{
	return (double)wr_stat(r, "cpu_ns", NULL) / 1e9;
}

double wr_share_rate(const struct wr_report *r, uint64_t milli)
{
	double cpu = wr_share_cpu_seconds(r);

	return cpu > 0 ? (double)milli / 1000.0 / cpu : 0.0;
}
