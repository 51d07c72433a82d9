/*
 * rvn_table.c - the set of computed numbers of witch spy --tool=rvn
 * (rvn_judge, rvn_run.c): open addressing, linear probing, backward-shift
 * removal.
 *
 * Almost every judged computation probes it at a place its number alone
 * decides, and most of them find nothing there: the probe is a cache miss
 * whenever the table outgrows the cache, which the program's data and the
 * shadow memory keep evicting it from. So a probe reads only a 4-byte tag
 * per slot, a quarter of a whole entry: the key's bits that place it, and
 * a flag that the slot is taken. The key and the context that put it
 * there, in arrays beside the tags, are read only where a tag matches.
 *
 * Keys are hashes already (value numbers told apart per thread, rvn.h):
 * their own bits place them.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "rvn.h"

#define TAKEN 0x80000000u

static UInt *tags;		/* 0: empty */
static ULong *keys;
static UInt *nodes;
static UWord mask, used;

static UInt tag_of(ULong key)
{
	return (UInt)key | TAKEN;
}

/* Where key is, or the empty slot where it would go. */
static UWord slot_of(ULong key)
{
	UInt t = tag_of(key);
	UWord i = t & mask;

	while (tags[i] && (tags[i] != t || keys[i] != key))
		i = (i + 1) & mask;
	return i;
}

static void put(UWord i, UInt tag, ULong key, UInt node)
{
	tags[i] = tag;
	keys[i] = key;
	nodes[i] = node;
}

static void grow(void)
{
	UInt *old_tags = tags, *old_nodes = nodes;
	ULong *old_keys = keys;
	UWord n = old_tags ? 2 * (mask + 1) : 1 << 12, i;

	tags = VG_(calloc)("witchspy.rvn.table", n, sizeof(*tags));
	keys = VG_(malloc)("witchspy.rvn.table", n * sizeof(*keys));
	nodes = VG_(malloc)("witchspy.rvn.table", n * sizeof(*nodes));
	mask = n - 1;
	if (!old_tags)
		return;
	for (i = 0; i < n / 2; i++)
		if (old_tags[i])
			put(slot_of(old_keys[i]), old_tags[i], old_keys[i], old_nodes[i]);
	VG_(free)(old_tags);
	VG_(free)(old_keys);
	VG_(free)(old_nodes);
}

void rvn_table_init(void)
{
	grow();
}

Bool rvn_table_add(ULong key, UInt node, UInt *first)
{
	UWord i;

	if (2 * (used + 1) > mask)
		grow();
	i = slot_of(key);
	if (tags[i]) {
		*first = nodes[i];
		return False;
	}
	put(i, tag_of(key), key, node);
	used++;
	return True;
}

void rvn_table_prefetch(ULong key)
{
	__builtin_prefetch(&tags[tag_of(key) & mask]);
}

void rvn_table_remove(ULong key)
{
	UWord i = slot_of(key), j, home;

	if (!tags[i])
		return;
	tags[i] = 0;
	used--;
	/* Move each entry after it back to i unless its home lies in (i, j]. */
	for (j = (i + 1) & mask; tags[j]; j = (j + 1) & mask) {
		home = tags[j] & mask;
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			put(i, tags[j], keys[j], nodes[j]);
			tags[j] = 0;
			i = j;
		}
	}
}

void rvn_table_clear(void)
{
	VG_(memset)(tags, 0, (mask + 1) * sizeof(*tags));
	used = 0;
}
