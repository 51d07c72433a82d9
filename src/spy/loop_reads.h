/*
 * loop_reads.h - a thread's read set for --witch-tool=loop: per 8-byte
 * word of memory, the bytes last read there and when (loop_reads.c).
 */
#ifndef WITCHSPY_LOOP_READS_H
#define WITCHSPY_LOOP_READS_H

#include "pub_tool_basics.h"

/* One word: its bytes in `known` hold what was last read there, at clock
 * `last`; bit k of `red`: that read was redundant for activation k. Empty
 * when its epoch is not the set's. */
typedef struct {
	ULong v;
	ULong last;
	UInt red;
	UShort epoch;
	UChar known;
	UChar pad;
} LoopWord;

typedef struct {
	Addr key;		/* address >> LOOP_CHUNK_BITS, + 1 (0: free) */
	LoopWord *words;
} LoopChunkRef;

typedef struct {
	LoopChunkRef *map;	/* open addressing */
	UInt mask, nchunks;
	Addr last_key;		/* the chunk the last lookup found */
	LoopWord *last_words;
	Addr prev_key;		/* and the one before: loops read the stack */
	LoopWord *prev_words;	/* and the heap in turn */
	UShort epoch;
} LoopReads;

#define LOOP_CHUNK_BITS 16	/* a chunk shadows 64 KiB: 8192 words */
#define LOOP_CHUNK_WORDS (1u << (LOOP_CHUNK_BITS - 3))

/* Chunks per thread (--witch-loop-chunks, LOOP_READ_CHUNKS_MAX). */
extern UInt loop_read_chunks_max;

void loop_reads_init(LoopReads *r);
void loop_reads_free(LoopReads *r);
/* Forget every word: a new epoch. */
void loop_reads_forget(LoopReads *r);
/* The word holding address a (8-aligned), NULL when the set is at its
 * limit and a has no chunk yet. Most reads are in the chunk of the read
 * before: that is looked up inline. */
LoopWord *loop_reads_find(LoopReads *r, Addr a);

static inline LoopWord *loop_reads_word(LoopReads *r, Addr a)
{
	if (LIKELY((a >> LOOP_CHUNK_BITS) + 1 == r->last_key))
		return &r->last_words[(a >> 3) & (LOOP_CHUNK_WORDS - 1)];
	return loop_reads_find(r, a);
}
/* The bytes of the set's chunks (the progress line's shadow memory). */
ULong loop_reads_bytes(const LoopReads *r);

#endif
