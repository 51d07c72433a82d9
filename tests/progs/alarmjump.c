/*
 * alarmjump ROUNDS - a program whose SIGALRM handler never returns: it
 * siglongjmps back to the top of the round. Each round arms a one-shot
 * 5 ms timer, stores into a buffer, then blocks in read(2) on an empty
 * pipe until the alarm ends the round, so every round ends with exactly
 * one jump, wherever the alarm lands: in the stores, in the read, or
 * inside one of witch's handlers (which must then hold it back until they
 * are done: jumping out of them left witch's state half-way and the
 * program died of a fault on a watched page, with --watch=pages).
 * Prints the jumps and whether SIGSYS ended up blocked.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define N (16 << 20)

static char buf[N] __attribute__((aligned(4096)));
static sigjmp_buf top;
static volatile sig_atomic_t jumps;

static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(top, 1);
}

__attribute__((noipa)) static void fill(long r)
{
	for (long i = 0; i < N; i++)
		buf[i] = (char)(i + r);
}

int main(int argc, char **argv)
{
	long rounds = argc == 2 ? atol(argv[1]) : 0;
	struct sigaction sa;
	sigset_t now;
	int p[2];

	if (rounds <= 0) {
		fprintf(stderr, "usage: alarmjump ROUNDS\n");
		return 2;
	}
	if (pipe(p))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	for (volatile long r = 0; r < rounds; r++) {
		if (sigsetjmp(top, 1) == 0) {
			struct itimerval it = { { 0, 0 }, { 0, 5000 } };

			setitimer(ITIMER_REAL, &it, NULL);
			fill(r);
			if (read(p[0], buf, N) >= 0)
				return 1;	/* nothing ever writes the pipe */
		}
	}
	sigprocmask(SIG_SETMASK, NULL, &now);
	printf("%d jumps; SIGSYS blocked: %d\n", (int)jumps, sigismember(&now, SIGSYS));
	return 0;
}
