/*
 * kernelio.c - the kernel reading or writing watched bytes in a system call.
 *
 * A debug register fires on the kernel's accesses too: read() filling a
 * buffer, write() copying one out. perf drops those traps (the breakpoints
 * are user-only), and with --watch=pages the pages are exposed while the
 * call runs, so neither watch sees them; yet the kernel's access is an
 * access. witch spy counts it (spy_kernel_read and spy_kernel_write in
 * src/spy/analysis.c), and the crafts judge it the same way, at the call:
 *
 *   DeadCraft    the kernel reading the stored bytes uses them; the kernel
 *                writing them kills them (waste). The verdict's context is
 *                the call (libc's function), then the program's frames.
 *   SilentCraft  the kernel writing them ends the watch unjudged (the spy
 *                does not judge it; the kernel becomes the bytes' writer).
 *   LoadCraft    neither is a load: the watch waits through the call for
 *                the next load. A debug register is disabled meanwhile (no
 *                debug exception per call); a page is exposed anyway.
 *
 * Two ways in: sysbuf.c's wrappers of the program's read, write and
 * friends (debug registers), and pagewatch.c's system calls caught by
 * syscall user dispatch (--watch=pages: every call, glibc's own too).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "runtime/hit.h"
#include "runtime/runtime.h"

#define X86_TRAP_FLAG 0x100	/* EFLAGS.TF */

/* The bytes of [lo, hi) that the first `len` bytes of the buffers cover:
 * the lowest and highest covered address into *a, *z. 0 when none. */
static int covered(const struct wt_kcall *c, size_t len, uintptr_t lo, uintptr_t hi,
		   uintptr_t *a, uintptr_t *z)
{
	int i, found = 0;

	for (i = 0; i < c->n && len; i++) {
		uintptr_t p = (uintptr_t)c->iov[i].iov_base;
		size_t n = c->iov[i].iov_len < len ? c->iov[i].iov_len : len;
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
static int slot_covered(const struct wt_slot *s, const struct wt_kcall *c, size_t len,
			uintptr_t *a, uintptr_t *z)
{
	if (!covered(c, len, s->addr, s->addr + s->len, a, z))
		return 0;
	covered(c, len, s->ea, s->ea + sampled_bytes(s), a, z);
	return 1;
}

/* A watch the call may judge or pause: one whose sampled access has run
 * (and whose page is still watched, with --watch=pages). */
static int watching(const struct wt_slot *s)
{
	return s->state == WT_SLOT_WATCH && !s->skip_self && (s->fd >= 0 || s->page);
}

static int any_watch(const struct wt_thread *t)
{
	int i;

	for (i = 0; i < t->nslots; i++)
		if (watching(&t->slot[i]))
			return 1;
	return 0;
}

int wt_kcall_touches(const struct wt_thread *t, const struct wt_kcall *c, size_t len)
{
	uintptr_t a, z;
	int i;

	/* SilentCraft's W watches do not fire on reads. */
	if (wt_cfg.craft == WT_CRAFT_SILENT && c->dir == WT_KERNEL_READS)
		return 0;
	for (i = 0; i < t->nslots; i++)
		if (watching(&t->slot[i]) && slot_covered(&t->slot[i], c, len, &a, &z))
			return 1;
	return 0;
}

size_t wt_kcall_take_buf(struct wt_kcall *c, uintptr_t buf, size_t n)
{
	c->n = 1;
	c->iov[0].iov_base = (void *)buf;
	c->iov[0].iov_len = n;
	return n;
}

size_t wt_kcall_take_iov(const struct wt_thread *t, struct wt_kcall *c, const struct iovec *iov,
			 int n)
{
	size_t len = 0;
	int i;

	c->n = 0;
	if (n <= 0 || n > WT_KCALL_MAX_IOV || !any_watch(t) ||
	    wt_read_target(c->iov, (uintptr_t)iov, (size_t)n * sizeof(*iov)) < 0)
		return 0;
	c->n = n;
	for (i = 0; i < n; i++)
		len += c->iov[i].iov_len;
	return len;
}

/* The stack from here (libwitch's frames first). The unwinder reads the
 * stack, which a watch may cover: the watches are paused meanwhile. */
static int unwind_here(struct wt_thread *t, uintptr_t *pcs)
{
	unsigned paused = wt_pause_watches(t);
	uintptr_t start, end;
	ucontext_t here;
	int n = 0;

	if (getcontext(&here) == 0)
		n = wt_unwind(&here, pcs, WT_MAX_FRAMES, &start, &end);
	wt_resume_watches(t, paused);
	return n;
}

/*
 * The calling context of the call: c->leaf (the library's function, or
 * the system call instruction), then the program's frames, unwound from
 * c->uc when the call was caught in a handler, else from here. libwitch's
 * own frames are left out: a wrapper's, here or, with --watch=pages, one
 * that passed the call on.
 */
static uint32_t call_node(struct wt_thread *t, const struct wt_kcall *c)
{
	uintptr_t pcs[WT_MAX_FRAMES], start, end;
	int n, i, k = 1;

	n = c->uc ? wt_unwind(c->uc, pcs, WT_MAX_FRAMES, &start, &end) : unwind_here(t, pcs);
	for (i = c->uc ? 1 : 0; i < n; i++)
		if (!wt_own_code(pcs[i]))
			pcs[k++] = pcs[i];
	pcs[0] = c->leaf;
	return wt_cct_path(&t->cct, pcs, k);
}

/* DeadCraft: the kernel read or wrote [a, z) of the watch in s. */
static void judge(struct wt_thread *t, struct wt_slot *s, const struct wt_kcall *c, uintptr_t a,
		  uintptr_t z)
{
	struct wd_access acc;
	struct wt_watched w;
	struct wt_hit h;

	memset(&acc, 0, sizeof(acc));
	acc.pc = c->leaf;
	acc.kind = c->dir == WT_KERNEL_WRITES ? WD_STORE : WD_LOAD;
	acc.size = (uint8_t)(z - a);
	acc.base = acc.index = WD_REG_NONE;
	wt_slot_watched(t, s, &w);
	wt_hit_plain(&acc, NULL, a, 1, &w, &h);
	if (!wt_craft_judge(t, s, &h, call_node(t, c)))
		wt_slot_free(t, s);
}

void wt_kcall_before(struct wt_thread *t, struct wt_kcall *c, size_t len)
{
	uintptr_t a, z;
	int i;

	c->paused = 0;
	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if (!watching(s) || !slot_covered(s, c, len, &a, &z))
			continue;
		if (wt_cfg.craft == WT_CRAFT_LOAD) {
			t->st.syscall_buffer_hits++;
			if (s->fd >= 0) {
				ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
				s->state = WT_SLOT_KERNEL;
			}
			c->paused |= 1u << i;
		} else if (wt_cfg.craft == WT_CRAFT_DEAD && c->dir == WT_KERNEL_READS) {
			t->st.syscall_buffer_hits++;
			judge(t, s, c, a, z);
		}
	}
}

void wt_kcall_after(struct wt_thread *t, const struct wt_kcall *c, ssize_t done)
{
	uintptr_t a, z;
	int i;

	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if (c->paused & (1u << i)) {
			/* Unless a sample replaced the watch meanwhile (a
			 * page is not disabled: its watch stays WATCH). */
			if (s->state != (s->fd >= 0 ? WT_SLOT_KERNEL : WT_SLOT_WATCH))
				continue;
			s->state = WT_SLOT_WATCH;
			/* What a read-modify-write would read next. */
			if (c->dir == WT_KERNEL_WRITES && s->have_value)
				wt_read_target(s->cur, s->ea, sampled_bytes(s));
			if (s->fd >= 0)
				ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
			continue;
		}
		if (c->dir != WT_KERNEL_WRITES || done <= 0 || !watching(s) ||
		    !slot_covered(s, c, (size_t)done, &a, &z))
			continue;
		if (wt_cfg.craft == WT_CRAFT_DEAD) {
			t->st.syscall_buffer_hits++;
			judge(t, s, c, a, z);
		} else if (wt_cfg.craft == WT_CRAFT_SILENT) {
			t->st.syscall_buffer_hits++;
			wt_attrib_abandoned(&t->cct.nodes[s->watch_node]);
			wt_slot_free(t, s);
		}
	}
}

/* --- system calls caught in a handler (--watch=pages) -------------------- */

/* The buffers of system call nr with arguments arg[], as the wrappers
 * see them: 0 when the call has none the crafts judge. */
static size_t syscall_buffers(const struct wt_thread *t, struct wt_kcall *c, long nr,
			      const greg_t *arg)
{
	c->n = 0;
	switch (nr) {
	case SYS_read: case SYS_pread64: case SYS_recvfrom:
		c->dir = WT_KERNEL_WRITES;
		break;
	case SYS_write: case SYS_pwrite64: case SYS_sendto:
		c->dir = WT_KERNEL_READS;
		break;
	case SYS_readv: case SYS_preadv:
		c->dir = WT_KERNEL_WRITES;
		return wt_kcall_take_iov(t, c, (const struct iovec *)arg[1], (int)arg[2]);
	case SYS_writev: case SYS_pwritev:
		c->dir = WT_KERNEL_READS;
		return wt_kcall_take_iov(t, c, (const struct iovec *)arg[1], (int)arg[2]);
	default:
		return 0;
	}
	return wt_kcall_take_buf(c, (uintptr_t)arg[1], (size_t)arg[2]);
}

/*
 * The call runs where no handler of witch's is: in this stub, with the
 * pages exposed and the trap flag set. Stepped in place, the call's trap
 * would come only after the instruction following it, which may change
 * rax; the stub's nop cannot. A signal interrupting the call finds the
 * program's own state, not witch's handler, and restarts the call or
 * fails it with EINTR as the program's handler asks. Should the step trap
 * not come, the stub goes back to the program by itself (rcx is the
 * system call's to clobber).
 */
extern const char wt_kcall_stub[], wt_kcall_stub_end[];
__thread uintptr_t wt_kcall_resume __attribute__((tls_model("initial-exec"), visibility("hidden")));
__asm__("	.pushsection .text\n"
	"	.globl wt_kcall_stub, wt_kcall_stub_end\n"
	"	.hidden wt_kcall_stub, wt_kcall_stub_end\n"
	"wt_kcall_stub:\n"
	"	syscall\n"
	"	nop\n"
	"wt_kcall_stub_end:\n"
	"	movq wt_kcall_resume@gottpoff(%rip), %rcx\n"
	"	jmp *%fs:(%rcx)\n"
	"	.popsection\n");

void wt_kcall_syscall_begin(struct wt_thread *t, ucontext_t *uc, long nr)
{
	struct wt_kcall *c = &t->kcall;
	greg_t *g = uc->uc_mcontext.gregs;
	greg_t arg[3] = { g[REG_RDI], g[REG_RSI], g[REG_RDX] };
	size_t len;

	/* The stub's own call, caught again: a handler of witch's ran in
	 * between (a sample) and protected the pages. It is judged already;
	 * it runs again, as it would natively after the signal. */
	if ((uintptr_t)g[REG_RIP] == (uintptr_t)wt_kcall_stub)
		return;
	/* Another call is in the stub still: this one comes from a handler
	 * of the program's that interrupted it (a sample of witch's in that
	 * handler protected the pages again), or that call was left by a
	 * siglongjmp. Either way this one runs in place, unjudged: routed
	 * to the stub too, it would take the stub's state and the first
	 * call would resume in the handler. Its step ends the stale state. */
	if (c->live)
		return;
	len = syscall_buffers(t, c, nr, arg);
	if (!len || !wt_kcall_touches(t, c, len))
		return;
	c->leaf = (uintptr_t)g[REG_RIP];
	c->uc = uc;
	wt_kcall_before(t, c, len);
	c->uc = NULL;
	c->live = 1;
	wt_kcall_resume = c->leaf + 2;
	g[REG_RIP] = (greg_t)(uintptr_t)wt_kcall_stub;
}

void wt_kcall_syscall_end(struct wt_thread *t, ucontext_t *uc)
{
	struct wt_kcall *c = &t->kcall;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t rip = (uintptr_t)g[REG_RIP];

	if (!c->live)
		return;
	c->live = 0;
	/* Elsewhere, the thread left the stub another way (a handler of
	 * the program's jumped out), or this is the step of a call that ran
	 * in place while the stub's waited (wt_kcall_syscall_begin): the
	 * stub's call goes on unjudged, back to wt_kcall_resume by itself. */
	if (rip <= (uintptr_t)wt_kcall_stub || rip > (uintptr_t)wt_kcall_stub_end)
		return;
	/* As the call would have left them in place. */
	g[REG_RIP] = g[REG_RCX] = (greg_t)wt_kcall_resume;
	g[REG_R11] &= ~(greg_t)X86_TRAP_FLAG;	/* the flags it saw: without witch's TF */
	c->uc = uc;
	wt_kcall_after(t, c, (ssize_t)g[REG_RAX]);
	c->uc = NULL;
}
