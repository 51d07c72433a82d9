/*
 * rmwcount - loads that read-modify-write instructions make: counters
 * incremented in memory (addq $1, count(,%rax,8)). Each increment reads
 * the value the previous one wrote, one more than that one read: no load
 * is redundant. After such an instruction ran, memory holds what it wrote,
 * not what it read.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long count[64];

__attribute__((noipa)) static void tally(long n)
{
	for (long i = 0; i < n; i++)
		count[(i * 7) & 63]++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000000;
	unsigned long s = 0;

	tally(n);
	for (int k = 0; k < 64; k++)
		s += count[k];
	printf("%lu\n", s);
	return 0;
}
