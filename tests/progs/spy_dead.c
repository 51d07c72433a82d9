/*
 * Exact DeadSpy arithmetic: fill() stores N doubles, overwrite() stores
 * them again before anyone reads them, readback() reads them. fill's 8N
 * bytes are dead (killed by overwrite), overwrite's 8N bytes are used by
 * readback: 16N bytes stored, dead fraction exactly 1/2.
 *
 * `spy_dead fork`: the parent does all that, then forks and the child does
 * it again; each process's profile holds its own 8N dead bytes only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1000

static double a[N];

__attribute__((noipa)) static void fill(double v)
{
	for (int i = 0; i < N; i++)
		a[i] = v;
}

__attribute__((noipa)) static void overwrite(double v)
{
	for (int i = 0; i < N; i++)
		a[i] = v * i;
}

__attribute__((noipa)) static double readback(void)
{
	double s = 0;

	for (int i = 0; i < N; i++)
		s += a[i];
	return s;
}

static void work(double v)
{
	fill(v);
	overwrite(v + 1);
	printf("%g\n", readback());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "fork")) {
		work(1.0);
		pid = fork();
		if (pid == 0) {
			work(1.0);
			return 0;
		}
		waitpid(pid, &status, 0);
		return 0;
	}
	work(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
