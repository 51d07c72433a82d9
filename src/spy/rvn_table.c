/*
 * rvn_table.c - the set of computed numbers of witch spy --tool=rvn
 * (rvn_judge_all, rvn_run.c), in two generations.
 *
 * Almost every judged computation looks its number up, finds nothing,
 * puts it in and takes out its instruction's oldest one: in a loop, most
 * numbers leave a few iterations after they came. A single table, spread
 * over many cache lines that the program's data and the shadow memory
 * keep evicting, made each of these steps a cache miss. So numbers come
 * into a young table small enough to stay in the cache, and most leave
 * it from there; every so many numbers, those that stayed in it since
 * the last time move to the old table (all of them if it is full).
 * A filter of the old table's numbers (a Bloom filter: bits set for each,
 * none for what is not there) says where it need not be looked at; it
 * keeps the bits of numbers that left the old table until it is made
 * again, which only costs looks that find nothing.
 *
 * Both tables: open addressing, linear probing, backward-shift removal.
 * Keys are hashes already (value numbers told apart per thread, rvn.h):
 * their own bits place them.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "rvn.h"

#define TAKEN 0x80000000u
#define YOUNG_SLOTS 2048	/* 32 KiB */

/* An entry: a key and the context that put it there, TAKEN set in a
 * taken slot: one line holds it. */
struct ent {
	ULong key;
	UInt node;
	UInt gen;		/* young: the period it came in */
};

struct table {
	struct ent *e;
	UWord mask, used;
};

static struct table young, old;
static UInt young_gen;		/* periods of YOUNG_SLOTS / 2 numbers put in young */
static UWord since;		/* numbers put in young this period */
static UWord *filter;		/* of old's keys */
static UWord filter_mask;	/* bits - 1 */
static UWord left_old;		/* keys removed from old since the filter was made */

static UWord home(const struct table *t, ULong key)
{
	return (UWord)key & t->mask;
}

static Bool taken(const struct ent *e)
{
	return (e->node & TAKEN) != 0;
}

/* Where key is in t, or the empty slot where it would go. */
static UWord slot_of(const struct table *t, ULong key)
{
	UWord i = home(t, key);

	while (taken(&t->e[i]) && t->e[i].key != key)
		i = (i + 1) & t->mask;
	return i;
}

static void table_init(struct table *t, UWord slots)
{
	t->e = VG_(calloc)("witchspy.rvn.table", slots, sizeof(*t->e));
	t->mask = slots - 1;
	t->used = 0;
}

static void put(struct table *t, ULong key, UInt node)
{
	struct ent *e = &t->e[slot_of(t, key)];

	e->key = key;
	e->node = node | TAKEN;
	t->used++;
}

static Bool table_remove(struct table *t, ULong key)
{
	UWord i = slot_of(t, key), j, h;

	if (!taken(&t->e[i]))
		return False;
	t->e[i].node = 0;
	t->used--;
	/* Move each entry after it back to i unless its home lies in (i, j]. */
	for (j = (i + 1) & t->mask; taken(&t->e[j]); j = (j + 1) & t->mask) {
		h = home(t, t->e[j].key);
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			t->e[i] = t->e[j];
			t->e[j].node = 0;
			i = j;
		}
	}
	return True;
}

/* ---- the filter: two bits per key, from bits the tables' places do not use ---- */

static UWord bit1(ULong key)
{
	return (UWord)(key >> 40) & filter_mask;
}

static UWord bit2(ULong key)
{
	return (UWord)(key >> 20) & filter_mask;
}

static void filter_set(ULong key)
{
	UWord a = bit1(key), b = bit2(key);

	filter[a / 64] |= 1UL << (a % 64);
	filter[b / 64] |= 1UL << (b % 64);
}

static Bool maybe_old(ULong key)
{
	UWord a = bit1(key), b = bit2(key);

	return (filter[a / 64] >> (a % 64) & 1) && (filter[b / 64] >> (b % 64) & 1);
}

/* The filter made again for old's keys: 16 bits a slot of old (which is
 * at most half full), so that few looks there find nothing. */
static void filter_make(void)
{
	UWord bits = 16 * (old.mask + 1), i;

	if (filter)
		VG_(free)(filter);
	filter = VG_(calloc)("witchspy.rvn.filter", bits / 64, sizeof(UWord));
	filter_mask = bits - 1;
	for (i = 0; i <= old.mask; i++)
		if (taken(&old.e[i]))
			filter_set(old.e[i].key);
	left_old = 0;
}

/* ---- the set ---- */

void rvn_table_init(void)
{
	table_init(&young, YOUNG_SLOTS);
	table_init(&old, 1 << 12);
	filter_make();
}

/* The numbers young held when the period began move to old (all of
 * them if young is half full), old doubled until it is at most half full
 * of them. */
static void age(void)
{
	Bool all = 2 * (young.used + 1) > young.mask;
	struct table t = young;
	UWord i;

	if (2 * (old.used + young.used) > old.mask) {
		struct table o = old;
		UWord n = old.mask + 1;

		while (2 * (old.used + young.used) > n - 1)
			n *= 2;
		table_init(&old, n);
		for (i = 0; i <= o.mask; i++)
			if (taken(&o.e[i]))
				put(&old, o.e[i].key, o.e[i].node & ~TAKEN);
		VG_(free)(o.e);
		filter_make();
	}
	table_init(&young, YOUNG_SLOTS);
	for (i = 0; i <= t.mask; i++) {
		struct ent *e = &t.e[i];

		if (!taken(e))
			continue;
		if (all || e->gen != young_gen) {
			put(&old, e->key, e->node & ~TAKEN);
			filter_set(e->key);
		} else {
			put(&young, e->key, e->node & ~TAKEN);
			young.e[slot_of(&young, e->key)].gen = e->gen;
		}
	}
	VG_(free)(t.e);
	young_gen++;
	since = 0;
}

Bool rvn_table_add(ULong key, UInt node, UInt *first)
{
	struct ent *e = &young.e[slot_of(&young, key)];

	if (taken(e)) {
		*first = e->node & ~TAKEN;
		return False;
	}
	if (maybe_old(key)) {
		struct ent *o = &old.e[slot_of(&old, key)];

		if (taken(o)) {
			*first = o->node & ~TAKEN;
			return False;
		}
	}
	if (2 * (young.used + 1) > young.mask || ++since > YOUNG_SLOTS / 2) {
		age();
		e = &young.e[slot_of(&young, key)];
	}
	e->key = key;
	e->node = node | TAKEN;
	e->gen = young_gen;
	young.used++;
	return True;
}

void rvn_table_prefetch(ULong key)
{
	if (maybe_old(key))
		__builtin_prefetch(&old.e[home(&old, key)]);
}

void rvn_table_remove(ULong key)
{
	if (table_remove(&young, key) || !table_remove(&old, key))
		return;
	/* The filter keeps its bits: made again once they are as many
	 * again as old's keys. */
	if (++left_old > old.used + 1024)
		filter_make();
}

void rvn_table_clear(void)
{
	VG_(memset)(young.e, 0, (young.mask + 1) * sizeof(*young.e));
	young.used = 0;
	VG_(memset)(old.e, 0, (old.mask + 1) * sizeof(*old.e));
	old.used = 0;
	filter_make();
}
