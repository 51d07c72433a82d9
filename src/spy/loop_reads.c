/*
 * loop_reads.c - a thread's read set for --witch-tool=loop, laid out by
 * address like the other spies' shadow memory, so that a loop scanning
 * an array finds its words side by side in the cache (a table keyed by
 * (address, value) costs a cache miss per read on a large set: bzip2 ran
 * 137x slower natively with one).
 *
 * A word keeps the bytes last read from it, not every value ever read
 * there: a location read with value A, then B, then A again is judged
 * against B only (docs/spy.md). Chunks are made as reads touch them, up
 * to loop_read_chunks_max per thread (--witch-loop-chunks); moving the
 * horizon up to the present empties every word at once, and past the
 * limit the chunks that hold only empty words serve new addresses.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "loop_reads.h"
#include "core/contract.h"

#define WORDS LOOP_CHUNK_WORDS

UInt loop_read_chunks_max = LOOP_READ_CHUNKS_MAX;

void loop_reads_init(LoopReads *r)
{
	VG_(memset)(r, 0, sizeof(*r));
	r->mask = 63;
	r->map = VG_(calloc)("witchspy.loopreads", r->mask + 1, sizeof(LoopChunkRef));
}

void loop_reads_free(LoopReads *r)
{
	UInt i;

	if (!r->map)
		return;
	for (i = 0; i <= r->mask; i++)
		if (r->map[i].key) {
			VG_(free)(r->map[i].words);
			if (r->map[i].olds)
				VG_(free)(r->map[i].olds);
		}
	for (i = 0; i < r->nspare; i++)
		VG_(free)(r->spare[i]);
	VG_(free)(r->spare);
	VG_(free)(r->map);
	VG_(memset)(r, 0, sizeof(*r));
}

UInt loop_reads_rank(UInt t, const UInt *bounds, UInt n)
{
	UInt lo = 0, hi = n;

	if (t <= bounds[0])
		return 0;
	while (lo < hi) {
		UInt mid = (lo + hi) / 2;

		if (bounds[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Rare (once per 16 million iteration starts) and linear in the set, so
 * it costs less than a word's time of 64 bits would in cache misses. */
void loop_reads_renumber(LoopReads *r, const UInt *bounds, UInt n)
{
	UInt i, j, k;

	for (i = 0; i <= r->mask; i++) {
		LoopWord *w = r->map[i].words;
		LoopOld *o = r->map[i].olds;

		if (!r->map[i].key)
			continue;
		for (j = 0; j < WORDS; j++) {
			w[j].when = loop_when(loop_reads_rank(loop_word_last(&w[j]), bounds, n),
					      w[j].when & (LOOP_WORD_SPLIT | 0xff));
			for (k = 0; (w[j].when & LOOP_WORD_SPLIT) && k < LOOP_OLD_PARTS; k++)
				o[j].when[k] = loop_when(loop_reads_rank(loop_when_time(o[j].when[k]),
									 bounds, n),
							 loop_when_bytes(o[j].when[k]));
		}
	}
	r->horizon = 0;
}

ULong loop_reads_bytes(const LoopReads *r)
{
	return r->map ? (ULong)r->nchunks * WORDS * sizeof(LoopWord) +
				(ULong)r->nolds * WORDS * sizeof(LoopOld) : 0;
}

static UInt slot(Addr key, UInt mask)
{
	return (UInt)((key * 0x9E3779B97F4A7C15ULL) >> 40) & mask;
}

/* The map again, with 2^bits slots; with sweep, the chunks not looked
 * up since the set last forgot everything become spare. */
static void rehash(LoopReads *r, UInt bits, Bool sweep)
{
	LoopChunkRef *old = r->map;
	UInt i, h, n = r->mask + 1;

	r->mask = (1u << bits) - 1;
	r->map = VG_(calloc)("witchspy.loopreads", r->mask + 1, sizeof(LoopChunkRef));
	for (i = 0; i < n; i++) {
		if (!old[i].key)
			continue;
		if (sweep && old[i].gen != r->gen) {
			r->spare[r->nspare++] = old[i].words;
			if (old[i].olds) {
				VG_(free)(old[i].olds);
				r->nolds--;
			}
			continue;
		}
		for (h = slot(old[i].key, r->mask); r->map[h].key; h = (h + 1) & r->mask)
			;
		r->map[h] = old[i];
		if (&old[i] == r->last_ref)
			r->last_ref = &r->map[h];
		if (&old[i] == r->prev_ref)
			r->prev_ref = &r->map[h];
	}
	VG_(free)(old);
}

/* A chunk's words for a new address, NULL at the limit. */
static LoopWord *new_words(LoopReads *r)
{
	LoopWord *w;

	if (!r->nspare && r->nchunks >= loop_read_chunks_max && r->swept_gen != r->gen) {
		if (!r->spare)
			r->spare = VG_(malloc)("witchspy.loopreads", loop_read_chunks_max * sizeof(*r->spare));
		r->swept_gen = r->gen;
		rehash(r, (UInt)__builtin_ctz(r->mask + 1), True);
	}
	if (r->nspare) {
		/* Renumbering passed it by: its words' times may not be
		 * below the horizon any more. */
		w = r->spare[--r->nspare];
		VG_(memset)(w, 0, WORDS * sizeof(LoopWord));
		return w;
	}
	if (r->nchunks >= loop_read_chunks_max)
		return NULL;
	r->nchunks++;
	return VG_(calloc)("witchspy.loopwords", WORDS, sizeof(LoopWord));
}

LoopWord *loop_reads_find(LoopReads *r, Addr a)
{
	Addr key = (a >> LOOP_CHUNK_BITS) + 1;
	LoopWord *w;
	UInt h;

	for (h = slot(key, r->mask); r->map[h].key; h = (h + 1) & r->mask)
		if (r->map[h].key == key) {
			r->map[h].gen = r->gen;
			return loop_reads_found(r, key, r->map[h].words, &r->map[h], a);
		}
	w = new_words(r);
	if (!w)
		return NULL;
	/* A sweep makes the map anew: the key's slot again. */
	for (h = slot(key, r->mask); r->map[h].key; h = (h + 1) & r->mask)
		;
	r->map[h] = (LoopChunkRef){ key, w, NULL, r->gen };
	w = loop_reads_found(r, key, w, &r->map[h], a);
	if (2 * (r->nchunks - r->nspare) > r->mask)
		rehash(r, (UInt)__builtin_ctz(r->mask + 1) + 1, False);
	return w;
}

LoopOld *loop_reads_olds(LoopReads *r, LoopChunkRef *ref)
{
	/* Read only where a word says split, written first. */
	ref->olds = VG_(malloc)("witchspy.loopolds", WORDS * sizeof(LoopOld));
	r->nolds++;
	return ref->olds;
}
