/*
 * interpose.c - the libc calls witch must see, so that profiling never
 * changes what the program observes and never loses what it measured:
 *
 *  - signal dispositions (sigaction, signal): the tool's own signals stay
 *    the tool's, whatever the program installs (it sees what it asked for);
 *    signals whose default action kills get a stand-in handler that writes
 *    the profile first, then dies of the same signal;
 *  - signal masks (sigprocmask, pthread_sigmask): witch's signals are never
 *    blocked, or samples would arrive late at the wrong place;
 *  - exec* and _exit: the profile is written before the image goes away.
 */
#include <alloca.h>
#include <dlfcn.h>
#include <link.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/interpose.h"
#include "core/tool.h"

#define EXPORT __attribute__((visibility("default")))
#define NSIGS 65

/* OWN: witch's signal, the program's action only remembered. SHARED
 * (--watch=pages): witch's handler takes what is witch's and forwards the
 * rest to the program's remembered action. */
enum managed { UNMANAGED = 0, STANDIN, OWN, SHARED };

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static sighandler_t (*real_signal)(int, sighandler_t);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);

/* libunwind's code: it blocks signals around its locks, and must get its way. */
static uintptr_t unwind_lo, unwind_hi;

static int own_sig[CORE_MAX_OWN_SIGNALS], nown;
static unsigned char managed[NSIGS];
static struct sigaction app_action[NSIGS];	/* what the program believes */
static void (*standin[NSIGS])(int, siginfo_t *, void *);

/* Signals whose default action ends the process (and that a handler can catch). */
static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV,
	SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,
};

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static int find_unwind_text(struct dl_phdr_info *info, size_t size, void *base)
{
	int i;

	(void)size;
	if ((void *)info->dlpi_addr != base)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			unwind_lo = info->dlpi_addr + ph->p_vaddr;
			unwind_hi = unwind_lo + ph->p_memsz;
		}
	}
	return 1;
}

static int from_unwinder(const void *caller)
{
	return (uintptr_t)caller >= unwind_lo && (uintptr_t)caller < unwind_hi;
}

/* Resolve libc's versions; witch calls these itself, never its wrappers. */
void core_interpose_resolve(void)
{
	Dl_info info;

	real_sigaction = next("sigaction");
	real_sigprocmask = next("sigprocmask");
	real_pthread_sigmask = next("pthread_sigmask");
	real_signal = next("signal");
	real_execve = next("execve");
	real_execvpe = next("execvpe");
	real_fexecve = next("fexecve");
	if (!unwind_hi && dladdr((void *)unw_step, &info) && info.dli_fbase)
		dl_iterate_phdr(find_unwind_text, info.dli_fbase);
}

int core_real_sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	return real_sigaction(sig, act, oact);
}

/* The program died of `sig`: keep what was measured, then die the same way. */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	(void)uc;
	tool_process_ended(0, -sig);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	/* A fault re-executes and faults again; a sent signal is sent again
	 * (blocked until this handler returns). */
	if (si->si_code <= 0 || sig == SIGABRT || sig == SIGTERM || sig == SIGINT || sig == SIGTRAP)
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

static int install_standin(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = standin[sig];
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	return real_sigaction(sig, &sa, NULL);
}

/* While the program leaves `sig` at its default, fn stands in for it:
 * from the start, or from when the program sets the default (SIGINT
 * starts ignored in a background job of a shell without job control, and
 * a program may set it back; the signal's death still writes a profile). */
static void stand_in(int sig, void (*fn)(int, siginfo_t *, void *))
{
	standin[sig] = fn;
	if (real_sigaction(sig, NULL, &app_action[sig]) < 0 ||
	    (app_action[sig].sa_handler == SIG_DFL && install_standin(sig) < 0))
		return;
	managed[sig] = STANDIN;
}

void core_interpose_signals(const int *own, int n, void (*on_sigio)(int, siginfo_t *, void *))
{
	size_t i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		stand_in(fatal_signals[i], on_fatal);
	/* A full real-time signal queue turns perf's signal into SIGIO,
	 * whose default action would kill the program. */
	stand_in(SIGIO, on_sigio);
	for (nown = 0; nown < n && nown < CORE_MAX_OWN_SIGNALS; nown++) {
		own_sig[nown] = own[nown];
		managed[own[nown]] = OWN;
		memset(&app_action[own[nown]], 0, sizeof(struct sigaction));
	}
}

void core_interpose_share(int sig)
{
	if (managed[sig] != STANDIN)
		real_sigaction(sig, NULL, &app_action[sig]);
	managed[sig] = SHARED;
}

/* Run the program's action for a signal witch did not want, as the
 * kernel would have. */
void core_interpose_forward(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = app_action[sig];
	sigset_t mask, old;

	if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN) {
		on_fatal(sig, si, uc);
		return;
	}
	/* The mask the kernel would give it: the interrupted code's, its
	 * sa_mask and the signal; not the tool's handler's, which blocks the
	 * program's signals (src/runtime/thread.c's install). */
	mask = ((ucontext_t *)uc)->uc_sigmask;
	sigorset(&mask, &mask, &a.sa_mask);
	if (!(a.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	if (a.sa_flags & SA_RESETHAND)
		app_action[sig].sa_handler = SIG_DFL;
	real_pthread_sigmask(SIG_SETMASK, &mask, &old);
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	real_pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * --watch=pages: the kernel writes a signal's frame onto the thread's
 * stack unless its handler runs on an alternate stack, and a watched
 * (protected) stack page would make that write fail and the signal turn
 * into a SIGSEGV. So the program's handlers run on the alternate stack
 * every thread witch samples has (256 KiB), like witch's own: the stack
 * pages stay watchable, where many dead stores are (spills, locals).
 */
static int alt_stack_only;

void core_interpose_alt_stack_only(void)
{
	alt_stack_only = 1;
}

static const struct sigaction *on_alt_stack(const struct sigaction *act, struct sigaction *copy)
{
	if (!alt_stack_only || !act || act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN)
		return act;
	*copy = *act;
	copy->sa_flags |= SA_ONSTACK;
	return copy;
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	struct sigaction copy;

	if (!real_sigaction)
		core_interpose_resolve();
	if (sig <= 0 || sig >= NSIGS || !managed[sig])
		return real_sigaction(sig, on_alt_stack(act, &copy), oact);
	if (oact)
		*oact = app_action[sig];
	if (!act)
		return 0;
	app_action[sig] = *act;
	if (managed[sig] == OWN || managed[sig] == SHARED)
		return 0;	/* remembered and reported, never installed */
	if (!(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL) {
		managed[sig] = STANDIN;
		return install_standin(sig);
	}
	return real_sigaction(sig, on_alt_stack(act, &copy), NULL);
}

EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	if (!real_signal)
		core_interpose_resolve();
	if (sig <= 0 || sig >= NSIGS || (!managed[sig] && !alt_stack_only))
		return real_signal(sig, handler);
	/* glibc's signal(): BSD semantics. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/*
 * The mask the program asks for, minus witch's own signals. libunwind
 * blocks every signal around its locks, in witch's handlers and in
 * programs that use it too: those calls pass unchanged, or a sample could
 * interrupt the unwinder holding its lock and deadlock unwinding again.
 */
static const sigset_t *without_own(int how, const sigset_t *set, sigset_t *copy,
				   const void *caller)
{
	int i;

	if (!set || how == SIG_UNBLOCK || !nown || tool_in_handler() || from_unwinder(caller))
		return set;
	*copy = *set;
	for (i = 0; i < nown; i++)
		sigdelset(copy, own_sig[i]);
	/* A blocked fault or trap kills: never let the program block witch's. */
	if (managed[SIGSEGV] == SHARED) {
		sigdelset(copy, SIGSEGV);
		sigdelset(copy, SIGTRAP);
		sigdelset(copy, SIGSYS);
	}
	return copy;
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	sigset_t copy;

	if (!real_sigprocmask)
		core_interpose_resolve();
	return real_sigprocmask(how, without_own(how, set, &copy, __builtin_return_address(0)),
				oset);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *oset)
{
	sigset_t copy;

	if (!real_pthread_sigmask)
		core_interpose_resolve();
	return real_pthread_sigmask(how,
				    without_own(how, set, &copy, __builtin_return_address(0)),
				    oset);
}

/* --- exec and _exit ---------------------------------------------------- */

/* Write the profile, then exec what; if exec comes back (it failed), the
 * image goes on and takes the profile back. */
#define AROUND_EXEC(what, call)            \
	do {                               \
		int rc_, e_;               \
		tool_before_exec(what);    \
		rc_ = (call);              \
		e_ = errno;                \
		tool_exec_failed();        \
		errno = e_;                \
		return rc_;                \
	} while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	if (!real_execve)
		core_interpose_resolve();
	AROUND_EXEC(path, real_execve(path, argv, envp));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!real_execvpe)
		core_interpose_resolve();
	AROUND_EXEC(file, real_execvpe(file, argv, envp));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!real_fexecve)
		core_interpose_resolve();
	AROUND_EXEC(NULL, real_fexecve(fd, argv, envp));
}

EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: collect the variadic arguments into an array. */
#define COLLECT_ARGS(first, ap, argv)                                              \
	do {                                                                      \
		size_t n_ = 1;                                                    \
		va_list c_;                                                       \
		va_copy(c_, ap);                                                  \
		while (va_arg(c_, char *))                                        \
			n_++;                                                     \
		va_end(c_);                                                       \
		argv = alloca((n_ + 1) * sizeof(char *));                         \
		argv[0] = (char *)(first);                                        \
		for (size_t i_ = 1; i_ <= n_; i_++)                               \
			argv[i_] = va_arg(ap, char *);                            \
	} while (0)

EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv);
	va_end(ap);
	return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv);
	va_end(ap);
	return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp = NULL;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv);
	envp = va_arg(ap, char **);	/* after the NULL that ends the arguments */
	va_end(ap);
	return execve(path, argv, envp);
}

EXPORT void _exit(int status)
{
	tool_process_ended(1, status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	_exit(status);
}
