/*
 * map.h - an open-addressing hash map from a pair of 64-bit keys to a 32-bit
 * index. The report interns contexts, pairs, modules and stats through it,
 * so that merging is linear in the size of the input.
 */
#ifndef WITCH_REPORT_MAP_H
#define WITCH_REPORT_MAP_H

#include <stddef.h>
#include <stdint.h>

struct wr_map_slot;

struct wr_map {
	struct wr_map_slot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

/* Returns 1 and sets *val when (a, b) is present, else 0. */
int wr_map_get(const struct wr_map *m, uint64_t a, uint64_t b, uint32_t *val);

/* Insert or overwrite; returns -1 when out of memory. */
int wr_map_put(struct wr_map *m, uint64_t a, uint64_t b, uint32_t val);

void wr_map_free(struct wr_map *m);

/* FNV-1a over a NUL-terminated string, for keys made of strings. */
uint64_t wr_hash_str(uint64_t h, const char *s);
#define WR_HASH_INIT 0xcbf29ce484222325ULL

#endif
