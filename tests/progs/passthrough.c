/*
 * Echoes stdin to stdout, writes to stderr, does some work with dead stores,
 * and exits with the status given as argv[1] (or dies of signal argv[2]).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int scratch[1 << 16];

__attribute__((noipa)) static void work(int v)
{
	for (int i = 0; i < (1 << 16); i++)
		scratch[i] = v;
}

int main(int argc, char **argv)
{
	char line[256];
	int status = argc > 1 ? atoi(argv[1]) : 0;
	int sig = argc > 2 ? atoi(argv[2]) : 0;

	while (fgets(line, sizeof(line), stdin))
		printf("got: %s", line);
	for (int i = 0; i < 3000; i++)
		work(i);
	fprintf(stderr, "to stderr %d\n", scratch[5]);
	for (int i = 3; i < argc; i++)
		printf("arg %d: [%s]\n", i, argv[i]);
	fflush(stdout);
	if (sig)
		raise(sig);
	return status;
}
