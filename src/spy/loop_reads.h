/*
 * loop_reads.h - a thread's read set for --witch-tool=loop: per 8-byte
 * word of memory, the bytes last read there and when (loop_reads.c).
 */
#ifndef WITCHSPY_LOOP_READS_H
#define WITCHSPY_LOOP_READS_H

#include "pub_tool_basics.h"

/* The loop clock (loop_run.c) has 23 bits, so that a word's time, its
 * known bytes and whether it is split share 32: it wraps after 8 million
 * iteration starts, and then the set is renumbered (loop_reads_renumber). */
#define LOOP_CLOCK_BITS 23
#define LOOP_CLOCK_MAX ((1u << LOOP_CLOCK_BITS) - 1)

/*
 * One word: the bytes of v that `known` says hold what was last read
 * there, at clock `last` (the thread's loop clock, loop_run.c), both in
 * `when` (loop_word_last, loop_word_known); bit k of `red`: that read was
 * redundant for activation k. Empty when `last` is at or below the set's
 * horizon. `when` is one 32-bit field, not two bit-fields: writing the
 * known bytes' byte and then reading the time's word stalled the store
 * buffer, a third of the read helper's time. 16 bytes, four to a cache
 * line: the set is as large as the memory its loops read, twice over,
 * and most of a read's time went to missing the cache on its word
 * (bzip2, with 24-byte words).
 *
 * With --witch-exact-parts, a word is split (LOOP_WORD_SPLIT) when some
 * of its known bytes were read before the innermost active loop began
 * and the others since: those keep their own times and answers in the
 * word's LoopOld, which only split words use (a column of a byte or int
 * matrix read one element an iteration; loop_run.c).
 */
typedef struct {
	ULong v;
	UInt red;
	UInt when;		/* last << 9 | split << 8 | known */
} LoopWord;

#define LOOP_WORD_SPLIT 0x100u

/* A `when` of a word or of an older part: a time and flags (bytes). */
static inline UInt loop_when(UInt t, UInt flags)
{
	return t << 9 | flags;
}

static inline UInt loop_when_time(UInt when)
{
	return when >> 9;
}

static inline UInt loop_when_bytes(UInt when)
{
	return when & 0xff;
}

static inline UInt loop_word_last(const LoopWord *w)
{
	return loop_when_time(w->when);
}

static inline UInt loop_word_known(const LoopWord *w)
{
	return loop_when_bytes(w->when);
}

/* The older parts of a split word, oldest first: their bytes (among the
 * word's known ones), when they were read and for which activations
 * redundantly. */
#define LOOP_OLD_PARTS 2
typedef struct {
	UInt when[LOOP_OLD_PARTS];	/* last << 9 | bytes; no bytes: none */
	UInt red[LOOP_OLD_PARTS];
} LoopOld;

typedef struct {
	Addr key;		/* address >> LOOP_CHUNK_BITS, + 1 (0: free) */
	LoopWord *words;
	LoopOld *olds;		/* its words' older parts, made at its first split */
	UInt gen;		/* the set's gen when last looked up */
} LoopChunkRef;

/*
 * A chunk not looked up since the set last forgot everything holds only
 * empty words. The inline lookups below find no other chunks but the two
 * they keep, which forgetting counts as looked up: so a chunk's gen says
 * which may hold words. At the limit, the others become spare ones and
 * serve other addresses.
 */
typedef struct {
	LoopChunkRef *map;	/* open addressing */
	UInt mask, nchunks;	/* chunks: in the map and spare */
	UInt nolds;		/* chunks with older parts */
	Addr last_key;		/* the chunk the last lookup found */
	LoopWord *last_words;
	Addr prev_key;		/* and the one before: loops read the stack */
	LoopWord *prev_words;	/* and the heap in turn */
	LoopChunkRef *last_ref, *prev_ref;	/* theirs in the map */
	UInt horizon;		/* words read at or before it are empty */
	UInt gen, swept_gen;	/* times it forgot; gen of the last sweep */
	LoopWord **spare;
	UInt nspare;
} LoopReads;

#define LOOP_CHUNK_BITS 16	/* a chunk shadows 64 KiB: 8192 words */
#define LOOP_CHUNK_WORDS (1u << (LOOP_CHUNK_BITS - 3))

/* Chunks per thread (--witch-loop-chunks, LOOP_READ_CHUNKS_MAX). */
extern UInt loop_read_chunks_max;

void loop_reads_init(LoopReads *r);
void loop_reads_free(LoopReads *r);
/* Forget every word: all read at or before clock `now` are empty. */
static inline void loop_reads_forget(LoopReads *r, UInt now)
{
	r->horizon = now;
	r->gen++;
	if (r->last_ref)
		r->last_ref->gen = r->gen;
	if (r->prev_ref)
		r->prev_ref->gen = r->gen;
}
/*
 * The clock is about to wrap: every word's time becomes its rank among
 * bounds[0..n) (sorted, distinct, the first the horizon): the number of
 * bounds at or before it, 0 for an empty word. The horizon becomes 0.
 */
void loop_reads_renumber(LoopReads *r, const UInt *bounds, UInt n);
/* That rank of clock t. */
UInt loop_reads_rank(UInt t, const UInt *bounds, UInt n);
/* The word holding address a (8-aligned), NULL when the set is at its
 * limit and a has no chunk yet. Most reads are in the chunk of the read
 * before, or of the one before that (a loop reading two arrays in turn):
 * those are looked up inline. */
LoopWord *loop_reads_find(LoopReads *r, Addr a);

/* a's word in the chunk `words` (key `key`, its ref in the map), which
 * becomes the last found. */
static inline LoopWord *loop_reads_found(LoopReads *r, Addr key, LoopWord *words, LoopChunkRef *ref,
					 Addr a)
{
	r->prev_key = r->last_key;
	r->prev_words = r->last_words;
	r->prev_ref = r->last_ref;
	r->last_key = key;
	r->last_words = words;
	r->last_ref = ref;
	return &words[(a >> 3) & (LOOP_CHUNK_WORDS - 1)];
}

static inline LoopWord *loop_reads_word(LoopReads *r, Addr a)
{
	Addr key = (a >> LOOP_CHUNK_BITS) + 1;

	if (LIKELY(key == r->last_key))
		return &r->last_words[(a >> 3) & (LOOP_CHUNK_WORDS - 1)];
	if (LIKELY(key == r->prev_key))
		return loop_reads_found(r, key, r->prev_words, r->prev_ref, a);
	return loop_reads_find(r, a);
}
/* The older parts of the chunk ref, made. */
LoopOld *loop_reads_olds(LoopReads *r, LoopChunkRef *ref);

/* The older parts of w, a word of the chunk found last (loop_reads_word
 * found it), made on first use in that chunk. */
static inline LoopOld *loop_reads_old(LoopReads *r, const LoopWord *w)
{
	LoopChunkRef *ref = r->last_ref;
	LoopOld *o = LIKELY(ref->olds != NULL) ? ref->olds : loop_reads_olds(r, ref);

	return &o[w - ref->words];
}
/* The bytes of the set's chunks (the progress line's shadow memory). */
ULong loop_reads_bytes(const LoopReads *r);

#endif
