/*
 * rvn_burst.c - the translations of witch spy --tool=rvn --burst=ON,OFF
 * (rvn.h): each phase has translations of its own, and a switch discards
 * them all.
 *
 * Between bursts a translation is the code as it is, what Valgrind's own
 * cost is: it does not count its instructions (an add to the count in
 * every block waits for the block before's, and cost sqlite3 a fifth of
 * its time between bursts), the scheduler's count of blocks stands for
 * them (rvn_sched). In a burst it is the numbered code (rvn.c), which
 * adds its instructions to the count. Neither looks for the switch: two
 * loads, a compare, a call and an exit in every translation took 90 bytes
 * of the 180 of one between bursts (docs/spy.md). The scheduler
 * stops the thread at the block the switch falls due, and the switch and
 * the discarding of every translation happen out of generated code
 * (rvn_sched_stop), before the scheduler looks up what runs next: so no
 * code runs in the phase it was not made for.
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
#include "pub_tool_tooliface.h"

#include "rvn.h"

/* The start of a burst's translation, after its first instruction's
 * IMark: its ninsn instructions counted. */
void rvn_burst_count(IRSB *out, Int ninsn)
{
	IRExpr *count = spy_ir_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&rvn_icount)));

	addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rvn_icount),
					spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, count,
								       IRExpr_Const(IRConst_U64((ULong)ninsn))))));
}
