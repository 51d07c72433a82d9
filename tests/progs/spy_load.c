/*
 * Exact LoadSpy arithmetic: sum1() loads N longs (first loads: nothing to
 * compare), sum2() loads the same values again (8N redundant bytes, pair
 * sum1 -> sum2), bump() stores new values without loading, sum3() loads
 * them (8N used bytes, pair sum2 -> sum3).
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static long a[N];

__attribute__((noipa)) static void init(long v)
{
	for (int i = 0; i < N; i++)
		a[i] = v + i;
}

__attribute__((noipa)) static long sum1(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		s += a[i];
	return s;
}

__attribute__((noipa)) static long sum2(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		s ^= a[i];
	return s;
}

__attribute__((noipa)) static long sum3(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		s |= a[i];
	return s;
}

int main(int argc, char **argv)
{
	long v = argc > 1 ? atol(argv[1]) : 7, s;

	init(v);
	s = sum1();
	s += sum2();
	init(v + 1);
	s += sum3();
	printf("%ld\n", s);
	return 0;
}
