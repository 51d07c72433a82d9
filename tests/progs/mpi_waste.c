/*
 * mpi_waste.c - an MPI program whose ranks waste different amounts (for
 * tests/e2e/88-mpi.t): each rank clears a buffer and then fills it, so
 * that every store of clear() is dead (overwritten by fill() before any
 * read), ROUNDS times; rank HEAVY FACTOR times as often. Rank 0 prints
 * the ranks' sums, reduced.
 *
 *   mpi_waste ROUNDS HEAVY FACTOR
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16384

static double buf[N];

/* Not turned into memset: the dead stores stay clear()'s own. */
__attribute__((noinline)) static void clear(double *b)
{
	for (int i = 0; i < N; i++) {
		b[i] = 0;
		__asm__ volatile("" ::: "memory");
	}
}

__attribute__((noinline)) static void fill(double *b, long k)
{
	for (int i = 0; i < N; i++) {
		b[i] = (double)(i + k);
		__asm__ volatile("" ::: "memory");
	}
}

int main(int argc, char **argv)
{
	long rounds, k;
	int rank, size;
	double sum = 0, all = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: mpi_waste ROUNDS HEAVY FACTOR\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rounds = atol(argv[1]) * (rank == atoi(argv[2]) ? atol(argv[3]) : 1);
	for (k = 0; k < rounds; k++) {
		clear(buf);
		fill(buf, k);
		sum += buf[k % N];
	}
	MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d ranks, sum %.0f\n", size, all);
	MPI_Finalize();
	return 0;
}
