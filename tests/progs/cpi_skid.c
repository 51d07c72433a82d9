/*
 * cpi_skid.c - where a timer sample lands around a slow instruction
 * (docs/cpi.md, "Where a sample lands"): a loop whose load misses the
 * caches (a random cycle through 64 MiB), and a loop of dependent 64-bit
 * divides.
 *
 *   cpi_skid load [STEPS]   (default 4000000)
 *   cpi_skid div [STEPS]    (default 20000000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 23)	/* 64 MiB of uint64_t */

/* Each element names the next, in one random cycle. */
__attribute__((noipa)) static uint64_t chase(const uint64_t *next, long steps)
{
	uint64_t i = 0, s = 0;

	for (long k = 0; k < steps; k++) {
		i = next[i];
		s += i;
	}
	return s;
}

/* Each divide waits for the one before. */
__attribute__((noipa)) static uint64_t divide(uint64_t x, uint64_t d, long steps)
{
	for (long k = 0; k < steps; k++) {
		x = x / d + 0x9e3779b97f4a7c15ULL;
		x ^= (uint64_t)k;
	}
	return x;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "load";
	int load = !strcmp(mode, "load");
	long steps = argc > 2 ? atol(argv[2]) : load ? 4000000 : 20000000;
	uint64_t *next, r = 88172645463325252ULL;

	if (!load) {
		/* A divisor the compiler cannot see, or it would multiply. */
		printf("%llu\n", (unsigned long long)divide(~0ULL, (uint64_t)argc + 1, steps));
		return 0;
	}
	next = malloc(N * sizeof(*next));
	if (!next)
		return 1;
	/* Sattolo's shuffle: one cycle through all N. */
	for (uint64_t i = 0; i < N; i++)
		next[i] = i;
	for (uint64_t i = N - 1; i > 0; i--) {
		uint64_t j, t;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		j = r % i;
		t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	printf("%llu\n", (unsigned long long)chase(next, steps));
	free(next);
	return 0;
}
