/*
 * cpi_load.c - witch cpi's profiles into one analysis (cpi.h): the sampled
 * run's calling contexts merged as any sampled profile's (merge.c), the
 * counting run's instructions, edges and call sites summed over its
 * processes, both keyed by the same modules.
 */
#include "report/cpi.h"
#include "report/err.h"
#include "report/grow.h"
#include "report/report.h"
#include "report/symbolize.h"
#include "profile/reader.h"
#include "core/contract.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The counting run's records as read, before they are sorted and summed. */
struct raw {
	struct cpi_insn *insns;
	size_t ninsns, cap_insns;
	struct raw_edge {
		int32_t smod, dmod;
		uint64_t src, dst;
		char kind;
		uint64_t count;
	} *edges;
	size_t nedges, cap_edges;
	struct raw_call {
		int32_t mod;
		uint64_t offset, below;
	} *calls;
	size_t ncalls, cap_calls;
};

struct cpi *cpi_new(void)
{
	struct cpi *c = calloc(1, sizeof(*c));

	if (c && !(c->r = wr_report_new())) {
		free(c);
		return NULL;
	}
	return c;
}

void cpi_free(struct cpi *c)
{
	if (!c)
		return;
	cpi_code_free(c);
	wr_report_free(c->r);
	free(c->insns);
	wr_map_free(&c->insn_map);
	wr_map_free(&c->end_map);
	free(c->edges);
	free(c->in_edges);
	free(c->funcs);
	free(c->blocks);
	free(c->arcs);
	free(c->succ);
	free(c->pred);
	free(c->loops);
	free(c->loop_blocks);
	free(c->lines);
	cpi_procs_free(&c->sampled);
	cpi_procs_free(&c->counted);
	free(c);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* The tool line of a profile (tool[64]), read from its first lines only. */
static int profile_tool(const char *path, char *tool)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int i, found = 0;

	for (i = 0; f && i < 3 && !found && fgets(line, sizeof(line), f); i++)
		found = sscanf(line, "tool %63s", tool) == 1;
	if (f)
		fclose(f);
	return found;
}

static int is_cpi_tool(const char *tool)
{
	return !strcmp(tool, "time") || !strcmp(tool, "count");
}

int cpi_path(const char *path)
{
	char tool[64], file[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int found = 0;

	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return profile_tool(path, tool) && is_cpi_tool(tool);
	d = opendir(path);
	while (d && !found && (de = readdir(d))) {
		if (!ends_with(de->d_name, PROFILE_SUFFIX))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		found = profile_tool(file, tool) && is_cpi_tool(tool);
	}
	if (d)
		closedir(d);
	return found;
}

static int add_count_profile(struct cpi *c, struct raw *raw, const struct wp_profile *p)
{
	int32_t *mod = calloc(p->nmodules ? p->nmodules : 1, sizeof(*mod));
	size_t i;

	if (!mod)
		return -1;
	for (i = 0; i < p->nmodules; i++)
		if ((mod[i] = wr_intern_module(c->r, p->modules[i].path, p->modules[i].build_id)) < 0)
			goto oom;
	if (wr_grow((void **)&raw->insns, &raw->cap_insns, raw->ninsns + p->ninsns,
		    sizeof(*raw->insns)) ||
	    wr_grow((void **)&raw->edges, &raw->cap_edges, raw->nedges + p->nedges,
		    sizeof(*raw->edges)) ||
	    wr_grow((void **)&raw->calls, &raw->cap_calls, raw->ncalls + p->ncalls,
		    sizeof(*raw->calls)))
		goto oom;
	for (i = 0; i < p->ninsns; i++) {
		struct cpi_insn *in = &raw->insns[raw->ninsns++];

		memset(in, 0, sizeof(*in));
		in->module = p->insns[i].module < 0 ? -1 : mod[p->insns[i].module];
		in->offset = p->insns[i].offset;
		in->len = p->insns[i].len;
		in->exec = p->insns[i].count;
	}
	for (i = 0; i < p->nedges; i++) {
		const struct wp_edge *e = &p->edges[i];
		struct raw_edge *re = &raw->edges[raw->nedges++];

		re->smod = e->src_module < 0 ? -1 : mod[e->src_module];
		re->dmod = e->dst_module < 0 ? -1 : mod[e->dst_module];
		re->src = e->src;
		re->dst = e->dst;
		re->kind = e->kind;
		re->count = e->count;
	}
	for (i = 0; i < p->ncalls; i++) {
		struct raw_call *rc = &raw->calls[raw->ncalls++];

		rc->mod = p->calls[i].module < 0 ? -1 : mod[p->calls[i].module];
		rc->offset = p->calls[i].offset;
		rc->below = p->calls[i].below;
	}
	if (cpi_procs_add(&c->counted, p))
		goto oom;
	c->inexact += wp_stat_value(p, "inexact_translations");
	free(mod);
	return 0;
oom:
	free(mod);
	return -1;
}

static int load_file(struct cpi *c, struct raw *raw, struct wr_map *seen, const char *path,
		     char *err, size_t errlen)
{
	struct wp_profile *p;
	struct stat st;
	uint32_t dummy;
	int ret = 0;

	if (!stat(path, &st)) {
		if (wr_map_get(seen, st.st_dev, st.st_ino, &dummy))
			return 0;
		wr_map_put(seen, st.st_dev, st.st_ino, 0);
	}
	if (wp_read(path, &p, err, errlen))
		return -1;
	if (!wr_selected(c->r, p)) {
		wp_free(p);
		return 0;
	}
	if (!strcmp(p->tool, "time")) {
		ret = wr_merge(c->r, p, err, errlen);
		if (!ret && cpi_procs_add(&c->sampled, p)) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
		}
		if (p->rate_hz > c->rate_hz)
			c->rate_hz = p->rate_hz;
		if (wp_stat_value(p, "nominal_khz"))
			c->nominal_khz = wp_stat_value(p, "nominal_khz");
	} else if (!strcmp(p->tool, "count")) {
		if (add_count_profile(c, raw, p))
			ret = rp_error(err, errlen, "out of memory while reading %s", path);
	} else {
		ret = rp_error(err, errlen, "%s is a profile of tool %s, not one of witch cpi's; "
			    "report it apart", path, p->tool);
	}
	wp_free(p);
	return ret;
}

static int compare_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(struct cpi *c, struct raw *raw, struct wr_map *seen, const char *dir,
		    char *err, size_t errlen)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return rp_error(err, errlen, "cannot open directory %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char *path;

		if (!ends_with(de->d_name, PROFILE_SUFFIX))
			continue;
		if (wr_grow((void **)&names, &cap, n + 1, sizeof(*names)) ||
		    asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			ret = rp_error(err, errlen, "out of memory while listing %s", dir);
			break;
		}
		names[n++] = path;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	for (i = 0; i < n && !ret; i++)
		ret = load_file(c, raw, seen, names[i], err, errlen);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int cmp_insn(const void *a, const void *b)
{
	const struct cpi_insn *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct cpi_edge *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

uint32_t cpi_insn_at(const struct cpi *c, int32_t module, uint64_t offset)
{
	uint32_t i;

	return wr_map_get(&c->insn_map, (uint64_t)(module + 1), offset, &i) ? i : CPI_NONE;
}

static const struct cpi *sort_ctx;

static int cmp_in_edge(const void *a, const void *b)
{
	uint32_t x = sort_ctx->edges[*(const uint32_t *)a].dst;
	uint32_t y = sort_ctx->edges[*(const uint32_t *)b].dst;

	return (x > y) - (x < y);
}

/*
 * One module for the files of one build id: the loader names a library by
 * the path it opened (/lib/x86_64-linux-gnu/libc.so.6), Valgrind by the
 * file's own (/usr/lib/x86_64-linux-gnu/libc.so.6), and a library is
 * often a link (libsqlite3.so.0 to libsqlite3.so.0.8.6).
 */
static int join_modules(struct cpi *c, struct raw *raw)
{
	struct wr_report *r = c->r;
	int32_t *canon = malloc((r->nmods + 1) * sizeof(*canon));
	size_t i, j;

	if (!canon)
		return -1;
	for (i = 0; i < r->nmods; i++) {
		canon[i] = (int32_t)i;
		for (j = 0; j < i && r->mods[i].build_id; j++)
			if (r->mods[j].build_id && !strcmp(r->mods[i].build_id, r->mods[j].build_id)) {
				canon[i] = canon[j];
				break;
			}
	}
#define CANON(m) ((m) < 0 ? (m) : canon[m])
	for (i = 0; i < r->nctxs; i++)
		r->ctxs[i].module = CANON(r->ctxs[i].module);
	for (i = 0; i < raw->ninsns; i++)
		raw->insns[i].module = CANON(raw->insns[i].module);
	for (i = 0; i < raw->nedges; i++) {
		raw->edges[i].smod = CANON(raw->edges[i].smod);
		raw->edges[i].dmod = CANON(raw->edges[i].dmod);
	}
	for (i = 0; i < raw->ncalls; i++)
		raw->calls[i].mod = CANON(raw->calls[i].mod);
#undef CANON
	free(canon);
	return 0;
}

/* The counting run's records, summed per instruction and per edge. */
static int build(struct cpi *c, struct raw *raw)
{
	size_t i, n = 0;

	qsort(raw->insns, raw->ninsns, sizeof(*raw->insns), cmp_insn);
	for (i = 0; i < raw->ninsns; i++) {
		if (n && raw->insns[n - 1].module == raw->insns[i].module &&
		    raw->insns[n - 1].offset == raw->insns[i].offset) {
			raw->insns[n - 1].exec += raw->insns[i].exec;
			continue;
		}
		raw->insns[n++] = raw->insns[i];
	}
	c->insns = raw->insns;
	c->ninsns = n;
	raw->insns = NULL;
	if (n >= CPI_NONE)
		return -1;
	for (i = 0; i < n; i++) {
		struct cpi_insn *in = &c->insns[i];

		in->func = in->block = in->line = CPI_NONE;
		c->total_insns += in->exec;
		if (wr_map_put(&c->insn_map, (uint64_t)(in->module + 1), in->offset, (uint32_t)i))
			return -1;
	}
	c->edges = calloc(raw->nedges ? raw->nedges : 1, sizeof(*c->edges));
	if (!c->edges)
		return -1;
	for (i = 0; i < raw->nedges; i++) {
		const struct raw_edge *re = &raw->edges[i];
		uint32_t src = cpi_insn_at(c, re->smod, re->src);

		if (src == CPI_NONE)
			continue;	/* out of code that never ran: nothing */
		c->edges[c->nedges].src = src;
		c->edges[c->nedges].dst = cpi_insn_at(c, re->dmod, re->dst);
		c->edges[c->nedges].kind = re->kind;
		c->edges[c->nedges].count = re->count;
		c->nedges++;
	}
	qsort(c->edges, c->nedges, sizeof(*c->edges), cmp_edge);
	for (i = n = 0; i < c->nedges; i++) {
		if (n && !cmp_edge(&c->edges[n - 1], &c->edges[i])) {
			c->edges[n - 1].count += c->edges[i].count;
			continue;
		}
		c->edges[n++] = c->edges[i];
	}
	c->nedges = n;
	c->in_edges = calloc(n ? n : 1, sizeof(*c->in_edges));
	if (!c->in_edges)
		return -1;
	for (i = 0; i < n; i++) {
		struct cpi_insn *src = &c->insns[c->edges[i].src];

		if (!src->nout)
			src->out = (uint32_t)i;
		src->nout++;
		src->call |= c->edges[i].kind == 'c';
		c->in_edges[i] = (uint32_t)i;
		if (c->edges[i].dst != CPI_NONE)
			c->insns[c->edges[i].dst].nin++;
	}
	sort_ctx = c;
	qsort(c->in_edges, n, sizeof(*c->in_edges), cmp_in_edge);
	for (i = n; i-- > 0;)
		if (c->edges[c->in_edges[i]].dst != CPI_NONE)
			c->insns[c->edges[c->in_edges[i]].dst].in = (uint32_t)i;
	for (i = 0; i < raw->ncalls; i++) {
		uint32_t k = cpi_insn_at(c, raw->calls[i].mod, raw->calls[i].offset);

		if (k != CPI_NONE)
			c->insns[k].below += raw->calls[i].below;
	}
	for (i = 0; i < c->ninsns; i++)
		if (c->insns[i].call &&
		    wr_map_put(&c->end_map, (uint64_t)(c->insns[i].module + 1),
			       c->insns[i].offset + c->insns[i].len, (uint32_t)i))
			return -1;
	return 0;
}

int cpi_load(struct cpi *c, char *const *paths, int npaths, char *err, size_t errlen)
{
	struct wr_map seen = { 0 };
	struct raw raw;
	int i, ret = 0;

	memset(&raw, 0, sizeof(raw));
	for (i = 0; i < npaths && !ret; i++) {
		struct stat st;

		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode))
			ret = load_dir(c, &raw, &seen, paths[i], err, errlen);
		else
			ret = load_file(c, &raw, &seen, paths[i], err, errlen);
	}
	wr_map_free(&seen);
	if (!ret && c->r->only_rank >= 0 && !c->sampled.processes && !c->counted.processes)
		ret = rp_error(err, errlen, "%s has no profile of rank %lld (a rank's profiles have -rRANK- "
			    "in their names)", paths[0], (long long)c->r->only_rank);
	else if (!ret && !c->sampled.processes)
		ret = rp_error(err, errlen, "%s has no profile of witch cpi's sampled run (tool time): "
			    "was witch cpi stopped in its first run? run it again", paths[0]);
	else if (!ret && !c->counted.processes)
		ret = rp_error(err, errlen, "%s has no profile of witch cpi's counting run (tool count): "
			    "was witch cpi stopped in its second run? run it again", paths[0]);
	if (!ret && (join_modules(c, &raw) || build(c, &raw)))
		ret = rp_error(err, errlen, "out of memory while joining the runs");
	free(raw.insns);
	free(raw.edges);
	free(raw.calls);
	return ret;
}

int cpi_analyze(struct cpi *c, struct wr_symbolizer *sym)
{
	size_t i;

	c->sym = sym;
	for (i = 0; i < c->r->nctxs; i++) {
		c->total_samples += (double)c->r->ctxs[i].samples;
		c->total_ns += (double)c->r->ctxs[i].ns;
	}
	if (cpi_functions(c) || cpi_blocks(c) || cpi_join(c) || cpi_loops(c) || cpi_lines(c))
		return -1;
	return 0;
}
