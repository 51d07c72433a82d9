/*
 * die_parents.h - the namespaces, classes and functions around a DIE,
 * from one walk of its unit: dwarf_getscopes_die walks the unit anew for
 * each DIE, and naming 1500 inlined lambdas of one 60000-DIE unit took
 * witch causal 3.9 s that way.
 */
#ifndef WITCH_REPORT_DIE_PARENTS_H
#define WITCH_REPORT_DIE_PARENTS_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "report/map.h"

struct wr_die_parents {
	struct wr_map parent;	/* (Dwarf, DIE offset) -> index into offs: its parent's offset */
	struct wr_map walked;	/* (Dwarf, unit DIE offset): units indexed */
	uint64_t *offs;
	size_t n, cap;
};

/*
 * As dwarf_getscopes_die: *scopes (malloc'd) gets die, then the DIEs
 * around it out to its unit; returns their count, -1 when out of memory.
 * Only the scopes a function is declared in count: namespaces, classes,
 * structures, unions, functions and lexical blocks.
 */
int wr_die_scopes(struct wr_die_parents *p, Dwarf_Die *die, Dwarf_Die **scopes);

void wr_die_parents_free(struct wr_die_parents *p);

#endif
