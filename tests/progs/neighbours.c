/*
 * neighbours - two stores side by side, one after slow work: each round
 * does slow work that touches no memory, then stores to a[] (overwritten
 * N rounds later, never read: dead) and to b[] (read back the next round:
 * used). Half of the bytes stored are dead. A timer lands in the slow work
 * nearly always, so the next store is a[]'s: sampled by the next store, the
 * dead fraction is near 100 %; with --spread=N (N even) each sample draws
 * among a[] and b[] alike.
 *
 *   neighbours REPS
 */
#include <stdint.h>

#include "slow.h"

#define N 256

static uint64_t a[N], b[N];

__attribute__((noipa)) static uint64_t rounds(long reps, uint64_t d)
{
	uint64_t x = 1, s = 0;

	for (long r = 0; r < reps; r++) {
		unsigned i = (unsigned)r & (N - 1);

		x = slow(x + (uint64_t)r, d);
		s += b[(i - 1) & (N - 1)];
		__asm__ volatile("" ::: "memory");	/* keep the stores in this order */
		a[i] = x;
		__asm__ volatile("" ::: "memory");
		b[i] = x + s;
	}
	return s + a[1];
}

int main(int argc, char **argv)
{
	return slow_main(argc, argv, "neighbours", rounds);
}
