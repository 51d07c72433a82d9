/*
 * A child that ends while witch spy --tool=loop finds a module's loops:
 *
 *   loop_sigchld [PIDFILE]
 *   loop_sigchld none
 *
 * A second thread waits in read(2), where SIGCHLD is not blocked; the
 * main thread forks a child that waits for a signal, writes its pid to
 * PIDFILE, and opens zlib, whose first code to run makes the loop tool
 * find its loops. A test's finder kills the child there (without
 * PIDFILE, the program kills it itself). The program's handler must see
 * the SIGCHLD: it prints whether it did, and how the child ended.
 * With `none`, there is no child, and no SIGCHLD may come: the program
 * opens zlib and prints how many came in the next half second.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static int hold[2];

static void on_chld(int sig)
{
	(void)sig;
	got++;
}

static int open_zlib(void)
{
	const char *(*version)(void);
	void *z = dlopen("libz.so.1", RTLD_NOW);

	version = z ? (const char *(*)(void))dlsym(z, "zlibVersion") : NULL;
	if (!version || !version()[0]) {
		fprintf(stderr, "loop_sigchld: no zlib: %s\n", dlerror());
		return -1;
	}
	return 0;
}

static void *waiter(void *arg)
{
	char c;

	(void)arg;
	if (read(hold[0], &c, 1) < 0)
		perror("read");
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t th;
	pid_t pid;
	int st, i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGCHLD, &sa, NULL) || pipe(hold) || pthread_create(&th, NULL, waiter, NULL)) {
		perror("loop_sigchld");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "none")) {
		if (open_zlib())
			return 1;
		for (i = 0; i < 50; i++)
			usleep(10000);
		printf("%d SIGCHLD\n", (int)got);
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		if (!f || fprintf(f, "%d\n", (int)pid) < 0 || fclose(f)) {
			perror(argv[1]);
			return 1;
		}
	} else {
		kill(pid, SIGKILL);
	}
	if (open_zlib())
		return 1;
	for (i = 0; i < 1000 && !got; i++)	/* 10 s at most */
		usleep(10000);
	printf("SIGCHLD %s\n", got ? "delivered" : "lost");
	if (!got)
		kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	printf("child %s\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "killed" : "ended otherwise");
	return 0;
}
