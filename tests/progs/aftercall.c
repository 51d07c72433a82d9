/*
 * Two stores with equal time before each, for comparing DeadCraft with
 * DeadSpy: one right after a call to a slow function that stores nothing,
 * the other right after the same slow code inlined. A sample stands for
 * the next store the thread makes, so the walk must follow the return to
 * the first: stopping there gave it only the samples that landed on it.
 *
 *   aftercall REPS   per round: x = away(x) (called), then a[i] = x, never
 *                    read (dead); y = slow(y) (inlined), then b[i] = y,
 *                    read the next round (used). Half the bytes stored are
 *                    dead.
 */
#include <stdint.h>

#include "slow.h"

#define N 1024

static uint64_t a[N], b[N];

__attribute__((noipa)) static uint64_t away(uint64_t x, uint64_t d)
{
	return slow(x, d);
}

__attribute__((noipa)) static uint64_t rounds(long reps, uint64_t d)
{
	uint64_t x = 1, y = 2, sum = 0;

	for (long r = 0; r < reps; r++) {
		x = away(x + (uint64_t)r, d) | 1;
		a[r & (N - 1)] = x;	/* after the call */
		y = slow(y + (uint64_t)r, d) | 1;
		b[r & (N - 1)] = y;	/* after the inlined code */
		sum += b[(r - 1) & (N - 1)];
	}
	return sum + a[0];
}

int main(int argc, char **argv)
{
	return slow_main(argc, argv, "aftercall", rounds);
}
