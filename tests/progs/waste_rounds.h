/*
 * waste_rounds.h - the work of the parallel jobs' test programs
 * (mpi_waste.c, task_waste.c), whose ranks waste different amounts: a
 * round clears a buffer and then fills it, so that every store of clear()
 * is dead (overwritten by fill() before any read).
 */
#ifndef WITCH_TEST_WASTE_ROUNDS_H
#define WITCH_TEST_WASTE_ROUNDS_H

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

/* ROUNDS rounds; the sum of an element a round, which the program prints. */
static double waste_rounds(long rounds)
{
	double sum = 0;

	for (long k = 0; k < rounds; k++) {
		clear(buf);
		fill(buf, k);
		sum += buf[k % N];
	}
	return sum;
}

#endif
