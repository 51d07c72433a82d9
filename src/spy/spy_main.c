/*
 * spy_main.c - witchspy's registration with the Valgrind core: options,
 * the core's memory events, threads and signals, and the profile at exit
 * (or before an exec replaces the process image).
 *
 * Options (passed by `witch spy`):
 *   --witch-tool=dead|silent|load   DeadSpy, RedSpy or LoadSpy
 *   --witch-tool=count              witch cpi's counting run (count.c)
 *   --witch-tool=rvn                redundant computation (rvn.c)
 *   --witch-tool=loop               loops whose iterations re-read (loop.h)
 *   --witch-loops=DIR               loop: where the modules' loop maps are
 *   --witch-loop-finder=WITCH       loop: witch, to write them (`witch loops`)
 *   --witch-thresholds=A,R,RI       loop: Prometheus's thresholds [10,0.9,0.8]
 *   --witch-loop-chunks=N           loop: chunks of 64 KiB a thread's read set may
 *                                   shadow (tests: a small limit)
 *   --witch-loop-stacks=N           loop: nestings of loops whose loads are told
 *                                   apart (tests: a small limit)
 *   --witch-exact-parts=yes|no      loop: a time per part of a word (loop_run.c)
 *   --witch-by=symbol|value         rvn: numbers by operation (the thesis's RVN),
 *                                   or an instruction's results by operand values
 *   --witch-history=N               rvn --witch-by=value: its last N results [16]
 *   --witch-burst=ON,OFF            rvn: bursts of ON million instructions judged,
 *                                   OFF not (rvn.h)
 *   --witch-out=DIR                 where the profile goes
 *   --witch-approx=X                relative tolerance for floating point (0.01)
 *   --witch-stack=clear|keep        popped stack frames forget their history
 *   --witch-heap=clear|keep         glibc free()d blocks forget their history
 *   --witch-follow=yes|no           forked children write profiles too
 *                                   (Valgrind follows forks whatever
 *                                   --trace-children says)
 *   --witch-progress=TTY            a progress line on that terminal (progress.c)
 *   --witch-progress-label=TEXT     what the line starts with [witch]
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#ifndef __NR_execveat
#define __NR_execveat 322
#endif

#include "spy.h"
#include "core/contract.h"
#include "rvn.h"
#include "loop.h"
#include "loop_reads.h"

struct spy_config spy_cfg = {
	.tool = SPY_DEAD,
	.approx = 0.01,
	.outdir = ".",
	/* Popped frames keep their history by default, as a debug register on a
	 * stack slot does (and RedSpy's store values): `witch record` and `witch
	 * spy` then count the same pairs. */
	.stack_clear = False,
	.heap_clear = True,
	.trim = True,
	.follow = True,
	.history = RVN_HISTORY_DEFAULT,
};
struct spy_stats spy_st;

static const HChar *exec_profile;	/* written before an execve that may fail */
static Bool launcher;	/* a launcher's own process (mpirun, orted...): never profiled */

/* ---- options ---- */

static Bool process_option(const HChar *arg)
{
	const HChar *v;

	if (VG_STR_CLO(arg, "--witch-tool", v)) {
		if (!VG_(strcmp)(v, "dead"))
			spy_cfg.tool = SPY_DEAD;
		else if (!VG_(strcmp)(v, "silent"))
			spy_cfg.tool = SPY_SILENT;
		else if (!VG_(strcmp)(v, "load"))
			spy_cfg.tool = SPY_LOAD;
		else if (!VG_(strcmp)(v, "count"))
			spy_cfg.tool = SPY_COUNT;
		else if (!VG_(strcmp)(v, "rvn"))
			spy_cfg.tool = SPY_RVN;
		else if (!VG_(strcmp)(v, "loop"))
			spy_cfg.tool = SPY_LOOP;
		else
			VG_(fmsg_bad_option)(arg, "use dead, silent, load, count, rvn or loop\n");
	} else if (VG_BINT_CLO(arg, "--witch-loop-chunks", loop_read_chunks_max, 1,
			       LOOP_READ_CHUNKS_MAX)) {
	} else if (VG_BINT_CLO(arg, "--witch-loop-stacks", loop_stacks_max, 1, LOOP_STACKS_MAX)) {
	} else if (VG_BOOL_CLO(arg, "--witch-exact-parts", loop_exact_parts)) {
	} else if (VG_STR_CLO(arg, "--witch-loops", v)) {
		spy_cfg.loops = v;
	} else if (VG_STR_CLO(arg, "--witch-loop-finder", v)) {
		spy_cfg.loop_finder = v;
	} else if (VG_STR_CLO(arg, "--witch-thresholds", v)) {
		HChar *end;
		Long a = VG_(strtoll10)(v, &end);
		double r = *end == ',' ? VG_(strtod)(end + 1, &end) : -1;
		double ri = *end == ',' ? VG_(strtod)(end + 1, &end) : -1;

		if (*end || a < 1 || a > LOOP_A_MAX || !(r > 0 && r <= 1) || !(ri > 0 && ri <= 1))
			VG_(fmsg_bad_option)(arg, "give A,R,RI: reads (1 or more), then two shares in (0, 1]\n");
		loop_a = (UInt)a;
		loop_r = r;
		loop_ri = ri;
	} else if (VG_STR_CLO(arg, "--witch-by", v)) {
		if (VG_(strcmp)(v, "symbol") && VG_(strcmp)(v, "value"))
			VG_(fmsg_bad_option)(arg, "use symbol or value\n");
		spy_cfg.by_value = !VG_(strcmp)(v, "value");
	} else if (VG_STR_CLO(arg, "--witch-burst", v)) {
		HChar *end;
		Long a = VG_(strtoll10)(v, &end), b = *end == ',' ? VG_(strtoll10)(end + 1, &end) : 0;

		if (*end || a < 1 || b < 1 || a > RVN_BURST_MAX || b > RVN_BURST_MAX)
			VG_(fmsg_bad_option)(arg, "give ON,OFF: millions of instructions, 1 to %d each\n",
					     RVN_BURST_MAX);
		spy_cfg.burst_on = (ULong)a * 1000000;
		spy_cfg.burst_off = (ULong)b * 1000000;
	} else if (VG_STR_CLO(arg, "--witch-history", v)) {
		HChar *end;
		Long n = VG_(strtoll10)(v, &end);

		if (*end || n < 1 || n > RVN_HISTORY_MAX)
			VG_(fmsg_bad_option)(arg, "give 1 to %d results\n", RVN_HISTORY_MAX);
		spy_cfg.history = (UInt)n;
	} else if (VG_STR_CLO(arg, "--witch-progress", v)) {
		progress_tty = v;
	} else if (VG_STR_CLO(arg, "--witch-progress-label", v)) {
		progress_label = v;
	} else if (VG_STR_CLO(arg, "--witch-out", v)) {
		spy_cfg.outdir = v;
	} else if (VG_STR_CLO(arg, "--witch-approx", v)) {
		HChar *end;
		double x = VG_(strtod)(v, &end);

		if (*end || x < 0 || x >= 1)
			VG_(fmsg_bad_option)(arg, "give a relative tolerance in [0, 1)\n");
		spy_cfg.approx = x;
	} else if (VG_STR_CLO(arg, "--witch-stack", v)) {
		if (VG_(strcmp)(v, "clear") && VG_(strcmp)(v, "keep"))
			VG_(fmsg_bad_option)(arg, "use clear or keep\n");
		spy_cfg.stack_clear = !VG_(strcmp)(v, "clear");
	} else if (VG_BOOL_CLO(arg, "--witch-follow", spy_cfg.follow)) {
	} else if (VG_BOOL_CLO(arg, "--witch-trim", spy_cfg.trim)) {
	} else if (VG_STR_CLO(arg, "--witch-heap", v)) {
		if (VG_(strcmp)(v, "clear") && VG_(strcmp)(v, "keep"))
			VG_(fmsg_bad_option)(arg, "use clear or keep\n");
		spy_cfg.heap_clear = !VG_(strcmp)(v, "clear");
	} else {
		return False;
	}
	return True;
}

static void print_usage(void)
{
	VG_(printf)(
		"    --witch-tool=dead|silent|load  dead stores, silent stores or redundant loads\n"
		"    --witch-tool=count             executions and edges (witch cpi)\n"
		"    --witch-tool=rvn               redundant computation, loads and stores\n"
		"    --witch-by=symbol|value        rvn: by value numbers, or by operand values [symbol]\n"
		"    --witch-history=N              rvn by value: an instruction's last N results [16]\n"
		"    --witch-burst=ON,OFF           rvn: judge ON million instructions, skip OFF million\n"
		"    --witch-tool=loop              loops whose iterations re-read what earlier ones read\n"
		"    --witch-loops=DIR              loop: the directory of the modules' loop maps\n"
		"    --witch-loop-finder=WITCH      loop: the witch that writes them (witch loops)\n"
		"    --witch-thresholds=A,R,RI      loop: reads, redundant share, flagged share [10,0.9,0.8]\n"
		"    --witch-loop-chunks=N          loop: 64 KiB chunks a thread's read set may shadow [2730]\n"
		"    --witch-loop-stacks=N          loop: nestings of loops whose loads are told apart [1048576]\n"
		"    --witch-out=DIR                directory for the profile [.]\n"
		"    --witch-approx=X               relative tolerance for floating point [0.01]\n"
		"    --witch-stack=clear|keep       popped stack frames forget their history [keep]\n"
		"    --witch-heap=clear|keep        glibc free()d blocks forget their history [clear]\n"
		"    --witch-follow=yes|no          forked children write profiles too [yes]\n"
		"    --witch-progress=TTY           show progress on that terminal, twice a second\n"
		"    --witch-progress-label=TEXT    what the progress line starts with [witch]\n");
}

static void print_debug_usage(void)
{
	VG_(printf)("    --witch-trim=yes|no            give back the core's memory no one reads [yes]\n");
}

/* ---- memory events from the core ---- */

static void on_new_mem(Addr a, SizeT len)
{
	sh_clear(a, len);
}

static void on_new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	(void)rr; (void)ww; (void)xx; (void)di_handle;
	sh_clear(a, len);
}

static void on_new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	(void)rr; (void)ww; (void)xx; (void)di_handle;
	sh_clear(a, len);
}

static void on_new_mem_tid(Addr a, SizeT len, ThreadId tid)
{
	(void)tid;
	sh_clear(a, len);
}

static void on_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	(void)ww; (void)xx;
	/* RedSpy reads old bytes where there is history: none where it
	 * cannot read. */
	if (!rr)
		sh_clear(a, len);
}

static void on_copy_remap(Addr from, Addr to, SizeT len)
{
	sh_copy(from, to, len);
}

/*
 * SP went up over [a, a + len): those frames are over, and so is what a
 * leaf function left in the 128-byte red zone below the old SP (gcc puts
 * locals there). Nothing live is below SP when it rises: only leaf
 * functions use the red zone, and not after their epilogue.
 */
static void on_die_stack(Addr a, SizeT len)
{
	sh_clear(a - VG_STACK_REDZONE_SZB, len + VG_STACK_REDZONE_SZB);
	spy_st.stack_bytes_cleared += len;
}

static void on_pre_mem_read(CorePart part, ThreadId tid, const HChar *s, Addr a, SizeT len)
{
	(void)s;
	if (part == Vg_CoreSysCall && spy_cfg.tool != SPY_COUNT && spy_cfg.tool != SPY_RVN &&
	    spy_cfg.tool != SPY_LOOP)
		spy_kernel_read(spy_thread(tid), a, len);
}

static void on_pre_mem_read_asciiz(CorePart part, ThreadId tid, const HChar *s, Addr a)
{
	(void)s;
	if (part == Vg_CoreSysCall && spy_cfg.tool == SPY_DEAD &&
	    VG_(am_is_valid_for_client)(a, 1, VKI_PROT_READ))
		spy_kernel_read(spy_thread(tid), a, VG_(strlen)((const HChar *)a) + 1);
}

static void on_post_mem_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
	if (spy_cfg.tool == SPY_COUNT || spy_cfg.tool == SPY_LOOP)
		return;	/* neither keeps shadow memory */
	if (part == Vg_CoreSysCall && spy_cfg.tool != SPY_RVN)
		spy_kernel_write(spy_thread(tid), a, len);
	else
		sh_clear(a, len);	/* signal frames and the like: no owner */
}

/* ---- threads and signals ---- */

static void on_start_client_code(ThreadId tid, ULong blocks_done)
{
	spy_thread_switch(tid);
	progress_tick(blocks_done);
	if (spy_cfg.tool == SPY_RVN)
		rvn_sched(tid, blocks_done);
}

static void on_thread_exit(ThreadId tid)
{
	spy_thread_exit(tid);
}

static void on_pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack)
{
	(void)sig;
	spy_signal_enter(tid, alt_stack);
}

static void on_post_deliver_signal(ThreadId tid, Int sig)
{
	(void)sig;
	spy_signal_leave(tid);
}

static void after_fork_child(ThreadId tid)
{
	spy_cfg.silent = !spy_cfg.follow || launcher;
	progress_after_fork();
	spy_threads_after_fork(tid);
	if (spy_cfg.tool == SPY_COUNT)
		cnt_after_fork();
	if (spy_cfg.tool == SPY_RVN)
		rvn_after_fork();
	if (spy_cfg.tool == SPY_LOOP) {
		loop_after_fork();
		loop_switch(spy_cur);
	}
	spy_profile_start();
	VG_(memset)(&spy_st, 0, sizeof(spy_st));
}

/* ---- exec: the image about to be replaced writes its profile ---- */

/* Whether the client's string at a (the program an exec runs) names a
 * launcher; only as far as the client's memory is readable. */
static Bool runs_launcher(Addr a)
{
	HChar path[256];
	SizeT i;

	for (i = 0; i + 1 < sizeof(path); i++) {
		if ((i == 0 || (a + i) % 4096 == 0) &&
		    !VG_(am_is_valid_for_client)(a + i, 1, VKI_PROT_READ))
			return False;
		path[i] = *(const HChar *)(a + i);
		if (!path[i])
			break;
	}
	path[i] = 0;
	return spy_is_launcher(path);
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid; (void)nargs;
	progress_syscall(sysno, args);
	/* An image that runs a launcher (MPI's singleton start runs orted
	 * so) was starting it: not the application's work, no profile. */
	if ((sysno == __NR_execve || sysno == __NR_execveat) && !spy_cfg.silent &&
	    !runs_launcher(sysno == __NR_execve ? args[0] : args[1])) {
		progress_clear();
		if (spy_cfg.tool == SPY_LOOP)
			loop_finish();
		exec_profile = spy_profile_write(True);
	}
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid; (void)args; (void)nargs;
	/* The exec failed: this image goes on and writes again at exit. */
	if ((sysno == __NR_execve || sysno == __NR_execveat) && exec_profile) {
		if (sr_isError(res))
			VG_(unlink)(exec_profile);
		exec_profile = NULL;
	}
}

/* ---- life cycle ---- */

static void post_clo_init(void)
{
	/* Superblocks must end at calls: the shadow stack is built from their
	 * jump kinds. The count tool follows calls within them (count.c), as
	 * Valgrind does by default; --vex-guest-chase=no gives it the same
	 * counts, slower. */
	VG_(clo_vex_control).guest_chase = spy_cfg.tool == SPY_COUNT && VG_(clo_vex_control).guest_chase;
	sh_init(spy_cfg.tool);
	spy_cct_init();
	if (spy_cfg.tool == SPY_RVN) {
		/* Its translations average 550-900 bytes: sectors sized for
		 * 400 filled at half their table, and each sector allocated
		 * fills its table's 6 MB (docs/spy.md). */
		VG_(details_avg_translation_sizeB)(RVN_TRANSLATION_B);
		rvn_init();
		VG_(track_post_reg_write)(rvn_post_reg_write);
		VG_(track_stop_client_code)(rvn_sched_stop);
	}
	if (spy_cfg.tool == SPY_LOOP) {
		if (!spy_cfg.loops || !spy_cfg.loop_finder) {
			VG_(fmsg)("witchspy: --witch-tool=loop needs --witch-loops=DIR and "
				  "--witch-loop-finder=WITCH; run it through witch spy --tool=loop\n");
			VG_(exit)(1);
		}
		loop_map_init(spy_cfg.loops, spy_cfg.loop_finder);
	}
	spy_profile_start();
	/* A launcher's own process is not the application; the ranks it
	 * starts are traced and write theirs. */
	launcher = spy_is_launcher(VG_(args_the_exename));
	if (launcher)
		spy_cfg.silent = True;
	progress_init();
	if (spy_cfg.stack_clear)
		VG_(track_die_mem_stack)(on_die_stack);
}

static void fini(Int exitcode)
{
	const HChar *path;

	(void)exitcode;
	progress_clear();
	if (spy_cfg.silent)
		return;
	if (spy_cfg.tool == SPY_LOOP)
		loop_finish();
	path = spy_profile_write(True);
	if (!path)
		VG_(umsg)("witchspy: cannot write the profile in %s\n", spy_cfg.outdir);
	else if (VG_(clo_verbosity) > 1)
		VG_(umsg)("witchspy: wrote %s\n", path);
}

static void pre_clo_init(void)
{
	VG_(details_name)("witchspy");
	VG_(details_version)("1");
	VG_(details_description)("exhaustive dead stores, silent stores and redundant loads");
	VG_(details_copyright_author)("witch");
	VG_(details_bug_reports_to)("the witch issue tracker");
	VG_(details_avg_translation_sizeB)(400);

	VG_(basic_tool_funcs)(post_clo_init, spy_instrument, fini);
	VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);

	VG_(track_new_mem_startup)(on_new_mem_startup);
	VG_(track_new_mem_mmap)(on_new_mem_mmap);
	VG_(track_new_mem_brk)(on_new_mem_tid);
	VG_(track_new_mem_stack_signal)(on_new_mem_tid);
	VG_(track_die_mem_brk)(on_new_mem);
	VG_(track_die_mem_munmap)(on_new_mem);
	VG_(track_die_mem_stack_signal)(on_new_mem);
	VG_(track_copy_mem_remap)(on_copy_remap);
	VG_(track_change_mem_mprotect)(on_mprotect);
	VG_(track_pre_mem_read)(on_pre_mem_read);
	VG_(track_pre_mem_read_asciiz)(on_pre_mem_read_asciiz);
	VG_(track_post_mem_write)(on_post_mem_write);
	VG_(track_start_client_code)(on_start_client_code);
	VG_(track_pre_thread_ll_exit)(on_thread_exit);
	VG_(track_pre_deliver_signal)(on_pre_deliver_signal);
	VG_(track_post_deliver_signal)(on_post_deliver_signal);
	VG_(atfork)(NULL, NULL, after_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
