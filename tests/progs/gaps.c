/*
 * gaps ROUNDS - as many bytes stored dead as used, but the dead ones close
 * together and each used one after a long stretch of other instructions
 * (`witch record --reach`, tests/e2e/44-reach.t).
 *
 * Each round, dense() stores N ints in a tight (vectorized) loop, and the
 * next round's dense() overwrites them unread: dead. sparse() stores N
 * ints too, each after STRETCH nops, and check() reads them all: used.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STRETCH 56

static int dense_out[N], sparse_out[N];

__attribute__((noipa)) static void dense(int r)
{
	for (int i = 0; i < N; i++)
		dense_out[i] = r + i;
}

__attribute__((noipa)) static void sparse(int r)
{
	for (int i = 0; i < N; i++) {
		/* STRETCH instructions that do nothing, straight on (no jump
		 * for a sample's walk to wait at): cheap, but many. */
		__asm__ volatile(".rept %c0\n\tnop\n\t.endr" : : "i"(STRETCH));
		sparse_out[i] = r + i;
	}
}

__attribute__((noipa)) static long check(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		s += sparse_out[i];
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc == 2 ? atol(argv[1]) : 0, s = 0;

	if (rounds <= 0) {
		fprintf(stderr, "usage: gaps ROUNDS\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		dense((int)r);
		sparse((int)r);
		s += check();
	}
	printf("%ld %d\n", s, dense_out[N - 1]);
	return 0;
}
