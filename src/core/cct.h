/*
 * cct.h - the hash tables of a calling context tree, as libwitch.so
 * (src/runtime/cct.c) and witchspy (src/spy/cct.c) keep them: nodes are
 * keyed by (parent, pc), context pairs by (watch, trap), and a table maps
 * a key to a 32-bit id into its owner's records. Open addressing with
 * linear probing over a power of two slots, kept at most half full so
 * that probes stay short. The records and the slots' memory stay each
 * tool's: preallocated and signal-safe in the runtime, grown with
 * VG_(malloc) in the spy. Freestanding, inline: lookups are hot in both.
 */
#ifndef WITCH_CORE_CCT_H
#define WITCH_CORE_CCT_H

#include <stdint.h>

#define CORE_NO_ID 0xffffffffu	/* an empty slot */

/* The slot a key probes first, before the table's mask. */
static inline uint64_t core_cct_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 32);
}

/* The slot probed after slot i. */
static inline uint32_t core_cct_next(uint32_t i, uint32_t mask)
{
	return (i + 1) & mask;
}

/* Whether a table of mask + 1 slots holding n keys is past half full:
 * doubled, it takes the next key. */
static inline int core_cct_full(uint32_t n, uint32_t mask)
{
	return n * 2 > mask;
}

/* Put id, whose key hashes to h, in the first free slot of its probe
 * (a table being filled again after doubling). */
static inline void core_cct_place(uint32_t *slots, uint32_t mask, uint64_t h, uint32_t id)
{
	uint32_t i = (uint32_t)(h & mask);

	while (slots[i] != CORE_NO_ID)
		i = core_cct_next(i, mask);
	slots[i] = id;
}

#endif
