/*
 * test_hit.c - the trapping access and the bytes it touched, judged, from
 * synthetic trap contexts: those of CPUs this test need not run on.
 *
 * Intel CPUs with fast strings report a watched hit inside rep stos/movs
 * once for a group of iterations, RIP still on the instruction and
 * RDI/RSI 128 bytes past the watched bytes, or after the instruction with
 * RCX 0; AMD CPUs once per element. AVX-512 code stores and loads under
 * opmasks that the signal frame's XSAVE area holds. The code below is
 * real machine code that is decoded, never run, so it may use AVX-512
 * wherever the test runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>
#include <linux/hw_breakpoint.h>

#include "runtime/hit.h"
#include "runtime/runtime.h"
#include "runtime/xstate.h"
#include "tap.h"

#define L(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n"

__asm__(
	".pushsection .text\n"
	".p2align 4\n"
	/* glibc's memset on an Intel CPU with fast strings, at its core */
	L(f_memset)	"movq %rdi, %rdx\n"
	L(f_memset_rep)	"rep stosb\n"
	L(f_memset_end)	"movq %rdx, %rax\n"
			"ret\n"
	/* a store right before the string instruction */
	L(f_prev)	"movq %rax, (%rsi)\n"
	L(f_prev_rep)	"rep stosb\n"
			"ret\n"
	L(f_copy)	"movq %rdi, %rax\n"
	L(f_copy_rep)	"rep movsb\n"
	L(f_copy_end)	"ret\n"
	/* a word stored, then copied on: src[0] = x; memcpy(dst, src, n) */
	L(f_storecopy)	"movq %rax, (%rdx)\n"
	L(f_storecopy_rep) "rep movsq\n"
			"ret\n"
	L(f_movsq)	"movsq\n"
	L(f_movsq_end)	"ret\n"
	/* glibc's memset tail on AVX-512: a masked byte store */
	L(f_mask)	"vmovdqu8 %zmm16, (%rax){%k1}\n"
	L(f_mask_end)	"ret\n"
	L(f_maskld)	"vmovdqu8 (%rax), %zmm16{%k1}{z}\n"
	L(f_maskld_end)	"ret\n"
	L(f_compress)	"vpcompressd %zmm0, (%rax){%k1}\n"
	L(f_compress_end) "ret\n"
	L(f_cmpself)	"vpcmpb $0, (%rdi), %zmm16, %k1{%k1}\n"
	L(f_cmpk2)	"vpcmpb $0, (%rdi), %zmm16, %k2{%k1}\n"
	L(f_bcast)	"vaddps (%rdi){1to16}, %zmm1, %zmm0{%k1}\n"
	L(f_end)	"ret\n"
	".popsection\n");

extern const char f_storecopy[], f_storecopy_rep[];
extern const char f_memset[], f_memset_rep[], f_memset_end[], f_prev[], f_prev_rep[], f_copy[],
	f_copy_rep[], f_copy_end[], f_movsq[], f_movsq_end[], f_mask[], f_mask_end[], f_maskld[],
	f_maskld_end[], f_compress[],
	f_compress_end[], f_cmpself[], f_cmpk2[], f_bcast[], f_end[];

#define U(p) ((uintptr_t)(p))
#define OPMASK_OFFSET 1088	/* where Intel and AMD CPUs with AVX-512 keep k0-k7 */

static uint8_t buf[4096] __attribute__((aligned(64)));
static uint8_t src[4096] __attribute__((aligned(64)));
static uint8_t xsave_area[4096] __attribute__((aligned(64)));
static ucontext_t uc;

/* A context with all registers 0, the direction flag clear, at rip. */
static void context(const char *rip)
{
	memset(&uc, 0, sizeof(uc));
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)rip;
	uc.uc_mcontext.gregs[REG_EFL] = 0x202;
}

static void reg(int r, uintptr_t v)
{
	uc.uc_mcontext.gregs[r] = (greg_t)v;
}

/* The signal frame's XSAVE area with opmask k (the others 0), or, with
 * xsave 0, a frame in the legacy format. */
static void opmask(unsigned k, uint64_t value, int xsave)
{
	uint32_t magic = WX_MAGIC1, size = sizeof(xsave_area);
	uint64_t features = 0xe7, present = 1u << WX_OPMASK_BIT;

	memset(xsave_area, 0, sizeof(xsave_area));
	if (xsave) {
		memcpy(xsave_area + WX_SW_BYTES, &magic, 4);
		memcpy(xsave_area + WX_SW_BYTES + 8, &features, 8);
		memcpy(xsave_area + WX_SW_BYTES + 16, &size, 4);
		memcpy(xsave_area + WX_HEADER, &present, 8);
		memcpy(xsave_area + OPMASK_OFFSET + 8 * k, &value, 8);
	}
	uc.uc_mcontext.fpregs = (void *)xsave_area;
}

/* A watch on the 8 bytes at `at`, the sampled access an 8-byte one. */
static struct wt_watched watch(uintptr_t at, int writes_only)
{
	struct wt_watched w = { at, 8, at, 8, writes_only, 0, 0, 0, 0 };

	return w;
}

static enum wt_hit_result find(const char *start, const char *end, const struct wt_watched *w,
			       struct wt_hit *h)
{
	return wt_hit_find(NULL, &uc, U(start), U(end), w, h);
}

static void test_rep_stos(void)
{
	struct wt_watched w = watch(U(buf) + 2048, 0);
	struct wt_hit h;

	/* Intel, fast strings: one trap for the group, RDI 128 bytes past. */
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 2048 + 128);
	reg(REG_RCX, 4096 - 2048 - 128);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_memset_rep) &&
		       h.kind == WD_STORE && h.bytes == 0xff && !h.pending,
	       "rep stosb, RIP on it, RDI 128 past the watch: the store of all 8 bytes");
	/* Intel, the last group: RIP after the instruction, RCX 0. */
	context(f_memset_end);
	reg(REG_RDI, U(buf) + 4096);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_memset_rep) &&
		       h.kind == WD_STORE && h.bytes == 0xff,
	       "rep stosb done, RCX 0, RDI 2 KiB past: the store of all 8 bytes");
	/* AMD: the element that touched the watch, the rest to come. */
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 2049);
	reg(REG_RCX, 100);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.kind == WD_STORE && h.bytes == 0xff &&
		       h.pending == 0xfe,
	       "rep stosb per element: byte 0 stored, bytes 1-7 pending");
	reg(REG_RCX, 3);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.bytes == 0x0f && h.pending == 0x0e,
	       "rep stosb with 3 left: bytes 1-3 pending, 4-7 never stored");
	/* The direction flag set: the instruction walks down. */
	context(f_memset_rep);
	reg(REG_EFL, 0x602);
	reg(REG_RDI, U(buf) + 2048 - 128);
	reg(REG_RCX, 10);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.kind == WD_STORE && h.bytes == 0xff &&
		       !h.pending,
	       "rep stosb walking down, RDI 128 below the watch: stored");
	/* Not reached yet: the instruction before trapped. It reads no
	 * memory (mov %rdi,%rdx), so it stays the instruction judged. */
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 2048 + 8);
	reg(REG_RCX, 10);
	reg(REG_EFL, 0x602);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_memset) &&
		       h.kind == WD_NONE,
	       "rep stosb walking down, watch above RDI: not its bytes");
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 2048 + 8);
	reg(REG_RCX, 0);
	tap_ok(find(f_memset, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_memset),
	       "rep stosb on RIP with RCX 0 has not run: not its bytes");
	/* The instruction before stored to the watch: it trapped. */
	context(f_prev_rep);
	reg(REG_RSI, U(buf) + 2048);
	reg(REG_RDI, U(buf) + 3000);
	reg(REG_RCX, 64);
	tap_ok(find(f_prev, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_prev) &&
		       h.kind == WD_STORE && h.bytes == 0xff,
	       "RIP on rep stosb after a store to the watch: that store");
}

static void test_movs(void)
{
	struct wt_watched w;
	struct wt_hit h;

	/* buf -> src (source above the destination's end: rsi nearer) */
	context(f_copy_rep);
	reg(REG_RSI, U(buf) + 2048 + 128);
	reg(REG_RDI, U(src) + 2048 + 128);
	reg(REG_RCX, 100);
	w = watch(U(buf) + 2048, 0);
	tap_ok(find(f_copy, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_copy_rep) &&
		       h.kind == WD_LOAD && h.bytes == 0xff,
	       "rep movsb, watch behind RSI: a load");
	w = watch(U(src) + 2048, 0);
	tap_ok(find(f_copy, f_end, &w, &h) == WT_HIT && h.kind == WD_STORE && h.bytes == 0xff,
	       "rep movsb, watch behind RDI: a store");
	/* Behind both pointers: the side nearer is the one that reached it. */
	w = watch(U(buf) + 2048, 0);
	reg(REG_RDI, U(buf) + 2048 + 64);
	reg(REG_RSI, U(buf) + 2048 + 2000);
	tap_ok(find(f_copy, f_end, &w, &h) == WT_HIT && h.kind == WD_STORE,
	       "rep movsb, watch behind both: the nearer pointer's side");
	/* A write watch sees the store side only. */
	reg(REG_RDI, U(src) + 64);
	reg(REG_RSI, U(buf) + 2048 + 64);
	w = watch(U(buf) + 2048, 1);
	tap_ok(find(f_copy, f_end, &w, &h) == WT_HIT && h.acc.pc != U(f_copy_rep),
	       "rep movsb, write watch behind RSI only: not the string's");
	/* The store side's pending bytes copy from the source. */
	w = watch(U(src) + 2048, 0);
	reg(REG_RDI, U(src) + 2052);
	reg(REG_RSI, U(buf) + 52);
	reg(REG_RCX, 1000);
	tap_ok(find(f_copy, f_end, &w, &h) == WT_HIT && h.kind == WD_STORE && h.bytes == 0xff &&
		       h.pending == 0xf0 && h.copy_delta == (intptr_t)(U(buf) + 52 - (U(src) + 2052)),
	       "rep movsb per element: 4 bytes copied, 4 to come from RSI's side");
	/* A word stored, then read by rep movsq: both touched the watch. */
	w = watch(U(buf) + 2048, 0);
	context(f_storecopy_rep);
	reg(REG_RDX, U(buf) + 2048);
	reg(REG_RSI, U(buf) + 2048);
	reg(REG_RDI, U(src) + 2048);
	reg(REG_RCX, 64);
	tap_ok(find(f_storecopy, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_storecopy) &&
		       h.kind == WD_STORE,
	       "store, then rep movsq from it not started: the store");
	reg(REG_RSI, U(buf) + 2056);
	reg(REG_RDI, U(src) + 2056);
	reg(REG_RCX, 63);
	tap_ok(find(f_storecopy, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_storecopy),
	       "the copy went on, the watch never saw it start: the store's trap comes first");
	w.last_rip = U(f_storecopy_rep);
	w.last_rcx = 64;
	tap_ok(find(f_storecopy, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_storecopy_rep) &&
		       h.kind == WD_LOAD,
	       "the watch saw it at 64 to go, now 63: the copy's load");
	w.last_rcx = 63;
	tap_ok(find(f_storecopy, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_storecopy),
	       "seen at 63 to go, still 63: the store again (the next round)");

	/* Without a rep prefix: exactly the element before the pointer. */
	context(f_movsq_end);
	reg(REG_RDI, U(buf) + 2048 + 8);
	reg(REG_RSI, U(src) + 8);
	w = watch(U(buf) + 2048, 0);
	tap_ok(find(f_movsq, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_movsq) &&
		       h.kind == WD_STORE && h.bytes == 0xff,
	       "movsq: the element before RDI");
	reg(REG_RDI, U(buf) + 2048 + 200);
	tap_ok(find(f_movsq, f_end, &w, &h) == WT_HIT && h.acc.pc == U(f_movsq) &&
		       h.bytes == 0xff && h.kind == WD_RMW,
	       "movsq whose element misses the watch: judged as before, on the piece");
}

static void test_masks(void)
{
	struct wt_watched w = watch(U(buf) + 2048, 0);
	struct wt_hit h;

	wx_set_opmask_offset(OPMASK_OFFSET);
	/* vmovdqu8 %zmm16, (%rax){%k1}: bytes 32-39 of its 64 are watched. */
	context(f_mask_end);
	reg(REG_RAX, U(buf) + 2048 - 32);
	opmask(1, 0xffff, 1);
	tap_ok(find(f_mask, f_end, &w, &h) == WT_HIT_MASKED_OFF,
	       "masked store, mask of bytes 0-15: not an access to the watch");
	opmask(1, 0xfULL << 36, 1);
	tap_ok(find(f_mask, f_end, &w, &h) == WT_HIT && h.kind == WD_STORE && h.bytes == 0xf0,
	       "masked store, mask of bytes 36-39: the watch's upper half");
	opmask(2, ~0ULL, 1);
	tap_ok(find(f_mask, f_end, &w, &h) == WT_HIT_MASKED_OFF,
	       "k1 in its initial state (zero), k2 all ones: no byte stored");
	opmask(1, 0, 0);
	tap_ok(find(f_mask, f_end, &w, &h) == WT_HIT && h.bytes == 0xff,
	       "a frame without XSAVE state: every byte of the span, as unmasked");
	wx_set_opmask_offset(0);
	opmask(1, 0xffff, 1);
	tap_ok(find(f_mask, f_end, &w, &h) == WT_HIT && h.bytes == 0xff,
	       "a CPU without AVX-512 state: masks are not read");
	wx_set_opmask_offset(OPMASK_OFFSET);
	/* vpcompressd: the selected dwords go one after the other. */
	context(f_compress_end);
	reg(REG_RAX, U(buf) + 2048 - 8);
	opmask(1, 0x8003, 1);
	tap_ok(find(f_compress, f_end, &w, &h) == WT_HIT && h.bytes == 0x0f,
	       "vpcompressd, 3 dwords selected: 12 bytes from RAX, 4 of them watched");
	opmask(1, 0x3, 1);
	tap_ok(find(f_compress, f_end, &w, &h) == WT_HIT_MASKED_OFF,
	       "vpcompressd, 2 dwords: ends before the watch");
}

static void test_decode_masks(void)
{
	struct wd_access a;

	wd_decode((const uint8_t *)f_mask, 16, U(f_mask), &a);
	tap_ok(a.kind == WD_STORE && a.size == 64 && a.mask_reg == 1 && a.mask_esize == 1,
	       "vmovdqu8 {k1}: masked by k1, byte elements");
	wd_decode((const uint8_t *)f_compress, 16, U(f_compress), &a);
	tap_ok(a.mask_reg == 1 && a.mask_esize == 4 && (a.flags & WD_COMPRESS),
	       "vpcompressd {k1}: dwords, packed");
	wd_decode((const uint8_t *)f_cmpself, 16, U(f_cmpself), &a);
	tap_ok(a.kind == WD_LOAD && !a.mask_reg, "vpcmpb into its own mask: mask not known after");
	wd_decode((const uint8_t *)f_cmpk2, 16, U(f_cmpk2), &a);
	tap_ok(a.kind == WD_LOAD && a.mask_reg == 1 && a.mask_esize == 1,
	       "vpcmpb ..., %%k2{%%k1}: loads what k1 selects");
	wd_decode((const uint8_t *)f_bcast, 16, U(f_bcast), &a);
	tap_ok(!a.mask_reg, "a broadcast reads one element, whatever the mask");
}

static void test_own_bytes(void)
{
	struct wd_access a;
	uintptr_t piece;
	uint64_t own;
	unsigned len, r, ok = 1;

	wd_decode((const uint8_t *)f_mask, 16, U(f_mask), &a);
	context(f_mask_end);
	opmask(1, 0x1fULL << 36, 1);
	own = wt_hit_own_bytes(&a, &uc);
	tap_ok(own == 0x1fULL << 36, "a masked store's own bytes: those its mask selects");
	for (r = 0; r < 64; r++) {
		len = wt_watch_piece_of(0x1000, 64, own, r, &piece);
		ok &= len && piece >= 0x1000 + 36 && piece + len <= 0x1000 + 41;
	}
	tap_ok(ok, "its watched piece lies in the bytes it stored, whatever the draw");
	tap_ok(wt_watch_piece_of(0x1000, 64, own, 0, &piece) == 4 && piece == 0x1024,
	       "the largest aligned piece of selected bytes");
	opmask(1, 0, 1);
	tap_ok(wt_hit_own_bytes(&a, &uc) == 0 && !wt_watch_piece_of(0x1000, 64, 0, 7, &piece),
	       "a mask of none: nothing to watch");
	tap_ok(wt_hit_own_bytes(&a, NULL) == ~0ULL, "no context: all 64 bytes");
}

/* ---- the crafts' verdicts on such hits ---- */

static struct wt_thread th;

static struct wt_slot *armed(uintptr_t at, int craft)
{
	struct wt_slot *s = &th.slot[0];
	uintptr_t pc = U(f_prev);

	wt_cfg.craft = craft;
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->state = WT_SLOT_WATCH;
	s->bp_type = craft == WT_CRAFT_SILENT ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
	s->addr = at;
	s->len = 8;
	s->ea = at;
	s->own = 0xff;
	s->acc.size = 8;
	s->acc.kind = craft == WT_CRAFT_LOAD ? WD_LOAD : WD_STORE;
	s->watch_node = wt_cct_path(&th.cct, &pc, 1);
	wt_attrib_sampled(&th.cct.nodes[s->watch_node]);
	wt_attrib_armed(&th.cct.nodes[s->watch_node]);
	wt_craft_armed(&th, s);
	return s;
}

/* Judge h on slot s; the pair's waste, approximate waste and use. */
static void judge(struct wt_slot *s, const struct wt_hit *h, double *waste, double *use)
{
	uintptr_t pc = h->acc.pc;
	struct wt_pair *p;

	wt_craft_judge(&th, s, h, wt_cct_path(&th.cct, &pc, 1));
	p = wt_cct_pair(&th.cct, s->watch_node, wt_cct_path(&th.cct, &pc, 1));
	*waste = p->waste;
	*use = p->use;
	p->waste = p->use = p->approx = 0;
}

static void test_verdicts(void)
{
	struct wt_watched w;
	struct wt_slot *s;
	struct wt_hit h;
	double waste, use;

	wt_cct_init(&th.cct, 1024, 1024);
	th.pc_cache = NULL;
	wt_cfg.approx = 0;

	/* DeadCraft: memset over a stored word, Intel-style. */
	s = armed(U(buf) + 2048, WT_CRAFT_DEAD);
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 2048 + 128);
	reg(REG_RCX, 1000);
	wt_slot_watched(&th, s, &w);
	find(f_memset, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(waste == 8 && use == 0, "dead: memset's group over the word kills its 8 bytes (%g)",
	       waste);

	/* SilentCraft, per element: byte 0 zeroed, bytes 1-7 not yet. */
	memset(buf + 2048, 0, 8);
	s = armed(U(buf) + 2048, WT_CRAFT_SILENT);
	memset(buf + 2049, 0x55, 7);	/* what the stores in flight overwrite */
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 2049);
	reg(REG_RCX, 100);
	reg(REG_RAX, 0);
	wt_slot_watched(&th, s, &w);
	find(f_memset, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(waste == 8 && use == 0,
	       "silent: rep stosb of 0 over zeros, 7 bytes still to store: silent (%g, %g)", waste,
	       use);
	s = armed(U(buf) + 2048, WT_CRAFT_SILENT);	/* value: 00 55 55 ... */
	buf[2048] = 0x55;				/* the element stored */
	reg(REG_RAX, 0x55);
	wt_slot_watched(&th, s, &w);
	find(f_memset, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(use == 8 && waste == 0, "silent: rep stosb of 0x55 over 00 55 55 ...: not silent");

	/* SilentCraft, movs: the pending bytes come from the source. */
	memset(buf + 2048, 7, 8);
	s = armed(U(buf) + 2048, WT_CRAFT_SILENT);
	memset(src, 7, 64);
	src[10] = 9;
	context(f_copy_rep);
	reg(REG_RDI, U(buf) + 2049);
	reg(REG_RSI, U(src) + 5);
	reg(REG_RCX, 50);
	wt_slot_watched(&th, s, &w);
	find(f_copy, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(use == 8, "silent: rep movsb whose byte 6 will copy a 9 over a 7: not silent");
	src[10] = 7;
	s = armed(U(buf) + 2048, WT_CRAFT_SILENT);
	wt_slot_watched(&th, s, &w);
	find(f_copy, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(waste == 8, "silent: the same copy of 7s: silent");

	/* SilentCraft, masked: only the bytes written are compared. */
	memset(buf + 2048, 1, 8);
	s = armed(U(buf) + 2048, WT_CRAFT_SILENT);
	buf[2048] = 2;	/* changed, yet not by the masked store */
	context(f_mask_end);
	reg(REG_RAX, U(buf) + 2048 - 32);
	opmask(1, 0xfULL << 36, 1);
	wt_slot_watched(&th, s, &w);
	tap_ok(find(f_mask, f_end, &w, &h) == WT_HIT, "masked store over half the watch: a hit");
	judge(s, &h, &waste, &use);
	tap_ok(waste == 4 && use == 0,
	       "silent: it rewrote 4 unchanged bytes: 4 silent, the changed byte not its (%g, %g)",
	       waste, use);
	buf[2052] = 3;
	s = armed(U(buf) + 2048, WT_CRAFT_SILENT);
	buf[2052] = 4;
	wt_slot_watched(&th, s, &w);
	find(f_mask, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(use == 4 && waste == 0, "silent: it changed a byte it wrote: 4 bytes of use");

	/* LoadCraft: a masked load of unchanged bytes, another changed
	 * outside its mask. */
	memset(buf + 2048, 1, 8);
	s = armed(U(buf) + 2048, WT_CRAFT_LOAD);
	buf[2049] = 8;
	context(f_maskld_end);
	reg(REG_RAX, U(buf) + 2048 - 32);
	opmask(1, 0xfULL << 36, 1);
	wt_slot_watched(&th, s, &w);
	tap_ok(find(f_maskld, f_end, &w, &h) == WT_HIT && h.kind == WD_LOAD && h.bytes == 0xf0,
	       "masked load over half the watch: a load of those bytes");
	judge(s, &h, &waste, &use);
	tap_ok(waste == 4 && use == 0, "load: a masked load of the 4 unchanged bytes: redundant");
	buf[2049] = 1;

	/* A masked store's own weight: the bytes its mask selected. */
	s = armed(U(buf) + 2048, WT_CRAFT_DEAD);
	s->acc.size = 64;
	s->ea = U(buf) + 2048 - 32;
	s->own = 0x1fULL << 32;	/* it wrote 5 bytes, 4 of them watched */
	s->len = 4;
	context(f_memset_rep);
	reg(REG_RDI, U(buf) + 4000);
	reg(REG_RCX, 10);
	wt_slot_watched(&th, s, &w);
	find(f_memset, f_end, &w, &h);
	judge(s, &h, &waste, &use);
	tap_ok(waste == 5, "dead: a masked store of 5 bytes, killed: 5 bytes of waste (%g)", waste);
	wt_cct_release(&th.cct);
}

int main(void)
{
	wd_init();
	test_rep_stos();
	test_movs();
	test_masks();
	test_decode_masks();
	test_own_bytes();
	test_verdicts();
	return tap_done();
}
