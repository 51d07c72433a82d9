/*
 * sysbuf.c - the program's read, write and friends, wrapped: the kernel's
 * accesses to watched buffers are judged at the call (kernelio.c says how).
 *
 * The calls come here through the program's PLT: read, write, their p- and
 * v- variants, and recv/send. Not seen here: glibc's own calls (fread's
 * read), io_uring, raw syscall(), and v- calls of more than
 * WT_KCALL_MAX_IOV buffers. --watch=pages catches every system call itself
 * (pagewatch.c), and these wrappers stand aside.
 *
 * A program's signal handler may call write() while this thread is inside
 * a wrapper here: that call goes straight through (`busy`), as the slots
 * and the calling-context tree are the outer call's until it is done.
 *
 * Only libwitch.so has this file: linked into a unit test, its read and
 * write would be the test's own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/runtime.h"

#define EXPORT __attribute__((visibility("default")))

static __thread int busy __attribute__((tls_model("initial-exec")));

/* One call of the program's: where enter() returns 1, leave() ends it. */
struct call {
	struct wt_thread *t;
	struct wt_kcall k;
};

/* Resolve *real (the library's function `name`). 1 when this thread's
 * watches may be judged by the call. */
static int watched_call(struct call *c, const char *name, void **real, enum wt_kernel_dir dir)
{
	if (!*real)
		*real = dlsym(RTLD_NEXT, name);
	c->k.leaf = (uintptr_t)*real;
	c->k.uc = NULL;
	c->k.dir = dir;
	c->k.n = 0;
	c->t = busy ? NULL : wt_self_watching();
	return c->t != NULL;
}

/* The cheap test on the first len bytes of c's buffers. 1 when the call
 * touches a watch: judged and paused now, its end to leave(). */
static int enter(struct call *c, size_t len)
{
	sigset_t old;

	if (!len || !wt_kcall_touches(c->t, &c->k, len))
		return 0;
	busy = 1;
	wt_block_own_signals(&old);
	wt_kcall_before(c->t, &c->k, len);
	wt_restore_signals(&old);
	busy = 0;
	return 1;
}

/* A call of one buffer at buf, n bytes (an address: its bytes are not read). */
static int enter_buf(struct call *c, const char *name, void **real, enum wt_kernel_dir dir,
		     uintptr_t buf, size_t n)
{
	return watched_call(c, name, real, dir) && enter(c, wt_kcall_take_buf(&c->k, buf, n));
}

/* A v- call of n buffers. */
static int enter_iov(struct call *c, const char *name, void **real, enum wt_kernel_dir dir,
		     const struct iovec *iov, int n)
{
	return watched_call(c, name, real, dir) && enter(c, wt_kcall_take_iov(c->t, &c->k, iov, n));
}

static ssize_t leave(struct call *c, ssize_t r)
{
	int e = errno;
	sigset_t old;

	busy = 1;
	wt_block_own_signals(&old);
	if (wt_self_watching() == c->t)
		wt_kcall_after(c->t, &c->k, r);
	wt_restore_signals(&old);
	busy = 0;
	errno = e;
	return r;
}

/* --- the calls --------------------------------------------------------- */

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	struct call c;

	if (!enter_buf(&c, "read", (void **)&real, WT_KERNEL_WRITES, (uintptr_t)buf, n))
		return real(fd, buf, n);
	return leave(&c, real(fd, buf, n));
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	struct call c;

	if (!enter_buf(&c, "pread64", (void **)&real, WT_KERNEL_WRITES, (uintptr_t)buf, n))
		return real(fd, buf, n, off);
	return leave(&c, real(fd, buf, n, off));
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return pread64(fd, buf, n, off);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	struct call c;

	if (!enter_iov(&c, "readv", (void **)&real, WT_KERNEL_WRITES, iov, n))
		return real(fd, iov, n);
	return leave(&c, real(fd, iov, n));
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	struct call c;

	if (!enter_iov(&c, "preadv64", (void **)&real, WT_KERNEL_WRITES, iov, n))
		return real(fd, iov, n, off);
	return leave(&c, real(fd, iov, n, off));
}

EXPORT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	return preadv64(fd, iov, n, off);
}

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	return recvfrom(fd, buf, n, flags, NULL, NULL);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
			socklen_t *fromlen)
{
	static ssize_t (*real)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	struct call c;

	if (!enter_buf(&c, "recvfrom", (void **)&real, WT_KERNEL_WRITES, (uintptr_t)buf, n))
		return real(fd, buf, n, flags, from, fromlen);
	return leave(&c, real(fd, buf, n, flags, from, fromlen));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	struct call c;

	if (!enter_buf(&c, "write", (void **)&real, WT_KERNEL_READS, (uintptr_t)buf, n))
		return real(fd, buf, n);
	return leave(&c, real(fd, buf, n));
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	struct call c;

	if (!enter_buf(&c, "pwrite64", (void **)&real, WT_KERNEL_READS, (uintptr_t)buf, n))
		return real(fd, buf, n, off);
	return leave(&c, real(fd, buf, n, off));
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	struct call c;

	if (!enter_iov(&c, "writev", (void **)&real, WT_KERNEL_READS, iov, n))
		return real(fd, iov, n);
	return leave(&c, real(fd, iov, n));
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	struct call c;

	if (!enter_iov(&c, "pwritev64", (void **)&real, WT_KERNEL_READS, iov, n))
		return real(fd, iov, n, off);
	return leave(&c, real(fd, iov, n, off));
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	return pwritev64(fd, iov, n, off);
}

EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	return sendto(fd, buf, n, flags, NULL, 0);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
		      socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	struct call c;

	if (!enter_buf(&c, "sendto", (void **)&real, WT_KERNEL_READS, (uintptr_t)buf, n))
		return real(fd, buf, n, flags, to, tolen);
	return leave(&c, real(fd, buf, n, flags, to, tolen));
}
