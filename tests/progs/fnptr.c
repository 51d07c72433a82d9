/*
 * fnptr - accesses that follow an indirect call, as in an interpreter that
 * calls each op through a pointer: each round does slow work that touches
 * no memory, then calls one of eight functions through a table of function
 * pointers; each stores to an array of its own and loads from another. A
 * timer sample in the slow work stands for the callee's access, which the
 * walk reaches only through the `call *`.
 *
 *   fnptr REPS
 */
#include <stdint.h>

#include "slow.h"

#define N 256

static uint64_t out[8][N], in[8][N];

#define OP(k)                                                                       \
	__attribute__((noipa)) static uint64_t op##k(unsigned i, uint64_t x)        \
	{                                                                           \
		out[k][i] = x + k;                                                  \
		return in[k][i] + x;                                                \
	}
OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7)

static uint64_t (*const ops[8])(unsigned, uint64_t) = { op0, op1, op2, op3, op4, op5, op6, op7 };

__attribute__((noipa)) static uint64_t rounds(long reps, uint64_t d)
{
	uint64_t x = 1, s = 0;

	for (int k = 0; k < 8; k++)
		for (int i = 0; i < N; i++)
			in[k][i] = d * (uint64_t)(k + i);
	for (long r = 0; r < reps; r++) {
		x = slow(x + (uint64_t)r, d);
		s += ops[(x >> 7) & 7]((unsigned)r & (N - 1), x);
	}
	for (int k = 0; k < 8; k++)
		s += out[k][1];
	return s;
}

int main(int argc, char **argv)
{
	return slow_main(argc, argv, "fnptr", rounds);
}
