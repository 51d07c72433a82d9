/*
 * task_waste.c - a plain program (no MPI) whose tasks waste different
 * amounts by their place in a Slurm job step (for tests/e2e/93-slurm.t):
 * `srun -n N` starts N copies, each told its task number by SLURM_PROCID
 * and their number by SLURM_NTASKS. Each wastes ROUNDS rounds of dead
 * stores (waste_rounds.h, as mpi_waste.c's ranks), task HEAVY FACTOR
 * times as many, and prints its sum (task 0 of 1 without Slurm); task
 * FAILING, when given, then exits with status 3.
 *
 *   task_waste ROUNDS HEAVY FACTOR [FAILING]
 */
#include <stdio.h>
#include <stdlib.h>

#include "waste_rounds.h"

static long env_number(const char *name, long otherwise)
{
	const char *s = getenv(name);

	return s && *s ? atol(s) : otherwise;
}

int main(int argc, char **argv)
{
	long rounds, task, tasks;
	double sum;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: task_waste ROUNDS HEAVY FACTOR [FAILING]\n");
		return 2;
	}
	task = env_number("SLURM_PROCID", 0);
	tasks = env_number("SLURM_NTASKS", 1);
	rounds = atol(argv[1]) * (task == atol(argv[2]) ? atol(argv[3]) : 1);
	sum = waste_rounds(rounds);
	printf("task %ld of %ld, sum %.0f\n", task, tasks, sum);
	return argc == 5 && task == atol(argv[4]) ? 3 : 0;
}
