/*
 * recurse DEPTH: dead stores at the bottom of a very deep recursion, to check
 * that calling contexts stay bounded (paths are capped, not grown).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink[4096];
static volatile long bottom_seen;

__attribute__((noipa)) static long down(long depth, long reps)
{
	long below;

	if (depth > 0) {
		below = down(depth - 1, reps);
		bottom_seen += below & 1;	/* work after the call: a real stack */
		return below + 1;
	}
	for (long r = 0; r < reps; r++)
		for (int i = 0; i < 4096; i++)
			sink[i] = (int)r;	/* killed by the next round */
	return sink[7];
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 100000, total = 0;

	for (int k = 0; k < 20; k++)
		total += down(depth - k, 30000);
	printf("%ld\n", total);
	return 0;
}
