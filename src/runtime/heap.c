/*
 * heap.c - memory the program releases ends the watches on it.
 *
 * witch spy forgets a block's history when free, realloc or munmap
 * releases it (src/spy/heap.c): a later owner's accesses are not paired
 * with the old owner's. A watch left on a released block would pair them:
 * the next access there is the allocator's or the next owner's, and a
 * field the old owner never touched again would read as a dead store,
 * killed by whoever clears the block next. So the program's free, realloc
 * and munmap end the calling thread's watches on the bytes released,
 * without a verdict, as the reservoir does when it replaces a watch (the
 * samples go to the context's other verdicts).
 *
 * As in the spy: free's own stores (tcache links) come after, and judge
 * nothing; realloc releases the old block only when it moves it, after
 * its copy has read it. With --craft=share, free and realloc also keep
 * the table of blocks (blocks.c) that alloc.c's wrappers fill. Not seen here: glibc's internal calls (fclose's
 * free), allocators other than glibc's (their blocks keep their watches),
 * and --watch=pages, whose watches end only inside its handlers.
 *
 * Only libwitch.so has this file: linked into a program (the unit tests'
 * libwitchrt.a), its free would be the program's own, and AddressSanitizer's
 * start-up frees before anything here could find libc's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/share.h"

#define EXPORT __attribute__((visibility("default")))

static void (*real_free)(void *);
static void *(*real_realloc)(void *, size_t);
static int (*real_munmap)(void *, size_t);
static int glibc_blocks;	/* free is glibc's: blocks have its chunk headers */
static __thread int resolving __attribute__((tls_model("initial-exec")));

/* When the runtime loads (heap_init), or at the first call if one came first. */
static void resolve(void)
{
	void (*f)(void *);
	Dl_info info;

	if (resolving)
		return;
	resolving = 1;	/* a free from dlsym itself leaks its block */
	real_munmap = dlsym(RTLD_NEXT, "munmap");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	f = dlsym(RTLD_NEXT, "free");
	glibc_blocks = f && dladdr((void *)f, &info) && info.dli_fname &&
		       strstr(info.dli_fname, "/libc.so");
	real_free = f;
	resolving = 0;
}

__attribute__((constructor)) static void heap_init(void)
{
	if (!real_free)
		resolve();
}

/*
 * Bytes of the glibc block at p: its chunk size, from the word before p,
 * less that word (and less the chunk's first word when mmapped; an in-use
 * chunk owns the next one's first word). 0 when p does not look like one.
 * The header is read with process_vm_readv when a watch covers it.
 */
static size_t block_bytes(const struct wt_thread *t, uintptr_t p)
{
	size_t sz, chunk;
	int i;

	if (!glibc_blocks || (p & 15))
		return 0;
	for (i = 0; i < t->nslots; i++)
		if (t->slot[i].state != WT_SLOT_FREE && t->slot[i].addr < p &&
		    t->slot[i].addr + t->slot[i].len > p - sizeof(sz))
			break;
	if (i < t->nslots) {
		if (wt_read_target(&sz, p - sizeof(sz), sizeof(sz)) < 0)
			return 0;
	} else {
		sz = *(const size_t *)(p - sizeof(sz));
	}
	chunk = sz & ~(size_t)7;
	if (chunk < 32 || chunk > ((size_t)1 << 40))
		return 0;
	return chunk - (sz & 2 ? 16 : 8);	/* bit 1: mmapped */
}

/* A watch of t's on [lo, hi)? */
static int watched_in(const struct wt_thread *t, uintptr_t lo, uintptr_t hi)
{
	int i;

	for (i = 0; i < t->nslots; i++)
		if (wt_slot_watches(&t->slot[i], lo, hi))
			return 1;
	return 0;
}

/*
 * End t's watches on [lo, hi) (nothing when empty), with witch's signals
 * blocked: a sample or a trap arriving meanwhile would change the slots.
 * Blocking them costs two system calls, so only when a watch is there: a
 * LoadCraft watch high in sqlite3's heap, on bytes never loaded again,
 * made each of its frees below pay them, and some runs took twice as long,
 * most of it in the kernel (tests/e2e/42-free-cost.t).
 */
static void release(struct wt_thread *t, uintptr_t lo, uintptr_t hi)
{
	sigset_t old;
	int i;

	if (lo >= hi || !watched_in(t, lo, hi))
		return;
	wt_block_own_signals(&old);
	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if (!wt_slot_watches(s, lo, hi))
			continue;
		wt_attrib_abandoned(&t->cct.nodes[s->watch_node]);
		wt_slot_free(t, s);
		t->st.watches_released++;
	}
	wt_restore_signals(&old);
}

EXPORT void free(void *p)
{
	struct wt_thread *t;

	if (wt_alloc_boot_bytes(p))
		return;
	if (p)
		wt_blocks_remove((uintptr_t)p);
	if (!real_free)
		resolve();
	if (!real_free)
		return;
	if (p && (t = wt_self_watching()))
		release(t, (uintptr_t)p, (uintptr_t)p + block_bytes(t, (uintptr_t)p));
	real_free(p);
}

EXPORT void *realloc(void *p, size_t n)
{
	struct wt_thread *t = p ? wt_self_watching() : NULL;
	size_t old = 0;
	void *q;

	if (wt_alloc_boot_bytes(p)) {
		size_t left = wt_alloc_boot_bytes(p);

		q = malloc(n);
		if (q)
			memcpy(q, p, n < left ? n : left);
		return q;
	}
	if (!real_realloc)
		resolve();
	if (!real_realloc) {
		errno = ENOMEM;
		return NULL;
	}
	if (t)
		old = block_bytes(t, (uintptr_t)p);
	q = real_realloc(p, n);
	if (old && q != p && (q || n == 0))
		release(t, (uintptr_t)p, (uintptr_t)p + old);
	if (p && (q || n == 0))
		wt_blocks_remove((uintptr_t)p);
	if (q)
		wt_blocks_add((uintptr_t)q, n, (uintptr_t)__builtin_return_address(0));
	return q;
}

EXPORT int munmap(void *addr, size_t len)
{
	struct wt_thread *t = wt_self_watching();
	int r;

	if (!real_munmap)
		resolve();
	if (!real_munmap)
		return (int)syscall(SYS_munmap, addr, len);
	r = real_munmap(addr, len);
	if (r == 0 && t)
		release(t, (uintptr_t)addr, (uintptr_t)addr + len);
	return r;
}
