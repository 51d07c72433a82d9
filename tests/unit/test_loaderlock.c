/*
 * test_loaderlock.c - the dynamic loader's lock as the runtime's handlers
 * see it (src/runtime/loaderlock.c): free, held by an owner (their own
 * thread, or another: they may unwind), and held with no owner recorded,
 * as in the instructions where a thread takes or releases it (they must
 * not: that thread may be their own, which would wait for itself).
 */
#include <link.h>
#include <pthread.h>

#include "runtime/runtime.h"
#include "tap.h"

static int by_self, by_other, in_window;

static void *other(void *arg)
{
	(void)arg;
	by_other = wt_loader_busy();
	return NULL;
}

/* Inside dl_iterate_phdr this thread holds the lock, as its owner. */
static int inside(struct dl_phdr_info *info, size_t size, void *arg)
{
	volatile pthread_mutex_t *m = (volatile pthread_mutex_t *)wt_loader_lock();
	pthread_t t;
	int owner;

	(void)info;
	(void)size;
	(void)arg;
	by_self = wt_loader_busy();
	pthread_create(&t, NULL, other, NULL);
	pthread_join(t, NULL);
	/* The state between taking the lock and recording the owner. */
	owner = m->__data.__owner;
	m->__data.__owner = 0;
	in_window = wt_loader_busy();
	m->__data.__owner = owner;
	return 1;
}

int main(void)
{
	wt_loader_lock_find();
	tap_ok(wt_loader_lock() != NULL, "glibc's loader lock is found");
	if (!wt_loader_lock())
		return tap_done();
	tap_ok(!wt_loader_busy(), "free: handlers may unwind");
	dl_iterate_phdr(inside, NULL);
	tap_ok(!by_self, "held by their own thread as its owner: they may (it is recursive)");
	tap_ok(!by_other, "held by another thread: they may (it releases it)");
	tap_ok(in_window, "held with no owner recorded: they may not");
	tap_ok(!wt_loader_busy(), "free again");
	return tap_done();
}
