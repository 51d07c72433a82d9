/*
 * code_pieces.c - a compilation unit's subprogram and inlined-subroutine
 * DIEs, flattened into address pieces with their nesting depth.
 */
#include "cli/code_pieces.h"
#include "report/grow.h"
#include "report/names.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

static uint32_t intern_or_none(struct rc_strtab *tab, const char *s)
{
	return s ? rc_intern(tab, s) : UINT32_MAX;
}

/* The symbol holding a function's first code, for names.h to name one
 * that DWARF gives no linkage name. */
struct code_at {
	Dwfl_Module *mod;
	uint64_t addr;
};

static const char *symbol_at(void *ctx)
{
	struct code_at *at = ctx;

	return at->mod ? dwfl_module_addrname(at->mod, at->addr) : NULL;
}

/*
 * The function's name as the report shows it (names.h), interned; once
 * per function of the unit: its inlined copies share it, and naming one
 * that DWARF gives no linkage name may walk the unit or the symbols.
 */
static int function_name(struct code_pieces *ps, struct rc_strtab *tab, Dwarf_Die *die,
			 const struct code_piece *pc, uint32_t *id)
{
	struct code_at at = { ps->mod, pc->start };
	const char *linkage;
	char *name;

	if (wr_map_get(&ps->named, pc->origin, (uint64_t)pc->inlined, id))
		return 0;
	name = wr_die_function(die, pc->inlined ? NULL : symbol_at, &at, &ps->parents, &linkage);
	*id = intern_or_none(tab, name);
	free(name);
	return wr_map_put(&ps->named, pc->origin, (uint64_t)pc->inlined, *id);
}

static int add_pieces(struct code_pieces *ps, struct rc_strtab *names, Dwarf_Die *die, int depth,
		      Dwarf_Files *files, size_t nfiles, uint64_t bias)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	Dwarf_Word v;
	ptrdiff_t off = 0;
	struct code_piece pc;

	memset(&pc, 0, sizeof(pc));
	pc.die = dwarf_dieoffset(die);
	pc.origin = dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attr), &origin)
			    ? dwarf_dieoffset(&origin)
			    : pc.die;
	pc.depth = depth;
	pc.inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine;
	pc.name = UINT32_MAX;
	pc.call_file = UINT32_MAX;
	if (pc.inlined) {
		if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v) == 0 &&
		    v < nfiles)
			pc.call_file = intern_or_none(names, dwarf_filesrc(files, v, NULL, NULL));
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v) == 0 &&
		    v <= UINT32_MAX)
			pc.call_line = (uint32_t)v;
	}
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		pc.start = start + bias;
		pc.end = end + bias;
		/* Named only when it has code: most DIEs are declarations. */
		if (!pc.nth && function_name(ps, names, die, &pc, &pc.name))
			return -1;
		if (wr_grow((void **)&ps->p, &ps->cap, ps->n + 1, sizeof(*ps->p)))
			return -1;
		ps->p[ps->n++] = pc;
		pc.nth++;
	}
	return 0;
}

/* Subprograms and inlined subroutines under die, at any depth. */
static int collect(struct code_pieces *ps, struct rc_strtab *names, Dwarf_Die *die, int depth,
		   Dwarf_Files *files, size_t nfiles, uint64_t bias)
{
	Dwarf_Die child;
	int tag, sub;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		tag = dwarf_tag(&child);
		sub = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
		if (sub && add_pieces(ps, names, &child, depth, files, nfiles, bias))
			return -1;
		/* Only DIEs that can hold code are worth descending into. */
		if ((sub || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
		     tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
		     tag == DW_TAG_union_type || tag == DW_TAG_try_block ||
		     tag == DW_TAG_catch_block || tag == DW_TAG_module) &&
		    collect(ps, names, &child, depth + sub, files, nfiles, bias))
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct code_piece *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

int code_pieces_collect(struct code_pieces *ps, struct rc_strtab *names, Dwarf_Die *cu,
			uint64_t bias, Dwfl_Module *mod)
{
	Dwarf_Files *files;
	size_t nfiles = 0;

	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	ps->mod = mod;
	if (collect(ps, names, cu, 0, files, nfiles, bias))
		return -1;
	if (ps->n)
		qsort(ps->p, ps->n, sizeof(*ps->p), cmp_piece);
	return 0;
}

void code_pieces_free(struct code_pieces *ps)
{
	free(ps->p);
	wr_map_free(&ps->named);
	wr_die_parents_free(&ps->parents);
	memset(ps, 0, sizeof(*ps));
}
