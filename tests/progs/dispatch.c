/*
 * dispatch - stores that follow an indirect jump, as in an interpreter's
 * dispatch: each round does slow work that stores nothing, then a switch
 * that the compiler turns into a jump table sends it to one of eight cases,
 * each storing to an array of its own. A timer sample in the slow work
 * stands for the case's store, which the walk reaches only through the
 * table's jmp.
 *
 *   dispatch REPS
 */
#include <stdint.h>

#include "slow.h"

#define N 256

static uint64_t c0[N], c1[N], c2[N], c3[N], c4[N], c5[N], c6[N], c7[N];

__attribute__((noipa)) static uint64_t rounds(long reps, uint64_t d)
{
	uint64_t x = 1;

	for (long r = 0; r < reps; r++) {
		unsigned i = (unsigned)r & (N - 1);

		x = slow(x + (uint64_t)r, d);
		switch ((x >> 7) & 7) {
		case 0: c0[i] = x; break;
		case 1: c1[i] = x + 1; break;
		case 2: c2[i] = x * 3; break;
		case 3: c3[i] = x ^ 5; break;
		case 4: c4[i] = x - 7; break;
		case 5: c5[i] = x << 2; break;
		case 6: c6[i] = x >> 3; break;
		default: c7[i] = ~x; break;
		}
	}
	return x + c0[1] + c1[2] + c2[3] + c3[4] + c4[5] + c5[6] + c6[7] + c7[8];
}

int main(int argc, char **argv)
{
	return slow_main(argc, argv, "dispatch", rounds);
}
