/*
 * pltcall - calls into a shared library through the PLT: each call of
 * rand_r() jumps through its GOT slot, a load that returns the same address
 * every time (a redundant load, for LoadCraft and LoadSpy alike); rand_r's
 * own load of the seed is never redundant.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000, s = 0;
	unsigned seed = 1;

	for (long i = 0; i < n; i++)
		s += rand_r(&seed);
	printf("%ld\n", s);
	return 0;
}
