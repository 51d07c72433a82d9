/*
 * reader.c - parse and validate a witch profile. See reader.h and
 * docs/profile-format.md.
 *
 * The whole file is read into one buffer and parsed line by line in place.
 * Before any line is interpreted the file is checked as a whole (magic and
 * version, NUL bytes, a final end line), so that the common failures get
 * their own message rather than a complaint about some line in the middle.
 * Every count in the file is checked against the lines that actually
 * remain before anything is allocated for it: a corrupt count cannot make
 * the reader allocate more than the file's size justifies.
 */
#include "profile/reader.h"
#include "core/contract.h"
#include "core/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC		"WITCH-PROFILE"
#define MAGIC_LEN	(sizeof(MAGIC) - 1)
#define MAX_FIELDS	16
#define MAX_STAT_NAME	64
#define MAX_BUILD_ID	128	/* hex digits; build-ids are 20 bytes in practice */
#define CORRUPT		"the profile is corrupt; re-run the witch command that wrote it"
#define TRUNCATED	"is truncated (no end line): the run was probably " \
			"killed while writing; re-run the witch command that wrote it"

static const char *const known_tools[] = {
	"dead", "silent", "load", "deadspy", "redspy", "loadspy", "time", "count", "rvn",
	"loop", "share", NULL
};
static const char *const known_sources[] = {
	"timer", "pmu", "exhaustive", NULL
};
/* What tool rvn's value numbers tell apart (the by line). */
static const char *const known_by[] = {
	"symbol", "value", NULL
};
const char *const wp_rvn_stats[WP_RVN_KINDS][2] = {
	{ "computations", "redundant_computations" },
	{ "loads", "redundant_loads" },
	{ "stores", "redundant_stores" },
};
const char wp_rvn_kinds[WP_RVN_KINDS] = { 'c', 'l', 's' };
const char *const wp_loop_stats[WP_LOOP_STATS] = {
	"reads", "reads_in_loops", "reads_untracked", "loops_untracked", "loops",
};

enum header {
	H_TOOL, H_SOURCE, H_RATE_HZ, H_PERIOD, H_REGISTERS, H_PID,
	H_START_NS, H_END_NS, H_STATUS,
	H_OPTIONAL,		/* the headers from here on may be absent */
	H_SPREAD = H_OPTIONAL,
	H_REACH,
	H_BY,
	H_THRESHOLDS,
	H_HOST,
	H_RANK,
	H_WORLD_SIZE,
	H_COUNT
};

struct parser {
	struct wp_profile *p;
	char *err;
	size_t errlen;
	char name[512];		/* the path, printable, for messages */
	char quoted[64];	/* a printable excerpt of a bad field */
	size_t lineno;		/* 1-based number of the line being parsed */
	size_t nlines;		/* lines in the file, the end line included */
	unsigned seen;		/* header lines seen, one bit per enum header */
	struct wp_thread *cur;	/* open thread section, NULL outside one */
	size_t cur_lineno;	/* its thread line */
	uint32_t cur_nodes;	/* n lines seen so far in it */
	uint32_t cur_pairs;	/* p or r lines seen so far in it */
	size_t cap_args, cap_modules, cap_stats, cap_threads;
	int32_t *module_index;	/* module id in the file -> index, or -1 */
	size_t nmodule_ids;	/* module lines in the file */
	size_t cap_insns, cap_edges, cap_calls;
	size_t ns_lineno;	/* the first n line with a time field, 0 if none */
	size_t by_lineno;	/* the by line, 0 if none */
	size_t p_lineno;	/* the first p line, 0 if none */
	size_t r_lineno;	/* the first r line, 0 if none */
	size_t thresholds_lineno;	/* tool loop: the thresholds line, 0 if none */
	size_t loop_lineno;	/* the first loop, l or x line, 0 if none */
	size_t s_lineno;	/* the first s line, 0 if none */
	int loops_sealed;	/* loop lines sorted and checked (seal_loops) */
	size_t cap_loops, cap_loop_recs, cap_loop_reads;
};

struct keyword {
	const char *name;
	int nfields;		/* including the keyword */
	int (*parse)(struct parser *ps, char **f, const struct keyword *kw);
	int header;		/* enum header for single-valued header lines */
	size_t offset;		/* where a numeric header value goes */
	int optional;		/* further fields that may follow */
};

/* Copy s into dst for a message: control bytes become '?', long text "...". */
static const char *printable(char *dst, size_t cap, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max && i + 4 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (s[i]) {
		memcpy(dst + i, "...", 3);
		i += 3;
	}
	dst[i] = '\0';
	return dst;
}

static const char *quote(struct parser *ps, const char *s)
{
	return printable(ps->quoted, sizeof(ps->quoted), s, 40);
}

/* "NAME what": for problems with the file as a whole. */
static int fail_file(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->err, ps->errlen, "%s ", ps->name);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* "NAME:LINE: what; the profile is corrupt; re-run ...". */
static int fail_at(struct parser *ps, size_t lineno, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->err, ps->errlen, "%s:%zu: ", ps->name, lineno);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	n = (int)strlen(ps->err);
	snprintf(ps->err + n, ps->errlen - n, "; " CORRUPT);
	return -1;
}

#define fail(ps, ...) fail_at(ps, (ps)->lineno, __VA_ARGS__)

/* Decimal without sign, leading '+' or surrounding space. */
static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* Lower-case hex, 1 to 16 digits, no "0x". */
static int parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;

	for (; *s; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else
			return -1;
		x = x << 4 | d;
	}
	if (n == 0 || n > 16)
		return -1;
	*v = x;
	return 0;
}

/* "12.500": digits, a point, exactly three digits; result in thousandths. */
static int parse_milli(const char *s, uint64_t *v)
{
	const char *dot = strchr(s, '.');
	uint64_t whole, frac = 0;
	char buf[32];
	size_t n;
	int i;

	if (!dot || dot == s || strlen(dot + 1) != 3)
		return -1;
	n = (size_t)(dot - s);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_u64(buf, &whole) || whole > (UINT64_MAX - 999) / 1000)
		return -1;
	for (i = 1; i <= 3; i++) {
		unsigned d = (unsigned)(dot[i] - '0');

		if (d > 9)
			return -1;
		frac = frac * 10 + d;
	}
	*v = whole * 1000 + frac;
	return 0;
}

/* A node or module reference: "-1" or a decimal below limit. */
static int parse_ref(const char *s, uint64_t limit, int32_t *v)
{
	uint64_t x;

	if (!strcmp(s, "-1")) {
		*v = -1;
		return 0;
	}
	if (parse_u64(s, &x) || x >= limit || x > INT32_MAX)
		return -1;
	*v = (int32_t)x;
	return 0;
}

static int number(struct parser *ps, const char *s, uint64_t *v,
		  const char *what)
{
	if (parse_u64(s, v))
		return fail(ps, "bad %s '%s' (expected a decimal number)",
			    what, quote(ps, s));
	return 0;
}

static int hex_number(struct parser *ps, const char *s, uint64_t *v,
		      const char *what)
{
	if (parse_hex(s, v))
		return fail(ps, "bad %s '%s' (expected 1 to 16 lower-case hex "
			    "digits)", what, quote(ps, s));
	return 0;
}

static int milli(struct parser *ps, const char *s, uint64_t *v,
		 const char *what)
{
	if (parse_milli(s, v))
		return fail(ps, "bad %s '%s' (expected a number with three "
			    "decimals such as 12.500)", what, quote(ps, s));
	return 0;
}

/* Decode an escaped string field in place and duplicate it. */
static int string(struct parser *ps, char *s, char **out, const char *what)
{
	const unsigned char *c;

	for (c = (const unsigned char *)s; *c; c++)
		if (*c < 0x21 || *c >= 0x7f)
			return fail(ps, "%s contains the raw byte 0x%02x, which "
				    "the writer escapes", what, *c);
	if (core_unescape(s))
		return fail(ps, "%s '%s' has a malformed %%XX escape", what,
			    quote(ps, s));
	*out = strdup(s);
	if (!*out)
		return fail_file(ps, "could not be read: out of memory");
	return 0;
}

/* Make room for one more element in a growing array. */
static int grow(struct parser *ps, void **arr, size_t *cap, size_t n,
		size_t size)
{
	size_t ncap;
	void *a;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	a = realloc(*arr, ncap * size);
	if (!a)
		return fail_file(ps, "could not be read: out of memory");
	*arr = a;
	*cap = ncap;
	return 0;
}

static int one_of(const char *s, const char *const *list, const char **out)
{
	for (; *list; list++) {
		if (!strcmp(s, *list)) {
			*out = *list;
			return 0;
		}
	}
	return -1;
}

static int parse_header_u64(struct parser *ps, char **f,
			    const struct keyword *kw)
{
	return number(ps, f[1], (uint64_t *)((char *)ps->p + kw->offset),
		      kw->name);
}

static int parse_tool(struct parser *ps, char **f, const struct keyword *kw)
{
	(void)kw;
	if (one_of(f[1], known_tools, &ps->p->tool))
		return fail(ps, "unknown tool '%s' (this witch knows dead, "
			    "silent, load, deadspy, redspy, loadspy, time, count, rvn, loop)",
			    quote(ps, f[1]));
	return 0;
}

/* Timer samples only, and absent from the first version 1 profiles:
 * 1 (the next access) unless given. */
static int parse_spread(struct parser *ps, char **f, const struct keyword *kw)
{
	if (number(ps, f[1], &ps->p->spread, kw->name))
		return -1;
	if (ps->p->spread < 1 || ps->p->spread > RECORD_MAX_SPREAD)
		return fail(ps, "spread %s: a sample stands for one of 1 to %d accesses",
			    quote(ps, f[1]), RECORD_MAX_SPREAD);
	return 0;
}

/* Timer samples only, and absent from profiles before --reach: 0 (no
 * limit) unless given. */
static int parse_reach(struct parser *ps, char **f, const struct keyword *kw)
{
	if (number(ps, f[1], &ps->p->reach, kw->name))
		return -1;
	if (ps->p->reach > RECORD_MAX_REACH)
		return fail(ps, "reach %s: a sample looks at most %d instructions ahead",
			    quote(ps, f[1]), RECORD_MAX_REACH);
	return 0;
}

/* Absent from profiles before witch knew of hosts. */
static int parse_host(struct parser *ps, char **f, const struct keyword *kw)
{
	return string(ps, f[1], &ps->p->host, kw->name);
}

/* A launcher's rank: absent from other processes' profiles (-1). */
static int parse_rank(struct parser *ps, char **f, const struct keyword *kw)
{
	uint64_t v;

	if (number(ps, f[1], &v, kw->name))
		return -1;
	if (v >= (UINT64_C(1) << 62))
		return fail(ps, "rank %s is out of range", quote(ps, f[1]));
	ps->p->rank = (int64_t)v;
	return 0;
}

static int parse_world_size(struct parser *ps, char **f, const struct keyword *kw)
{
	if (number(ps, f[1], &ps->p->world_size, kw->name))
		return -1;
	if (!ps->p->world_size)
		return fail(ps, "world_size 0: a job has at least one rank");
	return 0;
}

static int parse_source(struct parser *ps, char **f, const struct keyword *kw)
{
	(void)kw;
	if (one_of(f[1], known_sources, &ps->p->source))
		return fail(ps, "unknown sample source '%s' (this witch knows "
			    "timer, pmu, exhaustive)", quote(ps, f[1]));
	return 0;
}

/* Tool rvn only; check_rvn_lines() makes sure. */
static int parse_by(struct parser *ps, char **f, const struct keyword *kw)
{
	(void)kw;
	if (one_of(f[1], known_by, &ps->p->by))
		return fail(ps, "unknown by '%s' (expected symbol or value)", quote(ps, f[1]));
	ps->by_lineno = ps->lineno;
	return 0;
}

static int parse_status(struct parser *ps, char **f, const struct keyword *kw)
{
	(void)kw;
	if (!strcmp(f[1], "complete"))
		ps->p->incomplete = 0;
	else if (!strcmp(f[1], "incomplete"))
		ps->p->incomplete = 1;
	else
		return fail(ps, "bad status '%s' (expected complete or "
			    "incomplete)", quote(ps, f[1]));
	return 0;
}

static int parse_arg(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	uint64_t idx;

	(void)kw;
	if (number(ps, f[1], &idx, "argument index"))
		return -1;
	if (idx != p->nargs)
		return fail(ps, "arg line has index %llu where %zu was expected "
			    "(arguments are numbered 0, 1, 2, ... in order)",
			    (unsigned long long)idx, p->nargs);
	if (grow(ps, (void **)&p->args, &ps->cap_args, p->nargs,
		 sizeof(*p->args)))
		return -1;
	if (string(ps, f[2], &p->args[p->nargs], "argument"))
		return -1;
	p->nargs++;
	return 0;
}

static int parse_build_id(struct parser *ps, const char *s, char **out)
{
	size_t n = strlen(s);
	size_t i;

	*out = NULL;
	if (!strcmp(s, "-"))
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			break;
	if (i < n || n % 2 || n > MAX_BUILD_ID)
		return fail(ps, "bad build-id '%s' (expected '-' or an even "
			    "number of lower-case hex digits)", quote(ps, s));
	*out = strdup(s);
	if (!*out)
		return fail_file(ps, "could not be read: out of memory");
	return 0;
}

/*
 * Module ids need not come in order (the runtime numbers modules by first
 * use and lists them by address), but each is defined once, before any
 * node refers to it, and ids are below the number of module lines.
 */
static int map_module_id(struct parser *ps, uint64_t id, int32_t index)
{
	size_t i;

	if (id >= ps->nmodule_ids)
		return fail(ps, "module id %llu is out of range (the profile "
			    "has %zu module lines, so ids run from 0 to %zu)",
			    (unsigned long long)id, ps->nmodule_ids,
			    ps->nmodule_ids - 1);
	if (!ps->module_index) {
		ps->module_index = malloc(ps->nmodule_ids *
					  sizeof(*ps->module_index));
		if (!ps->module_index)
			return fail_file(ps, "could not be read: out of memory");
		for (i = 0; i < ps->nmodule_ids; i++)
			ps->module_index[i] = -1;
	}
	if (ps->module_index[id] >= 0)
		return fail(ps, "second module line with id %llu",
			    (unsigned long long)id);
	ps->module_index[id] = index;
	return 0;
}

static int parse_module(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_module *m;
	uint64_t id;

	(void)kw;
	if (number(ps, f[1], &id, "module id"))
		return -1;
	if (grow(ps, (void **)&p->modules, &ps->cap_modules, p->nmodules,
		 sizeof(*p->modules)))
		return -1;
	m = &p->modules[p->nmodules];
	memset(m, 0, sizeof(*m));
	/* Counted now so that wp_free() releases what the parse allocates. */
	p->nmodules++;
	if (map_module_id(ps, id, (int32_t)(p->nmodules - 1)) ||
	    parse_build_id(ps, f[2], &m->build_id) ||
	    hex_number(ps, f[3], &m->bias, "module bias") ||
	    string(ps, f[4], &m->path, "module path"))
		return -1;
	return 0;
}

static int parse_stat(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_stat *s;
	const char *c;
	uint64_t v;

	(void)kw;
	for (c = f[1]; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		      *c == '_'))
			break;
	if (*c || c - f[1] > MAX_STAT_NAME)
		return fail(ps, "bad stat name '%s' (expected at most %d of "
			    "a-z, 0-9 and _)", quote(ps, f[1]), MAX_STAT_NAME);
	if (number(ps, f[2], &v, "stat value"))
		return -1;
	if (grow(ps, (void **)&p->stats, &ps->cap_stats, p->nstats,
		 sizeof(*p->stats)))
		return -1;
	s = &p->stats[p->nstats];
	s->name = strdup(f[1]);
	if (!s->name)
		return fail_file(ps, "could not be read: out of memory");
	s->value = v;
	p->nstats++;
	return 0;
}

static int seal_loops(struct parser *ps);

static int parse_thread(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_thread *t;
	uint64_t tid, nodes, pairs, left;

	(void)kw;
	if (seal_loops(ps))
		return -1;
	if (number(ps, f[1], &tid, "thread id") ||
	    number(ps, f[2], &nodes, "node count") ||
	    number(ps, f[3], &pairs, "pair count"))
		return -1;
	/* Lines after this one, before the end line. */
	left = ps->nlines - ps->lineno - 1;
	if (nodes > left || pairs > left - nodes)
		return fail(ps, "thread %llu declares %llu nodes and %llu pairs "
			    "but only %llu lines follow",
			    (unsigned long long)tid, (unsigned long long)nodes,
			    (unsigned long long)pairs, (unsigned long long)left);
	if (nodes == 0 && pairs > 0)
		return fail(ps, "thread %llu has pairs but no nodes",
			    (unsigned long long)tid);
	if (grow(ps, (void **)&p->threads, &ps->cap_threads, p->nthreads,
		 sizeof(*p->threads)))
		return -1;
	t = &p->threads[p->nthreads];
	memset(t, 0, sizeof(*t));
	p->nthreads++;
	t->tid = tid;
	t->nnodes = (uint32_t)nodes;
	t->npairs = (uint32_t)pairs;
	t->nodes = calloc(nodes ? nodes : 1, sizeof(*t->nodes));
	if (!t->nodes)
		return fail_file(ps, "could not be read: out of memory");
	/* Pairs are allocated at the first p or r line: tool loop's
	 * records are l and x lines instead. */
	ps->cur = t;
	ps->cur_lineno = ps->lineno;
	ps->cur_nodes = 0;
	ps->cur_pairs = 0;
	ps->cap_loop_recs = ps->cap_loop_reads = 0;
	return 0;
}

static int parse_node(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_thread *t = ps->cur;
	struct wp_node *n;
	uint64_t id;

	(void)kw;
	if (ps->cur_nodes == t->nnodes)
		return fail(ps, "thread %llu has more n lines than the %u it "
			    "declares", (unsigned long long)t->tid, t->nnodes);
	if (number(ps, f[1], &id, "node id"))
		return -1;
	if (id != ps->cur_nodes)
		return fail(ps, "node has id %llu where %u was expected (node "
			    "ids are 0, 1, 2, ... in order)",
			    (unsigned long long)id, ps->cur_nodes);
	n = &t->nodes[id];
	if (parse_ref(f[2], id, &n->parent) || (id == 0) != (n->parent < 0))
		return fail(ps, "node %llu has parent '%s': the parent must be "
			    "an earlier node, and -1 only for the root node 0",
			    (unsigned long long)id, quote(ps, f[2]));
	if (parse_ref(f[3], ps->nmodule_ids, &n->module) ||
	    (n->module >= 0 && (!ps->module_index ||
				(n->module = ps->module_index[n->module]) < 0)))
		return fail(ps, "node %llu refers to module '%s', which no "
			    "module line before it defines",
			    (unsigned long long)id, quote(ps, f[3]));
	if (id == 0 && n->module != -1)
		return fail(ps, "root node 0 has module %d (it must be -1)",
			    n->module);
	if (hex_number(ps, f[4], &n->offset, "node offset") ||
	    number(ps, f[5], &n->samples, "node samples"))
		return -1;
	if (f[6]) {
		if (number(ps, f[6], &n->ns, "node time"))
			return -1;
		if (!ps->ns_lineno)
			ps->ns_lineno = ps->lineno;
	}
	ps->cur_nodes++;
	return 0;
}

/* A module reference of the count tool's lines: "-1" or a module id
 * defined before, as an index into the profile's modules. */
static int module_ref(struct parser *ps, const char *s, int32_t *out)
{
	if (parse_ref(s, ps->nmodule_ids, out) ||
	    (*out >= 0 && (!ps->module_index || (*out = ps->module_index[*out]) < 0)))
		return fail(ps, "refers to module '%s', which no module line before it defines",
			    quote(ps, s));
	return 0;
}

static int parse_insn(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_insn *in;
	uint64_t len;

	(void)kw;
	if (grow(ps, (void **)&p->insns, &ps->cap_insns, p->ninsns, sizeof(*p->insns)))
		return -1;
	in = &p->insns[p->ninsns];
	if (module_ref(ps, f[1], &in->module) ||
	    hex_number(ps, f[2], &in->offset, "instruction offset") ||
	    number(ps, f[3], &len, "instruction length") ||
	    number(ps, f[4], &in->count, "execution count"))
		return -1;
	if (len < 1 || len > 15)
		return fail(ps, "instruction length %llu (x86-64 instructions have 1 to 15 bytes)",
			    (unsigned long long)len);
	in->len = (uint32_t)len;
	p->ninsns++;
	return 0;
}

static int parse_edge(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_edge *e;

	(void)kw;
	if (grow(ps, (void **)&p->edges, &ps->cap_edges, p->nedges, sizeof(*p->edges)))
		return -1;
	e = &p->edges[p->nedges];
	if (module_ref(ps, f[1], &e->src_module) ||
	    hex_number(ps, f[2], &e->src, "edge source") ||
	    module_ref(ps, f[3], &e->dst_module) ||
	    hex_number(ps, f[4], &e->dst, "edge target") ||
	    number(ps, f[6], &e->count, "edge count"))
		return -1;
	if (strlen(f[5]) != 1 || !strchr("jcrf", f[5][0]))
		return fail(ps, "bad edge kind '%s' (expected j, c, r or f)", quote(ps, f[5]));
	e->kind = f[5][0];
	p->nedges++;
	return 0;
}

static int parse_call(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_call *c;

	(void)kw;
	if (grow(ps, (void **)&p->calls, &ps->cap_calls, p->ncalls, sizeof(*p->calls)))
		return -1;
	c = &p->calls[p->ncalls];
	if (module_ref(ps, f[1], &c->module) ||
	    hex_number(ps, f[2], &c->offset, "call site offset") ||
	    number(ps, f[3], &c->below, "instructions below the call"))
		return -1;
	p->ncalls++;
	return 0;
}

/* The thread's next record: p, r, l and x lines together are the
 * records (pairs) its thread line declares. */
static int record_slot(struct parser *ps, const struct keyword *kw, const char *what)
{
	const struct wp_thread *t = ps->cur;

	if (ps->cur_pairs + t->nloop_recs + t->nloop_reads + t->nshares == t->npairs)
		return fail(ps, "thread %llu has more %s lines than the %u %s it declares",
			    (unsigned long long)t->tid, kw->name, t->npairs, what);
	return 0;
}

/*
 * The next pair of the open thread, its two node ids (p: watch and trap;
 * r: first and again) read from f[1] and f[2], everything else zero.
 */
static struct wp_pair *next_pair(struct parser *ps, char **f, const struct keyword *kw,
				 const char *first, const char *second)
{
	struct wp_thread *t = ps->cur;
	struct wp_pair *pr;
	uint64_t a, b;

	if (record_slot(ps, kw, "pairs"))
		return NULL;
	if (!t->pairs && !(t->pairs = calloc(t->npairs, sizeof(*t->pairs)))) {
		fail_file(ps, "could not be read: out of memory");
		return NULL;
	}
	if (number(ps, f[1], &a, first) || number(ps, f[2], &b, second))
		return NULL;
	if (a >= t->nnodes || b >= t->nnodes) {
		fail(ps, "pair refers to node %llu but thread %llu has "
		     "nodes 0 to %u", (unsigned long long)(a >= t->nnodes ? a : b),
		     (unsigned long long)t->tid, t->nnodes - 1);
		return NULL;
	}
	pr = &t->pairs[ps->cur_pairs];
	memset(pr, 0, sizeof(*pr));
	pr->watch = (uint32_t)a;
	pr->trap = (uint32_t)b;
	return pr;
}

static int parse_pair(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_pair *pr = next_pair(ps, f, kw, "watch node", "trap node");

	if (!pr)
		return -1;
	if (!ps->p_lineno)
		ps->p_lineno = ps->lineno;
	if (milli(ps, f[3], &pr->waste_milli, "waste") ||
	    milli(ps, f[4], &pr->use_milli, "use") ||
	    number(ps, f[5], &pr->count, "trap count"))
		return -1;
	if (f[6] && milli(ps, f[6], &pr->approx_milli, "approximate waste"))
		return -1;
	ps->cur_pairs++;
	return 0;
}

/* Tool rvn: "r first again kind count". */
static int parse_redundant(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_pair *pr = next_pair(ps, f, kw, "first node", "again node");

	if (!pr)
		return -1;
	if (!ps->r_lineno)
		ps->r_lineno = ps->lineno;
	if (strlen(f[3]) != 1 || !memchr(wp_rvn_kinds, f[3][0], WP_RVN_KINDS))
		return fail(ps, "bad kind '%s' (expected c, l or s: computation, load or store)",
			    quote(ps, f[3]));
	pr->kind = f[3][0];
	if (number(ps, f[4], &pr->count, "redundant count"))
		return -1;
	if (pr->count == 0)
		return fail(ps, "redundant count 0 (an r line stands for at least one redundant "
			    "execution)");
	ps->cur_pairs++;
	return 0;
}

/* Bytes [off, off + len) of a 64-byte line, as two fields. */
static int line_bytes(struct parser *ps, char **f, uint8_t *off, uint8_t *len, const char *what)
{
	uint64_t o, n;

	if (number(ps, f[0], &o, what) || number(ps, f[1], &n, what))
		return -1;
	if (o >= 64 || n < 1 || n > 64 - o)
		return fail(ps, "the %s are bytes %llu to %llu of a 64-byte cache line", what,
			    (unsigned long long)o, (unsigned long long)(o + n));
	*off = (uint8_t)o;
	*len = (uint8_t)n;
	return 0;
}

/* Tool share: "s watch trap kind count weight module line woff wlen toff
 * tlen block block_size site". */
static int parse_share(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_thread *t = ps->cur;
	struct wp_share *s;
	uint64_t watch, trap, site;

	if (record_slot(ps, kw, "records"))
		return -1;
	if (!t->shares && !(t->shares = calloc(t->npairs, sizeof(*t->shares))))
		return fail_file(ps, "could not be read: out of memory");
	if (!ps->s_lineno)
		ps->s_lineno = ps->lineno;
	s = &t->shares[t->nshares];
	if (number(ps, f[1], &watch, "store node") || number(ps, f[2], &trap, "access node") ||
	    number(ps, f[4], &s->count, "trap count") || milli(ps, f[5], &s->weight_milli, "weight") ||
	    module_ref(ps, f[6], &s->module) || hex_number(ps, f[7], &s->line, "cache line") ||
	    line_bytes(ps, f + 8, &s->woff, &s->wlen, "store's bytes") ||
	    line_bytes(ps, f + 10, &s->toff, &s->tlen, "access's bytes") ||
	    hex_number(ps, f[12], &s->block, "heap block") ||
	    number(ps, f[13], &s->block_size, "heap block size") ||
	    number(ps, f[14], &site, "allocation node"))
		return -1;
	if (watch >= t->nnodes || trap >= t->nnodes || site >= t->nnodes)
		return fail(ps, "s line refers to node %llu but thread %llu has nodes 0 to %u",
			    (unsigned long long)(watch >= t->nnodes ? watch : trap >= t->nnodes ? trap : site),
			    (unsigned long long)t->tid, t->nnodes - 1);
	if (strcmp(f[3], "f") && strcmp(f[3], "t"))
		return fail(ps, "bad kind '%s' (expected f or t: false or true sharing)",
			    quote(ps, f[3]));
	s->kind = f[3][0];
	if (s->count == 0)
		return fail(ps, "trap count 0 (an s line stands for at least one trap)");
	if (s->line % 64)
		return fail(ps, "cache line %llx is not 64-byte aligned", (unsigned long long)s->line);
	/* True sharing: the two accesses' bytes overlap. */
	if (s->kind == 't' && (s->woff >= s->toff + s->tlen || s->toff >= s->woff + s->wlen))
		return fail(ps, "true sharing between bytes %u-%u and %u-%u, which do not overlap",
			    s->woff, s->woff + s->wlen - 1, s->toff, s->toff + s->tlen - 1);
	if (!s->block != !s->block_size || (!s->block && site))
		return fail(ps, "a heap block needs its address and size, and only a block has an "
			    "allocation node");
	s->watch = (uint32_t)watch;
	s->trap = (uint32_t)trap;
	s->site = (uint32_t)site;
	t->nshares++;
	return 0;
}

/* "0.9", "1", "0.123456789": a fraction in (0, 1] with at most nine
 * decimals, in billionths. Exact, so that a loop whose redundant
 * iterations are exactly RI of its data-intensive ones is flagged. */
static int parse_billionths(const char *s, uint32_t *v)
{
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	uint64_t whole, frac = 0, scale = WP_BILLION;
	char buf[16];

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_u64(buf, &whole) || whole > 1)
		return -1;
	if (dot) {
		const char *d = dot + 1;

		if (!*d || strlen(d) > 9)
			return -1;
		for (; *d; d++) {
			unsigned c = (unsigned)(*d - '0');

			if (c > 9)
				return -1;
			scale /= 10;
			frac += c * scale;
		}
	}
	frac += whole * WP_BILLION;
	if (frac == 0 || frac > WP_BILLION)
		return -1;
	*v = (uint32_t)frac;
	return 0;
}

/* Tool loop only: "thresholds A R RI" (check_loop_lines() makes sure). */
static int parse_thresholds(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_thresholds *t = &ps->p->thresholds;

	(void)kw;
	ps->thresholds_lineno = ps->lineno;
	if (number(ps, f[1], &t->a, "threshold A"))
		return -1;
	if (t->a < 1)
		return fail(ps, "threshold A 0 (an iteration is data-intensive from 1 read on)");
	if (parse_billionths(f[2], &t->r))
		return fail(ps, "bad threshold R '%s' (expected a fraction in (0, 1] such as 0.9)",
			    quote(ps, f[2]));
	if (parse_billionths(f[3], &t->ri))
		return fail(ps, "bad threshold RI '%s' (expected a fraction in (0, 1] such as 0.8)",
			    quote(ps, f[3]));
	ps->p->has_thresholds = 1;
	return 0;
}

/* A decimal of at most max. */
static int small_number(struct parser *ps, const char *s, uint32_t *v, uint32_t max,
			const char *what)
{
	uint64_t x;

	if (number(ps, s, &x, what))
		return -1;
	if (x > max)
		return fail(ps, "%s %llu is out of range (at most %u)", what, (unsigned long long)x, max);
	*v = (uint32_t)x;
	return 0;
}

/*
 * Tool loop: "loop id module header parent depth first_line last_line
 * file", before the threads, whose l and x lines name loops by id. The
 * parent is kept as an id until seal_loops() has every loop.
 */
static int parse_loop(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_profile *p = ps->p;
	struct wp_loop *l;

	(void)kw;
	if (!ps->loop_lineno)
		ps->loop_lineno = ps->lineno;
	if (p->nthreads)
		return fail(ps, "a loop line after a thread section (loop lines come before the threads)");
	if (grow(ps, (void **)&p->loops, &ps->cap_loops, p->nloops, sizeof(*p->loops)))
		return -1;
	l = &p->loops[p->nloops];
	memset(l, 0, sizeof(*l));
	p->nloops++;		/* wp_free() releases its file from here on */
	l->lineno = ps->lineno;
	if (small_number(ps, f[1], &l->id, INT32_MAX, "loop id") ||
	    module_ref(ps, f[2], &l->module) ||
	    hex_number(ps, f[3], &l->header, "loop header"))
		return -1;
	if (l->module < 0)
		return fail(ps, "loop %u has module -1 (a loop lies in a module)", l->id);
	if (parse_ref(f[4], (uint64_t)INT32_MAX + 1, &l->parent))
		return fail(ps, "bad parent loop '%s' (expected a loop id or -1)", quote(ps, f[4]));
	if (small_number(ps, f[5], &l->depth, INT32_MAX, "loop depth") ||
	    small_number(ps, f[6], &l->first_line, INT32_MAX, "first line") ||
	    small_number(ps, f[7], &l->last_line, INT32_MAX, "last line"))
		return -1;
	if (l->first_line > l->last_line)
		return fail(ps, "loop %u's first line %u is after its last line %u", l->id,
			    l->first_line, l->last_line);
	if (strcmp(f[8], "-") && string(ps, f[8], &l->file, "loop source file"))
		return -1;
	return 0;
}

static int compare_loop_ids(const void *a, const void *b)
{
	uint32_t x = ((const struct wp_loop *)a)->id, y = ((const struct wp_loop *)b)->id;

	return x < y ? -1 : x > y;
}

/* The index of the loop with this id, or -1; after seal_loops(). */
static int32_t loop_index(const struct wp_profile *p, uint64_t id)
{
	size_t lo = 0, hi = p->nloops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->loops[mid].id == id)
			return (int32_t)mid;
		if (p->loops[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Once every loop line is read (at the first thread line, or at the end
 * of a profile without threads): sort them by id, for l and x lines to
 * find, and check that ids are unique and that a nested loop's parent is
 * a loop of the same module one level up. Parent ids become indices.
 */
static int seal_loops(struct parser *ps)
{
	struct wp_profile *p = ps->p;
	size_t i;

	if (ps->loops_sealed)
		return 0;
	ps->loops_sealed = 1;
	if (p->nloops > 1)
		qsort(p->loops, p->nloops, sizeof(*p->loops), compare_loop_ids);
	for (i = 1; i < p->nloops; i++) {
		size_t a = p->loops[i - 1].lineno, b = p->loops[i].lineno;

		if (p->loops[i - 1].id == p->loops[i].id)
			return fail_at(ps, a > b ? a : b, "second loop line with id %u (the first is "
				       "line %zu)", p->loops[i].id, a > b ? b : a);
	}
	for (i = 0; i < p->nloops; i++) {
		struct wp_loop *l = &p->loops[i];
		const struct wp_loop *up;
		int32_t k;

		if (l->parent < 0) {
			if (l->depth)
				return fail_at(ps, l->lineno, "loop %u has depth %u but no parent loop "
					       "(top-level loops have depth 0)", l->id, l->depth);
			continue;
		}
		k = loop_index(p, (uint64_t)l->parent);
		if (k < 0)
			return fail_at(ps, l->lineno, "loop %u is nested in loop %d, which has no "
				       "loop line", l->id, l->parent);
		up = &p->loops[k];
		if (up->module != l->module || up->depth + 1 != l->depth)
			return fail_at(ps, l->lineno, "loop %u (depth %u) is nested in loop %u "
				       "(depth %u)%s", l->id, l->depth, up->id, up->depth,
				       up->module != l->module ? " of another module"
				       : ": a nested loop is one level deeper");
		l->parent = k;
	}
	return 0;
}

/* A node of the open thread that an n line before has defined. */
static int defined_node(struct parser *ps, const char *s, const char *what, uint32_t *out)
{
	uint64_t x;

	if (number(ps, s, &x, what))
		return -1;
	if (x >= ps->cur_nodes)
		return fail(ps, "%s %llu is not one of the %u nodes of thread %llu before it (a "
			    "thread's n lines come before its records)", what, (unsigned long long)x,
			    ps->cur_nodes, (unsigned long long)ps->cur->tid);
	*out = (uint32_t)x;
	return 0;
}

/* An l or x line's loop (as an index) and its context, whose leaf must
 * be the loop's header instruction. */
static int loop_and_node(struct parser *ps, char **f, uint32_t *loop, uint32_t *node)
{
	const struct wp_profile *p = ps->p;
	const struct wp_loop *l;
	const struct wp_node *n;
	uint64_t id;
	int32_t k;

	if (!ps->loop_lineno)
		ps->loop_lineno = ps->lineno;
	if (number(ps, f[1], &id, "loop id") || defined_node(ps, f[2], "loop node", node))
		return -1;
	k = loop_index(p, id);
	if (k < 0)
		return fail(ps, "unknown loop %llu (no loop line has that id)", (unsigned long long)id);
	l = &p->loops[k];
	n = &ps->cur->nodes[*node];
	if (n->module != l->module || n->offset != l->header)
		return fail(ps, "loop node %u is not at loop %u's header (module %d offset %llx: "
			    "its leaf is the header's first instruction)", *node, l->id,
			    (int)l->module, (unsigned long long)l->header);
	*loop = (uint32_t)k;
	return 0;
}

/* Tool loop: "l loop node invocations iterations data_iterations
 * redundant_iterations reads redundant_reads". */
static int parse_loop_rec(struct parser *ps, char **f, const struct keyword *kw)
{
	static const char *const what[6] = {
		"invocations", "iterations", "data-intensive iterations", "redundant iterations",
		"reads", "redundant reads",
	};
	struct wp_thread *t = ps->cur;
	struct wp_loop_rec *rec;
	uint64_t v[6];
	int i;

	if (record_slot(ps, kw, "records") ||
	    grow(ps, (void **)&t->loop_recs, &ps->cap_loop_recs, t->nloop_recs,
		 sizeof(*t->loop_recs)))
		return -1;
	rec = &t->loop_recs[t->nloop_recs];
	if (loop_and_node(ps, f, &rec->loop, &rec->node))
		return -1;
	for (i = 0; i < 6; i++)
		if (number(ps, f[3 + i], &v[i], what[i]))
			return -1;
	rec->invocations = v[0];
	rec->iterations = v[1];
	rec->data_iterations = v[2];
	rec->redundant_iterations = v[3];
	rec->reads = v[4];
	rec->redundant_reads = v[5];
	if (v[2] > v[1])
		return fail(ps, "%llu data-intensive iterations among %llu iterations",
			    (unsigned long long)v[2], (unsigned long long)v[1]);
	if (v[3] > v[2])
		return fail(ps, "%llu redundant iterations among %llu data-intensive ones (a "
			    "redundant iteration is data-intensive)", (unsigned long long)v[3],
			    (unsigned long long)v[2]);
	if (v[5] > v[4])
		return fail(ps, "%llu redundant reads among %llu reads", (unsigned long long)v[5],
			    (unsigned long long)v[4]);
	t->nloop_recs++;
	return 0;
}

/* Tool loop: "x loop node load-node redundant_reads". */
static int parse_loop_read(struct parser *ps, char **f, const struct keyword *kw)
{
	struct wp_thread *t = ps->cur;
	struct wp_loop_read *rd;

	if (record_slot(ps, kw, "records") ||
	    grow(ps, (void **)&t->loop_reads, &ps->cap_loop_reads, t->nloop_reads,
		 sizeof(*t->loop_reads)))
		return -1;
	rd = &t->loop_reads[t->nloop_reads];
	if (loop_and_node(ps, f, &rd->loop, &rd->node) ||
	    defined_node(ps, f[3], "load node", &rd->load) ||
	    number(ps, f[4], &rd->redundant_reads, "redundant reads"))
		return -1;
	if (rd->load == 0)
		return fail(ps, "load node 0 is the root (a load's context ends at the load)");
	t->nloop_reads++;
	return 0;
}

static int parse_end(struct parser *ps, char **f, const struct keyword *kw)
{
	uint64_t n;

	(void)kw;
	if (ps->lineno != ps->nlines)
		return fail(ps, "end line is followed by more lines");
	if (number(ps, f[1], &n, "line count"))
		return -1;
	if (n != ps->lineno - 1)
		return fail(ps, "end line counts %llu lines but %zu precede it "
			    "(lines were lost or added)", (unsigned long long)n,
			    ps->lineno - 1);
	return 0;
}

static int parse_magic_again(struct parser *ps, char **f,
			     const struct keyword *kw)
{
	(void)f;
	(void)kw;
	return fail(ps, "a second WITCH-PROFILE line (were two profiles "
		    "concatenated?)");
}

#define HDR(kw, h, field) \
	{ kw, 2, parse_header_u64, h, offsetof(struct wp_profile, field), 0 }

/* n, p, r, l and x come first: they are most of the lines. */
static const struct keyword keywords[] = {
	{ "n", 6, parse_node, -1, 0, 1 },
	{ "p", 6, parse_pair, -1, 0, 1 },
	{ "r", 5, parse_redundant, -1, 0, 0 },
	{ "l", 9, parse_loop_rec, -1, 0, 0 },
	{ "x", 5, parse_loop_read, -1, 0, 0 },
	{ "s", 15, parse_share, -1, 0, 0 },
	{ "tool", 2, parse_tool, H_TOOL, 0, 0 },
	{ "by", 2, parse_by, H_BY, 0, 0 },
	{ "thresholds", 4, parse_thresholds, H_THRESHOLDS, 0, 0 },
	{ "source", 2, parse_source, H_SOURCE, 0, 0 },
	HDR("rate_hz", H_RATE_HZ, rate_hz),
	HDR("period", H_PERIOD, period),
	HDR("registers", H_REGISTERS, registers),
	{ "spread", 2, parse_spread, H_SPREAD, 0, 0 },
	{ "reach", 2, parse_reach, H_REACH, 0, 0 },
	HDR("pid", H_PID, pid),
	{ "host", 2, parse_host, H_HOST, 0, 0 },
	{ "rank", 2, parse_rank, H_RANK, 0, 0 },
	{ "world_size", 2, parse_world_size, H_WORLD_SIZE, 0, 0 },
	HDR("start_ns", H_START_NS, start_ns),
	HDR("end_ns", H_END_NS, end_ns),
	{ "status", 2, parse_status, H_STATUS, 0, 0 },
	{ "arg", 3, parse_arg, -1, 0, 0 },
	{ "module", 5, parse_module, -1, 0, 0 },
	{ "stat", 3, parse_stat, -1, 0, 0 },
	{ "thread", 4, parse_thread, -1, 0, 0 },
	{ "i", 5, parse_insn, -1, 0, 0 },
	{ "e", 7, parse_edge, -1, 0, 0 },
	{ "c", 4, parse_call, -1, 0, 0 },
	{ "loop", 9, parse_loop, -1, 0, 0 },
	{ "end", 2, parse_end, -1, 0, 0 },
	{ MAGIC, 2, parse_magic_again, -1, 0, 0 },
};

/* The lines of a thread section: its nodes and its pairs (records). */
static int in_thread(const struct keyword *kw)
{
	return kw->parse == parse_node || kw->parse == parse_pair || kw->parse == parse_redundant ||
	       kw->parse == parse_loop_rec || kw->parse == parse_loop_read ||
	       kw->parse == parse_share;
}

/* A thread section ends at the first line that is neither n, p, r, l, x nor s. */
static int close_thread(struct parser *ps)
{
	struct wp_thread *t = ps->cur;

	if (!t)
		return 0;
	ps->cur = NULL;
	if (ps->cur_nodes != t->nnodes)
		return fail_at(ps, ps->cur_lineno, "thread %llu declares %u "
			       "nodes but %u n lines follow it",
			       (unsigned long long)t->tid, t->nnodes,
			       ps->cur_nodes);
	if (t->nshares && ps->cur_pairs + t->nshares != t->npairs)
		return fail_at(ps, ps->cur_lineno, "thread %llu declares %u records but %u p or s "
			       "lines follow it", (unsigned long long)t->tid, t->npairs,
			       ps->cur_pairs + t->nshares);
	if (t->nloop_recs + t->nloop_reads && ps->cur_pairs + t->nloop_recs + t->nloop_reads != t->npairs)
		return fail_at(ps, ps->cur_lineno, "thread %llu declares %u records but %u l or x lines "
			       "follow it", (unsigned long long)t->tid, t->npairs,
			       ps->cur_pairs + t->nloop_recs + t->nloop_reads);
	if (ps->cur_pairs + t->nloop_recs + t->nloop_reads + t->nshares != t->npairs)
		return fail_at(ps, ps->cur_lineno, "thread %llu declares %u "
			       "pairs but %u p or r lines follow it",
			       (unsigned long long)t->tid, t->npairs,
			       ps->cur_pairs);
	t->npairs = ps->cur_pairs;	/* from here on: its p or r lines */
	return 0;
}

static int parse_line(struct parser *ps, char *line)
{
	char *f[MAX_FIELDS] = { NULL };
	const struct keyword *kw = NULL;
	int nf = 0;
	size_t i;
	char *s;

	if (!*line)
		return fail(ps, "empty line");
	for (s = line;; s++) {
		char *sp = strchr(s, ' ');

		if (nf == MAX_FIELDS)
			return fail(ps, "too many fields");
		f[nf++] = s;
		if (!sp)
			break;
		*sp = '\0';
		s = sp;
	}
	for (i = 0; i < (size_t)nf; i++)
		if (!*f[i])
			return fail(ps, "empty field (a doubled, leading or "
				    "trailing space)");
	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		if (!strcmp(f[0], keywords[i].name)) {
			kw = &keywords[i];
			break;
		}
	}
	if (!kw)
		return fail(ps, "unknown keyword '%s'", quote(ps, f[0]));
	if (nf < kw->nfields || nf > kw->nfields + kw->optional)
		return fail(ps, "%s line has %d fields where %d were expected",
			    kw->name, nf, kw->nfields);
	if (in_thread(kw)) {
		if (!ps->cur)
			return fail(ps, "%s line outside a thread section",
				    kw->name);
	} else if (close_thread(ps)) {
		return -1;
	}
	if (kw->header >= 0) {
		if (ps->seen & 1u << kw->header)
			return fail(ps, "second %s line", kw->name);
		ps->seen |= 1u << kw->header;
	}
	return kw->parse(ps, f, kw);
}

static int compare_stat_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorting once keeps a file with many stat lines from costing n^2. */
static int check_stats_unique(struct parser *ps)
{
	struct wp_profile *p = ps->p;
	char **names;
	size_t i;
	int ret = 0;

	if (p->nstats < 2)
		return 0;
	names = malloc(p->nstats * sizeof(*names));
	if (!names)
		return fail_file(ps, "could not be read: out of memory");
	for (i = 0; i < p->nstats; i++)
		names[i] = p->stats[i].name;
	qsort(names, p->nstats, sizeof(*names), compare_stat_names);
	for (i = 1; i < p->nstats && !ret; i++)
		if (!strcmp(names[i - 1], names[i]))
			ret = fail_file(ps, "has two stat lines for '%s'; " CORRUPT,
					quote(ps, names[i]));
	free(names);
	return ret;
}

static const struct wp_stat *find_stat(const struct wp_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nstats; i++)
		if (!strcmp(p->stats[i].name, name))
			return &p->stats[i];
	return NULL;
}

/* Each kind's instructions, and the redundant ones among them. */
static int check_rvn_stats(struct parser *ps)
{
	const struct wp_profile *p = ps->p;
	size_t i, j;

	for (i = 0; i < WP_RVN_KINDS; i++) {
		const char *all = wp_rvn_stats[i][0], *redundant = wp_rvn_stats[i][1];

		for (j = 0; j < 2; j++)
			if (!find_stat(p, wp_rvn_stats[i][j]))
				return fail_file(ps, "has no stat %s (tool rvn counts its "
						 "instructions); " CORRUPT, wp_rvn_stats[i][j]);
		if (wp_stat_value(p, redundant) > wp_stat_value(p, all))
			return fail_file(ps, "counts %llu %s among %llu %s; " CORRUPT,
					 (unsigned long long)wp_stat_value(p, redundant), redundant,
					 (unsigned long long)wp_stat_value(p, all), all);
	}
	if (!find_stat(p, "dropped"))
		return fail_file(ps, "has no stat dropped (tool rvn says what its table "
				 "forgot); " CORRUPT);
	return 0;
}

/* Tool rvn writes a by line and r lines, and no other tool does. */
static int check_rvn_lines(struct parser *ps)
{
	const char *tool = ps->p->tool;

	if (strcmp(tool, "rvn")) {
		if (ps->by_lineno)
			return fail_at(ps, ps->by_lineno, "a by line in a profile of tool %s "
				       "(only tool rvn has one)", tool);
		if (ps->r_lineno)
			return fail_at(ps, ps->r_lineno, "an r line in a profile of tool %s "
				       "(only tool rvn writes them; the others write p lines)", tool);
		return 0;
	}
	if (!ps->by_lineno)
		return fail_file(ps, "has no by line (tool rvn says whether it numbered by "
				 "symbol or by value); " CORRUPT);
	if (ps->p_lineno)
		return fail_at(ps, ps->p_lineno, "a p line in a profile of tool rvn "
			       "(its pairs are r lines)");
	return check_rvn_stats(ps);
}

/* Tool loop writes a thresholds line, loop, l and x lines and its
 * stats; no other tool does, and it writes no pairs. */
static int check_loop_lines(struct parser *ps)
{
	const struct wp_profile *p = ps->p;
	size_t i;

	if (strcmp(p->tool, "loop")) {
		if (ps->thresholds_lineno)
			return fail_at(ps, ps->thresholds_lineno, "a thresholds line in a profile of "
				       "tool %s (only tool loop has one)", p->tool);
		if (ps->loop_lineno)
			return fail_at(ps, ps->loop_lineno, "a loop, l or x line in a profile of tool "
				       "%s (only tool loop writes them)", p->tool);
		return 0;
	}
	if (!ps->thresholds_lineno)
		return fail_file(ps, "has no thresholds line (tool loop says what it judged loops "
				 "by); " CORRUPT);
	if (ps->p_lineno)
		return fail_at(ps, ps->p_lineno, "a p line in a profile of tool loop (its records "
			       "are l and x lines)");
	if (strcmp(p->source, "exhaustive"))
		return fail_file(ps, "says source %s but tool loop observes every load (source "
				 "exhaustive); " CORRUPT, p->source);
	for (i = 0; i < WP_LOOP_STATS; i++)
		if (!find_stat(p, wp_loop_stats[i]))
			return fail_file(ps, "has no stat %s (tool loop counts its reads and loops); "
					 CORRUPT, wp_loop_stats[i]);
	if (wp_stat_value(p, "reads_in_loops") > wp_stat_value(p, "reads"))
		return fail_file(ps, "counts %llu reads_in_loops among %llu reads; " CORRUPT,
				 (unsigned long long)wp_stat_value(p, "reads_in_loops"),
				 (unsigned long long)wp_stat_value(p, "reads"));
	return seal_loops(ps);
}

/* Tool share writes s lines and the threads' CPU time; no other tool
 * does, and it writes no p lines. */
static int check_share_lines(struct parser *ps)
{
	const struct wp_profile *p = ps->p;

	if (strcmp(p->tool, "share")) {
		if (ps->s_lineno)
			return fail_at(ps, ps->s_lineno, "an s line in a profile of tool %s (only "
				       "tool share writes them)", p->tool);
		return 0;
	}
	if (ps->p_lineno)
		return fail_at(ps, ps->p_lineno, "a p line in a profile of tool share (its records "
			       "are s lines)");
	if (!strcmp(p->source, "exhaustive"))
		return fail_file(ps, "says source exhaustive but tool share samples; " CORRUPT);
	if (!find_stat(p, "cpu_ns"))
		return fail_file(ps, "has no stat cpu_ns (tool share counts sharing per second of "
				 "the threads' CPU time); " CORRUPT);
	return 0;
}

static int check_header_complete(struct parser *ps)
{
	size_t i;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		int h = keywords[i].header;

		if (h >= 0 && h < H_OPTIONAL && !(ps->seen & 1u << h))
			return fail_file(ps, "has no %s line; " CORRUPT,
					 keywords[i].name);
	}
	if (ps->p->world_size && ps->p->rank < 0)
		return fail_file(ps, "has a world_size line but no rank; " CORRUPT);
	if (ps->p->world_size && (uint64_t)ps->p->rank >= ps->p->world_size)
		return fail_file(ps, "says rank %lld of a world of %llu (ranks count from 0); " CORRUPT,
				 (long long)ps->p->rank, (unsigned long long)ps->p->world_size);
	/* --spread draws among the accesses after a timer sample. */
	if (ps->p->spread != 1 && strcmp(ps->p->source, "timer"))
		return fail_file(ps, "says spread %llu with source %s (spread is the timer's); " CORRUPT,
				 (unsigned long long)ps->p->spread, ps->p->source);
	if (ps->p->reach && strcmp(ps->p->source, "timer"))
		return fail_file(ps, "says reach %llu with source %s (reach is the timer's); " CORRUPT,
				 (unsigned long long)ps->p->reach, ps->p->source);
	/* What each tool writes: time on nodes from the sampled run of
	 * witch cpi, executions from its counting run. */
	if (ps->ns_lineno && strcmp(ps->p->tool, "time"))
		return fail_at(ps, ps->ns_lineno, "a node with a time field in a profile of tool %s "
			       "(only tool time has one)", ps->p->tool);
	if ((ps->p->ninsns || ps->p->nedges || ps->p->ncalls) && strcmp(ps->p->tool, "count"))
		return fail_file(ps, "has instruction, edge or call lines but tool %s (only tool "
				 "count writes them); " CORRUPT, ps->p->tool);
	return check_rvn_lines(ps) || check_share_lines(ps) ? -1 : check_loop_lines(ps);
}

/* First line: "WITCH-PROFILE <version>". */
static int check_magic(struct parser *ps, const char *buf, size_t len)
{
	const char *nl;
	uint64_t version = 0;
	size_t i;

	if (len == 0)
		return fail_file(ps, "is empty: the run was probably killed "
				 "before writing it; re-run the witch command that wrote it");
	if (len < MAGIC_LEN + 1 && !memcmp(buf, MAGIC, len))
		return fail_file(ps, TRUNCATED);
	if (len < MAGIC_LEN + 1 || memcmp(buf, MAGIC " ", MAGIC_LEN + 1))
		return fail_file(ps, "is not a witch profile (it does not start "
				 "with '" MAGIC "'); pass files written by "
				 "witch record or their directory");
	nl = memchr(buf, '\n', len);
	if (!nl)
		return fail_file(ps, TRUNCATED);
	for (i = MAGIC_LEN + 1; buf + i < nl; i++) {
		unsigned d = (unsigned)(buf[i] - '0');

		if (d > 9 || version > 1000000)
			break;
		version = version * 10 + d;
	}
	if (buf + i != nl || i == MAGIC_LEN + 1)
		return fail_file(ps, "has a malformed first line (expected '"
				 MAGIC " %d'); " CORRUPT, WP_FORMAT_VERSION);
	if (version != WP_FORMAT_VERSION)
		return fail_file(ps, "is a version %llu witch profile but this "
				 "witch reads version %d; report it with the "
				 "witch that recorded it",
				 (unsigned long long)version, WP_FORMAT_VERSION);
	ps->p->version = (int)version;
	return 0;
}

/* buf is the caller's, NUL-terminated at len, and is modified. */
static int parse_buffer(struct parser *ps, char *buf, size_t len)
{
	const char *nul, *last;
	char *pos, *end = buf + len;

	if (check_magic(ps, buf, len))
		return -1;
	nul = memchr(buf, '\0', len);
	if (nul)
		return fail_file(ps, "contains a NUL byte at offset %zu; " CORRUPT,
				 (size_t)(nul - buf));
	if (buf[len - 1] != '\n')
		return fail_file(ps, TRUNCATED);
	last = memrchr(buf, '\n', len - 1);
	last = last ? last + 1 : buf;
	if (strncmp(last, "end", 3) || (last[3] != ' ' && last[3] != '\n'))
		return fail_file(ps, TRUNCATED);

	/* Counts that bound what the lines may declare. */
	for (pos = buf; pos < end; pos++) {
		if (!strncmp(pos, "module ", 7))
			ps->nmodule_ids++;
		pos = memchr(pos, '\n', (size_t)(end - pos));
		ps->nlines++;
	}

	/* Line 1 was checked by check_magic(). */
	pos = memchr(buf, '\n', len) + 1;
	ps->lineno = 1;
	while (pos < end) {
		char *nl = memchr(pos, '\n', (size_t)(end - pos));

		ps->lineno++;
		if ((size_t)(nl - pos) > WP_MAX_LINE_BYTES)
			return fail(ps, "line is longer than %u bytes",
				    WP_MAX_LINE_BYTES);
		*nl = '\0';
		if (parse_line(ps, pos))
			return -1;
		pos = nl + 1;
	}
	if (check_header_complete(ps) || check_stats_unique(ps))
		return -1;
	return 0;
}

static void parser_init(struct parser *ps, const char *name, char *err,
			size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->err = err;
	ps->errlen = errlen;
	printable(ps->name, sizeof(ps->name), name, sizeof(ps->name) - 8);
	if (errlen)
		err[0] = '\0';
}

static int parse_owned(const char *name, char *buf, size_t len,
		       struct wp_profile **out, char *err, size_t errlen)
{
	struct parser ps;

	*out = NULL;
	parser_init(&ps, name, err, errlen);
	ps.p = calloc(1, sizeof(*ps.p));
	if (!ps.p || !(ps.p->path = strdup(name))) {
		free(ps.p);
		return fail_file(&ps, "could not be read: out of memory");
	}
	ps.p->spread = 1;	/* optional headers' values when absent */
	ps.p->rank = -1;
	if (parse_buffer(&ps, buf, len)) {
		free(ps.module_index);
		wp_free(ps.p);
		return -1;
	}
	free(ps.module_index);
	*out = ps.p;
	return 0;
}

int wp_parse(const char *name, const char *buf, size_t len,
	     struct wp_profile **out, char *err, size_t errlen)
{
	char *copy = malloc(len + 1);
	int ret;

	if (!copy) {
		struct parser ps;

		*out = NULL;
		parser_init(&ps, name, err, errlen);
		return fail_file(&ps, "could not be read: out of memory");
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	ret = parse_owned(name, copy, len, out, err, errlen);
	free(copy);
	return ret;
}

static char *read_file(struct parser *ps, const char *path, size_t *lenp)
{
	struct stat st;
	size_t len = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			fail_file(ps, "does not exist; check the path (witch "
				  "record writes DIR/PROGRAM-PID.witch)");
		else
			fail_file(ps, "cannot be opened: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fail_file(ps, "is not a regular file; pass a .witch profile "
			  "or a directory of them");
		close(fd);
		return NULL;
	}
	if ((unsigned long long)st.st_size > WP_MAX_FILE_BYTES) {
		fail_file(ps, "is larger than %llu MiB, more than any witch "
			  "profile; is it really one?",
			  WP_MAX_FILE_BYTES >> 20);
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		fail_file(ps, "could not be read: out of memory");
		close(fd);
		return NULL;
	}
	/* Profiles are renamed into place, so the size does not change. */
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail_file(ps, "could not be read: %s", strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

int wp_read(const char *path, struct wp_profile **out, char *err, size_t errlen)
{
	struct parser ps;
	size_t len;
	char *buf;
	int ret;

	*out = NULL;
	parser_init(&ps, path, err, errlen);
	buf = read_file(&ps, path, &len);
	if (!buf)
		return -1;
	ret = parse_owned(path, buf, len, out, err, errlen);
	free(buf);
	return ret;
}

void wp_free(struct wp_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nargs; i++)
		free(p->args[i]);
	free(p->args);
	free(p->host);
	for (i = 0; i < p->nmodules; i++) {
		free(p->modules[i].build_id);
		free(p->modules[i].path);
	}
	free(p->modules);
	for (i = 0; i < p->nstats; i++)
		free(p->stats[i].name);
	free(p->stats);
	for (i = 0; i < p->nthreads; i++) {
		free(p->threads[i].nodes);
		free(p->threads[i].pairs);
		free(p->threads[i].loop_recs);
		free(p->threads[i].loop_reads);
		free(p->threads[i].shares);
	}
	for (i = 0; i < p->nloops; i++)
		free(p->loops[i].file);
	free(p->loops);
	free(p->threads);
	free(p->insns);
	free(p->edges);
	free(p->calls);
	free(p->path);
	free(p);
}

uint64_t wp_stat_value(const struct wp_profile *p, const char *name)
{
	const struct wp_stat *s = find_stat(p, name);

	return s ? s->value : 0;
}
