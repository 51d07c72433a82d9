/*
 * rvn_burst.c - the translations of witch spy --tool=rvn --burst=ON,OFF
 * (rvn.h): each phase has translations of its own, and a switch discards
 * them all.
 *
 * Between bursts a translation is the code as it is, what Valgrind's own
 * cost is: it neither counts its instructions (an add to the count in
 * every block waits for the block before's, and cost sqlite3 a fifth of
 * its time between bursts) nor looks for the switch (two loads, a compare
 * and an exit: 90 bytes of a translation of 180). The scheduler's count
 * of blocks stands for the instructions (rvn_sched), and it stops the
 * thread at the block the switch falls due; the switch and the discarding
 * then happen out of generated code (rvn_sched_stop), before the
 * scheduler looks up the next translation.
 *
 * In a burst it is the numbered code (rvn.c), which counts exactly, and
 * every translation starts by switching the phase when the count says so:
 * the one that switches then leaves to the scheduler (a jump of kind
 * InvalICache over the whole address space), which discards every
 * translation, and goes on at its own start, translated anew for the new
 * phase. So no code runs in the phase it was not made for.
 *
 * Translations that served both phases, numbered code behind a copy of
 * the code without numbers, cost more between bursts than retranslating
 * the hot code twice per period: `bench/spy-ab --tool=rvn-burst` in
 * docs/results.md.
 *
 * Between bursts calls are not followed: each burst starts from frames
 * read off the threads' stacks (spy_stack_rebuild).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "rvn.h"

static IRExpr *load64(IRSB *out, const void *p)
{
	return spy_ir_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)p)));
}

/*
 * The start of a burst's translation, after its first instruction's IMark
 * at addr: switch the phase if due, and then leave to have the
 * translations discarded, back at addr; else count the translation's
 * ninsn instructions.
 */
void rvn_burst_start(IRSB *out, Addr addr, Int ninsn)
{
	IRExpr *due = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpLE64U, load64(out, &rvn_next_switch),
						     load64(out, &rvn_icount)));
	IRDirty *d = unsafeIRDirty_0_N(0, "rvn_switch", VG_(fnptr_to_fnentry)(rvn_switch),
				       mkIRExprVec_0());

	d->guard = due;
	addStmtToIRSB(out, IRStmt_Dirty(d));
	addStmtToIRSB(out, IRStmt_Exit(due, Ijk_InvalICache, IRConst_U64((ULong)addr),
				       offsetof(VexGuestAMD64State, guest_RIP)));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rvn_icount),
					spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, load64(out, &rvn_icount),
								       IRExpr_Const(IRConst_U64((ULong)ninsn))))));
}
