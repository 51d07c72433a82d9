/*
 * jmpmem - loads made by jumps through memory: call() tail-calls through a
 * global function pointer (jmp *fp(%rip)), as every call into a shared
 * library does through its PLT slot. Each of those loads reads the same
 * pointer again: LoadCraft's redundant loads, and nearly the only loads
 * the program makes.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) static long inc(long x)
{
	return x + 1;
}

long (*fp)(long) = inc;

__attribute__((noipa)) static long call(long x)
{
	return fp(x);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000, s = 0;

	for (long i = 0; i < n; i++)
		s += call(i);
	printf("%ld\n", s);
	return 0;
}
