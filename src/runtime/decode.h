/*
 * decode.h - what an x86-64 instruction does to memory, from Zydis.
 *
 * Everything here is async-signal-safe: no allocation, no locks, no stdio.
 * It runs inside the sample and trap handlers of the preloaded runtime.
 */
#ifndef WITCH_DECODE_H
#define WITCH_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* How an instruction touches its (single, explicit) memory operand. */
enum wd_kind {
	WD_NONE = 0,	/* no memory operand we can watch */
	WD_LOAD,	/* reads memory only */
	WD_STORE,	/* writes memory only */
	WD_RMW,		/* reads then writes (add [m],r; xchg; cmpxchg...) */
};

/* What kind of datum the memory operand holds (for approximate comparison). */
enum wd_dtype {
	WD_INT = 0,	/* integer or unknown */
	WD_F32,		/* float, scalar or packed */
	WD_F64,		/* double, scalar or packed */
	WD_F80,		/* x87 extended */
};

/* Flags describing accesses that cannot be watched like a plain mov. */
enum wd_flags {
	WD_IMPLICIT = 1 << 0,	/* hidden memory operand: push/pop/call/ret/enter/leave
				   stack access (also rarer ones: xlat, maskmovdqu...) */
	WD_STRING = 1 << 1,	/* movs/stos/lods/cmps/scas/ins/outs (with or without rep) */
	WD_VSIB = 1 << 2,	/* gather/scatter: many addresses */
	WD_WRITES_ADDR_REG = 1 << 3, /* instruction writes a register its address uses */
	WD_CONTROL = 1 << 4,	/* instruction transfers control (jmp/jcc/call/ret/syscall/int...) */
	WD_DIRECT_JMP = 1 << 5,	/* unconditional direct jmp: target in `target` */
	WD_COND_JMP = 1 << 7,	/* jcc/jrcxz with a relative target: `target` if taken,
				   condition in `cond` (see wd_branch_taken) */
	WD_DIRECT_CALL = 1 << 8, /* call with a relative target: `target` */
	WD_RET = 1 << 9,	/* near ret: to the return address on the stack */
	WD_INDIRECT_JMP = 1 << 10, /* near jmp through register `target_reg`, or
				   (target_reg WD_REG_NONE) through the memory operand */
	WD_INDIRECT_CALL = 1 << 11, /* near call through `target_reg` or memory, likewise */
	WD_COMPRESS = 1 << 12,	/* vcompress/vexpand: the elements the mask selects
				   are stored or loaded one after the other from
				   the operand's start (mask_reg says which mask) */
	WD_ADDR_STALE = 1 << 6,	/* set only by wd_find_next_access: an instruction
				   before this one writes a register its address
				   uses, so the sampled registers do not give it
				   (the runtime computes it after the access, so
				   this is information, not a reason to skip) */
};

/* Register numbers in struct wd_access use ucontext gregs indices
 * (REG_RAX...REG_R15, REG_RIP); WD_REG_NONE when absent. */
#define WD_REG_NONE 0xff

enum wd_seg { WD_SEG_NONE = 0, WD_SEG_FS, WD_SEG_GS };

/*
 * base/index/scale/disp/seg describe the explicit memory operand, or for an
 * instruction without one (push reg, call, ret, stos...) the first hidden one
 * as the CPU sees it before executing (push: rsp before the decrement). When
 * hidden accesses exist (WD_IMPLICIT, WD_STRING), `kind` merges every memory
 * access of the instruction, so push [m] and movs are WD_RMW and a search
 * for stores never steps over a hidden one.
 */
struct wd_access {
	uintptr_t pc;		/* runtime address of the instruction */
	uintptr_t target;	/* WD_DIRECT_JMP, WD_COND_JMP: jump target */
	uint8_t len;		/* instruction length in bytes */
	uint8_t kind;		/* enum wd_kind */
	uint8_t size;		/* bytes accessed by the memory operand (0 if none) */
	uint8_t dtype;		/* enum wd_dtype */
	uint16_t flags;		/* enum wd_flags */
	uint8_t seg;		/* enum wd_seg */
	uint8_t base;		/* gregs index or WD_REG_NONE; REG_RIP for RIP-relative */
	uint8_t index;		/* gregs index or WD_REG_NONE (also for VSIB's vector) */
	uint8_t scale;		/* 1, 2, 4, 8 */
	uint8_t addr_bytes;	/* address size: 8, or 4 with a 0x67 prefix ([eax]):
				   the effective address wraps at 32 bits */
	uint8_t cond;		/* WD_COND_JMP: x86 condition code 0..15, or WD_COND_RCXZ/ECXZ */
	uint8_t string_op;	/* WD_STRING: enum wd_string_op */
	uint8_t rep;		/* WD_STRING: has a rep/repe/repne prefix */
	uint8_t target_reg;	/* WD_INDIRECT_JMP/CALL: gregs index, or WD_REG_NONE */
	uint8_t mask_reg;	/* AVX-512 opmask k1..k7 selecting the memory operand's
				   elements, 0 for none (k0, no masking, a broadcast,
				   or an instruction that writes its own mask) */
	uint8_t mask_esize;	/* mask_reg: bytes per element the mask selects */
	int64_t disp;
};

/* String instructions: which of [rdi] and [rsi] each one reads or writes. */
enum wd_string_op {
	WD_STR_NONE = 0,
	WD_STR_STOS,	/* writes [rdi] */
	WD_STR_MOVS,	/* reads [rsi], writes [rdi] */
	WD_STR_LODS,	/* reads [rsi] */
	WD_STR_SCAS,	/* reads [rdi] */
	WD_STR_CMPS,	/* reads [rsi] and [rdi] */
	WD_STR_INS,	/* writes [rdi] */
	WD_STR_OUTS,	/* reads [rsi] */
};

/*
 * How many more iterations string instruction `a` surely runs, with
 * registers uc as of right before it: rcx under a rep prefix (ecx with a
 * 32-bit address size), but 1 for repe/repne cmps and scas, which may stop
 * after any; 1 without a prefix; 0 when rcx is 0.
 */
uint64_t wd_string_count(const struct wd_access *a, const ucontext_t *uc);

/*
 * The element that iteration k from now (k < wd_string_count) of string
 * instruction `a` will store (want_store) or load, with registers uc as of
 * right before it: 1 and its address in *ea, or 0 when it accesses none of
 * that kind (or a rep prefix with rcx == 0 makes it do nothing).
 */
int wd_string_element(const struct wd_access *a, const ucontext_t *uc, int want_store,
		      uint64_t k, uintptr_t *ea);

/* One side of a string instruction: the register pointing at the
 * element it accesses (REG_RDI or REG_RSI) and how (WD_STORE, WD_LOAD). */
struct wd_string_side {
	uint8_t reg;
	uint8_t kind;
};

/* The sides of string instruction a, stores first: how many (0..2). */
int wd_string_sides(const struct wd_access *a, struct wd_string_side side[2]);

#define WD_COND_RCXZ 16
#define WD_COND_ECXZ 17

/* Would the conditional jump `a` be taken with the flags and registers in
 * uc (which must be the state right before `a` executes)? */
int wd_branch_taken(const struct wd_access *a, const ucontext_t *uc);

/* Initialise the shared decoder, and where trap contexts keep the
 * AVX-512 opmasks (xstate.h). Call once, outside any handler. */
void wd_init(void);

/*
 * Decode the instruction at `code` (which holds `avail` readable bytes), whose
 * runtime address is `pc`. Returns the instruction length (1..15), or 0 when
 * the bytes do not decode. Fills *out.
 */
int wd_decode(const uint8_t *code, size_t avail, uintptr_t pc, struct wd_access *out);

/*
 * Effective address of a decoded access in the register state `uc`.
 * For RIP-relative operands, RIP means the address of the next instruction
 * (pc + len), whatever uc's RIP is. fs_base/gs_base are the thread's segment
 * bases.
 */
uintptr_t wd_effective_address(const struct wd_access *a, const ucontext_t *uc,
			       uintptr_t fs_base, uintptr_t gs_base);

/* Result of looking ahead for the next access. */
enum wd_find {
	WD_FOUND = 0,		/* *out is the next access of the wanted kind */
	WD_NOT_FOUND,		/* a control transfer or the limit came first */
	WD_SKIPPED,		/* the next access of the wanted kind is implicit/string/VSIB
				   or writes its own address registers (*out says which) */
	WD_UNDECODABLE,		/* bytes that do not decode (before code_end) */
	WD_BRANCH,		/* a conditional or indirect jump or an indirect call
				   (WD_COND_JMP, WD_INDIRECT_JMP, WD_INDIRECT_CALL) came
				   first: *out is it; where it goes needs the flags or
				   registers right before it */
	WD_CALL,		/* looking for loads, a direct call came first: *out is it
				   (a store walk meets the call's push first) */
	WD_RETURN,		/* a ret came first: *out is it */
};

/*
 * Starting with the instruction at `pc` (inclusive), walk straight-line code
 * for at most `max_insns` instructions, following unconditional direct jmps,
 * and find the first instruction that stores (want_store=1: WD_STORE or
 * WD_RMW) or loads (want_store=0: WD_LOAD or WD_RMW). Stops at a
 * conditional or indirect jump (WD_BRANCH), an indirect call (WD_BRANCH; a
 * store walk meets its push, and a load walk the load of its target through
 * memory, as WD_SKIPPED), a direct call (WD_CALL, loads), a ret (WD_RETURN)
 * and at any other control transfer. Code is read
 * directly from memory at `pc`; `code_end`
 * bounds reads (pass the end of the executable mapping that holds pc).
 */
enum wd_find wd_find_next_access(uintptr_t pc, uintptr_t code_end, int want_store,
				 int max_insns, struct wd_access *out);
/* The same, and how many instructions came before what it found in *before. */
enum wd_find wd_find_next_access_n(uintptr_t pc, uintptr_t code_end, int want_store,
				   int max_insns, struct wd_access *out, int *before);

/*
 * x86 data watchpoints trap after the access; the context PC is the address
 * after the trapping instruction. Given the start of the enclosing function
 * (from the unwinder; look up after_pc - 1, since a trapping instruction that
 * ends a function has after_pc == the next function's start), decode forward
 * to the instruction that ends exactly at `after_pc`, fill *out and return 1;
 * return 0 if no instruction ends there, func_start is 0 (unknown), the walk
 * would exceed 64 KiB or after_pc > code_end. Results are cached in a small
 * caller-provided table (one per thread; entries a power of two, 0 for no
 * caching; c may be NULL); lookups and fills are safe against a nested
 * handler on the same thread.
 */
struct wd_pc_cache;
size_t wd_pc_cache_bytes(unsigned entries);	/* entries: power of two */
void wd_pc_cache_init(struct wd_pc_cache *c, unsigned entries);
int wd_precise_access(struct wd_pc_cache *c, uintptr_t func_start, uintptr_t after_pc,
		      uintptr_t code_end, struct wd_access *out);
/* Lookups answered from the cache, and those that had to decode. */
void wd_pc_cache_stats(const struct wd_pc_cache *c, uint64_t *hits, uint64_t *misses);

#endif
