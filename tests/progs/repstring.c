/*
 * A rep string instruction after slow code that does not access memory,
 * for comparing the crafts with the spy where a timer sample usually lands
 * before the instruction and the walk takes it there: the sample must not
 * stand for the instruction's first element only.
 *
 *   repstring stos REPS   clears 64 words, then sets the first and reads all
 *                         64: of the 65 words stored, word 0 of the clear is
 *                         dead and words 1-63 of it are silent.
 *   repstring movs REPS   changes word 0 of a 64-word source, then copies
 *                         it: 63 of the 64 words it loads are redundant.
 *
 * Six dependent divisions by a divisor the compiler cannot know take most
 * of each round, so most samples are taken before the string instruction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 64

static uint64_t obj[WORDS], src[WORDS], dst[WORDS];

/* x is an input so that the divisions producing it run before. */
static inline void rep_stosq(uint64_t *p, uint64_t v, size_t n, uint64_t x)
{
	__asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(v), "r"(x) : "memory");
}

static inline void rep_movsq(uint64_t *d, const uint64_t *s, size_t n, uint64_t x)
{
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : "r"(x) : "memory");
}

static uint64_t slow(uint64_t x, uint64_t d)
{
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	return x / d + 0x9e3779b97f4a7c15ull;
}

__attribute__((noipa)) static uint64_t stos(long reps, uint64_t d)
{
	uint64_t x = 1, sum = 0;

	for (long r = 0; r < reps; r++) {
		x = slow(x + (uint64_t)r, d) | 1;
		rep_stosq(obj, 0, WORDS, x);
		obj[0] = x;
		for (int i = 0; i < WORDS; i++)
			sum += obj[i];
	}
	return sum;
}

__attribute__((noipa)) static uint64_t movs(long reps, uint64_t d)
{
	uint64_t x = 1;

	for (long r = 0; r < reps; r++) {
		x = slow(x + (uint64_t)r, d) | 1;
		src[0] = x + (uint64_t)r;	/* x alone changes once in hundreds */
		rep_movsq(dst, src, WORDS, x);
	}
	return dst[0] + dst[WORDS - 1];
}

int main(int argc, char **argv)
{
	long reps = argc > 2 ? atol(argv[2]) : 1000000;
	uint64_t d = (uint64_t)argc + 1;	/* a divisor the compiler cannot know */

	if (argc < 2 || (strcmp(argv[1], "stos") && strcmp(argv[1], "movs")) || reps < 1) {
		fprintf(stderr, "usage: repstring stos|movs [REPS]\n");
		return 2;
	}
	for (int i = 0; i < WORDS; i++)
		src[i] = (uint64_t)i * 7;
	printf("%llu\n", (unsigned long long)(argv[1][0] == 's' ? stos(reps, d) : movs(reps, d)));
	return 0;
}
