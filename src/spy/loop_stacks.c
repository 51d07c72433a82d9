/*
 * loop_stacks.c - stacks of loop activations by the loops' nodes, made
 * once each: a stack is its innermost activation's node and the stack
 * below it. A thread's activation k names the stack of activations 0 to
 * k, so that a count kept for some of them (loop_run.c, the site memos)
 * still finds their nodes after the activations have ended.
 *
 * The stacks are as many as the distinct nestings of loops in calling
 * contexts that ran, about as many as the loops' records.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "loop.h"

typedef struct {
	UInt parent, node;
} Stack;

static Stack *stacks;		/* [0]: the empty stack */
static UInt nstacks, cap;
static UInt *hash;		/* (parent, node) -> id + 1, 0: free */
static UInt mask;

static UInt slot(UInt parent, UInt node)
{
	return (parent * 0x9E3779B1u ^ node * 0x85EBCA77u) * 0xC2B2AE35u;
}

static void rehash(void)
{
	UInt i, h;

	VG_(free)(hash);
	mask = 2 * mask + 1;
	hash = VG_(calloc)("witchspy.loopstacks", mask + 1, sizeof(UInt));
	for (i = 1; i < nstacks; i++) {
		for (h = slot(stacks[i].parent, stacks[i].node) & mask; hash[h]; h = (h + 1) & mask)
			;
		hash[h] = i + 1;
	}
}

UInt loop_stack_push(UInt parent, UInt node)
{
	UInt h, k;

	if (!stacks) {
		cap = 256;
		stacks = VG_(malloc)("witchspy.loopstacks", cap * sizeof(Stack));
		stacks[0].parent = stacks[0].node = 0;
		nstacks = 1;
		mask = 511;
		hash = VG_(calloc)("witchspy.loopstacks", mask + 1, sizeof(UInt));
	}
	for (h = slot(parent, node) & mask; (k = hash[h]) != 0; h = (h + 1) & mask)
		if (stacks[k - 1].parent == parent && stacks[k - 1].node == node)
			return k - 1;
	if (nstacks == cap) {
		cap *= 2;
		stacks = VG_(realloc)("witchspy.loopstacks", stacks, cap * sizeof(Stack));
	}
	k = nstacks++;
	stacks[k].parent = parent;
	stacks[k].node = node;
	hash[h] = k + 1;
	if (2 * nstacks > mask)
		rehash();
	return k;
}

UInt loop_stack_node(UInt id)
{
	return stacks[id].node;
}

UInt loop_stack_below(UInt id)
{
	return stacks[id].parent;
}
