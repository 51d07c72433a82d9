/*
 * optfail.c - the one line for an option that getopt_long refused
 * (cli/optfail.h).
 */
#include <getopt.h>
#include <string.h>

#include "cli/oneline.h"
#include "cli/optfail.h"

static const char *value_of(const struct cli_optval *vals, int opt)
{
	for (; vals && vals->opt; vals++)
		if (vals->opt == opt)
			return vals->what;
	return "a value";
}

int cli_option_fail(const char *who, const char *cmd, const char *optstring,
		    const struct cli_optval *vals, char **argv)
{
	const char *arg = argv[optind - 1], *eq, *s;

	if (!strncmp(arg, "--", 2)) {
		eq = strchr(arg, '=');
		if (!optopt)
			return cli_fail(who, 2, "unknown option '%s'; see `%s --help`", arg, cmd);
		/* Known, so refused for its value: one it takes none of, or none. */
		if (eq)
			return cli_fail(who, 2, "%.*s takes no value; see `%s --help`",
					(int)(eq - arg), arg, cmd);
		return cli_fail(who, 2, "%s needs %s; see `%s --help`", arg, value_of(vals, optopt), cmd);
	}
	s = optopt > 0 && optopt != ':' ? strchr(optstring, optopt) : NULL;
	if (s && s[1] == ':')
		return cli_fail(who, 2, "-%c needs %s; see `%s --help`", optopt, value_of(vals, optopt),
				cmd);
	if (optopt > 0x20 && optopt < 0x7f)
		return cli_fail(who, 2, "unknown option '-%c'; see `%s --help`", optopt, cmd);
	return cli_fail(who, 2, "unknown option '%s'; see `%s --help`", arg, cmd);
}
