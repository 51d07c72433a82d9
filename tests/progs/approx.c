/*
 * Approximately silent stores: every step scales each value by 1 + 1e-5,
 * a change below 0.01 %: never exactly the same bytes, always within the
 * default 1 % tolerance.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (128 * 1024)

static double a[N];

__attribute__((noipa)) static void relax(double *x, long n, double f)
{
	for (long i = 0; i < n; i++)
		x[i] = x[i] * f; /* APPROX_SITE */
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 40000;
	double f = argc > 2 ? atof(argv[2]) : 1.00001;

	for (long i = 0; i < N; i++)
		a[i] = 1.0 + (double)i;
	for (int r = 0; r < reps; r++)
		relax(a, N, f);
	printf("%.3f\n", a[N / 2]);
	return 0;
}
