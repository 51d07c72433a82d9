/*
 * mpi_waste.c - an MPI program whose ranks waste different amounts (for
 * tests/e2e/88-mpi.t): each rank wastes ROUNDS rounds of dead stores
 * (waste_rounds.h), rank HEAVY FACTOR times as many. Rank 0 prints the
 * ranks' sums, reduced.
 *
 *   mpi_waste ROUNDS HEAVY FACTOR
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "waste_rounds.h"

int main(int argc, char **argv)
{
	long rounds;
	int rank, size;
	double sum, all = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: mpi_waste ROUNDS HEAVY FACTOR\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rounds = atol(argv[1]) * (rank == atoi(argv[2]) ? atol(argv[3]) : 1);
	sum = waste_rounds(rounds);
	MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d ranks, sum %.0f\n", size, all);
	MPI_Finalize();
	return 0;
}
