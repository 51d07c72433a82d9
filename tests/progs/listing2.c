/*
 * WITCH Listing 2: long-distance dead stores. Every element written by the
 * first loop is overwritten by the second before anyone reads it; the array
 * is far larger than four debug registers can cover. The second loop's
 * stores are read by checksum(), so first -> second is the one dead pair.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

static int array[N + 1];

/* v is 0 at run time; passing it keeps gcc from turning the loop into memset. */
__attribute__((noipa)) static void first(int n, int v)
{
	for (int i = 1; i <= n; i++)
		array[i] = v;
}

__attribute__((noipa)) static void second(int n)
{
	for (int j = 1; j <= n; j++)
		array[j] = j;
}

/* Reads everything: the second loop's stores are used, the first's dead. */
__attribute__((noipa)) static long checksum(int n)
{
	long s = 0;

	for (int j = 1; j <= n; j++)
		s += array[j];
	return s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1500;
	int zero = argc > 2 ? atoi(argv[2]) : 0;
	long s = 0;

	for (int r = 0; r < reps; r++) {
		first(N, zero);
		second(N);
		s += checksum(N);
	}
	printf("%ld\n", s);
	return 0;
}
