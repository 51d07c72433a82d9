/*
 * causal_lines.c - DWARF line tables to the runtime's line table.
 *
 * Each binary gets a Dwfl of its own with the file reported at base 0, so
 * that addresses are the ELF virtual (link-time) addresses the contract
 * asks for; separate debug files are found by dwfl_standard_find_debuginfo.
 *
 * For every compilation unit, the subprogram and inlined-subroutine DIEs
 * are flattened into address pieces with their nesting depth, and swept
 * together with the (address-sorted) line rows: the pieces open at a row's
 * address, innermost last, say which function the row is in and, for rows
 * from an out-of-scope file, through which call sites it was inlined. Only
 * code inside a function's DWARF ranges is charged (hand-written assembly
 * without DW_TAG_subprogram is not sped up).
 */
#include "cli/causal_lines.h"
#include "cli/code_pieces.h"
#include "cli/progress_places.h"
#include "core/contract.h"
#include "report/debuginfo.h"
#include "report/grow.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int causal_system_path(const char *path)
{
	static const char *const prefixes[] = {
		"/usr/include/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/", "/usr/share/",
		"/usr/local/include/", "/usr/local/lib/", "/lib/", "/lib64/", "/opt/rh/",
	};
	size_t i;

	if (path[0] == '<')	/* <built-in>, <artificial> */
		return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return 1;
	/* glibc's own sources, when its static parts carry debug info. */
	return strstr(path, "/sysdeps/") != NULL || !strncmp(path, "../sysdeps/", 11);
}

int causal_path_matches(const char *pattern, const char *path)
{
	const char *p;

	if (!fnmatch(pattern, path, 0))
		return 1;
	for (p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		if (p[1] && !fnmatch(pattern, p + 1, 0))
			return 1;
	return 0;
}

int causal_lines_set_scope(struct causal_lines *t, char *const *patterns, size_t n)
{
	size_t i;

	t->scope = calloc(n ? n : 1, sizeof(*t->scope));
	t->scope_hits = calloc(n ? n : 1, sizeof(*t->scope_hits));
	if (!t->scope || !t->scope_hits)
		return -1;
	for (i = 0; i < n; i++) {
		t->scope[i] = strdup(patterns[i]);
		if (!t->scope[i])
			return -1;
		t->nscope = i + 1;
	}
	return 0;
}

static int in_scope(struct causal_lines *t, uint32_t file)
{
	const char *path = t->files.strs[file];
	size_t i, old = t->cap_file_scope;
	int in = 0;

	if (wr_grow((void **)&t->file_scope, &t->cap_file_scope, (size_t)file + 1,
		 sizeof(*t->file_scope)))
		return 0;
	if (t->cap_file_scope > old)
		memset(t->file_scope + old, -1, t->cap_file_scope - old);
	if (t->file_scope[file] >= 0)
		return t->file_scope[file];
	if (!t->nscope)
		in = !causal_system_path(path);
	for (i = 0; i < t->nscope; i++)
		if (causal_path_matches(t->scope[i], path)) {
			t->scope_hits[i] = 1;
			in = 1;
		}
	t->file_scope[file] = (signed char)in;
	return in;
}

static uint32_t line_id(struct causal_lines *t, uint32_t module, uint32_t file, uint32_t lineno,
			uint32_t function)
{
	char key[PATH_MAX + 32];
	uint32_t id;
	int n;

	n = snprintf(key, sizeof(key), "%s:%u", t->files.strs[file], lineno);
	if (n < 0 || (size_t)n >= sizeof(key))
		return UINT32_MAX;
	id = rc_intern(&t->locs, key);
	if (id == UINT32_MAX || id < t->nlines)
		return id;
	if (wr_grow((void **)&t->lines, &t->cap_lines, (size_t)id + 1, sizeof(*t->lines)))
		return UINT32_MAX;
	t->lines[id].module = module;
	t->lines[id].file = file;
	t->lines[id].lineno = lineno;
	t->lines[id].function = function;
	t->nlines = (size_t)id + 1;
	return id;
}

static int add_range(struct causal_lines *t, struct causal_module *m, uint32_t module, uint64_t start,
		     uint64_t end, uint32_t file, uint32_t lineno, uint32_t function)
{
	uint32_t id = line_id(t, module, file, lineno, function);

	if (id == UINT32_MAX ||
	    wr_grow((void **)&m->ranges, &m->cap_ranges, m->nranges + 1, sizeof(*m->ranges)))
		return -1;
	m->ranges[m->nranges].start = start;
	m->ranges[m->nranges].end = end;
	m->ranges[m->nranges].line = id;
	m->nranges++;
	return 0;
}

/*
 * Charge [start, end) of a row of file:lineno. open[0..nopen) are the
 * pieces containing start, outermost first.
 */
static int charge(struct causal_lines *t, uint32_t module, uint64_t start, uint64_t end,
		  uint32_t file, uint32_t lineno, struct code_piece **open, size_t nopen)
{
	struct causal_module *m = &t->mods[module];
	size_t k;

	if (in_scope(t, file))
		return add_range(t, m, module, start, end, file, lineno,
				 nopen ? open[nopen - 1]->name : UINT32_MAX);
	for (k = nopen; k-- > 0;) {
		const struct code_piece *p = open[k];

		if (!p->inlined)
			break;
		if (p->call_file != UINT32_MAX && p->call_line && in_scope(t, p->call_file))
			return add_range(t, m, module, start, end, p->call_file, p->call_line,
					 k ? open[k - 1]->name : UINT32_MAX);
	}
	return 0;
}

static int add_row(struct causal_module *m, uint64_t addr, uint32_t file, uint32_t line,
		   bool stmt)
{
	if (wr_grow((void **)&m->rows, &m->cap_rows, m->nrows + 1, sizeof(*m->rows)))
		return -1;
	m->rows[m->nrows].addr = addr;
	m->rows[m->nrows].file = file;
	m->rows[m->nrows].line = line;
	m->rows[m->nrows].stmt = stmt;
	m->nrows++;
	return 0;
}

static int do_unit(struct causal_lines *t, uint32_t module, Dwfl_Module *mod, Dwarf_Die *cu,
		   uint64_t bias)
{
	struct code_pieces ps = { 0 };
	struct code_piece **open = NULL;
	size_t nopen = 0, cap_open = 0, nlines, i, pi = 0;
	Dwarf_Lines *lines;
	int ret = -1;

	if (dwarf_getsrclines(cu, &lines, &nlines) != 0 || nlines == 0)
		return 0;	/* a unit without line info has nothing to charge */
	if (code_pieces_collect(&ps, &t->files, cu, bias, mod))
		goto out;
	for (i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i), *next;
		Dwarf_Addr a, b;
		bool endseq, stmt;
		const char *src;
		int lineno;
		uint32_t file;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &endseq) || endseq)
			continue;
		if (dwarf_lineno(l, &lineno) || lineno < 0 || !(src = dwarf_linesrc(l, NULL, NULL)) ||
		    dwarf_linebeginstatement(l, &stmt))
			continue;
		file = rc_intern(&t->files, src);
		if (file == UINT32_MAX ||
		    add_row(&t->mods[module], a + bias, file, (uint32_t)lineno, stmt))
			goto out;
		/* Line 0 is code of no line (clang's hoisted code): a row, not a range. */
		if (!lineno)
			continue;
		next = i + 1 < nlines ? dwarf_onesrcline(lines, i + 1) : NULL;
		if (!next || dwarf_lineaddr(next, &b) || b <= a)
			continue;
		a += bias;
		b += bias;
		/* Open the pieces that start by a; close those that ended. */
		while (pi < ps.n && ps.p[pi].start <= a) {
			while (nopen && open[nopen - 1]->end <= ps.p[pi].start)
				nopen--;
			if (wr_grow((void **)&open, &cap_open, nopen + 1, sizeof(*open)))
				goto out;
			open[nopen++] = &ps.p[pi++];
		}
		while (nopen && open[nopen - 1]->end <= a)
			nopen--;
		/*
		 * libdw sorts all rows of a unit by address, so the next row may
		 * belong to another sequence (an empty sequence's end sorts before
		 * its start): a row never reaches past its function's end, and a
		 * row in no function is not charged.
		 */
		if (!nopen)
			continue;
		if (b > open[0]->end)
			b = open[0]->end;
		if (charge(t, module, a, b, file, (uint32_t)lineno, open, nopen))
			goto out;
	}
	ret = 0;
out:
	code_pieces_free(&ps);
	free(open);
	return ret;
}

int causal_lines_add_module(struct causal_lines *t, const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX];
	struct causal_module *m;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	uint32_t module = (uint32_t)t->nmods;
	size_t units = 0;
	int ret = -1;

	if (!realpath(path, real)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	m = realloc(t->mods, (t->nmods + 1) * sizeof(*t->mods));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->mods = m;
	m = &t->mods[t->nmods++];
	memset(m, 0, sizeof(*m));
	m->path = strdup(real);
	dwfl = wr_dwfl_offline();
	if (!m->path || !dwfl) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "target", real, -1, 0, true);
	if (dwfl_report_end(dwfl, NULL, NULL) || !mod) {
		snprintf(err, errlen, "cannot read %s as an ELF file: %s", path, dwfl_errmsg(-1));
		goto out;
	}
	if (!dwfl_module_getdwarf(mod, &bias)) {
		snprintf(err, errlen, "%s has no debug information; rebuild it with -g (or install "
			 "its debug symbols) so that witch causal can map code to source lines", path);
		free(m->path);
		t->nmods--;
		ret = -2;
		goto out;
	}
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		units++;
		if (do_unit(t, module, mod, cu, bias)) {
			snprintf(err, errlen, "out of memory while reading the debug information of %s",
				 path);
			goto out;
		}
	}
	if (!units || !m->nrows) {
		snprintf(err, errlen, "%s has no line information in its debug information; rebuild "
			 "it with -g", path);
		goto out;
	}
	ret = 0;
out:
	if (dwfl)
		dwfl_end(dwfl);
	return ret;
}

static int cmp_range(const void *a, const void *b)
{
	const struct causal_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

int causal_lines_finish(struct causal_lines *t, char *err, size_t errlen)
{
	size_t i, j, k;

	for (i = 0; i < t->nmods; i++) {
		struct causal_module *m = &t->mods[i];

		if (m->nranges)
			qsort(m->ranges, m->nranges, sizeof(*m->ranges), cmp_range);
		/* Merge neighbours of one line; later claims on an address lose. */
		for (j = 0, k = 0; j < m->nranges; j++) {
			struct causal_range r = m->ranges[j];

			if (k && r.start < m->ranges[k - 1].end)
				r.start = m->ranges[k - 1].end;
			if (r.start >= r.end)
				continue;
			if (k && m->ranges[k - 1].line == r.line && m->ranges[k - 1].end == r.start)
				m->ranges[k - 1].end = r.end;
			else
				m->ranges[k++] = r;
		}
		m->nranges = k;
	}
	for (i = 0; i < t->nscope; i++)
		if (!t->scope_hits[i]) {
			snprintf(err, errlen, "--scope=%s matches no source file in the debug information "
				 "of %s; give a file name such as --scope=%s", t->scope[i],
				 t->nmods ? t->mods[0].path : "the program",
				 t->nmods && t->nlines ? t->files.strs[t->lines[0].file] : "app.c");
			return -1;
		}
	if (!t->nlines) {
		snprintf(err, errlen, "no source line of %s is in scope (only system headers and "
			 "libraries have code there); name files with --scope=FILE",
			 t->nmods ? t->mods[0].path : "the program");
		return -1;
	}
	return 0;
}

/* "FILE:LINE" into pattern and line; -1 with the reason. */
static int split_spec(const char *spec, char *file, size_t cap, uint32_t *line, char *err,
		      size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	unsigned long v;
	char *end;

	if (!colon || colon == spec || (size_t)(colon - spec) >= cap || colon[1] < '1' ||
	    colon[1] > '9') {
		snprintf(err, errlen, "'%s' is not FILE:LINE (such as app.c:42)", spec);
		return -1;
	}
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno || *end || v > UINT32_MAX) {
		snprintf(err, errlen, "'%s' is not FILE:LINE (such as app.c:42)", spec);
		return -1;
	}
	memcpy(file, spec, (size_t)(colon - spec));
	file[colon - spec] = '\0';
	*line = (uint32_t)v;
	return 0;
}

struct found {
	uint32_t file;		/* UINT32_MAX: no file matched */
	uint32_t file2;		/* a second, different matching file: ambiguous */
	uint32_t module;
	uint64_t addr;		/* lowest address of the line, when has_line */
	int has_line;
	uint32_t below, above;	/* nearest lines with code, 0: none */
};

/* The rows of files matching pattern, looking for line. */
static void find_rows(const struct causal_lines *t, const char *pattern, uint32_t line,
		      struct found *f)
{
	signed char *match = calloc(t->files.n ? t->files.n : 1, 1);	/* 0 ?, 1 no, 2 yes */
	size_t i, j;

	memset(f, 0, sizeof(*f));
	f->file = f->file2 = UINT32_MAX;
	for (i = 0; match && i < t->nmods; i++)
		for (j = 0; j < t->mods[i].nrows; j++) {
			const struct causal_row *r = &t->mods[i].rows[j];

			if (!match[r->file])
				match[r->file] = causal_path_matches(pattern, t->files.strs[r->file]) ? 2 : 1;
			if (match[r->file] != 2)
				continue;
			if (f->file == UINT32_MAX)
				f->file = r->file;
			/* Several files, but one has the line: not ambiguous. */
			if (r->line == line) {
				if (f->has_line && f->file != r->file) {
					f->file2 = r->file;
					continue;
				}
				if (!f->has_line || r->addr < f->addr) {
					f->file = r->file;
					f->module = (uint32_t)i;
					f->addr = r->addr;
				}
				f->has_line = 1;
			} else if (r->line < line && r->line > f->below) {
				f->below = r->line;
			} else if (r->line > line && (!f->above || r->line < f->above)) {
				f->above = r->line;
			}
		}
	free(match);
}

static int explain_missing(const struct causal_lines *t, const char *spec, const char *pattern,
			   const struct found *f, char *err, size_t errlen)
{
	if (f->file2 != UINT32_MAX)
		snprintf(err, errlen, "%s is ambiguous: both %s and %s match; give more of the path",
			 spec, t->files.strs[f->file], t->files.strs[f->file2]);
	else if (f->file == UINT32_MAX)
		snprintf(err, errlen, "no source file '%s' in the debug information of %s; name a "
			 "file of the program, such as %s", pattern,
			 t->nmods ? t->mods[0].path : "the program",
			 t->nlines ? t->files.strs[t->lines[0].file] : "app.c");
	else if (f->below && f->above)
		snprintf(err, errlen, "%s has no code; the nearest lines with code are %u and %u",
			 spec, f->below, f->above);
	else
		snprintf(err, errlen, "%s has no code; the nearest line with code is %u", spec,
			 f->below ? f->below : f->above);
	return -1;
}

/* The in-scope lines of file nearest to lineno, in function when known. */
static void find_near(const struct causal_lines *t, uint32_t file, uint32_t lineno,
		      uint32_t function, struct causal_point *pt)
{
	uint32_t taken = 0, k;
	size_t i;

	for (k = 0; k < CAUSAL_NEAR_MAX; k++) {
		uint32_t best = UINT32_MAX, dist = UINT32_MAX;

		for (i = 0; i < t->nlines; i++) {
			const struct causal_line *l = &t->lines[i];
			uint32_t d = l->lineno > lineno ? l->lineno - lineno : lineno - l->lineno;
			size_t j;

			if (l->file != file || !d || d > dist ||
			    (function != UINT32_MAX && l->function != function))
				continue;
			for (j = 0; j < taken && pt->near[j] != i; j++)
				;
			/* At one distance, the line above first. */
			if (j == taken && (best == UINT32_MAX || d < dist ||
					   l->lineno < t->lines[best].lineno)) {
				best = (uint32_t)i;
				dist = d;
			}
		}
		if (best == UINT32_MAX)
			break;
		pt->near[taken++] = best;
	}
	pt->nnear = taken;
}

static int add_bp(struct causal_lines *t, uint32_t module, uint64_t addr, uint32_t name,
		  uint32_t function)
{
	struct causal_bp *bp = realloc(t->bps, (t->nbps + 1) * sizeof(*bp));

	if (!bp)
		return -1;
	t->bps = bp;
	bp = &t->bps[t->nbps++];
	bp->module = module;
	bp->addr = addr;
	bp->name = name;
	bp->function = function;
	return 0;
}

void causal_lines_place_text(const struct causal_lines *t, const struct causal_bp *bp, char *buf,
			     size_t cap)
{
	if (bp->function != UINT32_MAX)
		snprintf(buf, cap, "0x%llx in %s()", (unsigned long long)bp->addr,
			 t->files.strs[bp->function]);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)bp->addr);
}

void causal_lines_places_text(const struct causal_lines *t, const struct causal_point *pt,
			      char *buf, size_t cap)
{
	char one[512];
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < pt->n && used < cap; i++) {
		causal_lines_place_text(t, &t->bps[pt->first + i], one, sizeof(one));
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", one);
	}
}

/* The places of file:line in every module, as the bps of point pt. */
static int add_places(struct causal_lines *t, const struct found *f, uint32_t line,
		      struct causal_point *pt, char *err, size_t errlen)
{
	struct progress_places pp;
	size_t i, j;

	for (i = 0; i < t->nmods; i++) {
		if (progress_places_find(&t->mods[i], &t->files, f->file, line, &pp, err, errlen))
			return -1;
		for (j = 0; j < pp.n; j++)
			if (add_bp(t, (uint32_t)i, pp.p[j].addr, pt->name, pp.p[j].function)) {
				progress_places_free(&pp);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		if (pp.again && !pt->again)
			pt->again = pp.again;
		progress_places_free(&pp);
	}
	/* Code in no function DWARF describes (assembly): its lowest address. */
	if (t->nbps == pt->first && add_bp(t, f->module, f->addr, pt->name, UINT32_MAX)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pt->n = t->nbps - pt->first;
	return 0;
}

int causal_lines_add_progress(struct causal_lines *t, const char *spec, char *err, size_t errlen)
{
	char pattern[PATH_MAX], name[PATH_MAX + 32], where[512], left[64];
	struct causal_point *pt;
	struct found f;
	uint32_t line;
	size_t before = t->nbps;

	if (split_spec(spec, pattern, sizeof(pattern), &line, err, errlen))
		return -1;
	find_rows(t, pattern, line, &f);
	if (!f.has_line || f.file2 != UINT32_MAX)
		return explain_missing(t, spec, pattern, &f, err, errlen);
	snprintf(name, sizeof(name), "%s:%u", t->files.strs[f.file], line);
	pt = realloc(t->points, (t->npoints + 1) * sizeof(*pt));
	if (!pt) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->points = pt;
	pt = &t->points[t->npoints];
	memset(pt, 0, sizeof(*pt));
	pt->first = t->nbps;
	pt->name = rc_intern(&t->files, name);
	if (pt->name == UINT32_MAX) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (add_places(t, &f, line, pt, err, errlen)) {
		t->nbps = before;
		return -1;
	}
	if (t->nbps > CAUSAL_MAX_PROGRESS_ADDRS) {
		causal_lines_places_text(t, pt, where, sizeof(where));
		snprintf(left, sizeof(left), "; the --progress lines before it leave %zu",
			 CAUSAL_MAX_PROGRESS_ADDRS - before);
		snprintf(err, errlen, "the visits of %s start at %zu places (%s), and a run counts "
			 "visits at %d at most (the debug registers)%s; mark the progress with "
			 "COZ_PROGRESS, or give a line of the function that calls it",
			 name, pt->n, where, CAUSAL_MAX_PROGRESS_ADDRS, before ? left : "");
		t->nbps = before;
		return -1;
	}
	find_near(t, f.file, line, t->bps[pt->first].function, pt);
	t->npoints++;
	return 0;
}

int causal_lines_find_line(const struct causal_lines *t, const char *spec, uint32_t *id, char *err,
		       size_t errlen)
{
	char pattern[PATH_MAX];
	struct found f;
	uint32_t line, other = UINT32_MAX;
	size_t i;

	if (split_spec(spec, pattern, sizeof(pattern), &line, err, errlen))
		return -1;
	*id = UINT32_MAX;
	for (i = 0; i < t->nlines; i++) {
		const struct causal_line *l = &t->lines[i];

		if (l->lineno != line || !causal_path_matches(pattern, t->files.strs[l->file]))
			continue;
		if (*id != UINT32_MAX && t->lines[*id].file != l->file)
			other = (uint32_t)i;
		else if (*id == UINT32_MAX)
			*id = (uint32_t)i;
	}
	if (other != UINT32_MAX) {
		snprintf(err, errlen, "%s is ambiguous: both %s and %s match; give more of the path",
			 spec, t->files.strs[t->lines[*id].file], t->files.strs[t->lines[other].file]);
		return -1;
	}
	if (*id != UINT32_MAX)
		return 0;
	find_rows(t, pattern, line, &f);
	if (f.has_line && f.file2 == UINT32_MAX) {
		snprintf(err, errlen, "%s has code, but outside the causal scope; add its file with "
			 "--scope=%s", spec, pattern);
		return -1;
	}
	return explain_missing(t, spec, pattern, &f, err, errlen);
}

/* Fields are tab-separated: no tab or newline may hide in a name. */
static void put_field(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

int causal_lines_write(const struct causal_lines *t, FILE *out)
{
	size_t i, j;

	fprintf(out, "witch-causal-lines\t1\n");
	for (i = 0; i < t->nmods; i++) {
		fprintf(out, "module\t%zu\t", i);
		put_field(out, t->mods[i].path);
		fputc('\n', out);
	}
	for (i = 0; i < t->nlines; i++) {
		const struct causal_line *l = &t->lines[i];

		fprintf(out, "line\t%zu\t", i);
		put_field(out, t->locs.strs[i]);
		fputc('\t', out);
		put_field(out, l->function != UINT32_MAX ? t->files.strs[l->function] : "?");
		fputc('\n', out);
	}
	for (i = 0; i < t->nmods; i++)
		for (j = 0; j < t->mods[i].nranges; j++) {
			const struct causal_range *r = &t->mods[i].ranges[j];

			fprintf(out, "range\t%zu\t%llx\t%llx\t%u\n", i, (unsigned long long)r->start,
				(unsigned long long)r->end, r->line);
		}
	for (i = 0; i < t->nbps; i++) {
		fprintf(out, "progress\t%u\t%llx\t", t->bps[i].module,
			(unsigned long long)t->bps[i].addr);
		put_field(out, t->files.strs[t->bps[i].name]);
		fputc('\n', out);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

size_t causal_lines_nranges(const struct causal_lines *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nmods; i++)
		n += t->mods[i].nranges;
	return n;
}

void causal_lines_free(struct causal_lines *t)
{
	size_t i;

	for (i = 0; i < t->nscope; i++)
		free(t->scope[i]);
	free(t->scope);
	free(t->scope_hits);
	for (i = 0; i < t->nmods; i++) {
		free(t->mods[i].path);
		free(t->mods[i].ranges);
		free(t->mods[i].rows);
	}
	free(t->mods);
	free(t->lines);
	free(t->bps);
	free(t->points);
	free(t->file_scope);
	rc_strtab_free(&t->files);
	rc_strtab_free(&t->locs);
	memset(t, 0, sizeof(*t));
}
