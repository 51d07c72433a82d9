/*
 * count.c - witch cpi's counting run: how often every instruction
 * executes, and every control-flow edge is taken, exactly.
 *
 * A translation counts its entries and each side exit it takes, with a
 * load, an add and a store in its own IR: no helper call. An instruction
 * executes as often as its translations passed it: their entries, less
 * the side exits taken before it (count_out.c adds them up). The thread's
 * instruction count, which OptiWISE's Algorithm 1 reads at calls and
 * returns, grows by the translation's instructions at entry and shrinks
 * by those a side exit skips; it lives in the thread's first shadow guest
 * state (CNT_ICOUNT), per thread and addressed from the guest state's
 * base: fewer host instructions than a per-thread counter elsewhere,
 * which needs the thread's id first. Calls and returns call a helper
 * (count_calls.c); a jump to a computed target (a switch, an
 * interpreter's dispatch) compares it with the last one in IR and calls a
 * helper only when it changes.
 *
 * VEX builds a translation from several blocks when it can (chasing,
 * which saves a tenth to a fifth of the run): it follows unconditional
 * jumps and calls to known targets, unrolls a block that jumps to its own
 * start, and joins the two conditional jumps of an `a && b` whose second
 * block loads and stores nothing. The first two leave the translation's
 * instructions with a gap where the jump was, which is an edge; a call
 * there calls the call helper in mid-translation. The third removes the
 * first jump's side exit and executes the second block only when that
 * exit would have been taken: its condition is found in the second
 * jump's guard (And1 of its own and the first's), and the removed exit
 * is counted as if it were still there.
 *
 * A `rep`-prefixed string instruction repeats by jumping to itself: such
 * a self-edge is a repetition, not an execution, and not an edge, and so
 * are the copies of it an unrolled translation holds. A translation of
 * its iterations alone (a rep_loop) runs once per byte or element: it
 * counts no entry, only the ways out to other code, each of which ends
 * one execution; counting every iteration made a memset of 4 MiB cost
 * as much as 4 million translations' bookkeeping.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "spy.h"

CntSB *cnt_sbs;
ULong cnt_inexact;

static IRExpr *hw(HWord v)
{
	return mkIRExpr_HWord(v);
}

/* *(ULong *)addr += v, v a 64-bit atom. */
static void add_to(IRSB *out, void *addr, IRExpr *v)
{
	IRExpr *old = spy_ir_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, hw((HWord)addr)));
	IRExpr *sum = spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, old, v));

	addStmtToIRSB(out, IRStmt_Store(Iend_LE, hw((HWord)addr), sum));
}

/* *(ULong *)addr += guard ? v : 0. */
static void add_if(IRSB *out, void *addr, IRExpr *guard, ULong v)
{
	if (v == 1)
		add_to(out, addr, spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, guard)));
	else
		add_to(out, addr, spy_ir_tmp(out, Ity_I64, IRExpr_ITE(guard, IRExpr_Const(IRConst_U64(v)),
								IRExpr_Const(IRConst_U64(0)))));
}

/* The thread's instruction count, at guest state offset `off`. */
static IRExpr *icount(IRSB *out, Int off)
{
	return spy_ir_tmp(out, Ity_I64, IRExpr_Get(off, Ity_I64));
}

/* icount += v (guard: only when it holds). */
static void icount_add(IRSB *out, Int off, IRExpr *guard, ULong v)
{
	IRExpr *add = IRExpr_Const(IRConst_U64(v));

	if (guard)
		add = spy_ir_tmp(out, Ity_I64, IRExpr_ITE(guard, add, IRExpr_Const(IRConst_U64(0))));
	addStmtToIRSB(out, IRStmt_Put(off, spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, icount(out, off),
									    add))));
}

static void helper(IRSB *out, const HChar *name, void *fn, IRExpr **args, IRExpr *guard)
{
	IRDirty *d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		d->guard = guard;
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

static ULong const_addr(const IRConst *c)
{
	return c->tag == Ico_U64 ? c->Ico.U64 : c->tag == Ico_U32 ? c->Ico.U32 : 0;
}

/* A conditional jump (jcc, jrcxz, loop), from its bytes. */
static Bool is_cond_jump(Addr a, UInt len)
{
	const UChar *b = (const UChar *)a;
	UInt i = 0;

	/* Branch hints and BND. */
	while (i < len && (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0xf2))
		i++;
	if (i < len && ((b[i] >= 0x70 && b[i] <= 0x7f) || (b[i] >= 0xe0 && b[i] <= 0xe3)))
		return True;
	return i + 1 < len && b[i] == 0x0f && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f;
}

/* A rep- or repne-prefixed string instruction (movs, cmps, stos, lods,
 * scas, ins, outs), from its bytes. */
static Bool is_rep_string(Addr a, UInt len)
{
	const UChar *b = (const UChar *)a;
	Bool rep = False;
	UInt i = 0;

	for (; i < len && (b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x66 || b[i] == 0x67 ||
			   (b[i] & 0xf0) == 0x40); i++)
		rep |= b[i] == 0xf2 || b[i] == 0xf3;
	return rep && i < len &&
	       ((b[i] >= 0xa4 && b[i] <= 0xa7) || (b[i] >= 0xaa && b[i] <= 0xaf) ||
		(b[i] >= 0x6c && b[i] <= 0x6f));
}

/* What an instruction's statements say about it. */
struct insn_ir {
	Int imark;		/* the statement of its IMark */
	Bool call;		/* stores its own fall-through address: a call */
	Bool exits;		/* has a side exit */
	struct join {		/* a && join, whose first jump this is: */
		IRExpr *cond;	/* the condition its removed exit had, NULL if none */
		Addr other;	/* where it goes when that is false, */
		Bool negated;	/* the second jump's exit is taken then too, */
		UInt resume;	/* else the instruction it resumes at, in this
				   translation (0: none, it ends there) */
	} join;
};

/* The statement defining temp e, or NULL. */
static IRExpr *def_of(IRSB *in, const IRExpr *e)
{
	Int i;

	if (!e || e->tag != Iex_RdTmp)
		return NULL;
	for (i = in->stmts_used - 1; i >= 0; i--)
		if (in->stmts[i]->tag == Ist_WrTmp && in->stmts[i]->Ist.WrTmp.tmp == e->Iex.RdTmp.tmp)
			return in->stmts[i]->Ist.WrTmp.data;
	return NULL;
}

/*
 * Is the conditional jump at instruction k the first of a && join? Then
 * the second jump's exit, the first from instruction k + 1 on, is guarded
 * by And1(x, cond), cond the first jump's, or by its negation when VEX
 * unrolled the loop the join is in (that copy exits when it does not go
 * on). Fills j: cond, and the first jump's other side: where the second
 * jump goes when its exit is not taken (the next copy, or the
 * translation's end), or the exit's own target when negated.
 */
static Bool find_join(IRSB *in, const struct insn_ir *ir, Int n, Int k, struct join *j)
{
	IRExpr *g;
	Int i, x = -1, owner = k + 1;

	for (i = ir[k + 1].imark; i < in->stmts_used && x < 0; i++)
		if (in->stmts[i]->tag == Ist_Exit)
			x = i;
	if (x < 0)
		return False;
	while (owner + 1 < n && ir[owner + 1].imark < x)
		owner++;
	g = def_of(in, in->stmts[x]->Ist.Exit.guard);
	j->negated = g && g->tag == Iex_Unop && g->Iex.Unop.op == Iop_Not1;
	if (j->negated)
		g = def_of(in, g->Iex.Unop.arg);
	if (!g || g->tag != Iex_Binop || g->Iex.Binop.op != Iop_And1 ||
	    g->Iex.Binop.arg2->tag != Iex_RdTmp)
		return False;
	j->cond = g->Iex.Binop.arg2;
	j->resume = 0;
	if (j->negated) {
		j->other = (Addr)const_addr(in->stmts[x]->Ist.Exit.dst);
	} else if (owner + 1 < n) {
		j->resume = (UInt)owner + 1;
		j->other = (Addr)in->stmts[ir[owner + 1].imark]->Ist.IMark.addr;
	} else if (in->next->tag == Iex_Const) {
		j->other = (Addr)const_addr(in->next->Iex.Const.con);
	} else {
		return False;
	}
	return True;
}

/* The translation's record: its instructions and side exits (with the
 * exits a && join removed), how it ends, and per instruction its ir. */
static CntSB *new_sb(IRSB *in, struct insn_ir **irp)
{
	Int i, n = 0, nx = 0, k = -1;
	struct insn_ir *ir;
	Addr fall;
	CntSB *sb;

	for (i = 0; i < in->stmts_used; i++) {
		n += in->stmts[i]->tag == Ist_IMark;
		nx += in->stmts[i]->tag == Ist_Exit;
	}
	/* At most one removed exit per instruction. */
	sb = VG_(calloc)("witchspy.count.sb", 1, sizeof(*sb) + n * sizeof(sb->insn[0]));
	sb->exit = VG_(calloc)("witchspy.count.exits", nx + n + 1, sizeof(CntExit));
	ir = *irp = VG_(calloc)("witchspy.count.ir", n + 1, sizeof(*ir));
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark) {
			k++;
			ir[k].imark = i;
			sb->insn[k].addr = (Addr)st->Ist.IMark.addr;
			sb->insn[k].len = (UShort)st->Ist.IMark.len;
			sb->insn[k].repeat = k && sb->insn[k - 1].addr == sb->insn[k].addr;
		} else if (k >= 0 && st->tag == Ist_Exit) {
			ir[k].exits = True;
		} else if (k >= 0 && st->tag == Ist_Store && st->Ist.Store.data->tag == Iex_Const &&
			   const_addr(st->Ist.Store.data->Iex.Const.con) ==
				   sb->insn[k].addr + sb->insn[k].len) {
			ir[k].call = True;
		}
	}
	sb->ninsn = (UInt)n;
	sb->module = n ? spy_module_of(sb->insn[0].addr) : -1;
	if (!n)
		return sb;
	for (k = 0; k + 1 < n; k++) {
		Addr a = sb->insn[k].addr;

		sb->insn[k].call = ir[k].call;
		if (ir[k].call)
			cnt_call_site(a, a + sb->insn[k].len)->target = sb->insn[k + 1].addr;
		else if (!ir[k].exits && is_cond_jump(a, sb->insn[k].len) &&
			 !find_join(in, ir, n, k, &ir[k].join))
			cnt_inexact++;	/* not a join VEX makes today: counted as if always run */
	}
	fall = sb->insn[n - 1].addr + sb->insn[n - 1].len;
	sb->computed = in->next->tag != Iex_Const;
	sb->end_dst = sb->computed ? 0 : (Addr)const_addr(in->next->Iex.Const.con);
	/* VEX ends a rep op's translation by jumping back to it; it leaves
	 * only by side exits (count done, or repe/repne's condition). */
	sb->rep_loop = !sb->computed && in->jumpkind == Ijk_Boring &&
		       sb->end_dst == sb->insn[0].addr && sb->insn[n - 1].addr == sb->insn[0].addr &&
		       is_rep_string(sb->insn[0].addr, sb->insn[0].len);
	switch (in->jumpkind) {
	case Ijk_Call:
		sb->end = CNT_CALL;
		sb->call = cnt_call_site(sb->insn[n - 1].addr, fall);
		if (!sb->computed)
			sb->call->target = sb->end_dst;
		break;
	case Ijk_Ret:
		sb->end = CNT_RET;
		break;
	default:
		/* A block cut short, a system call, a client request: the next
		 * instruction follows, as if no block ended. A conditional jump
		 * falling through has a side exit in its instruction: both of
		 * its edges are kept, even one never taken. */
		if (!sb->computed && sb->end_dst == fall &&
		    (in->jumpkind != Ijk_Boring || !ir[n - 1].exits))
			sb->end = CNT_NEXT;
		else
			sb->end = CNT_JUMP;
		break;
	}
	return sb;
}

/* Executions among instructions from..to-1 (repetitions are none). */
static ULong executions(const CntSB *sb, UInt from, UInt to)
{
	ULong n = 0;

	for (; from < to; from++)
		n += !sb->insn[from].repeat;
	return n;
}

/* Before a side exit of instruction k to dst, guarded by g (an I1 atom);
 * one that skips instructions up to resume (not 0) and goes on there. */
static void count_exit(IRSB *out, Int off, CntSB *sb, UInt k, Addr dst, IRExpr *g, UInt resume)
{
	CntExit *e = &sb->exit[sb->nexit++];
	/* Instructions the exit skips, and itself when it repeats. */
	ULong skipped = executions(sb, k + 1, resume ? resume : sb->ninsn) +
			(dst == sb->insn[k].addr);

	e->insn = k;
	e->dst = dst;
	e->resume = resume;
	if (sb->rep_loop) {
		/* Another iteration costs nothing; leaving ends an execution. */
		if (dst != sb->insn[k].addr) {
			add_if(out, &e->count, g, 1);
			icount_add(out, off, deepCopyIRExpr(g), 1);
		}
		return;
	}
	add_if(out, &e->count, g, 1);
	if (skipped)
		icount_add(out, off, deepCopyIRExpr(g), (ULong)-(Long)skipped);
}

/* Between instructions k and k + 1: a call VEX followed, or a && join
 * (whose second exit, when it fires for the first jump too, is counted
 * only when it is its own: *join_cond). */
static void between(IRSB *out, Int off, CntSB *sb, const struct insn_ir *ir, UInt k, Int sp_off,
		    IRExpr **join_cond)
{
	if (sb->insn[k].call) {
		CntCall *cs = cnt_call_site(sb->insn[k].addr, sb->insn[k].addr + sb->insn[k].len);
		IRExpr *sp = spy_ir_tmp(out, Ity_I64, IRExpr_Get(sp_off, Ity_I64));
		/* The count so far: those after the call are in it already. */
		IRExpr *now = spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Sub64, icount(out, off),
							     hw((HWord)executions(sb, k + 1, sb->ninsn))));

		helper(out, "cnt_on_chased_call", cnt_on_chased_call, mkIRExprVec_3(hw((HWord)cs), sp, now),
		       NULL);
	} else if (ir[k].join.cond) {
		/* The exit the join removed, to the first jump's other side. */
		count_exit(out, off, sb, k, ir[k].join.other,
			   spy_ir_tmp(out, Ity_I1, IRExpr_Unop(Iop_Not1, deepCopyIRExpr(ir[k].join.cond))),
			   ir[k].join.resume);
		if (ir[k].join.negated)
			*join_cond = ir[k].join.cond;
	}
}

/* After the last statement: the end's bookkeeping, reached only when no
 * side exit was taken. */
static void instrument_end(IRSB *out, IRSB *in, CntSB *sb, Int off, Int sp_off)
{
	Addr last = sb->insn[sb->ninsn - 1].addr;
	IRExpr *next = deepCopyIRExpr(in->next), *sp, *same;

	if (sb->rep_loop)
		return;		/* another iteration */
	if (sb->end == CNT_JUMP && !sb->computed && sb->end_dst == last) {
		icount_add(out, off, NULL, (ULong)-1);
		return;
	}
	switch (sb->end) {
	case CNT_CALL:
		sp = spy_ir_tmp(out, Ity_I64, IRExpr_Get(sp_off, Ity_I64));
		helper(out, "cnt_on_call", cnt_on_call,
		       mkIRExprVec_4(hw((HWord)sb), sp, next, icount(out, off)), NULL);
		break;
	case CNT_RET:
		sp = spy_ir_tmp(out, Ity_I64, IRExpr_Get(sp_off, Ity_I64));
		helper(out, "cnt_on_ret", cnt_on_ret,
		       mkIRExprVec_4(hw((HWord)sb), sp, next, icount(out, off)), NULL);
		break;
	case CNT_JUMP:
		if (!sb->computed)
			break;
		/* The same target as last time: counted here; another: the helper. */
		same = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, next,
						      spy_ir_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
										    hw((HWord)&sb->ind_last)))));
		add_if(out, &sb->ind_count, same, 1);
		helper(out, "cnt_on_computed", cnt_on_computed,
		       mkIRExprVec_2(hw((HWord)sb), deepCopyIRExpr(in->next)),
		       spy_ir_tmp(out, Ity_I1, IRExpr_Unop(Iop_Not1, same)));
		break;
	default:
		break;
	}
}

IRSB *cnt_instrument(IRSB *in, const VexGuestLayout *layout)
{
	struct insn_ir *ir;
	CntSB *sb = new_sb(in, &ir);
	IRSB *out = deepCopyIRSBExceptStmts(in);
	IRExpr *join_cond = NULL, *g;
	Int i, k = -1, off = layout->total_sizeB + CNT_ICOUNT;

	spy_st.superblocks++;
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		if (st->tag == Ist_IMark && k >= 0)
			between(out, off, sb, ir, (UInt)k, layout->offset_SP, &join_cond);
		if (st->tag == Ist_Exit && k >= 0) {
			g = deepCopyIRExpr(st->Ist.Exit.guard);
			if (join_cond)
				g = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, g, deepCopyIRExpr(join_cond)));
			join_cond = NULL;
			count_exit(out, off, sb, (UInt)k, (Addr)const_addr(st->Ist.Exit.dst), g, 0);
		}
		addStmtToIRSB(out, st);
		if (st->tag == Ist_IMark && ++k == 0 && !sb->rep_loop) {
			add_to(out, &sb->entries, IRExpr_Const(IRConst_U64(1)));
			icount_add(out, off, NULL, executions(sb, 0, sb->ninsn));
		}
	}
	if (sb->ninsn)
		instrument_end(out, in, sb, off, layout->offset_SP);
	VG_(free)(ir);
	sb->next = cnt_sbs;
	cnt_sbs = sb;
	return out;
}
