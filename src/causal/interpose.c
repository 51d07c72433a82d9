/*
 * interpose.c - the pthread, semaphore and signal calls through which one
 * thread wakes or waits for another (COZ section 3.4).
 *
 * Table 1 (a thread may wake another): the caller first executes the
 * delays it owes, so that the woken thread may skip them.
 * Table 2 (a thread may block): the thread's state is saved before, and
 * when another thread woke it the delays added while it was blocked are
 * skipped after. Uncontended locks take the fast path (a try first) and
 * never count as blocking.
 *
 * A thread also executes what it owes when it is about to take a lock:
 * it holds none (or fewer) then. Debts paid at the unlock or the condition
 * wait would be paid holding the lock, and every thread waiting for it
 * would wait the pause too: in a pipeline, the pauses of the stage that is
 * not sped up would slow the stage that is.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>

#include "causal/causal.h"

#define REAL(name)                                                    \
	static __typeof__(name) *real_;                               \
	if (!real_)                                                   \
		real_ = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* Versioned: the old pthread_cond_* of glibc 2.2.5 take another struct. */
#define REAL_COND(name)                                                          \
	static __typeof__(name) *real_;                                          \
	if (!real_)                                                              \
		real_ = (__typeof__(name) *)dlvsym(RTLD_NEXT, #name, "GLIBC_2.3.2"); \
	if (!real_)                                                              \
		real_ = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static struct wc_thread *me(void)
{
	return wc_active ? wc_self() : NULL;
}

/* --- mutexes -------------------------------------------------------------- */

WC_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct wc_thread *t = me();
	int rc;
	REAL(pthread_mutex_lock);

	if (t) {
		static __typeof__(pthread_mutex_trylock) *try_;

		wc_pay_own(t);
		if (!try_)
			try_ = (__typeof__(pthread_mutex_trylock) *)dlsym(RTLD_NEXT,
									 "pthread_mutex_trylock");
		rc = try_(m);
		if (rc != EBUSY)
			return rc;
		wc_pre_block(t);
	}
	rc = real_(m);
	if (t)
		wc_post_block(t, 1);
	return rc;
}

WC_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
	struct wc_thread *t = me();
	int rc;
	REAL(pthread_mutex_timedlock);

	if (t)
		wc_pre_block(t);
	rc = real_(m, ts);
	if (t)
		wc_post_block(t, rc == 0);
	return rc;
}

WC_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct wc_thread *t = me();
	REAL(pthread_mutex_unlock);

	if (t)
		wc_catch_up(t);
	return real_(m);
}

/* --- condition variables ---------------------------------------------------- */

WC_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	struct wc_thread *t = me();
	int rc;
	REAL_COND(pthread_cond_wait);

	if (t)
		wc_pre_block(t);	/* it also unlocks m: caught up first */
	rc = real_(c, m);
	if (t)
		wc_post_block(t, 1);
	return rc;
}

WC_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *ts)
{
	struct wc_thread *t = me();
	int rc;
	REAL_COND(pthread_cond_timedwait);

	if (t)
		wc_pre_block(t);
	rc = real_(c, m, ts);
	if (t)
		wc_post_block(t, rc == 0);
	return rc;
}

WC_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	struct wc_thread *t = me();
	REAL_COND(pthread_cond_signal);

	if (t)
		wc_catch_up(t);
	return real_(c);
}

WC_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	struct wc_thread *t = me();
	REAL_COND(pthread_cond_broadcast);

	if (t)
		wc_catch_up(t);
	return real_(c);
}

/* --- barriers, join ----------------------------------------------------------- */

WC_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct wc_thread *t = me();
	int rc;
	REAL(pthread_barrier_wait);

	if (t)
		wc_pre_block(t);	/* wakes the others too: caught up first */
	rc = real_(b);
	if (t)
		wc_post_block(t, 1);
	return rc;
}

WC_EXPORT int pthread_join(pthread_t th, void **rv)
{
	struct wc_thread *t = me();
	int rc;
	REAL(pthread_join);

	if (t)
		wc_pre_block(t);
	rc = real_(th, rv);
	if (t)
		wc_post_block(t, rc == 0);
	return rc;
}

WC_EXPORT int pthread_timedjoin_np(pthread_t th, void **rv, const struct timespec *ts)
{
	struct wc_thread *t = me();
	int rc;
	REAL(pthread_timedjoin_np);

	if (t)
		wc_pre_block(t);
	rc = real_(th, rv, ts);
	if (t)
		wc_post_block(t, rc == 0);
	return rc;
}

/* --- reader-writer locks ------------------------------------------------------ */

#define RWLOCK(name, tryname)                                                       \
	WC_EXPORT int name(pthread_rwlock_t *l)                                     \
	{                                                                           \
		struct wc_thread *t = me();                                         \
		int rc;                                                             \
		REAL(name);                                                         \
		if (t) {                                                            \
			static __typeof__(tryname) *try_;                           \
			wc_pay_own(t);                                              \
			if (!try_)                                                  \
				try_ = (__typeof__(tryname) *)dlsym(RTLD_NEXT, #tryname); \
			rc = try_(l);                                               \
			if (rc != EBUSY)                                            \
				return rc;                                          \
			wc_pre_block(t);                                            \
		}                                                                   \
		rc = real_(l);                                                      \
		if (t)                                                              \
			wc_post_block(t, 1);                                        \
		return rc;                                                          \
	}

RWLOCK(pthread_rwlock_rdlock, pthread_rwlock_tryrdlock)
RWLOCK(pthread_rwlock_wrlock, pthread_rwlock_trywrlock)

#define RWLOCK_TIMED(name)                                                          \
	WC_EXPORT int name(pthread_rwlock_t *l, const struct timespec *ts)          \
	{                                                                           \
		struct wc_thread *t = me();                                         \
		int rc;                                                             \
		REAL(name);                                                         \
		if (t)                                                              \
			wc_pre_block(t);                                            \
		rc = real_(l, ts);                                                  \
		if (t)                                                              \
			wc_post_block(t, rc == 0);                                  \
		return rc;                                                          \
	}

RWLOCK_TIMED(pthread_rwlock_timedrdlock)
RWLOCK_TIMED(pthread_rwlock_timedwrlock)

WC_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	struct wc_thread *t = me();
	REAL(pthread_rwlock_unlock);

	if (t)
		wc_catch_up(t);
	return real_(l);
}

/* --- semaphores ------------------------------------------------------------ */

WC_EXPORT int sem_wait(sem_t *s)
{
	struct wc_thread *t = me();
	int rc;
	REAL(sem_wait);

	if (t) {
		static __typeof__(sem_trywait) *try_;

		wc_pay_own(t);
		if (!try_)
			try_ = (__typeof__(sem_trywait) *)dlsym(RTLD_NEXT, "sem_trywait");
		rc = try_(s);
		if (rc == 0 || errno != EAGAIN)
			return rc;
		wc_pre_block(t);
	}
	rc = real_(s);
	if (t) {
		int e = errno;

		wc_post_block(t, rc == 0);
		errno = e;
	}
	return rc;
}

WC_EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts)
{
	struct wc_thread *t = me();
	int rc;
	REAL(sem_timedwait);

	if (t)
		wc_pre_block(t);
	rc = real_(s, ts);
	if (t) {
		int e = errno;

		wc_post_block(t, rc == 0);
		errno = e;
	}
	return rc;
}

WC_EXPORT int sem_post(sem_t *s)
{
	struct wc_thread *t = me();
	REAL(sem_post);

	if (t)
		wc_catch_up(t);
	return real_(s);
}

/* --- signals between threads -------------------------------------------------- */

WC_EXPORT int pthread_kill(pthread_t th, int sig)
{
	struct wc_thread *t = me();
	REAL(pthread_kill);

	if (t)
		wc_catch_up(t);
	return real_(th, sig);
}

WC_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	struct wc_thread *t = me();
	REAL(tgkill);

	if (t)
		wc_catch_up(t);
	return real_(tgid, tid, sig);
}

WC_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	struct wc_thread *t = me();
	int rc;
	REAL(sigwait);

	if (t)
		wc_pre_block(t);
	rc = real_(set, sig);
	if (t)
		wc_post_block(t, rc == 0);
	return rc;
}

WC_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	struct wc_thread *t = me();
	int rc;
	REAL(sigwaitinfo);

	if (t)
		wc_pre_block(t);
	rc = real_(set, info);
	if (t) {
		int e = errno;

		wc_post_block(t, rc > 0);
		errno = e;
	}
	return rc;
}

WC_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	struct wc_thread *t = me();
	int rc;
	REAL(sigtimedwait);

	if (t)
		wc_pre_block(t);
	rc = real_(set, info, ts);
	if (t) {
		int e = errno;

		wc_post_block(t, rc > 0);
		errno = e;
	}
	return rc;
}

WC_EXPORT int sigsuspend(const sigset_t *mask)
{
	struct wc_thread *t = me();
	int rc;
	REAL(sigsuspend);

	if (t)
		wc_pre_block(t);
	rc = real_(mask);
	if (t) {
		int e = errno;

		wc_post_block(t, 1);
		errno = e;
	}
	return rc;
}
