/*
 * cmd_loops.c - `witch loops`: the loops of a program or library, found in
 * its machine code (module_loops.h). witchspy's loop tool runs it for each
 * module whose code it first meets (`witch spy --tool=loop`), so that one
 * run finds the loops and watches them; users read the map to see what
 * witch takes for a loop.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/module_loops.h"
#include "cli/oneline.h"
#include "cli/optfail.h"

#define WHO "witch loops"

static const char usage_text[] =
	"usage: witch loops [-o FILE] MODULE\n"
	"\n"
	"Writes the natural loops of every function of MODULE (an x86-64 ELF\n"
	"program or shared library), found in its machine code: the loop map that\n"
	"witch spy --tool=loop watches (docs/spy.md).\n"
	"\n"
	"  -o, --output=FILE        the map into FILE, whole or not at all (default:\n"
	"                           standard output)\n";

#define fail(...) cli_fail(WHO, 2, __VA_ARGS__)

/* The map into out through a file of its own, renamed when whole: a
 * reader never sees half of one. */
static int write_file(const char *module, const char *out)
{
	char tmp[PATH_MAX], err[1024];
	FILE *f;
	long n;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", out, (long)getpid()) >= sizeof(tmp))
		return fail("output path too long: %s", out);
	f = fopen(tmp, "w");
	if (!f)
		return fail("cannot write %s; give -o a file in a directory you can write", tmp);
	n = module_loops_write(f, module, err, sizeof(err));
	if (fclose(f) || n < 0 || rename(tmp, out)) {
		remove(tmp);
		return n < 0 ? fail("%s", err) : fail("cannot write %s", out);
	}
	return 0;
}

int cmd_loops(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_optval vals[] = {
		{ 'o', "a file for the map (-o FILE)" },
		{ 0, NULL },
	};
	const char *out = NULL;
	char err[1024];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_option_fail(WHO, WHO, "+o:h", vals, argv);
		}
	}
	if (optind != argc - 1)
		return fail(optind >= argc ? "no module given; usage: witch loops [-o FILE] MODULE"
					   : "one module at a time; usage: witch loops [-o FILE] MODULE");
	if (access(argv[optind], R_OK))
		return fail("cannot read %s; give the path of a program or shared library", argv[optind]);
	if (out)
		return write_file(argv[optind], out);
	if (module_loops_write(stdout, argv[optind], err, sizeof(err)) < 0)
		return fail("%s", err);
	return fflush(stdout) ? fail("cannot write the map on standard output") : 0;
}
