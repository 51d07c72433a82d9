/*
 * Exact DeadSpy arithmetic: fill() stores N doubles, overwrite() stores
 * them again before anyone reads them, readback() reads them. fill's 8N
 * bytes are dead (killed by overwrite), overwrite's 8N bytes are used by
 * readback: 16N bytes stored, dead fraction exactly 1/2.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static double a[N];

__attribute__((noipa)) static void fill(double v)
{
	for (int i = 0; i < N; i++)
		a[i] = v;
}

__attribute__((noipa)) static void overwrite(double v)
{
	for (int i = 0; i < N; i++)
		a[i] = v * i;
}

__attribute__((noipa)) static double readback(void)
{
	double s = 0;

	for (int i = 0; i < N; i++)
		s += a[i];
	return s;
}

int main(int argc, char **argv)
{
	double v = argc > 1 ? atof(argv[1]) : 1.0;

	fill(v);
	overwrite(v + 1);
	printf("%g\n", readback());
	return 0;
}
