/*
 * loaderlock.c - whether a handler may let the unwinder into the dynamic
 * loader now.
 *
 * libunwind finds unwind tables with dl_iterate_phdr, which takes glibc's
 * recursive loader lock (dl_load_write_lock), as dlopen and dlclose do. A
 * handler that interrupts its thread in the few instructions where that
 * thread has taken the lock but is not yet its recorded owner (or no
 * longer, releasing it) waits for itself for ever: MPI_Init's dlopens of
 * Open MPI's plugins hung witch record so (tests/e2e/88-mpi.t). The lock
 * is found once, outside handlers: inside a dl_iterate_phdr callback it is
 * the one recursive mutex of ld.so's _rtld_global that this thread owns.
 * Handlers then leave the loader alone while the lock is held with no
 * owner recorded: by their own thread in that window, or by another in
 * its own (which they could have waited for). Held by an owner, the lock
 * is either their thread's (recursive: they may take it again) or another
 * thread's, which releases it. Where it is not found (another libc), as
 * before.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"

static const volatile pthread_mutex_t *lock;

static int find(struct dl_phdr_info *info, size_t size, void *ctx)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	const pthread_mutex_t *found = NULL;
	const ElfW(Sym) *sym;
	const char *g;
	Dl_info di;
	size_t off;
	int n = 0;

	(void)info;
	(void)size;
	(void)ctx;
	g = dlsym(RTLD_DEFAULT, "_rtld_global");
	if (!g || !dladdr1(g, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return 1;
	for (off = 0; off + sizeof(pthread_mutex_t) <= sym->st_size; off += sizeof(long)) {
		const pthread_mutex_t *m = (const pthread_mutex_t *)(g + off);

		if (m->__data.__owner == tid && m->__data.__lock && m->__data.__count == 1 &&
		    m->__data.__kind == PTHREAD_MUTEX_RECURSIVE_NP) {
			found = m;
			n++;
		}
	}
	/* More than one: none is surely it. */
	lock = n == 1 ? found : NULL;
	return 1;
}

void wt_loader_lock_find(void)
{
	lock = NULL;
	dl_iterate_phdr(find, NULL);
}

int wt_loader_busy(void)
{
	const volatile pthread_mutex_t *m = lock;

	return m && m->__data.__lock && !m->__data.__owner;
}

const volatile pthread_mutex_t *wt_loader_lock(void)
{
	return lock;
}
