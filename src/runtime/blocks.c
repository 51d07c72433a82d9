/*
 * blocks.c - the program's heap blocks, for --craft=share to name the
 * object a shared cache line belongs to: the block, and the call that
 * allocated it (share.h).
 *
 * Allocation is hot and lookups are rare (a new sharing record), so the
 * table is cheap to fill and slow to search: blocks are hashed by their
 * start into a direct-mapped table, a newer block taking an older one's
 * entry; a lookup probes each 16-byte aligned start (glibc's, and every
 * malloc's, alignment) below the address, down to BIG_BYTES. Blocks that
 * large go to a short list scanned whole. Each entry is a sequence lock:
 * a writer claims it with a compare-and-swap or gives up (another thread,
 * or the thread it interrupted, is writing it), a reader retries nothing
 * and takes a torn entry for an unknown block. A forgotten block costs a
 * name in the report; an entry is only believed for the start it was
 * written for. A block the program gets or frees where the wrappers do
 * not see it (glibc's internal calls) keeps what the table last knew of
 * that start.
 */
#include <string.h>
#include <sys/mman.h>

#include "core/cct.h"
#include "runtime/share.h"

#define SMALL_SLOTS (1u << 16)
#define BIG_SLOTS 256u
#define BIG_BYTES 4096u
#define ALIGN 16u

struct block {
	uint64_t seq;		/* odd while written */
	uintptr_t start;	/* 0: empty */
	size_t size;
	uintptr_t site;
};

int wt_blocks_on;
static struct block *small, *big;
static int big_live;		/* big entries in use, or about to be */

int wt_blocks_init(void)
{
	size_t bytes = (SMALL_SLOTS + BIG_SLOTS) * sizeof(struct block);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	small = p;
	big = small + SMALL_SLOTS;
	__atomic_store_n(&wt_blocks_on, 1, __ATOMIC_RELEASE);
	return 0;
}

static struct block *small_slot(uintptr_t start)
{
	return &small[core_cct_hash(start, 0) & (SMALL_SLOTS - 1)];
}

/* Claim b for writing: 1 and the odd sequence in *seq, or 0. */
static int claim(struct block *b, uint64_t *seq)
{
	uint64_t s = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);

	if ((s & 1) ||
	    !__atomic_compare_exchange_n(&b->seq, &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	*seq = s + 1;
	return 1;
}

static void put(struct block *b, uint64_t seq, uintptr_t start, size_t size, uintptr_t site)
{
	__atomic_store_n(&b->start, start, __ATOMIC_RELAXED);
	__atomic_store_n(&b->size, size, __ATOMIC_RELAXED);
	__atomic_store_n(&b->site, site, __ATOMIC_RELAXED);
	__atomic_store_n(&b->seq, seq + 1, __ATOMIC_RELEASE);
}

/* A consistent copy of b: 1, or 0 while it is written. */
static int get(const struct block *b, struct block *out)
{
	uint64_t s = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);

	if (s & 1)
		return 0;
	out->start = __atomic_load_n(&b->start, __ATOMIC_RELAXED);
	out->size = __atomic_load_n(&b->size, __ATOMIC_RELAXED);
	out->site = __atomic_load_n(&b->site, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&b->seq, __ATOMIC_RELAXED) == s;
}

void wt_blocks_add(uintptr_t start, size_t size, uintptr_t site)
{
	struct block *b;
	uint64_t seq;
	unsigned i;

	if (!start || !__atomic_load_n(&wt_blocks_on, __ATOMIC_ACQUIRE))
		return;
	if (size < BIG_BYTES) {
		b = small_slot(start);
		if (claim(b, &seq))
			put(b, seq, start, size, site);
		return;
	}
	for (i = 0; i < BIG_SLOTS; i++) {
		b = &big[i];
		if (__atomic_load_n(&b->start, __ATOMIC_RELAXED) || !claim(b, &seq))
			continue;
		if (b->start) {		/* taken meanwhile */
			put(b, seq, b->start, b->size, b->site);
			continue;
		}
		__atomic_add_fetch(&big_live, 1, __ATOMIC_RELAXED);
		put(b, seq, start, size, site);
		return;
	}
}

void wt_blocks_remove(uintptr_t start)
{
	struct block *b;
	uint64_t seq;
	unsigned i;

	if (!start || !__atomic_load_n(&wt_blocks_on, __ATOMIC_ACQUIRE))
		return;
	b = small_slot(start);
	if (__atomic_load_n(&b->start, __ATOMIC_RELAXED) == start && claim(b, &seq)) {
		put(b, seq, b->start == start ? 0 : b->start, b->size, b->site);
		return;
	}
	if (!__atomic_load_n(&big_live, __ATOMIC_RELAXED))
		return;
	for (i = 0; i < BIG_SLOTS; i++) {
		b = &big[i];
		if (__atomic_load_n(&b->start, __ATOMIC_RELAXED) != start || !claim(b, &seq))
			continue;
		if (b->start == start) {
			__atomic_sub_fetch(&big_live, 1, __ATOMIC_RELAXED);
			put(b, seq, 0, 0, 0);
			return;
		}
		put(b, seq, b->start, b->size, b->site);
	}
}

int wt_blocks_find(uintptr_t a, uintptr_t *start, size_t *size, uintptr_t *site)
{
	struct block b;
	uintptr_t s;
	unsigned i;

	if (!__atomic_load_n(&wt_blocks_on, __ATOMIC_ACQUIRE))
		return 0;
	for (i = 0; i < BIG_SLOTS; i++)
		if (get(&big[i], &b) && b.start && a >= b.start && a - b.start < b.size)
			goto found;
	for (s = a & ~(uintptr_t)(ALIGN - 1); s && a - s < BIG_BYTES; s -= ALIGN)
		if (get(small_slot(s), &b) && b.start == s && a - s < b.size)
			goto found;
	return 0;
found:
	*start = b.start;
	*size = b.size;
	*site = b.site;
	return 1;
}
