/*
 * share.h - witch record --craft=share: cache lines that threads fight
 * over (Feather, PPoPP'18, on the WITCH engine).
 *
 * A thread's sampled store is published on a board all threads read
 * (share.c). At each of its own samples, every other thread takes the
 * stores published since its last one and watches one 8-byte word of
 * each store's cache line, drawn at random, until its next sample: an
 * access to the word, with the sampled store, is sharing, true when the
 * two accesses' bytes overlap and false when they do not. The heap
 * blocks the lines belong to, and the calls that allocated them, come
 * from blocks.c.
 */
#ifndef WITCH_SHARE_H
#define WITCH_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "runtime/runtime.h"

#define WT_LINE 64		/* bytes the coherence protocol moves between cores */
#define WT_LINE_WORDS (WT_LINE / 8)	/* what one debug register can watch */

enum wt_share_kind { WT_FALSE_SHARING = 'f', WT_TRUE_SHARING = 't' };

/*
 * What one thread's watches found, one record per (watch context, trap
 * context, kind, line, offsets). The watch context is the other
 * thread's sampled store, its calling context copied into this thread's
 * tree; the trap context this thread's access.
 */
struct wt_share_rec {
	uint32_t watch, trap;	/* node ids */
	uint8_t kind;		/* enum wt_share_kind */
	uint8_t woff, wlen;	/* the store's bytes in the line: [woff, woff + wlen) */
	uint8_t toff, tlen;	/* the trapping access's */
	uint32_t count;		/* traps */
	uintptr_t line;		/* the line's address */
	double weight;		/* the traps' weights summed (share.c) */
	uintptr_t block;	/* the heap block holding the store's bytes, 0: none known */
	size_t block_size;
	uint32_t site;		/* node whose leaf is the call that allocated it; 0: none */
};

struct wt_share_recs {
	struct wt_share_rec *v;
	uint32_t n, max;
	uint32_t *hash, mask;	/* ids, CORE_NO_ID when empty */
	uint64_t dropped;	/* records not kept: the table was full */
};

/* share.c */
/* The thread's record table (outside handlers). 0 or -1. */
int wt_share_thread_init(struct wt_thread *t);
/* Thread t's sampled store acc, at ea (its bytes: bit i of own is byte
 * ea + i), in context node, with the piece at `piece` drawn to stand for
 * it; uc the registers around it, or NULL. */
void wt_share_publish(struct wt_thread *t, const struct wd_access *acc, uintptr_t ea,
		      uint64_t own, uintptr_t piece, uint32_t node, const ucontext_t *uc);
/* A sample of t's: its watches from the last sample end untripped ... */
void wt_share_expire(struct wt_thread *t);
/* ... and it watches the lines of stores published since. */
void wt_share_pickup(struct wt_thread *t);
/* A trap of slot s: a record for it. Returns 0: the watch ends. */
struct wt_hit;
int wt_share_judge(struct wt_thread *t, struct wt_slot *s, const struct wt_hit *h,
		   uint32_t trap_node);
/* A forked child starts with an empty board: its parent's threads are not its. */
void wt_share_after_fork(void);

/* blocks.c: the program's heap blocks and where they were allocated,
 * kept while blocks_on (--craft=share). Lock-free and async-signal-safe:
 * the allocator's wrappers add and remove, handlers look up. A block
 * whose entry another took over is simply not known. */
extern int wt_blocks_on;
int wt_blocks_init(void);	/* outside handlers; 0 or -1 */
void wt_blocks_add(uintptr_t start, size_t size, uintptr_t site);
void wt_blocks_remove(uintptr_t start);
/* The block holding address a: 1 and its start, size and site, or 0. */
int wt_blocks_find(uintptr_t a, uintptr_t *start, size_t *size, uintptr_t *site);

/* alloc.c: memory the allocator's wrappers handed out before the real
 * allocator was found (dlsym's own calls), never the real allocator's:
 * for p in it, the bytes from p to its end; else 0. */
size_t wt_alloc_boot_bytes(const void *p);

#endif
