/*
 * symbolize.c - (module, offset) to functions and source lines with libdwfl.
 *
 * Each module gets a Dwfl of its own with the file reported at base 0, so
 * that libdwfl addresses are ELF virtual addresses, which is what the
 * profile's offsets are; the load bias of the profiled process plays no
 * part. Separate debug files (.gnu_debuglink, /usr/lib/debug/.build-id)
 * are found by dwfl_standard_find_debuginfo. Results are cached per
 * (module, address): hot contexts share most of their frames.
 *
 * Strings in frames point into libdw's data and live as long as the Dwfl,
 * that is, as long as the symbolizer.
 */
#include "report/debuginfo.h"
#include "report/grow.h"
#include "report/name_cache.h"
#include "report/symbolize.h"
#include "report/report.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUG_BUILD_ID_DIR "/usr/lib/debug/.build-id/"

/* A function symbol: [start, end) in the module. */
struct func_sym {
	uint64_t start, end;
	uint64_t section_end;	/* where a symbol without a size ends at most */
	const char *name;
	int rank;		/* of symbols at one address, the lowest names it */
};

struct sym_module {
	int state;		/* 0: not tried yet, 1: usable, -1: not */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct func_sym *funcs;	/* sorted by start; NULL until first needed */
	size_t nfuncs;
};

struct cache_entry {
	size_t start;		/* into pool */
	uint32_t n;
};

struct wr_symbolizer {
	const struct wr_report *r;
	FILE *warn;
	struct sym_module *mods;
	struct wr_map cache;	/* (module + 1, address) -> entry */
	struct cache_entry *entries;
	size_t nentries, cap_entries;
	struct wr_frame *pool;	/* frames of all cached addresses */
	size_t npool, cap_pool;
	struct wr_frame *out;	/* what wr_sym_context() returns */
	size_t cap_out;
	struct wr_name_cache names;	/* functions' names, made once each */
	struct wr_map paths;	/* (comp dir, file) -> index in joined */
	char **joined;		/* relative source paths joined to their comp dir */
	size_t njoined, cap_joined;
};

const char *wr_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

struct wr_symbolizer *wr_sym_new(const struct wr_report *r, FILE *warn)
{
	struct wr_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->r = r;
	s->warn = warn;
	s->mods = calloc(r->nmods ? r->nmods : 1, sizeof(*s->mods));
	if (!s->mods) {
		free(s);
		return NULL;
	}
	return s;
}

void wr_sym_free(struct wr_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->r->nmods; i++) {
		if (s->mods[i].dwfl)
			dwfl_end(s->mods[i].dwfl);
		free(s->mods[i].funcs);
	}
	free(s->mods);
	wr_map_free(&s->cache);
	wr_map_free(&s->paths);
	wr_name_cache_free(&s->names);
	while (s->njoined)
		free(s->joined[--s->njoined]);
	free(s->joined);
	free(s->entries);
	free(s->pool);
	free(s->out);
	free(s);
}

/* Messages name paths from the profile: keep them on one line. */
static void warn_line(struct wr_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn_line(struct wr_symbolizer *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	size_t i;

	if (!s->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	fprintf(s->warn, "witch report: warning: %s\n", buf);
}

/* The vdso and other objects with no file behind them: no warning. */
static int is_pseudo(const char *path)
{
	return !*path || path[0] == '[' || strstr(path, "linux-vdso") ||
	       strstr(path, "linux-gate");
}

/* The module's build-id as lower-case hex into buf; "" when it has none. */
static void module_build_id(Dwfl_Module *mod, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *bits;
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	int n, i;

	buf[0] = '\0';
	dwfl_module_getelf(mod, &bias);
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	for (i = 0; i < n && (size_t)(2 * i + 2) < cap; i++) {
		buf[2 * i] = hex[bits[i] >> 4];
		buf[2 * i + 1] = hex[bits[i] & 0xf];
		buf[2 * i + 2] = '\0';
	}
}

/*
 * When the profiled file is gone or was rebuilt, a debug file installed
 * under the recorded build-id still describes the profiled code.
 */
static int open_by_build_id(struct sym_module *sm, const char *build_id)
{
	char path[sizeof(DEBUG_BUILD_ID_DIR) + 140];

	if (!build_id || strlen(build_id) < 4 || strlen(build_id) > 128)
		return -1;
	snprintf(path, sizeof(path), DEBUG_BUILD_ID_DIR "%.2s/%s.debug",
		 build_id, build_id + 2);
	if (access(path, R_OK))
		return -1;
	sm->mod = wr_dwfl_open(&sm->dwfl, path);
	return sm->mod ? 0 : -1;
}

static void open_module(struct wr_symbolizer *s, int32_t idx)
{
	const struct wr_module *m = &s->r->mods[idx];
	struct sym_module *sm = &s->mods[idx];
	char id[260];

	sm->state = -1;
	if (is_pseudo(m->path))
		return;
	if (access(m->path, R_OK)) {
		const char *why = strerror(errno);

		if (!open_by_build_id(sm, m->build_id)) {
			sm->state = 1;
			return;
		}
		warn_line(s, "cannot read %s (%s); its frames are shown as "
			  "module+offset", m->path, why);
		return;
	}
	sm->mod = wr_dwfl_open(&sm->dwfl, m->path);
	if (!sm->mod) {
		warn_line(s, "cannot read %s as ELF (%s); its frames are shown "
			  "as module+offset", m->path, dwfl_errmsg(-1));
		return;
	}
	/* A profile without a build-id cannot tell; trust the file. */
	module_build_id(sm->mod, id, sizeof(id));
	if (m->build_id && strcmp(id, m->build_id)) {
		dwfl_end(sm->dwfl);
		sm->dwfl = NULL;
		sm->mod = NULL;
		if (!open_by_build_id(sm, m->build_id)) {
			sm->state = 1;
			return;
		}
		warn_line(s, "%s changed since it was profiled (build-id %s, "
			  "profile has %s); its frames are shown as "
			  "module+offset: re-run the witch command that wrote it", m->path,
			  *id ? id : "none", m->build_id);
		return;
	}
	sm->state = 1;
}

static struct wr_frame *new_frame(struct wr_symbolizer *s)
{
	struct wr_frame *f;

	if (wr_grow((void **)&s->pool, &s->cap_pool, s->npool + 1,
		 sizeof(*s->pool)))
		return NULL;
	f = &s->pool[s->npool++];
	memset(f, 0, sizeof(*f));
	return f;
}

/*
 * Where an inlined instance was called from: its call site. DW_AT_call_file
 * indexes the file table of the unit holding the DIE, which is not the
 * address's unit when debug info was compressed into partial units (dwz).
 */
static void call_site(Dwarf_Die *inl, Dwarf_Die *addr_cu, const char **file,
		      int *line)
{
	Dwarf_Files *files;
	Dwarf_Attribute attr;
	Dwarf_Die unit;
	Dwarf_Word v;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (!dwarf_diecu(inl, &unit, NULL, NULL) ||
	    dwarf_getsrcfiles(&unit, &files, &nfiles))
		if (dwarf_getsrcfiles(addr_cu, &files, &nfiles))
			files = NULL;
	if (files && dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr),
				     &v) == 0 && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &v) == 0 &&
	    v <= INT32_MAX)
		*line = (int)v;
}

static const struct func_sym *func_at(struct sym_module *sm, uint64_t offset);

/* The symbol holding the code at addr, for names.h to name a function
 * that DWARF gives no linkage name. */
struct code_at {
	struct sym_module *sm;
	uint64_t addr;
};

static const char *symbol_at(void *ctx)
{
	struct code_at *at = ctx;
	const struct func_sym *fs = func_at(at->sm, at->addr);

	return fs ? fs->name : NULL;
}

/*
 * Frames for the code at addr from the DWARF scopes: the innermost scope
 * containing addr, then its concrete parents (dwarf_getscopes alone would
 * continue with the abstract definition of an inlined function instead of
 * the function it was inlined into). Stops at the first real subprogram.
 */
static int dwarf_frames(struct wr_symbolizer *s, struct sym_module *sm,
			uint64_t addr, const char *file, int line)
{
	struct code_at at = { sm, addr };
	Dwfl_Module *mod = sm->mod;
	Dwarf_Die *scopes = NULL, inner, *cu;
	Dwarf_Addr bias;
	int n, i, ret = 0;

	cu = dwfl_module_addrdie(mod, addr, &bias);
	if (!cu)
		return 0;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0) {
		free(scopes);
		return 0;
	}
	inner = scopes[0];
	free(scopes);
	scopes = NULL;
	n = dwarf_getscopes_die(&inner, &scopes);
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		struct wr_frame *f;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		f = new_frame(s);
		if (!f) {
			ret = -1;
			break;
		}
		f->function = wr_name_die(&s->names, &scopes[i],
					  tag == DW_TAG_subprogram ? symbol_at : NULL, &at,
					  &f->linkage);
		f->file = file;
		f->line = line;
		if (tag == DW_TAG_subprogram)
			break;
		f->inlined = 1;
		call_site(&scopes[i], cu, &file, &line);
	}
	free(scopes);
	return ret;
}

/* Append the frames for addr to the pool. */
static int symbolize_addr(struct wr_symbolizer *s, struct sym_module *sm, uint64_t addr)
{
	size_t first = s->npool;
	const char *file = NULL, *sym;
	Dwfl_Module *mod = sm->mod;
	struct wr_frame *last;
	Dwfl_Line *dl;
	GElf_Off off;
	GElf_Sym esym;
	int line = 0;

	dl = dwfl_module_getsrc(mod, addr);
	if (dl)
		file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
	if (dwarf_frames(s, sm, addr, file, line))
		return -1;
	last = s->npool == first ? NULL : &s->pool[s->npool - 1];
	/* No DWARF function (stripped, or assembly): the ELF symbol table. */
	if (!last || !last->function) {
		sym = dwfl_module_addrinfo(mod, addr, &off, &esym, NULL, NULL,
					   NULL);
		if (!last) {
			last = new_frame(s);
			if (!last)
				return -1;
			last->file = file;
			last->line = line;
		}
		last->function = wr_name_symbol(&s->names, sym, &last->linkage);
	}
	return 0;
}

/* The cached frames for the code at addr of one context node's module. */
static int node_frames(struct wr_symbolizer *s, const struct wr_ctx *c,
		       uint64_t addr, struct cache_entry *e)
{
	struct sym_module *sm;
	uint32_t idx;

	if (wr_map_get(&s->cache, (uint64_t)(c->module + 1), addr, &idx)) {
		*e = s->entries[idx];
		return 0;
	}
	e->start = s->npool;
	if (c->module >= 0) {
		sm = &s->mods[c->module];
		if (sm->state == 0)
			open_module(s, c->module);
		if (sm->state > 0 && symbolize_addr(s, sm, addr))
			return -1;
	}
	if (s->npool == e->start && !new_frame(s))
		return -1;
	e->n = (uint32_t)(s->npool - e->start);
	if (wr_grow((void **)&s->entries, &s->cap_entries, s->nentries + 1,
		 sizeof(*s->entries)) ||
	    wr_map_put(&s->cache, (uint64_t)(c->module + 1), addr,
		       (uint32_t)s->nentries))
		return -1;
	s->entries[s->nentries++] = *e;
	return 0;
}

long wr_sym_context(struct wr_symbolizer *s, uint32_t ctx,
		    const struct wr_frame **frames)
{
	const struct wr_report *r = s->r;
	size_t n = 0;
	int leaf = 1;

	for (; ctx != WR_ROOT && ctx < r->nctxs; ctx = r->ctxs[ctx].parent) {
		const struct wr_ctx *c = &r->ctxs[ctx];
		/* A return address follows its call: offset - 1 is in the call. */
		uint64_t addr = leaf || c->offset == 0 ? c->offset : c->offset - 1;
		struct cache_entry e;
		uint32_t i;

		if (node_frames(s, c, addr, &e) ||
		    wr_grow((void **)&s->out, &s->cap_out, n + e.n,
			 sizeof(*s->out)))
			return -1;
		for (i = 0; i < e.n; i++) {
			struct wr_frame *f = &s->out[n++];

			*f = s->pool[e.start + i];
			f->first = i == 0;
			f->module = c->module;
			f->offset = c->offset;
			f->addr = addr;
		}
		leaf = 0;
	}
	*frames = s->out;
	return (long)n;
}

int wr_sym_module_ok(struct wr_symbolizer *s, int32_t module)
{
	if (module < 0 || (size_t)module >= s->r->nmods)
		return 0;
	if (s->mods[module].state == 0)
		open_module(s, module);
	return s->mods[module].state > 0;
}

int wr_sym_module_has_dwarf(struct wr_symbolizer *s, int32_t module)
{
	Dwarf_Addr bias;

	return wr_sym_module_ok(s, module) && dwfl_module_getdwarf(s->mods[module].mod, &bias);
}

/* A source file named relative to its compilation directory, as a path
 * from here (kept for the symbolizer's life); the name itself otherwise. */
static const char *source_path(struct wr_symbolizer *s, const char *dir, const char *file)
{
	uint32_t i;
	char *p;

	if (!file || file[0] == '/' || !dir || !*dir)
		return file;
	if (wr_map_get(&s->paths, (uint64_t)(uintptr_t)dir, (uint64_t)(uintptr_t)file, &i))
		return s->joined[i];
	if (wr_grow((void **)&s->joined, &s->cap_joined, s->njoined + 1, sizeof(*s->joined)) ||
	    asprintf(&p, "%s/%s", dir, file) < 0)
		return file;
	if (wr_map_put(&s->paths, (uint64_t)(uintptr_t)dir, (uint64_t)(uintptr_t)file,
		       (uint32_t)s->njoined)) {
		free(p);
		return file;
	}
	s->joined[s->njoined++] = p;
	return p;
}

static int by_start(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * The module's function symbols, sorted once: libdwfl's own lookup
 * searches the whole table each time, which over the instructions of a
 * large program (python3) took most of witch report's time. At one
 * address the global symbol names it, then a weak one, then a local one,
 * as libdwfl prefers. A symbol without a size (an assembly label) runs
 * to the next one, within its section.
 */
static void load_funcs(struct sym_module *sm)
{
	int n = dwfl_module_getsymtab(sm->mod), i;
	size_t k, m = 0;

	sm->funcs = calloc(n > 0 ? (size_t)n : 1, sizeof(*sm->funcs));
	if (!sm->funcs)
		return;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		GElf_Shdr sh;
		Elf *elf = NULL;
		const char *name = dwfl_module_getsym_info(sm->mod, i, &sym, &addr, &shndx, &elf, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		Elf_Scn *scn;

		if (!name || !*name || shndx == SHN_UNDEF || shndx == (GElf_Word)-1 ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    !elf || !(scn = elf_getscn(elf, shndx)) || !gelf_getshdr(scn, &sh) ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		sm->funcs[m].start = addr;
		sm->funcs[m].end = addr + sym.st_size;
		sm->funcs[m].section_end = addr - sym.st_value + sh.sh_addr + sh.sh_size;
		sm->funcs[m].name = name;
		sm->funcs[m].rank = GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0
				    : GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2;
		m++;
	}
	qsort(sm->funcs, m, sizeof(*sm->funcs), by_start);
	/* One per address, and sizes for those without. */
	for (k = 0, sm->nfuncs = 0; k < m; k++) {
		if (sm->nfuncs && sm->funcs[sm->nfuncs - 1].start == sm->funcs[k].start)
			continue;
		sm->funcs[sm->nfuncs++] = sm->funcs[k];
	}
	for (k = 0; k < sm->nfuncs; k++) {
		struct func_sym *f = &sm->funcs[k];

		if (f->end > f->start)
			continue;
		f->end = f->section_end;
		if (k + 1 < sm->nfuncs && sm->funcs[k + 1].start < f->end)
			f->end = sm->funcs[k + 1].start;
	}
}

/* The function symbol holding offset, or NULL. */
static const struct func_sym *func_at(struct sym_module *sm, uint64_t offset)
{
	size_t lo = 0, hi;

	if (!sm->funcs)
		load_funcs(sm);
	hi = sm->funcs ? sm->nfuncs : 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sm->funcs[mid].start <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && offset < sm->funcs[lo - 1].end ? &sm->funcs[lo - 1] : NULL;
}

/* The [start, end) of the call frame row holding pc, 0 when none. */
static int cfi_row(Dwarf_CFI *cfi, Dwarf_Addr pc, Dwarf_Addr *start, Dwarf_Addr *end)
{
	Dwarf_Frame *frame;
	int ok;

	if (dwarf_cfi_addrframe(cfi, pc, &frame))
		return 0;
	ok = dwarf_frame_info(frame, start, end, NULL) >= 0 && *start <= pc && pc < *end;
	free(frame);
	return ok;
}

/*
 * No symbol: the call frame information, which stripped objects keep
 * (unwinding needs it), bounds the function. Its rows (one per change of
 * the frame's rules: each push) tile an entry's range, and libdw gives
 * rows, not entries: the rows that touch are joined. Two functions with
 * no padding between them join too; a function is then two, which costs
 * nothing but a wider graph.
 */
static void cfi_range(Dwfl_Module *mod, uint64_t offset, struct wr_addr_info *info)
{
	Dwarf_Addr bias, start, end, s, e;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);

	if (!cfi || !cfi_row(cfi, offset - bias, &start, &end)) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || !cfi_row(cfi, offset - bias, &start, &end))
			return;
	}
	while (cfi_row(cfi, end, &s, &e) && s == end)
		end = e;
	while (start && cfi_row(cfi, start - 1, &s, &e) && e == start)
		start = s;
	info->start = start + bias;
	info->end = end + bias;
}

void wr_sym_addr(struct wr_symbolizer *s, int32_t module, uint64_t offset, int with_symbol,
		 struct wr_addr_info *info)
{
	const struct func_sym *f;
	Dwfl_Module *mod;
	Dwfl_Line *dl;

	memset(info, 0, sizeof(*info));
	if (!wr_sym_module_ok(s, module))
		return;
	mod = s->mods[module].mod;
	if (with_symbol && (f = func_at(&s->mods[module], offset))) {
		info->function = wr_name_symbol(&s->names, f->name, &info->linkage);
		info->start = f->start;
		info->end = f->end;
	} else if (with_symbol) {
		cfi_range(mod, offset, info);
	}
	dl = dwfl_module_getsrc(mod, offset);
	if (dl)
		info->file = source_path(s, dwfl_line_comp_dir(dl),
					 dwfl_lineinfo(dl, NULL, &info->line, NULL, NULL, NULL));
}

int wr_sym_data(struct wr_symbolizer *s, int32_t module, uint64_t offset, const char **name,
		uint64_t *start)
{
	const char *sym, *linkage;
	GElf_Off off;
	GElf_Sym esym;
	int type;

	if (!wr_sym_module_ok(s, module))
		return 0;
	sym = dwfl_module_addrinfo(s->mods[module].mod, offset, &off, &esym, NULL, NULL, NULL);
	type = sym ? GELF_ST_TYPE(esym.st_info) : STT_NOTYPE;
	if (!sym || !*sym || (type != STT_OBJECT && type != STT_COMMON) || off >= esym.st_size)
		return 0;
	*name = wr_name_symbol(&s->names, sym, &linkage);
	*start = offset - off;
	return 1;
}

const char *wr_sym_frame_path(struct wr_symbolizer *s, const struct wr_frame *f)
{
	Dwarf_Attribute attr;
	Dwarf_Addr bias;
	Dwarf_Die *cu;

	if (!f->file || f->file[0] == '/' || !wr_sym_module_ok(s, f->module))
		return f->file;
	/* A caller's frame is at a return address: offset - 1 is its call. */
	cu = dwfl_module_addrdie(s->mods[f->module].mod, f->offset, &bias);
	if (!cu && f->offset)
		cu = dwfl_module_addrdie(s->mods[f->module].mod, f->offset - 1, &bias);
	return cu ? source_path(s, dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)), f->file)
		  : f->file;
}

int wr_sym_ranked(struct wr_symbolizer *s, size_t top)
{
	const struct wr_report *r = s->r;
	const struct wr_frame *f;
	size_t i;

	for (i = 0; i < r->nranked && (!top || i < top); i++) {
		const struct wr_pair *pr = &r->pairs[r->ranked[i]];

		if (wr_sym_context(s, pr->watch, &f) < 0 ||
		    wr_sym_context(s, pr->trap, &f) < 0)
			return -1;
	}
	return 0;
}
