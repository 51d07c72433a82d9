#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/report.h"
#include "report/symbolize.h"

/* glibc's string and memory routines, whose variants differ by CPU feature. */
static int is_libc_string_routine(const struct wr_report *r, const struct wr_frame *f)
{
	static const char *const prefixes[] = { "__mem", "__str", "__stp", "__wmem", "__wcs",
						"__raw", "mem", "str", "stp", "wmem", "wcs" };
	const char *mod;
	size_t i;

	if (f->module < 0 || !f->function)
		return 0;
	mod = wr_basename(r->mods[f->module].path);
	if (strncmp(mod, "libc.so", 7) && strncmp(mod, "libc-", 5))
		return 0;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(f->function, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * The runtime names a library as the loader found it (liblzma.so.5),
 * Valgrind by the file it mapped (liblzma.so.5.4.1): the file's name,
 * resolved once per module (a key per pair resolved it anew: sqlite3's
 * profile made a million readlink calls). Out of memory, resolved into
 * `real` each time.
 */
static const char *module_file(struct wr_side *side, int32_t module, char real[PATH_MAX])
{
	const char *mod = side->r->mods[module].path;
	char **names = side->modnames;

	if (!names && side->r->nmods)
		names = side->modnames = calloc(side->r->nmods, sizeof(*names));
	if (names && names[module])
		return names[module];
	mod = wr_basename(realpath(mod, real) ? real : mod);
	if (names)
		names[module] = strdup(mod);
	return mod;
}

static const char *module_name(struct wr_side *side, const struct wr_frame *f,
			       char real[PATH_MAX])
{
	return module_file(side, f->module, real);
}

/* Per module of the side: did any calling context run code in it? Only
 * those are opened: a module nothing ran in needs no warning. */
static unsigned char *ran_in(const struct wr_side *side)
{
	unsigned char *ran = calloc(side->r->nmods ? side->r->nmods : 1, 1);
	size_t i;

	for (i = 0; ran && i < side->r->nctxs; i++)
		if (side->r->ctxs[i].module >= 0 && (size_t)side->r->ctxs[i].module < side->r->nmods)
			ran[side->r->ctxs[i].module] = 1;
	return ran;
}

/* Mark the modules of one name that have DWARF in a but not in b. */
static void mark_by_offset(struct wr_side *a, const unsigned char *ran_a, struct wr_side *b,
			   const unsigned char *ran_b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	int32_t i, j;

	for (i = 0; (size_t)i < a->r->nmods; i++) {
		if (!ran_a[i] || !wr_sym_module_has_dwarf(a->s, i))
			continue;
		for (j = 0; (size_t)j < b->r->nmods; j++)
			if (ran_b[j] && !strcmp(module_file(a, i, ra), module_file(b, j, rb)) &&
			    wr_sym_module_ok(b->s, j) && !wr_sym_module_has_dwarf(b->s, j))
				a->by_offset[i] = b->by_offset[j] = 1;
	}
}

int wr_sides_agree(struct wr_side *a, struct wr_side *b)
{
	unsigned char *ran_a = ran_in(a), *ran_b = ran_in(b);
	int ret = -1;

	a->by_offset = calloc(a->r->nmods ? a->r->nmods : 1, 1);
	b->by_offset = calloc(b->r->nmods ? b->r->nmods : 1, 1);
	if (ran_a && ran_b && a->by_offset && b->by_offset) {
		mark_by_offset(a, ran_a, b, ran_b);
		mark_by_offset(b, ran_b, a, ran_a);
		ret = 0;
	}
	free(ran_a);
	free(ran_b);
	return ret;
}

/* Is the frame keyed by its source line (else by its code offset)? */
static int by_line(const struct wr_side *side, const struct wr_frame *f)
{
	return f->file && !(f->module >= 0 && side->by_offset && side->by_offset[f->module]);
}

/* An inlined frame of a module keyed by offset: only DWARF knows of it,
 * so the side without sees the function it was inlined into. */
static int hidden(const struct wr_side *side, const struct wr_frame *f)
{
	return f->inlined && f->module >= 0 && side->by_offset && side->by_offset[f->module];
}

/*
 * "function (file:line)" of one frame, appended to buf. Without a source
 * line (a library without debug info) the frame is its code address,
 * "function (module+0xoffset)": both sides ran the same binary, so the
 * addresses match where lines cannot.
 */
static void put_frame(char *buf, size_t cap, struct wr_side *side, const struct wr_frame *f)
{
	size_t n = strlen(buf);
	const char *fn = f->function ? f->function : "??";

	char real[PATH_MAX];

	if (by_line(side, f) || f->module < 0) {
		snprintf(buf + n, cap - n, "%s%s (%s:%d)", n ? " <- " : "", fn,
			 f->file ? wr_basename(f->file) : "??", f->line);
		return;
	}
	snprintf(buf + n, cap - n, "%s%s (%s+0x%llx)", n ? " <- " : "", fn,
		 module_name(side, f, real), (unsigned long long)f->offset);
}

/* The key of context ctx: its first frame outside glibc's string routines
 * (or all its frames), and with `exact` that frame's code address too. */
static int context_key(struct wr_side *side, uint32_t ctx, int full, int exact, char *buf,
		       size_t cap)
{
	const struct wr_frame *f;
	long n = wr_sym_context(side->s, ctx, &f), i = 0;
	char real[PATH_MAX];
	size_t len;

	buf[0] = 0;
	if (n < 0)
		return -1;
	if (full) {
		for (i = 0; i < n; i++)
			if (!hidden(side, &f[i]))
				put_frame(buf, cap, side, &f[i]);
		i = 0;
	} else {
		while (i + 1 < n && (is_libc_string_routine(side->r, &f[i]) || hidden(side, &f[i])))
			i++;
		if (n > 0)
			put_frame(buf, cap, side, &f[i]);
	}
	len = strlen(buf);
	if (exact && n > 0 && by_line(side, &f[i]) && f[i].module >= 0)
		snprintf(buf + len, cap - len, " [%s+0x%llx]", module_name(side, &f[i], real),
			 (unsigned long long)f[i].offset);
	return 0;
}

/* Sites of either kind (struct wr_site_share, struct wr_watched) start
 * with their key. */
static int by_key(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * Sort n sites of one kind by key and fold those with equal keys into the
 * first of them (add sums one into another; the folded key is freed).
 * Returns how many are left.
 */
static size_t fold_by_key(void *sites, size_t n, size_t size, void (*add)(void *into, const void *from))
{
	char *base = sites;
	size_t i, kept = 0;

	qsort(sites, n, size, by_key);
	for (i = 0; i < n; i++) {
		char *site = base + i * size, *last = kept ? base + (kept - 1) * size : NULL;

		if (last && !strcmp(*(char **)last, *(char **)site)) {
			add(last, site);
			free(*(char **)site);
		} else {
			if (kept != i)
				memcpy(base + kept * size, site, size);
			kept++;
		}
	}
	return kept;
}

static void add_share(void *into, const void *from)
{
	((struct wr_site_share *)into)->share += ((const struct wr_site_share *)from)->share;
}

static void add_watched(void *into, const void *from)
{
	struct wr_watched *a = into;
	const struct wr_watched *b = from;

	a->waste += b->waste;
	a->judged += b->judged;
}

static int by_share(const void *x, const void *y)
{
	const struct wr_site_share *a = x, *b = y;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return strcmp(a->key, b->key);
}

static int watched_by_weight(const void *x, const void *y)
{
	const struct wr_watched *a = x, *b = y;

	if (a->judged != b->judged)
		return a->judged > b->judged ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Every judged pair, summed by its watch site. */
static int watched_sites(struct wr_side *side, int full)
{
	const struct wr_report *r = side->r;
	char key[4096];
	size_t i, n = 0;

	side->judged = 0;
	side->watched = calloc(r->nranked ? r->nranked : 1, sizeof(*side->watched));
	if (!side->watched)
		return -1;
	for (i = 0; i < r->nranked; i++) {
		const struct wr_pair *p = &r->pairs[r->ranked[i]];
		struct wr_watched *w = &side->watched[n];

		/* By instruction: two accesses on one line (demo's histogram
		 * loads a pixel, then its bucket) are sites with verdicts of
		 * their own, which the samples weigh differently. */
		if (context_key(side, p->watch, full, 1, key, sizeof(key)))
			return -1;
		w->key = strdup(key);
		if (!w->key)
			return -1;
		w->waste = (double)p->waste_milli;
		w->judged = (double)wr_all_waste(p->waste_milli, wr_all_waste(p->use_milli,
									       p->approx_milli));
		side->judged += w->judged;
		n++;
	}
	side->nwatched = fold_by_key(side->watched, n, sizeof(*side->watched), add_watched);
	qsort(side->watched, side->nwatched, sizeof(*side->watched), watched_by_weight);
	return 0;
}

int wr_side_sites(struct wr_side *side, int full)
{
	const struct wr_report *r = side->r;
	uint64_t all = wr_all_waste(r->waste_milli, r->approx_milli);
	char watch[4096], trap[4096];
	size_t i, n = 0;

	side->redundancy = wr_redundancy(r->waste_milli, wr_all_waste(r->use_milli, r->approx_milli));
	side->sites = calloc(r->nwaste ? r->nwaste : 1, sizeof(*side->sites));
	if (!side->sites)
		return -1;
	for (i = 0; i < r->nwaste; i++) {
		const struct wr_pair *p = &r->pairs[r->ranked[i]];
		size_t len;

		if (context_key(side, p->watch, full, 0, watch, sizeof(watch)) ||
		    context_key(side, p->trap, full, 0, trap, sizeof(trap)))
			return -1;
		len = strlen(watch) + strlen(trap) + 8;
		side->sites[n].key = malloc(len);
		if (!side->sites[n].key)
			return -1;
		snprintf(side->sites[n].key, len, "%s => %s", watch, trap);
		side->sites[n].share = all ? (double)wr_all_waste(p->waste_milli, p->approx_milli) /
						     (double)all
					   : 0;
		n++;
	}
	/* Pairs whose contexts differ only where keys do not look merge. */
	side->nsites = fold_by_key(side->sites, n, sizeof(*side->sites), add_share);
	qsort(side->sites, side->nsites, sizeof(*side->sites), by_share);
	for (i = 0; i < side->nsites; i++)
		side->sites[i].rank = i + 1;
	return watched_sites(side, full);
}

void wr_side_free(struct wr_side *side)
{
	size_t i;

	for (i = 0; side->modnames && i < side->r->nmods; i++)
		free(side->modnames[i]);
	free(side->modnames);
	side->modnames = NULL;
	free(side->by_offset);
	side->by_offset = NULL;
	for (i = 0; i < side->nsites; i++)
		free(side->sites[i].key);
	free(side->sites);
	side->sites = NULL;
	side->nsites = 0;
	for (i = 0; i < side->nwatched; i++)
		free(side->watched[i].key);
	free(side->watched);
	side->watched = NULL;
	side->nwatched = 0;
}

const struct wr_site_share *wr_compare_find(const struct wr_side *a, const char *key)
{
	size_t i;

	for (i = 0; i < a->nsites; i++)
		if (!strcmp(a->sites[i].key, key))
			return &a->sites[i];
	return NULL;
}

const struct wr_watched *wr_compare_find_watched(const struct wr_side *a, const char *key)
{
	size_t i;

	for (i = 0; i < a->nwatched; i++)
		if (!strcmp(a->watched[i].key, key))
			return &a->watched[i];
	return NULL;
}

static void reweigh(struct wr_comparison *c)
{
	double waste = 0, ref_waste = 0, judged = 0;
	size_t i;

	for (i = 0; i < c->b.nwatched; i++) {
		const struct wr_watched *ref = &c->b.watched[i];
		const struct wr_watched *s = wr_compare_find_watched(&c->a, ref->key);

		if (!s || s->judged <= 0)
			continue;
		waste += ref->judged * (s->waste / s->judged);
		ref_waste += ref->waste;
		judged += ref->judged;
	}
	c->coverage = c->b.judged > 0 ? judged / c->b.judged : 0;
	c->reweighted = judged > 0 ? waste / judged : NAN;
	c->reweighted_reference = judged > 0 ? ref_waste / judged : NAN;
}

/* Pearson's correlation of two rank lists: Spearman's rho, ties allowed. */
static double rank_correlation(const double *x, const double *y, size_t n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		mx += x[i] / (double)n;
		my += y[i] / (double)n;
	}
	for (i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

void wr_compare(struct wr_comparison *c, size_t top)
{
	size_t n = 0, i;
	double ra[64], rb[64];

	/* The reference's top pairs, leaving out those with less than 1 % of
	 * its waste: startup noise that no sampler is expected to see. */
	while (n < top && n < c->b.nsites && c->b.sites[n].share >= WR_SIGNIFICANT)
		n++;
	c->top = n;
	c->found = 0;
	for (i = 0; i < n; i++) {
		const struct wr_site_share *s = wr_compare_find(&c->a, c->b.sites[i].key);

		c->found += s != NULL;
		if (i < 64) {
			/* A site the sampled run missed ranks after all it has. */
			ra[i] = s ? (double)s->rank : (double)c->a.nsites + 1;
			rb[i] = (double)(i + 1);
		}
	}
	c->spearman = n >= 2 ? rank_correlation(ra, rb, n < 64 ? n : 64) : NAN;
	reweigh(c);
}
