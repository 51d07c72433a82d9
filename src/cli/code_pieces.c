/*
 * code_pieces.c - a compilation unit's subprogram and inlined-subroutine
 * DIEs, flattened into address pieces with their nesting depth.
 */
#include "cli/code_pieces.h"
#include "report/grow.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	/* Follows DW_AT_abstract_origin and DW_AT_specification. */
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

static uint32_t intern_or_none(struct rc_strtab *tab, const char *s)
{
	return s ? rc_intern(tab, s) : UINT32_MAX;
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
	pc.name = intern_or_none(names, die_name(die));
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
		if (wr_grow((void **)&ps->p, &ps->cap, ps->n + 1, sizeof(*ps->p)))
			return -1;
		pc.start = start + bias;
		pc.end = end + bias;
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
			uint64_t bias)
{
	Dwarf_Files *files;
	size_t nfiles = 0;

	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	if (collect(ps, names, cu, 0, files, nfiles, bias))
		return -1;
	if (ps->n)
		qsort(ps->p, ps->n, sizeof(*ps->p), cmp_piece);
	return 0;
}

void code_pieces_free(struct code_pieces *ps)
{
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}
