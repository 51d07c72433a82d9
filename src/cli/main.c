/*
 * main.c - `witch SUBCOMMAND ...`: dispatch to src/cli/cmd_*.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "run a program and record wasted memory work (sampled, low overhead)" },
	{ "spy", cmd_spy, "run a program under the exhaustive Valgrind tool (ground truth, 10-50x)" },
	{ "causal", cmd_causal, "run a program with causal profiling (COZ): what speeding up each line would gain" },
	{ "cpi", cmd_cpi, "run a program twice: time per execution of every instruction, loop, line (OptiWISE)" },
	{ "loops", cmd_loops, "list the loops of a program or library, as witch spy --tool=loop finds them" },
	{ "report", cmd_report, "show a recorded profile as text or JSON" },
	{ "compare", cmd_compare, "how far a sampled profile is from a reference one" },
	{ "doctor", cmd_doctor, "check what this machine (and a program) lets witch do" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: witch COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`witch COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "witch: no command given; try `witch record -- ./app` or `witch --help`\n");
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "witch: unknown command '%s'; `witch --help` lists the commands\n", argv[1]);
	return 2;
}
