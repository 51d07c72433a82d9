/*
 * fpstore - stores that a jump reads: each round stores a function pointer
 * and then calls through it (a tail call, jmp *fp(%rip), as a PLT stub
 * jumps through its GOT slot). Every store is used by that jump: none is
 * dead. A jump through a watched slot lands at a function's entry, where a
 * trap otherwise means a call pushing its return address (a store).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) static long inc(long x)
{
	return x + 1;
}

__attribute__((noipa)) static long dec(long x)
{
	return x - 1;
}

long (*fp)(long);

__attribute__((noipa)) static long call(long x)
{
	return fp(x);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000, s = 0;

	for (long i = 0; i < n; i++) {
		fp = (i & 1) ? inc : dec;
		s += call(i);
	}
	printf("%ld\n", s);
	return 0;
}
