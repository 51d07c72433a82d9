/*
 * lifecycle MODE: does dead-store work for a while, then ends the way MODE
 * says, so the tests can check that every ending leaves a profile and the
 * program's own exit status or death signal.
 *
 *   exit, return, _exit, segv, fpe, abort, term, int, thread-exit (another
 *   thread calls exit), exec (execs /bin/echo), fork
 *   (the child does the work), handlers (installs handlers, blocks every
 *   signal while working, prints what it observes), sleep (nanosleep and
 *   read in a loop with its own SIGALRM and SIGRTMIN handlers).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N (1 << 16)

static volatile int buf[N];
static volatile sig_atomic_t alarms, rts;

__attribute__((noipa)) static void dead_work(int reps)
{
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < N; i++)
			buf[i] = r;	/* killed by the next round */
	}
}

static void *exit_from_thread(void *arg)
{
	(void)arg;
	exit(6);
}

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void on_rt(int sig)
{
	(void)sig;
	rts++;
}

static void sleepy(void)
{
	struct timespec ts = { 0, 2000000 };
	char c;
	int fd = open("/dev/zero", O_RDONLY), eintr = 0;

	signal(SIGALRM, on_alarm);
	signal(SIGRTMIN, on_rt);
	for (int i = 0; i < 40; i++) {
		if (nanosleep(&ts, NULL) < 0)
			eintr++;
		if (read(fd, &c, 1) != 1)
			eintr++;
		dead_work(20);
		if (i % 10 == 0)
			raise(SIGRTMIN);
	}
	printf("sleep: eintr=%d rt=%d\n", eintr, (int)rts);
}

static void handlers(void)
{
	struct sigaction sa, old;
	sigset_t all, now;

	sigaction(SIGTERM, NULL, &old);
	printf("SIGTERM default: %d\n", old.sa_handler == SIG_DFL);
	sigaction(SIGSEGV, NULL, &old);
	printf("SIGSEGV default: %d\n", old.sa_handler == SIG_DFL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_rt;
	sigaction(SIGRTMAX - 1, &sa, NULL);
	sigaction(SIGRTMAX - 1, NULL, &old);
	printf("SIGRTMAX-1 handler is mine: %d\n", old.sa_handler == on_rt);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	dead_work(20000);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("SIGUSR1 blocked: %d\n", sigismember(&now, SIGUSR1));
	sigprocmask(SIG_UNBLOCK, &all, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	pid_t pid;
	int status;

	if (!strcmp(mode, "handlers")) {
		handlers();
		return 0;
	}
	if (!strcmp(mode, "sleep")) {
		sleepy();
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		pid = fork();
		if (pid == 0) {
			dead_work(20000);
			exit(5);
		}
		waitpid(pid, &status, 0);
		printf("child exited %d\n", WEXITSTATUS(status));
		return 0;
	}
	dead_work(20000);
	fflush(stdout);
	if (!strcmp(mode, "_exit"))
		_exit(3);
	if (!strcmp(mode, "segv"))
		*(volatile int *)(long)argc = 0;	/* address 2: a fault */
	if (!strcmp(mode, "fpe")) {
		volatile int zero = argc - 2, hundred = 100;

		printf("%d\n", hundred / zero);
	}
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "term"))
		kill(getpid(), SIGTERM);
	if (!strcmp(mode, "int")) {
		/* A background job of a shell without job control starts
		 * with SIGINT ignored: the mode is a death by it. */
		signal(SIGINT, SIG_DFL);
		kill(getpid(), SIGINT);
	}
	if (!strcmp(mode, "thread-exit")) {
		pthread_t t;

		pthread_create(&t, NULL, exit_from_thread, NULL);
		pthread_join(t, NULL);
	}
	if (!strcmp(mode, "exec")) {
		execl("/bin/echo", "echo", "exec'd", (char *)NULL);
		return 99;
	}
	if (!strcmp(mode, "exit"))
		exit(4);
	return 0;
}
