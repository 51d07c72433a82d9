/*
 * sysbuf.c - system calls that read or write watched bytes.
 *
 * A debug register fires on the kernel's accesses too: read() filling a
 * buffer, write() copying one out. perf drops those traps (the breakpoints
 * are user-only), so the crafts never saw them, yet the kernel's access is
 * an access. witch spy counts it (spy_kernel_read and spy_kernel_write in
 * src/spy/analysis.c), and the crafts judge it the same way, at the call:
 *
 *   DeadCraft    the kernel reading the stored bytes uses them; the kernel
 *                writing them kills them (waste). The verdict's context is
 *                the library call, then the program's frames that made it.
 *   SilentCraft  the kernel writing them ends the watch unjudged (the spy
 *                does not judge it; the kernel becomes the bytes' writer).
 *   LoadCraft    neither is a load: the watch is disabled during the call
 *                and comes back after it, still waiting for the next load
 *                (and costing no debug exception per call meanwhile).
 *
 * The calls come here through the program's PLT: read, write, their p- and
 * v- variants, and recv/send. Not seen here: glibc's own calls (fread's
 * read), io_uring, raw syscall(), and v- calls of more than MAX_IOV
 * buffers. --watch=pages catches every system call itself (pagewatch.c).
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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "runtime/witch.h"

#define EXPORT __attribute__((visibility("default")))

/* What the kernel does to the buffers. */
enum direction { KERNEL_READS, KERNEL_WRITES };

/* v- calls with more buffers than this are not judged: the copy is on the
 * program's stack, which may be a small signal stack. */
#define MAX_IOV 16

/* The buffers of one call: a copy of its iovecs (one for read). */
struct buffers {
	struct iovec iov[MAX_IOV];
	int n;
};

static __thread int busy __attribute__((tls_model("initial-exec")));

/* The bytes of [lo, hi) that the first `len` bytes of the buffers cover:
 * the lowest and highest covered address into *a, *b. 0 when none. */
static int covered(const struct buffers *b, size_t len, uintptr_t lo, uintptr_t hi, uintptr_t *a,
		   uintptr_t *z)
{
	int i, found = 0;

	for (i = 0; i < b->n && len; i++) {
		uintptr_t p = (uintptr_t)b->iov[i].iov_base;
		size_t n = b->iov[i].iov_len < len ? b->iov[i].iov_len : len;
		uintptr_t x = p > lo ? p : lo, y = p + n < hi ? p + n : hi;

		len -= n;
		if (x >= y)
			continue;
		if (!found || x < *a)
			*a = x;
		if (!found || y > *z)
			*z = y;
		found = 1;
	}
	return found;
}

/* The sampled access's bytes that the craft keeps (as craft.c). */
static size_t sampled_bytes(const struct wt_slot *s)
{
	return s->acc.size < sizeof(s->value) ? s->acc.size : sizeof(s->value);
}

/* Does the call touch the watched bytes of slot s? Then [*a, *z) is what
 * it touches of the sampled access, which the verdict covers. */
static int slot_covered(const struct wt_slot *s, const struct buffers *b, size_t len,
			uintptr_t *a, uintptr_t *z)
{
	if (!covered(b, len, s->addr, s->addr + s->len, a, z))
		return 0;
	covered(b, len, s->ea, s->ea + sampled_bytes(s), a, z);
	return 1;
}

/* A watch the call may judge or pause: one whose sampled access has run. */
static int watching(const struct wt_slot *s)
{
	return s->state == WT_SLOT_WATCH && !s->skip_self;
}

/* Does the call touch a watch of t's that the kernel's access matters to?
 * The cheap test, before any signal is blocked; judged again with them
 * blocked. */
static int touches(const struct wt_thread *t, const struct buffers *b, size_t len,
		   enum direction dir)
{
	uintptr_t a, z;
	int i;

	/* SilentCraft's W watches do not fire on reads. */
	if (wt_cfg.craft == WT_CRAFT_SILENT && dir == KERNEL_READS)
		return 0;
	for (i = 0; i < t->nslots; i++)
		if (watching(&t->slot[i]) && slot_covered(&t->slot[i], b, len, &a, &z))
			return 1;
	return 0;
}

/*
 * The calling context of the library call: fn (the library's function)
 * as the leaf, then the program's frames. libwitch's own frames (this
 * wrapper) are left out. The unwinder reads the stack, which a watch may
 * cover: the watches are paused meanwhile.
 */
static uint32_t call_node(struct wt_thread *t, void *fn)
{
	uintptr_t pcs[WT_MAX_FRAMES], start, end;
	unsigned paused = wt_pause_watches(t);
	ucontext_t uc;
	int n = 0, i = 0;

	if (getcontext(&uc) == 0)
		n = wt_unwind(&uc, pcs, WT_MAX_FRAMES, &start, &end);
	wt_resume_watches(t, paused);
	while (i < n && wt_own_code(pcs[i]))
		i++;
	if (i == 0 || i >= n)
		i = n = 1;	/* no frames of the program's: the call alone */
	pcs[--i] = (uintptr_t)fn;
	return wt_cct_path(&t->cct, pcs + i, n - i);
}

/* DeadCraft: the kernel read or wrote [a, z) of the watch in s. */
static void judge(struct wt_thread *t, struct wt_slot *s, void *fn, enum direction dir,
		  uintptr_t a, uintptr_t z)
{
	struct wd_access acc;

	memset(&acc, 0, sizeof(acc));
	acc.pc = (uintptr_t)fn;
	acc.kind = dir == KERNEL_WRITES ? WD_STORE : WD_LOAD;
	acc.size = (uint8_t)(z - a);
	acc.base = acc.index = WD_REG_NONE;
	if (!wt_craft_judge(t, s, &acc, a, 1, call_node(t, fn)))
		wt_slot_free(t, s);
}

/*
 * Before the call, with witch's signals blocked: judge what the kernel
 * will read (DeadCraft), and disable LoadCraft's watches it will touch.
 * Returns the slots disabled.
 */
static unsigned before(struct wt_thread *t, void *fn, const struct buffers *b, size_t len,
		       enum direction dir)
{
	unsigned paused = 0;
	uintptr_t a, z;
	int i;

	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if (!watching(s) || !slot_covered(s, b, len, &a, &z))
			continue;
		if (wt_cfg.craft == WT_CRAFT_LOAD) {
			t->st.syscall_buffer_hits++;
			ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
			s->state = WT_SLOT_KERNEL;
			paused |= 1u << i;
		} else if (wt_cfg.craft == WT_CRAFT_DEAD && dir == KERNEL_READS) {
			t->st.syscall_buffer_hits++;
			judge(t, s, fn, dir, a, z);
		}
	}
	return paused;
}

/*
 * After the call, which wrote `done` bytes into the buffers (KERNEL_WRITES)
 * or not: judge what the kernel wrote, and give LoadCraft's watches back
 * (those a sample did not replace meanwhile).
 */
static void after(struct wt_thread *t, void *fn, const struct buffers *b, ssize_t done,
		  enum direction dir, unsigned paused)
{
	uintptr_t a, z;
	int i;

	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if ((paused & (1u << i)) && s->state == WT_SLOT_KERNEL) {
			s->state = WT_SLOT_WATCH;
			/* What a read-modify-write would read next. */
			if (dir == KERNEL_WRITES && s->have_value)
				wt_read_target(s->cur, s->ea, sampled_bytes(s));
			ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
			continue;
		}
		if (dir != KERNEL_WRITES || done <= 0 || !watching(s) ||
		    !slot_covered(s, b, (size_t)done, &a, &z))
			continue;
		if (wt_cfg.craft == WT_CRAFT_DEAD) {
			t->st.syscall_buffer_hits++;
			judge(t, s, fn, dir, a, z);
		} else if (wt_cfg.craft == WT_CRAFT_SILENT) {
			t->st.syscall_buffer_hits++;
			wt_attrib_abandoned(&t->cct.nodes[s->watch_node]);
			wt_slot_free(t, s);
		}
	}
}

/* One call of the program's: where enter() returns 1, leave() ends it. */
struct call {
	struct wt_thread *t;
	void *fn;		/* the library's function */
	struct buffers bufs;
	enum direction dir;
	unsigned paused;
};

/* Any watch at all? Only then are a v- call's iovecs worth copying. */
static int any_watch(const struct wt_thread *t)
{
	int i;

	for (i = 0; i < t->nslots; i++)
		if (watching(&t->slot[i]))
			return 1;
	return 0;
}

/*
 * Copy the call's iovecs into c->bufs and return the bytes they span (0
 * when none can be judged). The kernel's copy: an array the program got
 * wrong fails its call with EFAULT, and must not crash it here.
 */
static size_t take_iov(struct call *c, const struct iovec *iov, int n)
{
	size_t len = 0;
	int i;

	if (n <= 0 || n > MAX_IOV || !any_watch(c->t) ||
	    wt_read_target(c->bufs.iov, (uintptr_t)iov, n * sizeof(*iov)) < 0)
		return 0;
	c->bufs.n = n;
	for (i = 0; i < n; i++)
		len += c->bufs.iov[i].iov_len;
	return len;
}

/* Resolve *real (the library's function `name`). 1 when this thread's
 * watches may be judged by the call. */
static int watched_call(struct call *c, const char *name, void **real, enum direction dir)
{
	if (!*real)
		*real = dlsym(RTLD_NEXT, name);
	c->fn = *real;
	c->dir = dir;
	c->t = busy ? NULL : wt_self_watching();
	return c->t != NULL;
}

/* The cheap test on the first len bytes of c's buffers. 1 when the call
 * touches a watch: judged and paused now, its end to leave(). */
static int enter(struct call *c, size_t len)
{
	sigset_t old;

	if (!len || !touches(c->t, &c->bufs, len, c->dir))
		return 0;
	busy = 1;
	wt_block_own_signals(&old);
	c->paused = before(c->t, c->fn, &c->bufs, len, c->dir);
	wt_restore_signals(&old);
	busy = 0;
	return 1;
}

/* A call of one buffer at buf, n bytes (an address: its bytes are not read). */
static int enter_buf(struct call *c, const char *name, void **real, enum direction dir,
		     uintptr_t buf, size_t n)
{
	if (!watched_call(c, name, real, dir))
		return 0;
	c->bufs.n = 1;
	c->bufs.iov[0].iov_base = (void *)buf;
	c->bufs.iov[0].iov_len = n;
	return enter(c, n);
}

/* A v- call of n buffers. */
static int enter_iov(struct call *c, const char *name, void **real, enum direction dir,
		     const struct iovec *iov, int n)
{
	return watched_call(c, name, real, dir) && enter(c, take_iov(c, iov, n));
}

static ssize_t leave(struct call *c, ssize_t r)
{
	int e = errno;
	sigset_t old;

	busy = 1;
	wt_block_own_signals(&old);
	if (wt_self_watching() == c->t)
		after(c->t, c->fn, &c->bufs, r, c->dir, c->paused);
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

	if (!enter_buf(&c, "read", (void **)&real, KERNEL_WRITES, (uintptr_t)buf, n))
		return real(fd, buf, n);
	return leave(&c, real(fd, buf, n));
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
		struct call c;

	if (!enter_buf(&c, "pread64", (void **)&real, KERNEL_WRITES, (uintptr_t)buf, n))
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

	if (!enter_iov(&c, "readv", (void **)&real, KERNEL_WRITES, iov, n))
		return real(fd, iov, n);
	return leave(&c, real(fd, iov, n));
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	struct call c;

	if (!enter_iov(&c, "preadv64", (void **)&real, KERNEL_WRITES, iov, n))
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

	if (!enter_buf(&c, "recvfrom", (void **)&real, KERNEL_WRITES, (uintptr_t)buf, n))
		return real(fd, buf, n, flags, from, fromlen);
	return leave(&c, real(fd, buf, n, flags, from, fromlen));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
		struct call c;

	if (!enter_buf(&c, "write", (void **)&real, KERNEL_READS, (uintptr_t)buf, n))
		return real(fd, buf, n);
	return leave(&c, real(fd, buf, n));
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
		struct call c;

	if (!enter_buf(&c, "pwrite64", (void **)&real, KERNEL_READS, (uintptr_t)buf, n))
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

	if (!enter_iov(&c, "writev", (void **)&real, KERNEL_READS, iov, n))
		return real(fd, iov, n);
	return leave(&c, real(fd, iov, n));
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	struct call c;

	if (!enter_iov(&c, "pwritev64", (void **)&real, KERNEL_READS, iov, n))
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

	if (!enter_buf(&c, "sendto", (void **)&real, KERNEL_READS, (uintptr_t)buf, n))
		return real(fd, buf, n, flags, to, tolen);
	return leave(&c, real(fd, buf, n, flags, to, tolen));
}
