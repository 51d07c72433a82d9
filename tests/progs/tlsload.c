/*
 * tlsload [ROUNDS]: loads from thread-local storage, most of its time.
 * A load sample there makes --watch=pages watch the page of the thread's
 * static TLS, which witch's own handlers read (their own variables, errno,
 * the stack protector's canary) before they can give pages back: that page
 * must never be protected (a perl run died of it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static __thread long table[64];

__attribute__((noipa)) static long sum(int r)
{
	long s = 0;

	for (int i = 0; i < 64; i++)
		s += table[i] * (r | 1) + errno;
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 400000;
	long s = 0;

	for (int i = 0; i < 64; i++)
		table[i] = i;
	for (int r = 0; r < rounds; r++)
		s += sum(r);
	printf("%ld\n", s);
	return 0;
}
