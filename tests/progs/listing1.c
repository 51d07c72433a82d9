/*
 * listing1 - WITCH Listing 1 (SPEC CPU2006 gcc): a table of 16 K registers,
 * 128 KiB, cleared with memset after every basic block, of which each block
 * touches two or three entries. Nearly every store of memset is dead
 * (killed by the next memset) and silent (zeros over zeros). glibc's memset
 * clears such a table with rep stosb on CPUs with fast strings: the trap
 * of a watch in it comes once per group of bytes on Intel CPUs, once per
 * byte on AMD ones.
 *
 * usage: listing1 [BLOCKS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGS 16384

static long regs_used[REGS];

int main(int argc, char **argv)
{
	long blocks = argc > 1 ? atol(argv[1]) : 400000, b, sum = 0;
	unsigned x = 1;

	for (b = 0; b < blocks; b++) {
		x = x * 1103515245u + 12345u;
		regs_used[x % REGS] = 1;
		regs_used[(x >> 16) % REGS]++;
		sum += regs_used[(x >> 8) % REGS];
		memset(regs_used, 0, sizeof(regs_used));
	}
	printf("%ld\n", sum);
	return 0;
}
