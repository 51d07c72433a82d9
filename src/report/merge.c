/*
 * merge.c - fold profiles into one report: identical calling contexts,
 * pairs, modules and stats from any thread or process become one.
 */
#include "report/err.h"
#include "report/grow.h"
#include "report/loop.h"
#include "report/ranks.h"
#include "report/report.h"
#include "report/share.h"
#include "profile/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counters from many processes must not wrap into small numbers. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#define OOM(err, errlen) rp_error(err, errlen, "out of memory while merging profiles")

struct wr_report *wr_report_new(void)
{
	struct wr_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (wr_grow((void **)&r->ctxs, &r->cap_ctxs, 1, sizeof(*r->ctxs))) {
		free(r);
		return NULL;
	}
	memset(&r->ctxs[WR_ROOT], 0, sizeof(r->ctxs[WR_ROOT]));
	r->ctxs[WR_ROOT].parent = WR_NONE;
	r->ctxs[WR_ROOT].module = -1;
	r->nctxs = 1;
	r->only_rank = -1;
	return r;
}

void wr_report_free(struct wr_report *r)
{
	size_t i, j;

	if (!r)
		return;
	for (i = 0; i < r->nprocs; i++) {
		for (j = 0; j < r->procs[i].nargs; j++)
			free(r->procs[i].args[j]);
		free(r->procs[i].args);
		free(r->procs[i].tids);
		free(r->procs[i].file);
		free(r->procs[i].host);
	}
	free(r->procs);
	for (i = 0; i < r->nmods; i++) {
		free(r->mods[i].path);
		free(r->mods[i].build_id);
	}
	free(r->mods);
	for (i = 0; i < r->nstats; i++)
		free(r->stats[i].name);
	free(r->stats);
	free(r->ctxs);
	free(r->pairs);
	free(r->ranked);
	wr_loops_free(r->loops);
	wr_shares_free(r->shares);
	wr_ranks_free(r->ranks);
	wr_map_free(&r->mod_map);
	wr_map_free(&r->ctx_map);
	wr_map_free(&r->pair_map);
	wr_map_free(&r->stat_map);
	free(r);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * Strings are interned by hash; the second key counts collisions so that
 * two different strings with the same hash still get their own slots.
 */
/* The module's index, or -1 with in *h and *k the keys a new one takes. */
static int32_t find_module(const struct wr_report *r, const char *path, const char *build_id,
			   uint64_t *h, uint64_t *k)
{
	uint32_t idx;

	*h = wr_hash_str(wr_hash_str(WR_HASH_INIT, path), build_id ? build_id : "-");
	for (*k = 0; wr_map_get(&r->mod_map, *h, *k, &idx); (*k)++)
		if (!strcmp(r->mods[idx].path, path) && same_str(r->mods[idx].build_id, build_id))
			return (int32_t)idx;
	return -1;
}

int32_t wr_find_module(const struct wr_report *r, const char *path, const char *build_id)
{
	uint64_t h, k;

	return find_module(r, path, build_id, &h, &k);
}

int32_t wr_intern_module(struct wr_report *r, const char *path, const char *build_id)
{
	int32_t found;
	uint64_t h, k;
	struct wr_module *nm;

	found = find_module(r, path, build_id, &h, &k);
	if (found >= 0)
		return found;
	if (r->nmods >= INT32_MAX ||
	    wr_grow((void **)&r->mods, &r->cap_mods, r->nmods + 1, sizeof(*r->mods)))
		return -1;
	nm = &r->mods[r->nmods];
	nm->path = strdup(path);
	nm->build_id = build_id ? strdup(build_id) : NULL;
	if (!nm->path || (build_id && !nm->build_id) ||
	    wr_map_put(&r->mod_map, h, k, (uint32_t)r->nmods)) {
		free(nm->path);
		free(nm->build_id);
		return -1;
	}
	return (int32_t)r->nmods++;
}

static int intern_module(struct wr_report *r, const struct wp_module *m, int32_t *out)
{
	*out = wr_intern_module(r, m->path, m->build_id);
	return *out < 0 ? -1 : 0;
}

int wr_find_ctx(const struct wr_report *r, uint32_t parent, int32_t module, uint64_t offset,
		uint32_t *out)
{
	return wr_map_get(&r->ctx_map, (uint64_t)parent << 32 | (uint32_t)module, offset, out) ? 0
												 : -1;
}

static int intern_ctx(struct wr_report *r, uint32_t parent, int32_t module,
		      uint64_t offset, uint32_t *out)
{
	uint64_t a = (uint64_t)parent << 32 | (uint32_t)module;
	struct wr_ctx *c;

	if (!wr_find_ctx(r, parent, module, offset, out))
		return 0;
	if (r->nctxs >= WR_NONE ||
	    wr_grow((void **)&r->ctxs, &r->cap_ctxs, r->nctxs + 1, sizeof(*r->ctxs)) ||
	    wr_map_put(&r->ctx_map, a, offset, (uint32_t)r->nctxs))
		return -1;
	c = &r->ctxs[r->nctxs];
	c->parent = parent;
	c->module = module;
	c->offset = offset;
	c->samples = 0;
	c->ns = 0;
	*out = (uint32_t)r->nctxs++;
	return 0;
}

uint32_t wr_find_pair(const struct wr_report *r, uint32_t watch, uint32_t trap, char kind)
{
	uint32_t idx;

	return wr_map_get(&r->pair_map, (uint64_t)watch << 32 | trap, (uint8_t)kind, &idx) ? idx
											  : WR_NONE;
}

/* Pairs are one when their contexts and their kind (rvn, share) are. */
int wr_add_pair(struct wr_report *r, uint32_t watch, uint32_t trap, const struct wp_pair *wp,
		uint32_t *out)
{
	uint64_t a = (uint64_t)watch << 32 | trap;
	struct wr_pair *pr;
	uint32_t idx;

	if (!wr_map_get(&r->pair_map, a, (uint8_t)wp->kind, &idx)) {
		if (r->npairs >= WR_NONE ||
		    wr_grow((void **)&r->pairs, &r->cap_pairs, r->npairs + 1,
			 sizeof(*r->pairs)) ||
		    wr_map_put(&r->pair_map, a, (uint8_t)wp->kind, (uint32_t)r->npairs))
			return -1;
		idx = (uint32_t)r->npairs++;
		memset(&r->pairs[idx], 0, sizeof(r->pairs[idx]));
		r->pairs[idx].watch = watch;
		r->pairs[idx].trap = trap;
		r->pairs[idx].kind = wp->kind;
	}
	pr = &r->pairs[idx];
	pr->waste_milli = add_sat(pr->waste_milli, wp->waste_milli);
	pr->use_milli = add_sat(pr->use_milli, wp->use_milli);
	pr->approx_milli = add_sat(pr->approx_milli, wp->approx_milli);
	pr->count = add_sat(pr->count, wp->count);
	*out = idx;
	return 0;
}

static int add_stat(struct wr_report *r, const struct wp_stat *s)
{
	uint64_t h = wr_hash_str(WR_HASH_INIT, s->name);
	uint32_t idx;
	uint64_t k;

	for (k = 0; wr_map_get(&r->stat_map, h, k, &idx); k++) {
		if (!strcmp(r->stats[idx].name, s->name)) {
			r->stats[idx].value = add_sat(r->stats[idx].value,
						      s->value);
			return 0;
		}
	}
	if (wr_grow((void **)&r->stats, &r->cap_stats, r->nstats + 1,
		 sizeof(*r->stats)))
		return -1;
	r->stats[r->nstats].name = strdup(s->name);
	if (!r->stats[r->nstats].name ||
	    wr_map_put(&r->stat_map, h, k, (uint32_t)r->nstats)) {
		free(r->stats[r->nstats].name);
		return -1;
	}
	r->stats[r->nstats].value = s->value;
	r->nstats++;
	return 0;
}

/* Map each node of a thread to a context; parents precede children. */
static int merge_thread(struct wr_report *r, const struct wp_thread *t,
			const int32_t *modmap, uint32_t *ctxof)
{
	uint32_t i;

	for (i = 0; i < t->nnodes; i++) {
		const struct wp_node *n = &t->nodes[i];
		int32_t mod = n->module < 0 ? -1 : modmap[n->module];

		if (n->parent < 0)
			ctxof[i] = WR_ROOT;
		else if (intern_ctx(r, ctxof[n->parent], mod, n->offset,
				    &ctxof[i]))
			return -1;
		r->ctxs[ctxof[i]].samples =
			add_sat(r->ctxs[ctxof[i]].samples, n->samples);
		r->ctxs[ctxof[i]].ns = add_sat(r->ctxs[ctxof[i]].ns, n->ns);
	}
	for (i = 0; i < t->npairs; i++) {
		const struct wp_pair *wp = &t->pairs[i];
		uint32_t idx;

		if (wr_add_pair(r, ctxof[wp->watch], ctxof[wp->trap], wp, &idx))
			return -1;
	}
	/* Tool share: its records are pairs with their cache lines. */
	return strcmp(r->tool->name, "share") ? 0 : wr_shares_add_thread(r, t, modmap, ctxof);
}

static int add_process(struct wr_report *r, const struct wp_profile *p)
{
	struct wr_process *pr;
	size_t i;

	if (wr_grow((void **)&r->procs, &r->cap_procs, r->nprocs + 1,
		 sizeof(*r->procs)))
		return -1;
	pr = &r->procs[r->nprocs];
	memset(pr, 0, sizeof(*pr));
	r->nprocs++;		/* now wr_report_free() owns what follows */
	pr->pid = p->pid;
	pr->incomplete = p->incomplete;
	pr->rank = p->rank;
	pr->world_size = p->world_size;
	if (p->host && !(pr->host = strdup(p->host)))
		return -1;
	pr->file = strdup(p->path);
	pr->args = calloc(p->nargs ? p->nargs : 1, sizeof(*pr->args));
	pr->tids = calloc(p->nthreads ? p->nthreads : 1, sizeof(*pr->tids));
	if (!pr->file || !pr->args || !pr->tids)
		return -1;
	for (i = 0; i < p->nargs; i++) {
		pr->args[i] = strdup(p->args[i]);
		if (!pr->args[i])
			return -1;
		pr->nargs++;
	}
	for (i = 0; i < p->nthreads; i++)
		pr->tids[pr->ntids++] = p->threads[i].tid;
	return 0;
}

static int check_compatible(struct wr_report *r, const struct wp_profile *p,
			    char *err, size_t errlen)
{
	const struct wr_tool *tool = wr_tool_find(p->tool);

	if (!tool)
		return rp_error(err, errlen, "%s was written by tool '%s', which "
			     "this witch cannot report; update witch",
			     p->path, p->tool);
	if (!r->tool) {
		r->tool = tool;
		r->source = p->source;
		r->by = p->by;
		r->rate_hz = p->rate_hz;
		r->period = p->period;
		r->spread = p->spread;
		r->reach = p->reach;
		r->thresholds = p->thresholds;
		return 0;
	}
	if (tool != r->tool)
		return rp_error(err, errlen, "%s measured %s (tool %s) but %s "
			     "measured %s (tool %s); report them separately",
			     p->path, tool->what, tool->name, r->procs[0].file,
			     r->tool->what, r->tool->name);
	if (strcmp(p->source, r->source))
		return rp_error(err, errlen, "%s was sampled by %s but %s by %s; "
			     "their weights differ, so report them separately",
			     p->path, p->source, r->procs[0].file, r->source);
	if (!same_str(p->by, r->by))
		return rp_error(err, errlen, "%s numbered values by %s but %s by %s; their "
			     "redundancies differ in kind, so report them separately",
			     p->path, p->by, r->procs[0].file, r->by);
	if (p->spread != r->spread)
		return rp_error(err, errlen, "%s was sampled with --spread=%llu but %s with "
			     "--spread=%llu; their weights differ, so report them separately",
			     p->path, (unsigned long long)p->spread, r->procs[0].file,
			     (unsigned long long)r->spread);
	if (p->reach != r->reach)
		return rp_error(err, errlen, "%s was sampled with --reach=%llu but %s with "
			     "--reach=%llu; their weights differ, so report them separately",
			     p->path, (unsigned long long)p->reach, r->procs[0].file,
			     (unsigned long long)r->reach);
	if (p->thresholds.a != r->thresholds.a || p->thresholds.r != r->thresholds.r ||
	    p->thresholds.ri != r->thresholds.ri) {
		char a[96], b[96];

		return rp_error(err, errlen, "%s judged loops with --thresholds=%s but %s with "
			     "--thresholds=%s; their loops are flagged differently, so report "
			     "them separately", p->path, wr_loop_thresholds(&p->thresholds, a, sizeof(a)),
			     r->procs[0].file, wr_loop_thresholds(&r->thresholds, b, sizeof(b)));
	}
	if (p->rate_hz != r->rate_hz || p->period != r->period)
		r->mixed_rates = 1;
	return 0;
}

int wr_merge(struct wr_report *r, const struct wp_profile *p,
	     char *err, size_t errlen)
{
	int32_t *modmap = NULL;
	uint32_t *ctxof = NULL, *lmap = NULL;
	uint32_t maxnodes = 1;
	size_t i;
	int ret = -1;

	if (check_compatible(r, p, err, errlen))
		return -1;
	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].nnodes > maxnodes)
			maxnodes = p->threads[i].nnodes;
	modmap = calloc(p->nmodules ? p->nmodules : 1, sizeof(*modmap));
	ctxof = calloc(maxnodes, sizeof(*ctxof));
	if (!modmap || !ctxof || add_process(r, p))
		goto oom;
	for (i = 0; i < p->nmodules; i++)
		if (intern_module(r, &p->modules[i], &modmap[i]))
			goto oom;
	for (i = 0; i < p->nstats; i++)
		if (add_stat(r, &p->stats[i]))
			goto oom;
	/* Tool loop: its loops before the records that name them. */
	if (!strcmp(p->tool, "loop") && wr_loops_add(r, p, modmap, &lmap))
		goto oom;
	for (i = 0; i < p->nthreads; i++)
		if (merge_thread(r, &p->threads[i], modmap, ctxof) ||
		    (lmap && wr_loops_add_thread(r, &p->threads[i], lmap, ctxof)))
			goto oom;
	ret = 0;
	goto out;
oom:
	OOM(err, errlen);
out:
	free(modmap);
	free(ctxof);
	free(lmap);
	return ret;
}
