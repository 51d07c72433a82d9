/*
 * Echoes stdin to stdout, writes to stderr, prints its arguments and exits
 * with the status given as argv[1] (or dies of signal argv[2]): a quick
 * program for witch spy's pass-through tests.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char line[256];
	int status = argc > 1 ? atoi(argv[1]) : 0;
	int sig = argc > 2 ? atoi(argv[2]) : 0;

	while (fgets(line, sizeof(line), stdin))
		printf("got: %s", line);
	fprintf(stderr, "to stderr\n");
	for (int i = 3; i < argc; i++)
		printf("arg %d: [%s]\n", i, argv[i]);
	fflush(stdout);
	if (sig)
		raise(sig);
	return status;
}
