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
 *   eintr  as read, but from a pipe that a child process fills slowly, so
 *          read(2) blocks, while a 2 kHz SIGALRM interrupts it: the call
 *          fails with EINTR (the handler has no SA_RESTART) and is tried
 *          again. With --watch=pages a caught read(2) blocks in witch's
 *          stub, and the program's handler runs there, and calls
 *          write(2) on buf itself, raw.
 *   restart as eintr, with SA_RESTART: the kernel runs the call again
 *          after the handler, from the stub's syscall instruction.
 * eintr and restart print to stderr how often the signal came and how
 * many read(2) calls it failed with EINTR (none with SA_RESTART).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 4096

static char buf[N];
static char other[N] __attribute__((aligned(4096)));

__attribute__((noipa)) static void fill(void)
{
	for (int i = 0; i < N; i++)
		buf[i] = (char)i;
}

/* eintr, restart: as fill, but with a chain of multiplies before each
 * store (about 0.2 ms a round), so that most of the program's CPU time is
 * spent filling buf, not in the kernel, and most samples (with --reach=0)
 * watch its bytes. */
__attribute__((noipa)) static void fill_slowly(void)
{
	for (int i = 0; i < N; i++) {
		unsigned x = (unsigned)i;

		__asm__ volatile(".rept 48\n\timul %0, %0\n\t.endr" : "+r"(x));
		buf[i] = (char)(i + (x & 0));
	}
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

static volatile sig_atomic_t alarms;
static int alarm_out = -1;

/* The handler writes buf too: a system call on watched bytes, made while
 * another (read(2), blocked) on the same buffer waits. It is made raw, as
 * programs may: what follows it is not what follows libc's read(2), so
 * the interrupted call resuming there would not go unnoticed. */
static void on_alarm(int sig)
{
	long r;

	(void)sig;
	alarms++;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_write), "D"((long)alarm_out), "S"(buf), "d"((long)N)
			 : "rcx", "r11", "memory");
	if (r != N)
		_exit(3);
}

/* eintr, restart: the child's side. Each round's N bytes go in four
 * pieces with a pause after each, so the reader waits in read(2). */
static void slow_writer(int out, long rounds)
{
	struct timespec pause = { 0, 100000 };
	char piece[N / 4];

	for (long r = 0; r < rounds; r++)
		for (int q = 0; q < 4; q++) {
			memset(piece, (int)(r + q), sizeof(piece));
			if (write(out, piece, sizeof(piece)) != (ssize_t)sizeof(piece))
				_exit(1);
			nanosleep(&pause, NULL);
		}
	_exit(0);
}

/* eintr, restart: the rounds, reading what slow_writer writes while
 * SIGALRM interrupts; returns what consume() summed, or -1 when a read(2)
 * failed otherwise or the writer did. */
__attribute__((noipa)) static long signalled_rounds(long rounds, int restart)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = restart ? SA_RESTART : 0 };
	struct itimerval every = { { 0, 500 }, { 0, 500 } }, off = { { 0, 0 }, { 0, 0 } };
	int fds[2], status, failed = 0;
	long r, s = 0, interrupted = 0;
	pid_t child;

	alarm_out = open("/dev/null", O_WRONLY);
	if (alarm_out < 0 || pipe(fds) != 0 || sigaction(SIGALRM, &sa, NULL) != 0)
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		close(fds[0]);
		slow_writer(fds[1], rounds);
	}
	close(fds[1]);
	setitimer(ITIMER_REAL, &every, NULL);
	for (r = 0; r < rounds && !failed; r++) {
		size_t got = 0;

		fill_slowly();
		while (got < N) {
			ssize_t n = read(fds[0], buf + got, N - got);

			if (n > 0)
				got += (size_t)n;
			else if (n < 0 && errno == EINTR)
				interrupted++;
			else {
				failed = 1;
				break;
			}
		}
		s += consume();
	}
	setitimer(ITIMER_REAL, &off, NULL);
	close(fds[0]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		failed = 1;
	fprintf(stderr, "alarms %ld\neintr %ld\n", (long)alarms, interrupted);
	return failed ? -1 : s;
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
	int reading = !strcmp(mode, "read"), restart = !strcmp(mode, "restart");

	if (argc != 3 ||
	    (!reading && !restart && strcmp(mode, "vector") && strcmp(mode, "write") &&
	     strcmp(mode, "ended") && strcmp(mode, "eintr")) ||
	    rounds <= 0) {
		fprintf(stderr, "usage: sysbuf read|write|vector|ended|eintr|restart ROUNDS\n");
		return 2;
	}
	if (in < 0 || out < 0)
		return 1;
	if (!strcmp(mode, "ended")) {
		printf("%ld\n", ended_rounds(in, rounds));
		return 0;
	}
	if (restart || !strcmp(mode, "eintr")) {
		printf("%ld\n", signalled_rounds(rounds, restart));
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
