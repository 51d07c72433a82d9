/*
 * map.c - open addressing with linear probing, at most half full.
 */
#include "report/map.h"

#include <stdlib.h>

struct wr_map_slot {
	uint64_t a, b;
	uint32_t val;
	uint32_t used;
};

/* splitmix64's finaliser: nearby keys (offsets, node ids) spread well. */
static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ b;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static struct wr_map_slot *find(const struct wr_map *m, uint64_t a, uint64_t b)
{
	size_t i = (size_t)mix(a, b) & (m->cap - 1);

	while (m->slots[i].used && (m->slots[i].a != a || m->slots[i].b != b))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

int wr_map_get(const struct wr_map *m, uint64_t a, uint64_t b, uint32_t *val)
{
	struct wr_map_slot *s;

	if (!m->cap)
		return 0;
	s = find(m, a, b);
	if (!s->used)
		return 0;
	*val = s->val;
	return 1;
}

static int resize(struct wr_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct wr_map old = *m;
	size_t i;

	m->slots = calloc(ncap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -1;
	}
	m->cap = ncap;
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].used)
			*find(m, old.slots[i].a, old.slots[i].b) = old.slots[i];
	free(old.slots);
	return 0;
}

int wr_map_put(struct wr_map *m, uint64_t a, uint64_t b, uint32_t val)
{
	struct wr_map_slot *s;

	if ((m->n + 1) * 2 > m->cap && resize(m))
		return -1;
	s = find(m, a, b);
	if (!s->used) {
		s->used = 1;
		s->a = a;
		s->b = b;
		m->n++;
	}
	s->val = val;
	return 0;
}

void wr_map_free(struct wr_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = 0;
	m->n = 0;
}

uint64_t wr_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	/* Mark the end so that ("ab", "c") and ("a", "bc") differ. */
	h ^= 0xff;
	h *= 0x100000001b3ULL;
	return h;
}
