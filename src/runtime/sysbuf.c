/*
 * sysbuf.c - system calls that read or write watched bytes.
 *
 * A debug register fires on the kernel's accesses too: read() filling a
 * buffer, write() copying one out. perf drops those traps (the breakpoints
 * are user-only), but each one still costs a debug exception. sqlite3 reads
 * its 16-byte file header into the same buffer 300 000 times in a run; a
 * LoadCraft watch left on that buffer made the run 2-3x slower, all of it
 * kernel time that witch never saw.
 *
 * And the kernel's access is an access. witch spy counts it
 * (spy_kernel_read and spy_kernel_write in src/spy/analysis.c), so the
 * crafts judge it the same way:
 *
 *   DeadCraft    the kernel reading the stored bytes uses them; the kernel
 *                writing them kills them (waste). The verdict's context is
 *                the library call, then the program's frames that made it.
 *   SilentCraft  the kernel writing them ends the watch unjudged (the spy
 *                does not judge it; the kernel becomes the bytes' writer).
 *   LoadCraft    neither is a load: the watch is disabled during the call
 *                and comes back after it, still waiting for the next load.
 *
 * The calls come here through the program's PLT: read, write, their p- and
 * v- variants, and recv/send. Not seen here: glibc's own calls (fread's
 * read), io_uring, and raw syscall(). --watch=pages catches every system
 * call itself (pagewatch.c).
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

/* The buffers of one call, as an iovec array (one element for read). */
struct buffers {
	const struct iovec *iov;
	int n;
};

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
	for (i = 0; i < t->nslots; i++) {
		const struct wt_slot *s = &t->slot[i];

		if (s->state == WT_SLOT_WATCH && !s->skip_self &&
		    covered(b, len, s->addr, s->addr + s->len, &a, &z))
			return 1;
	}
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
	if (i == 0 || i >= n) {
		t->st.samples_unwind_failed++;
		return 0;
	}
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

		if (s->state != WT_SLOT_WATCH || s->skip_self || !slot_covered(s, b, len, &a, &z))
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
		if (dir != KERNEL_WRITES || done <= 0 || s->state != WT_SLOT_WATCH ||
		    s->skip_self || !slot_covered(s, b, (size_t)done, &a, &z))
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

/*
 * Resolve *real (the library's fn) and take the cheap test. 1 when the
 * call touches a watch: judged and paused now, its end to leave().
 */
static int enter(struct call *c, const char *name, void **real, const struct iovec *iov, int n,
		 size_t len, enum direction dir)
{
	sigset_t old;

	if (!*real)
		*real = dlsym(RTLD_NEXT, name);
	c->t = wt_self_watching();
	c->fn = *real;
	c->bufs.iov = iov;
	c->bufs.n = n;
	c->dir = dir;
	if (!c->t || !touches(c->t, &c->bufs, len, dir))
		return 0;
	wt_block_own_signals(&old);
	c->paused = before(c->t, c->fn, &c->bufs, len, dir);
	wt_restore_signals(&old);
	return 1;
}

static ssize_t leave(struct call *c, ssize_t r)
{
	int e = errno;
	sigset_t old;

	wt_block_own_signals(&old);
	if (c->t->ready && !wt_stopping)
		after(c->t, c->fn, &c->bufs, r, c->dir, c->paused);
	wt_restore_signals(&old);
	errno = e;
	return r;
}

/* The total length of an iovec array (the kernel refuses more than SSIZE_MAX). */
static size_t total(const struct iovec *iov, int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n && iov; i++)
		len += iov[i].iov_len;
	return len;
}

/* --- the calls --------------------------------------------------------- */

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	struct iovec v = { buf, n };
	struct call c;

	if (!enter(&c, "read", (void **)&real, &v, 1, n, KERNEL_WRITES))
		return real(fd, buf, n);
	return leave(&c, real(fd, buf, n));
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	struct iovec v = { buf, n };
	struct call c;

	if (!enter(&c, "pread64", (void **)&real, &v, 1, n, KERNEL_WRITES))
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

	if (!enter(&c, "readv", (void **)&real, iov, n, total(iov, n), KERNEL_WRITES))
		return real(fd, iov, n);
	return leave(&c, real(fd, iov, n));
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	struct call c;

	if (!enter(&c, "preadv64", (void **)&real, iov, n, total(iov, n), KERNEL_WRITES))
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
	struct iovec v = { buf, n };
	struct call c;

	if (!enter(&c, "recvfrom", (void **)&real, &v, 1, n, KERNEL_WRITES))
		return real(fd, buf, n, flags, from, fromlen);
	return leave(&c, real(fd, buf, n, flags, from, fromlen));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	struct iovec v = { (void *)buf, n };
	struct call c;

	if (!enter(&c, "write", (void **)&real, &v, 1, n, KERNEL_READS))
		return real(fd, buf, n);
	return leave(&c, real(fd, buf, n));
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	struct iovec v = { (void *)buf, n };
	struct call c;

	if (!enter(&c, "pwrite64", (void **)&real, &v, 1, n, KERNEL_READS))
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

	if (!enter(&c, "writev", (void **)&real, iov, n, total(iov, n), KERNEL_READS))
		return real(fd, iov, n);
	return leave(&c, real(fd, iov, n));
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);
	struct call c;

	if (!enter(&c, "pwritev64", (void **)&real, iov, n, total(iov, n), KERNEL_READS))
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
	struct iovec v = { (void *)buf, n };
	struct call c;

	if (!enter(&c, "sendto", (void **)&real, &v, 1, n, KERNEL_READS))
		return real(fd, buf, n, flags, to, tolen);
	return leave(&c, real(fd, buf, n, flags, to, tolen));
}
