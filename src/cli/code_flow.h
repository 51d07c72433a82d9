/*
 * code_flow.h - the control flow of one function's machine code, decoded
 * with Zydis from its bytes: basic blocks, their successors, dominators
 * and natural loops (what `witch causal --progress` reads to find where a
 * source line's visits start, docs/causal.md).
 *
 * Calls are assumed to return. A jump through a register or memory (a
 * switch's jump table) may go to any block that no other instruction
 * reaches. Bytes that do not decode end their block.
 */
#ifndef WITCH_CLI_CODE_FLOW_H
#define WITCH_CLI_CODE_FLOW_H

#include <stddef.h>
#include <stdint.h>

#define FLOW_NONE UINT32_MAX

/* One address range of the function and its bytes. */
struct flow_code {
	uint64_t start;
	const uint8_t *bytes;
	size_t len;
};

struct flow_block {
	uint64_t start, end;	/* [start, end) */
	uint32_t first_succ, nsucc;	/* into flow.succ */
	uint32_t first_pred, npred;	/* into flow.pred */
	uint32_t idom;		/* immediate dominator; the entry's is itself;
				   FLOW_NONE: not reached from the entry */
};

struct flow_loop {
	uint32_t header;
	uint32_t *blocks;	/* sorted, the header included */
	size_t nblocks;
};

struct flow {
	struct flow_block *b;	/* sorted by start */
	size_t nb;
	uint32_t *succ, *pred;
	uint32_t entry;		/* block index */
	struct flow_loop *loops;	/* one per header */
	size_t nloops;
	uint64_t *insn;		/* where each instruction starts, sorted */
	size_t ninsn;
};

/*
 * Decode the function whose code is code[0..ncode) (sorted, disjoint),
 * entered at entry. Every address in cuts that starts an instruction also
 * starts a block, so that a block's start says where it is entered. -1
 * when out of memory.
 */
int flow_build(struct flow *f, const struct flow_code *code, size_t ncode, uint64_t entry,
	       const uint64_t *cuts, size_t ncuts);

/* The block holding addr, or FLOW_NONE. */
uint32_t flow_block_at(const struct flow *f, uint64_t addr);

/* Whether block a dominates block b (every path from the entry to b passes
 * a; a block dominates itself); 0 when b is not reached. */
int flow_dominates(const struct flow *f, uint32_t a, uint32_t b);

/* Whether loop l holds block b. */
int flow_loop_holds(const struct flow_loop *l, uint32_t b);

void flow_free(struct flow *f);

#endif
