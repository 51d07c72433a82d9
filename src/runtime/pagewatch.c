/*
 * pagewatch.c - watchpoints without debug registers: page protection and
 * single-stepping (`witch record --watch=pages`).
 *
 * Some hypervisors let perf open hardware breakpoints but never deliver
 * their traps (witch doctor tells). The trap flag still works there, and so
 * does mprotect, so the engine's two uses of debug registers get stand-ins:
 *
 *  - the probe's execute breakpoint: the thread single-steps (EFLAGS.TF)
 *    until it reaches the address, at most MAX_STEPS instructions;
 *  - a watch: the watched bytes' page loses read and write access (write
 *    only, for a W watch). An access to that page faults before it runs;
 *    the handler gives the page back, sets TF, and when the instruction has
 *    run the step trap hands it to the engine exactly like a watchpoint
 *    trap (wt_watch_trap), or protects the page again if the access was to
 *    other bytes of the page (a false fault, counted).
 *
 * What a protected page must never meet, and how it does not:
 *  - the kernel: a system call reading or writing it would fail with
 *    EFAULT. Syscall user dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH)
 *    turns every system call made while a page is protected into SIGSYS;
 *    the handler gives all pages back (their watches end unjudged) and runs
 *    the call again, natively. Each arming costs at most one such signal.
 *  - another thread: a call already blocked in the kernel may write the
 *    page later. So pages are protected only while the process has one
 *    thread; when a second starts, every watch ends (counted).
 *  - the program's own signal handlers, whose frames the kernel writes on
 *    the thread's stack: they run on witch's alternate stack instead
 *    (interpose.c).
 *  - witch's handlers, which read the program's memory and stack: every
 *    handler gives the pages back on entry and protects them on exit.
 *
 * The selector of syscall user dispatch is a byte per thread (in struct
 * wt_thread): BLOCK while pages are protected, ALLOW inside witch's
 * handlers. Handlers return through wt_pages_restorer, the one piece of
 * code allowed to make system calls whatever the selector says, or their
 * own rt_sigreturn would be dispatched too.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#endif
#define SEL_ALLOW 0
#define SEL_BLOCK 1
#define SYS_USER_DISPATCH_CODE 2	/* si_code of a dispatched call's SIGSYS */
#define TF 0x100UL
#define PAGE 4096UL
#define MAX_STEPS 256			/* instructions the probe single-steps */
/* False faults a watched page may cost before its watches end: enough for
 * two sweeps of the page a byte at a time (a store in one loop, the next
 * access in a later loop over the same array); a watch on a page the
 * program keeps using but never at the watched bytes would otherwise slow
 * it down a hundredfold until the reservoir replaced it. */
#define MAX_FALSE_FAULTS 8192
#define MAX_PAGES WT_MAX_SLOTS

int wt_pages_mode;
/* rt_sigreturn from a place syscall user dispatch always lets through. */
__asm__(".pushsection witch_allowed,\"ax\",@progbits\n"
	".globl wt_pages_restorer\n"
	".hidden wt_pages_restorer\n"
	"wt_pages_restorer:\n"
	"	mov $15, %eax\n"
	"	syscall\n"
	"	hlt\n"
	".popsection\n");
void wt_pages_restorer(void);
extern const char __start_witch_allowed[], __stop_witch_allowed[];

/* The pages under watch. Only one thread ever arms (see above). */
static struct {
	uintptr_t page;
	int prot;	/* as the program had it */
	int refs;	/* slots watching bytes of it */
	int writes_only;	/* every such slot is a W watch */
	int false_faults;	/* since the page was protected */
} pages[MAX_PAGES];
static int exposed;	/* handlers run: the pages have their own protection back */
static int threads = 1;

static int watch_prot(int i)
{
	return pages[i].writes_only ? PROT_READ : PROT_NONE;
}

static int protected_pages(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_PAGES; i++)
		n += pages[i].refs > 0;
	return n;
}

static void set_selector(struct wt_thread *t, int armed)
{
	if (t)
		__atomic_store_n(&t->sud_selector, armed ? SEL_BLOCK : SEL_ALLOW, __ATOMIC_RELAXED);
}

/* --- what the program's memory map says of a page ----------------------- */

static uintptr_t hex(const char **p)
{
	uintptr_t v = 0;

	for (;; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v * 16 + (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uintptr_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* One line of /proc/self/maps: "lo-hi rwxp ...". Returns its protection
 * if it holds page, -1 if not. */
static int line_prot(const char *line, uintptr_t page)
{
	const char *p = line;
	uintptr_t lo = hex(&p), hi;
	int prot = 0;

	if (*p++ != '-')
		return -1;
	hi = hex(&p);
	if (page < lo || page >= hi || *p++ != ' ')
		return -1;
	if (p[0] == 'r')
		prot |= PROT_READ;
	if (p[1] == 'w')
		prot |= PROT_WRITE;
	if (p[2] == 'x')
		prot |= PROT_EXEC;
	return prot;
}

/* The page's protection, from /proc/self/maps (read with plain system
 * calls: this runs in a handler). -1 if it is not mapped. */
static int page_prot(uintptr_t page)
{
	char buf[4096], line[512];
	size_t len = 0;
	ssize_t n, i;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), prot = -1;

	if (fd < 0)
		return -1;
	while (prot < 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n && prot < 0; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = 0;
			len = 0;
			prot = line_prot(line, page);
		}
	}
	close(fd);
	return prot;
}

/* --- protecting and exposing -------------------------------------------- */

static void protect_all(void)
{
	int i;

	for (i = 0; i < MAX_PAGES; i++)
		if (pages[i].refs > 0)
			mprotect((void *)pages[i].page, PAGE, watch_prot(i));
	exposed = 0;
}

static void expose_all(void)
{
	int i;

	if (exposed)
		return;
	for (i = 0; i < MAX_PAGES; i++)
		if (pages[i].refs > 0)
			mprotect((void *)pages[i].page, PAGE, pages[i].prot);
	exposed = 1;
}

/* Every page gets its own protection back; the watches on them end
 * unjudged (their slots stay until the reservoir replaces them, as a
 * watch that never traps does). */
static void end_all(struct wt_thread *t)
{
	int i;

	set_selector(t, 0);	/* before mprotect: it is a system call too */
	expose_all();
	for (i = 0; i < MAX_PAGES; i++) {
		if (pages[i].refs > 0 && t)
			t->st.watches_ended++;
		pages[i].refs = 0;
	}
	/* Their slots watch nothing now: no fault, step or system call may
	 * judge them once another page is protected (the program's accesses
	 * in between went unseen). */
	for (i = 0; t && i < t->nslots; i++)
		t->slot[i].page = 0;
}

/* A handler starts: witch's own system calls go through (call this
 * before any), and the program's memory is readable as it should be. */
void wt_pages_enter(struct wt_thread *t, ucontext_t *uc)
{
	t->uc = uc;
	set_selector(t, 0);
	expose_all();
}

/* A handler ends: unless an instruction is being stepped over a fault,
 * the watched pages are protected again. No system call after this. */
void wt_pages_leave(struct wt_thread *t)
{
	t->uc = NULL;
	if (t->fault_step)
		return;
	if (t->syscall_step) {
		t->syscall_step = 0;
		return;
	}
	if (protected_pages() && __atomic_load_n(&threads, __ATOMIC_ACQUIRE) == 1) {
		protect_all();
		set_selector(t, 1);
	} else {
		end_all(t);
	}
}

/* --- the engine's register operations ----------------------------------- */

static int page_slot(uintptr_t page)
{
	int i, free_i = -1;

	for (i = 0; i < MAX_PAGES; i++) {
		if (pages[i].refs > 0 && pages[i].page == page)
			return i;
		if (pages[i].refs <= 0 && free_i < 0)
			free_i = i;
	}
	return free_i;
}

static int watch(struct wt_thread *t, struct wt_slot *s, int bp_type, uintptr_t addr, unsigned len)
{
	uintptr_t page = addr & ~(PAGE - 1);
	int i, prot;

	wt_pages_release(t, s);	/* the reservoir may replace a watch */
	uintptr_t tls_lo, tls_hi;

	if (__atomic_load_n(&threads, __ATOMIC_ACQUIRE) != 1)
		return -1;
	/* A handler reads TLS before it can expose anything (a perl run
	 * with a watch on errno's page died there). */
	wt_own_tls(t, &tls_lo, &tls_hi);
	if (page + PAGE > (tls_lo & ~(PAGE - 1)) && page < tls_hi)
		return -1;
	/* Nor the alternate stack the kernel writes every handler's frame
	 * on, the program's handlers' too (their locals are sampled). */
	if (page + PAGE > (uintptr_t)t->altstack.ss_sp &&
	    page < (uintptr_t)t->altstack.ss_sp + t->altstack.ss_size)
		return -1;
	i = page_slot(page);
	if (i < 0)
		return -1;
	if (pages[i].refs <= 0) {
		prot = page_prot(page);
		/* Code is never protected: witch steps through it. */
		if (prot < 0 || !(prot & PROT_READ) || (prot & PROT_EXEC))
			return -1;
		pages[i].page = page;
		pages[i].prot = prot;
		pages[i].writes_only = 1;
		pages[i].false_faults = 0;
	}
	pages[i].refs++;
	if (bp_type != HW_BREAKPOINT_W)
		pages[i].writes_only = 0;
	s->bp_type = bp_type;
	s->addr = addr;
	s->len = len;
	s->page = page;
	return 0;
}

int wt_pages_program(struct wt_thread *t, struct wt_slot *s, int bp_type, uintptr_t addr,
		     unsigned len)
{
	if (bp_type != HW_BREAKPOINT_X)
		return watch(t, s, bp_type, addr, len);
	/* The probe: step until the thread reaches addr. */
	if (!t->uc)
		return -1;
	t->step_to = addr;
	t->steps_left = MAX_STEPS;
	t->uc->uc_mcontext.gregs[REG_EFL] |= TF;
	s->addr = addr;
	return 0;
}

void wt_pages_release(struct wt_thread *t, struct wt_slot *s)
{
	int i;

	if (s == &t->probe.reg) {
		t->step_to = 0;
		return;
	}
	if (!s->page)
		return;
	for (i = 0; i < MAX_PAGES; i++) {
		if (pages[i].refs > 0 && pages[i].page == s->page) {
			/* Handlers run with the pages exposed: the page is
			 * simply not protected again when this one leaves. */
			pages[i].refs--;
			break;
		}
	}
	s->page = 0;
}

/* --- threads and processes ---------------------------------------------- */

/*
 * A second thread is about to start: no page is protected from now on,
 * even after it ends. The kernel writes a thread's memory as the thread
 * dies (the tid word pthread_join waits on): a page protected then would
 * lose that write and hang the join.
 */
void wt_pages_second_thread(void)
{
	if (!wt_pages_mode)
		return;
	__atomic_store_n(&threads, 2, __ATOMIC_RELEASE);
	if (protected_pages())
		end_all(wt_self());
}

/* Sampling stops (the process ends): the pages are the program's again,
 * for whatever its exit still does. */
void wt_pages_stop(struct wt_thread *t)
{
	end_all(t);
}

/* A forked child: one thread, no watches (the parent's pages were exposed
 * by dispatch before fork ran). */
void wt_pages_after_fork(void)
{
	int i;

	threads = 1;
	for (i = 0; i < MAX_PAGES; i++)
		pages[i].refs = 0;
	exposed = 0;
}

int wt_pages_thread_start(struct wt_thread *t)
{
	t->fault_slot = -1;
	t->sud_selector = SEL_ALLOW;
	return prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		     (unsigned long)__start_witch_allowed,
		     (unsigned long)(__stop_witch_allowed - __start_witch_allowed),
		     (unsigned long)&t->sud_selector) == 0
		       ? 0
		       : -1;
}

/* --- the three signals -------------------------------------------------- */

static int watched_page(uintptr_t addr)
{
	int i;

	for (i = 0; i < MAX_PAGES; i++)
		if (pages[i].refs > 0 && pages[i].page == (addr & ~(PAGE - 1)))
			return i;
	return -1;
}

/* The watches on a page that cost too much end unjudged, as if the
 * reservoir had replaced them. */
static void give_up_page(struct wt_thread *t, uintptr_t page)
{
	int i;

	for (i = 0; i < t->nslots; i++) {
		struct wt_slot *s = &t->slot[i];

		if (s->state != WT_SLOT_WATCH || s->page != page)
			continue;
		wt_attrib_abandoned(&t->cct.nodes[s->watch_node]);
		t->st.watches_ended++;
		wt_slot_free(t, s);
	}
}

/* The bytes the faulting instruction (not run yet) will touch, and
 * whether it writes. */
static void fault_range(const struct wt_thread *t, const ucontext_t *uc, uintptr_t fault,
			uintptr_t *lo, uintptr_t *hi, int *writes)
{
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	struct wd_access a;

	*lo = fault;
	*hi = fault + 1;
	/* The page fault's error code: bit 1 is a write. */
	*writes = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
	if (!wd_decode((const uint8_t *)pc, 16, pc, &a) || !a.size)
		return;
	*writes |= a.kind == WD_STORE || a.kind == WD_RMW;
	if (!(a.flags & (WD_IMPLICIT | WD_STRING | WD_VSIB))) {
		*lo = wd_effective_address(&a, uc, t->fs_base, t->gs_base);
		*hi = *lo + a.size;
		if (fault >= *lo && fault < *hi)
			return;
	}
	/* Implicit, string and gather accesses: the fault address is one
	 * byte of it, and the access is no longer than its size. */
	*lo = fault;
	*hi = fault + a.size;
}

/* Which watch the access in [lo, hi) touches, or -1. A W watch shares
 * a page with an RW one: reads of it fault, but only writes are its. */
static int hit_slot(const struct wt_thread *t, uintptr_t lo, uintptr_t hi, int writes)
{
	int i;

	for (i = 0; i < t->nslots; i++) {
		const struct wt_slot *s = &t->slot[i];

		if (wt_slot_watches(s, lo, hi) && s->page &&
		    (writes || s->bp_type != HW_BREAKPOINT_W))
			return i;
	}
	return -1;
}

/* A fault on a watched page: let the instruction run, one step. */
int wt_pages_fault(struct wt_thread *t, siginfo_t *si, ucontext_t *uc)
{
	uintptr_t fault = (uintptr_t)si->si_addr, lo, hi;
	int writes, p = watched_page(fault);

	if (si->si_code != SEGV_ACCERR || p < 0)
		return 0;
	if (!t || !t->ready) {
		/* A thread witch does not sample, or the process is ending:
		 * give every page back, and the access runs again. */
		end_all(t);
		if (t)
			t->uc = NULL;
		return 1;
	}
	fault_range(t, uc, fault, &lo, &hi, &writes);
	t->fault_slot = hit_slot(t, lo, hi, writes);
	if (t->fault_slot < 0) {
		t->st.false_faults++;
		if (++pages[p].false_faults > MAX_FALSE_FAULTS)
			give_up_page(t, pages[p].page);
	}
	t->fault_step = 1;
	uc->uc_mcontext.gregs[REG_EFL] |= TF;
	return 1;
}

/* A single-step trap: the stepped-over access, or the probe's walk. */
int wt_pages_step(struct wt_thread *t, siginfo_t *si, ucontext_t *uc)
{
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	/* Programs do not single-step themselves (a debugger's steps reach
	 * the debugger, not the program): a trace trap is witch's, even one
	 * left over from a probe cancelled in the handler that set TF. */
	if (!t || si->si_code != TRAP_TRACE)
		return 0;
	uc->uc_mcontext.gregs[REG_EFL] &= ~TF;
	t->fault_step = 0;
	wt_kcall_syscall_end(t, uc);
	if (t->fault_slot >= 0) {
		struct wt_slot *s = &t->slot[t->fault_slot];

		t->fault_slot = -1;
		if (s->state == WT_SLOT_WATCH && s->page)
			wt_watch_trap(t, s, uc);
	}
	if (t->step_to) {
		t->st.steps++;
		if (rip == t->step_to) {
			t->step_to = 0;
			wt_probe_fired(t, uc);
		} else if (--t->steps_left > 0) {
			uc->uc_mcontext.gregs[REG_EFL] |= TF;
		} else {
			t->st.probes_missed++;
			wt_probe_cancel(t);
		}
	}
	return 1;
}

/*
 * System calls that leave the program's memory map, signal state and
 * threads as they are: they run with the pages exposed and a single step
 * after them (the trap comes one instruction after the call) protects the
 * pages again, so the watches live on. A call whose buffers hold watched
 * bytes is judged as sysbuf.c's wrappers judge it, before it runs and at
 * that step (kernelio.c). Every other
 * call ends the watches: it may unmap or remap a watched page, change what
 * a signal does, start a thread or a program, or never return.
 */
static int keeps_watches(long nr)
{
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
	case SYS_lseek: case SYS_open: case SYS_openat: case SYS_close:
	case SYS_stat: case SYS_fstat: case SYS_lstat: case SYS_newfstatat:
	case SYS_statx: case SYS_access: case SYS_faccessat: case SYS_getdents64:
	case SYS_fcntl: case SYS_ioctl: case SYS_dup: case SYS_dup2: case SYS_dup3:
	case SYS_pipe: case SYS_pipe2: case SYS_poll: case SYS_ppoll:
	case SYS_select: case SYS_pselect6: case SYS_nanosleep: case SYS_clock_nanosleep:
	case SYS_clock_gettime: case SYS_clock_getres: case SYS_gettimeofday: case SYS_time:
	case SYS_getpid: case SYS_gettid: case SYS_getppid: case SYS_getuid: case SYS_geteuid:
	case SYS_getgid: case SYS_getegid: case SYS_getrusage: case SYS_times:
	case SYS_sysinfo: case SYS_uname: case SYS_getcwd: case SYS_readlink:
	case SYS_readlinkat: case SYS_unlink: case SYS_unlinkat: case SYS_rename:
	case SYS_renameat: case SYS_mkdir: case SYS_mkdirat: case SYS_rmdir:
	case SYS_fchmod: case SYS_chmod: case SYS_ftruncate: case SYS_fsync:
	case SYS_fdatasync: case SYS_fadvise64: case SYS_sched_yield: case SYS_getrandom:
	case SYS_sendto: case SYS_recvfrom: case SYS_sendmsg: case SYS_recvmsg:
	case SYS_socket: case SYS_connect: case SYS_accept: case SYS_accept4:
	case SYS_utimensat: case SYS_umask: case SYS_prlimit64: case SYS_getrlimit:
		return 1;
	default:
		return 0;
	}
}

/* A system call while pages are protected: expose them, call again. */
int wt_pages_syscall(struct wt_thread *t, siginfo_t *si, ucontext_t *uc)
{
	if (!t || si->si_code != SYS_USER_DISPATCH_CODE)
		return 0;
	uc->uc_mcontext.gregs[REG_RIP] -= 2;	/* the syscall instruction */
	if (t->ready && si->si_arch == AUDIT_ARCH_X86_64 && keeps_watches(si->si_syscall)) {
		/* Handlers start with the pages exposed; this one leaves
		 * them so (wt_pages_leave), and the step protects them. */
		t->syscall_step = 1;
		t->st.syscalls_stepped++;
		wt_kcall_syscall_begin(t, uc, si->si_syscall);
		uc->uc_mcontext.gregs[REG_EFL] |= TF;
		return 1;
	}
	end_all(t);
	return 1;
}

/* --- whose time a timer expiry fell in ----------------------------------- */

/*
 * A fault costs far more than the access it steps over, and the CPU-time
 * timer counts that cost: left alone, samples would gather where watched
 * pages are (listing2's dead fraction came out 0.30 instead of 0.5). But
 * the timer's signal is blocked in witch's handlers and the kernel
 * delivers it as soon as one returns, before the program runs another
 * instruction. A sample signal that finds exactly the registers witch's
 * last handler returned to therefore expired in witch's time (a fault,
 * its step, a probe's step, a handler, the kernel delivering them) and is
 * not taken; the expiries that remain are spread evenly over the
 * program's own time. Only a program that spins without changing a
 * register could be mistaken for that, and only while it spins.
 */
void wt_pages_resume_mark(struct wt_thread *t, const ucontext_t *uc)
{
	memcpy(t->resumed, uc->uc_mcontext.gregs, sizeof(t->resumed));
	t->resumed_valid = 1;
}

int wt_pages_in_own_time(const struct wt_thread *t, const ucontext_t *uc)
{
	return t->resumed_valid && !memcmp(t->resumed, uc->uc_mcontext.gregs, sizeof(t->resumed));
}

/* Install a handler that returns through wt_pages_restorer. */
int wt_pages_sigaction(int sig, void (*fn)(int, siginfo_t *, void *), const sigset_t *mask)
{
	struct {
		void (*handler)(int, siginfo_t *, void *);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} ka;

	memset(&ka, 0, sizeof(ka));
	ka.handler = fn;
	ka.flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | 0x04000000 /* SA_RESTORER */;
	ka.restorer = wt_pages_restorer;
	memcpy(&ka.mask, mask, sizeof(ka.mask));
	return syscall(SYS_rt_sigaction, sig, &ka, NULL, sizeof(ka.mask)) == 0 ? 0 : -1;
}
