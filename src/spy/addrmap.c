/*
 * addrmap.c - addrmap.h's map: open addressing, doubled when three
 * quarters full (rvn keeps one per instruction and one per context).
 */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"

#include "addrmap.h"

#define MIN_SLOTS 1024u

static UInt slot(Addr key, UInt mask)
{
	return (UInt)((key * 0x9E3779B97F4A7C15ULL) >> 40) & mask;
}

/* Where key is in m, or NULL. */
static void **find(const SpyAddrMap *m, Addr key)
{
	UInt h;

	if (!m->vals)
		return NULL;
	for (h = slot(key, m->mask); m->vals[h]; h = (h + 1) & m->mask)
		if (m->keys[h] == key)
			return &m->vals[h];
	return NULL;
}

void *spy_addrmap_get(const SpyAddrMap *m, Addr key)
{
	void **v = find(m, key);

	return v ? *v : NULL;
}

void spy_addrmap_set(SpyAddrMap *m, Addr key, void *v)
{
	*find(m, key) = v;
}

static void insert(SpyAddrMap *m, Addr key, void *v)
{
	UInt h;

	for (h = slot(key, m->mask); m->vals[h]; h = (h + 1) & m->mask)
		;
	m->keys[h] = key;
	m->vals[h] = v;
}

void spy_addrmap_put(SpyAddrMap *m, Addr key, void *v)
{
	if (4 * (m->n + 1) > (m->vals ? 3 * (m->mask + 1) : 0)) {
		Addr *keys = m->keys;
		void **vals = m->vals;
		UInt i, old = vals ? m->mask + 1 : 0;

		m->mask = old ? 2 * old - 1 : MIN_SLOTS - 1;
		m->keys = VG_(malloc)("witchspy.addrmap", (m->mask + 1) * sizeof(*m->keys));
		m->vals = VG_(calloc)("witchspy.addrmap", m->mask + 1, sizeof(*m->vals));
		for (i = 0; i < old; i++)
			if (vals[i])
				insert(m, keys[i], vals[i]);
		VG_(free)(keys);
		VG_(free)(vals);
	}
	insert(m, key, v);
	m->n++;
}
