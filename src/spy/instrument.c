/*
 * instrument.c - which helper runs at which access, in VEX IR.
 *
 * Per superblock: a call at its start when a return left the innermost
 * frame keeps the calling context current. Every instruction that
 * accesses memory has its context handle (SpySB.site[].handle, read by
 * the helpers through a constant pointer, looked up when first needed in
 * a context: spy_site_handle). Then, per access:
 *
 *   dead    before each load and store (the store's value is irrelevant)
 *   silent  before each store, with the value it is about to write
 *   load    after each load, with the value it returned
 *   loop    after each load, with its value, while a loop is active; and
 *           a loop point at loop headers and exits (loop_map.c)
 *
 * Compare-and-swap is judged after it ran (what it read, whether it
 * wrote). Dirty helpers with memory effects (x87 80-bit, fxsave, ...)
 * have no value in the IR: RedSpy snapshots the old bytes, LoadSpy reads
 * memory after. A superblock ending in a call pushes a shadow frame.
 *
 * An instruction that writes RSP and accesses memory is push, pop, call,
 * ret, leave or enter: its accesses are implicit (judged, not watched).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_offsets.h"

#include "spy.h"
#include "loop.h"
#include "addrmap.h"

struct insn {
	Addr addr;
	UInt len;
	Bool writes_sp;
	Bool relevant;		/* has an access this tool looks at */
	UChar dtype;
	Int site;		/* index in SpySB.site, -1 if none */
};

struct ctx {
	IRSB *out;
	SpySB *sb;
	UChar *tmp_op_dtype;	/* by temp: dtype of the float op that made it */
	UChar *tmp_use_dtype;	/* by temp: dtype of a float op that reads it */
	Int sp_off;
};

/* ---- floating point recognition (for approximate comparison) ---- */

static UChar op_dtype(IROp op)
{
	switch (op) {
	case Iop_Add64Fx2: case Iop_Sub64Fx2: case Iop_Mul64Fx2: case Iop_Div64Fx2:
	case Iop_Max64Fx2: case Iop_Min64Fx2: case Iop_Sqrt64Fx2:
	case Iop_Add64F0x2: case Iop_Sub64F0x2: case Iop_Mul64F0x2: case Iop_Div64F0x2:
	case Iop_Max64F0x2: case Iop_Min64F0x2: case Iop_Sqrt64F0x2:
	case Iop_Add64Fx4: case Iop_Sub64Fx4: case Iop_Mul64Fx4: case Iop_Div64Fx4:
	case Iop_Max64Fx4: case Iop_Min64Fx4: case Iop_Sqrt64Fx4:
	case Iop_AddF64: case Iop_SubF64: case Iop_MulF64: case Iop_DivF64:
	case Iop_SqrtF64: case Iop_F32toF64: case Iop_I64StoF64: case Iop_I32StoF64:
	case Iop_ReinterpF64asI64:
		return DT_F64;
	case Iop_Add32Fx4: case Iop_Sub32Fx4: case Iop_Mul32Fx4: case Iop_Div32Fx4:
	case Iop_Max32Fx4: case Iop_Min32Fx4: case Iop_Sqrt32Fx4:
	case Iop_Add32F0x4: case Iop_Sub32F0x4: case Iop_Mul32F0x4: case Iop_Div32F0x4:
	case Iop_Max32F0x4: case Iop_Min32F0x4: case Iop_Sqrt32F0x4:
	case Iop_Add32Fx8: case Iop_Sub32Fx8: case Iop_Mul32Fx8: case Iop_Div32Fx8:
	case Iop_Max32Fx8: case Iop_Min32Fx8: case Iop_Sqrt32Fx8:
	case Iop_I32StoF32x4: case Iop_I32StoF32x8:
	case Iop_AddF32: case Iop_SubF32: case Iop_MulF32: case Iop_DivF32:
	case Iop_F64toF32: case Iop_ReinterpF32asI32:
		return DT_F32;
	default:
		return DT_INT;
	}
}

static UChar type_dtype(IRType ty)
{
	return ty == Ity_F32 ? DT_F32 : ty == Ity_F64 ? DT_F64 : DT_INT;
}

/* dtype of the value e, from its type or the op that computed it. */
static UChar value_dtype(struct ctx *c, IRSB *in, IRExpr *e)
{
	IRType ty = typeOfIRExpr(in->tyenv, e);

	if (type_dtype(ty) != DT_INT)
		return type_dtype(ty);
	if (e->tag == Iex_RdTmp)
		return (UChar)c->tmp_op_dtype[e->Iex.RdTmp.tmp];
	return DT_INT;
}

/*
 * Record, per temp, the float op that defines it and the float ops that
 * read it. Values often reach a store, or leave a load, through a guest
 * register (movsd: the store reads the xmm register's low 64 bits as I64),
 * so the registers a superblock writes carry the dtype of what was put
 * there, and the load that filled them.
 */
static void scan_float_ops(struct ctx *c, IRSB *in, Int gsize)
{
	UChar *reg_dt = VG_(calloc)("witchspy.regs", gsize, 1);
	Int *reg_src = VG_(malloc)("witchspy.regs", gsize * sizeof(Int));
	Int *get_off = VG_(malloc)("witchspy.regs", (in->tyenv->types_used + 1) * sizeof(Int));
	Int i, a, b;

	for (i = 0; i < gsize; i++)
		reg_src[i] = -1;
	for (i = 0; i <= in->tyenv->types_used; i++)
		get_off[i] = -1;
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		IRExpr *e, *args[4] = { NULL, NULL, NULL, NULL };
		IROp op;
		UChar dt;

		if (st->tag == Ist_Put) {
			IRExpr *d = st->Ist.Put.data;
			Int off = st->Ist.Put.offset, sz = sizeofIRType(typeOfIRExpr(in->tyenv, d));
			Bool tmp = d->tag == Iex_RdTmp;

			for (b = off; b < off + sz && b < gsize; b++) {
				reg_dt[b] = tmp ? c->tmp_op_dtype[d->Iex.RdTmp.tmp] : DT_INT;
				reg_src[b] = tmp ? (Int)d->Iex.RdTmp.tmp : -1;
			}
			continue;
		}
		if (st->tag != Ist_WrTmp)
			continue;
		e = st->Ist.WrTmp.data;
		switch (e->tag) {
		case Iex_Get:
			if (e->Iex.Get.offset >= 0 && e->Iex.Get.offset < gsize) {
				c->tmp_op_dtype[st->Ist.WrTmp.tmp] = reg_dt[e->Iex.Get.offset];
				get_off[st->Ist.WrTmp.tmp] = e->Iex.Get.offset;
			}
			continue;
		case Iex_Unop:
			op = e->Iex.Unop.op;
			args[0] = e->Iex.Unop.arg;
			break;
		case Iex_Binop:
			op = e->Iex.Binop.op;
			args[0] = e->Iex.Binop.arg1;
			args[1] = e->Iex.Binop.arg2;
			break;
		case Iex_Triop:
			op = e->Iex.Triop.details->op;
			args[0] = e->Iex.Triop.details->arg1;
			args[1] = e->Iex.Triop.details->arg2;
			args[2] = e->Iex.Triop.details->arg3;
			break;
		default:
			continue;
		}
		dt = op_dtype(op);
		if (op == Iop_V128HLtoV256 || op == Iop_64HLtoV128) {
			/* Halves made by float ops make a float vector. */
			IRExpr *hi = args[0], *lo = args[1];

			if (hi->tag == Iex_RdTmp && lo->tag == Iex_RdTmp &&
			    c->tmp_op_dtype[hi->Iex.RdTmp.tmp] &&
			    c->tmp_op_dtype[hi->Iex.RdTmp.tmp] == c->tmp_op_dtype[lo->Iex.RdTmp.tmp])
				dt = c->tmp_op_dtype[hi->Iex.RdTmp.tmp];
		}
		if (dt == DT_INT)
			continue;
		c->tmp_op_dtype[st->Ist.WrTmp.tmp] = dt;
		if (op == Iop_ReinterpF64asI64 || op == Iop_ReinterpF32asI32 ||
		    op == Iop_V128HLtoV256 || op == Iop_64HLtoV128)
			continue;	/* their inputs are already known */
		for (a = 0; a < 4 && args[a]; a++) {
			IRTemp t;
			Int off;

			if (args[a]->tag != Iex_RdTmp)
				continue;
			t = args[a]->Iex.RdTmp.tmp;
			c->tmp_use_dtype[t] = dt;
			/* An operand read from a register: what was loaded into it. */
			off = get_off[t];
			if (off >= 0 && reg_src[off] >= 0)
				c->tmp_use_dtype[reg_src[off]] = dt;
		}
	}
	VG_(free)(reg_dt);
	VG_(free)(reg_src);
	VG_(free)(get_off);
}

/* ---- IR building ---- */

IRExpr *spy_ir_tmp(IRSB *out, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(out->tyenv, ty);

	addStmtToIRSB(out, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

static IRExpr *hw(HWord v)
{
	return mkIRExpr_HWord(v);
}

/* The value e as 64-bit pieces, low first; returns how many (0: its type
 * has no integer view here). */
Int spy_ir_pieces(IRSB *out, IRExpr *e, IRExpr **p)
{
	IRType ty = typeOfIRExpr(out->tyenv, e);

	switch (ty) {
	case Ity_I8:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_8Uto64, e));
		return 1;
	case Ity_I16:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_16Uto64, e));
		return 1;
	case Ity_I32:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_32Uto64, e));
		return 1;
	case Ity_I64:
		p[0] = e;
		return 1;
	case Ity_F32:
		p[0] = spy_ir_tmp(out, Ity_I32, IRExpr_Unop(Iop_ReinterpF32asI32, e));
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_32Uto64, p[0]));
		return 1;
	case Ity_F64:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_ReinterpF64asI64, e));
		return 1;
	case Ity_I128:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_128to64, e));
		p[1] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_128HIto64, e));
		return 2;
	case Ity_V128:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_V128to64, e));
		p[1] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_V128HIto64, e));
		return 2;
	case Ity_V256:
		p[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_V256to64_0, e));
		p[1] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_V256to64_1, e));
		p[2] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_V256to64_2, e));
		p[3] = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_V256to64_3, e));
		return 4;
	default:
		return 0;
	}
}

static Bool pieces_ok(IRTypeEnv *env, IRExpr *e)
{
	switch (typeOfIRExpr(env, e)) {
	case Ity_I8: case Ity_I16: case Ity_I32: case Ity_I64: case Ity_F32: case Ity_F64:
	case Ity_I128: case Ity_V128: case Ity_V256:
		return True;
	default:
		return False;
	}
}

static void call(IRSB *out, const HChar *name, void *fn, IRExpr **args, IRExpr *guard,
		 IRExpr *reads_addr, Int reads_size)
{
	IRDirty *d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		d->guard = guard;
	if (reads_addr && reads_size > 0) {
		/* The helper reads client memory there: keep it ordered. */
		d->mFx = Ifx_Read;
		d->mAddr = reads_addr;
		d->mSize = reads_size;
	}
	addStmtToIRSB(out, IRStmt_Dirty(d));
}

#define CALL(out, fn, args, guard) call(out, #fn, fn, args, guard, NULL, 0)

static IRExpr *slot_of(struct ctx *c, const struct insn *in)
{
	return hw((HWord)&c->sb->site[in->site]);
}

static UWord flags_of(const struct insn *in, Int size)
{
	return (UWord)size | (in->writes_sp ? ACC_IMPLICIT : 0);
}

/* ---- per access ---- */

static void dead_access(struct ctx *c, const struct insn *in, IRExpr *addr, Int size, Bool store,
			IRExpr *guard)
{
	IRExpr *f = hw(flags_of(in, size)), *slot = slot_of(c, in);

	if (store)
		CALL(c->out, spy_dead_store, mkIRExprVec_3(addr, f, slot), guard);
	else
		CALL(c->out, spy_dead_load, mkIRExprVec_3(addr, f, slot), guard);
}

/* RedSpy, before a store of data (NULL: value not in the IR, snapshot). */
static void silent_before(struct ctx *c, const struct insn *in, IRExpr *addr, Int size,
			  IRExpr *data, IRExpr *guard)
{
	IRExpr *p[4], *slot = slot_of(c, in);
	Int n = data ? spy_ir_pieces(c->out, data, p) : 0;

	if (n == 1 && size <= 8)
		call(c->out, "spy_silent_store", spy_silent_store,
		     mkIRExprVec_4(addr, hw(flags_of(in, size)), slot, p[0]), guard, addr, size);
	else if (n == 2 && size == 16)
		call(c->out, "spy_silent_store16", spy_silent_store16,
		     mkIRExprVec_4(addr, slot, p[0], p[1]), guard, addr, size);
	else if (n == 4 && size == 32)
		call(c->out, "spy_silent_store32", spy_silent_store32,
		     mkIRExprVec_6(addr, slot, p[0], p[1], p[2], p[3]), guard, addr, size);
	else
		call(c->out, "spy_silent_snap", spy_silent_snap, mkIRExprVec_2(addr, hw(size)),
		     guard, addr, size);
}

/* RedSpy, after a store whose value the IR did not show. */
static void silent_after(struct ctx *c, const struct insn *in, IRExpr *addr, Int size,
			 IRExpr *guard)
{
	CALL(c->out, spy_silent_after, mkIRExprVec_3(addr, hw(size), slot_of(c, in)), guard);
}

/* The loop tool, after a load: every load counted, and judged while a
 * loop is active. */
static void loop_after(struct ctx *c, const struct insn *in, IRExpr *addr, Int size,
		       IRExpr *value, IRExpr *guard)
{
	IRSB *out = c->out;
	IRExpr *p[4], *slot = slot_of(c, in), *one = IRExpr_Const(IRConst_U64(1)), *n_reads, *act;
	Int n = value ? spy_ir_pieces(out, value, p) : 0;

	if (guard)
		one = spy_ir_tmp(out, Ity_I64, IRExpr_ITE(guard, one, IRExpr_Const(IRConst_U64(0))));
	n_reads = spy_ir_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, hw((HWord)&loop_st.reads)));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, hw((HWord)&loop_st.reads),
					spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Add64, n_reads, one))));
	act = spy_ir_tmp(out, Ity_I32, IRExpr_Load(Iend_LE, Ity_I32, hw((HWord)&loop_active)));
	act = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE32, act, IRExpr_Const(IRConst_U32(0))));
	if (guard)
		act = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, act, guard));
	if (n == 1 && size <= 8)
		CALL(out, loop_read, mkIRExprVec_4(addr, hw(size), slot, p[0]), act);
	else if (n == 2 && size == 16)
		CALL(out, loop_read16, mkIRExprVec_4(addr, slot, p[0], p[1]), act);
	else if (n == 4 && size == 32)
		CALL(out, loop_read32, mkIRExprVec_6(addr, slot, p[0], p[1], p[2], p[3]), act);
	else
		call(out, "loop_read_mem", loop_read_mem, mkIRExprVec_3(addr, hw(size), slot), act,
		     addr, size);
}

/* LoadSpy, after a load that put its value in `value` (NULL: read memory). */
static void load_after(struct ctx *c, const struct insn *in, IRExpr *addr, Int size,
		       IRExpr *value, IRExpr *guard)
{
	IRExpr *p[4], *slot;
	Int n;

	if (spy_cfg.tool == SPY_LOOP) {
		loop_after(c, in, addr, size, value, guard);
		return;
	}
	slot = slot_of(c, in);
	n = value ? spy_ir_pieces(c->out, value, p) : 0;

	if (n == 1 && size <= 8)
		CALL(c->out, spy_load_value, mkIRExprVec_4(addr, hw(size), slot, p[0]), guard);
	else if (n == 2 && size == 16)
		CALL(c->out, spy_load_value16, mkIRExprVec_4(addr, slot, p[0], p[1]), guard);
	else if (n == 4 && size == 32)
		CALL(c->out, spy_load_value32, mkIRExprVec_6(addr, slot, p[0], p[1], p[2], p[3]),
		     guard);
	else
		call(c->out, "spy_load_mem", spy_load_mem, mkIRExprVec_3(addr, hw(size), slot),
		     guard, addr, size);
}

static Int loadg_size(IRLoadGOp cvt)
{
	switch (cvt) {
	case ILGop_IdentV128: return 16;
	case ILGop_Ident64: return 8;
	case ILGop_Ident32: return 4;
	case ILGop_16Uto32: case ILGop_16Sto32: return 2;
	case ILGop_8Uto32: case ILGop_8Sto32: return 1;
	default: return 0;
	}
}

static IROp cmp_eq(IRType ty)
{
	switch (ty) {
	case Ity_I8: return Iop_CmpEQ8;
	case Ity_I16: return Iop_CmpEQ16;
	case Ity_I32: return Iop_CmpEQ32;
	default: return Iop_CmpEQ64;
	}
}

/* After a compare-and-swap: what it read, and whether it stored. */
static void cas_after(struct ctx *c, const struct insn *in, IRCAS *cas)
{
	IRSB *out = c->out;
	IRType ty = typeOfIRExpr(out->tyenv, cas->dataLo);
	Int size = sizeofIRType(ty) * (cas->dataHi ? 2 : 1);
	IRExpr *ok, *lo[4], *hi[4], *flags;

	ok = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(cmp_eq(ty), IRExpr_RdTmp(cas->oldLo), cas->expdLo));
	if (cas->dataHi) {
		IRExpr *ok2 = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(cmp_eq(ty), IRExpr_RdTmp(cas->oldHi),
							       cas->expdHi));

		ok = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, ok, ok2));
	}
	flags = spy_ir_tmp(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, ok));
	flags = spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Shl64, flags, IRExpr_Const(IRConst_U8(17))));
	flags = spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Or64, flags, hw((HWord)size)));
	if (spy_ir_pieces(out, IRExpr_RdTmp(cas->oldLo), lo) != 1)
		return;
	if (cas->dataHi) {
		if (spy_ir_pieces(out, IRExpr_RdTmp(cas->oldHi), hi) != 1)
			return;
		if (size == 16) {
			/* 8-byte halves: old is lo then hi in memory order. */
		} else {
			/* Two 4-byte halves (cmpxchg8b-like): pack into one word. */
			IRExpr *sh = spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Shl64, hi[0],
								       IRExpr_Const(IRConst_U8(32))));

			lo[0] = spy_ir_tmp(out, Ity_I64, IRExpr_Binop(Iop_Or64, lo[0], sh));
			hi[0] = hw(0);
		}
	} else {
		hi[0] = hw(0);
	}
	call(out, "spy_cas", spy_cas, mkIRExprVec_5(cas->addr, flags, slot_of(c, in), lo[0], hi[0]),
	     NULL, NULL, 0);
}

/* ---- the superblock ---- */

static Bool is_load(IRStmt *st)
{
	return st->tag == Ist_WrTmp && st->Ist.WrTmp.data->tag == Iex_Load;
}

/* LoadSpy and the loop tool judge explicit loads only. */
static Bool reads_only(void)
{
	return spy_cfg.tool == SPY_LOAD || spy_cfg.tool == SPY_LOOP;
}

/* Does this statement hold an access the tool judges? */
static Bool relevant(IRStmt *st, Bool implicit)
{
	switch (st->tag) {
	case Ist_WrTmp:
		if (!is_load(st))
			return False;
		return spy_cfg.tool == SPY_DEAD || (reads_only() && !implicit);
	case Ist_LoadG:
		return spy_cfg.tool == SPY_DEAD || (reads_only() && !implicit);
	case Ist_Store:
	case Ist_StoreG:
		return !reads_only();
	case Ist_CAS:
		return spy_cfg.tool != SPY_LOOP;
	case Ist_Dirty:
		if (st->Ist.Dirty.details->mFx == Ifx_None)
			return False;
		if (reads_only())
			return !implicit && st->Ist.Dirty.details->mFx != Ifx_Write;
		if (spy_cfg.tool == SPY_SILENT)
			return st->Ist.Dirty.details->mFx != Ifx_Read;
		return True;
	default:
		return False;
	}
}

static UChar access_dtype(struct ctx *c, IRSB *in, IRStmt *st)
{
	if (spy_cfg.tool == SPY_SILENT) {
		if (st->tag == Ist_Store)
			return value_dtype(c, in, st->Ist.Store.data);
		if (st->tag == Ist_StoreG)
			return value_dtype(c, in, st->Ist.StoreG.details->data);
	}
	if (spy_cfg.tool == SPY_LOAD && is_load(st)) {
		UChar d = type_dtype(st->Ist.WrTmp.data->Iex.Load.ty);

		return d != DT_INT ? d : c->tmp_use_dtype[st->Ist.WrTmp.tmp];
	}
	return DT_INT;
}

static void instrument_stmt(struct ctx *c, IRSB *in, IRStmt *st, const struct insn *ins)
{
	IRSB *out = c->out;
	Bool rel = ins && ins->site >= 0 && relevant(st, ins->writes_sp);

	if (!rel) {
		addStmtToIRSB(out, st);
		return;
	}
	switch (st->tag) {
	case Ist_WrTmp: {
		IRExpr *ld = st->Ist.WrTmp.data;
		Int size = sizeofIRType(ld->Iex.Load.ty);

		if (spy_cfg.tool == SPY_DEAD) {
			dead_access(c, ins, ld->Iex.Load.addr, size, False, NULL);
			addStmtToIRSB(out, st);
		} else {
			addStmtToIRSB(out, st);
			load_after(c, ins, ld->Iex.Load.addr, size, IRExpr_RdTmp(st->Ist.WrTmp.tmp),
				   NULL);
		}
		return;
	}
	case Ist_LoadG: {
		IRLoadG *lg = st->Ist.LoadG.details;
		Int size = loadg_size(lg->cvt);

		if (spy_cfg.tool == SPY_DEAD) {
			dead_access(c, ins, lg->addr, size, False, lg->guard);
			addStmtToIRSB(out, st);
		} else {
			addStmtToIRSB(out, st);
			load_after(c, ins, lg->addr, size, IRExpr_RdTmp(lg->dst), lg->guard);
		}
		return;
	}
	case Ist_Store: {
		IRExpr *data = st->Ist.Store.data;
		Int size = sizeofIRType(typeOfIRExpr(in->tyenv, data));

		if (spy_cfg.tool == SPY_DEAD) {
			dead_access(c, ins, st->Ist.Store.addr, size, True, NULL);
			addStmtToIRSB(out, st);
		} else if (pieces_ok(out->tyenv, data)) {
			silent_before(c, ins, st->Ist.Store.addr, size, data, NULL);
			addStmtToIRSB(out, st);
		} else {
			silent_before(c, ins, st->Ist.Store.addr, size, NULL, NULL);
			addStmtToIRSB(out, st);
			silent_after(c, ins, st->Ist.Store.addr, size, NULL);
		}
		return;
	}
	case Ist_StoreG: {
		IRStoreG *sg = st->Ist.StoreG.details;
		Int size = sizeofIRType(typeOfIRExpr(in->tyenv, sg->data));

		if (spy_cfg.tool == SPY_DEAD) {
			dead_access(c, ins, sg->addr, size, True, sg->guard);
			addStmtToIRSB(out, st);
		} else if (pieces_ok(out->tyenv, sg->data)) {
			silent_before(c, ins, sg->addr, size, sg->data, sg->guard);
			addStmtToIRSB(out, st);
		} else {
			silent_before(c, ins, sg->addr, size, NULL, sg->guard);
			addStmtToIRSB(out, st);
			silent_after(c, ins, sg->addr, size, sg->guard);
		}
		return;
	}
	case Ist_CAS:
		addStmtToIRSB(out, st);
		cas_after(c, ins, st->Ist.CAS.details);
		return;
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;
		Bool rd = d->mFx == Ifx_Read || d->mFx == Ifx_Modify;
		Bool wr = d->mFx == Ifx_Write || d->mFx == Ifx_Modify;

		switch (spy_cfg.tool) {
		case SPY_DEAD:
			if (rd)
				dead_access(c, ins, d->mAddr, d->mSize, False, d->guard);
			if (wr)
				dead_access(c, ins, d->mAddr, d->mSize, True, d->guard);
			addStmtToIRSB(out, st);
			break;
		case SPY_SILENT:
			silent_before(c, ins, d->mAddr, d->mSize, NULL, d->guard);
			addStmtToIRSB(out, st);
			silent_after(c, ins, d->mAddr, d->mSize, d->guard);
			break;
		case SPY_LOAD:
		case SPY_LOOP:
			addStmtToIRSB(out, st);
			load_after(c, ins, d->mAddr, d->mSize, NULL, d->guard);
			break;
		}
		return;
	}
	default:
		addStmtToIRSB(out, st);
		return;
	}
}

/* Statements that belong to instruction k: fill in ins[] and return how
 * many instructions there are. */
static Int scan_insns(struct ctx *c, IRSB *in, struct insn *ins, Int *owner)
{
	Int i, n = -1;

	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark) {
			n++;
			ins[n].addr = (Addr)st->Ist.IMark.addr;
			ins[n].len = st->Ist.IMark.len;
			ins[n].writes_sp = False;
			ins[n].relevant = False;
			ins[n].dtype = DT_INT;
			ins[n].site = -1;
		}
		owner[i] = n;
		if (n < 0)
			continue;
		if (st->tag == Ist_Put && st->Ist.Put.offset == c->sp_off)
			ins[n].writes_sp = True;
	}
	/* Relevance depends on writes_sp, known only once the instruction is
	 * scanned whole. */
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		Int k = owner[i];

		if (k < 0 || !relevant(st, ins[k].writes_sp))
			continue;
		if (!ins[k].relevant || ins[k].dtype == DT_INT)
			ins[k].dtype = access_dtype(c, in, st);
		ins[k].relevant = True;
	}
	return n + 1;
}

static SpySB *new_sb(struct insn *ins, Int ninsn)
{
	Int k, n = 0;
	SpySB *sb;

	for (k = 0; k < ninsn; k++)
		if (ins[k].relevant)
			ins[k].site = n++;
	sb = VG_(calloc)("witchspy.sb", 1, sizeof(SpySB) + n * sizeof(SpySite));
	sb->n = (UInt)n;
	for (k = 0; k < ninsn; k++)
		if (ins[k].site >= 0) {
			SpySite *s = &sb->site[ins[k].site];

			s->pc = ins[k].addr;
			s->dtype = ins[k].dtype;
			s->node = s->alt_node = SPY_NO_NODE;
		}
	return sb;
}

void spy_ir_check_return(IRSB *out, Int sp_off, IRExpr *guard)
{
	/* SP above the innermost frame: a return (or longjmp) left it. */
	IRExpr *limit = spy_ir_tmp(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, hw((HWord)&spy_cur_limit)));
	IRExpr *sp = spy_ir_tmp(out, Ity_I64, IRExpr_Get(sp_off, Ity_I64));
	IRExpr *left = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, limit, sp));

	if (guard)
		left = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, left, guard));
	CALL(out, spy_sb_returned, mkIRExprVec_1(sp), left);
}

/* The call site returning to ret, one whatever translations hold it (rvn
 * makes them all again at each burst). */
static SpyCallSite *call_site(Addr ret)
{
	static SpyAddrMap by_ret;
	SpyCallSite *cs = spy_addrmap_get(&by_ret, ret);

	if (cs)
		return cs;
	cs = VG_(malloc)("witchspy.callsite", sizeof(*cs));
	cs->ret = ret;
	cs->parent = 0xffffffffu;
	cs->child = 0;
	spy_addrmap_put(&by_ret, ret, cs);
	return cs;
}

void spy_ir_push_call(IRSB *out, Addr ret, Int sp_off, IRExpr *guard)
{
	SpyCallSite *cs = call_site(ret);

	CALL(out, spy_on_call, mkIRExprVec_2(hw((HWord)cs), spy_ir_tmp(out, Ity_I64, IRExpr_Get(sp_off, Ity_I64))),
	     guard);
}

static void enter(struct ctx *c, Addr start)
{
	IRSB *out = c->out;

	if (c->sb->n)
		spy_ir_check_return(out, c->sp_off, NULL);
	if (spy_cfg.tool == SPY_LOOP)
		return;	/* it keeps no history for freed blocks to forget */
	switch (spy_heap_fn_at(start)) {
	case HEAP_FREE:
		CALL(out, spy_free_enter,
		     mkIRExprVec_1(spy_ir_tmp(out, Ity_I64, IRExpr_Get(OFFSET_amd64_RDI, Ity_I64))), NULL);
		break;
	case HEAP_REALLOC:
		CALL(out, spy_realloc_enter,
		     mkIRExprVec_2(spy_ir_tmp(out, Ity_I64, IRExpr_Get(OFFSET_amd64_RDI, Ity_I64)),
				   spy_ir_tmp(out, Ity_I64, IRExpr_Get(OFFSET_amd64_RSI, Ity_I64))),
		     NULL);
		break;
	default:
		break;
	}
}

/* After the last statement: calls push a frame; returns finish reallocs. */
static void leave(struct ctx *c, IRSB *in, const struct insn *last)
{
	IRSB *out = c->out;
	IRExpr *sp;

	if (in->jumpkind == Ijk_Call && last) {
		spy_ir_push_call(out, last->addr + last->len, c->sp_off, NULL);
	} else if (in->jumpkind == Ijk_Ret && spy_cfg.heap_clear) {
		IRExpr *pending = spy_ir_tmp(out, Ity_I32, IRExpr_Load(Iend_LE, Ity_I32,
								    hw((HWord)&spy_reallocs_pending)));
		IRExpr *guard = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpNE32, pending,
								 IRExpr_Const(IRConst_U32(0))));

		sp = spy_ir_tmp(out, Ity_I64, IRExpr_Get(c->sp_off, Ity_I64));
		CALL(out, spy_on_ret,
		     mkIRExprVec_2(spy_ir_tmp(out, Ity_I64, IRExpr_Get(OFFSET_amd64_RAX, Ity_I64)), sp),
		     guard);
	}
}

IRSB *spy_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy,
		     IRType hWordTy)
{
	struct ctx c;
	struct insn *ins;
	Int *owner, i, ninsn, nimarks = 0;
	Bool entered = False;

	(void)closure;
	(void)vge;
	(void)archinfo;
	if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
		VG_(tool_panic)("witchspy supports amd64 only");
	if (spy_cfg.tool == SPY_COUNT)
		return cnt_instrument(in, layout);
	if (spy_cfg.tool == SPY_RVN)
		return rvn_instrument(in, layout);
	spy_st.superblocks++;
	for (i = 0; i < in->stmts_used; i++)
		nimarks += in->stmts[i]->tag == Ist_IMark;
	ins = VG_(malloc)("witchspy.ins", (nimarks + 1) * sizeof(*ins));
	owner = VG_(malloc)("witchspy.owner", (in->stmts_used + 1) * sizeof(Int));
	c.sp_off = layout->offset_SP;
	c.tmp_op_dtype = VG_(calloc)("witchspy.tmps", in->tyenv->types_used + 1, 1);
	c.tmp_use_dtype = VG_(calloc)("witchspy.tmps", in->tyenv->types_used + 1, 1);
	scan_float_ops(&c, in, layout->total_sizeB);
	ninsn = scan_insns(&c, in, ins, owner);
	c.sb = new_sb(ins, ninsn);
	c.out = deepCopyIRSBExceptStmts(in);

	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		if (st->tag == Ist_IMark) {
			Addr pc = (Addr)st->Ist.IMark.addr;

			addStmtToIRSB(c.out, st);
			if (spy_cfg.tool == SPY_LOOP) {
				LoopPoint *p = loop_map_point(pc);

				if (!entered)
					enter(&c, pc);
				if (p)
					CALL(c.out, loop_point,
					     mkIRExprVec_2(hw((HWord)p),
							   spy_ir_tmp(c.out, Ity_I64, IRExpr_Get(c.sp_off, Ity_I64))),
					     NULL);
				entered = True;
				continue;
			}
			if (!entered) {
				enter(&c, pc);
				entered = True;
			}
			continue;
		}
		instrument_stmt(&c, in, st, owner[i] >= 0 ? &ins[owner[i]] : NULL);
	}
	leave(&c, in, ninsn ? &ins[ninsn - 1] : NULL);
	if (!c.sb->n) {
		VG_(free)(c.sb);	/* no helper points at it */
		c.sb = NULL;
	} else {
		c.sb->next = spy_sbs;
		spy_sbs = c.sb;
	}
	VG_(free)(ins);
	VG_(free)(owner);
	VG_(free)(c.tmp_op_dtype);
	VG_(free)(c.tmp_use_dtype);
	return c.out;
}
