/*
 * name_cache.c - function names made once each (name_cache.h).
 */
#include "report/name_cache.h"
#include "report/grow.h"
#include "report/names.h"

#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>

enum { KIND_DIE = 1, KIND_SYMBOL = 2 };

/* Keep name (malloc'd, may be NULL) under key; the stored entry, or NULL
 * when out of memory (name is then freed). */
static const struct wr_named *keep(struct wr_name_cache *c, uint64_t kind, const void *key,
				   char *name, const char *linkage)
{
	if (wr_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) ||
	    wr_map_put(&c->map, kind, (uint64_t)(uintptr_t)key, (uint32_t)c->n)) {
		free(name);
		return NULL;
	}
	c->v[c->n].name = name;
	c->v[c->n].linkage = linkage;
	return &c->v[c->n++];
}

const char *wr_name_die(struct wr_name_cache *c, Dwarf_Die *die, wr_symbol_at *symbol, void *ctx,
			const char **linkage)
{
	const struct wr_named *e;
	Dwarf_Attribute attr;
	uint32_t i;
	char *name;

	if (wr_map_get(&c->map, KIND_DIE, (uint64_t)(uintptr_t)die->addr, &i)) {
		*linkage = c->v[i].linkage;
		return c->v[i].name;
	}
	name = wr_die_function(die, symbol, ctx, &c->parents, linkage);
	e = keep(c, KIND_DIE, die->addr, name, *linkage);
	if (e)
		return e->name;
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

const char *wr_name_symbol(struct wr_name_cache *c, const char *sym, const char **linkage)
{
	const struct wr_named *e;
	uint32_t i;
	char *name;

	*linkage = NULL;
	if (!sym)
		return NULL;
	if (wr_map_get(&c->map, KIND_SYMBOL, (uint64_t)(uintptr_t)sym, &i)) {
		*linkage = c->v[i].linkage;
		return c->v[i].name ? c->v[i].name : sym;
	}
	/* Not mangled: the entry holds no copy, the symbol is its name. */
	name = wr_demangle(sym);
	e = keep(c, KIND_SYMBOL, sym, name, name ? sym : NULL);
	if (!e || !e->name)
		return sym;
	*linkage = sym;
	return e->name;
}

void wr_name_cache_free(struct wr_name_cache *c)
{
	while (c->n)
		free(c->v[--c->n].name);
	free(c->v);
	wr_map_free(&c->map);
	wr_die_parents_free(&c->parents);
	c->cap = 0;
}
