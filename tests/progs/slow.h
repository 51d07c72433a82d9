/*
 * slow.h - code that takes time without touching memory, for test programs
 * that want timer samples to land before a given access: six dependent
 * divisions, by a divisor the caller reads at run time so the compiler
 * cannot turn them into multiplications.
 */
#ifndef WITCH_TEST_SLOW_H
#define WITCH_TEST_SLOW_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t slow(uint64_t x, uint64_t d)
{
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	return x / d + 0x9e3779b97f4a7c15ull;
}

/*
 * main() of a program NAME [REPS] that prints rounds(REPS, d): d is a
 * divisor for slow() that the compiler cannot know.
 */
static inline int slow_main(int argc, char **argv, const char *name,
			    uint64_t (*rounds)(long reps, uint64_t d))
{
	long reps = argc > 1 ? atol(argv[1]) : 1000000;

	if (reps < 1) {
		fprintf(stderr, "usage: %s [REPS]\n", name);
		return 2;
	}
	printf("%llu\n", (unsigned long long)rounds(reps, (uint64_t)argc + 1));
	return 0;
}

#endif
