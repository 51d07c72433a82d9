/*
 * die_parents.c - DIEs' parents, one walk per unit (die_parents.h).
 */
#include "report/die_parents.h"
#include "report/grow.h"

#include <dwarf.h>
#include <stdlib.h>

static int is_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block;
}

/* Record the parent of every scope under die (the unit's children have
 * none recorded: their parent is the unit). */
static int index_children(struct wr_die_parents *p, Dwarf *dbg, Dwarf_Die *die, int top)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		if (!is_scope(dwarf_tag(&child)))
			continue;
		if (!top) {
			if (wr_grow((void **)&p->offs, &p->cap, p->n + 1, sizeof(*p->offs)) ||
			    wr_map_put(&p->parent, (uint64_t)(uintptr_t)dbg, dwarf_dieoffset(&child),
				       (uint32_t)p->n))
				return -1;
			p->offs[p->n++] = dwarf_dieoffset(die);
		}
		if (index_children(p, dbg, &child, 0))
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int wr_die_scopes(struct wr_die_parents *p, Dwarf_Die *die, Dwarf_Die **scopes)
{
	Dwarf *dbg = dwarf_cu_getdwarf(die->cu);
	Dwarf_Die unit, cur = *die, *out = NULL;
	size_t n = 0, cap = 0;
	uint32_t i;

	*scopes = NULL;
	if (!dbg || !dwarf_diecu(die, &unit, NULL, NULL))
		return -1;
	if (!wr_map_get(&p->walked, (uint64_t)(uintptr_t)dbg, dwarf_dieoffset(&unit), &i) &&
	    (index_children(p, dbg, &unit, 1) ||
	     wr_map_put(&p->walked, (uint64_t)(uintptr_t)dbg, dwarf_dieoffset(&unit), 0)))
		return -1;
	for (;;) {
		if (wr_grow((void **)&out, &cap, n + 1, sizeof(*out))) {
			free(out);
			return -1;
		}
		out[n++] = cur;
		if (!wr_map_get(&p->parent, (uint64_t)(uintptr_t)dbg, dwarf_dieoffset(&cur), &i) ||
		    !dwarf_offdie(dbg, p->offs[i], &cur))
			break;
	}
	if (wr_grow((void **)&out, &cap, n + 1, sizeof(*out))) {
		free(out);
		return -1;
	}
	out[n++] = unit;
	*scopes = out;
	return (int)n;
}

void wr_die_parents_free(struct wr_die_parents *p)
{
	wr_map_free(&p->parent);
	wr_map_free(&p->walked);
	free(p->offs);
	p->offs = NULL;
	p->n = p->cap = 0;
}
