/*
 * sysbuf MODE ROUNDS - buffers that system calls read or write, round after
 * round (src/runtime/sysbuf.c):
 *
 *   write  fill() stores N bytes that write(2) then reads: every store is
 *          used, by the kernel (0 % dead). Seen from user space alone, the
 *          next round's fill() kills them all.
 *   read   fill() stores N bytes that read(2) from /dev/zero overwrites
 *          unread, then consume() loads the zeros: every store is dead,
 *          killed by the kernel (100 % dead); every load after the first
 *          round reads the zeros it read before (redundant). fill() writes
 *          the same bytes each round, so seen from user space alone each of
 *          its stores is silent; the kernel wrote zeros in between, so none
 *          is (but for i % 256 == 0).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096

static char buf[N];

__attribute__((noipa)) static void fill(void)
{
	for (int i = 0; i < N; i++)
		buf[i] = (char)i;
}

__attribute__((noipa)) static long consume(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		s += buf[i];
	return s;
}

int main(int argc, char **argv)
{
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	long rounds = argc > 2 ? atol(argv[2]) : 0, r, s = 0;
	int reading = argc > 1 && !strcmp(argv[1], "read");

	if (argc != 3 || (!reading && strcmp(argv[1], "write")) || rounds <= 0) {
		fprintf(stderr, "usage: sysbuf read|write ROUNDS\n");
		return 2;
	}
	if (in < 0 || out < 0)
		return 1;
	for (r = 0; r < rounds; r++) {
		fill();
		if (reading) {
			if (read(in, buf, N) != N)
				return 1;
			s += consume();
		} else if (write(out, buf, N) != N) {
			return 1;
		}
	}
	printf("%ld\n", s);
	return 0;
}
