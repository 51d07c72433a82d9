/*
 * alloc.c - the program's allocations, wrapped: with --craft=share each
 * block is recorded with the call that allocated it (blocks.c), so that
 * a cache line threads share is named by the heap object it is in.
 * Otherwise the wrappers only pass the call on.
 *
 * The real functions are the next ones after libwitch.so (glibc's, or an
 * allocator the program links), found with dlsym, which may itself ask
 * for memory before it returns: those few bytes come from a static
 * buffer that free and realloc (heap.c) recognise and never hand to the
 * real allocator.
 *
 * The site is the wrapper's return address: the call in the program (in
 * C++, the call in operator new).
 *
 * Only libwitch.so has this file: linked into a unit test, its malloc
 * would be the test's own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "runtime/share.h"

#define EXPORT __attribute__((visibility("default")))
#define BOOT_BYTES 16384

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*memalign_fn)(size_t, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);

static malloc_fn real_malloc;
static calloc_fn real_calloc;
static memalign_fn real_aligned_alloc, real_memalign;
static posix_memalign_fn real_posix_memalign;
static _Alignas(16) char boot[BOOT_BYTES];
static size_t boot_used;
static __thread int resolving __attribute__((tls_model("initial-exec")));

size_t wt_alloc_boot_bytes(const void *p)
{
	const char *c = p;

	return c >= boot && c < boot + BOOT_BYTES ? (size_t)(boot + BOOT_BYTES - c) : 0;
}

/* dlsym's own allocations, zeroed (the buffer is never reused). */
static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 15) & ~(size_t)15, __ATOMIC_RELAXED);

	if (at + n > BOOT_BYTES || at + n < at) {
		errno = ENOMEM;
		return NULL;
	}
	return boot + at;
}

/* The real function called name into *fn; 0, or -1 (within dlsym's own
 * call, or none found). */
static int resolve(void **fn, const char *name)
{
	void *f;

	if (__atomic_load_n(fn, __ATOMIC_ACQUIRE))
		return 0;
	if (resolving)
		return -1;
	resolving = 1;
	f = dlsym(RTLD_NEXT, name);
	resolving = 0;
	if (!f)
		return -1;
	__atomic_store_n(fn, f, __ATOMIC_RELEASE);
	return 0;
}

static void *added(void *p, size_t n, void *site)
{
	if (p && __atomic_load_n(&wt_blocks_on, __ATOMIC_RELAXED))
		wt_blocks_add((uintptr_t)p, n, (uintptr_t)site);
	return p;
}

EXPORT void *malloc(size_t n)
{
	if (resolve((void **)&real_malloc, "malloc"))
		return boot_alloc(n);
	return added(real_malloc(n), n, __builtin_return_address(0));
}

EXPORT void *calloc(size_t k, size_t n)
{
	if (resolve((void **)&real_calloc, "calloc"))
		return n && k > SIZE_MAX / n ? NULL : boot_alloc(k * n);
	return added(real_calloc(k, n), k * n, __builtin_return_address(0));
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (resolve((void **)&real_aligned_alloc, "aligned_alloc")) {
		errno = ENOMEM;
		return NULL;
	}
	return added(real_aligned_alloc(align, n), n, __builtin_return_address(0));
}

EXPORT void *memalign(size_t align, size_t n)
{
	if (resolve((void **)&real_memalign, "memalign")) {
		errno = ENOMEM;
		return NULL;
	}
	return added(real_memalign(align, n), n, __builtin_return_address(0));
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	if (resolve((void **)&real_posix_memalign, "posix_memalign"))
		return ENOMEM;
	rc = real_posix_memalign(out, align, n);
	if (rc == 0)
		added(*out, n, __builtin_return_address(0));
	return rc;
}
