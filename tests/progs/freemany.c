/*
 * freemany ROUNDS - many frees below watched bytes (src/runtime/heap.c).
 *
 * Per round: load 4 KiB of a 4 MiB cold region high in the heap, the next
 * 4 KiB each round, so that each byte is loaded again only 1024 rounds
 * later (the loads take the time: LoadCraft's samples watch them, and the
 * watches wait long); then 50 free/malloc pairs of a small block lower
 * down. witch's free ends the watches on the block it frees; finding that
 * none is there must cost no system call.
 */
#include <stdio.h>
#include <stdlib.h>

#define SLICE 4096
#define SLICES 16		/* per block: 64 KiB, below malloc's mmap threshold */
#define BLOCKS 64
#define FREES 50

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 0, r, k, sum = 0;
	volatile char *cold[BLOCKS];
	char *low;
	int b;

	if (argc != 2 || rounds <= 0) {
		fprintf(stderr, "usage: freemany ROUNDS\n");
		return 2;
	}
	low = malloc(32);	/* first: below the cold region */
	for (b = 0; b < BLOCKS; b++) {
		cold[b] = malloc(SLICE * SLICES);
		for (k = 0; k < SLICE * SLICES; k++)
			cold[b][k] = (char)k;
	}
	for (r = 0; r < rounds; r++) {
		volatile char *slice = cold[(r / SLICES) % BLOCKS] + (r % SLICES) * SLICE;

		for (k = 0; k < SLICE; k++)
			sum += slice[k];
		/* The block freed comes straight back (tcache): still below. */
		for (k = 0; k < FREES; k++) {
			free(low);
			low = malloc(32);
			low[0] = (char)k;
		}
	}
	printf("%ld\n", sum);
	for (b = 0; b < BLOCKS; b++)
		free((void *)cold[b]);
	free(low);
	return 0;
}
