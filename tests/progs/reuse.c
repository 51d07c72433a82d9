/*
 * Memory written, released and handed to the next owner, for comparing
 * DeadCraft with DeadSpy: the spy forgets released memory's history, so
 * the last stores of one owner are never killed by the next owner's, and
 * witch record must not say they are either.
 *
 *   reuse free|realloc|munmap REPS
 *
 * Per round: get 8 words (malloc; malloc with a neighbour so that realloc
 * must move them; mmap), clear them, set word 0, read all 8, then (after
 * slow code that attracts the samples) write words 1-7 and release them
 * (free; realloc to 4 KiB, which moves them, then free; munmap). The next
 * round usually gets the same memory back. Words 1-7 of the last writes
 * are judged by no one. mmap and munmap take microseconds: the slow code
 * runs longer there, for the last writes to get samples.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "slow.h"

#define WORDS 8

enum how { FREE, REALLOC, MUNMAP };

static volatile uint64_t *get(enum how how, void **fence)
{
	void *p;

	*fence = NULL;
	if (how == MUNMAP) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	p = malloc(WORDS * sizeof(uint64_t));
	if (how == REALLOC)
		*fence = malloc(WORDS * sizeof(uint64_t));
	return p;
}

static void release(enum how how, volatile uint64_t *p, void *fence)
{
	if (how == MUNMAP) {
		munmap((void *)p, 4096);
		return;
	}
	if (how == REALLOC)
		p = realloc((void *)p, 4096);
	free((void *)p);
	free(fence);
}

__attribute__((noipa)) static uint64_t rounds(enum how how, long reps, uint64_t d)
{
	uint64_t x = 1, sum = 0;
	int spins = how == MUNMAP ? 200 : 1;

	for (long r = 0; r < reps; r++) {
		void *fence;
		volatile uint64_t *p = get(how, &fence);

		if (!p)
			abort();
		for (int i = 0; i < WORDS; i++)
			p[i] = 0;	/* the clear */
		p[0] = x;
		for (int i = 0; i < WORDS; i++)
			sum += p[i];
		for (int s = 0; s < spins; s++)
			x = slow(x + (uint64_t)r, d) | 1;
		for (int i = 1; i < WORDS; i++)
			p[i] = x;	/* the last writes */
		release(how, p, fence);
	}
	return sum;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	long reps = argc > 2 ? atol(argv[2]) : 1000000;
	uint64_t d = (uint64_t)argc + 1;	/* a divisor the compiler cannot know */
	enum how h;

	if (!strcmp(how, "free"))
		h = FREE;
	else if (!strcmp(how, "realloc"))
		h = REALLOC;
	else if (!strcmp(how, "munmap"))
		h = MUNMAP;
	else {
		fprintf(stderr, "usage: reuse free|realloc|munmap [REPS]\n");
		return 2;
	}
	if (reps < 1) {
		fprintf(stderr, "reuse: REPS must be at least 1\n");
		return 2;
	}
	printf("%llu\n", (unsigned long long)rounds(h, reps, d));
	return 0;
}
