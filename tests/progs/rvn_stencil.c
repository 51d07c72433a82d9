/*
 * Inter-iteration redundancy (RVN's zeusmp/applu case): a 3x3 box sum
 * over a grid, out[i][j] = (col(j-1) + col(j) + col(j+1)) / 9, where
 * col(j) = a[i-1][j] + a[i][j] + a[i+1][j].
 *
 *   rvn_stencil bad|fixed [SWEEPS]
 *
 * bad: point() sums three columns for each point, so each column sum is
 * computed three times, at j-1, j and j+1, from the same loaded elements:
 * its first two (the marked line) were computed at j-1 and j-2. fixed:
 * row_fixed() sums each column once and keeps the last two. Each sweep
 * reads the other grid's previous results, so only sums of the unchanging
 * border columns repeat across sweeps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))
#define H 64
#define W 128
#define COL(k) (up[k] + mid[k] + dn[k])

static double grid[2][H][W];

NOIPA static double point(const double *up, const double *mid, const double *dn, long j)
{
	double l = COL(j - 1), c = COL(j); /* rvn: marked */
	double r = COL(j + 1);

	return (l + c + r) * (1.0 / 9);
}

NOIPA static void row_bad(double *o, const double *up, const double *mid, const double *dn)
{
	for (long j = 1; j < W - 1; j++)
		o[j] = point(up, mid, dn, j);
}

NOIPA static void row_fixed(double *o, const double *up, const double *mid, const double *dn)
{
	double l = COL(0), c = COL(1);

	for (long j = 1; j < W - 1; j++) {
		double r = COL(j + 1);

		o[j] = (l + c + r) * (1.0 / 9);
		l = c;
		c = r;
	}
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && strcmp(argv[1], "bad") == 0;
	long sweeps = argc > 2 ? atol(argv[2]) : 200;
	unsigned long x = 88172645463325252ul;
	double s = 0;

	if (argc < 2 || (!bad && strcmp(argv[1], "fixed") != 0)) {
		fprintf(stderr, "usage: %s bad|fixed [SWEEPS]\n", argv[0]);
		return 2;
	}
	for (long i = 0; i < H; i++)
		for (long j = 0; j < W; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			grid[0][i][j] = grid[1][i][j] = (double)(x >> 11) / (1ul << 53);
		}
	for (long t = 0; t < sweeps; t++) {
		double (*a)[W] = grid[t & 1], (*o)[W] = grid[~t & 1];

		for (long i = 1; i < H - 1; i++)
			(bad ? row_bad : row_fixed)(o[i], a[i - 1], a[i], a[i + 1]);
	}
	for (long i = 0; i < H; i++)
		for (long j = 0; j < W; j++)
			s += grid[sweeps & 1][i][j] * (double)(i * W + j + 1);
	printf("%.17g\n", s);
	return 0;
}
