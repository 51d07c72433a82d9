/*
 * libcflag - a program that keeps loading a flag of libc's own data,
 * __libc_single_threaded, which the loader's dl_iterate_phdr also reads
 * (through its lock) each time witch's unwinder runs in a handler. A watch
 * on it must not be tripped by witch itself: it once was, in every handler,
 * and each trap's own unwinding queued the next, forever.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/single_threaded.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000000, s = 0;

	for (long i = 0; i < n; i++)
		s += *(volatile char *)&__libc_single_threaded;
	printf("%ld\n", s);
	return 0;
}
