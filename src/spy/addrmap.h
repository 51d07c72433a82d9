/*
 * addrmap.h - a map from a guest address to an object of the tool's, for
 * what must be one per instruction whatever translations hold it (rvn's
 * sites, call sites, loop points): translations are made again (rvn's
 * bursts discard them all), and their objects must not be made again.
 */
#ifndef WITCHSPY_ADDRMAP_H
#define WITCHSPY_ADDRMAP_H

#include "pub_tool_basics.h"

typedef struct {
	Addr *keys;
	void **vals;		/* NULL: a free slot */
	UInt mask, n;
} SpyAddrMap;

/* The object of key, NULL if none. */
void *spy_addrmap_get(const SpyAddrMap *m, Addr key);
/* Map key (not in m yet) to v, not NULL. */
void spy_addrmap_put(SpyAddrMap *m, Addr key, void *v);
/* Map key (in m) to v instead, not NULL. */
void spy_addrmap_set(SpyAddrMap *m, Addr key, void *v);

#endif
