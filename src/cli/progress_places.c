/*
 * progress_places.c - where a line's visits start (docs/causal.md, "Which
 * addresses --progress counts"): the line's rows, each placed in its copy
 * of the line (the function's own code, or an inlined instance of the
 * function the line is in) from the DWARF; then, for each function that
 * holds some, its code read from the ELF file and decoded (code_flow.c)
 * and the rule of visit_starts.h. Nothing runs.
 */
#include "cli/progress_places.h"
#include "cli/code_flow.h"
#include "cli/visit_starts.h"
#include "cli/code_pieces.h"
#include "cli/elf_code.h"
#include "report/debuginfo.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cand {
	uint64_t addr;
	uint64_t inst, func;	/* DIE offsets: its copy of the line, its function */
	uint32_t name;		/* the function its copy is of */
	int stmt;
	size_t unit;		/* into the units' pieces; SIZE_MAX: none */
};

/* The pieces of the units the line has code in. */
struct units {
	struct code_pieces *ps;
	size_t n;
};

/* The flow of one function and which of its blocks hold code of other
 * lines than the one asked about. */
struct body {
	struct flow f;
	char *other;		/* per block */
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The unit of each candidate (SIZE_MAX: none), and the pieces of the units
 * that hold some. Every unit is asked (dwarf_haspc): looking addresses up
 * needs .debug_aranges, which clang does not write. -1 when out of memory.
 */
static int find_units(struct units *u, struct rc_strtab *names, Dwfl_Module *mod, struct cand *c,
		      size_t n)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t i;
	void *p;

	for (i = 0; i < n; i++)
		c[i].unit = SIZE_MAX;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		int held = 0;

		for (i = 0; i < n; i++)
			if (c[i].unit == SIZE_MAX && dwarf_haspc(cu, c[i].addr - bias) > 0) {
				c[i].unit = u->n;
				held = 1;
			}
		if (!held)
			continue;
		if (!(p = realloc(u->ps, (u->n + 1) * sizeof(*u->ps))))
			return -1;
		u->ps = p;
		memset(&u->ps[u->n], 0, sizeof(*u->ps));
		if (code_pieces_collect(&u->ps[u->n++], names, cu, bias, mod))
			return -1;
	}
	return 0;
}

/* Whether piece p is code inlined by a call on file:line. */
static int called_from(const struct code_piece *p, uint32_t file, uint32_t line)
{
	return p->inlined && p->call_file == file && p->call_line == line;
}

/* The innermost piece holding addr that is a copy of function origin
 * (any when origin is 0) and not inlined by a call on file:line (a
 * statement row at the first address of such a call's code is the
 * line's). */
static const struct code_piece *copy_at(const struct code_pieces *ps, uint64_t addr,
					uint64_t origin, uint32_t file, uint32_t line)
{
	const struct code_piece *in = NULL;
	size_t i;

	for (i = 0; i < ps->n && ps->p[i].start <= addr; i++) {
		const struct code_piece *p = &ps->p[i];

		if (addr < p->end && (!in || p->depth > in->depth) && !called_from(p, file, line) &&
		    (!origin || p->origin == origin))
			in = p;
	}
	return in;
}

/*
 * The function the line is in: the one most of its rows lie in a copy of.
 * (A row may lie outside every copy: a statement row at the address after
 * an inlined copy's code is the caller's by the DWARF ranges.)
 */
static uint64_t line_origin(const struct units *u, const struct cand *c, size_t n, uint32_t file,
			    uint32_t line)
{
	uint64_t *origin = calloc(n + 1, sizeof(*origin)), best = 0;
	size_t i, j, votes, most = 0;

	if (!origin)
		return 0;	/* any copy then */
	for (i = 0; i < n; i++) {
		const struct code_piece *p =
			c[i].unit == SIZE_MAX ? NULL : copy_at(&u->ps[c[i].unit], c[i].addr, 0, file, line);

		origin[i] = p ? p->origin : 0;
	}
	for (i = 0; i < n; i++) {
		for (j = 0, votes = 0; j < n && origin[i]; j++)
			votes += origin[j] == origin[i];
		if (votes > most) {
			most = votes;
			best = origin[i];
		}
	}
	free(origin);
	return best;
}

/* The function (depth 0) holding c's address, and its copy of the line. */
static void place_in_pieces(const struct code_pieces *ps, struct cand *c, uint64_t origin,
			    uint32_t file, uint32_t line)
{
	const struct code_piece *copy = copy_at(ps, c->addr, origin, file, line);
	size_t i;

	if (!copy)
		return;
	c->inst = copy->die;
	c->name = copy->name;
	for (i = 0; i < ps->n && ps->p[i].start <= c->addr; i++)
		if (c->addr < ps->p[i].end && ps->p[i].depth == 0)
			c->func = ps->p[i].die;
}

/* Whether code at addr is inlined by a call on file:line, at any depth. */
static int inlined_from(const struct code_pieces *ps, uint64_t addr, uint32_t file,
			uint32_t line)
{
	size_t i;

	for (i = 0; i < ps->n && ps->p[i].start <= addr; i++)
		if (addr < ps->p[i].end && called_from(&ps->p[i], file, line))
			return 1;
	return 0;
}

/* Whether [start, end) holds code of another line than file:line: rows
 * sorted, one per address (the last row at an address holds its code, the
 * earlier ones none); code inlined from the line is the line's. */
static int other_line_in(const struct causal_row *rows, size_t n, const struct code_pieces *ps,
			 uint64_t start, uint64_t end, uint32_t file, uint32_t line)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].addr <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (lo = lo ? lo - 1 : 0; lo < n && rows[lo].addr < end; lo++)
		if ((rows[lo].file != file || rows[lo].line != line) &&
		    !inlined_from(ps, rows[lo].addr > start ? rows[lo].addr : start, file, line))
			return 1;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct causal_row *x = *(const struct causal_row *const *)a;
	const struct causal_row *y = *(const struct causal_row *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x < y ? -1 : x > y;	/* libdw's order among rows at one address */
}

/* The rows of m in [lo, hi), sorted, one per address (the last). */
static struct causal_row *rows_within(const struct causal_module *m, uint64_t lo, uint64_t hi,
				      size_t *n)
{
	const struct causal_row **ref = NULL;
	struct causal_row *out = NULL;
	size_t i, k = 0;

	for (i = 0; i < m->nrows; i++)
		k += m->rows[i].addr >= lo && m->rows[i].addr < hi;
	ref = malloc((k ? k : 1) * sizeof(*ref));
	out = malloc((k ? k : 1) * sizeof(*out));
	if (!ref || !out) {
		free(ref);
		free(out);
		return NULL;
	}
	for (i = 0, k = 0; i < m->nrows; i++)
		if (m->rows[i].addr >= lo && m->rows[i].addr < hi)
			ref[k++] = &m->rows[i];
	qsort(ref, k, sizeof(*ref), cmp_row);
	for (i = 0, *n = 0; i < k; i++) {
		if (*n && out[*n - 1].addr == ref[i]->addr)
			(*n)--;
		out[(*n)++] = *ref[i];
	}
	free(ref);
	return out;
}

/* Decode the function func of unit pieces ps, its candidates cut into
 * blocks of their own, and mark the blocks with code of other lines. */
static int read_body(const struct causal_module *m, const struct code_pieces *ps, uint64_t func,
		     const struct cand *c, size_t nc, uint32_t file, uint32_t line, struct body *b,
		     char *err, size_t errlen)
{
	struct flow_code *code = calloc(ps->n + 1, sizeof(*code));
	uint64_t *cuts = malloc(nc * sizeof(*cuts)), entry = 0, lo = UINT64_MAX, hi = 0;
	struct causal_row *rows = NULL;
	size_t ncode = 0, nrows = 0, i;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	if (!cuts || !code)
		goto out;
	for (i = 0; i < ps->n; i++) {
		const struct code_piece *p = &ps->p[i];
		uint8_t *bytes;

		if (p->depth || p->die != func)
			continue;
		if (!(bytes = malloc(p->end - p->start)))
			goto out;
		code[ncode].start = p->start;
		code[ncode].bytes = bytes;
		code[ncode++].len = p->end - p->start;
		if (elf_code_read(m->path, p->start, p->end - p->start, bytes, err, errlen))
			goto out;
		if (!p->nth)
			entry = p->start;
		lo = p->start < lo ? p->start : lo;
		hi = p->end > hi ? p->end : hi;
	}
	for (i = 0; i < nc; i++)
		cuts[i] = c[i].addr;
	if (!(rows = rows_within(m, lo, hi, &nrows)) ||
	    flow_build(&b->f, code, ncode, entry, cuts, nc) || !(b->other = calloc(b->f.nb + 1, 1)))
		goto out;
	for (i = 0; i < b->f.nb; i++)
		b->other[i] = (char)other_line_in(rows, nrows, ps, b->f.b[i].start, b->f.b[i].end,
						  file, line);
	ret = 0;
out:
	for (i = 0; i < ncode; i++)
		free((void *)code[i].bytes);
	free(code);
	free(cuts);
	free(rows);
	if (ret)
		flow_free(&b->f);
	if (ret && !*err)	/* else elf_code_read said why */
		snprintf(err, errlen, "out of memory");
	return ret;
}

static int add_place(struct progress_places *out, uint64_t addr, uint32_t name)
{
	size_t i;
	void *p;

	for (i = 0; i < out->n; i++)
		if (out->p[i].addr == addr)
			return 0;
	p = realloc(out->p, (out->n + 1) * sizeof(*out->p));
	if (!p)
		return -1;
	out->p = p;
	out->p[out->n].addr = addr;
	out->p[out->n].function = name;
	out->n++;
	return 0;
}

/* Candidates c[0..n) of one function func (unit pieces ps): where their
 * visits start, added to out. */
static int do_function(const struct causal_module *m, const struct code_pieces *ps, uint64_t func,
		       const struct cand *c, size_t n, uint32_t file, uint32_t line,
		       struct progress_places *out, char *err, size_t errlen)
{
	struct visit_cand *v = calloc(n, sizeof(*v));
	struct body b;
	size_t i, j, low = 0;
	int ret = -1, any = 0;

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	err[0] = '\0';
	if (read_body(m, ps, func, c, n, file, line, &b, err, errlen)) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		v[i].block = flow_block_at(&b.f, c[i].addr);
		if (v[i].block != FLOW_NONE && b.f.b[v[i].block].idom == FLOW_NONE)
			v[i].block = FLOW_NONE;
		for (j = 0; j < i && c[j].inst != c[i].inst; j++)
			;
		v[i].copy = j < i ? v[j].copy : (uint32_t)i;
		v[i].stmt = c[i].stmt;
	}
	if (visit_starts(&b.f, b.other, v, n))
		goto out;
	for (i = 0; i < n; i++) {
		if (!v[i].start)
			continue;
		if (add_place(out, b.f.b[v[i].block].start, c[i].name))
			goto out;
		any = 1;
		if (v[i].again && !out->again)
			out->again = b.f.b[v[i].block].start;
	}
	/* Reached only where the decoder cannot follow: the lowest address,
	 * where a debugger would break. */
	for (i = 1; !any && i < n; i++)
		low = c[i].addr < c[low].addr ? i : low;
	if (!any && add_place(out, c[low].addr, c[low].name))
		goto out;
	ret = 0;
out:
	free(v);
	flow_free(&b.f);
	free(b.other);
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static int cmp_place(const void *a, const void *b)
{
	const struct progress_place *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static Dwfl_Module *open_module(Dwfl *dwfl, const char *path, char *err, size_t errlen)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;

	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "target", path, -1, 0, true);
	if (dwfl_report_end(dwfl, NULL, NULL) || !mod || !dwfl_module_getdwarf(mod, &bias)) {
		snprintf(err, errlen, "cannot read the debug information of %s again: %s", path,
			 dwfl_errmsg(-1));
		return NULL;
	}
	return mod;
}

int progress_places_find(const struct causal_module *m, struct rc_strtab *names, uint32_t file,
			 uint32_t line, struct progress_places *out, char *err, size_t errlen)
{
	struct units u = { 0 };
	struct cand *c = NULL;
	uint64_t origin;
	size_t n = 0, i, j, k;
	Dwfl *dwfl = NULL;
	Dwfl_Module *mod;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < m->nrows; i++)
		n += m->rows[i].file == file && m->rows[i].line == line;
	c = calloc(n ? n : 1, sizeof(*c));
	dwfl = wr_dwfl_offline();
	if (!c || !dwfl) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!(mod = open_module(dwfl, m->path, err, errlen)))
		goto out;
	for (i = 0, k = 0; i < m->nrows; i++) {
		if (m->rows[i].file != file || m->rows[i].line != line)
			continue;
		c[k].addr = m->rows[i].addr;
		c[k].stmt = m->rows[i].stmt;
		k++;
	}
	if (find_units(&u, names, mod, c, k)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	origin = line_origin(&u, c, k, file, line);
	for (i = 0, n = k, k = 0; i < n; i++) {
		if (c[i].unit != SIZE_MAX)
			place_in_pieces(&u.ps[c[i].unit], &c[i], origin, file, line);
		if (c[i].func)	/* else in no function, or no copy of the line's */
			c[k++] = c[i];
	}
	qsort(c, k, sizeof(*c), cmp_cand);
	for (i = 0; i < k; i = j) {
		for (j = i; j < k && c[j].func == c[i].func; j++)
			;
		if (do_function(m, &u.ps[c[i].unit], c[i].func, c + i, j - i, file, line, out, err,
				errlen))
			goto out;
	}
	if (out->n)
		qsort(out->p, out->n, sizeof(*out->p), cmp_place);
	ret = 0;
out:
	for (i = 0; i < u.n; i++)
		code_pieces_free(&u.ps[i]);
	free(u.ps);
	free(c);
	if (dwfl)
		dwfl_end(dwfl);
	if (ret)
		progress_places_free(out);
	return ret;
}

void progress_places_free(struct progress_places *pp)
{
	free(pp->p);
	memset(pp, 0, sizeof(*pp));
}
