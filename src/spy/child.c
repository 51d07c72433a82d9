/*
 * child.c - run a program of the tool's own (the loop tool's `witch
 * loops`) and wait for it, unseen by the client.
 *
 * VG_(system) sets SIGCHLD to its default action while it waits, and the
 * kernel then discards a SIGCHLD of the client's own children that
 * reaches a thread not blocking it (one of the client's, waiting in a
 * system call), and any SIGCHLD already pending: the program would lose
 * it. Here SIGCHLD's action is never touched, and nothing signals the
 * process: its child is made with clone and no exit signal, and only a
 * wait with __WCLONE sees it (so the client's wait(2) cannot take its
 * status either). That child does not exec the program itself (exec
 * makes a child's exit signal SIGCHLD again): it forks the program, and
 * waits for it, and passes on its status.
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

/* clone(2) as fork, with exit signal sig (0: none). */
static SysRes fork_with(UWord sig)
{
	return VG_(do_syscall)(__NR_clone, sig, 0, 0, 0, 0, 0);
}

/* The child pid's wait status, -1 if none. The tool's code, and the
 * helper child, run with signals blocked: no EINTR. */
static Int wait_for(Int pid, Int options)
{
	Int status;

	return VG_(waitpid)(pid, &status, options) == pid ? status : -1;
}

/* In the program's process: fd becomes path, opened with flags; no
 * return on failure. */
static void redirect(Int fd, const HChar *path, Int flags)
{
	SysRes r = VG_(open)(path, flags, 0644);

	if (sr_isError(r) || sr_isError(VG_(dup2)((Int)sr_Res(r), fd)))
		VG_(exit)(127);
	if ((Int)sr_Res(r) != fd)
		VG_(close)((Int)sr_Res(r));
}

/* In the helper child: run the program, and end as it did. */
static void run_program(const HChar **argv, const HChar *err)
{
	SysRes r = fork_with(VKI_SIGCHLD);
	Int status;

	if (sr_isError(r))
		VG_(exit)(127);
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
	status = wait_for((Int)sr_Res(r), 0);
	VG_(exit)(status < 0 ? 127 : (status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff);
}

Int spy_run_child(const HChar **argv, const HChar *err)
{
	SysRes r = fork_with(0);

	if (sr_isError(r))
		return -1;
	if (sr_Res(r) == 0)
		run_program(argv, err);
	return wait_for((Int)sr_Res(r), WAIT_CLONE);
}
