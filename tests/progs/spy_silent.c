/*
 * Exact RedSpy arithmetic: first() writes N longs, same() writes the same
 * values again (8N silent bytes, pair first -> same), changed() writes
 * different values (8N used bytes, pair same -> changed).
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static long a[N];

__attribute__((noipa)) static void first(long v)
{
	for (int i = 0; i < N; i++)
		a[i] = v + i;
}

__attribute__((noipa)) static void same(long v)
{
	for (int i = 0; i < N; i++)
		a[i] = v + i;
}

__attribute__((noipa)) static void changed(long v)
{
	for (int i = 0; i < N; i++)
		a[i] = v - i;
}

int main(int argc, char **argv)
{
	long v = argc > 1 ? atol(argv[1]) : 7;

	first(v);
	same(v);
	changed(v + 1);
	printf("%ld\n", a[N / 2]);
	return 0;
}
