/*
 * Accesses wider than one watch, after slow code that does not access
 * memory: a timer sample usually lands before them and the walk takes it
 * there. A verdict on the watched piece stands for the whole access, so
 * the piece must be drawn over the access, not always its first bytes.
 * For comparing the crafts with the spy:
 *
 *   wide stos REPS     rep stos clears 64 words, then the first is set and
 *                      all 64 read: of the 65 words stored, word 0 of the
 *                      clear is dead and words 1-63 of it are silent.
 *   wide movs REPS     word 0 of a 64-word source changes, then rep movs
 *                      copies it: 63 of the 64 words it loads are redundant.
 *   wide vstore REPS   a 16-byte store clears 2 words, then the first is set
 *                      and both read: of the 3 words stored, word 0 of the
 *                      clear is dead and word 1 of it silent.
 *
 * Six dependent divisions by a divisor the compiler cannot know take most
 * of each round.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slow.h"

#define WORDS 64

static uint64_t obj[WORDS], src[WORDS], dst[WORDS];

/* x is an input of each asm so that the divisions producing it run before. */
static inline void rep_stosq(uint64_t *p, size_t n, uint64_t x)
{
	__asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0), "r"(x) : "memory");
}

static inline void rep_movsq(uint64_t *d, const uint64_t *s, size_t n, uint64_t x)
{
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : "r"(x) : "memory");
}

static inline void clear16(uint64_t *p, uint64_t x)
{
	__asm__ volatile("xorps %%xmm0, %%xmm0\n\tmovups %%xmm0, (%0)"
			 : : "r"(p), "r"(x) : "xmm0", "memory");
}

/* Clear n words with one access (rep stos, or a 16-byte store for n = 2),
 * set the first, read them all. */
__attribute__((noipa)) static uint64_t clear(long reps, uint64_t d, int n)
{
	uint64_t x = 1, sum = 0;

	for (long r = 0; r < reps; r++) {
		x = slow(x + (uint64_t)r, d) | 1;
		if (n == 2)
			clear16(obj, x);
		else
			rep_stosq(obj, WORDS, x);
		obj[0] = x;
		for (int i = 0; i < n; i++)
			sum += obj[i];
	}
	return sum;
}

/* Change word 0 of the source (x alone changes once in hundreds of rounds),
 * then copy it all with rep movs. */
__attribute__((noipa)) static uint64_t copy(long reps, uint64_t d)
{
	uint64_t x = 1;

	for (long r = 0; r < reps; r++) {
		x = slow(x + (uint64_t)r, d) | 1;
		src[0] = x + (uint64_t)r;
		rep_movsq(dst, src, WORDS, x);
	}
	return dst[0] + dst[WORDS - 1];
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long reps = argc > 2 ? atol(argv[2]) : 1000000;
	uint64_t d = (uint64_t)argc + 1;	/* a divisor the compiler cannot know */
	uint64_t sum;

	for (int i = 0; i < WORDS; i++)
		src[i] = (uint64_t)i * 7;
	if (!strcmp(mode, "stos"))
		sum = clear(reps, d, WORDS);
	else if (!strcmp(mode, "vstore"))
		sum = clear(reps, d, 2);
	else if (!strcmp(mode, "movs"))
		sum = copy(reps, d);
	else {
		fprintf(stderr, "usage: wide stos|movs|vstore [REPS]\n");
		return 2;
	}
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
