/*
 * decode.c - what an x86-64 instruction does to memory, from Zydis.
 *
 * All of this runs inside signal handlers: the only global state is the
 * decoder, written once by wd_init(); instructions and operands live on the
 * stack, and the per-thread PC cache is caller memory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* REG_RAX... in <sys/ucontext.h> */
#endif
#include <string.h>
#include <sys/ucontext.h>
#include <Zydis/Zydis.h>

#include "decode.h"
#include "runtime/xstate.h"

/* A register that is present but cannot address memory through gregs. */
#define WD_REG_BAD 0xfe

/* Longest code range wd_precise_access decodes linearly. */
#define WD_MAX_FUNC_WALK (64u << 10)

/* Slots a cache lookup or fill looks at before evicting. */
#define WD_CACHE_PROBES 8u

/* Flags that make an access unusable for a plain sampled watchpoint. */
#define WD_UNWATCHABLE (WD_IMPLICIT | WD_STRING | WD_VSIB | WD_WRITES_ADDR_REG)

static ZydisDecoder wd_decoder;

void wd_init(void)
{
	ZydisDecoderInit(&wd_decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	wx_init();
}

/* gregs index of a 64-bit GPR or RIP; WD_REG_NONE/WD_REG_BAD otherwise. */
static uint8_t greg_of(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return WD_REG_NONE;
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		break;
	case ZYDIS_REGCLASS_IP:
		/* rip or eip: Zydis gives IP registers no enclosing register. */
		return REG_RIP;
	default:
		return WD_REG_BAD;
	}
	/* eax, ax, al and ah all live in the greg of their 64-bit parent. */
	switch (ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r)) {
	case ZYDIS_REGISTER_RAX: return REG_RAX;
	case ZYDIS_REGISTER_RCX: return REG_RCX;
	case ZYDIS_REGISTER_RDX: return REG_RDX;
	case ZYDIS_REGISTER_RBX: return REG_RBX;
	case ZYDIS_REGISTER_RSP: return REG_RSP;
	case ZYDIS_REGISTER_RBP: return REG_RBP;
	case ZYDIS_REGISTER_RSI: return REG_RSI;
	case ZYDIS_REGISTER_RDI: return REG_RDI;
	case ZYDIS_REGISTER_R8: return REG_R8;
	case ZYDIS_REGISTER_R9: return REG_R9;
	case ZYDIS_REGISTER_R10: return REG_R10;
	case ZYDIS_REGISTER_R11: return REG_R11;
	case ZYDIS_REGISTER_R12: return REG_R12;
	case ZYDIS_REGISTER_R13: return REG_R13;
	case ZYDIS_REGISTER_R14: return REG_R14;
	case ZYDIS_REGISTER_R15: return REG_R15;
	default: return WD_REG_BAD;
	}
}

/* Bit for a general-purpose greg (not RIP): address registers and writes. */
static uint32_t gpr_bit(uint8_t greg)
{
	if (greg >= NGREG || greg == REG_RIP)
		return 0;
	return 1u << greg;
}

/* General-purpose registers the instruction may write, as gregs bits. */
static uint32_t written_gprs(const ZydisDecodedInstruction *in,
			     const ZydisDecodedOperand *ops)
{
	uint32_t w = 0;
	int i;

	for (i = 0; i < in->operand_count; i++) {
		if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
			w |= gpr_bit(greg_of(ops[i].reg.value));
	}
	return w;
}

static int is_control(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	int i;

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:	/* includes xabort */
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return 1;
	default:
		break;
	}
	/* Traps and stops that Zydis files under MISC/SYSTEM. */
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_XBEGIN:	/* an abort resumes at its fallback */
	case ZYDIS_MNEMONIC_XABORT:
		return 1;
	default:
		break;
	}
	/* Anything else that writes the instruction pointer jumps somewhere. */
	for (i = 0; i < in->operand_count; i++) {
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ZydisRegisterGetClass(ops[i].reg.value) == ZYDIS_REGCLASS_IP &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return 1;
	}
	return 0;
}

/* x86 condition code (the tttn field) of a conditional jump; -1 if none. */
static int cond_of(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JO: return 0;
	case ZYDIS_MNEMONIC_JNO: return 1;
	case ZYDIS_MNEMONIC_JB: return 2;
	case ZYDIS_MNEMONIC_JNB: return 3;
	case ZYDIS_MNEMONIC_JZ: return 4;
	case ZYDIS_MNEMONIC_JNZ: return 5;
	case ZYDIS_MNEMONIC_JBE: return 6;
	case ZYDIS_MNEMONIC_JNBE: return 7;
	case ZYDIS_MNEMONIC_JS: return 8;
	case ZYDIS_MNEMONIC_JNS: return 9;
	case ZYDIS_MNEMONIC_JP: return 10;
	case ZYDIS_MNEMONIC_JNP: return 11;
	case ZYDIS_MNEMONIC_JL: return 12;
	case ZYDIS_MNEMONIC_JNL: return 13;
	case ZYDIS_MNEMONIC_JLE: return 14;
	case ZYDIS_MNEMONIC_JNLE: return 15;
	case ZYDIS_MNEMONIC_JRCXZ: return WD_COND_RCXZ;
	case ZYDIS_MNEMONIC_JECXZ: return WD_COND_ECXZ;
	default: return -1;
	}
}

static void classify_control(const ZydisDecodedInstruction *in,
			     const ZydisDecodedOperand *ops, struct wd_access *out)
{
	ZyanU64 target;
	int cond;

	if (!is_control(in, ops))
		return;
	out->flags |= WD_CONTROL;
	if (in->mnemonic == ZYDIS_MNEMONIC_RET && in->meta.branch_type != ZYDIS_BRANCH_TYPE_FAR)
		out->flags |= WD_RET;
	if ((in->mnemonic == ZYDIS_MNEMONIC_JMP || in->mnemonic == ZYDIS_MNEMONIC_CALL) &&
	    in->meta.branch_type == ZYDIS_BRANCH_TYPE_NEAR && ops[0].size == 64) {
		/* A jump table's, a PLT stub's or a function pointer's
		 * target: the walk can follow it with the registers right
		 * before it. */
		uint8_t r = ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ? greg_of(ops[0].reg.value)
								       : WD_REG_NONE;

		if (r < REG_RIP)
			out->target_reg = r;
		if (r < REG_RIP || ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY)
			out->flags |= in->mnemonic == ZYDIS_MNEMONIC_JMP ? WD_INDIRECT_JMP
									 : WD_INDIRECT_CALL;
	}
	if (ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !ops[0].imm.is_relative ||
	    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &ops[0], out->pc, &target)))
		return;
	cond = cond_of(in->mnemonic);
	if (in->mnemonic == ZYDIS_MNEMONIC_JMP) {
		out->flags |= WD_DIRECT_JMP;
		out->target = (uintptr_t)target;
	} else if (in->mnemonic == ZYDIS_MNEMONIC_CALL) {
		out->flags |= WD_DIRECT_CALL;
		out->target = (uintptr_t)target;
	} else if (cond >= 0) {
		out->flags |= WD_COND_JMP;
		out->cond = (uint8_t)cond;
		out->target = (uintptr_t)target;
	}
}

int wd_branch_taken(const struct wd_access *a, const ucontext_t *uc)
{
	uint64_t f = (uint64_t)uc->uc_mcontext.gregs[REG_EFL];
	uint64_t rcx = (uint64_t)uc->uc_mcontext.gregs[REG_RCX];
	int cf = f & 1, pf = (f >> 2) & 1, zf = (f >> 6) & 1, sf = (f >> 7) & 1,
	    of = (f >> 11) & 1, t;

	switch (a->cond) {
	case WD_COND_RCXZ: return rcx == 0;
	case WD_COND_ECXZ: return (uint32_t)rcx == 0;
	default: break;
	}
	/* Even codes test a condition, odd codes its negation. */
	switch (a->cond >> 1) {
	case 0: t = of; break;
	case 1: t = cf; break;
	case 2: t = zf; break;
	case 3: t = cf || zf; break;
	case 4: t = sf; break;
	case 5: t = pf; break;
	case 6: t = sf != of; break;
	default: t = zf || sf != of; break;
	}
	return (a->cond & 1) ? !t : t;
}

/* Instructions whose memory operand is a hint or a cache-line address, not data. */
static int is_hint(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
	case ZYDIS_CATEGORY_CLFLUSHOPT:
	case ZYDIS_CATEGORY_CLWB:
	case ZYDIS_CATEGORY_CLDEMOTE:
		return 1;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_CLFLUSH:
	case ZYDIS_MNEMONIC_CLFLUSHOPT:
	case ZYDIS_MNEMONIC_CLWB:
	case ZYDIS_MNEMONIC_CLDEMOTE:
	case ZYDIS_MNEMONIC_MONITOR:
	case ZYDIS_MNEMONIC_MONITORX:
	case ZYDIS_MNEMONIC_INVLPG:
		return 1;
	default:
		return 0;
	}
}

static int accesses_memory(const ZydisDecodedOperand *op)
{
	/* AGEN (lea) and MIB (bndldx/bndstx) only compute an address. */
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	       (op->mem.type == ZYDIS_MEMOP_TYPE_MEM || op->mem.type == ZYDIS_MEMOP_TYPE_VSIB);
}

static uint8_t kind_of(unsigned actions)
{
	int rd = actions & ZYDIS_OPERAND_ACTION_MASK_READ;
	int wr = actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;

	/* cmpxchg reads then maybe writes: WD_RMW, like any conditional write after a read. */
	if (rd && wr)
		return WD_RMW;
	if (wr)
		return WD_STORE;
	return rd ? WD_LOAD : WD_NONE;
}

static uint8_t dtype_of(ZydisElementType t)
{
	switch (t) {
	case ZYDIS_ELEMENT_TYPE_FLOAT32: return WD_F32;
	case ZYDIS_ELEMENT_TYPE_FLOAT64: return WD_F64;
	case ZYDIS_ELEMENT_TYPE_FLOAT80: return WD_F80;
	default: return WD_INT;
	}
}

static uint8_t seg_of(ZydisRegister r)
{
	/* In 64-bit mode only fs and gs have a base; ds/es/ss/cs are flat. */
	if (r == ZYDIS_REGISTER_FS)
		return WD_SEG_FS;
	if (r == ZYDIS_REGISTER_GS)
		return WD_SEG_GS;
	return WD_SEG_NONE;
}

static uint8_t string_op_of(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_STOSB: case ZYDIS_MNEMONIC_STOSW:
	case ZYDIS_MNEMONIC_STOSD: case ZYDIS_MNEMONIC_STOSQ:
		return WD_STR_STOS;
	case ZYDIS_MNEMONIC_MOVSB: case ZYDIS_MNEMONIC_MOVSW:
	case ZYDIS_MNEMONIC_MOVSD: case ZYDIS_MNEMONIC_MOVSQ:
		return WD_STR_MOVS;
	case ZYDIS_MNEMONIC_LODSB: case ZYDIS_MNEMONIC_LODSW:
	case ZYDIS_MNEMONIC_LODSD: case ZYDIS_MNEMONIC_LODSQ:
		return WD_STR_LODS;
	case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_SCASW:
	case ZYDIS_MNEMONIC_SCASD: case ZYDIS_MNEMONIC_SCASQ:
		return WD_STR_SCAS;
	case ZYDIS_MNEMONIC_CMPSB: case ZYDIS_MNEMONIC_CMPSW:
	case ZYDIS_MNEMONIC_CMPSD: case ZYDIS_MNEMONIC_CMPSQ:
		return WD_STR_CMPS;
	case ZYDIS_MNEMONIC_INSB: case ZYDIS_MNEMONIC_INSW: case ZYDIS_MNEMONIC_INSD:
		return WD_STR_INS;
	case ZYDIS_MNEMONIC_OUTSB: case ZYDIS_MNEMONIC_OUTSW: case ZYDIS_MNEMONIC_OUTSD:
		return WD_STR_OUTS;
	default:
		return WD_STR_NONE;
	}
}

static int compresses(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_VCOMPRESSPD: case ZYDIS_MNEMONIC_VCOMPRESSPS:
	case ZYDIS_MNEMONIC_VPCOMPRESSB: case ZYDIS_MNEMONIC_VPCOMPRESSW:
	case ZYDIS_MNEMONIC_VPCOMPRESSD: case ZYDIS_MNEMONIC_VPCOMPRESSQ:
	case ZYDIS_MNEMONIC_VEXPANDPD: case ZYDIS_MNEMONIC_VEXPANDPS:
	case ZYDIS_MNEMONIC_VPEXPANDB: case ZYDIS_MNEMONIC_VPEXPANDW:
	case ZYDIS_MNEMONIC_VPEXPANDD: case ZYDIS_MNEMONIC_VPEXPANDQ:
		return 1;
	default:
		return 0;
	}
}

/*
 * An AVX-512 opmask that selects which elements of memory operand `mem`
 * are accessed: masked-off elements are neither stored nor loaded (nor
 * fault), so glibc's memset and strlen on such CPUs touch only what the
 * mask selects. Not for a broadcast (one element, read once) or a
 * gather/scatter (it clears its mask as it goes), and not when the
 * instruction writes its own mask (vpcmpb ..., %k1{%k1}): after it ran,
 * the register no longer holds the mask it used.
 */
static void classify_mask(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			  const ZydisDecodedOperand *mem, struct wd_access *out)
{
	ZydisRegister k = in->avx.mask.reg;
	unsigned esize = mem->element_size / 8;
	int i;

	if (in->avx.mask.mode != ZYDIS_MASK_MODE_MERGING &&
	    in->avx.mask.mode != ZYDIS_MASK_MODE_ZEROING)
		return;
	if (k < ZYDIS_REGISTER_K1 || k > ZYDIS_REGISTER_K7 ||
	    in->avx.broadcast.mode != ZYDIS_BROADCAST_MODE_INVALID ||
	    mem->mem.type != ZYDIS_MEMOP_TYPE_MEM || !esize || esize >= out->size)
		return;
	for (i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value == k &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return;
	out->mask_reg = (uint8_t)(k - ZYDIS_REGISTER_K0);
	out->mask_esize = (uint8_t)esize;
	if (compresses(in->mnemonic))
		out->flags |= WD_COMPRESS;
}

/*
 * Fill kind/size/dtype/addressing and the memory flags. The explicit memory
 * operand, if any, gives the addressing; hidden ones (stack, string) only add
 * flags and widen the kind, so that push [m] still counts as a store.
 */
static void classify_memory(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			    uint32_t written, struct wd_access *out)
{
	const ZydisDecodedOperand *pick = NULL, *first = NULL;
	unsigned actions = 0, bytes;
	uint32_t addr_regs = 0;
	uint8_t base, index;
	int i, hidden = 0;

	if (is_hint(in))
		return;
	for (i = 0; i < in->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (!accesses_memory(op))
			continue;
		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT) {
			if (!pick)
				pick = op;
		} else {
			hidden = 1;
		}
		if (!first)
			first = op;
		actions |= op->actions;
		addr_regs |= gpr_bit(greg_of(op->mem.base)) | gpr_bit(greg_of(op->mem.index));
	}
	if (!pick)
		pick = first;
	if (!pick)
		return;

	/* Save areas (fxsave, xsave, fnsave...) hold no single datum to watch. */
	bytes = pick->size / 8;
	if (bytes == 0 || bytes > 64)
		return;
	base = greg_of(pick->mem.base);
	index = pick->mem.type == ZYDIS_MEMOP_TYPE_VSIB ? WD_REG_NONE :
		greg_of(pick->mem.index);
	if (base == WD_REG_BAD || index == WD_REG_BAD)
		return;

	out->kind = kind_of(hidden ? actions : pick->actions);
	if (out->kind == WD_NONE)
		return;
	out->size = bytes;
	out->dtype = dtype_of(pick->element_type);
	out->seg = seg_of(pick->mem.segment);
	out->base = base;
	out->index = index;
	out->scale = pick->mem.scale ? pick->mem.scale : 1;
	out->disp = pick->mem.disp.value;
	out->addr_bytes = in->address_width == 32 ? 4 : 8;

	if (pick->mem.type == ZYDIS_MEMOP_TYPE_VSIB)
		out->flags |= WD_VSIB;
	if (hidden) {
		if (in->meta.category == ZYDIS_CATEGORY_STRINGOP ||
		    in->meta.category == ZYDIS_CATEGORY_IOSTRINGOP) {
			out->flags |= WD_STRING;
			out->string_op = string_op_of(in->mnemonic);
			out->rep = !!(in->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
							ZYDIS_ATTRIB_HAS_REPNE));
		} else {
			out->flags |= WD_IMPLICIT;
		}
	}
	if (written & addr_regs)
		out->flags |= WD_WRITES_ADDR_REG;
	classify_mask(in, ops, pick, out);
}

/* wd_decode, also reporting the GPRs the instruction writes (gregs bits). */
static int decode(const uint8_t *code, size_t avail, uintptr_t pc, struct wd_access *out,
		  uint32_t *written)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	memset(out, 0, sizeof(*out));
	out->pc = pc;
	out->base = WD_REG_NONE;
	out->index = WD_REG_NONE;
	out->target_reg = WD_REG_NONE;
	out->scale = 1;
	out->addr_bytes = 8;
	*written = 0;
	if (!code || !avail)
		return 0;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&wd_decoder, code, avail, &in, ops)))
		return 0;

	out->len = in.length;
	*written = written_gprs(&in, ops);
	classify_control(&in, ops, out);
	classify_memory(&in, ops, *written, out);
	return in.length;
}

int wd_decode(const uint8_t *code, size_t avail, uintptr_t pc, struct wd_access *out)
{
	uint32_t written;

	return decode(code, avail, pc, out, &written);
}

uintptr_t wd_effective_address(const struct wd_access *a, const ucontext_t *uc,
			       uintptr_t fs_base, uintptr_t gs_base)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	uint64_t ea = (uint64_t)a->disp;

	/* RIP-relative means relative to the next instruction, not to uc's RIP. */
	if (a->base == REG_RIP)
		ea += a->pc + a->len;
	else if (a->base < NGREG)
		ea += (uint64_t)g[a->base];
	if (a->index < NGREG)
		ea += (uint64_t)g[a->index] * a->scale;
	/* With a 0x67 prefix the offset wraps before the segment base is added. */
	if (a->addr_bytes == 4)
		ea = (uint32_t)ea;
	if (a->seg == WD_SEG_FS)
		ea += fs_base;
	else if (a->seg == WD_SEG_GS)
		ea += gs_base;
	return (uintptr_t)ea;
}

static uint32_t addr_bits(const struct wd_access *a)
{
	return gpr_bit(a->base) | gpr_bit(a->index);
}

static int wanted(const struct wd_access *a, int want_store)
{
	if (a->kind == WD_RMW)
		return 1;
	return a->kind == (want_store ? WD_STORE : WD_LOAD);
}

enum wd_find wd_find_next_access(uintptr_t pc, uintptr_t code_end, int want_store,
				 int max_insns, struct wd_access *out)
{
	int n;

	return wd_find_next_access_n(pc, code_end, want_store, max_insns, out, &n);
}

enum wd_find wd_find_next_access_n(uintptr_t pc, uintptr_t code_end, int want_store,
				   int max_insns, struct wd_access *out, int *before)
{
	struct wd_access a;
	uint32_t written, stale = 0;
	uintptr_t p = pc;
	int n;

	for (n = 0; *before = n, n < max_insns; n++) {
		size_t avail;

		if (p >= code_end)
			return WD_NOT_FOUND;
		avail = code_end - p;
		if (avail > ZYDIS_MAX_INSTRUCTION_LENGTH)
			avail = ZYDIS_MAX_INSTRUCTION_LENGTH;
		if (!decode((const uint8_t *)p, avail, p, &a, &written))
			/* Cut short by code_end is the limit, not bad code. */
			return avail < ZYDIS_MAX_INSTRUCTION_LENGTH ? WD_NOT_FOUND :
								      WD_UNDECODABLE;
		if (a.flags & WD_RET) {
			*out = a;	/* its own load, of the return address, is never sampled */
			return WD_RETURN;
		}
		if (wanted(&a, want_store)) {
			/* uc holds registers as of pc: later ones may have moved. */
			if (addr_bits(&a) & stale)
				a.flags |= WD_ADDR_STALE;
			*out = a;
			return (a.flags & WD_UNWATCHABLE) ? WD_SKIPPED : WD_FOUND;
		}
		if (a.flags & WD_DIRECT_JMP) {
			if (a.target >= code_end)
				return WD_NOT_FOUND;
			p = a.target;
			continue;
		}
		if (a.flags & (WD_COND_JMP | WD_INDIRECT_JMP | WD_INDIRECT_CALL)) {
			*out = a;
			return WD_BRANCH;
		}
		if (a.flags & WD_DIRECT_CALL) {
			*out = a;
			return WD_CALL;
		}
		if (a.flags & WD_CONTROL)
			return WD_NOT_FOUND;
		stale |= written;
		p += a.len;
	}
	return WD_NOT_FOUND;
}

/*
 * The PC cache: open addressing over a power-of-two table, keyed by after_pc.
 * A slot remembers either the access ending there, or that nothing ends
 * there when walking from func_start (negative answers depend on where the
 * walk starts, so they only hit for the same func_start).
 */
struct wd_pc_slot {
	uintptr_t after_pc;	/* 0: empty */
	uintptr_t func_start;
	int found;
	struct wd_access a;
};

struct wd_pc_cache {
	unsigned entries;
	volatile int busy;	/* a handler on this thread is using the table */
	uint64_t hits, misses;
	struct wd_pc_slot slot[];
};

size_t wd_pc_cache_bytes(unsigned entries)
{
	return sizeof(struct wd_pc_cache) + (size_t)entries * sizeof(struct wd_pc_slot);
}

void wd_pc_cache_init(struct wd_pc_cache *c, unsigned entries)
{
	/* Round down to a power of two: never index past what the caller sized. */
	while (entries & (entries - 1))
		entries &= entries - 1;
	memset(c, 0, wd_pc_cache_bytes(entries));
	c->entries = entries;
}

void wd_pc_cache_stats(const struct wd_pc_cache *c, uint64_t *hits, uint64_t *misses)
{
	*hits = c ? c->hits : 0;
	*misses = c ? c->misses : 0;
}

static unsigned cache_home(const struct wd_pc_cache *c, uintptr_t after_pc)
{
	return (unsigned)(((uint64_t)after_pc * 0x9e3779b97f4a7c15ull) >> 32) & (c->entries - 1);
}

/* Slot holding after_pc, or the one to fill for it (an empty one, else evict home). */
static struct wd_pc_slot *cache_slot(struct wd_pc_cache *c, uintptr_t after_pc)
{
	unsigned home = cache_home(c, after_pc), mask = c->entries - 1, i;
	unsigned probes = c->entries < WD_CACHE_PROBES ? c->entries : WD_CACHE_PROBES;
	struct wd_pc_slot *empty = NULL;

	for (i = 0; i < probes; i++) {
		struct wd_pc_slot *s = &c->slot[(home + i) & mask];

		if (s->after_pc == after_pc)
			return s;
		if (!s->after_pc && !empty)
			empty = s;
	}
	return empty ? empty : &c->slot[home];
}

/* Decode from func_start to the instruction ending exactly at after_pc. */
static int walk_to(uintptr_t func_start, uintptr_t after_pc, struct wd_access *out)
{
	struct wd_access a;
	uint32_t written;
	uintptr_t p = func_start;

	while (p < after_pc) {
		size_t avail = after_pc - p;
		int len;

		/*
		 * Never offer bytes past after_pc: an instruction straddling it
		 * then fails to decode, which is the answer "none ends there".
		 */
		if (avail > ZYDIS_MAX_INSTRUCTION_LENGTH)
			avail = ZYDIS_MAX_INSTRUCTION_LENGTH;
		len = decode((const uint8_t *)p, avail, p, &a, &written);
		if (!len)
			return 0;
		p += len;
	}
	*out = a;
	return 1;
}

int wd_precise_access(struct wd_pc_cache *c, uintptr_t func_start, uintptr_t after_pc,
		      uintptr_t code_end, struct wd_access *out)
{
	struct wd_pc_slot *s;
	int found;

	if (!func_start || after_pc <= func_start || after_pc > code_end ||
	    after_pc - func_start > WD_MAX_FUNC_WALK)
		return 0;
	/* No table, or a nested handler interrupted one using it: decode uncached. */
	if (!c || !c->entries || c->busy)
		return walk_to(func_start, after_pc, out);

	c->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s = cache_slot(c, after_pc);
	if (s->after_pc == after_pc && (s->found || s->func_start == func_start)) {
		c->hits++;
		found = s->found;
		if (found)
			*out = s->a;
	} else {
		c->misses++;
		found = walk_to(func_start, after_pc, &s->a);
		s->after_pc = after_pc;
		s->func_start = func_start;
		s->found = found;
		if (found)
			*out = s->a;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->busy = 0;
	return found;
}

static int string_writes_rdi(uint8_t op)
{
	return op == WD_STR_STOS || op == WD_STR_MOVS || op == WD_STR_INS;
}

static int string_reads_rsi(uint8_t op)
{
	return op == WD_STR_MOVS || op == WD_STR_LODS || op == WD_STR_CMPS || op == WD_STR_OUTS;
}

static int string_reads_rdi(uint8_t op)
{
	return op == WD_STR_SCAS || op == WD_STR_CMPS;
}

uint64_t wd_string_count(const struct wd_access *a, const ucontext_t *uc)
{
	uint64_t rcx = (uint64_t)uc->uc_mcontext.gregs[REG_RCX];

	if (a->addr_bytes == 4)
		rcx = (uint32_t)rcx;
	if (!a->rep)
		return 1;
	if (a->string_op == WD_STR_SCAS || a->string_op == WD_STR_CMPS)
		return rcx ? 1 : 0;
	return rcx;
}

/* reg moved by k elements the way the direction flag says. */
static uintptr_t string_step(const struct wd_access *a, const ucontext_t *uc, greg_t reg,
			     uint64_t k)
{
	int down = (uc->uc_mcontext.gregs[REG_EFL] >> 10) & 1;
	uintptr_t ea = (uintptr_t)reg + (down ? -k : k) * a->size;

	return a->addr_bytes == 4 ? (uint32_t)ea : ea;
}

int wd_string_element(const struct wd_access *a, const ucontext_t *uc, int want_store,
		      uint64_t k, uintptr_t *ea)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	if (!(a->flags & WD_STRING) || k >= wd_string_count(a, uc))
		return 0;
	if (want_store && string_writes_rdi(a->string_op)) {
		*ea = string_step(a, uc, g[REG_RDI], k);
		return 1;
	}
	if (!want_store && string_reads_rsi(a->string_op)) {
		*ea = string_step(a, uc, g[REG_RSI], k);
		return 1;
	}
	if (!want_store && string_reads_rdi(a->string_op)) {
		*ea = string_step(a, uc, g[REG_RDI], k);
		return 1;
	}
	return 0;
}

int wd_string_sides(const struct wd_access *a, struct wd_string_side side[2])
{
	int n = 0;

	if (!(a->flags & WD_STRING))
		return 0;
	if (string_writes_rdi(a->string_op))
		side[n++] = (struct wd_string_side){ REG_RDI, WD_STORE };
	if (string_reads_rdi(a->string_op))
		side[n++] = (struct wd_string_side){ REG_RDI, WD_LOAD };
	if (string_reads_rsi(a->string_op))
		side[n++] = (struct wd_string_side){ REG_RSI, WD_LOAD };
	return n;
}
