/*
 * loop_columns.c - matrices read down their columns, one element an
 * iteration, for witch spy --tool=loop's read set (82-spy-loop.t): the
 * parts of one 8-byte word of memory are read at different times, by
 * different loops and iterations.
 *
 *   loop_columns image [FRAMES]
 *	An 8-bit image, FRAMES times: a pass along its rows, then one down
 *	its columns (the loop marked `columns`: 64 bytes an iteration, each
 *	beside those the iteration before read). Neither pass re-reads
 *	anything within itself; the frame loop (`frames`) reads the same
 *	image again each frame.
 *   loop_columns matmul
 *	C = A B for int matrices of N x N: each iteration of the loop over
 *	C's columns (`cols`) re-reads A's row, N of its 2N reads, and reads
 *	a column of B beside the one before; the dot product (`dot`)
 *	re-reads nothing.
 *
 * Prints a checksum. Reads are volatile: each one in the source is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))
#define SIDE 64
#define N 48

static volatile unsigned char img[SIDE][SIDE];
static volatile int A[N][N], B[N][N];
static int C[N][N];

NOIPA static unsigned long rows(void)
{
	unsigned long s = 0;

	for (int y = 0; y < SIDE; y++) { /* loop: rows */
		for (int x = 0; x < SIDE; x++)
			s += img[y][x];
	}
	return s;
}

NOIPA static unsigned long columns(void)
{
	unsigned long s = 0;

	for (int x = 0; x < SIDE; x++) { /* loop: columns */
		for (int y = 0; y < SIDE; y++)
			s = s * 3 + img[y][x];
	}
	return s;
}

static unsigned long image(int frames)
{
	unsigned long s = 0;

	for (int y = 0; y < SIDE; y++)
		for (int x = 0; x < SIDE; x++)
			img[y][x] = (unsigned char)(y * 7 + x * 13);
	for (int f = 0; f < frames; f++) { /* loop: frames */
		s += rows();
		s += columns();
	}
	return s;
}

NOIPA static void multiply(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) { /* loop: cols */
			int s = 0;

			for (int k = 0; k < N; k++) /* loop: dot */
				s += A[i][k] * B[k][j];
			C[i][j] = s;
		}
}

static unsigned long matmul(void)
{
	unsigned long s = 0;

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			A[i][j] = i + 2 * j;
			B[i][j] = 3 * i - j;
		}
	multiply();
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			s = s * 31 + (unsigned)C[i][j];
	return s;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "image"))
		printf("%lu\n", image(argc > 2 ? atoi(argv[2]) : 4));
	else if (argc > 1 && !strcmp(argv[1], "matmul"))
		printf("%lu\n", matmul());
	else {
		fprintf(stderr, "usage: loop_columns image [FRAMES] | matmul\n");
		return 2;
	}
	return 0;
}
