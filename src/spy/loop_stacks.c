/*
 * loop_stacks.c - stacks of loop activations by the loops' nodes, made
 * once each: a stack is its innermost activation's node and the stack
 * below it. A thread's activation k names the stack of activations 0 to
 * k, so that a count kept for some of them (loop_run.c, the site memos)
 * still finds their nodes after the activations have ended.
 *
 * The stacks are as many as the distinct nestings of loops in calling
 * contexts that ran, about as many as the loops' records; a recursive
 * function with loops at many depths makes one per depth, so they stop
 * at loop_stacks_max, and the ones past it are all LOOP_STACK_NONE.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "loop.h"
#include "core/cct.h"
#include "core/contract.h"

LoopStack *loop_stacks;		/* [0]: the empty stack */
UInt loop_stacks_max = LOOP_STACKS_MAX;
static UInt nstacks, cap;
static UInt *ids;		/* by (below, node), core/cct.h's table */
static UInt mask;

/* A table of mask + 1 slots holding stacks 1 to nstacks - 1. */
static void fill(void)
{
	UInt i;

	ids = VG_(malloc)("witchspy.loopstacks", (mask + 1) * sizeof(UInt));
	VG_(memset)(ids, 0xff, (mask + 1) * sizeof(UInt));
	for (i = 1; i < nstacks; i++)
		core_cct_place(ids, mask, core_cct_hash(loop_stacks[i].below, loop_stacks[i].node), i);
}

UInt loop_stack_push(UInt below, UInt node)
{
	UInt h, k;

	if (below == LOOP_STACK_NONE)
		return LOOP_STACK_NONE;
	if (!loop_stacks) {
		cap = 256;
		loop_stacks = VG_(malloc)("witchspy.loopstacks", cap * sizeof(LoopStack));
		loop_stacks[0].below = loop_stacks[0].node = 0;
		nstacks = 1;
		mask = 511;
		fill();
	}
	for (h = (UInt)core_cct_hash(below, node) & mask; (k = ids[h]) != CORE_NO_ID;
	     h = core_cct_next(h, mask))
		if (loop_stacks[k].below == below && loop_stacks[k].node == node)
			return k;
	if (nstacks > loop_stacks_max)	/* the empty one is not counted */
		return LOOP_STACK_NONE;
	if (nstacks == cap) {
		cap *= 2;
		loop_stacks = VG_(realloc)("witchspy.loopstacks", loop_stacks, cap * sizeof(LoopStack));
	}
	k = nstacks++;
	loop_stacks[k].below = below;
	loop_stacks[k].node = node;
	ids[h] = k;
	if (core_cct_full(nstacks, mask)) {
		VG_(free)(ids);
		mask = 2 * mask + 1;
		fill();
	}
	return k;
}
