/*
 * hit.h - which bytes of a sampled access the instruction that tripped
 * its watch accessed, from the trap's context alone.
 *
 * A data watchpoint traps after the access, and where the context stands
 * then depends on the CPU:
 *  - a plain access traps right after its instruction;
 *  - a rep string instruction with iterations left traps with RIP still
 *    on it. AMD CPUs (and Intel ones for some lengths) trap after the
 *    element that touched the watch; Intel CPUs with fast strings after a
 *    group of iterations, RDI/RSI 128 or more bytes past the watched
 *    bytes. The instruction before it may have trapped instead: RIP is
 *    then on the string instruction too;
 *  - an AVX-512 masked access touches only the elements its opmask
 *    selects, yet may trap for any byte of its span.
 * So the bytes accessed, and the verdict, follow from the watched range,
 * the string registers and the opmask, never from "the element just
 * before RDI". Nothing here reads memory or thread state: unit tests feed
 * it the contexts of CPUs they do not run on.
 */
#ifndef WITCH_HIT_H
#define WITCH_HIT_H

#include <stdint.h>
#include <ucontext.h>

#include "runtime/decode.h"

/* A watch: the piece a register watches, inside the sampled access. */
struct wt_watched {
	uintptr_t lo;		/* the watched piece: [lo, lo + len), len <= 8 */
	unsigned len;
	uintptr_t base;		/* the sampled access's bytes: [base, base + size) */
	unsigned size;		/* at most 64: the masks below index them */
	int writes_only;	/* a W watch (SilentCraft): loads do not trap it */
	uintptr_t last_rip;	/* where the thread was when the watch last saw it */
	uint64_t last_rcx;	/* (armed, or a trap that kept it), and its RCX */
	uintptr_t fs_base, gs_base;	/* the thread's segment bases */
};

struct wt_hit {
	struct wd_access acc;	/* the instruction that accessed the bytes */
	uint8_t kind;		/* WD_LOAD, WD_STORE or WD_RMW: what it did to them */
	uint64_t bytes;		/* bit i: byte base + i accessed, already or by the
				   iterations left of a rep string instruction */
	uint64_t pending;	/* those of `bytes` that the iterations left will
				   access (not yet done at the trap) */
	uintptr_t rdi;		/* pending stores: rdi at the trap */
	uint64_t rax;		/* stos: what each element gets */
	intptr_t copy_delta;	/* movs: byte a gets the byte at a + copy_delta */
};

enum wt_hit_result {
	WT_HIT_UNKNOWN = 0,	/* no instruction of the function explains the trap */
	WT_HIT,			/* *h says which instruction and which bytes */
	WT_HIT_MASKED_OFF,	/* a masked access whose mask left the watched bytes
				   alone: not an access to them */
};

/*
 * The access that tripped watch w, with uc the context at the trap (RIP
 * where the thread resumes), in the function [start, end) holding RIP
 * (start 0: unknown). c is the thread's after-PC cache (or NULL).
 */
enum wt_hit_result wt_hit_find(struct wd_pc_cache *c, const ucontext_t *uc, uintptr_t start,
			       uintptr_t end, const struct wt_watched *w, struct wt_hit *h);

/*
 * A plain access acc that has just run (uc: the registers after it),
 * touching [ea, ea + acc->size) when known; when not known, or when that
 * misses the watched piece, the piece alone is sure to have been touched.
 */
enum wt_hit_result wt_hit_plain(const struct wd_access *acc, const ucontext_t *uc, uintptr_t ea,
				int known, const struct wt_watched *w, struct wt_hit *h);

/* The bytes of w's sampled access within [a, z) (the piece when none). */
uint64_t wt_hit_range(const struct wt_watched *w, uintptr_t a, uintptr_t z);

/* Byte `a` (a pending one of h) after a stos wrote it: its byte of rax. */
uint8_t wt_hit_stos_byte(const struct wt_hit *h, uintptr_t a);

/*
 * The bytes of an access of `size` bytes at ea (size <= 64) that its
 * opmask selects, bit i for byte ea + i: all of them without a mask or
 * when uc does not hold the mask (0: the mask selects none).
 */
uint64_t wt_hit_own_bytes(const struct wd_access *acc, const ucontext_t *uc);

#endif
