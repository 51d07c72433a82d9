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
 *   vector as write, through writev(2) with two buffers; then a writev(2)
 *          whose iovec array is a bad pointer, which fails with EFAULT
 *          (counted in the output) and must not crash the program under
 *          witch.
 *   ended  fill() stores N bytes, a brk(2) follows (with --watch=pages it
 *          ends every watch unjudged), consume() loads them all, and only
 *          then does read(2) overwrite them: none of fill's stores is
 *          killed by read(2). A watch ended by the brk must not be judged
 *          at the read, whose kernel write comes after the loads it never
 *          saw. other[], on a page of its own, keeps a watch armed then.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define N 4096

static char buf[N];
static char other[N] __attribute__((aligned(4096)));

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

__attribute__((noipa)) static long fill_other(void)
{
	long s = 0;

	for (int i = 0; i < N; i++)
		other[i] = (char)i;
	for (int i = 0; i < N; i++)
		s += other[i];
	return s;
}

/* ended: the rounds; returns what consume() summed. */
__attribute__((noipa)) static long ended_rounds(int in, long rounds)
{
	long r, s = 0;

	for (r = 0; r < rounds; r++) {
		fill();
		syscall(SYS_brk, 0);
		s += consume();
		s += fill_other();
		if (read(in, buf, sizeof(buf)) != N)
			return -1;
	}
	return s;
}

/* vector: the writev(2) rounds; returns how many bad ones failed with EFAULT. */
__attribute__((noipa)) static long vector_rounds(int out, long rounds)
{
	struct iovec halves[2] = { { buf, N / 2 }, { buf + N / 2, N / 2 } };
	const struct iovec *volatile bad = (const struct iovec *)8;	/* not an array */
	long r, efault = 0;

	for (r = 0; r < rounds; r++) {
		fill();
		if (writev(out, halves, 2) != N)
			return -1;
		if (writev(out, bad, 2) < 0 && errno == EFAULT)
			efault++;
	}
	return efault;
}

int main(int argc, char **argv)
{
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	long rounds = argc > 2 ? atol(argv[2]) : 0, r, s = 0;
	const char *mode = argc > 1 ? argv[1] : "";
	int reading = !strcmp(mode, "read");

	if (argc != 3 ||
	    (!reading && strcmp(mode, "vector") && strcmp(mode, "write") && strcmp(mode, "ended")) ||
	    rounds <= 0) {
		fprintf(stderr, "usage: sysbuf read|write|vector|ended ROUNDS\n");
		return 2;
	}
	if (in < 0 || out < 0)
		return 1;
	if (!strcmp(mode, "ended")) {
		printf("%ld\n", ended_rounds(in, rounds));
		return 0;
	}
	if (!strcmp(mode, "vector")) {
		printf("%ld\n", vector_rounds(out, rounds));
		return 0;
	}
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
