/*
 * causal_profile.c - the strict reader of causal profiles.
 *
 * A record is a kind and tab-separated key=value fields. Unknown keys and
 * unknown record kinds are skipped (the format may grow), but a known
 * record with a missing or malformed field, a record out of place, an
 * empty or unterminated line is an error naming the file and line.
 * Concatenated profiles are read as consecutive runs.
 */
#include "report/grow.h"
#include "report/causal_profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/contract.h"
#include "core/outname.h"

#define CAUSAL_PREFIX CAUSAL_PROFILE_STEM "."	/* causal.PID */

#define MAX_FIELDS 32

struct field {
	const char *key, *val;
	size_t klen, vlen;
	int used;
};

struct rec {
	const char *kind;
	size_t kindlen;
	struct field f[MAX_FIELDS];
	int n;
};

struct ctx {
	struct rc_profile *p;
	const char *file;
	size_t lineno;
	char *err;
	size_t errlen;
	struct rc_run *run;	/* the current run; re-fetched after growth */
	size_t run_idx;
	int in_exp;		/* an experiment was seen */
	int ended;
};

static int bad(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%zu: %s", c->file, c->lineno, msg);
	return -1;
}

static int kind_is(const struct rec *r, const char *k)
{
	return r->kindlen == strlen(k) && !memcmp(r->kind, k, r->kindlen);
}

static const struct field *get(struct ctx *c, struct rec *r, const char *key, int required)
{
	size_t n = strlen(key);
	int i;

	for (i = 0; i < r->n; i++)
		if (r->f[i].klen == n && !memcmp(r->f[i].key, key, n)) {
			r->f[i].used = 1;
			return &r->f[i];
		}
	if (required)
		bad(c, "%.*s record without %s=", (int)r->kindlen, r->kind, key);
	return NULL;
}

static int get_u64(struct ctx *c, struct rec *r, const char *key, int required, uint64_t *out)
{
	const struct field *f = get(c, r, key, required);
	unsigned long long v = 0;
	size_t i;

	*out = 0;
	if (!f)
		return required ? -1 : 0;
	if (!f->vlen || f->vlen > 20)
		return bad(c, "%s=%.*s is not a whole number", key, (int)f->vlen, f->val);
	for (i = 0; i < f->vlen; i++) {
		unsigned d = (unsigned)(f->val[i] - '0');

		if (d > 9 || v > (ULLONG_MAX - d) / 10)
			return bad(c, "%s=%.*s is not a whole number", key, (int)f->vlen, f->val);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int get_i64(struct ctx *c, struct rec *r, const char *key, int64_t *out)
{
	const struct field *f = get(c, r, key, 1);
	char buf[32], *end;
	long long v;

	if (!f)
		return -1;
	if (!f->vlen || f->vlen >= sizeof(buf) || isspace((unsigned char)f->val[0]))
		return bad(c, "%s=%.*s is not a number", key, (int)f->vlen, f->val);
	memcpy(buf, f->val, f->vlen);
	buf[f->vlen] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return bad(c, "%s=%s is not a number", key, buf);
	*out = v;
	return 0;
}

static int get_name(struct ctx *c, struct rec *r, const char *key, uint32_t *out)
{
	const struct field *f = get(c, r, key, 1);

	if (!f)
		return -1;
	if (!f->vlen)
		return bad(c, "empty %s=", key);
	*out = rc_intern_n(&c->p->names, f->val, f->vlen);
	return *out == UINT32_MAX ? bad(c, "out of memory") : 0;
}

static int split(struct ctx *c, const char *line, size_t len, struct rec *r)
{
	const char *p = line, *end = line + len, *tab;

	r->n = 0;
	tab = memchr(p, '\t', len);
	r->kind = p;
	r->kindlen = (size_t)((tab ? tab : end) - p);
	if (!r->kindlen)
		return bad(c, "a record without a kind");
	while (tab) {
		struct field *f;
		const char *eq;

		p = tab + 1;
		tab = memchr(p, '\t', (size_t)(end - p));
		if (r->n == MAX_FIELDS)
			return bad(c, "more than %d fields", MAX_FIELDS);
		f = &r->f[r->n++];
		f->key = p;
		f->used = 0;
		eq = memchr(p, '=', (size_t)((tab ? tab : end) - p));
		if (!eq || eq == p)
			return bad(c, "field '%.*s' is not key=value", (int)((tab ? tab : end) - p), p);
		f->klen = (size_t)(eq - p);
		f->val = eq + 1;
		f->vlen = (size_t)((tab ? tab : end) - f->val);
	}
	return 0;
}

static int header(struct ctx *c, struct rec *r)
{
	struct rc_profile *p = c->p;
	const struct field *f;
	uint64_t version, pid;
	struct rc_run *run;

	if (!kind_is(r, "witch-causal"))
		return bad(c, "not a witch causal profile (it does not start with witch-causal)");
	if (get_u64(c, r, "version", 1, &version) || get_u64(c, r, "pid", 1, &pid))
		return -1;
	if (version != 1)
		return bad(c, "causal profile version %llu; this witch reads version 1 (upgrade witch)",
			   (unsigned long long)version);
	if (wr_grow((void **)&p->runs, &p->cap_runs, p->nruns + 1, sizeof(*p->runs)))
		return bad(c, "out of memory");
	run = &p->runs[p->nruns];
	memset(run, 0, sizeof(*run));
	run->pid = pid;
	run->file = strdup(c->file);
	f = get(c, r, "command", 0);
	run->command = f ? strndup(f->val, f->vlen) : NULL;
	run->exp = p->nexps;
	run->smp = p->nsamples;
	run->decl = p->ndecls;
	c->run_idx = p->nruns++;
	if (!run->file || (f && !run->command))
		return bad(c, "out of memory");
	return 0;
}

static int experiment(struct ctx *c, struct rec *r)
{
	struct rc_profile *p = c->p;
	const struct field *f;
	struct rc_exp e;
	char buf[32], *end;
	double v;

	memset(&e, 0, sizeof(e));
	e.run = (uint32_t)c->run_idx;
	if (get_name(c, r, "selected", &e.line))
		return -1;
	f = get(c, r, "speedup", 1);
	if (!f)
		return -1;
	if (!f->vlen || f->vlen >= sizeof(buf))
		return bad(c, "speedup=%.*s is not a fraction from 0 to 1", (int)f->vlen, f->val);
	memcpy(buf, f->val, f->vlen);
	buf[f->vlen] = '\0';
	v = strtod(buf, &end);
	if (*end || !(v >= 0 && v <= 1) || !isdigit((unsigned char)buf[0]))
		return bad(c, "speedup=%s is not a fraction from 0 to 1", buf);
	e.speedup = (uint32_t)(v * 1000 + 0.5);
	if (get_u64(c, r, "duration", 1, &e.duration) ||
	    get_u64(c, r, "selected-samples", 1, &e.selected_samples) ||
	    get_u64(c, r, "delays", 0, &e.delays) || get_u64(c, r, "delay-ns", 0, &e.delay_ns) ||
	    get_u64(c, r, "start", 0, &e.start))
		return -1;
	if (wr_grow((void **)&p->exps, &p->cap_exps, p->nexps + 1, sizeof(*p->exps)))
		return bad(c, "out of memory");
	e.obs = p->nobs;
	p->exps[p->nexps++] = e;
	p->runs[c->run_idx].nexp++;
	c->in_exp = 1;
	return 0;
}

static int observation(struct ctx *c, struct rec *r, int latency)
{
	struct rc_profile *p = c->p;
	struct rc_obs o;
	size_t i;

	if (!c->in_exp)
		return bad(c, "%.*s before any experiment record", (int)r->kindlen, r->kind);
	memset(&o, 0, sizeof(o));
	o.latency = latency;
	if (get_name(c, r, "name", &o.point))
		return -1;
	if (latency ? get_u64(c, r, "arrivals", 1, &o.arrivals) ||
			      get_u64(c, r, "departures", 1, &o.departures) ||
			      get_i64(c, r, "difference", &o.difference)
		    : get_u64(c, r, "delta", 1, &o.delta))
		return -1;
	for (i = p->exps[p->nexps - 1].obs; i < p->nobs; i++)
		if (p->obs[i].point == o.point && p->obs[i].latency == latency)
			return bad(c, "progress point %s twice in one experiment",
				   p->names.strs[o.point]);
	if (wr_grow((void **)&p->obs, &p->cap_obs, p->nobs + 1, sizeof(*p->obs)))
		return bad(c, "out of memory");
	p->obs[p->nobs++] = o;
	p->exps[p->nexps - 1].nobs++;
	return 0;
}

static int record(struct ctx *c, struct rec *r)
{
	struct rc_profile *p = c->p;
	struct rc_run *run = &p->runs[c->run_idx];

	/* Profiles may be concatenated (cat causal.* > all): a header after
	 * an end record starts the next run. */
	if (kind_is(r, "witch-causal") && c->ended) {
		c->ended = 0;
		c->in_exp = 0;
		return header(c, r);
	}
	if (c->ended)
		return bad(c, "%.*s record after the end record", (int)r->kindlen, r->kind);
	if (kind_is(r, "witch-causal"))
		return bad(c, "a second witch-causal header before the first run's end record");
	if (kind_is(r, "startup"))
		return get_u64(c, r, "time", 1, &run->startup);
	if (kind_is(r, "progress")) {
		struct rc_decl d;

		if (get_name(c, r, "name", &d.name) || get_name(c, r, "kind", &d.kind))
			return -1;
		if (wr_grow((void **)&p->decls, &p->cap_decls, p->ndecls + 1, sizeof(*p->decls)))
			return bad(c, "out of memory");
		p->decls[p->ndecls++] = d;
		p->runs[c->run_idx].ndecl++;
		return 0;
	}
	if (kind_is(r, "experiment"))
		return experiment(c, r);
	if (kind_is(r, "throughput-point"))
		return observation(c, r, 0);
	if (kind_is(r, "latency-point"))
		return observation(c, r, 1);
	if (kind_is(r, "samples")) {
		struct rc_sample s;

		if (get_name(c, r, "location", &s.line) || get_u64(c, r, "count", 1, &s.count))
			return -1;
		if (wr_grow((void **)&p->samples, &p->cap_samples, p->nsamples + 1,
			 sizeof(*p->samples)))
			return bad(c, "out of memory");
		p->samples[p->nsamples++] = s;
		p->runs[c->run_idx].nsmp++;
		return 0;
	}
	if (kind_is(r, "callers")) {
		struct rc_sample s;

		if (get_name(c, r, "location", &s.line) || get_u64(c, r, "count", 1, &s.count))
			return -1;
		if (wr_grow((void **)&p->callers, &p->cap_callers, p->ncallers + 1,
			 sizeof(*p->callers)))
			return bad(c, "out of memory");
		p->callers[p->ncallers++] = s;
		return 0;
	}
	if (kind_is(r, "runtime")) {
		if (run->has_runtime)
			return bad(c, "a second runtime record");
		run->has_runtime = 1;
		/* wall and budget-held-ns: not in coz's format, nor in older profiles */
		if (get_u64(c, r, "wall", 0, &run->wall) ||
		    get_u64(c, r, "budget-held-ns", 0, &run->budget_held))
			return -1;
		return get_u64(c, r, "time", 1, &run->runtime);
	}
	if (kind_is(r, "end")) {
		const struct field *f = get(c, r, "status", 1);
		uint64_t complete;

		if (!f || get_u64(c, r, "complete", 1, &complete))
			return -1;
		if (complete > 1)
			return bad(c, "complete=%llu; expected 0 or 1", (unsigned long long)complete);
		run->status = strndup(f->val, f->vlen);
		if (!run->status)
			return bad(c, "out of memory");
		run->complete = (int)complete;
		run->has_end = 1;
		c->ended = 1;
		return 0;
	}
	{
		/* A newer writer's record: skipped, if it is well-formed. */
		size_t i;

		for (i = 0; i < r->kindlen; i++)
			if (!islower((unsigned char)r->kind[i]) && r->kind[i] != '-' &&
			    !isdigit((unsigned char)r->kind[i]))
				return bad(c, "unknown record '%.*s'", (int)r->kindlen, r->kind);
	}
	return 0;
}

int rc_read_text(struct rc_profile *p, const char *text, size_t len, const char *file,
		 char *err, size_t errlen)
{
	struct ctx c;
	struct rec r;
	size_t pos = 0;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.file = file;
	c.err = err;
	c.errlen = errlen;
	if (len == 0) {
		snprintf(err, errlen, "%s: empty file, not a causal profile (the run may have been "
			 "killed before witch could write it)", file);
		return -1;
	}
	if (memchr(text, '\0', len)) {
		const char *nul = memchr(text, '\0', len), *q;

		for (c.lineno = 1, q = text; q < nul; q++)
			c.lineno += *q == '\n';
		return bad(&c, "binary data, not a causal profile");
	}
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n;

		c.lineno++;
		if (!nl)
			return bad(&c, "truncated (the last line has no end; the run was killed "
				   "while witch wrote it?)");
		n = (size_t)(nl - line);
		pos += n + 1;
		if (n && line[n - 1] == '\r')
			n--;
		if (!n)
			return bad(&c, "empty line");
		if (split(&c, line, n, &r))
			return -1;
		if (c.lineno == 1 ? header(&c, &r) : record(&c, &r))
			return -1;
	}
	return 0;
}

static int read_whole(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0, got;
	char *buf = NULL, *b;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		b = realloc(buf, cap);
		if (!b) {
			snprintf(err, errlen, "out of memory reading %s", path);
			free(buf);
			fclose(f);
			return -1;
		}
		buf = b;
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	*text = buf;
	*len = n;
	return 0;
}

void rc_read_functions(struct rc_profile *p, const char *text, size_t len)
{
	const char *line = text, *end = text + len;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line)), *f[4];
		const char *stop = nl ? nl : end;
		size_t nf = 0, flen[4];
		uint32_t loc, fn;

		f[0] = line;
		while (nf < 4) {
			const char *tab = memchr(f[nf], '\t', (size_t)(stop - f[nf]));

			flen[nf] = (size_t)((tab ? tab : stop) - f[nf]);
			nf++;
			if (!tab || nf == 4)
				break;
			f[nf] = tab + 1;
		}
		line = stop + 1;
		if (nf != 4 || flen[0] != 4 || memcmp(f[0], "line", 4) ||
		    (flen[3] == 1 && f[3][0] == '?'))
			continue;
		loc = rc_intern_n(&p->names, f[2], flen[2]);
		fn = rc_intern_n(&p->names, f[3], flen[3]);
		if (loc == UINT32_MAX || fn == UINT32_MAX)
			continue;
		if (loc >= p->cap_function) {
			size_t old = p->cap_function;

			if (wr_grow((void **)&p->function, &p->cap_function, (size_t)loc + 1,
				 sizeof(uint32_t)))
				continue;
			memset(p->function + old, 0xff, (p->cap_function - old) * sizeof(uint32_t));
		}
		p->function[loc] = fn;
	}
}

int rc_is_profile_name(const char *name)
{
	size_t i = strlen(CAUSAL_PREFIX);
	uint64_t rank;

	/* causal.PID, and causal.PID.N for the images an exec replaced it
	 * with; a launcher's rank: causal.hHOST.rRANK.PID[.N]. */
	if (strncmp(name, CAUSAL_PREFIX, i))
		return 0;
	if (name[i] == 'h')
		return core_outname_rank_tail(name, '.', "", &rank) >= (long)i + 1;
	for (;;) {
		if (!isdigit((unsigned char)name[i]))
			return 0;
		while (isdigit((unsigned char)name[i]))
			i++;
		if (!name[i])
			return 1;
		if (name[i++] != '.')
			return 0;
	}
}

/* A profile still being written: .causal.PID[.N].tmp (or without the dot). */
static int is_tmp_name(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		name++, n--;
	return !strncmp(name, CAUSAL_PREFIX, strlen(CAUSAL_PREFIX)) &&
	       n > strlen(CAUSAL_PREFIX) + strlen(PROFILE_TMP_SUFFIX) &&
	       !strcmp(name + n - strlen(PROFILE_TMP_SUFFIX), PROFILE_TMP_SUFFIX);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static int dir_has(const char *path, int (*match)(const char *))
{
	DIR *d = opendir(path);
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d)))
		found = match(de->d_name);
	if (d)
		closedir(d);
	return found;
}

static int witch_name(const char *name)
{
	return ends_with(name, PROFILE_SUFFIX);
}

static int causal_or_tmp(const char *name)
{
	return rc_is_profile_name(name) || is_tmp_name(name);
}

int rc_dir_has_witch_profiles(const char *path)
{
	return dir_has(path, witch_name);
}

int rc_path_is_causal(const char *path)
{
	struct stat st;
	const char *base = strrchr(path, '/');
	FILE *f;
	char head[13];
	int yes;

	if (stat(path, &st))
		return 0;
	if (S_ISDIR(st.st_mode))
		return dir_has(path, causal_or_tmp);
	if (rc_is_profile_name(base ? base + 1 : path))
		return 1;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	yes = fread(head, 1, sizeof(head), f) == sizeof(head) && !memcmp(head, "witch-causal\t", 13);
	fclose(f);
	return yes;
}

/* Function names from the line table in dir, when there is one. */
static void load_functions(struct rc_profile *p, const char *dir)
{
	char path[PATH_MAX + 32], err[64], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/" CAUSAL_LINES_FILE, dir);
	if (read_whole(path, &text, &len, err, sizeof(err)))
		return;
	rc_read_functions(p, text, len);
	free(text);
}

static int load_file(struct rc_profile *p, const char *path, char *err, size_t errlen)
{
	char *text, dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len;
	int ret;

	if (read_whole(path, &text, &len, err, errlen))
		return -1;
	ret = rc_read_text(p, text, len, path, err, errlen);
	free(text);
	if (!ret) {
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
			 slash ? path : ".");
		load_functions(p, slash == path ? "/" : dir);
	}
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Whether p reads the profile of this name (no directory): any, or one
 * of the rank it selects. */
static int rank_selected(const struct rc_profile *p, const char *name)
{
	uint64_t rank;

	return !p->one_rank ||
	       (core_outname_rank_tail(name, '.', "", &rank) >= 0 && rank == p->rank);
}

static int no_rank(const struct rc_profile *p, const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s has no causal profile of rank %llu (a rank's are named "
		 "causal.hHOST.rRANK.PID)", path, (unsigned long long)p->rank);
	return -1;
}

static int load_dir(struct rc_profile *p, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, *path;
	size_t n = 0, cap = 0, i, others = 0;
	int ret = 0;

	if (!d) {
		snprintf(err, errlen, "cannot open directory %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (is_tmp_name(de->d_name))
			p->ntmp++;
		if (!rc_is_profile_name(de->d_name))
			continue;
		if (!rank_selected(p, de->d_name)) {
			others++;
			continue;
		}
		if (wr_grow((void **)&names, &cap, n + 1, sizeof(*names)) ||
		    asprintf(&path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", de->d_name) < 0) {
			ret = -1;
			snprintf(err, errlen, "out of memory listing %s", dir);
			break;
		}
		names[n++] = path;
	}
	closedir(d);
	if (!ret && n == 0 && others)
		ret = no_rank(p, dir, err, errlen);
	else if (!ret && n == 0)
		ret = -1, snprintf(err, errlen, "no finished causal profiles in %s, only unfinished "
			 "causal.*.tmp files: the run was killed while witch wrote them; re-run it",
			 dir);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n && !ret; i++)
		ret = load_file(p, names[i], err, errlen);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int rc_load(struct rc_profile *p, char *const *paths, int npaths, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < npaths; i++) {
		struct stat st;
		int ret;

		const char *base = strrchr(paths[i], '/');

		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode))
			ret = load_dir(p, paths[i], err, errlen);
		else if (rank_selected(p, base ? base + 1 : paths[i]))
			ret = load_file(p, paths[i], err, errlen);
		else
			ret = 0;
		if (ret)
			return -1;
	}
	if (p->one_rank && !p->nruns)
		return no_rank(p, paths[0], err, errlen);
	return 0;
}

const char *rc_function(const struct rc_profile *p, uint32_t loc)
{
	if (loc >= p->cap_function || p->function[loc] == UINT32_MAX)
		return NULL;
	return p->names.strs[p->function[loc]];
}

void rc_profile_free(struct rc_profile *p)
{
	size_t i;

	for (i = 0; i < p->nruns; i++) {
		free(p->runs[i].file);
		free(p->runs[i].command);
		free(p->runs[i].status);
	}
	free(p->runs);
	free(p->exps);
	free(p->obs);
	free(p->samples);
	free(p->callers);
	free(p->decls);
	free(p->function);
	rc_strtab_free(&p->names);
	memset(p, 0, sizeof(*p));
}
