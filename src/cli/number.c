#include <errno.h>
#include <stdlib.h>

#include "cli/number.h"

int cli_long(const char *s, long min, long max, long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtol(s, &end, 10);
	return *end || errno || *out < min || *out > max ? -1 : 0;
}
