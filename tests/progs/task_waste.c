/*
 * task_waste.c - a plain program (no MPI) whose tasks waste different
 * amounts by their place in a Slurm job step (for tests/e2e/93-slurm.t):
 * `srun -n N` starts N copies, each told its task number by SLURM_PROCID
 * and their number by SLURM_NTASKS. Each clears a buffer and then fills
 * it, so that every store of clear() is dead (overwritten by fill()
 * before any read), ROUNDS times; task HEAVY FACTOR times as often. Each
 * task prints its sum (task 0 of 1 without Slurm); task FAILING, when
 * given, then exits with status 3.
 *
 *   task_waste ROUNDS HEAVY FACTOR [FAILING]
 */
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

static long env_number(const char *name, long otherwise)
{
	const char *s = getenv(name);

	return s && *s ? atol(s) : otherwise;
}

int main(int argc, char **argv)
{
	long rounds, k, task, tasks;
	double sum = 0;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: task_waste ROUNDS HEAVY FACTOR [FAILING]\n");
		return 2;
	}
	task = env_number("SLURM_PROCID", 0);
	tasks = env_number("SLURM_NTASKS", 1);
	rounds = atol(argv[1]) * (task == atol(argv[2]) ? atol(argv[3]) : 1);
	for (k = 0; k < rounds; k++) {
		clear(buf);
		fill(buf, k);
		sum += buf[k % N];
	}
	printf("task %ld of %ld, sum %.0f\n", task, tasks, sum);
	return argc == 5 && task == atol(argv[4]) ? 3 : 0;
}
