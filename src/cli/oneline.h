/*
 * oneline.h - the one-line error every bad input gets.
 */
#ifndef WITCH_CLI_ONELINE_H
#define WITCH_CLI_ONELINE_H

#include <stdarg.h>

/*
 * Print "WHO: message" on stderr as exactly one line (control characters,
 * such as newlines in a quoted path, become '?'); returns rc.
 */
int cli_vfail(const char *who, int rc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int cli_fail(const char *who, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
