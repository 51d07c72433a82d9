/*
 * env.c - the runtimes' settings from the environment (env.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/env.h"

long core_env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end || errno || v < lo || v > hi ? def : v;
}

int core_env_is(const char *name, const char *value)
{
	const char *s = getenv(name);

	return s && !strcmp(s, value);
}

const char *core_env_str(const char *name)
{
	const char *s = getenv(name);

	return s && *s ? s : NULL;
}
