/*
 * err.c - see err.h.
 */
#include "report/err.h"

#include <stdarg.h>
#include <stdio.h>

int rp_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
