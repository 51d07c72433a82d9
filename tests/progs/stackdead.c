/*
 * stackdead REPS: dead stores to a local on the stack, in a program that
 * has a signal handler of its own (installed with signal(), so without
 * SA_ONSTACK) and gets that signal now and then. Under --watch=pages the
 * stack pages are watched all the same, and the handler still runs each
 * time: it prints how many times.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	volatile char frame[512];	/* a frame of some size, wherever it is */

	frame[0] = (char)sig;
	handled += frame[0] == SIGUSR1;
}

/* In each round the first store to `slot` is dead: the second overwrites
 * it unread, and the load reads the second. */
__attribute__((noipa)) static long rounds(long n)
{
	volatile int slot;
	long sum = 0;

	for (long i = 0; i < n; i++) {
		slot = (int)i;
		slot = (int)i + 1;
		sum += slot;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 400;
	long sum = 0;

	signal(SIGUSR1, on_usr1);
	for (long r = 0; r < reps; r++) {
		sum += rounds(1000000);
		raise(SIGUSR1);
	}
	printf("%ld %d\n", sum & 0xffff, (int)handled);
	return 0;
}
