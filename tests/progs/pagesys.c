/*
 * pagesys [ROUNDS]: what --watch=pages must never disturb. Each round
 * stores into a buffer (so samples watch its page), then lets the kernel
 * read and write that buffer (read from /dev/zero, write to /dev/null,
 * a pipe round trip), and catches a fault of its own with its own SIGSEGV
 * handler; at exit it stores into the buffer once more (witch must have
 * given the pages back when sampling stopped). Any EFAULT, short transfer or lost fault is printed and the
 * exit status is 1; a clean run prints the same line natively and under
 * witch.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static char buf[3 * 4096];
static sigjmp_buf back;
static volatile int own_faults;

static void on_segv(int sig)
{
	(void)sig;
	own_faults++;
	siglongjmp(back, 1);
}

__attribute__((noipa)) static void fill(char *p, size_t n, int v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)(v + i);
}

static void at_exit(void)
{
	fill(buf, sizeof(buf), 7);
}

static int check(const char *what, ssize_t got, size_t want)
{
	if (got == (ssize_t)want)
		return 0;
	printf("%s: %zd of %zu (%s)\n", what, got, want, got < 0 ? "error" : "short");
	return 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3000, bad = 0, zero, null, pfd[2];
	long sum = 0;

	zero = open("/dev/zero", O_RDONLY);
	null = open("/dev/null", O_WRONLY);
	if (zero < 0 || null < 0 || pipe(pfd) < 0)
		return 2;
	signal(SIGSEGV, on_segv);
	atexit(at_exit);
	for (int r = 0; r < rounds && !bad; r++) {
		for (int k = 0; k < 4; k++)
			fill(buf, sizeof(buf), r + k);
		bad |= check("read /dev/zero", read(zero, buf + 4096, 4096), 4096);
		bad |= check("write /dev/null", write(null, buf, sizeof(buf)), sizeof(buf));
		bad |= check("pipe write", write(pfd[1], buf + 100, 64), 64);
		bad |= check("pipe read", read(pfd[0], buf + 8000, 64), 64);
		sum += buf[4096] + buf[8000];
		if (r % 100 == 0 && !sigsetjmp(back, 1))
			*(volatile int *)8 = r;	/* its own fault, caught by its own handler */
	}
	printf("sum %ld, faults caught %d of %d\n", sum, own_faults, (rounds + 99) / 100);
	return bad || own_faults != (rounds + 99) / 100;
}
