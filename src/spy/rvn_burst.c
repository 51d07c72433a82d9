/*
 * rvn_burst.c - the translations of witch spy --tool=rvn --burst=ON,OFF
 * (rvn.h): one translation for both phases, so that a switch between a
 * burst and the stretch between bursts costs nothing.
 *
 * A large program's hot code is many thousands of translations, which
 * translations made for one phase only have to make again at each switch.
 * So a translation starts with a copy of its code without numbers, which
 * ends with a side exit, taken between bursts, to where the code goes on;
 * the numbered code follows it and runs only in a burst:
 *
 *     switch the phase if due; count the instructions; in a burst, the
 *       check that a return left the innermost frame
 *     save the registers the numbered code must find as they were
 *     the code, copied, without numbers, its memory accesses and helper
 *       calls only between bursts
 *     if not in a burst: exit to the next instruction
 *     put the saved registers back
 *     the code with numbers (rvn.c), and at its end a call's new frame
 *
 * Between bursts calls are not followed at all: each burst starts from
 * frames read off the threads' stacks (spy_stack_rebuild). The copy
 * holds no call-stack code, and the code that runs in both phases calls
 * its call-stack helpers only in a burst: following calls was much of a
 * large program's cost between bursts (sqlite3).
 *
 * A side exit goes to a constant address. A translation that ends by
 * jumping to a computed one (a return, an indirect jump or call) leaves
 * its last instruction out of the copy, and the copy exits to it: that
 * instruction starts a translation of its own. Where it cannot (that
 * instruction is the translation's only one, or VEX may have dropped a
 * register write of an earlier instruction because the last one writes
 * the register again), the numbered code runs in both phases with its
 * helpers called only in a burst.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "rvn.h"

/* ---- a copy of statements under new temps ---- */

static void rename_expr(IRExpr *e, const IRTemp *map)
{
	Int i;

	switch (e->tag) {
	case Iex_RdTmp:
		tl_assert(map[e->Iex.RdTmp.tmp] != IRTemp_INVALID);
		e->Iex.RdTmp.tmp = map[e->Iex.RdTmp.tmp];
		break;
	case Iex_GetI:
		rename_expr(e->Iex.GetI.ix, map);
		break;
	case Iex_Qop:
		rename_expr(e->Iex.Qop.details->arg4, map);
		/* fall through */
	case Iex_Triop:
		rename_expr(e->Iex.Triop.details->arg3, map);
		rename_expr(e->Iex.Triop.details->arg2, map);
		rename_expr(e->Iex.Triop.details->arg1, map);
		break;
	case Iex_Binop:
		rename_expr(e->Iex.Binop.arg1, map);
		rename_expr(e->Iex.Binop.arg2, map);
		break;
	case Iex_Unop:
		rename_expr(e->Iex.Unop.arg, map);
		break;
	case Iex_Load:
		rename_expr(e->Iex.Load.addr, map);
		break;
	case Iex_ITE:
		rename_expr(e->Iex.ITE.cond, map);
		rename_expr(e->Iex.ITE.iftrue, map);
		rename_expr(e->Iex.ITE.iffalse, map);
		break;
	case Iex_CCall:
		for (i = 0; e->Iex.CCall.args[i]; i++)
			rename_expr(e->Iex.CCall.args[i], map);
		break;
	default:		/* Get, Const, VECRET, GSPTR */
		break;
	}
}

static IRTemp new_temp(IRSB *in, IRSB *out, IRTemp *map, IRTemp t)
{
	if (t == IRTemp_INVALID)
		return t;
	map[t] = newIRTemp(out->tyenv, typeOfIRTemp(in->tyenv, t));
	return map[t];
}

/* st, copied with the temps it reads and writes renamed by map (those it
 * writes get new ones). */
static IRStmt *renamed(IRSB *in, IRSB *out, IRTemp *map, const IRStmt *st)
{
	IRStmt *s = deepCopyIRStmt(st);
	IRDirty *d;
	IRCAS *cas;
	Int i;

	switch (s->tag) {
	case Ist_AbiHint:
		rename_expr(s->Ist.AbiHint.base, map);
		rename_expr(s->Ist.AbiHint.nia, map);
		break;
	case Ist_Put:
		rename_expr(s->Ist.Put.data, map);
		break;
	case Ist_PutI:
		rename_expr(s->Ist.PutI.details->ix, map);
		rename_expr(s->Ist.PutI.details->data, map);
		break;
	case Ist_WrTmp:
		rename_expr(s->Ist.WrTmp.data, map);
		s->Ist.WrTmp.tmp = new_temp(in, out, map, s->Ist.WrTmp.tmp);
		break;
	case Ist_Store:
		rename_expr(s->Ist.Store.addr, map);
		rename_expr(s->Ist.Store.data, map);
		break;
	case Ist_StoreG:
		rename_expr(s->Ist.StoreG.details->addr, map);
		rename_expr(s->Ist.StoreG.details->data, map);
		rename_expr(s->Ist.StoreG.details->guard, map);
		break;
	case Ist_LoadG:
		rename_expr(s->Ist.LoadG.details->addr, map);
		rename_expr(s->Ist.LoadG.details->alt, map);
		rename_expr(s->Ist.LoadG.details->guard, map);
		s->Ist.LoadG.details->dst = new_temp(in, out, map, s->Ist.LoadG.details->dst);
		break;
	case Ist_CAS:
		cas = s->Ist.CAS.details;
		rename_expr(cas->addr, map);
		if (cas->expdHi)
			rename_expr(cas->expdHi, map);
		rename_expr(cas->expdLo, map);
		if (cas->dataHi)
			rename_expr(cas->dataHi, map);
		rename_expr(cas->dataLo, map);
		cas->oldHi = new_temp(in, out, map, cas->oldHi);
		cas->oldLo = new_temp(in, out, map, cas->oldLo);
		break;
	case Ist_LLSC:
		rename_expr(s->Ist.LLSC.addr, map);
		if (s->Ist.LLSC.storedata)
			rename_expr(s->Ist.LLSC.storedata, map);
		s->Ist.LLSC.result = new_temp(in, out, map, s->Ist.LLSC.result);
		break;
	case Ist_Dirty:
		d = s->Ist.Dirty.details;
		rename_expr(d->guard, map);
		for (i = 0; d->args[i]; i++)
			rename_expr(d->args[i], map);
		if (d->mAddr)
			rename_expr(d->mAddr, map);
		d->tmp = new_temp(in, out, map, d->tmp);
		break;
	case Ist_Exit:
		rename_expr(s->Ist.Exit.guard, map);
		break;
	default:		/* NoOp, IMark, MBE */
		break;
	}
	return s;
}

/* ---- the copy's effects, only between bursts ---- */

/* Where the copy's loads and stores go in a burst: nowhere that matters. */
static ULong dummy[4] __attribute__((aligned(32)));

static IRExpr *tmp(IRSB *out, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(out->tyenv, ty);

	addStmtToIRSB(out, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

static IRExpr *and_off(IRSB *out, IRExpr *g, IRExpr *off)
{
	return tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, g, off));
}

static IRExpr *ite(IRSB *out, IRType ty, IRExpr *off, IRExpr *e, IRExpr *alt)
{
	return tmp(out, ty, IRExpr_ITE(off, e, alt));
}

static IRExpr *addr_off(IRSB *out, IRExpr *a, IRExpr *off)
{
	return ite(out, Ity_I64, off, a, mkIRExpr_HWord((HWord)dummy));
}

/* A division of what a burst leaves unset could fault: 0 / 1 there. */
static void safe_division(IRSB *out, IRExpr *e, IRExpr *off)
{
	IRExpr *n;

	switch (e->Iex.Binop.op) {
	case Iop_DivModU64to32: case Iop_DivModS64to32:
		e->Iex.Binop.arg1 = ite(out, Ity_I64, off, e->Iex.Binop.arg1, IRExpr_Const(IRConst_U64(0)));
		e->Iex.Binop.arg2 = ite(out, Ity_I32, off, e->Iex.Binop.arg2, IRExpr_Const(IRConst_U32(1)));
		break;
	case Iop_DivModU128to64: case Iop_DivModS128to64:
		n = e->Iex.Binop.arg1;
		e->Iex.Binop.arg1 = tmp(out, Ity_I128, IRExpr_Binop(Iop_64HLto128,
			ite(out, Ity_I64, off, tmp(out, Ity_I64, IRExpr_Unop(Iop_128HIto64, n)),
			    IRExpr_Const(IRConst_U64(0))),
			ite(out, Ity_I64, off, tmp(out, Ity_I64, IRExpr_Unop(Iop_128to64, n)),
			    IRExpr_Const(IRConst_U64(0)))));
		e->Iex.Binop.arg2 = ite(out, Ity_I64, off, e->Iex.Binop.arg2, IRExpr_Const(IRConst_U64(1)));
		break;
	default:
		break;
	}
}

/*
 * Add s (a copied statement) to out with what it changes in memory, or
 * by a helper or a side exit, done only when off holds: memory accesses
 * go to a dummy, helpers and side exits are guarded. Its register writes
 * are done in both phases (the numbered code puts back what it must:
 * seen_first below), but for the x87 registers'. Its pure operations run
 * in both phases too, on values that in a burst may be anything: nothing
 * they can do there is seen.
 */
static void add_off(IRSB *out, IRStmt *s, IRExpr *off)
{
	IRExpr *e;

	switch (s->tag) {
	case Ist_PutI: {
		/* The x87 registers, indexed: not put back, so written only
		 * between bursts. */
		IRPutI *p = s->Ist.PutI.details;
		IRType ty = typeOfIRExpr(out->tyenv, p->data);

		p->data = ite(out, ty, off, p->data, tmp(out, ty, IRExpr_GetI(p->descr, p->ix, p->bias)));
		break;
	}
	case Ist_WrTmp:
		e = s->Ist.WrTmp.data;
		if (e->tag == Iex_Load)
			e->Iex.Load.addr = addr_off(out, e->Iex.Load.addr, off);
		else if (e->tag == Iex_Binop)
			safe_division(out, e, off);
		break;
	case Ist_Store:
		s->Ist.Store.addr = addr_off(out, s->Ist.Store.addr, off);
		break;
	case Ist_StoreG:
		s->Ist.StoreG.details->addr = addr_off(out, s->Ist.StoreG.details->addr, off);
		break;
	case Ist_LoadG:
		s->Ist.LoadG.details->addr = addr_off(out, s->Ist.LoadG.details->addr, off);
		break;
	case Ist_CAS:
		s->Ist.CAS.details->addr = addr_off(out, s->Ist.CAS.details->addr, off);
		break;
	case Ist_LLSC:
		s->Ist.LLSC.addr = addr_off(out, s->Ist.LLSC.addr, off);
		break;
	case Ist_Dirty:
		s->Ist.Dirty.details->guard = and_off(out, s->Ist.Dirty.details->guard, off);
		break;
	case Ist_Exit:
		s->Ist.Exit.guard = and_off(out, s->Ist.Exit.guard, off);
		break;
	default:		/* AbiHint, MBE */
		break;
	}
	addStmtToIRSB(out, s);
}

/* ---- where the copy ends ---- */

static Bool overlaps(Int a, Int na, Int b, Int nb)
{
	return a < b + nb && b < a + na;
}

/*
 * Whether VEX may have dropped, in the instructions before the one
 * starting at statement `from`, a register write because that instruction
 * writes the register again: it drops a write whose next event is another
 * write of the same register, unless something reads the register first
 * (a Get, a helper, a side exit; a memory access reads RSP, RBP and RIP,
 * which must be up to date there). So: does the instruction write a
 * register, other than RIP, that nothing before in it reads?
 */
static Bool may_hide_writes(IRSB *in, Int from, const VexGuestLayout *layout)
{
	Int reads[64][2], nreads = 0, i, j;
	Bool mem = False, all = False;

	for (i = from; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		Int off, size;
		Bool seen;

		switch (st->tag) {
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load)
				mem = True;
			if (st->Ist.WrTmp.data->tag == Iex_Get && nreads < 64) {
				reads[nreads][0] = st->Ist.WrTmp.data->Iex.Get.offset;
				reads[nreads++][1] = sizeofIRType(st->Ist.WrTmp.data->Iex.Get.ty);
			}
			if (st->Ist.WrTmp.data->tag == Iex_GetI)
				all = True;
			break;
		case Ist_Store: case Ist_StoreG: case Ist_LoadG:
			mem = True;
			break;
		case Ist_Dirty: case Ist_MBE: case Ist_CAS: case Ist_LLSC: case Ist_AbiHint: case Ist_Exit:
			all = True;
			break;
		case Ist_PutI:
			return True;
		case Ist_Put:
			off = st->Ist.Put.offset;
			size = sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Put.data));
			if (off == layout->offset_IP || all)
				break;
			if (mem && (off == layout->offset_SP || off == layout->offset_FP))
				break;
			for (seen = False, j = 0; j < nreads && !seen; j++)
				seen = overlaps(off, size, reads[j][0], reads[j][1]);
			if (!seen)
				return True;
			break;
		default:
			break;
		}
	}
	return False;
}

static Int last_imark(IRSB *in)
{
	Int i;

	for (i = in->stmts_used - 1; i >= 0; i--)
		if (in->stmts[i]->tag == Ist_IMark)
			return i;
	return -1;
}

/*
 * The statements the copy holds, [first, end), and where it exits to:
 * the whole code to the translation's own constant end, or all but a
 * last instruction that jumps to a computed address, exiting to it. -1:
 * no copy.
 */
static Int copy_end(IRSB *in, Int first, const VexGuestLayout *layout, Addr *dst, IRJumpKind *jk)
{
	Int last = last_imark(in);

	if (in->next->tag == Iex_Const) {
		*dst = (Addr)in->next->Iex.Const.con->Ico.U64;
		switch (in->jumpkind) {
		case Ijk_Boring: case Ijk_Call: case Ijk_Ret:
			*jk = Ijk_Boring;
			return in->stmts_used;
		/* The other kinds a side exit may have (VEX's amd64 back end). */
		case Ijk_ClientReq: case Ijk_EmWarn: case Ijk_NoDecode: case Ijk_NoRedir:
		case Ijk_SigSEGV: case Ijk_SigBUS: case Ijk_SigTRAP: case Ijk_Sys_syscall:
		case Ijk_Sys_int210: case Ijk_InvalICache: case Ijk_Yield:
			*jk = in->jumpkind;
			return in->stmts_used;
		default:
			return -1;
		}
	}
	if (last <= first || may_hide_writes(in, last, layout))
		return -1;
	*dst = (Addr)in->stmts[last]->Ist.IMark.addr;
	*jk = Ijk_Boring;
	return last;
}

/* ---- registers the copy writes that the numbered code must find ---- */

enum { UNTOUCHED, WRITTEN, READ };

static void mark(UChar *st, Int size, Int off, Int n, UChar how)
{
	Int i;

	for (i = off; i < off + n && i < size; i++)
		if (st[i] == UNTOUCHED)
			st[i] = how;
}

/*
 * In a burst the copy's register writes are done, then the numbered code
 * runs the same statements again from the translation's start. A register
 * the numbered code writes before anything can see it (a read, a side
 * exit, a helper, a memory access for RSP, RBP and RIP) needs nothing;
 * one it may see first must hold its value from the start again. Which of
 * the copy's register writes [first, end) are of such registers; st: a
 * byte of the guest state each.
 */
static void seen_first(IRSB *in, Int first, const VexGuestLayout *layout, UChar *st)
{
	Int size = layout->total_sizeB, i;

	for (i = first; i < in->stmts_used; i++) {
		IRStmt *x = in->stmts[i];
		IRExpr *e;

		switch (x->tag) {
		case Ist_WrTmp:
			e = x->Ist.WrTmp.data;
			if (e->tag == Iex_Get) {
				mark(st, size, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty), READ);
				break;
			}
			if (e->tag == Iex_GetI)
				return mark(st, size, 0, size, READ);
			if (e->tag != Iex_Load)
				break;
			/* fall through */
		case Ist_Store: case Ist_StoreG: case Ist_LoadG:
			mark(st, size, layout->offset_SP, layout->sizeof_SP, READ);
			mark(st, size, layout->offset_FP, layout->sizeof_FP, READ);
			mark(st, size, layout->offset_IP, layout->sizeof_IP, READ);
			break;
		case Ist_Put:
			mark(st, size, x->Ist.Put.offset,
			     sizeofIRType(typeOfIRExpr(in->tyenv, x->Ist.Put.data)), WRITTEN);
			break;
		case Ist_IMark: case Ist_NoOp:
			break;
		default:	/* Exit, Dirty, CAS, LLSC, MBE, AbiHint, PutI */
			return mark(st, size, 0, size, READ);
		}
	}
	mark(st, size, 0, size, READ);
}

/* Whether the numbered code may see [off, off + n) before it writes it. */
static Bool seen(const UChar *st, Int off, Int n)
{
	Int i;

	for (i = off; i < off + n; i++)
		if (st[i] == READ)
			return True;
	return False;
}

/* ---- the start of a translation ---- */

static IRExpr *load64(IRSB *out, const void *p)
{
	return tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)p)));
}

/* rvn_icount += n */
static void count(IRSB *out, Int n)
{
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&rvn_icount),
					tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, load64(out, &rvn_icount),
								       IRExpr_Const(IRConst_U64((ULong)n))))));
}

IRExpr *rvn_burst_start(IRSB *in, IRSB *out, Int first, const VexGuestLayout *layout, Int ninsn)
{
	IRExpr *due = tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpLE64U, load64(out, &rvn_next_switch),
						     load64(out, &rvn_icount)));
	IRDirty *d = unsafeIRDirty_0_N(0, "rvn_switch", VG_(fnptr_to_fnentry)(rvn_switch),
				       mkIRExprVec_0());
	IRExpr *on, *off;
	IRTemp *map;
	IRJumpKind jk;
	Addr dst;
	Int i, end, nsaved = 0;
	UChar *st;
	struct {
		Int off;
		IRExpr *v;
	} *saved;

	d->guard = due;
	addStmtToIRSB(out, IRStmt_Dirty(d));
	on = tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, load64(out, &rvn_on), IRExpr_Const(IRConst_U64(0))));
	end = copy_end(in, first, layout, &dst, &jk);
	/* The instruction the copy leaves out counts in its own translation. */
	count(out, end >= 0 && end < in->stmts_used ? ninsn - 1 : ninsn);
	spy_ir_check_return(out, layout->offset_SP, on);
	if (end < 0)
		return on;
	off = tmp(out, Ity_I1, IRExpr_Unop(Iop_Not1, on));
	/* The registers the numbered code must find as they were: saved
	 * before the copy, put back after its exit. */
	st = VG_(calloc)("witchspy.rvn.burst", layout->total_sizeB, 1);
	saved = VG_(malloc)("witchspy.rvn.burst", (end - first) * sizeof(*saved));
	seen_first(in, first, layout, st);
	for (i = first; i < end; i++) {
		IRStmt *x = in->stmts[i];
		IRType ty;

		if (x->tag != Ist_Put)
			continue;
		ty = typeOfIRExpr(in->tyenv, x->Ist.Put.data);
		if (!seen(st, x->Ist.Put.offset, sizeofIRType(ty)))
			continue;
		saved[nsaved].off = x->Ist.Put.offset;
		saved[nsaved++].v = tmp(out, ty, IRExpr_Get(x->Ist.Put.offset, ty));
		/* Once is enough. */
		VG_(memset)(st + x->Ist.Put.offset, WRITTEN, sizeofIRType(ty));
	}
	map = VG_(malloc)("witchspy.rvn.burst", (in->tyenv->types_used + 1) * sizeof(*map));
	for (i = 0; i < in->tyenv->types_used; i++)
		map[i] = IRTemp_INVALID;
	for (i = first; i < end; i++)
		if (in->stmts[i]->tag != Ist_IMark && in->stmts[i]->tag != Ist_NoOp)
			add_off(out, renamed(in, out, map, in->stmts[i]), off);
	addStmtToIRSB(out, IRStmt_Exit(off, jk, IRConst_U64((ULong)dst), layout->offset_IP));
	for (i = nsaved - 1; i >= 0; i--)
		addStmtToIRSB(out, IRStmt_Put(saved[i].off, saved[i].v));
	if (end < in->stmts_used)
		count(out, 1);
	VG_(free)(map);
	VG_(free)(st);
	VG_(free)(saved);
	return NULL;
}
