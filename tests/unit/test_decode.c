/*
 * test_decode.c - instruction classification, effective addresses, the
 * look-ahead for the next store/load and the after-PC lookup.
 *
 * The code under test is real machine code assembled below. Most of it is
 * never executed, only decoded, so it may use any ISA extension.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>

#include "runtime/decode.h"
#include "tap.h"

long t_data;

/* A global (hidden, so no PLT/GOT surprises) label in the asm below. */
#define L(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n"

__asm__(
	".pushsection .text\n"
	".p2align 4\n"
	/* single instructions, one label each */
	L(t_sib)	"movl %eax, 8(%rdi,%rsi,4)\n"
	L(t_rip)	"movq t_data(%rip), %rax\n"
	L(t_fs)		"movq %rax, %fs:0x10\n"
	L(t_gs)		"movdqu %xmm0, %gs:8(%rax)\n"
	L(t_a32)	"movl %eax, (%ecx)\n"
	L(t_a32w)	"movl %eax, 0x10(%ecx)\n"
	L(t_movups)	"movups %xmm0, (%rdi)\n"
	L(t_vmovdqu)	"vmovdqu %ymm0, (%rdi)\n"
	L(t_movss)	"movss %xmm0, (%rdi)\n"
	L(t_movsd)	"movsd %xmm0, (%rdi)\n"
	L(t_movaps)	"movaps %xmm0, (%rdi)\n"
	L(t_movapd)	"movapd %xmm0, (%rdi)\n"
	L(t_addsd)	"addsd (%rdi), %xmm0\n"
	L(t_fldt)	"fldt (%rdi)\n"
	L(t_zmask)	"vmovups %zmm0, (%rdi){%k1}\n"
	L(t_add)	"addl %eax, (%rdi)\n"
	L(t_cmpxchg)	"lock cmpxchg %rcx, (%rdi)\n"
	L(t_lea)	"leaq 8(%rdi), %rax\n"
	L(t_nopw)	"nopw 0(%rax,%rax,1)\n"
	L(t_prefetch)	"prefetcht0 (%rdi)\n"
	L(t_clflush)	"clflush (%rdi)\n"
	L(t_xsave)	"xsave (%rdi)\n"
	L(t_push)	"pushq %rax\n"
	L(t_pop)	"popq %rax\n"
	L(t_pushm)	"pushq 8(%rdi)\n"
	L(t_call)	"call t_sib\n"
	L(t_ret)	"ret\n"
	L(t_stos)	"rep stosb\n"
	L(t_movs)	"movsq\n"
	L(t_repmovs)	"rep movsq\n"
	L(t_repecmps)	"repe cmpsb\n"
	L(t_a32stos)	"addr32 rep stosb\n"
	L(t_gather)	"vpgatherdd %ymm2, (%rdi,%ymm1,4), %ymm0\n"
	L(t_scatter)	"vpscatterdd %zmm0, (%rdi,%zmm1,4){%k1}\n"
	L(t_selfld)	"movq (%rax), %rax\n"
	L(t_alias)	"movb (%rdi,%rcx,1), %cl\n"
	L(t_jmp)	"jmp t_sib\n"
	L(t_jne)	"jne t_sib\n"
	L(t_jmpind)	"jmp *(%rax)\n"
	L(t_jmpreg)	"addq $1, %rcx\n"
			"jmp *%rdx\n"
	L(t_jmprip)	"jmp *16(%rip)\n"
	L(t_calreg)	"call *%rdx\n"
	L(t_calmem)	"call *16(%rax)\n"
	L(t_xbegin)	"xbegin t_sib\n"
	L(t_syscall)	"syscall\n"
	L(t_ud2)	"ud2\n"

	/* find_next: a load, an ALU op, then a store */
	L(f_seq)	"movq (%rdi), %rax\n"
			"addq $1, %rax\n"
	L(f_seq_st)	"movq %rax, 8(%rsi)\n"
			"ret\n"
	/* a conditional branch before the store */
	L(f_jcc)	"addq $1, %rax\n"
			"jne 1f\n"
			"movq %rax, (%rdi)\n"
	"1:\n"		"ret\n"
	/* an unconditional jmp over a store */
	L(f_jmp)	"xorl %eax, %eax\n"
			"jmp f_jmp_tgt\n"
			"movq %rax, (%rdi)\n"
			"ud2\n"
	L(f_jmp_tgt)	"movl %ecx, 4(%rdx)\n"
			"ret\n"
	L(f_push)	"movq %rdi, %rax\n"
			"pushq %rbx\n"
	L(f_call)	"nop\n"
			"call f_seq\n"
	L(f_stale)	"addq $8, %rdi\n"
			"movq %rax, (%rdi)\n"
	L(f_ret)	"addl $1, %eax\n"
			"ret\n"

	/* precise: a small function with padding in the middle */
	L(f_prec)	"pushq %rbp\n"
			"movq %rsp, %rbp\n"
			"movl %eax, 8(%rdi,%rsi,4)\n"
	L(f_prec_a1)	"addq $1, (%rdi)\n"
	L(f_prec_a2)	"jmp 2f\n"
			"int3\n"
			"int3\n"
			"nopw 0(%rax,%rax,1)\n"
	"2:\n"		"movsd (%rsi), %xmm0\n"
	L(f_prec_a3)	"popq %rbp\n"
			"ret\n"
	L(t_end)
	".popsection\n");

extern const uint8_t t_sib[], t_rip[], t_fs[], t_gs[], t_a32[], t_a32w[], t_movups[],
	t_vmovdqu[], t_movss[], t_movsd[], t_movaps[], t_movapd[], t_addsd[], t_fldt[],
	t_zmask[], t_add[], t_cmpxchg[], t_lea[], t_nopw[], t_prefetch[], t_clflush[],
	t_xsave[], t_push[], t_pop[], t_pushm[], t_call[], t_ret[], t_stos[], t_movs[], t_repmovs[], t_repecmps[], t_a32stos[],
	t_gather[], t_scatter[], t_selfld[], t_alias[], t_jmp[], t_jne[], t_jmpind[], t_jmpreg[],
	t_jmprip[], t_calreg[], t_calmem[],
	t_xbegin[], t_syscall[], t_ud2[], t_end[];
extern const uint8_t f_seq[], f_seq_st[], f_jcc[], f_jmp[], f_jmp_tgt[], f_push[],
	f_call[], f_stale[], f_ret[], f_prec[], f_prec_a1[], f_prec_a2[], f_prec_a3[];

static struct wd_access dec(const uint8_t *code)
{
	struct wd_access a;

	if (!wd_decode(code, (size_t)(t_end - code), (uintptr_t)code, &a))
		tap_diag("decode failed at %p", (const void *)code);
	return a;
}

static void check_kind(const char *what, const uint8_t *code, int kind, int size, int dtype)
{
	struct wd_access a = dec(code);

	tap_ok(a.kind == kind && a.size == size && a.dtype == dtype,
	       "%s: kind %d size %d dtype %d (got %d %d %d)", what, kind, size, dtype,
	       a.kind, a.size, a.dtype);
}

static void check_flags(const char *what, const uint8_t *code, int kind, unsigned flags)
{
	struct wd_access a = dec(code);

	tap_ok(a.kind == kind && a.flags == flags, "%s: kind %d flags %#x (got %d %#x)",
	       what, kind, flags, a.kind, a.flags);
}

static void test_addressing(void)
{
	static const uint8_t eip_rel[] = { 0x67, 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 };
	ucontext_t uc;
	struct wd_access a;
	int len;

	memset(&uc, 0, sizeof(uc));
	len = wd_decode(t_sib, 15, (uintptr_t)t_sib, &a);
	tap_ok(len == 4 && a.len == 4 && a.pc == (uintptr_t)t_sib, "mov [rdi+rsi*4+8]: length 4");
	tap_ok(a.kind == WD_STORE && a.size == 4 && a.dtype == WD_INT && a.flags == 0,
	       "mov [rdi+rsi*4+8]: plain 4-byte store");
	tap_ok(a.base == REG_RDI && a.index == REG_RSI && a.scale == 4 && a.disp == 8 &&
	       a.seg == WD_SEG_NONE && a.addr_bytes == 8, "mov [rdi+rsi*4+8]: addressing");
	uc.uc_mcontext.gregs[REG_RDI] = 0x10000;
	uc.uc_mcontext.gregs[REG_RSI] = 3;
	tap_ok(wd_effective_address(&a, &uc, 0, 0) == 0x10000 + 12 + 8,
	       "mov [rdi+rsi*4+8]: effective address");

	a = dec(t_rip);
	uc.uc_mcontext.gregs[REG_RIP] = 0x1234;	/* must be ignored */
	tap_ok(a.kind == WD_LOAD && a.size == 8 && a.base == REG_RIP &&
	       a.index == WD_REG_NONE, "rip-relative load");
	tap_ok(wd_effective_address(&a, &uc, 0, 0) == (uintptr_t)&t_data,
	       "rip-relative: address from pc+len, not uc's RIP");

	a = dec(t_fs);
	tap_ok(a.kind == WD_STORE && a.seg == WD_SEG_FS && a.base == WD_REG_NONE &&
	       a.disp == 0x10, "fs store");
	tap_ok(wd_effective_address(&a, &uc, 0x7f0000001000, 0x5000) == 0x7f0000001010,
	       "fs store: adds fs_base");

	a = dec(t_gs);
	uc.uc_mcontext.gregs[REG_RAX] = 0x100;
	tap_ok(a.kind == WD_STORE && a.size == 16 && a.seg == WD_SEG_GS &&
	       wd_effective_address(&a, &uc, 0x7f0000001000, 0x5000) == 0x5108,
	       "gs store: adds gs_base");

	a = dec(t_a32);
	uc.uc_mcontext.gregs[REG_RCX] = (greg_t)0xdeadbeef12345678ull;
	tap_ok(a.kind == WD_STORE && a.base == REG_RCX && a.addr_bytes == 4 &&
	       wd_effective_address(&a, &uc, 0, 0) == 0x12345678,
	       "mov %%eax,(%%ecx): 32-bit address truncated");
	a = dec(t_a32w);
	uc.uc_mcontext.gregs[REG_RCX] = 0xfffffff8;
	tap_ok(wd_effective_address(&a, &uc, 0x1000, 0) == 0x8,
	       "mov %%eax,0x10(%%ecx): wraps at 32 bits");
	/* addr32 mov 0x10(%eip),%rax, as if it sat just below 4 GiB */
	len = wd_decode(eip_rel, sizeof(eip_rel), 0xfffffffcull, &a);
	tap_ok(len == 8 && a.kind == WD_LOAD && a.base == REG_RIP && a.addr_bytes == 4 &&
	       wd_effective_address(&a, &uc, 0, 0) == 0x14, "eip-relative: wraps at 32 bits");
	a = dec(t_a32w);
	a.seg = WD_SEG_FS;	/* wrap first, then add the segment base */
	tap_ok(wd_effective_address(&a, &uc, 0x1000, 0) == 0x1008,
	       "32-bit address: segment base added after wrapping");
}

static void test_kinds(void)
{
	struct wd_access a;
	uint8_t junk[16] = { 0x06 };	/* push es: invalid in 64-bit mode */

	check_kind("movups store", t_movups, WD_STORE, 16, WD_F32);
	check_kind("vmovdqu ymm store", t_vmovdqu, WD_STORE, 32, WD_INT);
	check_kind("movss store", t_movss, WD_STORE, 4, WD_F32);
	check_kind("movsd store", t_movsd, WD_STORE, 8, WD_F64);
	check_kind("movaps store", t_movaps, WD_STORE, 16, WD_F32);
	check_kind("movapd store", t_movapd, WD_STORE, 16, WD_F64);
	check_kind("addsd load", t_addsd, WD_LOAD, 8, WD_F64);
	check_kind("fldt load", t_fldt, WD_LOAD, 10, WD_F80);
	check_kind("masked zmm store: full size", t_zmask, WD_STORE, 64, WD_F32);
	check_kind("add [mem],reg", t_add, WD_RMW, 4, WD_INT);
	check_kind("lock cmpxchg", t_cmpxchg, WD_RMW, 8, WD_INT);
	check_kind("lea", t_lea, WD_NONE, 0, WD_INT);
	check_kind("nopw [mem]", t_nopw, WD_NONE, 0, WD_INT);
	check_kind("prefetcht0", t_prefetch, WD_NONE, 0, WD_INT);
	check_kind("clflush", t_clflush, WD_NONE, 0, WD_INT);
	check_kind("xsave area", t_xsave, WD_NONE, 0, WD_INT);

	a = dec(t_push);
	tap_ok(a.kind == WD_STORE && a.size == 8 && a.base == REG_RSP &&
	       a.flags == (WD_IMPLICIT | WD_WRITES_ADDR_REG), "push: implicit 8-byte store");
	check_flags("pop", t_pop, WD_LOAD, WD_IMPLICIT | WD_WRITES_ADDR_REG);
	check_flags("push [mem]: explicit read, hidden write", t_pushm, WD_RMW,
		    WD_IMPLICIT | WD_WRITES_ADDR_REG);
	check_flags("call", t_call, WD_STORE, WD_IMPLICIT | WD_WRITES_ADDR_REG | WD_CONTROL | WD_DIRECT_CALL);
	check_flags("ret", t_ret, WD_LOAD, WD_IMPLICIT | WD_WRITES_ADDR_REG | WD_CONTROL | WD_RET);
	a = dec(t_stos);
	tap_ok(a.kind == WD_STORE && a.size == 1 && (a.flags & WD_STRING) &&
	       !(a.flags & WD_IMPLICIT) && a.base == REG_RDI, "rep stosb: string store");
	check_flags("movsq", t_movs, WD_RMW, WD_STRING | WD_WRITES_ADDR_REG);
	a = dec(t_gather);
	tap_ok(a.kind == WD_LOAD && a.flags == WD_VSIB && a.base == REG_RDI &&
	       a.index == WD_REG_NONE, "vpgatherdd: VSIB load");
	check_flags("vpscatterdd", t_scatter, WD_STORE, WD_VSIB);
	check_flags("mov (%rax),%rax", t_selfld, WD_LOAD, WD_WRITES_ADDR_REG);
	check_flags("mov (%rdi,%rcx),%cl: alias of index", t_alias, WD_LOAD, WD_WRITES_ADDR_REG);

	a = dec(t_jmp);
	tap_ok(a.flags == (WD_CONTROL | WD_DIRECT_JMP) && a.target == (uintptr_t)t_sib &&
	       a.kind == WD_NONE, "jmp rel: direct, target");
	check_flags("jne", t_jne, WD_NONE, WD_CONTROL | WD_COND_JMP);
	check_flags("jmp *(%rax)", t_jmpind, WD_LOAD, WD_CONTROL | WD_INDIRECT_JMP);
	a = dec(t_jmpind);
	tap_ok(a.target_reg == WD_REG_NONE && a.base == REG_RAX, "jmp *(%%rax): target in memory");
	a = dec(t_jmpreg + 4);
	tap_ok(a.kind == WD_NONE && a.flags == (WD_CONTROL | WD_INDIRECT_JMP) && a.target_reg == REG_RDX,
	       "jmp *%%rdx: indirect, target in rdx");
	a = dec(t_jmprip);
	tap_ok(a.flags == (WD_CONTROL | WD_INDIRECT_JMP) && a.base == REG_RIP &&
	       a.target_reg == WD_REG_NONE, "jmp *16(%%rip): indirect through memory");
	a = dec(t_calreg);
	tap_ok(a.kind == WD_STORE && (a.flags & WD_INDIRECT_CALL) && !(a.flags & WD_INDIRECT_JMP) &&
	       a.target_reg == REG_RDX, "call *%%rdx: an indirect call, target in rdx, pushes");
	a = dec(t_calmem);
	tap_ok((a.flags & WD_INDIRECT_CALL) && a.target_reg == WD_REG_NONE && a.base == REG_RAX &&
	       a.disp == 16 && a.size == 8, "call *16(%%rax): target read from the explicit operand");
	check_flags("xbegin", t_xbegin, WD_NONE, WD_CONTROL);
	check_flags("syscall", t_syscall, WD_NONE, WD_CONTROL);
	check_flags("ud2", t_ud2, WD_NONE, WD_CONTROL);

	tap_ok(wd_decode(junk, sizeof(junk), (uintptr_t)junk, &a) == 0, "invalid bytes: 0");
	tap_ok(wd_decode(t_sib, 3, (uintptr_t)t_sib, &a) == 0, "truncated: 0");
}

static enum wd_find find(const uint8_t *pc, const uint8_t *end, int store, int max,
			 struct wd_access *a)
{
	return wd_find_next_access((uintptr_t)pc, (uintptr_t)end, store, max, a);
}

static void test_find(void)
{
	struct wd_access a;
	uint8_t junk[32];
	enum wd_find r;

	r = find(f_seq, t_end, 1, 16, &a);
	tap_ok(r == WD_FOUND && a.pc == (uintptr_t)f_seq_st && a.base == REG_RSI &&
	       a.disp == 8, "find store: skips the load and the add");
	r = find(f_seq, t_end, 0, 16, &a);
	tap_ok(r == WD_FOUND && a.pc == (uintptr_t)f_seq, "find load: the first instruction");
	tap_ok(find(f_seq, t_end, 1, 2, &a) == WD_NOT_FOUND, "find store: instruction budget");
	{
		int n = -1;

		r = wd_find_next_access_n((uintptr_t)f_seq, (uintptr_t)t_end, 1, 16, &a, &n);
		tap_ok(r == WD_FOUND && n == 2, "find store: 2 instructions before it (--reach)");
		r = wd_find_next_access_n((uintptr_t)f_seq, (uintptr_t)t_end, 0, 16, &a, &n);
		tap_ok(r == WD_FOUND && n == 0, "find load: none before it");
		r = wd_find_next_access_n((uintptr_t)f_seq, (uintptr_t)t_end, 1, 2, &a, &n);
		tap_ok(r == WD_NOT_FOUND && n == 2, "find store: a budget of 2 passes 2");
	}
	tap_ok(find(f_seq, f_seq_st + 2, 1, 16, &a) == WD_NOT_FOUND,
	       "find store: never reads past code_end");
	r = find(f_jcc, t_end, 1, 16, &a);
	tap_ok(r == WD_BRANCH && (a.flags & WD_COND_JMP) && a.pc == (uintptr_t)f_jcc + 4 &&
	       a.target == (uintptr_t)f_jcc + 9 && a.cond == 5, "find store: stops at jcc (jne)");
	{
		ucontext_t fl;

		memset(&fl, 0, sizeof(fl));
		fl.uc_mcontext.gregs[REG_EFL] = 1 << 6;	/* ZF */
		tap_ok(!wd_branch_taken(&a, &fl), "jne not taken with ZF set");
		fl.uc_mcontext.gregs[REG_EFL] = 0;
		tap_ok(wd_branch_taken(&a, &fl), "jne taken with ZF clear");
		a.cond = 12;	/* jl: SF != OF */
		fl.uc_mcontext.gregs[REG_EFL] = 1 << 7;
		tap_ok(wd_branch_taken(&a, &fl), "jl taken with SF=1 OF=0");
		fl.uc_mcontext.gregs[REG_EFL] = (1 << 7) | (1 << 11);
		tap_ok(!wd_branch_taken(&a, &fl), "jl not taken with SF=OF=1");
		a.cond = 7;	/* ja: !(CF || ZF) */
		fl.uc_mcontext.gregs[REG_EFL] = 1;
		tap_ok(!wd_branch_taken(&a, &fl), "ja not taken with CF");
		a.cond = WD_COND_RCXZ;
		fl.uc_mcontext.gregs[REG_RCX] = 0;
		tap_ok(wd_branch_taken(&a, &fl), "jrcxz taken with rcx 0");
	}
	r = find(f_jmp, t_end, 1, 16, &a);
	tap_ok(r == WD_FOUND && a.pc == (uintptr_t)f_jmp_tgt && a.base == REG_RDX &&
	       a.size == 4, "find store: follows jmp");
	tap_ok(find(f_jmp, f_jmp_tgt, 1, 16, &a) == WD_NOT_FOUND,
	       "find store: no jmp to code_end or beyond");
	r = find(f_push, t_end, 1, 16, &a);
	tap_ok(r == WD_SKIPPED && (a.flags & WD_IMPLICIT), "find store: push is skipped");
	r = find(f_call, t_end, 1, 16, &a);
	tap_ok(r == WD_SKIPPED && (a.flags & WD_CONTROL) && (a.flags & WD_IMPLICIT),
	       "find store: call is a skipped store");
	r = find(f_call, t_end, 0, 16, &a);
	tap_ok(r == WD_CALL && (a.flags & WD_DIRECT_CALL) && a.pc == (uintptr_t)f_call + 1 &&
	       a.target == (uintptr_t)f_seq, "find load: stops at a direct call, with its target");
	r = find(f_stale, t_end, 1, 16, &a);
	tap_ok(r == WD_FOUND && a.flags == WD_ADDR_STALE,
	       "find store: address register changed before the store is flagged");
	r = find(f_stale + 4, t_end, 1, 16, &a);
	tap_ok(r == WD_FOUND, "find store: from the store itself, address is fine");
	r = find(f_ret, t_end, 0, 16, &a);
	tap_ok(r == WD_RETURN && (a.flags & WD_RET) && a.pc == (uintptr_t)f_ret + 3,
	       "find load: stops at ret (its own load is never sampled)");
	r = find(t_jmpreg, t_end, 1, 16, &a);
	tap_ok(r == WD_BRANCH && a.pc == (uintptr_t)t_jmpreg + 4 && (a.flags & WD_INDIRECT_JMP),
	       "find store: stops at jmp *%%rdx (its target needs rdx)");
	r = find(t_jmprip, t_end, 0, 16, &a);
	tap_ok(r == WD_FOUND && (a.flags & WD_INDIRECT_JMP),
	       "find load: jmp through the GOT is itself a load");
	r = find(t_jmprip, t_end, 1, 16, &a);
	tap_ok(r == WD_BRANCH && a.pc == (uintptr_t)t_jmprip, "find store: stops at jmp *16(%%rip)");
	r = find(f_ret, t_end, 1, 16, &a);
	tap_ok(r == WD_RETURN && a.pc == (uintptr_t)f_ret + 3, "find store: stops at ret");
	r = find(t_calreg, t_end, 0, 16, &a);
	tap_ok(r == WD_BRANCH && (a.flags & WD_INDIRECT_CALL),
	       "find load: stops at call *%%rdx (its target needs rdx)");
	r = find(t_calreg, t_end, 1, 16, &a);
	tap_ok(r == WD_SKIPPED && (a.flags & WD_INDIRECT_CALL),
	       "find store: call *%%rdx is a skipped store (its push)");
	r = find(t_calmem, t_end, 0, 16, &a);
	tap_ok(r == WD_SKIPPED && (a.flags & WD_INDIRECT_CALL) && a.base == REG_RAX,
	       "find load: call *16(%%rax) is a skipped load");

	memset(junk, 0x90, sizeof(junk));
	junk[2] = 0x06;
	tap_ok(find(junk, junk + sizeof(junk), 1, 16, &a) == WD_UNDECODABLE,
	       "find: undecodable bytes");
}

static int precise(struct wd_pc_cache *c, const uint8_t *start, uintptr_t after,
		   struct wd_access *a)
{
	return wd_precise_access(c, (uintptr_t)start, after, (uintptr_t)t_end, a);
}

static void test_precise(void)
{
	struct wd_pc_cache *c = malloc(wd_pc_cache_bytes(64));
	struct wd_pc_cache *tiny = malloc(wd_pc_cache_bytes(2));
	const uint8_t *afters[] = { f_prec_a1, f_prec_a2, f_prec_a3 };
	struct wd_access a;
	uint64_t hits, misses;
	int i, ok;

	wd_pc_cache_init(c, 64);
	ok = precise(c, f_prec, (uintptr_t)f_prec_a1, &a);
	tap_ok(ok && a.pc + a.len == (uintptr_t)f_prec_a1 && a.kind == WD_STORE &&
	       a.base == REG_RDI && a.index == REG_RSI, "precise: store ending at after_pc");
	wd_pc_cache_stats(c, &hits, &misses);
	tap_ok(hits == 0 && misses == 1, "precise: first lookup misses");
	memset(&a, 0, sizeof(a));
	ok = precise(c, f_prec, (uintptr_t)f_prec_a1, &a);
	wd_pc_cache_stats(c, &hits, &misses);
	tap_ok(ok && hits == 1 && misses == 1 && a.kind == WD_STORE &&
	       a.pc + a.len == (uintptr_t)f_prec_a1, "precise: second lookup hits the cache");
	tap_ok(precise(c, f_prec, (uintptr_t)f_prec_a2, &a) && a.kind == WD_RMW && a.size == 8,
	       "precise: add [mem],1");
	tap_ok(precise(c, f_prec, (uintptr_t)f_prec_a3, &a) && a.kind == WD_LOAD && a.dtype == WD_F64,
	       "precise: decodes through int3/nop padding");
	tap_ok(!precise(c, f_prec, (uintptr_t)f_prec_a1 - 1, &a), "precise: mid-instruction is 0");
	tap_ok(!precise(c, f_prec, (uintptr_t)f_prec_a1 - 1, &a), "precise: cached 0 stays 0");
	wd_pc_cache_stats(c, &hits, &misses);
	tap_ok(hits == 2 && misses == 4, "precise: negative answers are cached too");
	tap_ok(!precise(c, NULL, (uintptr_t)f_prec_a1, &a), "precise: unknown function start is 0");
	tap_ok(!wd_precise_access(c, (uintptr_t)f_prec, (uintptr_t)f_prec_a1,
				  (uintptr_t)f_prec_a1 - 1, &a), "precise: after_pc past code_end");
	tap_ok(precise(NULL, f_prec, (uintptr_t)f_prec_a2, &a) && a.kind == WD_RMW,
	       "precise: works without a cache");

	/* Two slots, three keys, many rounds: evictions must not give wrong answers. */
	wd_pc_cache_init(tiny, 2);
	ok = 1;
	for (i = 0; i < 30; i++) {
		const uint8_t *after = afters[i % 3];

		if (!precise(tiny, f_prec, (uintptr_t)after, &a) || a.pc + a.len != (uintptr_t)after)
			ok = 0;
	}
	tap_ok(ok, "precise: tiny cache evicts correctly");
	free(c);
	free(tiny);
}

/* Which element iteration k of a string instruction touches. */
static void test_string_elements(void)
{
	ucontext_t uc;
	struct wd_access a;
	uintptr_t ea = 0;
	greg_t *g = uc.uc_mcontext.gregs;

	memset(&uc, 0, sizeof(uc));
	a = dec(t_stos);
	g[REG_RCX] = 10;
	g[REG_RDI] = 0x1000;
	tap_ok(wd_string_count(&a, &uc) == 10, "rep stosb: rcx iterations");
	tap_ok(wd_string_element(&a, &uc, 1, 3, &ea) && ea == 0x1003, "rep stosb: element 3");
	tap_ok(!wd_string_element(&a, &uc, 1, 10, &ea), "rep stosb: no element past rcx");
	tap_ok(!wd_string_element(&a, &uc, 0, 0, &ea), "rep stosb: loads nothing");
	g[REG_EFL] = 1 << 10;	/* DF */
	tap_ok(wd_string_element(&a, &uc, 1, 3, &ea) && ea == 0x0ffd,
	       "rep stosb, direction flag set: element 3 below rdi");
	g[REG_EFL] = 0;
	g[REG_RCX] = 0;
	tap_ok(wd_string_count(&a, &uc) == 0 && !wd_string_element(&a, &uc, 1, 0, &ea),
	       "rep stosb, rcx 0: does nothing");

	a = dec(t_repmovs);
	g[REG_RCX] = 4;
	g[REG_RSI] = 0x2000;
	g[REG_RDI] = 0x3000;
	tap_ok(wd_string_element(&a, &uc, 0, 2, &ea) && ea == 0x2010 &&
	       wd_string_element(&a, &uc, 1, 2, &ea) && ea == 0x3010,
	       "rep movsq: element 2 loads rsi+16, stores rdi+16");
	a = dec(t_movs);
	tap_ok(wd_string_count(&a, &uc) == 1 && wd_string_element(&a, &uc, 1, 0, &ea) &&
	       ea == 0x3000, "movsq without rep: one iteration, rcx ignored");
	a = dec(t_repecmps);
	g[REG_RCX] = 5;
	tap_ok(wd_string_count(&a, &uc) == 1 && wd_string_element(&a, &uc, 0, 0, &ea) &&
	       ea == 0x2000, "repe cmpsb: only the first iteration is sure");

	a = dec(t_a32stos);
	g[REG_RCX] = (greg_t)0x100000003ull;
	g[REG_RDI] = (greg_t)0x7ffffffffffeull;
	tap_ok(wd_string_count(&a, &uc) == 3, "addr32 rep stosb: counts in ecx");
	tap_ok(wd_string_element(&a, &uc, 1, 2, &ea) && ea == 0, "addr32 rep stosb: edi wraps");
}

int main(void)
{
	wd_init();
	test_addressing();
	test_kinds();
	test_string_elements();
	test_find();
	test_precise();
	return tap_done();
}
