/*
 * child.c - run a program of the tool's own (the loop tool's `witch
 * loops`) and wait for it, unseen by the client.
 *
 * VG_(system) sets SIGCHLD to its default action while it waits, and the
 * kernel then discards a SIGCHLD of the client's own children that
 * reaches a thread not blocking it (one of the client's, waiting in a
 * system call), and any SIGCHLD already pending: the program would lose
 * it. Here the child is made with clone and no exit signal, so that its
 * end signals nobody and SIGCHLD's action is never touched; only a wait
 * with __WCLONE sees such a child, so the client's wait(2) cannot take
 * its status either.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "spy.h"

/* wait4's option for children whose exit signal is not SIGCHLD. */
#define WAIT_CLONE ((Int)0x80000000u)

/* The core's system call: in pub_core_syscall.h, not among the tool's
 * headers, but the tool is linked with that core. */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
			      RegWord a5, RegWord a6);

/* In the child: fd becomes path, opened with flags; no return on failure. */
static void redirect(Int fd, const HChar *path, Int flags)
{
	SysRes r = VG_(open)(path, flags, 0644);

	if (sr_isError(r) || sr_isError(VG_(dup2)((Int)sr_Res(r), fd)))
		VG_(exit)(127);
	if ((Int)sr_Res(r) != fd)
		VG_(close)((Int)sr_Res(r));
}

Int spy_run_child(const HChar **argv, const HChar *err)
{
	/* fork(2), but with no signal to the parent at the end. */
	SysRes r = VG_(do_syscall)(__NR_clone, 0, 0, 0, 0, 0, 0);
	Int status;

	if (sr_isError(r))
		return -1;
	if (sr_Res(r) == 0) {
		vki_sigset_t none;

		/* The tool's mask blocks every signal: the program runs as
		 * any other would. */
		VG_(sigemptyset)(&none);
		VG_(sigprocmask)(VKI_SIG_SETMASK, &none, NULL);
		redirect(0, "/dev/null", VKI_O_RDONLY);
		redirect(1, "/dev/null", VKI_O_WRONLY);
		redirect(2, err, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC);
		VG_(execv)(argv[0], argv);
		VG_(exit)(127);
	}
	/* The tool's code runs with signals blocked: no EINTR. */
	return VG_(waitpid)((Int)sr_Res(r), &status, WAIT_CLONE) == (Int)sr_Res(r) ? status : -1;
}
