/*
 * test_code_flow.c - basic blocks, dominators and loops of machine code
 * (src/cli/code_flow.c), on functions written here in bytes: a loop,
 * nested loops, an if/else whose join only the branch dominates, a cut
 * that starts a block, a jump table, undecodable bytes and a function in
 * two ranges (its cold part elsewhere).
 */
#include "tap.h"
#include "cli/code_flow.h"

#include <string.h>

static int build(struct flow *f, uint64_t start, const uint8_t *bytes, size_t len,
		 const uint64_t *cuts, size_t ncuts)
{
	struct flow_code c = { start, bytes, len };

	return flow_build(f, &c, 1, start, cuts, ncuts);
}

static int block_is(const struct flow *f, uint32_t i, uint64_t start, uint64_t end)
{
	return i < f->nb && f->b[i].start == start && f->b[i].end == end;
}

static int succ_is(const struct flow *f, uint32_t i, uint32_t n, uint32_t s0, uint32_t s1)
{
	const struct flow_block *b = &f->b[i];

	return b->nsucc == n && (n < 1 || f->succ[b->first_succ] == s0) &&
	       (n < 2 || f->succ[b->first_succ + 1] == s1);
}

static void test_loop(void)
{
	static const uint8_t code[] = {
		0x31, 0xc0,		/* 1000 xor eax,eax */
		0xff, 0xc0,		/* 1002 inc eax */
		0x83, 0xf8, 0x0a,	/* 1004 cmp eax,10 */
		0x7c, 0xf9,		/* 1007 jl 1002 */
		0xc3,			/* 1009 ret */
	};
	struct flow f;

	tap_ok(build(&f, 0x1000, code, sizeof(code), NULL, 0) == 0 && f.nb == 3 &&
		       block_is(&f, 0, 0x1000, 0x1002) && block_is(&f, 1, 0x1002, 0x1009) &&
		       block_is(&f, 2, 0x1009, 0x100a) && f.entry == 0,
	       "a loop: three blocks, split at the jump's target and after the jump");
	tap_ok(succ_is(&f, 0, 1, 1, 0) && succ_is(&f, 1, 2, 1, 2) && succ_is(&f, 2, 0, 0, 0),
	       "its edges: on, back or out, none after ret");
	tap_ok(f.b[1].idom == 0 && f.b[2].idom == 1 && flow_dominates(&f, 0, 2) &&
		       !flow_dominates(&f, 2, 1),
	       "dominators");
	tap_ok(f.nloops == 1 && f.loops[0].header == 1 && f.loops[0].nblocks == 1 &&
		       flow_loop_holds(&f.loops[0], 1) && !flow_loop_holds(&f.loops[0], 2),
	       "one loop, the block that jumps to itself");
	tap_ok(flow_block_at(&f, 0x1005) == 1 && flow_block_at(&f, 0x1009) == 2 &&
		       flow_block_at(&f, 0x100a) == FLOW_NONE && flow_block_at(&f, 0xfff) == FLOW_NONE,
	       "the block of an address");
	flow_free(&f);
}

static void test_nested(void)
{
	static const uint8_t code[] = {
		0x31, 0xc9,		/* 7000 xor ecx,ecx */
		0x31, 0xc0,		/* 7002 xor eax,eax: outer header */
		0xff, 0xc0,		/* 7004 inc eax: inner header */
		0x83, 0xf8, 0x0a,	/* 7006 cmp eax,10 */
		0x7c, 0xf9,		/* 7009 jl 7004 */
		0xff, 0xc1,		/* 700b inc ecx */
		0x83, 0xf9, 0x05,	/* 700d cmp ecx,5 */
		0x7c, 0xf0,		/* 7010 jl 7002 */
		0xc3,			/* 7012 ret */
	};
	struct flow f;
	const struct flow_loop *outer, *inner;

	tap_ok(build(&f, 0x7000, code, sizeof(code), NULL, 0) == 0 && f.nb == 5 && f.nloops == 2,
	       "nested loops: five blocks, two loops");
	outer = f.nloops == 2 ? &f.loops[f.loops[0].header == 1 ? 0 : 1] : NULL;
	inner = f.nloops == 2 ? &f.loops[f.loops[0].header == 1 ? 1 : 0] : NULL;
	tap_ok(outer && inner && outer->header == 1 && outer->nblocks == 3 &&
		       flow_loop_holds(outer, 2) && flow_loop_holds(outer, 3) &&
		       inner->header == 2 && inner->nblocks == 1,
	       "the outer loop holds the inner one and its latch, the inner only itself");
	flow_free(&f);
}

static void test_diamond(void)
{
	static const uint8_t code[] = {
		0x85, 0xff,		/* 2000 test edi,edi */
		0x74, 0x04,		/* 2002 je 2008 */
		0xff, 0xc0,		/* 2004 inc eax */
		0xeb, 0x02,		/* 2006 jmp 200a */
		0xff, 0xc8,		/* 2008 dec eax */
		0x90,			/* 200a nop: the join */
		0x90,			/* 200b nop: a cut */
		0xc3,			/* 200c ret */
	};
	static const uint64_t cuts[] = { 0x200b, 0x2005 };
	struct flow f;

	tap_ok(build(&f, 0x2000, code, sizeof(code), cuts, 2) == 0 && f.nb == 5 &&
		       block_is(&f, 3, 0x200a, 0x200b) && block_is(&f, 4, 0x200b, 0x200d) &&
		       block_is(&f, 1, 0x2004, 0x2008),
	       "if/else: a cut at an instruction starts a block, one inside an instruction does not");
	tap_ok(f.b[3].idom == 0 && f.b[4].idom == 3 && !flow_dominates(&f, 1, 3) &&
		       !flow_dominates(&f, 2, 3) && f.nloops == 0,
	       "the join is dominated by the branch, not by either arm; no loop");
	flow_free(&f);
}

static void test_jump_table(void)
{
	static const uint8_t code[] = {
		0xff, 0xe0,		/* 3000 jmp rax */
		0xc3,			/* 3002 ret */
		0xc3,			/* 3003 ret */
	};
	struct flow f;

	tap_ok(build(&f, 0x3000, code, sizeof(code), NULL, 0) == 0 && f.nb == 3 &&
		       succ_is(&f, 0, 2, 1, 2) && f.b[1].idom == 0 && f.b[2].idom == 0,
	       "a jump through a register may go to every block nothing else reaches");
	flow_free(&f);
}

static void test_undecodable(void)
{
	static const uint8_t code[] = {
		0x06,			/* 4000 push es: not in 64-bit mode */
		0xc3,			/* 4001 ret */
	};
	struct flow f;

	tap_ok(build(&f, 0x4000, code, sizeof(code), NULL, 0) == 0 && f.nb == 2 &&
		       succ_is(&f, 0, 0, 0, 0) && f.b[1].idom == FLOW_NONE &&
		       !flow_dominates(&f, 0, 1),
	       "a byte that does not decode ends its block; what follows is not reached");
	flow_free(&f);
}

static void test_two_ranges(void)
{
	static const uint8_t hot[] = {
		0x0f, 0x84, 0xfa, 0x0f, 0x00, 0x00,	/* 5000 je 6000 */
		0xc3,					/* 5006 ret */
	};
	static const uint8_t cold[] = {
		0xe9, 0x01, 0xf0, 0xff, 0xff,		/* 6000 jmp 5006 */
	};
	struct flow_code c[2] = { { 0x5000, hot, sizeof(hot) }, { 0x6000, cold, sizeof(cold) } };
	struct flow f;

	tap_ok(flow_build(&f, c, 2, 0x5000, NULL, 0) == 0 && f.nb == 3 &&
		       block_is(&f, 2, 0x6000, 0x6005) && succ_is(&f, 0, 2, 1, 2) &&
		       succ_is(&f, 2, 1, 1, 0) && f.b[1].idom == 0 && f.b[2].idom == 0,
	       "a function in two ranges: jumps between them are edges, nothing falls across");
	flow_free(&f);
}

int main(void)
{
	test_loop();
	test_nested();
	test_diamond();
	test_jump_table();
	test_undecodable();
	test_two_ranges();
	return tap_done();
}
