#include <stdio.h>

#include "cli/oneline.h"

int cli_vfail(const char *who, int rc, const char *fmt, va_list ap)
{
	char msg[2048];
	size_t i;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			msg[i] = '?';
	fprintf(stderr, "%s: %s\n", who, msg);
	return rc;
}

int cli_fail(const char *who, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = cli_vfail(who, rc, fmt, ap);
	va_end(ap);
	return rc;
}
