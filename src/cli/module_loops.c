/*
 * module_loops.c - the loop map of one ELF file (module_loops.h).
 *
 * Functions are the file's FUNC symbols (.symtab, else .dynsym, or those
 * of its separate debug file) and, where no symbol is, the ranges of its
 * call frame entries, which stripped files keep (unwinding needs them),
 * found through .eh_frame_hdr's table, except in the PLT. Each is decoded alone by code_flow.c: its natural loops, one
 * per header, the loops sharing a header merged. A symbol starting inside
 * another function's bytes (an alias with another size) is not a
 * function of its own. Loops nest when one holds the
 * other's header: natural loops with different headers are nested or
 * apart.
 *
 * A loop's source lines are those of its header's file, as witch cpi's
 * analysis gives them (report/cpi_loops.c): the report shows both alike.
 */
#include "cli/module_loops.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/code_flow.h"
#include "core/escape.h"
#include "report/debuginfo.h"

struct segment {
	uint64_t vaddr;
	const uint8_t *bytes;
	size_t len;
	int exec;
};

struct func {
	uint64_t lo, hi;
};

/*
 * Where a loop's lines come from: a Dwfl of their own. libdw keeps each
 * unit's line table it has read until the Dwfl ends: glibc's, with its
 * detached debug file (libc6-dbg), grew to 12.6 MB on top of the 10 MB
 * of its inflated sections, and that peak was the loop tool's own on a
 * small program (docs/results.md). Functions come in address order, so
 * the writer ends this Dwfl and opens it anew between two functions, at
 * each LINE_OPENS-th of them: a unit is read again only where its code
 * lies apart (cold parts). No more often: each open inflates compressed
 * sections again, which for a large program costs more than its tables.
 */
#define LINE_OPENS 4

struct lines {
	const char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;	/* NULL: the module has no DWARF */
};

struct writer {
	FILE *f;
	Dwfl_Module *mod;
	struct lines lines;
	const struct flow *fl;
	uint32_t *parent;	/* by loop of fl: the loop holding it, FLOW_NONE at top */
	uint32_t *depth;
	uint32_t *id;		/* by loop: its id in the map */
	char *in;		/* by block: in the loop being written */
	long next;
};

/* An escaped string field; NULL and "" are "-", unknown. */
static void put_string(FILE *f, const char *s)
{
	size_t n;
	char *e;

	if (!s || !*s) {
		fputs("-", f);
		return;
	}
	n = core_escape_len(s) + 1;
	e = malloc(n);
	if (!e) {
		fputs("-", f);	/* a file name only labels the loop */
		return;
	}
	core_escape(e, n, s);
	fputs(e, f);
	free(e);
}

/* The loaded segments' bytes, as the file holds them. */
static int segments(Elf *elf, struct segment **out, size_t *n)
{
	size_t i, nph;
	GElf_Phdr ph;

	*out = NULL;
	*n = 0;
	if (elf_getphdrnum(elf, &nph))
		return -1;
	*out = calloc(nph ? nph : 1, sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < nph; i++) {
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!d)
			continue;
		(*out)[*n].exec = !!(ph.p_flags & PF_X);
		(*out)[*n].vaddr = ph.p_vaddr;
		(*out)[*n].bytes = d->d_buf;
		(*out)[(*n)++].len = d->d_size;
	}
	return 0;
}

/* The segment holding [lo, hi), or NULL. */
static const struct segment *segment_of(const struct segment *s, size_t n, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lo >= s[i].vaddr && lo <= hi && hi - s[i].vaddr <= s[i].len)
			return &s[i];
	return NULL;
}

static int by_lo(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi < y->hi) - (x->hi > y->hi);	/* the largest first */
}

static int add_func(struct func **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct func *x = realloc(*v, c * sizeof(*x));

		if (!x)
			return -1;
		*v = x;
		*cap = c;
	}
	(*v)[*n].lo = lo;
	(*v)[(*n)++].hi = hi;
	return 0;
}

static int32_t s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The [lo, hi) of sections whose names start with prefix. */
static int sections(Elf *elf, const char *prefix, struct func **v, size_t *n, size_t *cap)
{
	Elf_Scn *scn = NULL;
	size_t strndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &strndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, strndx, sh.sh_name)) ||
		    strncmp(name, prefix, strlen(prefix)))
			continue;
		if (add_func(v, n, cap, sh.sh_addr, sh.sh_addr + sh.sh_size))
			return -1;
	}
	return 0;
}

static int overlaps(const struct func *v, size_t n, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].lo < hi && lo < v[i].hi)
			return 1;
	return 0;
}

/*
 * The call frame entries' ranges, but the PLT's (a stub per entry, whose
 * jumps back to its first would look like loops). .eh_frame_hdr lists
 * each entry's start and where the entry is, as pairs of 4-byte offsets
 * from the header (the form linkers write); an entry whose start is
 * 4-byte relative to itself, as the table says, has its range in the 4
 * bytes after. Other forms give none.
 */
static int frame_funcs(Elf *elf, const struct segment *segs, size_t nsegs, struct func **v,
		       size_t *n, size_t *cap)
{
	struct func *plt = NULL;
	const uint8_t *h = NULL;
	size_t i, nph, len = 0, count, nplt = 0, cap_plt = 0;
	uint64_t hdr = 0;
	GElf_Phdr ph;
	int ret = -1;

	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph && !h; i++) {
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME ||
		    !(d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE)))
			continue;
		h = d->d_buf;
		len = d->d_size;
		hdr = ph.p_vaddr;
	}
	/* Version 1; the section pointer as pcrel sdata4; the count as
	 * udata4; the table as datarel sdata4. */
	if (!h || len < 12 || h[0] != 1 || h[1] != 0x1b || h[2] != 0x03 || h[3] != 0x3b)
		return 0;
	count = (uint32_t)s32(h + 8);
	if (count > (len - 12) / 8 || sections(elf, ".plt", &plt, &nplt, &cap_plt))
		goto out;
	for (i = 0; i < count; i++) {
		uint64_t lo = hdr + (uint64_t)(int64_t)s32(h + 12 + 8 * i);
		uint64_t fde = hdr + (uint64_t)(int64_t)s32(h + 16 + 8 * i);
		const struct segment *s = segment_of(segs, nsegs, fde, fde + 16);
		const uint8_t *e;
		uint64_t range;

		if (!s)
			continue;
		e = s->bytes + (fde - s->vaddr);
		range = (uint32_t)s32(e + 12);
		if (fde + 8 + (uint64_t)(int64_t)s32(e + 8) != lo || !range || overlaps(plt, nplt, lo, lo + range))
			continue;
		if (add_func(v, n, cap, lo, lo + range))
			goto out;
	}
	ret = 0;
out:
	free(plt);
	return ret;
}

/* The functions, by address, none inside another: the symbols', then the
 * call frame entries' where no symbol is. */
static int functions(Dwfl_Module *mod, Elf *elf, const struct segment *segs, size_t nsegs,
		     struct func **out, size_t *n)
{
	int nsym = dwfl_module_getsymtab(mod), i;
	size_t k = 0, j, cap = 0, nsyms;
	struct func *v = NULL;

	*out = NULL;
	*n = 0;
	for (i = 1; i < nsym; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		int type;

		if (!dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		if (add_func(&v, &k, &cap, addr, addr + sym.st_size))
			goto fail;
	}
	if (k)
		qsort(v, k, sizeof(*v), by_lo);
	for (i = 0, j = 0; (size_t)i < k; i++)
		if (!j || v[i].lo >= v[j - 1].hi)
			v[j++] = v[i];
	nsyms = k = j;
	if (frame_funcs(elf, segs, nsegs, &v, &k, &cap))
		goto fail;
	/* An entry overlapping a symbol's function is that function's. */
	for (i = (int)nsyms, j = nsyms; (size_t)i < k; i++) {
		size_t lo = 0, hi = nsyms;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (v[mid].hi <= v[i].lo)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == nsyms || v[lo].lo >= v[i].hi)
			v[j++] = v[i];
	}
	k = j;
	if (k)
		qsort(v, k, sizeof(*v), by_lo);
	*out = v;
	*n = k;
	return 0;
fail:
	free(v);
	return -1;
}

/* Nesting: each loop's innermost other loop holding its header. */
static void nest(struct writer *w)
{
	const struct flow *fl = w->fl;
	size_t i, j;

	for (i = 0; i < fl->nloops; i++) {
		w->parent[i] = FLOW_NONE;
		for (j = 0; j < fl->nloops; j++)
			if (j != i && flow_loop_holds(&fl->loops[j], fl->loops[i].header) &&
			    fl->loops[j].nblocks > fl->loops[i].nblocks &&
			    (w->parent[i] == FLOW_NONE ||
			     fl->loops[j].nblocks < fl->loops[w->parent[i]].nblocks))
				w->parent[i] = (uint32_t)j;
	}
	for (i = 0; i < fl->nloops; i++) {
		uint32_t p;

		w->depth[i] = 0;
		for (p = w->parent[i]; p != FLOW_NONE; p = w->parent[p])
			w->depth[i]++;
	}
}

/* The first instruction at or after addr. */
static size_t insn_from(const struct flow *fl, uint64_t addr)
{
	size_t lo = 0, hi = fl->ninsn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fl->insn[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Lines from a Dwfl of path's own; none where it has no DWARF. */
static void lines_open(struct lines *ls, const char *path)
{
	GElf_Addr bias;

	ls->path = path;
	ls->mod = wr_dwfl_open(&ls->dwfl, path);
	if (ls->mod && !dwfl_module_getdwarf(ls->mod, &bias))
		ls->mod = NULL;
}

static void lines_close(struct lines *ls)
{
	if (ls->dwfl)
		dwfl_end(ls->dwfl);
	ls->dwfl = NULL;
	ls->mod = NULL;
}

/* Before function i of n: the tables read so far go, at each share;
 * -1 when the lines cannot be read again (memory). */
static int lines_renew(struct lines *ls, size_t i, size_t n)
{
	if (!ls->mod || !i || i % (n / LINE_OPENS + 1))
		return 0;
	lines_close(ls);
	lines_open(ls, ls->path);
	return ls->mod ? 0 : -1;
}

/* The file and line of addr, and the directory a relative file is in. */
static const char *line_of(const struct writer *w, uint64_t addr, int *line, const char **dir)
{
	Dwfl_Line *l = w->lines.mod ? dwfl_module_getsrc(w->lines.mod, addr) : NULL;

	*line = 0;
	if (dir)
		*dir = l ? dwfl_line_comp_dir(l) : NULL;
	return l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
}

/* The loop's header file (relative ones in *dir), and its lines there. */
static const char *loop_lines(const struct writer *w, const struct flow_loop *l, const char **dir,
			      int *first, int *last)
{
	const struct flow *fl = w->fl;
	const char *file = NULL, *f;
	size_t b, i;
	int line;

	*first = *last = 0;
	if (!w->lines.mod)
		return NULL;
	file = line_of(w, fl->b[l->header].start, &line, dir);
	for (b = 0; b < l->nblocks && !file; b++)
		file = line_of(w, fl->b[l->blocks[b]].start, &line, dir);
	if (!file)
		return NULL;
	for (b = 0; b < l->nblocks; b++) {
		const struct flow_block *bl = &fl->b[l->blocks[b]];

		for (i = insn_from(fl, bl->start); i < fl->ninsn && fl->insn[i] < bl->end; i++) {
			f = line_of(w, fl->insn[i], &line, NULL);
			if (!f || !line || strcmp(f, file))
				continue;
			if (!*first || line < *first)
				*first = line;
			if (line > *last)
				*last = line;
		}
	}
	return file;
}

static void put_loop(struct writer *w, uint32_t k)
{
	const struct flow *fl = w->fl;
	const struct flow_loop *l = &fl->loops[k];
	const char *file, *dir = NULL;
	char *joined = NULL;
	int first, last;
	size_t b, s;

	w->id[k] = (uint32_t)w->next++;
	file = loop_lines(w, l, &dir, &first, &last);
	/* As the report names files: a relative one in its unit's directory. */
	if (file && file[0] != '/' && dir && *dir && asprintf(&joined, "%s/%s", dir, file) > 0)
		file = joined;
	fprintf(w->f, "loop %" PRIu32 " %" PRIx64 " %ld %" PRIu32 " %d %d ", w->id[k],
		fl->b[l->header].start,
		w->parent[k] == FLOW_NONE ? -1L : (long)w->id[w->parent[k]], w->depth[k], first, last);
	put_string(w->f, file);
	free(joined);
	fputc('\n', w->f);
	for (b = 0; b < l->nblocks; b++) {
		fprintf(w->f, "b %" PRIx64 " %" PRIx64 "\n", fl->b[l->blocks[b]].start,
			fl->b[l->blocks[b]].end);
		w->in[l->blocks[b]] = 1;
	}
	/* Where control leaves it: the tool ends an invocation there, and
	 * needs no look at any other block. */
	for (b = 0; b < l->nblocks; b++) {
		const struct flow_block *bl = &fl->b[l->blocks[b]];

		for (s = 0; s < bl->nsucc; s++) {
			uint32_t to = fl->succ[bl->first_succ + s];

			if (!w->in[to])
				fprintf(w->f, "e %" PRIx64 "\n", fl->b[to].start);
		}
	}
	for (b = 0; b < l->nblocks; b++)
		w->in[l->blocks[b]] = 0;
}

/* The loops held by parent, in preorder. */
static void put_nest(struct writer *w, uint32_t parent)
{
	size_t i;

	for (i = 0; i < w->fl->nloops; i++)
		if (w->parent[i] == parent) {
			put_loop(w, (uint32_t)i);
			put_nest(w, (uint32_t)i);
		}
}

/* One function's loops, if it has any. */
static int put_function(struct writer *w, const struct segment *s, const struct func *fn)
{
	struct flow_code code = { fn->lo, s->bytes + (fn->lo - s->vaddr), fn->hi - fn->lo };
	struct flow fl;
	int ret = -1;

	if (flow_build(&fl, &code, 1, fn->lo, NULL, 0))
		return -1;
	w->fl = &fl;
	w->parent = malloc((fl.nloops + 1) * sizeof(*w->parent));
	w->depth = malloc((fl.nloops + 1) * sizeof(*w->depth));
	w->id = malloc((fl.nloops + 1) * sizeof(*w->id));
	w->in = calloc(fl.nb + 1, 1);
	if (w->parent && w->depth && w->id && w->in) {
		if (fl.nloops) {
			nest(w);
			fprintf(w->f, "f %" PRIx64 " %" PRIx64 "\n", fn->lo, fn->hi);
			put_nest(w, FLOW_NONE);
		}
		ret = 0;
	}
	free(w->parent);
	free(w->depth);
	free(w->id);
	free(w->in);
	flow_free(&fl);
	return ret;
}

long module_loops_write(FILE *f, const char *path, char *err, size_t errlen)
{
	struct writer w = { .f = f };
	struct segment *segs = NULL;
	struct func *fns = NULL;
	size_t nsegs = 0, nfns = 0, i;
	Dwfl *dwfl;
	GElf_Addr bias;
	Elf *elf;
	long ret = -1;

	w.mod = wr_dwfl_open(&dwfl, path);
	if (!w.mod || !(elf = dwfl_module_getelf(w.mod, &bias))) {
		snprintf(err, errlen, "cannot read %s as an ELF file: %s", path, dwfl_errmsg(-1));
		goto out;
	}
	lines_open(&w.lines, path);
	if (segments(elf, &segs, &nsegs) || functions(w.mod, elf, segs, nsegs, &fns, &nfns)) {
		snprintf(err, errlen, "out of memory, or %s has unreadable program headers", path);
		goto out;
	}
	fputs("witch-loops 1\nmodule ", f);
	put_string(f, path);
	fputc('\n', f);
	for (i = 0; i < nfns; i++) {
		const struct segment *s = segment_of(segs, nsegs, fns[i].lo, fns[i].hi);

		if (lines_renew(&w.lines, i, nfns)) {
			snprintf(err, errlen, "cannot read the debug information of %s again: %s", path,
				 dwfl_errmsg(-1));
			goto out;
		}
		if (s && s->exec && put_function(&w, s, &fns[i])) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	fputs("end\n", f);
	if (ferror(f)) {
		snprintf(err, errlen, "cannot write the loop map");
		goto out;
	}
	ret = w.next;
out:
	free(segs);
	free(fns);
	lines_close(&w.lines);
	if (dwfl)
		dwfl_end(dwfl);
	return ret;
}
