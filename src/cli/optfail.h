/*
 * optfail.h - the one line for an option that getopt_long refused.
 */
#ifndef WITCH_CLI_OPTFAIL_H
#define WITCH_CLI_OPTFAIL_H

/* What an option's value is, for "-o needs a directory (-o DIR)". */
struct cli_optval {
	int opt;		/* the option's short letter or longopts val */
	const char *what;	/* "a directory for the profiles (-o DIR)" */
};

/* -o, --output of the commands that measure. */
#define CLI_OPTVAL_OUTPUT { 'o', "an output directory (-o DIR)" }

/*
 * After getopt_long returned '?' (with opterr 0 and an optstring that does
 * not start with ':'): an option given without the value it needs, one
 * given a value it takes none of, or an unknown option. Prints one line
 * starting with who and pointing to `cmd --help`, and returns 2. vals (ends
 * with opt 0) says what options' values are; others need "a value".
 */
int cli_option_fail(const char *who, const char *cmd, const char *optstring,
		    const struct cli_optval *vals, char **argv);

#endif
