/*
 * rvn.c - witch spy --tool=rvn in VEX IR: every temp gets a shadow temp
 * holding its value number (rvn.h), guest registers a shadow slot per 8
 * bytes in the first shadow guest state, and loads and stores call the
 * helpers that keep numbers in memory (rvn_run.c).
 *
 * What one computation is. VEX turns a guest instruction into several IR
 * operations (address arithmetic, a flags thunk, widenings). Each guest
 * instruction is counted once, by its result: the last operation of its
 * own whose value is data, one that reaches a general-purpose register
 * other than RSP, a vector register or memory, directly or through other
 * instructions' data (find_data). That operation is judged: redundant
 * when its number was computed before in the thread. So are not counted:
 * compares and tests (they write only flags; a setcc's value comes from a
 * compare, whose result is a condition), jumps, instructions that write
 * RSP (push, pop, call, ret, and their loads and stores), address
 * arithmetic inside a load or store, moves. lea is counted (its result is
 * a register), and so are vector compares, whose masks are data.
 *
 * Widening a value with zeros, taking its low part, or reinterpreting its
 * bits as a float keeps its number (a 32-bit value and its zero
 * extension are one number): the same value reached through a register
 * of another width stays the same number. A high part is a piece of the
 * number (rvn_piece), so that halves put together again give it back.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "rvn.h"
#include "addrmap.h"

struct rctx {
	IRSB *in, *out;
	IRTemp *vt;		/* by temp of in: its number, in out */
	Int *owner;		/* by statement: its instruction, -1 before the first */
	Bool *counted;		/* by statement: the WrTmp judged as its instruction's result */
	Bool *needed;		/* by temp of in: its number is used (needed_numbers) */
	Bool *writes_sp;	/* by instruction */
	Addr *pc;		/* by instruction */
	RvnSite **site;		/* by instruction, made when first needed */
	Int sbase;		/* the shadow guest state's offset */
	Int sp_off, ip_off;
	Int cc_op_off;		/* the flags' operation: a constant, numbered by its value */
	Int pending;		/* judged results put for rvn_judge_all, not judged yet */
};

/* ---- numbers in IR ---- */

static IRExpr *u64(ULong v)
{
	return IRExpr_Const(IRConst_U64(v));
}

static IRExpr *bin(IRSB *out, IROp op, IRExpr *a, IRExpr *b)
{
	return spy_ir_tmp(out, Ity_I64, IRExpr_Binop(op, a, b));
}

/* rvn_stir, rvn_top, rvn_pack and rvn_num of rvn.h, in IR. */
static IRExpr *ir_stir(IRSB *out, IRExpr *x)
{
	x = bin(out, Iop_Mul64, x, u64(RVN_MUL));
	x = bin(out, Iop_Xor64, x, bin(out, Iop_Shr64, x, IRExpr_Const(IRConst_U8(32))));
	return bin(out, Iop_Mul64, x, u64(RVN_MUL));
}

static IRExpr *ir_top(IRSB *out, IRExpr *x)
{
	return bin(out, Iop_Sar64, x, IRExpr_Const(IRConst_U8(32)));
}

static IRExpr *ir_pack(IRSB *out, IRExpr *a, IRExpr *b)
{
	return bin(out, Iop_Xor64, bin(out, Iop_Shl64, a, IRExpr_Const(IRConst_U8(32))), b);
}

static IRExpr *ir_num(IRSB *out, ULong op, IRExpr **a, Int n)
{
	IRExpr *s = u64(op);
	Int i;

	/* The state second: a constant there is an immediate operand. */
	for (i = 0; i < n; i += 2)
		s = ir_stir(out, bin(out, Iop_Xor64, i + 1 < n ? ir_pack(out, a[i], a[i + 1]) : a[i], s));
	return ir_top(out, s);
}

static IRExpr *ir_num2(IRSB *out, ULong op, IRExpr *a, IRExpr *b)
{
	IRExpr *v[2] = { a, b };

	return ir_num(out, op, v, 2);
}

static IRExpr *ir_piece(IRSB *out, IRExpr *v, UInt g, UInt k)
{
	return ir_num(out, rvn_piece_op(g, k), &v, 1);
}

/* What a constant's bits are stirred into: one state per type. */
static ULong const_seed(IRConstTag tag)
{
	return rvn_stir(0xC0257A27ULL ^ (ULong)tag);
}

static ULong const_vn(const IRConst *c)
{
	ULong bits;

	switch (c->tag) {
	case Ico_U1: bits = c->Ico.U1; break;
	case Ico_U8: bits = c->Ico.U8; break;
	case Ico_U16: bits = c->Ico.U16; break;
	case Ico_U32: bits = c->Ico.U32; break;
	case Ico_U64: bits = c->Ico.U64; break;
	case Ico_F32i: bits = c->Ico.F32i; break;
	case Ico_F64i: bits = c->Ico.F64i; break;
	case Ico_V128: bits = c->Ico.V128; break;
	case Ico_V256: bits = c->Ico.V256; break;
	default: {
		/* F32 and F64 constants: their bits. */
		union { Double d; ULong u; } f;

		f.d = c->tag == Ico_F32 ? (Double)c->Ico.F32 : c->Ico.F64;
		bits = f.u;
		break;
	}
	}
	return rvn_top(rvn_stir(const_seed(c->tag) ^ bits));
}

/* The number of the 64-bit value of atom x as if it were a constant
 * (const_vn), made from its value at run time. */
static IRExpr *value_vn(IRSB *out, IRExpr *x)
{
	IRExpr *s = bin(out, Iop_Xor64, x, u64(const_seed(Ico_U64)));

	return ir_top(out, ir_stir(out, s));
}

/* The number of an atom (a temp or a constant). */
static IRExpr *num(struct rctx *c, IRExpr *a)
{
	if (a->tag == Iex_Const)
		return u64(const_vn(a->Iex.Const.con));
	tl_assert(a->tag == Iex_RdTmp);
	return IRExpr_RdTmp(c->vt[a->Iex.RdTmp.tmp]);
}

static ULong op_vn(UInt op)
{
	return rvn_seed(0x0F0F000000000000ULL + op);
}

/* ---- which operations keep a number, which make one ---- */

/* A zero-widening, a low part, a reinterpretation: the same number. */
static Bool keeps_number(IROp op)
{
	switch (op) {
	case Iop_8Uto16: case Iop_8Uto32: case Iop_8Uto64: case Iop_16Uto32: case Iop_16Uto64:
	case Iop_32Uto64: case Iop_1Uto8: case Iop_1Uto32: case Iop_1Uto64:
	case Iop_64to32: case Iop_64to16: case Iop_64to8: case Iop_32to16: case Iop_32to8:
	case Iop_16to8: case Iop_64to1: case Iop_32to1: case Iop_128to64: case Iop_V128to64:
	case Iop_V128to32: case Iop_V256toV128_0: case Iop_V256to64_0:
	case Iop_ReinterpF64asI64: case Iop_ReinterpI64asF64:
	case Iop_ReinterpF32asI32: case Iop_ReinterpI32asF32:
	case Iop_64UtoV128: case Iop_32UtoV128:
		return True;
	default:
		return False;
	}
}

/* A high part: which piece of the number, of how many bytes (0: none). */
static UInt high_piece(IROp op, UInt *k)
{
	*k = 1;
	switch (op) {
	case Iop_64HIto32:
		return RVN_CELL;
	case Iop_128HIto64: case Iop_V128HIto64: case Iop_V256to64_1:
		return 8;
	case Iop_V256to64_2:
		*k = 2;
		return 8;
	case Iop_V256to64_3:
		*k = 3;
		return 8;
	default:
		return 0;
	}
}

/* A concatenation (hi, lo): the pieces of one number give it back. */
static UInt joins(IROp op)
{
	switch (op) {
	case Iop_32HLto64:
		return RVN_CELL;
	case Iop_64HLto128: case Iop_64HLtoV128:
		return 8;
	default:
		return 0;
	}
}

static Bool commutes(IROp op)
{
	switch (op) {
	case Iop_Add8: case Iop_Add16: case Iop_Add32: case Iop_Add64:
	case Iop_Mul8: case Iop_Mul16: case Iop_Mul32: case Iop_Mul64:
	case Iop_MullS32: case Iop_MullU32: case Iop_MullS64: case Iop_MullU64:
	case Iop_And8: case Iop_And16: case Iop_And32: case Iop_And64:
	case Iop_Or8: case Iop_Or16: case Iop_Or32: case Iop_Or64:
	case Iop_Xor8: case Iop_Xor16: case Iop_Xor32: case Iop_Xor64:
	case Iop_AndV128: case Iop_OrV128: case Iop_XorV128:
	case Iop_AndV256: case Iop_OrV256: case Iop_XorV256:
	case Iop_Add32x4: case Iop_Add64x2: case Iop_Add16x8: case Iop_Add8x16:
		return True;
	default:
		return False;
	}
}

/* Float operations whose first operand is a rounding mode, commuting in
 * the other two. */
static Bool commutes_rm(IROp op)
{
	switch (op) {
	case Iop_AddF64: case Iop_MulF64: case Iop_AddF32: case Iop_MulF32:
	case Iop_Add64Fx2: case Iop_Mul64Fx2: case Iop_Add32Fx4: case Iop_Mul32Fx4:
	case Iop_Add64Fx4: case Iop_Mul64Fx4: case Iop_Add32Fx8: case Iop_Mul32Fx8:
		return True;
	default:
		return False;
	}
}

/* The number of op over the numbers a[0..n-1]; with commute, the two
 * from `from` on count as one operand, the same either way round: their
 * product and their sum, which tell the pair apart (a number's 32 bits
 * sign-extended: neither overflows), folded into one word. */
static IRExpr *op_num(struct rctx *c, ULong opc, IRExpr **a, Int n, Int from, Bool commute)
{
	IRSB *out = c->out;
	Int i;

	if (commute && from + 1 < n) {
		IRExpr *sum = bin(out, Iop_Add64, a[from], a[from + 1]);

		a[from] = bin(out, Iop_Xor64, bin(out, Iop_Mul64, a[from], a[from + 1]),
			      bin(out, Iop_Shl64, sum, IRExpr_Const(IRConst_U8(32))));
		for (i = from + 1; i + 1 < n; i++)
			a[i] = a[i + 1];
		n--;
	}
	return ir_num(out, opc, a, n);
}

/* The number an expression's value gets (e an operation over atoms). */
static IRExpr *expr_num(struct rctx *c, IRExpr *e)
{
	IRSB *out = c->out;
	IRExpr *a[8];
	UInt g, k;
	Int n = 0, i;
	IROp op;

	switch (e->tag) {
	case Iex_Unop:
		op = e->Iex.Unop.op;
		a[0] = num(c, e->Iex.Unop.arg);
		if (keeps_number(op))
			return a[0];
		if ((g = high_piece(op, &k)))
			return ir_piece(out, a[0], g, k);
		return op_num(c, op_vn(op), a, 1, 0, False);
	case Iex_Binop:
		op = e->Iex.Binop.op;
		a[0] = num(c, e->Iex.Binop.arg1);
		a[1] = num(c, e->Iex.Binop.arg2);
		if ((g = joins(op))) {
			IRExpr *same = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, a[0],
								    ir_piece(out, a[1], g, 1)));

			return spy_ir_tmp(out, Ity_I64, IRExpr_ITE(same, a[1], op_num(c, op_vn(op), a, 2, 0, False)));
		}
		return op_num(c, op_vn(op), a, 2, 0, commutes(op));
	case Iex_Triop:
		op = e->Iex.Triop.details->op;
		a[0] = num(c, e->Iex.Triop.details->arg1);
		a[1] = num(c, e->Iex.Triop.details->arg2);
		a[2] = num(c, e->Iex.Triop.details->arg3);
		return op_num(c, op_vn(op), a, 3, 1, commutes_rm(op));
	case Iex_Qop:
		op = e->Iex.Qop.details->op;
		a[0] = num(c, e->Iex.Qop.details->arg1);
		a[1] = num(c, e->Iex.Qop.details->arg2);
		a[2] = num(c, e->Iex.Qop.details->arg3);
		a[3] = num(c, e->Iex.Qop.details->arg4);
		return op_num(c, op_vn(op), a, 4, 0, False);
	case Iex_CCall:
		/* Every argument counts (a condition's fifth is the carry
		 * before inc and dec). */
		for (i = 0; e->Iex.CCall.args[i]; i++) {
			tl_assert(n < 8);
			a[n++] = num(c, e->Iex.CCall.args[i]);
		}
		return op_num(c, rvn_seed((ULong)(HWord)e->Iex.CCall.cee->addr), a, n, 0, False);
	case Iex_ITE:
		return spy_ir_tmp(out, Ity_I64, IRExpr_ITE(e->Iex.ITE.cond, num(c, e->Iex.ITE.iftrue),
						     num(c, e->Iex.ITE.iffalse)));
	default:
		tl_assert(0);
	}
}

/* ---- helpers ---- */

static IRExpr *hw(HWord v)
{
	return mkIRExpr_HWord(v);
}

static IRExpr *call_1(struct rctx *c, const HChar *name, void *fn, IRExpr **args, IRExpr *guard)
{
	IRTemp t = newIRTemp(c->out->tyenv, Ity_I64);
	IRDirty *d = unsafeIRDirty_1_N(t, 0, name, VG_(fnptr_to_fnentry)(fn), args);

	guard = guard;
	if (guard)
		d->guard = guard;
	addStmtToIRSB(c->out, IRStmt_Dirty(d));
	return IRExpr_RdTmp(t);
}

static void call_0(struct rctx *c, const HChar *name, void *fn, Int regparms, IRExpr **args,
		   IRExpr *guard)
{
	IRDirty *d = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);

	guard = guard;
	if (guard)
		d->guard = guard;
	addStmtToIRSB(c->out, IRStmt_Dirty(d));
}

static IRExpr *fresh(struct rctx *c)
{
	return call_1(c, "rvn_fresh", rvn_fresh, mkIRExprVec_0(), NULL);
}

static void forget(struct rctx *c, IRExpr *addr, Int size, IRExpr *guard)
{
	call_0(c, "sh_clear", sh_clear, 0, mkIRExprVec_2(addr, hw((HWord)size)), guard);
}

/* ---- registers: an 8-byte slot each in the shadow guest state ---- */

static IRExpr *slot_get(struct rctx *c, Int slot)
{
	return spy_ir_tmp(c->out, Ity_I64, IRExpr_Get(c->sbase + slot, Ity_I64));
}

static void slot_put(struct rctx *c, Int slot, IRExpr *v)
{
	addStmtToIRSB(c->out, IRStmt_Put(c->sbase + slot, v));
}

/* Where a part lies in what holds it: an operand of the part's number. */
static IRExpr *where(Int off, Int size)
{
	return u64((ULong)off << 8 | (ULong)size);
}

static IRExpr *reg_get(struct rctx *c, Int off, Int size)
{
	IRSB *out = c->out;
	Int slot = off & ~7, k, n = 0;
	IRExpr *v[8], *whole;

	/* The instruction pointer is no operand's value: it has no slot. */
	if (off == c->ip_off)
		return u64(rvn_seed(0x1B0FF));
	v[n++] = slot_get(c, slot);
	if (size <= 8 && off + size <= slot + 8)
		return off == slot ? v[0] : ir_num2(out, RVN_OP_PART_READ, v[0], where(off - slot, size));
	/* Several slots: one value put whole, or a number of its parts. */
	whole = IRExpr_Const(IRConst_U1(True));
	for (k = 1; k * 8 < (off - slot) + size; k++) {
		tl_assert(n < 7);
		v[n] = slot_get(c, slot + 8 * k);
		whole = spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_And1, whole,
						      spy_ir_tmp(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, v[n],
										    ir_piece(out, v[0], 8, (UInt)k)))));
		n++;
	}
	if (off != slot) {
		v[n++] = where(off - slot, size);
		return ir_num(out, RVN_OP_WHOLE_READ, v, n);
	}
	return spy_ir_tmp(out, Ity_I64, IRExpr_ITE(whole, v[0], ir_num(out, RVN_OP_WHOLE_READ, v, n)));
}

static void reg_put(struct rctx *c, Int off, Int size, IRExpr *v)
{
	IRSB *out = c->out;
	Int slot = off & ~7, k;

	if (off == c->ip_off || (off == c->cc_op_off && size == 8))
		return;
	if (off == slot && size % 8 == 0) {
		for (k = 0; k * 8 < size; k++)
			slot_put(c, slot + 8 * k, k ? ir_piece(out, v, 8, (UInt)k) : v);
		return;
	}
	/* Part of a slot (al, ah, ax) or across slots: a number of what each
	 * held, what went into it and where, in that order. */
	for (k = 0; slot + 8 * k < off + size; k++) {
		IRExpr *a[3] = { slot_get(c, slot + 8 * k), v, where(off - slot - 8 * k + 64, size) };

		slot_put(c, slot + 8 * k, ir_num(out, RVN_OP_PART_WRITE, a, 3));
	}
}

/* The registers whose values count as an instruction's result. */
static Bool result_reg(Int off)
{
	Int rax = offsetof(VexGuestAMD64State, guest_RAX), r15 = offsetof(VexGuestAMD64State, guest_R15);
	Int rsp = offsetof(VexGuestAMD64State, guest_RSP);
	Int y0 = offsetof(VexGuestAMD64State, guest_YMM0), y16 = offsetof(VexGuestAMD64State, guest_YMM16);

	return (off >= rax && off < r15 + 8 && (off < rsp || off >= rsp + 8)) || (off >= y0 && off < y16);
}

/* ---- one pass to find each instruction's result ---- */

static Bool makes_number(IRExpr *e)
{
	switch (e->tag) {
	case Iex_Unop:
		return !keeps_number(e->Iex.Unop.op);
	case Iex_Binop: case Iex_Triop: case Iex_Qop:
		return True;
	default:
		return False;
	}
}

/* Mark temp e (an atom) in set. */
static void mark(Bool *set, IRExpr *e)
{
	if (e && e->tag == Iex_RdTmp)
		set[e->Iex.RdTmp.tmp] = True;
}

/* Mark the operands of e whose values its value is made of; with
 * every, also a float operation's rounding mode and a helper's
 * arguments, whose numbers are part of e's number. */
static void mark_operands(Bool *set, IRExpr *e, Bool every)
{
	Int j;

	switch (e->tag) {
	case Iex_RdTmp:
		mark(set, e);
		break;
	case Iex_Unop:
		mark(set, e->Iex.Unop.arg);
		break;
	case Iex_Binop:
		mark(set, e->Iex.Binop.arg1);
		mark(set, e->Iex.Binop.arg2);
		break;
	case Iex_Triop:
		if (every)
			mark(set, e->Iex.Triop.details->arg1);
		mark(set, e->Iex.Triop.details->arg2);
		mark(set, e->Iex.Triop.details->arg3);
		break;
	case Iex_Qop:
		if (every)
			mark(set, e->Iex.Qop.details->arg1);
		mark(set, e->Iex.Qop.details->arg2);
		mark(set, e->Iex.Qop.details->arg3);
		mark(set, e->Iex.Qop.details->arg4);
		break;
	case Iex_CCall:
		for (j = 0; every && e->Iex.CCall.args[j]; j++)
			mark(set, e->Iex.CCall.args[j]);
		break;
	case Iex_ITE:
		mark(set, e->Iex.ITE.iftrue);
		mark(set, e->Iex.ITE.iffalse);
		break;
	default:
		break;
	}
}

/*
 * Which temps hold data: values that reach a result register or memory,
 * directly, through moves, or as operands of operations that make data.
 * Not data: addresses, conditions, what only the flags thunk or a
 * condition's helper reads. Temps are assigned once and used after, so
 * one backward pass finds them all.
 */
static void find_data(struct rctx *c, Bool *is_data)
{
	IRSB *in = c->in;
	Int i;

	for (i = in->stmts_used - 1; i >= 0; i--) {
		IRStmt *st = in->stmts[i];

		switch (st->tag) {
		case Ist_Put:
			if (result_reg(st->Ist.Put.offset))
				mark(is_data, st->Ist.Put.data);
			break;
		case Ist_Store:
			mark(is_data, st->Ist.Store.data);
			break;
		case Ist_StoreG:
			mark(is_data, st->Ist.StoreG.details->data);
			break;
		case Ist_WrTmp:
			if (is_data[st->Ist.WrTmp.tmp])
				mark_operands(is_data, st->Ist.WrTmp.data, False);
			break;
		default:
			break;
		}
	}
}

/*
 * Each instruction's result: the last operation of its own that makes
 * data. (Its Put may be gone: VEX drops a register write that a later
 * instruction of the translation overwrites, and passes the value on in
 * a temp.)
 */
static void find_results(struct rctx *c, Int ninsn)
{
	IRSB *in = c->in;
	Bool *is_data = VG_(calloc)("witchspy.rvn", in->tyenv->types_used + 1, sizeof(Bool));
	Int *last = VG_(malloc)("witchspy.rvn", (ninsn + 1) * sizeof(Int));
	Int i, k = -1;

	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		k += st->tag == Ist_IMark;
		c->owner[i] = k;
		if (k >= 0 && st->tag == Ist_Put && st->Ist.Put.offset == c->sp_off)
			c->writes_sp[k] = True;
	}
	find_data(c, is_data);
	for (k = 0; k < ninsn; k++)
		last[k] = -1;
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		IRExpr *e;

		k = c->owner[i];
		if (k < 0 || c->writes_sp[k] || st->tag != Ist_WrTmp || !is_data[st->Ist.WrTmp.tmp])
			continue;
		e = st->Ist.WrTmp.data;
		if (makes_number(e) && typeOfIRExpr(in->tyenv, e) != Ity_I1)
			last[k] = i;
	}
	for (k = 0; k < ninsn; k++)
		if (last[k] >= 0)
			c->counted[last[k]] = True;
	VG_(free)(is_data);
	VG_(free)(last);
}

/*
 * Which temps' numbers are used: those judged, put in a register that
 * keeps numbers, stored, and the operands of those. Address arithmetic
 * and conditions get no number: Valgrind's optimiser would drop such IR
 * as dead, but only after building it, and a number of a helper's result
 * costs a call it cannot drop. One backward pass, as find_data's.
 */
static void needed_numbers(struct rctx *c)
{
	IRSB *in = c->in;
	Bool *needed = c->needed;
	Int i;

	for (i = in->stmts_used - 1; i >= 0; i--) {
		IRStmt *st = in->stmts[i];

		switch (st->tag) {
		case Ist_Put:
			if (st->Ist.Put.offset != c->ip_off &&
			    !(st->Ist.Put.offset == c->cc_op_off &&
			      typeOfIRExpr(in->tyenv, st->Ist.Put.data) == Ity_I64))
				mark(needed, st->Ist.Put.data);
			break;
		case Ist_Store:
			mark(needed, st->Ist.Store.data);
			break;
		case Ist_StoreG:
			mark(needed, st->Ist.StoreG.details->data);
			break;
		case Ist_LoadG:
			if (needed[st->Ist.LoadG.details->dst])
				mark(needed, st->Ist.LoadG.details->alt);
			break;
		case Ist_WrTmp:
			if (c->counted[i] || needed[st->Ist.WrTmp.tmp]) {
				needed[st->Ist.WrTmp.tmp] = True;
				mark_operands(needed, st->Ist.WrTmp.data, True);
			}
			break;
		default:
			break;
		}
	}
}

/* ---- statements ---- */

/* Instruction k's site: only those that load, store or compute have one. */
static RvnSite *site_of(struct rctx *c, Int k)
{
	if (!c->site[k])
		c->site[k] = rvn_site_at(c->pc[k]);
	return c->site[k];
}

/* A load's or store's site and flags, one immediate operand (rvn.h). */
static IRExpr *access(struct rctx *c, Int k, Int size)
{
	return hw((HWord)site_of(c, k)->id << RVN_ID_SHIFT | (HWord)size |
		  (c->writes_sp[k] ? RVN_IMPLICIT : 0));
}

/* Judge the results pending (guard: NULL, or only when it holds). The
 * helper reads them in the guest state, which iropt must be told. */
static void judge_pending(struct rctx *c, IRExpr *guard)
{
	IRDirty *d;

	if (!c->pending)
		return;
	d = unsafeIRDirty_0_N(2, "rvn_judge_all", VG_(fnptr_to_fnentry)(rvn_judge_all),
			      mkIRExprVec_2(IRExpr_GSPTR(), hw((HWord)c->pending)));
	if (guard)
		d->guard = guard;
	d->nFxState = 1;
	d->fxState[0].fx = Ifx_Read;
	d->fxState[0].offset = rvn_pending_off;
	d->fxState[0].size = c->pending * sizeof(RvnPending);
	d->fxState[0].nRepeats = 0;
	d->fxState[0].repeatLen = 0;
	addStmtToIRSB(c->out, IRStmt_Dirty(d));
}

static void judge_later(struct rctx *c, Int k, IRExpr *vn)
{
	Int off = rvn_pending_off + c->pending * (Int)sizeof(RvnPending);

	/* The id as 8 bytes, the number's place too: a store of an immediate,
	 * where 4 bytes took a move into a register first (2 bytes more). */
	addStmtToIRSB(c->out, IRStmt_Put(off + offsetof(RvnPending, id), IRExpr_Const(IRConst_U64(site_of(c, k)->id))));
	addStmtToIRSB(c->out, IRStmt_Put(off + offsetof(RvnPending, vn),
					 spy_ir_tmp(c->out, Ity_I32, IRExpr_Unop(Iop_64to32, vn))));
	if (++c->pending == RVN_PENDING) {
		judge_pending(c, NULL);
		c->pending = 0;
	}
}

static void set_num(struct rctx *c, IRTemp t, IRExpr *v)
{
	addStmtToIRSB(c->out, IRStmt_WrTmp(c->vt[t], v));
}

static void wrtmp(struct rctx *c, Int i, Int k)
{
	IRStmt *st = c->in->stmts[i];
	IRTemp t = st->Ist.WrTmp.tmp;
	IRExpr *e = st->Ist.WrTmp.data, *v;
	Int size;

	addStmtToIRSB(c->out, st);
	if (!c->needed[t]) {
		/* A load is judged all the same. */
		if (e->tag == Iex_Load)
			call_1(c, "rvn_load", rvn_load,
			       mkIRExprVec_2(access(c, k, sizeofIRType(e->Iex.Load.ty)), e->Iex.Load.addr), NULL);
		return;
	}
	switch (e->tag) {
	case Iex_Get:
		if (e->Iex.Get.offset == c->cc_op_off && e->Iex.Get.ty == Ity_I64)
			v = value_vn(c->out, IRExpr_RdTmp(t));
		else
			v = reg_get(c, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty));
		break;
	case Iex_RdTmp: case Iex_Const:
		v = num(c, e);
		break;
	case Iex_Load:
		size = sizeofIRType(e->Iex.Load.ty);
		v = call_1(c, "rvn_load", rvn_load,
			   mkIRExprVec_2(access(c, k, size), e->Iex.Load.addr), NULL);
		break;
	case Iex_Unop: case Iex_Binop: case Iex_Triop: case Iex_Qop: case Iex_CCall: case Iex_ITE:
		v = expr_num(c, e);
		break;
	default:		/* GetI: the x87 stack, numbered afresh */
		v = fresh(c);
		break;
	}
	set_num(c, t, v);
	if (c->counted[i])
		judge_later(c, k, IRExpr_RdTmp(c->vt[t]));
}

static void store(struct rctx *c, Int k, IRExpr *addr, IRExpr *data, IRExpr *guard)
{
	Int size = sizeofIRType(typeOfIRExpr(c->in->tyenv, data));

	call_0(c, "rvn_store", rvn_store, 0,
	       mkIRExprVec_3(access(c, k, size), addr, num(c, data)), guard);
}

static void dirty(struct rctx *c, IRDirty *d)
{
	Int i, r;

	addStmtToIRSB(c->out, IRStmt_Dirty(d));
	if (d->tmp != IRTemp_INVALID && c->needed[d->tmp])
		set_num(c, d->tmp, fresh(c));
	if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
		forget(c, d->mAddr, d->mSize, d->guard);
	for (i = 0; i < d->nFxState; i++) {
		if (d->fxState[i].fx == Ifx_Read || d->fxState[i].fx == Ifx_None)
			continue;
		for (r = 0; r <= d->fxState[i].nRepeats; r++)
			call_0(c, "rvn_regs_written", rvn_regs_written, 0,
			       mkIRExprVec_2(hw((HWord)(d->fxState[i].offset + r * d->fxState[i].repeatLen)),
					     hw(d->fxState[i].size)),
			       d->guard);
	}
}

static void stmt(struct rctx *c, Int i)
{
	IRStmt *st = c->in->stmts[i];
	Int k = c->owner[i];
	IRLoadG *lg;
	IRCAS *cas;
	IRExpr *v;

	switch (st->tag) {
	case Ist_WrTmp:
		wrtmp(c, i, k);
		return;
	case Ist_Put:
		addStmtToIRSB(c->out, st);
		reg_put(c, st->Ist.Put.offset, sizeofIRType(typeOfIRExpr(c->in->tyenv, st->Ist.Put.data)),
			num(c, st->Ist.Put.data));
		return;
	case Ist_Store:
		store(c, k, st->Ist.Store.addr, st->Ist.Store.data, NULL);
		addStmtToIRSB(c->out, st);
		return;
	case Ist_StoreG:
		store(c, k, st->Ist.StoreG.details->addr, st->Ist.StoreG.details->data,
		      st->Ist.StoreG.details->guard);
		addStmtToIRSB(c->out, st);
		return;
	case Ist_LoadG: {
		Int size;

		lg = st->Ist.LoadG.details;
		addStmtToIRSB(c->out, st);
		size = lg->cvt == ILGop_IdentV128 ? 16 : lg->cvt == ILGop_Ident64 ? 8 :
		       lg->cvt == ILGop_Ident32 ? 4 : lg->cvt == ILGop_16Uto32 || lg->cvt == ILGop_16Sto32 ? 2 : 1;
		v = call_1(c, "rvn_load", rvn_load,
			   mkIRExprVec_2(access(c, k, size), lg->addr), lg->guard);
		if (c->needed[lg->dst])
			set_num(c, lg->dst, spy_ir_tmp(c->out, Ity_I64, IRExpr_ITE(lg->guard, v, num(c, lg->alt))));
		return;
	}
	case Ist_CAS:
		cas = st->Ist.CAS.details;
		addStmtToIRSB(c->out, st);
		if (c->needed[cas->oldLo])
			set_num(c, cas->oldLo, fresh(c));
		if (cas->oldHi != IRTemp_INVALID && c->needed[cas->oldHi])
			set_num(c, cas->oldHi, fresh(c));
		forget(c, cas->addr, sizeofIRType(typeOfIRExpr(c->in->tyenv, cas->dataLo)) *
					  (cas->dataHi ? 2 : 1), NULL);
		return;
	case Ist_LLSC:
		addStmtToIRSB(c->out, st);
		if (c->needed[st->Ist.LLSC.result])
			set_num(c, st->Ist.LLSC.result, fresh(c));
		forget(c, st->Ist.LLSC.addr, 8, NULL);
		return;
	case Ist_Dirty:
		dirty(c, st->Ist.Dirty.details);
		return;
	case Ist_Exit:
		judge_pending(c, st->Ist.Exit.guard);
		addStmtToIRSB(c->out, st);
		return;
	default:		/* PutI (x87), MBE, AbiHint, NoOp */
		addStmtToIRSB(c->out, st);
		return;
	}
}

/* --by=value: a judged operation's operator and operand values, hashed,
 * and its instruction's last results (rvn_run.c). Nothing else is
 * numbered. */
static void judge_value(struct rctx *c, Int i, Int k)
{
	IRStmt *st = c->in->stmts[i];
	IRExpr *e = st->Ist.WrTmp.data, *args[4] = { NULL, NULL, NULL, NULL }, *p[4], *h;
	Int n = 0, a, m, j;

	addStmtToIRSB(c->out, st);
	if (!c->counted[i])
		return;
	switch (e->tag) {
	case Iex_Unop:
		args[n++] = e->Iex.Unop.arg;
		break;
	case Iex_Binop:
		args[n++] = e->Iex.Binop.arg1;
		args[n++] = e->Iex.Binop.arg2;
		break;
	case Iex_Triop:
		args[n++] = e->Iex.Triop.details->arg1;
		args[n++] = e->Iex.Triop.details->arg2;
		args[n++] = e->Iex.Triop.details->arg3;
		break;
	case Iex_Qop:
		args[n++] = e->Iex.Qop.details->arg1;
		args[n++] = e->Iex.Qop.details->arg2;
		args[n++] = e->Iex.Qop.details->arg3;
		args[n++] = e->Iex.Qop.details->arg4;
		break;
	default:
		return;
	}
	h = u64(op_vn(e->tag == Iex_Unop ? e->Iex.Unop.op : e->tag == Iex_Binop ? e->Iex.Binop.op :
		      e->tag == Iex_Triop ? e->Iex.Triop.details->op : e->Iex.Qop.details->op));
	for (a = 0; a < n; a++) {
		m = spy_ir_pieces(c->out, args[a], p);
		for (j = 0; j < m; j++)
			h = ir_stir(c->out, bin(c->out, Iop_Xor64, h, p[j]));
	}
	call_0(c, "rvn_judge_value", rvn_judge_value, 2, mkIRExprVec_2(hw((HWord)site_of(c, k)), h), NULL);
}

/* The translation's instructions' addresses, by instruction. */
static Addr *insn_pcs(IRSB *in, Int ninsn)
{
	Addr *pc = VG_(malloc)("witchspy.rvn", (ninsn + 1) * sizeof(*pc));
	Int i, k = 0;

	for (i = 0; i < in->stmts_used; i++)
		if (in->stmts[i]->tag == Ist_IMark)
			pc[k++] = (Addr)in->stmts[i]->Ist.IMark.addr;
	return pc;
}

IRSB *rvn_instrument(IRSB *in, const VexGuestLayout *layout)
{
	struct rctx c;
	Int i, ntmp = in->tyenv->types_used, ninsn = 0;
	Bool entered = False;
	Addr ret = 0;

	spy_st.superblocks++;
	for (i = 0; i < in->stmts_used; i++)
		ninsn += in->stmts[i]->tag == Ist_IMark;
	if (spy_cfg.burst_on && !rvn_on)
		return in;	/* between bursts: the code as it is (rvn_burst.c) */
	c.in = in;
	c.out = deepCopyIRSBExceptStmts(in);
	c.sbase = layout->total_sizeB;
	rvn_pending_off = 2 * layout->total_sizeB;
	tl_assert(RVN_PENDING * sizeof(RvnPending) <= (SizeT)layout->total_sizeB);
	c.sp_off = layout->offset_SP;
	c.ip_off = layout->offset_IP;
	c.cc_op_off = offsetof(VexGuestAMD64State, guest_CC_OP);
	c.pending = 0;
	c.vt = VG_(malloc)("witchspy.rvn", (ntmp + 1) * sizeof(IRTemp));
	c.owner = VG_(malloc)("witchspy.rvn", (in->stmts_used + 1) * sizeof(Int));
	c.counted = VG_(calloc)("witchspy.rvn", in->stmts_used + 1, sizeof(Bool));
	c.writes_sp = VG_(calloc)("witchspy.rvn", ninsn + 1, sizeof(Bool));
	for (i = 0; i < ntmp; i++)
		c.vt[i] = newIRTemp(c.out->tyenv, Ity_I64);
	c.pc = insn_pcs(in, ninsn);
	c.site = VG_(calloc)("witchspy.rvn", ninsn + 1, sizeof(*c.site));
	find_results(&c, ninsn);
	c.needed = VG_(calloc)("witchspy.rvn", ntmp + 1, sizeof(Bool));
	needed_numbers(&c);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		if (st->tag == Ist_IMark) {
			addStmtToIRSB(c.out, st);
			ret = (Addr)st->Ist.IMark.addr + st->Ist.IMark.len;
			if (!entered) {
				if (spy_cfg.burst_on)
					rvn_burst_count(c.out, ninsn);
				spy_ir_check_return(c.out, c.sp_off, NULL);
			}
			entered = True;
			continue;
		}
		if (!spy_cfg.by_value)
			stmt(&c, i);
		else if (st->tag == Ist_WrTmp)
			judge_value(&c, i, c.owner[i]);
		else
			addStmtToIRSB(c.out, st);
	}
	judge_pending(&c, NULL);
	if (in->jumpkind == Ijk_Call && ninsn)
		spy_ir_push_call(c.out, ret, c.sp_off, NULL);
	VG_(free)(c.vt);
	VG_(free)(c.owner);
	VG_(free)(c.counted);
	VG_(free)(c.needed);
	VG_(free)(c.writes_sp);
	VG_(free)(c.pc);
	VG_(free)(c.site);
	return c.out;
}
