/*
 * loader.c - the dynamic loader's calls that take its lock, wrapped so
 * that witch's handlers know not to unwind meanwhile (wt_in_loader).
 *
 * dlopen, dlmopen and dlclose hold the loader's write lock while they
 * change the list of loaded objects, and dl_iterate_phdr while its
 * callback runs. A sample or trap that interrupts the thread there, or
 * in the middle of taking the lock, and unwinds (libunwind calls
 * dl_iterate_phdr) waits on that lock for ever: an Open MPI program,
 * which dlopens its components, hung under witch record.
 *
 * Only libwitch.so has this file: linked into a unit test, its dlopen
 * would be the test's own.
 */
#include <dlfcn.h>
#include <link.h>

#include "runtime/runtime.h"

#define EXPORT __attribute__((visibility("default")))

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);
typedef int (*dlclose_fn)(void *);
typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

/* The next definition of name: libc's, found once. */
static void *real(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

static void *next_dlopen, *next_dlmopen, *next_dlclose, *next_iterate;

/* Before any handler can call dl_iterate_phdr (libunwind does): dlsym
 * in a handler could wait on the loader's lock itself. */
__attribute__((constructor)) static void resolve_all(void)
{
	real(&next_dlopen, "dlopen");
	real(&next_dlmopen, "dlmopen");
	real(&next_dlclose, "dlclose");
	real(&next_iterate, "dl_iterate_phdr");
}

EXPORT void *dlopen(const char *file, int mode)
{
	dlopen_fn f = (dlopen_fn)real(&next_dlopen, "dlopen");
	void *h;

	wt_in_loader++;
	h = f(file, mode);
	wt_in_loader--;
	return h;
}

EXPORT void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	dlmopen_fn f = (dlmopen_fn)real(&next_dlmopen, "dlmopen");
	void *h;

	wt_in_loader++;
	h = f(lmid, file, mode);
	wt_in_loader--;
	return h;
}

EXPORT int dlclose(void *handle)
{
	dlclose_fn f = (dlclose_fn)real(&next_dlclose, "dlclose");
	int r;

	wt_in_loader++;
	r = f(handle);
	wt_in_loader--;
	return r;
}

EXPORT int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *), void *data)
{
	iterate_fn f = (iterate_fn)real(&next_iterate, "dl_iterate_phdr");
	int r;

	wt_in_loader++;
	r = f(callback, data);
	wt_in_loader--;
	return r;
}
