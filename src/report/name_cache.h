/*
 * name_cache.h - the names (names.h) of the functions a symbolizer meets,
 * made once each: hot code is named over and over, and demangling costs.
 * They live as long as the cache.
 */
#ifndef WITCH_REPORT_NAME_CACHE_H
#define WITCH_REPORT_NAME_CACHE_H

#include <elfutils/libdw.h>
#include <stddef.h>

#include "report/map.h"
#include "report/names.h"

struct wr_named {
	char *name;		/* as people know it */
	const char *linkage;	/* the mangled name it came from; NULL when not mangled */
};

struct wr_name_cache {
	struct wr_map map;	/* (kind, address of the DIE or symbol name) -> index */
	struct wr_named *v;
	size_t n, cap;
	struct wr_die_parents parents;	/* the scopes names are qualified by */
};

/*
 * The name of the function a DIE is (wr_die_function), or of an ELF
 * symbol (wr_demangle). The DIE's data and the symbols' names must
 * outlive the cache. NULL when the function has no name; out of memory, the name
 * as the file spells it.
 */
const char *wr_name_die(struct wr_name_cache *c, Dwarf_Die *die, wr_symbol_at *symbol, void *ctx,
			const char **linkage);
const char *wr_name_symbol(struct wr_name_cache *c, const char *sym, const char **linkage);

void wr_name_cache_free(struct wr_name_cache *c);

#endif
