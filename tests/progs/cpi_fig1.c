/*
 * cpi_fig1.c - OptiWISE's Figure 1 in C: an outer loop whose one load
 * misses the caches (a 64 MiB table, at an index the inner loop
 * computes, which the next inner loop depends on), around an inner loop of
 * 256 iterations of two dependent ALU operations. The load costs as much
 * as a few hundred inner instructions, yet it runs 256 times less often.
 * The index mixes in the outer counter: from x alone it would cycle
 * through a few thousand entries, which the caches hold.
 *
 *   cpi_fig1 [OUTER]    (default 300000 outer iterations)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TABLE (1u << 24)

__attribute__((noinline)) static uint32_t kernel(const uint32_t *table, long outer)
{
	uint32_t x = 1;

	for (long i = 0; i < outer; i++) {			/* cpi: outer */
		for (int j = 0; j < 256; j++)			/* cpi: inner */
			x = (x - 0x2770d4eeu) ^ 0x7aa3411fu;	/* cpi: body */
		x ^= table[(x + (uint32_t)i * 2654435761u) & (TABLE - 1)];	/* cpi: load */
	}
	return x;
}

int main(int argc, char **argv)
{
	long outer = argc > 1 ? atol(argv[1]) : 300000;
	uint32_t *table = malloc(TABLE * sizeof(*table)), r = 2463534242u;

	if (!table)
		return 1;
	/* Random (xorshift32), and written: its pages are its own, not the zero page. */
	for (uint32_t i = 0; i < TABLE; i++) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		table[i] = r;
	}
	printf("%u\n", kernel(table, outer));
	free(table);
	return 0;
}
